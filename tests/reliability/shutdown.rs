//! Panics and shutdown: the loop core's failures, each kept fixed by a test here.
//!
//! - A panic in a drop at close (a leftover task's, a queued callback's) is reported,
//!   and every close hook still runs; dropping a loop while a panic unwinds does not
//!   abort the process.
//! - Running a loop inside a turn of another loop on the same thread is refused at once
//!   instead of parking for ever; loops one after the other still work.
//! - Close empties the ready queue and (through the timer layer's close hook) the timer
//!   heap, so a pending callback that holds the loop's `Rc<Core>` does not keep it alive.
//! - A panicking exception handler, observer or joiner's waker loses no task and no
//!   slot: each is reported and the loop goes on.
//! - Drop accounting under every shutdown path: every future and callback dropped
//!   exactly once, and no `Rc` cycle left (weak references that must die).
//!
//! Tests that need a fresh process (an abort to observe, the default handler's stderr)
//! run this test binary again as a child, with a filter naming one child test and an
//! environment variable that makes that test do its work.

use std::cell::{Cell, RefCell};
use std::future::{Future, pending};
use std::os::unix::process::ExitStatusExt;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::process::{Command, Output};
use std::rc::{Rc, Weak};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use oneloop_core::hooks::{
    CALLBACK_PANICKED, CLOSE_HOOK_PANICKED, DROP_PANICKED, Handle, OBSERVER_PANICKED, with_current,
};
use oneloop_core::{
    ANOTHER_LOOP_RUNNING, Core, EventLoop, ExceptionReport, Label, LoopError, NEVER_RETRIEVED,
    Observer, ParkReport, Runner, ThreadParker, run, spawn, yield_now,
};
use oneloop_testkit::{DropFlag, DropGuard, watchdog_default};
use oneloop_timers::{LoopTimers, TimerDriver, Timers, sleep, virtual_time_loop};

/// Set in a child process started by one of the tests below.
const CHILD: &str = "ONELOOP_SHUTDOWN_CHILD";

/// Panics when dropped, even while another panic unwinds.
struct PanicOnDrop(&'static str);

impl Drop for PanicOnDrop {
    fn drop(&mut self) {
        panic!("{}", self.0);
    }
}

/// Installs a handler that records every report.
fn record_reports(core: &Core) -> Rc<RefCell<Vec<ExceptionReport>>> {
    let reports = Rc::new(RefCell::new(Vec::new()));
    let sink = Rc::clone(&reports);
    core.set_exception_handler(move |report| sink.borrow_mut().push(report.clone()));
    reports
}

/// `(message, label, panic)` of each report.
fn summary(reports: &RefCell<Vec<ExceptionReport>>) -> Vec<(String, String, String)> {
    reports
        .borrow()
        .iter()
        .map(|r| (r.message.clone(), r.label.to_string(), r.panic.clone()))
        .collect()
}

/// Runs the child test `name` of this binary in a child process with `CHILD` set.
fn run_child(name: &str) -> Output {
    let exe = std::env::current_exe().expect("the test binary's path");
    Command::new(exe)
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .output()
        .expect("the test binary runs again")
}

fn is_child() -> bool {
    std::env::var_os(CHILD).is_some()
}

/// Asserts that a child started by `run_child` succeeded and ran its test to the end
/// (the child test prints `CHILD-DONE` last).
fn assert_child_done(output: &Output) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "child failed:\n{stdout}\n{stderr}");
    assert!(
        stdout.contains("CHILD-DONE"),
        "the child test ran:\n{stdout}"
    );
}

/// A flag, and a callback that raises it.
fn flag() -> (Rc<Cell<bool>>, impl Fn() + 'static) {
    let raised = Rc::new(Cell::new(false));
    let raise = Rc::clone(&raised);
    (raised, move || raise.set(true))
}

// ---------------------------------------------------------------------------------
// A panic in a drop at close.

