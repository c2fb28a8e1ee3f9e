//! Exercise 1: `call_soon_threadsafe` — push under the lock, then wake the loop.

use std::sync::mpsc;
use std::sync::{Arc, Barrier, Mutex};
use std::thread;

use crate::common::{self, LIMIT, Signal, WakeFromElsewhere};
use ex07_offload::{LOOP_CLOSED, LoopHandle, OffloadError, new_event_loop};
use oneloop_testkit::{SleepProbe, watchdog};

#[test]
fn ex1_an_idle_loop_with_no_timers_is_woken_by_another_thread_and_resumes() {
    watchdog(LIMIT, || {
        let mut event_loop = new_event_loop().unwrap();
        let (handle_tx, handle_rx) = mpsc::channel::<(LoopHandle, Signal)>();
        let loop_thread = SleepProbe::current();
        let helper = thread::spawn(move || {
            let (handle, signal) = handle_rx.recv().unwrap();
            // The call comes while the loop sleeps in epoll_wait, its one way to sleep.
            loop_thread.wait_until_asleep();
            handle
                .call_soon_threadsafe(move || signal.set())
                .expect("the loop is open");
        });
        let log = event_loop
            .run_until_complete(async move {
                let signal = Signal::default();
                let handle = LoopHandle::current().unwrap();
                handle_tx.send((handle, signal.clone())).unwrap();
                // Nothing is ready and no timer is set: the loop sleeps in epoll_wait
                // until the helper's callback arrives.
                signal.wait().await;
                "resumed"
            })
            .unwrap();
        helper.join().unwrap();
        assert_eq!(log, "resumed");
    });
}

#[test]
fn ex1_eight_threads_of_ten_thousand_calls_each_run_once_in_each_threads_order() {
    const THREADS: usize = 8;
    const CALLS: usize = 10_000;
    watchdog(LIMIT, || {
        let mut event_loop = new_event_loop().unwrap();
        let seen = event_loop
            .run_until_complete(async {
                let handle = LoopHandle::current().unwrap();
                let seen = Arc::new(Mutex::new(Vec::with_capacity(THREADS * CALLS)));
                let done = Signal::default();
                let start = Arc::new(Barrier::new(THREADS));
                let threads: Vec<_> = (0..THREADS)
                    .map(|t| {
                        let handle = handle.clone();
                        let seen = Arc::clone(&seen);
                        let done = done.clone();
                        let start = Arc::clone(&start);
                        thread::spawn(move || {
                            start.wait();
                            for i in 0..CALLS {
                                let seen = Arc::clone(&seen);
                                let done = done.clone();
                                handle
                                    .call_soon_threadsafe(move || {
                                        let mut seen = seen.lock().unwrap();
                                        seen.push((t, i));
                                        if seen.len() == THREADS * CALLS {
                                            done.set();
                                        }
                                    })
                                    .expect("the loop is open");
                            }
                        })
                    })
                    .collect();
                done.wait().await;
                for thread in threads {
                    thread.join().unwrap();
                }
                seen.lock().unwrap().clone()
            })
            .unwrap();
        assert_eq!(
            seen.len(),
            THREADS * CALLS,
            "every callback ran exactly once"
        );
        let mut next = [0; THREADS];
        for (t, i) in seen {
            assert_eq!(i, next[t], "thread {t}'s calls ran out of order");
            next[t] += 1;
        }
        assert!(next.iter().all(|&n| n == CALLS));
    });
}

#[test]
fn ex1_a_waker_fired_from_another_thread_wakes_the_parked_loop_every_time() {
    const ROUNDS: usize = 1_000;
    watchdog(LIMIT, || {
        let (waker_tx, waker_rx) = mpsc::channel::<std::task::Waker>();
        // One helper thread wakes whatever waker it is sent, at once.
        let helper = thread::spawn(move || {
            let mut woken = 0;
            for waker in waker_rx {
                waker.wake();
                woken += 1;
            }
            woken
        });
        let mut event_loop = new_event_loop().unwrap();
        let rounds = event_loop
            .run_until_complete(async move {
                let mut rounds = 0;
                for _ in 0..ROUNDS {
                    let tx = waker_tx.clone();
                    WakeFromElsewhere {
                        send: move |waker| tx.send(waker).unwrap(),
                        polled: false,
                    }
                    .await;
                    rounds += 1;
                }
                rounds
            })
            .unwrap();
        assert_eq!(rounds, ROUNDS, "no wake was lost");
        assert_eq!(helper.join().unwrap(), ROUNDS);
    });
}

