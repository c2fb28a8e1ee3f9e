//! Exercise 2: one turn — park, then run exactly the `ntodo` snapshot.
//!
//! Turn numbers come from the loop's observer hook (a `Trace`), never from constants
//! typed into the test: each assertion compares turns the loop itself counted.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use crate::common::{Gate, Oneshot, Spinner, Trace, log, record_reports, until_done, yield_once};
use ex04_core::hooks::{CALLBACK_PANICKED, CancelFlag, Handle, LayerSnapshot, ReadyQueue};
use ex04_core::{Core, Driver, EventLoop, Label, LoopError, ParkReport, ThreadParker};
use oneloop_testkit::watchdog_default;

type SharedCallback = Rc<dyn Fn()>;

#[test]
fn ex2_call_soon_is_fifo_and_one_turn_runs_the_batch() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let trace = Trace::on(&event_loop);
        let seen = log();
        for name in ["a", "b", "c"] {
            let seen = Rc::clone(&seen);
            event_loop.call_soon_named(name, move || seen.borrow_mut().push(name.into()));
        }
        event_loop.run_once().unwrap();
        assert_eq!(*seen.borrow(), ["a", "b", "c"]);
        assert_eq!(trace.turn(1), ["a", "b", "c"]);
        assert_eq!(
            *trace.batches.borrow(),
            [3],
            "the turn ends telling its batch"
        );
        assert_eq!(event_loop.turn(), 1);
    });
}

#[test]
fn ex2_a_callback_queued_by_a_callback_runs_next_turn_after_the_batch() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let trace = Trace::on(&event_loop);
        let core = Rc::clone(event_loop.core());
        event_loop.call_soon_named("A", move || {
            let stopper = Rc::clone(&core);
            core.call_soon_named("C", move || stopper.stop());
        });
        event_loop.call_soon_named("B", || {});
        event_loop.run_forever().unwrap();
        assert_eq!(
            trace.turn(1),
            ["A", "B"],
            "C waits though queued before B ran"
        );
        assert_eq!(trace.turn(2), ["C"]);
        assert_eq!(event_loop.turn(), 2);
    });
}

#[test]
fn ex2_a_callback_that_requeues_itself_runs_once_per_turn_and_never_blocks_others() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let trace = Trace::on(&event_loop);
        let core = Rc::downgrade(event_loop.core());
        let flag = CancelFlag::new();
        let again = flag.clone();
        // The callback re-queues itself through a slot holding its own Rc.
        let holder: Rc<Cell<Option<SharedCallback>>> = Rc::new(Cell::new(None));
        let me = Rc::clone(&holder);
        let spin_body: Rc<dyn Fn()> = Rc::new(move || {
            let this = me.take().expect("set below");
            if let Some(core) = core.upgrade() {
                core.call_soon_shared(Label::Static("spin"), &this, &again);
            }
            me.set(Some(this));
        });
        holder.set(Some(Rc::clone(&spin_body)));
        event_loop.call_soon_shared(Label::Static("spin"), &spin_body, &flag);
        let out = until_done(&mut event_loop, async {
            for _ in 0..5 {
                yield_once().await;
            }
            "main finished"
        })
        .unwrap();
        assert_eq!(out, "main finished");
        let turns = event_loop.turn();
        assert_eq!(trace.turns_of("spin"), (1..=turns).collect::<Vec<_>>());
        assert_eq!(trace.turns_of("main").len() as u64, turns);
        flag.cancel();
        holder.take();
    });
}

#[test]
fn ex2_a_task_that_wakes_itself_for_ever_no_longer_starves_the_loop() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let spins = Rc::new(Cell::new(0));
        let _spinner = event_loop.spawn_named("spinner", Spinner(Rc::clone(&spins)));
        let out = until_done(&mut event_loop, async {
            for _ in 0..3 {
                yield_once().await;
            }
            7
        });
        assert_eq!(out, Ok(7), "stage 3's loop never returned here");
        assert_eq!(spins.get() as u64, event_loop.turn(), "one spin per turn");
    });
}