#[test]
fn a_panic_in_a_drop_at_close_is_reported_and_every_close_hook_still_runs() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let reports = record_reports(&event_loop);
        let other = DropFlag::new();
        let hooks = Rc::new(Cell::new(0));
        let bomb = PanicOnDrop("task drop broke");
        event_loop.spawn_named("bomb", async move {
            let _bomb = bomb;
            pending::<()>().await;
        });
        let guard = other.guard();
        event_loop.spawn_named("quiet", async move {
            let _guard = guard;
            pending::<()>().await;
        });
        event_loop.run_once().unwrap(); // both tasks are now pending
        let queued = PanicOnDrop("callback drop broke");
        event_loop.call_soon_named("queued", move || drop(queued));
        let seen = Rc::clone(&hooks);
        event_loop.add_close_hook("hook", move || seen.set(seen.get() + 1));
        event_loop.add_close_hook("broken hook", || panic!("hook broke"));
        let seen = Rc::clone(&hooks);
        event_loop.add_close_hook("hook", move || seen.set(seen.get() + 1));
        let dropped = panic::catch_unwind(AssertUnwindSafe(move || drop(event_loop)));
        assert!(dropped.is_ok(), "a panic escaped drop(loop)");
        assert_eq!(hooks.get(), 2, "every other close hook ran");
        assert_eq!(other.drops(), 1, "the other leftover task was dropped once");
        assert_eq!(
            summary(&reports),
            [
                (
                    DROP_PANICKED.to_owned(),
                    "bomb".to_owned(),
                    "task drop broke".to_owned()
                ),
                (
                    DROP_PANICKED.to_owned(),
                    "queued".to_owned(),
                    "callback drop broke".to_owned()
                ),
                (
                    CLOSE_HOOK_PANICKED.to_owned(),
                    "broken hook".to_owned(),
                    "hook broke".to_owned()
                ),
            ]
        );
    });
}

#[test]
fn the_exception_handler_outlives_close() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let reports = record_reports(&event_loop);
        let late = event_loop.spawn_named("late", async { panic!("late broke") });
        event_loop.run_once().unwrap();
        drop(event_loop);
        assert!(reports.borrow().is_empty());
        drop(late); // holding a panic it never returned
        assert_eq!(
            summary(&reports),
            [(
                NEVER_RETRIEVED.to_owned(),
                "late".to_owned(),
                "late broke".to_owned()
            )]
        );
    });
}

#[test]
fn child_drops_a_loop_while_unwinding() {
    // Does nothing unless started by the test below.
    if !is_child() {
        return;
    }
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let reports = record_reports(&event_loop);
        let bomb = PanicOnDrop("task drop broke");
        event_loop.spawn_named("bomb", async move {
            let _bomb = bomb;
            pending::<()>().await;
        });
        event_loop.run_once().unwrap();
        let (hook_ran, mark_hook_ran) = flag();
        event_loop.add_close_hook("hook", mark_hook_ran);
        let unwound = panic::catch_unwind(AssertUnwindSafe(move || {
            let _dropped_while_unwinding = event_loop;
            panic!("the test body broke");
        }));
        assert!(unwound.is_err());
        assert!(hook_ran.get(), "the close hook ran during the unwind");
        assert_eq!(reports.borrow().len(), 1);
        println!("CHILD-DONE");
    });
}

#[test]
fn dropping_a_loop_while_a_panic_unwinds_does_not_abort_the_process() {
    watchdog_default(|| {
        let output = run_child("shutdown::child_drops_a_loop_while_unwinding");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_ne!(
            output.status.signal(),
            Some(6),
            "the child aborted (SIGABRT):\n{stderr}"
        );
        assert_child_done(&output);
    });
}

// ---------------------------------------------------------------------------------
// A loop run inside another loop's turn.

#[test]
fn running_a_loop_inside_another_loops_turn_fails_at_once() {
    watchdog_default(|| {
        let mut outer = EventLoop::new();
        let (nested, inner_tasks, from_run, from_once) = outer
            .run_until_complete(async {
                let outer_task = spawn(async {
                    yield_now().await;
                    7
                });
                let mut inner = EventLoop::new();
                // Before the rule, this parked for ever: the outer task can only run
                // when this call returns.
                let nested = inner.run_until_complete(outer_task);
                let inner_tasks = inner.live_tasks();
                let from_run = run(async { 1 });
                let from_once = inner.run_once();
                let from_forever = inner.run_forever();
                (nested, inner_tasks, from_run, (from_once, from_forever))
            })
            .expect("the outer main finishes");
        assert_eq!(nested.unwrap_err(), LoopError::AnotherLoopRunning);
        assert_eq!(inner_tasks, 0, "nothing was spawned on the inner loop");
        assert_eq!(from_run.unwrap_err(), LoopError::AnotherLoopRunning);
        assert_eq!(from_once.0.unwrap_err(), LoopError::AnotherLoopRunning);
        assert_eq!(from_once.1.unwrap_err(), LoopError::AnotherLoopRunning);
        assert_eq!(
            LoopError::AnotherLoopRunning.to_string(),
            ANOTHER_LOOP_RUNNING
        );
    });
}

