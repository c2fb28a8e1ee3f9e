//! The tree view of a big program costs in proportion to its tasks. A server with a
//! hundred thousand connection tasks in one group, asked for its tree or its table
//! over the introspection socket, answers on the loop's own thread: a view whose cost
//! grows with the square of the tasks would stop the server for minutes, and one that
//! recurses down a chain of awaits, or indents each line by its depth, would overflow
//! the stack or write text that grows with the square of the depth.

use std::future::pending;
use std::time::Duration;

use oneloop_cancel::{Error, spawn_named, task_group, yield_now};
use oneloop_shared::{
    Awaited, DRAWN_DEPTH, LISTED_IN_A_CELL, TaskInfo, TaskState, render_table, render_tree,
    snapshot, table_text, track, tree_text, walk,
};
use oneloop_testkit::cpu_watchdog;

/// The most CPU time the body of one of these tests may take: their hang detector. The
/// bodies only compute, on their one thread, so the thread's CPU time is what a view
/// whose cost grows with the square of the tasks shows in; the wall clock, on a loaded
/// machine that hands the thread a fifth of a core, would fail a view in proportion.
const CPU_LIMIT: Duration = Duration::from_secs(10);

/// The smallest size at which the quadratic snapshot below still runs for several times
/// the ten seconds of CPU time that [`CPU_LIMIT`] allows.
const CHILDREN: usize = 30_000;

/// The time is a hang detector's business only. With a snapshot in proportion to the
/// tasks, this takes under a second of CPU time in a debug build. A snapshot that looks
/// through every task for the children of each makes 30,000² ≈ 10^9 steps, each through
/// a `RefCell` (some 60 ns in a debug build): about a minute, so the detector fires
/// whatever the machine. At half the size it would take a quarter of that, too close to
/// the detector's ten seconds.
#[test]
fn a_group_of_30000_children_is_snapshot_and_drawn_in_proportion_to_its_tasks() {
    cpu_watchdog(CPU_LIMIT, || {
        let mut event_loop = oneloop_timers::virtual_time_loop();
        track(&event_loop);
        let main = async {
            let _grouper = spawn_named("grouper", async {
                task_group(|group| async move {
                    for _ in 0..CHILDREN {
                        group.spawn("child", async { pending::<Result<(), Error>>().await })?;
                    }
                    Ok(())
                })
                .await
            });
            for _ in 0..3 {
                yield_now().await?;
            }
            Ok((snapshot(), tree_text(), table_text()))
        };
        let (driven, handle) = oneloop_cancel::task_future("main", main);
        event_loop.run_until_complete(driven).expect("main runs");
        let (tasks, tree, table) = handle.try_result().expect("done").expect("main is ok");
        let grouper = tasks
            .iter()
            .find(|task| task.name == "grouper")
            .expect("the grouper is in the snapshot");
        assert_eq!(
            grouper.awaits.len(),
            CHILDREN,
            "each child once, by the group"
        );
        // main, the grouper and its children: one line each, two per child in the table
        // (its row names the grouper that awaits it).
        assert_eq!(tree.lines().count(), 2 + CHILDREN);
        assert_eq!(table.lines().count(), 1 + 2 + CHILDREN);
    });
}

/// `t1` awaits `t2`, which awaits `t3`, … down to `t{depth}`.
fn chain(depth: u64) -> Vec<TaskInfo> {
    (1..=depth)
        .map(|id| TaskInfo {
            id,
            name: format!("t{id}"),
            state: TaskState::Pending,
            awaits: if id < depth {
                vec![Awaited {
                    task: id + 1,
                    how: "join",
                }]
            } else {
                Vec::new()
            },
            leaves: Vec::new(),
        })
        .collect()
}

/// A task awaiting 120,000 others: the tree finds each task's name, and the table who
/// awaits each task, without looking through every task for each.
///
/// The size is the smallest that catches the cheaper of the two quadratics by a wide
/// margin. A tree that finds each line's task by a scan of the list makes 120,000²/2 ≈
/// 7·10^9 comparisons of ids (some 6 ns each in a debug build): some 40 s, four times
/// the ten seconds of CPU time the test may take. A table that scans every task's
/// awaits for each task makes twice as many steps, each dearer. In proportion to the
/// tasks, the views take a second or two of CPU time.
#[test]
fn a_task_awaiting_120000_others_is_drawn_and_tabled_in_proportion_to_them() {
    cpu_watchdog(CPU_LIMIT, || {
        const WIDE: u64 = 120_000;
        let mut tasks = vec![TaskInfo {
            id: 1,
            name: "root".to_owned(),
            state: TaskState::Pending,
            awaits: (2..WIDE + 2)
                .map(|task| Awaited {
                    task,
                    how: "gather",
                })
                .collect(),
            leaves: Vec::new(),
        }];
        tasks.extend(chain(WIDE + 1).into_iter().skip(1).map(|mut task| {
            task.awaits.clear();
            task
        }));
        let tree = render_tree(&tasks, &walk(&tasks));
        assert_eq!(tree.lines().count() as u64, 1 + WIDE);
        assert!(
            tree.lines()
                .last()
                .is_some_and(|line| line.contains(&format!(
                    "└── (T) t{} #{} pending [gather]",
                    WIDE + 1,
                    WIDE + 1
                )))
        );
        let table = render_table(&tasks);
        assert_eq!(table.lines().count() as u64, 2 + WIDE);
        assert!(table.contains("#1 (gather)"));
    });
}

