//! Exercise 3: task-locals copied at the spawn.

use std::rc::Rc;

use crate::common::{Log, bare_yield, run_scoped};
use ex10_shared::{Context, Scoped, TaskLocal, spawn_named};
use oneloop_testkit::watchdog_default;

/// A task-local shared by the tasks of one test.
fn request() -> Rc<TaskLocal<&'static str>> {
    Rc::new(TaskLocal::with_default("request", "none"))
}

async fn read_deep(var: Rc<TaskLocal<&'static str>>) -> &'static str {
    // Something the task awaits sees the task's value.
    var.get().unwrap_or("?")
}

#[test]
fn ex3_a_child_sees_what_its_parent_set_before_the_spawn() {
    watchdog_default(|| {
        let var = request();
        let v = Rc::clone(&var);
        let seen = run_scoped(async move {
            v.set("parent");
            let v2 = Rc::clone(&v);
            let child = spawn_named("child", async move { Ok(read_deep(v2).await) });
            child.join().await
        });
        assert_eq!(seen, Ok("parent"));
    });
}

#[test]
fn ex3_a_change_in_the_parent_after_the_spawn_is_not_seen_by_the_child() {
    watchdog_default(|| {
        let log = Log::new();
        let (var, l) = (request(), log.clone());
        run_scoped(async move {
            var.set("first");
            let (v, cl) = (Rc::clone(&var), l.clone());
            let child = spawn_named("child", async move {
                cl.say(format!("child-sees-{}", v.get().unwrap_or("?")));
                bare_yield().await?;
                cl.say(format!("child-still-{}", v.get().unwrap_or("?")));
                Ok(())
            });
            // Changed before the child's first step, and again while it waits.
            var.set("second");
            bare_yield().await?;
            var.set("third");
            child.join().await
        })
        .expect("main ends well");
        assert_eq!(log.texts(), ["child-sees-first", "child-still-first"]);
    });
}

#[test]
fn ex3_what_a_child_sets_stays_in_the_child() {
    watchdog_default(|| {
        let log = Log::new();
        let (var, l) = (request(), log.clone());
        run_scoped(async move {
            var.set("parent");
            let (v, cl) = (Rc::clone(&var), l.clone());
            let child = spawn_named("child", async move {
                v.set("child");
                bare_yield().await?;
                // Its own change survives its awaits, and what it awaits sees it.
                cl.say(format!(
                    "child-after-await-{}",
                    read_deep(Rc::clone(&v)).await
                ));
                Ok(())
            });
            bare_yield().await?;
            l.say(format!("parent-sees-{}", var.get().unwrap_or("?")));
            child.join().await?;
            l.say(format!("parent-at-end-{}", var.get().unwrap_or("?")));
            Ok(())
        })
        .expect("main ends well");
        assert_eq!(
            log.texts(),
            [
                "parent-sees-parent",
                "child-after-await-child",
                "parent-at-end-parent"
            ]
        );
    });
}

#[test]
fn ex3_siblings_get_copies_of_their_own() {
    watchdog_default(|| {
        let log = Log::new();
        let (var, l) = (request(), log.clone());
        run_scoped(async move {
            var.set("parent");
            let tasks: Vec<_> = ["a", "b"]
                .into_iter()
                .map(|name| {
                    let (v, tl) = (Rc::clone(&var), l.clone());
                    spawn_named(name, async move {
                        tl.say(format!("{name}-starts-{}", v.get().unwrap_or("?")));
                        v.set(name);
                        bare_yield().await?;
                        tl.say(format!("{name}-ends-{}", v.get().unwrap_or("?")));
                        Ok(())
                    })
                })
                .collect();
            for task in &tasks {
                task.join().await?;
            }
            Ok(())
        })
        .expect("main ends well");
        assert_eq!(
            log.texts(),
            ["a-starts-parent", "b-starts-parent", "a-ends-a", "b-ends-b"]
        );
    });
}

#[test]
fn ex3_code_outside_the_task_sees_the_threads_own_context_after_a_step() {
    watchdog_default(|| {
        let log = Log::new();
        let (var, l) = (request(), log.clone());
        let after = Rc::clone(&var);
        run_scoped(async move {
            let (v, cl) = (Rc::clone(&var), l.clone());
            let child = spawn_named("child", async move {
                v.set("child");
                Ok(())
            });
            // A stage 9 task carries no context: it runs in the thread's base context,
            // which the child's step must have put back.
            let (v, ol) = (Rc::clone(&var), cl);
            let outsider = oneloop_cancel::spawn_named("outsider", async move {
                ol.say(format!("outsider-sees-{}", v.get().unwrap_or("?")));
                Ok(())
            });
            child.join().await?;
            outsider.join().await
        })
        .expect("main ends well");
        assert_eq!(log.texts(), ["outsider-sees-none"]);
        // And after the loop, on this thread, nothing is left set.
        assert_eq!(after.get(), Some("none"));
    });
}

#[test]
fn ex3_a_scoped_future_awaited_inside_a_task_puts_the_tasks_context_back() {
    watchdog_default(|| {
        let log = Log::new();
        let (var, l) = (request(), log.clone());
        run_scoped(async move {
            var.set("task");
            let other = Context::new();
            let v = Rc::clone(&var);
            // Awaited, not spawned: its polls run inside this task's step, so only
            // Scoped's own poll can put this task's context back after each one.
            let inner = Scoped::new(other, async move {
                v.set("inner");
                bare_yield().await?;
                Ok::<_, oneloop_cancel::Error>(v.get().unwrap_or("?"))
            });
            let mut inner = std::pin::pin!(inner);
            let parked = std::future::poll_fn(|cx| {
                std::task::Poll::Ready(inner.as_mut().poll(cx).is_pending())
            })
            .await;
            l.say(format!(
                "parked-{parked}-task-sees-{}",
                var.get().unwrap_or("?")
            ));
            let seen = inner.await?;
            l.say(format!(
                "inner-saw-{seen}-task-sees-{}",
                var.get().unwrap_or("?")
            ));
            Ok(())
        })
        .expect("main ends well");
        assert_eq!(
            log.texts(),
            [
                "parked-true-task-sees-task",
                "inner-saw-inner-task-sees-task"
            ],
            "each poll of a Scoped puts the context it replaced back"
        );
    });
}
