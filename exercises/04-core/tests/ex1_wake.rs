//! Exercise 1: the wake path — a step pushed at the back of the ready queue, once.

use std::rc::Rc;
use std::sync::{Arc, Barrier, mpsc};
use std::task::Waker;
use std::thread;
use std::time::Duration;

use crate::common::{Gate, Trace, until_done, yield_once};
use ex04_core::hooks::ReadyQueue;
use ex04_core::{
    Driver, EventLoop, FOREIGN_WAKE, JoinError, LoopError, LoopScheduler, ParkReport, ThreadParker,
};
use oneloop_testkit::{DropFlag, PollCounter, SleepProbe, watchdog_default};

/// A main that never finishes and sends its waker out on its first poll, for a test's
/// other thread to wake it from there.
fn sends_its_waker(out: mpsc::Sender<Waker>) -> impl std::future::Future<Output = ()> {
    let mut out = Some(out);
    std::future::poll_fn(move |cx| {
        if let Some(tx) = out.take() {
            tx.send(cx.waker().clone()).unwrap();
        }
        std::task::Poll::Pending
    })
}
#[test]
fn ex1_spawning_queues_the_first_step() {
    watchdog_default(|| {
        let event_loop = EventLoop::new();
        let _task = event_loop.spawn_named("first", async {});
        assert_eq!(event_loop.ready().labels(), ["first"]);
    });
}

#[test]
fn ex1_a_wake_queues_the_step_behind_what_is_already_queued() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let trace = Trace::on(&event_loop);
        let gate = Gate::default();
        let _t = event_loop.spawn_named("T", gate.clone());
        event_loop.run_once().unwrap(); // turn 1: T's first step keeps its waker
        let waking = gate.clone();
        event_loop.call_soon_named("A", move || waking.wake());
        event_loop.call_soon_named("B", || {});
        event_loop.run_once().unwrap(); // turn 2: A wakes T, B runs
        event_loop.run_once().unwrap(); // turn 3: T's step
        assert_eq!(trace.turn(2), ["A", "B"]);
        assert_eq!(trace.turn(3), ["T"], "woken in turn 2, stepped in turn 3");
    });
}

#[test]
fn ex1_two_wakes_in_one_turn_queue_one_step_in_the_first_position() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let trace = Trace::on(&event_loop);
        let gate = Gate::default();
        let task = PollCounter::new(gate.clone());
        let polls = task.count_handle();
        let _t = event_loop.spawn_named("T", task);
        event_loop.run_once().unwrap(); // turn 1: T parks on the gate

        let first = gate.clone();
        event_loop.call_soon_named("A", move || first.wake());
        let core = Rc::clone(event_loop.core());
        event_loop.call_soon_named("B", move || {
            core.call_soon_named("C", || {});
        });
        let second = gate.clone();
        event_loop.call_soon_named("D", move || second.wake());
        event_loop.run_once().unwrap(); // turn 2: A, B, D
        assert_eq!(event_loop.ready().labels(), ["T", "C"]);
        event_loop.run_once().unwrap(); // turn 3
        assert_eq!(trace.turn(3), ["T", "C"], "one step of T, where A put it");
        assert_eq!(polls.get(), 2);
    });
}

#[test]
fn ex1_a_wake_after_the_task_finished_queues_nothing() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let kept = Rc::new(std::cell::RefCell::new(None::<Waker>));
        let keep = Rc::clone(&kept);
        until_done(
            &mut event_loop,
            std::future::poll_fn(move |cx| {
                *keep.borrow_mut() = Some(cx.waker().clone());
                std::task::Poll::Ready(())
            }),
        )
        .unwrap();
        let stale = kept.borrow_mut().take().unwrap();
        // Not running, but on the loop's thread: the wake path looks the loop up.
        stale.wake();
        assert!(event_loop.ready().is_empty(), "a stale id queues nothing");
    });
}

#[test]
fn ex1_a_wake_from_another_thread_fails_the_loop_naming_stage_7() {
    watchdog_default(|| {
        let (waker_tx, waker_rx) = mpsc::channel::<Waker>();
        let (done_tx, done_rx) = mpsc::channel::<()>();
        let helper = thread::spawn(move || {
            let waker = waker_rx.recv().unwrap();
            waker.wake_by_ref();
            // Keep the waker until the loop has reported: it must not look stalled.
            done_rx.recv().unwrap();
            drop(waker);
        });
        let mut event_loop = EventLoop::new();
        let result = until_done(&mut event_loop, sends_its_waker(waker_tx));
        done_tx.send(()).unwrap();
        helper.join().unwrap();
        assert_eq!(result, Err(LoopError::ForeignWake));
        let message = result.unwrap_err().to_string();
        assert_eq!(message, FOREIGN_WAKE);
        assert!(message.contains("stage 7") && message.contains("call_soon_threadsafe"));
    });
}