#[test]
fn ex2_a_future_completed_in_turn_t_resumes_its_waiter_in_turn_t_plus_1() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let core = Rc::clone(event_loop.core());
        let set_in = Rc::new(Cell::new(0));
        let resumed_in = Rc::new(Cell::new(0));
        let (set_turn, resumed_turn) = (Rc::clone(&set_in), Rc::clone(&resumed_in));
        until_done(&mut event_loop, async move {
            let fut = Oneshot::new();
            let setter = fut.clone();
            let inner = Rc::clone(&core);
            core.call_soon_named("set_result", move || {
                set_turn.set(inner.turn());
                setter.set(1);
            });
            fut.await;
            resumed_turn.set(core.turn());
        })
        .unwrap();
        assert!(set_in.get() > 0);
        assert_eq!(resumed_in.get(), set_in.get() + 1);
    });
}

#[test]
fn ex2_a_task_finished_in_turn_t_resumes_its_joiner_in_turn_t_plus_1() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let core = Rc::clone(event_loop.core());
        let (finished_in, resumed_in) = until_done(&mut event_loop, async move {
            let inner = Rc::clone(&core);
            let child = core.spawn(async move {
                yield_once().await;
                inner.turn()
            });
            let finished_in = child.await.unwrap();
            (finished_in, core.turn())
        })
        .unwrap();
        // asyncio's finished task queues the joiner's `__wakeup`; oneloop's join handle
        // wakes the joiner, which queues its step. Either way: one turn later.
        assert_eq!(resumed_in, finished_in + 1);
    });
}

#[test]
fn ex2_awaiting_an_already_complete_future_costs_no_turn() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let core = Rc::clone(event_loop.core());
        let (before, after) = until_done(&mut event_loop, async move {
            let before = core.turn();
            let done = Oneshot::new();
            done.set(3);
            let three = done.await;
            let four = std::future::ready(4).await;
            assert_eq!(three + four, 7);
            (before, core.turn())
        })
        .unwrap();
        assert_eq!(before, after);
        assert_eq!(event_loop.turn(), 1, "main ran in one step");
    });
}

#[test]
fn ex2_stop_ends_run_forever_after_the_current_turn() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let trace = Trace::on(&event_loop);
        let core = Rc::clone(event_loop.core());
        event_loop.call_soon_named("stop", move || core.stop());
        event_loop.call_soon_named("after stop", || {});
        event_loop.run_forever().unwrap();
        assert_eq!(trace.turn(1), ["stop", "after stop"]);
        assert_eq!(event_loop.turn(), 1);
        assert!(!event_loop.is_stopping(), "the loop can run again");
    });
}

#[test]
fn ex2_stop_before_run_forever_runs_one_turn_without_waiting() {
    watchdog_default(|| {
        // As in asyncio: `loop.stop()` then `loop.run_forever()` polls once with a zero
        // timeout, runs what is ready, and returns (CPython counts one `_run_once`).
        let mut event_loop = EventLoop::new();
        let trace = Trace::on(&event_loop);
        event_loop.stop();
        assert_eq!(event_loop.run_forever(), Ok(()));
        assert_eq!(event_loop.turn(), 1);
        assert_eq!(
            trace.parks.borrow()[0].timeout,
            Some(Duration::ZERO),
            "a stopping loop does not wait, though nothing is ready"
        );
    });
}

