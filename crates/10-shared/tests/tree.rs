//! The task tree seen from inside the program: all_tasks, current_task, what each
//! task awaits (another task by join, gather, group; a sleep; a socket), and the tree
//! a stalled loop reports.

use std::cell::RefCell;
use std::collections::HashMap;
use std::future::pending;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::rc::Rc;
use std::time::Duration;

use oneloop_cancel::{Error, cancellable, gather, sleep, spawn_named, task_group, yield_now};
use oneloop_core::{ExceptionReport, LoopError};
use oneloop_shared::{
    STALLED_TREE, TaskInfo, TaskState, all_tasks, current_task, render_tree, snapshot, track, walk,
};
use oneloop_testkit::watchdog_default;

/// The snapshot's tasks by name, and a name for each id.
fn by_name(tasks: &[TaskInfo]) -> (HashMap<String, TaskInfo>, HashMap<u64, String>) {
    let names = tasks.iter().map(|t| (t.id, t.name.clone())).collect();
    let infos = tasks.iter().map(|t| (t.name.clone(), t.clone())).collect();
    (infos, names)
}

/// What `task` awaits, as (name, how), in the snapshot's order.
fn awaits(task: &TaskInfo, names: &HashMap<u64, String>) -> Vec<(String, &'static str)> {
    task.awaits
        .iter()
        .map(|edge| (names[&edge.task].clone(), edge.how))
        .collect()
}

/// Replaces every `#id` of the rendered tree by the task's name.
fn named(text: &str, tasks: &[TaskInfo]) -> String {
    let mut text = text.to_owned();
    let mut ids: Vec<&TaskInfo> = tasks.iter().collect();
    // Longest ids first, so that #12 is not read as #1 followed by 2.
    ids.sort_by_key(|t| std::cmp::Reverse(t.id.to_string().len()));
    for task in ids {
        text = text.replace(&format!("#{}", task.id), &format!("<{}>", task.name));
    }
    text
}

#[test]
fn a_task_queued_on_a_lock_shows_a_lock_leaf_and_the_holder_shows_none() {
    watchdog_default(|| {
        let mut event_loop = oneloop_timers::virtual_time_loop();
        track(&event_loop);
        let main = async {
            let lock = Rc::new(oneloop_shared::Lock::new());
            lock.acquire().await?;
            let queued = Rc::clone(&lock);
            let waiter = spawn_named("waiter", async move {
                queued.acquire().await?;
                queued.release()?;
                Ok(())
            });
            yield_now().await?;
            let tasks = snapshot();
            lock.release()?;
            waiter.join().await?;
            Ok(tasks)
        };
        let (driven, handle) = oneloop_cancel::task_future("main", main);
        event_loop.run_until_complete(driven).expect("main runs");
        let tasks = handle.try_result().expect("done").expect("main is ok");
        let (infos, _) = by_name(&tasks);
        assert_eq!(infos["waiter"].leaves, ["lock acquire"]);
        assert!(infos["main"].leaves.is_empty());
    });
}