#[test]
fn ex1_two_loops_on_one_thread_each_get_their_own_wakes() {
    watchdog_default(|| {
        let mut a = EventLoop::new();
        let mut b = EventLoop::new();
        let gate = Gate::default();
        let waiting = b.spawn_named("on b", gate.clone());
        b.run_once().unwrap(); // b's task keeps its waker
        let opener = gate.clone();
        until_done(&mut a, async move {
            yield_once().await;
            opener.open.set(true);
            opener.wake(); // a waker of loop b, woken while loop a runs
        })
        .unwrap();
        assert!(a.ready().is_empty());
        assert_eq!(b.ready().labels(), ["on b"]);
        b.run_once().unwrap();
        assert!(waiting.is_finished());
    });
}

#[test]
fn ex1_wakers_are_send_and_sync_while_futures_need_not_be() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<LoopScheduler>();
    send_sync::<Waker>();
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        // A future holding an Rc is fine: it never leaves the loop's thread.
        let shared = Rc::new(5);
        let inside = Rc::clone(&shared);
        let out = until_done(&mut event_loop, async move {
            yield_once().await;
            *inside + 1
        })
        .unwrap();
        assert_eq!(out, 6);
        assert_eq!(event_loop.ready().len(), 0);
        assert_ne!(
            EventLoop::new().id(),
            event_loop.id(),
            "every loop has its own id"
        );
    });
}

#[test]
fn ex1_a_task_spawned_on_a_closed_loop_is_dropped_and_its_handle_says_cancelled() {
    watchdog_default(|| {
        let mut closed = EventLoop::new();
        closed.close();
        let flag = DropFlag::new();
        let guard = flag.guard();
        let handle = closed.spawn(async move {
            let _guard = guard;
        });
        // asyncio raises "Event loop is closed"; oneloop drops the future at once.
        assert_eq!(flag.drops(), 1, "the future is dropped at once");
        assert!(handle.is_finished());
        assert_eq!(closed.live_tasks(), 0);
        // Whoever awaits the handle gets the error at once, and is not left waiting.
        let mut other = EventLoop::new();
        let out = until_done(&mut other, handle);
        assert_eq!(out, Ok(Err(JoinError::Cancelled)));
        assert_eq!(other.turn(), 1);
    });
}

#[test]
fn ex1_a_stale_waker_does_not_step_the_task_that_reuses_its_slot() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let kept = Rc::new(std::cell::RefCell::new(None::<Waker>));
        let keep = Rc::clone(&kept);
        let first = event_loop.spawn_named(
            "first",
            std::future::poll_fn(move |cx| {
                *keep.borrow_mut() = Some(cx.waker().clone());
                std::task::Poll::Ready(())
            }),
        );
        event_loop.run_once().unwrap(); // the first task finishes; its slot is free
        assert!(first.is_finished());
        // The next task takes the freed slot: same index, a new generation.
        let gate = Gate::default();
        let second = PollCounter::new(gate.clone());
        let polls = second.count_handle();
        let _second = event_loop.spawn_named("second", second);
        event_loop.run_once().unwrap(); // its first step: Pending on the gate
        assert_eq!(polls.get(), 1);
        kept.borrow_mut().take().unwrap().wake();
        assert!(
            event_loop.ready().is_empty(),
            "the first task's waker must not queue a step of the task in its old slot"
        );
        gate.wake();
        assert_eq!(event_loop.ready().labels(), ["second"]);
    });
}

#[test]
fn ex1_a_storm_of_wakes_from_other_threads_fails_the_loop_once() {
    const THREADS: usize = 8;
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let (waker_tx, waker_rx) = mpsc::channel::<Waker>();
        let _main = event_loop.spawn_named("main", sends_its_waker(waker_tx));
        event_loop.run_once().unwrap(); // main's first step sends its waker out
        let waker = waker_rx.recv().unwrap();
        // Every thread clones the waker, wakes it at the same moment, and keeps its
        // clone until the loop has reported; then every clone is dropped over there.
        let start = Arc::new(Barrier::new(THREADS));
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let release_rx = Arc::new(std::sync::Mutex::new(release_rx));
        let (woke_tx, woke_rx) = mpsc::channel::<()>();
        let helpers: Vec<_> = (0..THREADS)
            .map(|_| {
                let (waker, start) = (waker.clone(), Arc::clone(&start));
                let (release_rx, woke_tx) = (Arc::clone(&release_rx), woke_tx.clone());
                thread::spawn(move || {
                    start.wait();
                    waker.wake_by_ref();
                    woke_tx.send(()).unwrap();
                    release_rx.lock().unwrap().recv().unwrap();
                    drop(waker);
                })
            })
            .collect();
        drop(waker);
        for _ in 0..THREADS {
            woke_rx.recv().unwrap();
        }
        assert_eq!(
            event_loop.run_once(),
            Err(LoopError::ForeignWake),
            "the loop fails on its next turn"
        );
        // The flag says "it happened", not how often: no second error for the storm.
        for _ in 0..THREADS {
            release_tx.send(()).unwrap();
        }
        for helper in helpers {
            helper.join().unwrap();
        }
        // Every clone was dropped on its own thread: nothing can wake main now, and
        // the loop says so instead of parking for ever.
        assert_eq!(event_loop.run_once(), Err(LoopError::Stalled));
    });
}