#[test]
fn ex2_a_panicking_callback_is_reported_with_its_label_and_the_loop_goes_on() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let reports = record_reports(event_loop.core());
        let seen = log();
        let after = Rc::clone(&seen);
        event_loop.call_soon_named("bad", || panic!("oops"));
        event_loop.call_soon_named("good", move || after.borrow_mut().push("ran".into()));
        event_loop.run_once().unwrap();
        assert_eq!(*seen.borrow(), ["ran"]);
        let reports = reports.borrow();
        assert_eq!(reports.len(), 1);
        assert_eq!(reports[0].message, CALLBACK_PANICKED);
        assert_eq!(reports[0].label, Label::Static("bad"));
        assert_eq!(reports[0].panic, "oops");
    });
}

#[test]
fn ex2_a_cancelled_callback_does_not_run() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let seen = log();
        let inner = Rc::clone(&seen);
        let handle = event_loop.call_soon(move || inner.borrow_mut().push("ran".into()));
        handle.cancel();
        event_loop.run_once().unwrap();
        assert!(seen.borrow().is_empty());
        assert!(handle.is_cancelled());
    });
}

#[test]
fn ex2_a_loop_that_nothing_could_wake_is_an_error_not_a_hang() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        assert_eq!(
            until_done(&mut event_loop, std::future::pending::<()>()),
            Err(LoopError::Stalled)
        );
        let mut empty = EventLoop::new();
        assert_eq!(empty.run_forever(), Err(LoopError::Stalled));
    });
}

#[test]
fn ex2_every_observer_sees_turns_and_labelled_handles() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let first = Trace::on(&event_loop);
        let second = Trace::on(&event_loop);
        event_loop.call_soon_named("cb", || {});
        until_done(&mut event_loop, async { yield_once().await }).unwrap();
        for trace in [&first, &second] {
            assert_eq!(trace.turn(1), ["cb", "main"]);
            assert_eq!(trace.turn(2), ["main"]);
            assert_eq!(trace.turns_started.get(), 2);
            assert_eq!(trace.turns_ended.get(), 2);
        }
        // Something was ready at the start of each turn: neither parked.
        for park in first.parks.borrow().iter() {
            assert_eq!(park.timeout, Some(Duration::ZERO));
        }
    });
}

/// A layer that wraps any inner driver, as stages 5 and 6 will: it counts parks and
/// puts its shared half in the extensions.
struct Counting<D> {
    inner: D,
    parks: Rc<Cell<usize>>,
}

impl<D: Driver> Driver for Counting<D> {
    fn install(&mut self, core: &Rc<Core>) {
        core.extensions().insert(Rc::clone(&self.parks));
        self.inner.install(core);
    }
    fn park(&mut self, timeout: Option<Duration>, ready: &ReadyQueue) -> ParkReport {
        self.parks.set(self.parks.get() + 1);
        self.inner.park(timeout, ready)
    }
    fn describe(&self, out: &mut Vec<LayerSnapshot>) {
        out.push(LayerSnapshot {
            name: "counting",
            lines: vec![format!("{} parks", self.parks.get())],
        });
        self.inner.describe(out);
    }
}

#[test]
fn ex2_a_driver_layer_wraps_the_inner_driver_and_shares_through_extensions() {
    watchdog_default(|| {
        let parks = Rc::new(Cell::new(0));
        let layer = Counting {
            inner: ThreadParker,
            parks: Rc::clone(&parks),
        };
        let mut event_loop = EventLoop::with_driver(layer);
        let seen_by_future = until_done(&mut event_loop, async {
            yield_once().await;
            // A future finds the layer's shared half through the current loop.
            ex04_core::hooks::with_current(|core| core.extensions().get::<Cell<usize>>())
                .flatten()
                .map(|parks| parks.get())
        })
        .unwrap();
        assert_eq!(seen_by_future, Some(2));
        assert_eq!(parks.get() as u64, event_loop.turn());
        let snapshot = event_loop.snapshot();
        assert_eq!(snapshot.layers[0].name, "counting");

        // Any driver fits behind a box, too.
        let boxed: Box<dyn Driver> = Box::new(ThreadParker);
        let mut boxed_loop = EventLoop::with_driver(boxed);
        assert_eq!(until_done(&mut boxed_loop, async { 1 }), Ok(1));
    });
}