#[test]
fn the_snapshot_lists_each_task_with_its_state_what_it_awaits_and_its_sleep() {
    watchdog_default(|| {
        let mut event_loop = oneloop_timers::virtual_time_loop();
        track(&event_loop);
        let main = async {
            let worker = spawn_named("worker", async {
                sleep(Duration::from_secs(10)).await?;
                Ok(1)
            });
            let worker_ref = worker.task_ref();
            let joiner = spawn_named("joiner", async move { worker.join().await });
            let grouper = spawn_named("grouper", async {
                task_group(|group| async move {
                    for name in ["child-a", "child-b"] {
                        group.spawn(name, async {
                            sleep(Duration::from_secs(20)).await?;
                            Ok(())
                        })?;
                    }
                    Ok(())
                })
                .await
            });
            let gatherer = spawn_named("gatherer", async {
                gather(vec![async { pending::<Result<(), Error>>().await }], false)
                    .await
                    .map(drop)
            });
            for _ in 0..4 {
                yield_now().await?;
            }
            worker_ref.cancel(Some("asked"));
            let names: Vec<String> = all_tasks().iter().map(|t| t.name().to_owned()).collect();
            let me = current_task().expect("main is a task of this layer");
            let tasks = snapshot();
            drop((joiner, grouper, gatherer));
            Ok((names, me.name().to_owned(), tasks))
        };
        let (driven, handle) = oneloop_cancel::task_future("main", main);
        event_loop.run_until_complete(driven).expect("main runs");
        let (names, me, tasks) = handle.try_result().expect("done").expect("main is ok");
        assert_eq!(me, "main");
        assert_eq!(
            names,
            [
                "main", "worker", "joiner", "grouper", "gatherer", "child-a", "child-b", "task"
            ]
        );
        let (infos, ids) = by_name(&tasks);
        assert_eq!(infos["main"].state, TaskState::Running);
        assert_eq!(infos["worker"].state, TaskState::Cancelling(1));
        assert_eq!(infos["joiner"].state, TaskState::Pending);
        assert_eq!(infos["worker"].leaves, ["sleep until 10.000s"]);
        assert_eq!(infos["child-a"].leaves, ["sleep until 20.000s"]);
        assert_eq!(
            awaits(&infos["joiner"], &ids),
            [("worker".to_owned(), "join")]
        );
        assert_eq!(
            awaits(&infos["grouper"], &ids),
            [
                ("child-a".to_owned(), "group"),
                ("child-b".to_owned(), "group")
            ]
        );
        assert_eq!(
            awaits(&infos["gatherer"], &ids),
            [("task".to_owned(), "gather")]
        );
        assert!(infos["main"].awaits.is_empty());
        let tree = named(&render_tree(&tasks, &walk(&tasks)), &tasks);
        assert_eq!(
            tree,
            "\
├── (T) main <main> running
├── (T) joiner <joiner> pending
│   └── (T) worker <worker> cancelling(1) [join]
│       └── sleep until 10.000s
├── (T) grouper <grouper> pending
│   ├── (T) child-a <child-a> pending [group]
│   │   └── sleep until 20.000s
│   └── (T) child-b <child-b> pending [group]
│       └── sleep until 20.000s
└── (T) gatherer <gatherer> pending
    └── (T) task <task> pending [gather]
"
        );
    });
}

#[test]
fn a_task_waiting_on_a_socket_shows_the_fd_and_the_direction() {
    watchdog_default(|| {
        let mut event_loop = oneloop_io::new_event_loop().expect("epoll");
        let (mine, _peer) = UnixStream::pair().expect("a socket pair");
        mine.set_nonblocking(true).expect("non-blocking");
        let fd = mine.as_raw_fd();
        let main = async move {
            let reader = spawn_named("reader", async move {
                cancellable(oneloop_io::readable(&mine)).await?.ok();
                Ok(())
            });
            yield_now().await?;
            yield_now().await?;
            let tasks = snapshot();
            reader.cancel(None);
            Ok(tasks)
        };
        let (driven, handle) = oneloop_cancel::task_future("main", main);
        event_loop.run_until_complete(driven).expect("main runs");
        let tasks = handle.try_result().expect("done").expect("main is ok");
        let (infos, _) = by_name(&tasks);
        assert_eq!(infos["reader"].leaves, [format!("fd {fd} readable")]);
        // No note was asked for: the socket comes from the I/O table itself.
        assert!(infos["main"].leaves.is_empty());
    });
}

#[test]
fn without_track_a_sleep_leaves_no_note_but_the_links_are_there() {
    watchdog_default(|| {
        let mut event_loop = oneloop_timers::virtual_time_loop();
        let main = async {
            let sleeper = spawn_named("sleeper", async {
                sleep(Duration::from_secs(5)).await?;
                Ok(())
            });
            let joiner = spawn_named("joiner", async move { sleeper.join().await });
            yield_now().await?;
            yield_now().await?;
            let tasks = snapshot();
            drop(joiner);
            Ok(tasks)
        };
        let (driven, handle) = oneloop_cancel::task_future("main", main);
        event_loop.run_until_complete(driven).expect("main runs");
        let tasks = handle.try_result().expect("done").expect("main is ok");
        let (infos, ids) = by_name(&tasks);
        assert!(infos["sleeper"].leaves.is_empty());
        assert_eq!(
            awaits(&infos["joiner"], &ids),
            [("sleeper".to_owned(), "join")]
        );
    });
}