#[test]
fn ex1_a_wake_from_another_thread_during_the_park_fails_that_turn() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let trace = Trace::on(&event_loop);
        let (waker_tx, waker_rx) = mpsc::channel::<Waker>();
        let (done_tx, done_rx) = mpsc::channel::<()>();
        let parked = SleepProbe::current();
        let helper = thread::spawn(move || {
            let waker = waker_rx.recv().unwrap();
            // Wake only once the loop's thread sleeps in its park.
            parked.wait_until_asleep();
            waker.wake_by_ref();
            done_rx.recv().unwrap();
            drop(waker);
        });
        let _main = event_loop.spawn_named("main", sends_its_waker(waker_tx));
        event_loop.run_once().unwrap(); // turn 1: main's step sends its waker out
        // Turn 2 parks with nothing ready; the wake ends the park.
        let result = event_loop.run_once();
        done_tx.send(()).unwrap();
        helper.join().unwrap();
        assert_eq!(result, Err(LoopError::ForeignWake));
        assert_eq!(
            trace.turns_started.get(),
            2,
            "the turn whose park the wake ended reports it, not the next one"
        );
    });
}

#[test]
fn ex1_a_storm_of_wakes_in_one_turn_queues_every_step_once_in_order() {
    const TASKS: usize = 3000;
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let trace = Trace::on(&event_loop);
        let gates: Vec<Gate> = (0..TASKS).map(|_| Gate::default()).collect();
        let polls: Vec<_> = gates
            .iter()
            .enumerate()
            .map(|(n, gate)| {
                let task = PollCounter::new(gate.clone());
                let polls = task.count_handle();
                drop(event_loop.spawn_named(format!("t{n}"), task));
                polls
            })
            .collect();
        event_loop.run_once().unwrap(); // turn 1: every task parks on its gate
        // One callback wakes every task twice, far more wakes than a small queue holds.
        let waking = gates.clone();
        event_loop.call_soon_named("storm", move || {
            for gate in waking.iter().chain(waking.iter()) {
                gate.wake();
            }
        });
        event_loop.run_once().unwrap(); // turn 2: the storm
        let expected: Vec<String> = (0..TASKS).map(|n| format!("t{n}")).collect();
        assert_eq!(
            event_loop.ready().labels(),
            expected,
            "one step per task, none lost, in the order of the first wakes"
        );
        event_loop.run_once().unwrap(); // turn 3: each task's one step
        assert_eq!(trace.turn(3), expected);
        assert!(polls.iter().all(|p| p.get() == 2));
    });
}

/// The default driver, with a hook run once inside `registrations`: user code in the
/// middle of `park`'s stall check, where a test can place another thread's actions.
#[derive(Default)]
struct HookedParker {
    hook: std::cell::RefCell<Option<Box<dyn FnOnce()>>>,
}

impl Driver for HookedParker {
    fn park(&mut self, timeout: Option<Duration>, ready: &ReadyQueue) -> ParkReport {
        ThreadParker.park(timeout, ready)
    }

    fn registrations(&self) -> usize {
        let hook = self.hook.borrow_mut().take();
        if let Some(hook) = hook {
            hook();
        }
        0
    }
}

#[test]
fn ex1_a_foreign_wake_whose_waker_is_dropped_during_the_stall_check_is_not_a_stall() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::with_driver(HookedParker::default());
        let (waker_tx, waker_rx) = mpsc::channel::<Waker>();
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let (done_tx, done_rx) = mpsc::channel::<()>();
        let helper = thread::spawn(move || {
            let waker = waker_rx.recv().unwrap();
            go_rx.recv().unwrap();
            // Wake, then let the last clone held off the loop's thread go.
            waker.wake();
            done_tx.send(()).unwrap();
        });
        let _main = event_loop.spawn_named("main", sends_its_waker(waker_tx));
        event_loop.run_once().unwrap(); // turn 1: main's step sends its waker out
        // In turn 2's stall check, the other thread wakes main and drops its waker.
        *event_loop.driver().hook.borrow_mut() = Some(Box::new(move || {
            go_tx.send(()).unwrap();
            done_rx.recv().unwrap();
        }));
        let result = event_loop.run_once();
        helper.join().unwrap();
        assert_eq!(
            result,
            Err(LoopError::ForeignWake),
            "the wake came before its waker was dropped: read the held wakers, then the \
             foreign flag, and the wake is seen"
        );
    });
}