#[test]
fn loops_one_after_another_or_taking_turns_on_one_thread_still_work() {
    watchdog_default(|| {
        assert_eq!(run(async { 1 }).unwrap(), 1);
        assert_eq!(run(async { 2 }).unwrap(), 2);
        // Two loops taking turns from the outside.
        let mut a = EventLoop::new();
        let mut b = EventLoop::new();
        let log = Rc::new(RefCell::new(Vec::new()));
        for (name, event_loop) in [("a", &mut a), ("b", &mut b)] {
            let seen = Rc::clone(&log);
            event_loop.call_soon(move || seen.borrow_mut().push(name));
        }
        a.run_once().unwrap();
        b.run_once().unwrap();
        assert_eq!(*log.borrow(), ["a", "b"]);
        // Closing (dropping) a loop inside another loop's turn is not running it.
        let inner = EventLoop::new();
        let dropped = a.run_until_complete(async move {
            drop(inner);
            with_current(|core| core.turn())
        });
        assert!(
            dropped.unwrap().is_some(),
            "the outer loop is current again"
        );
    });
}

// ---------------------------------------------------------------------------------
// What close clears.

#[test]
fn close_empties_the_timer_heap_so_a_callback_holding_the_core_lets_it_go() {
    watchdog_default(|| {
        // Virtual time: main schedules a timer an hour away whose callback holds the
        // loop's core and a guard, then returns.
        let mut event_loop = virtual_time_loop();
        let core: Weak<Core> = Rc::downgrade(event_loop.core());
        let timers: Weak<Timers> = Rc::downgrade(&event_loop.timers());
        let flag = DropFlag::new();
        let guard = flag.guard();
        event_loop
            .run_until_complete(async move {
                let held = with_current(Rc::clone).expect("a running loop");
                let timers = Timers::current().expect("a timer layer");
                timers.call_later(Duration::from_secs(3600), move || {
                    let _ = (&held, &guard);
                });
            })
            .unwrap();
        assert_eq!(event_loop.timers().scheduled(), 1);
        event_loop.close();
        assert_eq!(event_loop.timers().scheduled(), 0, "close emptied the heap");
        assert_eq!(flag.drops(), 1, "the callback was dropped once, at close");
        drop(event_loop);
        assert!(core.upgrade().is_none(), "the core is gone");
        assert!(timers.upgrade().is_none(), "the timer layer is gone");
    });
}

#[test]
fn a_timer_asked_for_after_close_is_dropped_at_once_and_cancelled() {
    watchdog_default(|| {
        let mut event_loop = virtual_time_loop();
        event_loop.close();
        let flag = DropFlag::new();
        let guard = flag.guard();
        let timers = event_loop.timers();
        let handle = timers.call_later(Duration::from_secs(1), move || drop(guard));
        assert!(handle.is_cancelled());
        assert!(!handle.is_scheduled());
        assert_eq!(flag.drops(), 1);
        assert_eq!(timers.scheduled(), 0);
    });
}

// ---------------------------------------------------------------------------------
// Panicking handlers, observers and wakers.

#[test]
fn child_runs_with_a_panicking_exception_handler() {
    if !is_child() {
        return;
    }
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        event_loop.set_exception_handler(|_| panic!("handler broke"));
        event_loop.call_soon_named("bad", || panic!("callback broke"));
        let (after, mark_after) = flag();
        event_loop.call_soon_named("next", mark_after);
        let out = event_loop.run_until_complete(async {
            yield_now().await;
            5
        });
        assert_eq!(out, Ok(5), "the loop went on");
        assert!(after.get(), "the next callback ran");
        println!("CHILD-DONE");
    });
}

#[test]
fn a_panicking_exception_handler_is_caught_and_the_default_handler_writes_both() {
    watchdog_default(|| {
        let output = run_child("shutdown::child_runs_with_a_panicking_exception_handler");
        assert_child_done(&output);
        let stderr = String::from_utf8_lossy(&output.stderr);
        for line in [
            "oneloop: unhandled error in exception handler (bad): handler broke",
            "oneloop: exception in callback (bad): callback broke",
        ] {
            assert!(
                stderr.lines().any(|l| l == line),
                "missing `{line}` in stderr:\n{stderr}"
            );
        }
    });
}