#[test]
fn ex1_a_handle_reports_a_closed_loop_clearly() {
    watchdog(LIMIT, || {
        let event_loop = new_event_loop().unwrap();
        let offload = ex07_offload::Offload::of(event_loop.core()).unwrap();
        let handle = offload.handle();
        let open = {
            let handle = handle.clone();
            thread::spawn(move || handle.call_soon_threadsafe(|| {}))
                .join()
                .unwrap()
        };
        assert_eq!(open, Ok(()), "an open loop takes the callback");
        drop(event_loop);
        assert!(handle.is_closed());
        let result = thread::spawn(move || handle.call_soon_threadsafe(|| {}))
            .join()
            .unwrap();
        assert_eq!(result, Err(OffloadError::LoopClosed));
        let message = result.unwrap_err().to_string();
        assert_eq!(message, LOOP_CLOSED);
        assert!(message.contains("closed"));
    });
}

/// The wrong mechanism "drop the refused callback where it was refused": a callback is
/// user code, and so is its drop. Dropped with the inbox still locked, a drop that
/// calls `call_soon_threadsafe` again waits on the lock its own thread holds.
#[test]
fn ex1_a_callback_refused_by_a_closed_loop_is_dropped_with_the_inbox_unlocked() {
    struct CallsAgainWhenDropped {
        handle: LoopHandle,
        result: Arc<Mutex<Option<Result<(), OffloadError>>>>,
    }
    impl Drop for CallsAgainWhenDropped {
        fn drop(&mut self) {
            let again = self.handle.call_soon_threadsafe(|| {});
            *self.result.lock().unwrap() = Some(again);
        }
    }
    watchdog(LIMIT, || {
        let event_loop = new_event_loop().unwrap();
        let handle = ex07_offload::Offload::of(event_loop.core())
            .unwrap()
            .handle();
        drop(event_loop);
        let result = Arc::new(Mutex::new(None));
        let guard = CallsAgainWhenDropped {
            handle: handle.clone(),
            result: Arc::clone(&result),
        };
        let refused = handle.call_soon_threadsafe(move || drop(guard));
        assert_eq!(refused, Err(OffloadError::LoopClosed));
        assert_eq!(
            *result.lock().unwrap(),
            Some(Err(OffloadError::LoopClosed)),
            "the refused callback was dropped, and its drop was refused in turn"
        );
    });
}

#[test]
fn ex1_the_loop_handle_is_send_and_sync() {
    watchdog(LIMIT, || {
        fn send_sync<T: Send + Sync + 'static>() {}
        send_sync::<LoopHandle>();
        send_sync::<ex07_offload::ThreadPool>();
    });
}

#[test]
fn ex1_without_the_offload_layer_a_foreign_wake_ends_epoll_wait_with_an_error() {
    watchdog(LIMIT, || {
        // Stage 6's loop: nothing registered, no timer. The eventfd ends its sleep, and
        // with no layer to carry the wake, the loop fails instead of hanging.
        let (waker_tx, waker_rx) = mpsc::channel::<std::task::Waker>();
        let loop_thread = SleepProbe::current();
        let helper = thread::spawn(move || {
            let waker = waker_rx.recv().unwrap();
            // The wake comes while the loop sleeps in epoll_wait.
            loop_thread.wait_until_asleep();
            waker.wake();
        });
        let mut event_loop = oneloop_io::new_event_loop().unwrap();
        let result = event_loop.run_until_complete(WakeFromElsewhere {
            send: move |waker| waker_tx.send(waker).unwrap(),
            polled: false,
        });
        helper.join().unwrap();
        assert_eq!(result, Err(oneloop_core::LoopError::ForeignWake));
    });
}

#[test]
fn ex1_the_push_lands_before_the_wake() {
    // Under a gate driver, each unpark holds its caller until the loop has parked twice
    // more (see `common::Gate`): a wake sent before its push is spent on an empty inbox,
    // and the loop sleeps on with the callback unseen. Pushed first, it runs.
    const ROUNDS: usize = 20;
    watchdog(LIMIT, || {
        let gate = Arc::new(common::Gate::default());
        let mut event_loop: oneloop_core::EventLoop<_> = oneloop_core::EventLoop::with_driver(
            ex07_offload::OffloadDriver::new(common::GateDriver(Arc::clone(&gate))),
        );
        let offload = ex07_offload::Offload::of(event_loop.core()).expect("the offload layer");
        let handle = offload.handle();
        let helpers = event_loop
            .run_until_complete(async move {
                let mut helpers = Vec::with_capacity(ROUNDS);
                for round in 0..ROUNDS {
                    let signal = Signal::default();
                    let set = signal.clone();
                    let handle = handle.clone();
                    let helper = thread::spawn(move || {
                        handle
                            .call_soon_threadsafe(move || set.set())
                            .expect("the loop is open");
                    });
                    // Nothing else is ready: the loop parks until the callback arrives.
                    signal.wait().await;
                    assert!(signal.is_set(), "round {round}");
                    // Joined after the run: the helper may still wait for parks.
                    helpers.push(helper);
                }
                helpers
            })
            .unwrap();
        assert_eq!(helpers.len(), ROUNDS);
        for helper in helpers {
            helper.join().unwrap();
        }
    });
}