/// A bottom driver that queues one handle on every park, as an I/O driver queues the
/// reader of a socket that became readable.
struct Pushing;

impl Driver for Pushing {
    fn park(&mut self, timeout: Option<Duration>, ready: &ReadyQueue) -> ParkReport {
        ready.push(Handle::once(
            Label::Static("event"),
            Box::new(|| {}),
            CancelFlag::new(),
        ));
        ParkReport {
            timeout,
            ..ParkReport::default()
        }
    }
}

#[test]
fn ex2_what_the_driver_queues_while_parking_runs_in_the_same_turn() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::with_driver(Pushing);
        let trace = Trace::on(&event_loop);
        event_loop.call_soon_named("queued before", || {});
        event_loop.run_once().unwrap();
        assert_eq!(
            trace.turn(1),
            ["queued before", "event"],
            "ntodo is counted after the park, so the driver's handle is in the batch"
        );
        assert!(event_loop.ready().is_empty());
    });
}

#[test]
fn ex2_a_snapshot_lists_the_ready_labels_in_order() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let gate = Gate::default();
        let _t = event_loop.spawn_named("task", gate.clone());
        event_loop.call_soon_named("cb", || {});
        let snapshot = event_loop.snapshot();
        assert_eq!(snapshot.ready, ["task", "cb"]);
        assert_eq!(snapshot.live_tasks, 1);
        event_loop.run_once().unwrap();
        let snapshot = event_loop.snapshot();
        assert!(snapshot.ready.is_empty());
        assert_eq!(snapshot.turn, 1);
    });
}

#[test]
fn ex2_call_soon_on_a_closed_loop_drops_the_callback_and_returns_it_cancelled() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        event_loop.close();
        let flag = oneloop_testkit::DropFlag::new();
        let guard = flag.guard();
        // asyncio raises "Event loop is closed"; oneloop drops the callback at once.
        let handle = event_loop.call_soon(move || drop(guard));
        assert!(handle.is_cancelled());
        assert_eq!(flag.drops(), 1, "dropped at once, never run");
        assert!(event_loop.ready().is_empty());
        assert_eq!(event_loop.run_once(), Err(LoopError::Closed));
    });
}

/// Two CPU-bound tasks record three steps each, yielding between steps or not.
fn two_workers(yielding: bool) -> Vec<String> {
    let mut event_loop = EventLoop::new();
    let seen = log();
    let inner = Rc::clone(&seen);
    until_done(&mut event_loop, async move {
        let workers = ["A", "B"].map(|name| {
            let seen = Rc::clone(&inner);
            ex04_core::spawn(async move {
                for step in 0..3 {
                    seen.borrow_mut().push(format!("{name}{step}"));
                    if yielding {
                        yield_once().await;
                    }
                }
            })
        });
        for worker in workers {
            worker.await.unwrap();
        }
    })
    .unwrap();
    seen.borrow().clone()
}

#[test]
fn ex2_two_cpu_tasks_take_turns_when_they_yield() {
    watchdog_default(|| {
        assert_eq!(two_workers(true), ["A0", "B0", "A1", "B1", "A2", "B2"]);
    });
}

#[test]
fn ex2_without_a_yield_each_task_runs_all_its_steps_first() {
    watchdog_default(|| {
        assert_eq!(two_workers(false), ["A0", "A1", "A2", "B0", "B1", "B2"]);
    });
}

#[test]
fn ex2_each_yield_now_costs_one_turn() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let trace = Trace::on(&event_loop);
        until_done(&mut event_loop, async {
            for _ in 0..5 {
                yield_once().await;
            }
        })
        .unwrap();
        assert_eq!(event_loop.turn(), 6, "the first step and one per yield");
        assert_eq!(trace.turns_of("main"), [1, 2, 3, 4, 5, 6]);
    });
}