/// Panics in every method; counts nothing.
struct Broken;

impl Observer for Broken {
    fn turn_started(&self, _turn: u64) {
        panic!("turn_started broke");
    }
    fn handle_started(&self, _turn: u64, _handle: &Handle) {
        panic!("handle_started broke");
    }
    fn handle_ran(&self, _turn: u64, _label: &Label, _elapsed: Duration) {
        panic!("handle_ran broke");
    }
    fn turn_ended(&self, _turn: u64, _park: &ParkReport, _handles: usize) {
        panic!("turn_ended broke");
    }
}

/// Counts the handles it was told ran.
#[derive(Default)]
struct Counting(Cell<usize>);

impl Observer for Counting {
    fn handle_ran(&self, _turn: u64, _label: &Label, _elapsed: Duration) {
        self.0.set(self.0.get() + 1);
    }
}

#[test]
fn a_panicking_observer_is_reported_and_the_task_it_was_told_about_still_runs() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let reports = record_reports(&event_loop);
        event_loop.add_observer(Rc::new(Broken));
        let counting = Rc::new(Counting::default());
        event_loop.add_observer(Rc::clone(&counting) as Rc<dyn Observer>);
        let out = event_loop.run_until_complete(async {
            let victim = spawn(async {
                for _ in 0..3 {
                    yield_now().await;
                }
                "done"
            });
            victim.await
        });
        assert_eq!(out, Ok(Ok("done")));
        assert_eq!(event_loop.live_tasks(), 0);
        let turns = event_loop.turn() as usize;
        assert!(counting.0.get() > 0, "the other observer was told");
        let reports = summary(&reports);
        assert!(
            reports
                .iter()
                .all(|(message, _, _)| message == OBSERVER_PANICKED)
        );
        for broke in ["turn_started", "turn_ended"] {
            let seen = reports
                .iter()
                .filter(|(_, label, panic)| label == "turn" && *panic == format!("{broke} broke"))
                .count();
            assert_eq!(seen, turns, "{broke} reported once per turn");
        }
        for broke in ["handle_started", "handle_ran"] {
            let seen = reports
                .iter()
                .filter(|(_, _, panic)| *panic == format!("{broke} broke"))
                .count();
            assert_eq!(seen, counting.0.get(), "{broke} reported once per handle");
        }
        assert!(
            reports.iter().any(|(_, label, _)| label == "main"),
            "a handle's report carries its label"
        );
    });
}

/// A waker that panics when woken.
struct PanickingWaker;

impl Wake for PanickingWaker {
    fn wake(self: Arc<Self>) {
        panic!("waker broke");
    }
}

/// Polls `future` once with `waker`.
fn poll_once<F: Future + Unpin>(future: &mut F, waker: &Waker) -> Poll<F::Output> {
    Pin::new(future).poll(&mut Context::from_waker(waker))
}

#[test]
fn a_panicking_joiner_waker_does_not_leak_the_finished_tasks_slot() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let reports = record_reports(&event_loop);
        let mut child = event_loop.spawn_named("child", async {
            yield_now().await;
            1
        });
        let waker = Waker::from(Arc::new(PanickingWaker));
        assert!(poll_once(&mut child, &waker).is_pending()); // the handle keeps it
        let after = Rc::new(Cell::new(false));
        while !event_loop.ready().is_empty() {
            event_loop.run_once().unwrap();
        }
        let seen = Rc::clone(&after);
        event_loop.call_soon(move || seen.set(true));
        event_loop.run_once().unwrap();
        assert!(after.get(), "the loop went on");
        assert_eq!(
            event_loop.live_tasks(),
            0,
            "the finished task's slot is free"
        );
        assert_eq!(child.try_take(), Some(Ok(1)), "the result was kept");
        assert_eq!(
            summary(&reports),
            [(
                CALLBACK_PANICKED.to_owned(),
                "child".to_owned(),
                "waker broke".to_owned()
            )]
        );
    });
}

// ---------------------------------------------------------------------------------
// Drop accounting under every shutdown path.