#[test]
fn ex1_calls_racing_with_the_loop_closing_run_or_are_dropped_never_leaked() {
    // Two threads call `call_soon_threadsafe` in a tight loop while the loop runs a
    // few turns and is dropped. Each call either lands (and its callback runs, or is
    // dropped when the loop closes) or fails with LoopClosed (and is dropped at once):
    // every captured token is gone at the end, and both threads saw the loop close.
    // Each round has a watchdog of its own: a round that never ends is a hang (a
    // calling thread that never sees the loop close, a loop that never finishes its
    // turns), however slowly a loaded machine runs the others.
    const ROUNDS: usize = 200;
    for round in 0..ROUNDS {
        let outcome = std::panic::catch_unwind(|| watchdog(LIMIT, move || close_race_round(round)));
        if let Err(failure) = outcome {
            eprintln!("the close race failed in round {round} of {ROUNDS} (its message follows)");
            std::panic::resume_unwind(failure);
        }
    }
}

/// One round of the close race: `round % 4` turns, then the loop is dropped.
fn close_race_round(round: usize) {
    use std::sync::atomic::{AtomicUsize, Ordering};

    struct Token(Arc<AtomicUsize>);
    impl Drop for Token {
        fn drop(&mut self) {
            self.0.fetch_sub(1, Ordering::SeqCst);
        }
    }

    let live = Arc::new(AtomicUsize::new(0));
    let ran = Arc::new(AtomicUsize::new(0));
    let mut event_loop = new_event_loop().unwrap();
    let handle = ex07_offload::Offload::of(event_loop.core())
        .expect("the offload layer")
        .handle();
    let start = Arc::new(Barrier::new(3));
    let helpers: Vec<_> = (0..2)
        .map(|_| {
            let (handle, start) = (handle.clone(), Arc::clone(&start));
            let (live, ran) = (Arc::clone(&live), Arc::clone(&ran));
            thread::spawn(move || {
                start.wait();
                let mut landed = 0_usize;
                loop {
                    live.fetch_add(1, Ordering::SeqCst);
                    let token = Token(Arc::clone(&live));
                    let ran = Arc::clone(&ran);
                    match handle.call_soon_threadsafe(move || {
                        drop(token);
                        ran.fetch_add(1, Ordering::SeqCst);
                    }) {
                        Ok(()) => landed += 1,
                        Err(OffloadError::LoopClosed) => return landed,
                        Err(other) => panic!("unexpected error: {other}"),
                    }
                }
            })
        })
        .collect();
    start.wait();
    event_loop
        .run_until_complete(async move {
            for _ in 0..round % 4 {
                oneloop_core::yield_now().await;
            }
        })
        .unwrap();
    drop(event_loop);
    let landed: usize = helpers.into_iter().map(|h| h.join().unwrap()).sum();
    assert_eq!(
        live.load(Ordering::SeqCst),
        0,
        "round {round}: a callback leaked"
    );
    assert!(ran.load(Ordering::SeqCst) <= landed, "round {round}");
    assert!(handle.is_closed(), "round {round}");
}

#[test]
fn ex1_the_inbox_count_follows_its_queue_through_delivery_and_close() {
    watchdog(LIMIT, || {
        let mut event_loop = new_event_loop().unwrap();
        let offload = ex07_offload::Offload::of(event_loop.core()).unwrap();
        let handle = offload.handle();
        let ran = Arc::new(Mutex::new(Vec::new()));
        for name in ["a", "b"] {
            let ran = Arc::clone(&ran);
            handle
                .call_soon_threadsafe(move || ran.lock().unwrap().push(name))
                .unwrap();
        }
        assert_eq!(offload.pending(), 2, "two calls wait in the inbox");
        event_loop.run_once().unwrap();
        assert_eq!(*ran.lock().unwrap(), ["a", "b"]);
        // A count left above zero would make every later park a zero-timeout poll: the
        // loop would spin instead of sleeping.
        assert_eq!(offload.pending(), 0, "the delivery emptied the inbox");
        let ran_later = Arc::clone(&ran);
        handle
            .call_soon_threadsafe(move || ran_later.lock().unwrap().push("never"))
            .unwrap();
        assert_eq!(offload.pending(), 1);
        event_loop.close();
        assert_eq!(offload.pending(), 0, "a closed inbox holds nothing");
        assert_eq!(
            *ran.lock().unwrap(),
            ["a", "b"],
            "the call left at close never ran"
        );
        assert_eq!(Arc::strong_count(&ran), 1, "and it was dropped");
    });
}