#[test]
fn a_stalled_loop_reports_its_task_tree() {
    watchdog_default(|| {
        let mut event_loop = oneloop_timers::virtual_time_loop();
        track(&event_loop);
        let reports: Rc<RefCell<Vec<ExceptionReport>>> = Rc::default();
        let seen = Rc::clone(&reports);
        event_loop.set_exception_handler(move |report| seen.borrow_mut().push(report.clone()));
        let main = async {
            let stuck = spawn_named("stuck", async {
                cancellable(pending::<()>()).await?;
                Ok(())
            });
            let waiter = spawn_named("waiter", async move { stuck.join().await });
            waiter.join().await
        };
        let (driven, _handle) = oneloop_cancel::task_future("main", main);
        let outcome = event_loop.run_until_complete(driven);
        assert_eq!(outcome, Err(LoopError::Stalled));
        let reports = reports.borrow();
        let report = reports
            .iter()
            .find(|r| r.message == STALLED_TREE)
            .expect("the stall was reported with the tree");
        let lines: Vec<String> = report
            .panic
            .lines()
            .map(|line| {
                // Drop the ids, keep the shape and the names.
                line.split(" #").next().unwrap_or(line).to_owned()
            })
            .collect();
        assert_eq!(
            lines,
            [
                "└── (T) main",
                "    └── (T) waiter",
                "        └── (T) stuck"
            ]
        );
    });
}

#[test]
fn shield_and_wait_are_listed_as_awaits_and_a_join_as_join() {
    watchdog_default(|| {
        let mut event_loop = oneloop_timers::virtual_time_loop();
        let main = async {
            let long = || async {
                sleep(Duration::from_secs(9)).await?;
                Ok(())
            };
            let shielded = Rc::new(spawn_named("shielded", long()));
            let waited = Rc::new(vec![spawn_named("waited", long())]);
            let (s, w) = (Rc::clone(&shielded), Rc::clone(&waited));
            let shielder = spawn_named("shielder", async move { oneloop_cancel::shield(&s).await });
            let waiter = spawn_named("waiter", async move {
                oneloop_cancel::wait(&w, oneloop_cancel::ReturnWhen::AllCompleted)
                    .await
                    .map(drop)
            });
            yield_now().await?;
            yield_now().await?;
            let tasks = snapshot();
            drop((shielder, waiter));
            Ok(tasks)
        };
        let (driven, handle) = oneloop_cancel::task_future("main", main);
        event_loop.run_until_complete(driven).expect("main runs");
        let tasks = handle.try_result().expect("done").expect("main is ok");
        let (infos, ids) = by_name(&tasks);
        assert_eq!(
            awaits(&infos["shielder"], &ids),
            [("shielded".to_owned(), "shield")]
        );
        assert_eq!(
            awaits(&infos["waiter"], &ids),
            [("waited".to_owned(), "wait")]
        );
    });
}

#[test]
fn a_note_of_an_earlier_step_is_left_out() {
    watchdog_default(|| {
        let mut event_loop = oneloop_timers::virtual_time_loop();
        track(&event_loop);
        let main = async {
            let never = spawn_named("never", async {
                cancellable(pending::<()>()).await?;
                Ok(())
            });
            let phases = spawn_named("phases", async move {
                sleep(Duration::from_secs(1)).await?;
                never.join().await
            });
            yield_now().await?;
            let during_sleep = snapshot();
            sleep(Duration::from_secs(2)).await?;
            let after_sleep = snapshot();
            phases.cancel(None);
            Ok((during_sleep, after_sleep))
        };
        let (driven, handle) = oneloop_cancel::task_future("main", main);
        event_loop.run_until_complete(driven).expect("main runs");
        let (during, after) = handle.try_result().expect("done").expect("main is ok");
        let (during, _) = by_name(&during);
        let (after, ids) = by_name(&after);
        assert_eq!(during["phases"].leaves, ["sleep until 1.000s"]);
        assert!(during["phases"].awaits.is_empty());
        assert!(after["phases"].leaves.is_empty(), "the sleep is over");
        assert_eq!(
            awaits(&after["phases"], &ids),
            [("never".to_owned(), "join")]
        );
    });
}