/// What one shutdown scene leaves behind: a guard per future or callback.
#[derive(Default)]
struct Ledger {
    flags: Vec<(&'static str, DropFlag)>,
}

impl Ledger {
    fn guard(&mut self, what: &'static str) -> DropGuard {
        let flag = DropFlag::new();
        let guard = flag.guard();
        self.flags.push((what, flag));
        guard
    }

    /// Takes over the guards of `scene`, a ledger filled inside a loop's main.
    fn absorb(&mut self, scene: Ledger) {
        self.flags.extend(scene.flags);
    }

    /// Every guard was dropped exactly once.
    fn assert_each_dropped_once(&self, path: &str) {
        for (what, flag) in &self.flags {
            assert_eq!(
                flag.drops(),
                1,
                "{path}: `{what}` dropped {} times",
                flag.drops()
            );
        }
    }
}

/// A main that leaves work on `core` and returns the ledger of what it left.
async fn main_leaving_work(core: Rc<Core>) -> Ledger {
    let mut scene = Ledger::default();
    leave_work(&core, &mut scene);
    scene
}

/// Leaves work of every kind on the loop running on this thread (or on `core`): a task
/// that waits for ever, a task asleep for an hour, a timer an hour away, each holding
/// the loop's core and a guard. Returns nothing: all of it is left behind.
fn leave_work(core: &Rc<Core>, ledger: &mut Ledger) {
    let (held, guard) = (Rc::clone(core), ledger.guard("task waiting for ever"));
    core.spawn(async move {
        let _kept = (held, guard);
        pending::<()>().await;
    });
    let (held, guard) = (Rc::clone(core), ledger.guard("task asleep"));
    core.spawn(async move {
        let _kept = (held, guard);
        sleep(Duration::from_secs(3600)).await;
    });
    let (held, guard) = (Rc::clone(core), ledger.guard("timer callback"));
    core.timers()
        .call_later(Duration::from_secs(3600), move || drop((held, guard)));
}

/// An observer that holds what it is given.
struct Holding(#[allow(dead_code)] (Rc<Core>, DropGuard));

impl Observer for Holding {}

/// Leaves a queued callback and an observer on `core`, each holding the core and a
/// guard: called just before the loop is shut down, so the callback is still queued.
fn leave_queued(core: &Rc<Core>, ledger: &mut Ledger) {
    let (held, guard) = (Rc::clone(core), ledger.guard("queued callback"));
    core.call_soon(move || drop((held, guard)));
    let held = (Rc::clone(core), ledger.guard("observer"));
    core.add_observer(Rc::new(Holding(held)));
}

/// The weak references that must die: the core and the timer layer.
fn weak_parts(core: &Rc<Core>) -> (Weak<Core>, Weak<Timers>) {
    (Rc::downgrade(core), Rc::downgrade(&core.timers()))
}

fn assert_gone(path: &str, (core, timers): (Weak<Core>, Weak<Timers>)) {
    assert!(core.upgrade().is_none(), "{path}: the core is still alive");
    assert!(
        timers.upgrade().is_none(),
        "{path}: the timers are still alive"
    );
}

#[test]
fn every_shutdown_path_drops_each_future_once_and_leaves_no_cycle() {
    watchdog_default(|| {
        // Virtual time throughout: the leftovers wait an hour, nothing waits for real.
        type Path = fn(&mut Ledger) -> (Weak<Core>, Weak<Timers>);
        let paths: [(&str, Path); 6] = [
            ("never run, dropped", |ledger| {
                let event_loop = virtual_time_loop();
                leave_work(event_loop.core(), ledger);
                leave_queued(event_loop.core(), ledger);
                let weak = weak_parts(event_loop.core());
                drop(event_loop);
                weak
            }),
            ("main returned, dropped", |ledger| {
                let mut event_loop = virtual_time_loop();
                let core = Rc::clone(event_loop.core());
                let weak = weak_parts(&core);
                let guard = ledger.guard("main");
                let mut scene = Ledger::default();
                event_loop
                    .run_until_complete(async move {
                        let _guard = guard;
                        leave_work(&core, &mut scene);
                        yield_now().await;
                        scene
                    })
                    .map(|scene| ledger.absorb(scene))
                    .unwrap();
                leave_queued(event_loop.core(), ledger);
                drop(event_loop);
                weak
            }),
            ("main returned, closed, then dropped", |ledger| {
                let mut event_loop = virtual_time_loop();
                let weak = weak_parts(event_loop.core());
                let core = Rc::clone(event_loop.core());
                let scene = event_loop.run_until_complete(main_leaving_work(core));
                ledger.absorb(scene.unwrap());
                leave_queued(event_loop.core(), ledger);
                event_loop.close();
                ledger.assert_each_dropped_once("closed, before the drop");
                drop(event_loop);
                weak
            }),
            ("main panicked, dropped", |ledger| {
                let mut event_loop = virtual_time_loop();
                let _reports = record_reports(&event_loop);
                let weak = weak_parts(event_loop.core());
                let core = Rc::clone(event_loop.core());
                leave_work(&core, ledger);
                let guard = ledger.guard("main");
                let failed = event_loop.run_until_complete(async move {
                    let _guard = guard;
                    drop(core);
                    yield_now().await;
                    panic!("main broke");
                });
                assert!(matches!(failed, Err(LoopError::MainFailed(_))));
                leave_queued(event_loop.core(), ledger);
                drop(event_loop);
                weak
            }),
            ("stopped before main completed, dropped", |ledger| {
                let mut event_loop = virtual_time_loop();
                let weak = weak_parts(event_loop.core());
                let core = Rc::clone(event_loop.core());
                leave_work(&core, ledger);
                let guard = ledger.guard("main");
                let stopped = event_loop.run_until_complete(async move {
                    let _kept = (guard, Rc::clone(&core));
                    core.stop();
                    pending::<()>().await;
                });
                assert_eq!(stopped, Err(LoopError::StoppedBeforeComplete));
                leave_queued(event_loop.core(), ledger);
                drop(event_loop);
                weak
            }),
            ("a runner, closed", |ledger| {
                let mut runner = Runner::with_driver(TimerDriver::virtual_time(ThreadParker));
                let weak = weak_parts(runner.event_loop().core());
                let core = Rc::clone(runner.event_loop().core());
                let scene = runner.run(main_leaving_work(core));
                ledger.absorb(scene.unwrap());
                leave_queued(runner.event_loop().core(), ledger);
                runner.close();
                weak
            }),
        ];
        for (path, shut_down) in paths {
            let mut ledger = Ledger::default();
            let weak = shut_down(&mut ledger);
            assert!(ledger.flags.len() >= 5, "{path}: the scene left work");
            ledger.assert_each_dropped_once(path);
            assert_gone(path, weak);
        }
    });
}

#[test]
fn a_socket_and_an_offloaded_job_left_behind_are_dropped_once_with_no_cycle() {
    watchdog_default(|| {
        // The whole stack on the real clock: a listener waiting to accept and a task
        // awaiting a job on a worker thread, both left behind when main returns.
        let job = DropFlag::new();
        let task = DropFlag::new();
        let listening = DropFlag::new();
        let (job_guard, task_guard, listen_guard) = (job.guard(), task.guard(), listening.guard());
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let (weak, addr) = oneloop_offload::run(async move {
            let core = with_current(Rc::clone).expect("a running loop");
            let listener = oneloop_io::TcpListener::bind("127.0.0.1:0").expect("bind");
            let addr = listener.local_addr().expect("an address");
            let held = Rc::clone(&core);
            spawn(async move {
                let _kept = (listen_guard, held);
                let _ = listener.accept().await;
            });
            /// Lets the worker go when the task awaiting it is dropped at close.
            struct Release(std::sync::mpsc::Sender<()>);
            impl Drop for Release {
                fn drop(&mut self) {
                    // The worker may already be gone; then nobody waits for this.
                    let _ = self.0.send(());
                }
            }
            let releaser = Release(release);
            let held = Rc::clone(&core);
            spawn(async move {
                let _kept = (task_guard, releaser, held);
                let _ = oneloop_offload::to_thread(move || {
                    let _guard = job_guard;
                    let _ = wait.recv();
                })
                .await;
            });
            yield_now().await;
            (Rc::downgrade(&core), addr)
        })
        .expect("main finishes");
        assert_eq!(
            task.drops(),
            1,
            "the task awaiting the job was dropped once"
        );
        assert_eq!(listening.drops(), 1, "the accepting task was dropped once");
        assert_eq!(
            job.drops(),
            1,
            "the job ran and was dropped once, before close returned"
        );
        assert!(weak.upgrade().is_none(), "the core is gone");
        assert!(
            std::net::TcpStream::connect(addr).is_err(),
            "the listener's socket was closed"
        );
    });
}