/// An innermost driver that, inside one park, queues a handle of its own (standing for
/// an I/O event) and then runs the test's call: a `call_soon_threadsafe` that lands
/// while the loop is parked, deterministically.
struct CallsWhileParked(std::rc::Rc<std::cell::RefCell<Option<CallDuringPark>>>);

/// What [`CallsWhileParked`] runs inside its park, once.
type CallDuringPark = Box<dyn FnOnce()>;

impl oneloop_core::Driver for CallsWhileParked {
    fn park(
        &mut self,
        timeout: Option<std::time::Duration>,
        ready: &oneloop_core::hooks::ReadyQueue,
    ) -> oneloop_core::ParkReport {
        use oneloop_core::hooks::{CancelFlag, Handle};
        ready.push(Handle::once(
            oneloop_core::Label::Static("the park's own event"),
            Box::new(|| {}),
            CancelFlag::new(),
        ));
        if let Some(call) = self.0.borrow_mut().take() {
            call();
        }
        oneloop_core::ParkReport {
            timeout,
            ..oneloop_core::ParkReport::default()
        }
    }

    /// One stand-in registration: with nothing registered the loop would refuse to park
    /// (`Stalled`).
    fn registrations(&self) -> usize {
        1
    }
}

/// The labels of the handles each turn ran.
#[derive(Default)]
struct Turns(std::cell::RefCell<Vec<(u64, String)>>);

impl oneloop_core::Observer for Turns {
    fn handle_ran(&self, turn: u64, label: &oneloop_core::Label, _: std::time::Duration) {
        self.0.borrow_mut().push((turn, label.to_string()));
    }
}

#[test]
fn ex1_a_call_landing_during_the_park_runs_in_that_turn_after_the_parks_own_events() {
    watchdog(LIMIT, || {
        let during = std::rc::Rc::new(std::cell::RefCell::new(None));
        let mut event_loop = oneloop_core::EventLoop::with_driver(
            ex07_offload::OffloadDriver::new(CallsWhileParked(std::rc::Rc::clone(&during))),
        );
        let turns = std::rc::Rc::new(Turns::default());
        event_loop.add_observer(turns.clone());
        let handle = ex07_offload::Offload::of(event_loop.core())
            .unwrap()
            .handle();
        let call: CallDuringPark = Box::new(move || {
            handle
                .call_soon_threadsafe_named("landed during the park", || {})
                .expect("the loop is open");
        });
        *during.borrow_mut() = Some(call);
        event_loop.run_once().unwrap();
        // The inbox is delivered after the park: the call runs in this very turn, behind
        // what the inner driver queued. Delivered before the park, it would wait a turn.
        let turn_1: Vec<_> = turns
            .0
            .borrow()
            .iter()
            .filter(|(turn, _)| *turn == 1)
            .map(|(_, label)| label.clone())
            .collect();
        assert_eq!(turn_1, ["the park's own event", "landed during the park"]);
    });
}

/// The timeout each turn's park was given, below the offload layer.
#[derive(Default)]
struct Timeouts(std::cell::RefCell<Vec<Option<std::time::Duration>>>);

impl oneloop_core::Observer for Timeouts {
    fn turn_ended(&self, _turn: u64, park: &oneloop_core::ParkReport, _handles: usize) {
        self.0.borrow_mut().push(park.timeout);
    }
}

#[test]
fn ex1_a_loop_whose_inbox_holds_a_call_parks_with_a_zero_timeout() {
    watchdog(LIMIT, || {
        let mut event_loop = new_event_loop().unwrap();
        let timeouts = std::rc::Rc::new(Timeouts::default());
        event_loop.add_observer(timeouts.clone());
        let handle = ex07_offload::Offload::of(event_loop.core())
            .unwrap()
            .handle();
        let ran = Arc::new(Mutex::new(false));
        let set = Arc::clone(&ran);
        thread::spawn(move || handle.call_soon_threadsafe(move || *set.lock().unwrap() = true))
            .join()
            .unwrap()
            .expect("the loop is open");
        // Nothing is ready, no timer: the loop alone would wait for ever. The inbox's
        // count says work waits, so the park must not sleep at all.
        event_loop.run_once().unwrap();
        assert!(*ran.lock().unwrap(), "the call ran in the first turn");
        assert_eq!(*timeouts.0.borrow(), [Some(std::time::Duration::ZERO)]);
    });
}