/// A chain of awaits 50,000 deep: text that indented each line by its depth would
/// hold some 5 GB (the width check fails at any depth past the drawn one).
///
/// The depth is for the cost: a tree that tells whether a line is the last of its
/// siblings by scanning the lines after it scans to the end of a chain from every
/// line, 50,000²/2 ≈ 10^9 steps (some 20 ns each in a debug build): half a minute
/// against the ten seconds of CPU time the test may take. Shallower, it would pass.
#[test]
fn a_chain_of_50000_awaits_is_drawn_in_lines_of_bounded_width() {
    cpu_watchdog(CPU_LIMIT, || {
        const DEPTH: u64 = 50_000;
        let tasks = chain(DEPTH);
        let text = render_tree(&tasks, &walk(&tasks));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len() as u64, DEPTH);
        let widest = lines.iter().map(|line| line.chars().count()).max();
        // The guides of DRAWN_DEPTH levels (4 columns each), the branch, the depth
        // written out and the task: bounded, whatever the depth.
        assert!(
            widest.is_some_and(|width| width <= 4 * DRAWN_DEPTH + 80),
            "a line of {widest:?} columns"
        );
        assert!(lines[1].starts_with("    └── (T) t2 #2"), "{}", lines[1]);
        let last = lines.last().expect("lines");
        assert!(
            last.contains(&format!("[depth {}] (T) t{DEPTH} #{DEPTH}", DEPTH - 1)),
            "{last}"
        );
        let table = render_table(&tasks);
        assert_eq!(table.lines().count() as u64, 1 + DEPTH);
    });
}

#[test]
fn a_line_at_the_drawn_depth_and_below_says_its_depth_and_shallower_lines_do_not() {
    let tasks = chain(DRAWN_DEPTH as u64 + 2);
    let text = render_tree(&tasks, &walk(&tasks));
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        !lines[DRAWN_DEPTH - 1].contains("[depth"),
        "{}",
        lines[DRAWN_DEPTH - 1]
    );
    assert!(
        lines[DRAWN_DEPTH].contains(&format!("[depth {DRAWN_DEPTH}]")),
        "{}",
        lines[DRAWN_DEPTH]
    );
    assert_eq!(
        lines[DRAWN_DEPTH].find("└──"),
        lines[DRAWN_DEPTH + 1].find("└──"),
        "lines past the drawn depth are drawn at the same column"
    );
}

/// Two thousand tasks awaiting one: a table that listed all of them in the awaited
/// task's cell would pad every row to that cell, some 2,000 × 2,000 × 12 bytes.
#[test]
fn a_task_awaited_by_2000_others_is_tabled_in_rows_of_bounded_width() {
    const AWAITING: u64 = 2_000;
    let mut tasks = vec![TaskInfo {
        id: 1,
        name: "shared".to_owned(),
        state: TaskState::Pending,
        awaits: Vec::new(),
        leaves: Vec::new(),
    }];
    tasks.extend((2..AWAITING + 2).map(|id| TaskInfo {
        id,
        name: format!("t{id}"),
        state: TaskState::Pending,
        awaits: vec![Awaited {
            task: 1,
            how: "join",
        }],
        leaves: Vec::new(),
    }));
    let table = render_table(&tasks);
    assert_eq!(table.lines().count() as u64, 2 + AWAITING);
    let widest = table.lines().map(|line| line.chars().count()).max();
    assert!(
        widest.is_some_and(|width| width <= 20 * LISTED_IN_A_CELL + 80),
        "a row of {widest:?} columns"
    );
    let shared = table.lines().nth(1).expect("the awaited task's row");
    assert!(shared.starts_with("1 "), "{shared}");
    assert!(shared.contains("#2 (join), #3 (join)"), "{shared}");
    // Eight listed (the figure chapter 10 gives), then the count of the rest.
    assert!(shared.contains("#9 (join), … 1992 more"), "{shared}");
}
