//! Exercise 4: the tree walk from join relations.
//!
//! Each test is one way a walk goes wrong: a leaf left out, a task awaited by two
//! shown once, an order taken from the input, a cycle followed for ever, tasks that
//! only a cycle reaches left out, a walk that recurses on the thread's stack. A walk that
//! follows a cycle for ever, or recurses down a long chain, overflows its stack, which
//! ends the whole test binary: those tests run the walk in a child process (this binary
//! run again), so that only they fail.

use std::time::{Duration, Instant};

use ex10_shared::{Awaited, TaskInfo, TaskState, TreeItem, TreeLine, render_tree, walk};
use oneloop_testkit::watchdog_default;

/// Set in the child processes that the cycle tests start.
const CHILD: &str = "ONELOOP_EX10_WALK_CHILD";

/// A task `t<id>` awaiting `awaits` (id, how) and waiting on `leaves`.
fn task(id: u64, awaits: &[(u64, &'static str)], leaves: &[&str]) -> TaskInfo {
    TaskInfo {
        id,
        name: format!("t{id}"),
        state: TaskState::Pending,
        awaits: awaits
            .iter()
            .map(|&(task, how)| Awaited { task, how })
            .collect(),
        leaves: leaves.iter().map(|leaf| (*leaf).to_owned()).collect(),
    }
}

/// The lines as short text: two spaces per level, then the item.
fn shape(lines: &[TreeLine]) -> Vec<String> {
    lines
        .iter()
        .map(|line| {
            let item = match &line.item {
                TreeItem::Task { id, how: None } => format!("t{id}"),
                TreeItem::Task { id, how: Some(how) } => format!("t{id} [{how}]"),
                TreeItem::Leaf(leaf) => format!("leaf: {leaf}"),
                TreeItem::Cycle(id) => format!("cycle t{id}"),
                TreeItem::Gone(id) => format!("gone t{id}"),
            };
            format!("{}{item}", "  ".repeat(line.depth))
        })
        .collect()
}

/// In the parent: runs the test `name` of this binary in a child process and fails
/// unless it passed in time. In the child: `false`, so the caller runs the body.
fn in_child(name: &str) -> bool {
    if std::env::var_os(CHILD).is_some() {
        return false;
    }
    let mut child = oneloop_testkit::rerun_alone(module_path!(), name)
        .env(CHILD, "1")
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("the test binary runs again");
    // A hang detector only: a walk ends in milliseconds, or overflows its stack.
    let limit = Duration::from_secs(120);
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().expect("the child's status") {
            break Some(status);
        }
        if Instant::now() > deadline {
            // The walk never ended: stop the child this test started.
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    match status {
        Some(status) if status.success() => {}
        // Killed by a signal: the abort of a stack overflow.
        Some(status) if std::os::unix::process::ExitStatusExt::signal(&status).is_some() => {
            panic!(
                "{name} failed in its child process ({status}): it overflowed its stack (a \
                 walk that follows a cycle for ever, or that recurses on the thread's stack \
                 down a long chain of awaits)"
            )
        }
        Some(status) => panic!(
            "{name} failed in its child process ({status}): the child's assertion above \
             says what differs"
        ),
        None => {
            panic!("{name}: the walk did not end within {limit:?} (a cycle followed for ever?)")
        }
    }
    true
}

#[test]
fn ex4_roots_lowest_id_first_and_each_task_shows_its_leaves_then_what_it_awaits() {
    watchdog_default(|| {
        let tasks = [
            task(1, &[(2, "join")], &["sleep until 5.000s"]),
            task(2, &[], &["fd 7 readable"]),
            task(3, &[], &[]),
        ];
        assert_eq!(
            shape(&walk(&tasks)),
            [
                "t1",
                "  leaf: sleep until 5.000s",
                "  t2 [join]",
                "    leaf: fd 7 readable",
                "t3"
            ]
        );
    });
}

#[test]
fn ex4_a_task_awaited_by_two_is_shown_under_both() {
    watchdog_default(|| {
        let tasks = [
            task(1, &[(3, "join")], &[]),
            task(2, &[(3, "gather")], &[]),
            task(3, &[], &["sleep until 1.000s"]),
        ];
        assert_eq!(
            shape(&walk(&tasks)),
            [
                "t1",
                "  t3 [join]",
                "    leaf: sleep until 1.000s",
                "t2",
                "  t3 [gather]",
                "    leaf: sleep until 1.000s"
            ]
        );
    });
}

#[test]
fn ex4_the_order_does_not_depend_on_the_input() {
    watchdog_default(|| {
        let sorted = [
            task(1, &[(2, "group"), (4, "group")], &[]),
            task(2, &[], &[]),
            task(4, &[(5, "join")], &[]),
            task(5, &[], &[]),
            task(6, &[], &[]),
        ];
        let expected = ["t1", "  t2 [group]", "  t4 [group]", "    t5 [join]", "t6"];
        assert_eq!(shape(&walk(&sorted)), expected);
        let mut shuffled = vec![
            sorted[4].clone(),
            sorted[2].clone(),
            sorted[0].clone(),
            sorted[3].clone(),
            sorted[1].clone(),
        ];
        shuffled[2].awaits.reverse();
        assert_eq!(
            shape(&walk(&shuffled)),
            expected,
            "input order changed the tree"
        );
    });
}

#[test]
fn ex4_an_awaited_task_that_is_gone_is_marked() {
    watchdog_default(|| {
        let tasks = [task(1, &[(9, "join")], &[])];
        assert_eq!(shape(&walk(&tasks)), ["t1", "  gone t9"]);
    });
}

#[test]
fn ex4_a_cycle_is_cut_and_marked() {
    if in_child("ex4_a_cycle_is_cut_and_marked") {
        return;
    }
    let tasks = [
        task(1, &[(2, "join")], &[]),
        task(2, &[(3, "join")], &[]),
        task(3, &[(2, "join")], &[]),
    ];
    assert_eq!(
        shape(&walk(&tasks)),
        ["t1", "  t2 [join]", "    t3 [join]", "      cycle t2"]
    );
}

#[test]
fn ex4_tasks_that_only_a_cycle_reaches_are_still_shown() {
    if in_child("ex4_tasks_that_only_a_cycle_reaches_are_still_shown") {
        return;
    }
    let tasks = [
        task(5, &[], &[]),
        task(7, &[(8, "join")], &[]),
        task(8, &[(7, "join")], &["sleep until 2.000s"]),
    ];
    let lines = walk(&tasks);
    assert_eq!(
        shape(&lines),
        [
            "t5",
            "t7",
            "  t8 [join]",
            "    leaf: sleep until 2.000s",
            "    cycle t7"
        ]
    );
    let text = render_tree(&tasks, &lines);
    assert!(text.contains("(cycle) #7 again"), "{text}");
}

/// The wrong mechanism "a quadratic walk": finding the roots by scanning every task's
/// edges for each task, finding a task by scanning the slice, or looking for the
/// lowest id not shown from the start again for each tree left. The snapshot here is
/// wide (a task awaiting 150,000 others) and holds 150,000 small cycles: a walk that
/// does work in proportion to the lines it writes ends in a second or two of CPU; a
/// quadratic one needs some 10^10 steps, far past the test's 10 s of CPU.
#[test]
fn ex4_a_wide_snapshot_with_many_small_cycles_is_walked_without_quadratic_work() {
    if in_child("ex4_a_wide_snapshot_with_many_small_cycles_is_walked_without_quadratic_work") {
        return;
    }
    // The CPU time of the walk's thread is bounded, not the wall clock: a loaded
    // machine does not fail the proportional walk (a second or two of CPU), and a
    // quadratic one spends far more than the limit.
    oneloop_testkit::cpu_watchdog(Duration::from_secs(10), || {
        const WIDE: u64 = 150_000;
        const CYCLES: u64 = 150_000;
        let children: Vec<(u64, &'static str)> = (2..WIDE + 2).map(|id| (id, "gather")).collect();
        let mut tasks = vec![task(1, &children, &[])];
        tasks.extend((2..WIDE + 2).map(|id| task(id, &[], &[])));
        let first_cycle = WIDE + 2;
        for pair in 0..CYCLES {
            let a = first_cycle + 2 * pair;
            tasks.push(task(a, &[(a + 1, "join")], &[]));
            tasks.push(task(a + 1, &[(a, "join")], &[]));
        }
        // Highest id first: the walk must not lean on the input's order.
        tasks.reverse();
        let lines = walk(&tasks);
        assert_eq!(lines.len() as u64, 1 + WIDE + 3 * CYCLES);
        assert_eq!(shape(&lines[..2]), ["t1", "  t2 [gather]"]);
        let last = first_cycle + 2 * (CYCLES - 1);
        assert_eq!(
            shape(&lines[lines.len() - 3..]),
            [
                format!("t{last}"),
                format!("  t{} [join]", last + 1),
                format!("    cycle t{last}")
            ]
        );
    });
}

/// The wrong mechanism "a recursive walk": one call of `visit` per level, on the
/// thread's stack. A program can make a chain of awaits as long as it likes (a task that
/// spawns a task and awaits it, 100,000 times), and the loop walks it on its own thread
/// when it prints its tree: a recursive walk overflows the stack and kills the process.
#[test]
fn ex4_a_chain_of_100000_awaits_is_walked_on_a_stack_of_its_own() {
    if in_child("ex4_a_chain_of_100000_awaits_is_walked_on_a_stack_of_its_own") {
        return;
    }
    const DEPTH: u64 = 100_000;
    let tasks: Vec<TaskInfo> = (1..=DEPTH)
        .map(|id| {
            if id < DEPTH {
                task(id, &[(id + 1, "join")], &[])
            } else {
                task(id, &[], &["sleep until 1.000s"])
            }
        })
        .collect();
    let lines = walk(&tasks);
    assert_eq!(lines.len() as u64, DEPTH + 1);
    assert_eq!(shape(&lines[..2]), ["t1", "  t2 [join]"]);
    let last = &lines[lines.len() - 2..];
    assert_eq!(last[0].depth as u64, DEPTH - 1);
    assert_eq!(
        last[0].item,
        TreeItem::Task {
            id: DEPTH,
            how: Some("join")
        }
    );
    assert_eq!(
        last[1].item,
        TreeItem::Leaf("sleep until 1.000s".to_owned())
    );
}
