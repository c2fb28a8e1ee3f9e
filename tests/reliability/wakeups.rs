//! Wakes that cross threads, in each window of the loop's turn and of its close.
//!
//! - A loop with nothing but another thread's `LoopHandle` to wait for (asyncio's
//!   `call_soon_threadsafe(loop.stop)` from a thread, to end `run_forever`) used to
//!   report `Stalled` at its first idle park: the stall check counted task wakers held
//!   elsewhere, but not handles. Now a live handle counts among the offload driver's
//!   registrations.
//! - A job of the default pool that hands the loop a call and waits for its answer used
//!   to hold the loop's close until the shutdown timeout (300 s by default): the close
//!   hook waited for the pool with the call sitting in the inbox. asyncio's loop runs
//!   while it joins the executor; the close hook now runs such calls while it waits.
//! - A task that dropped its `to_thread` future (a timeout, a cancellation) was
//!   stepped once more when the job ended: the completion still held its waker. The
//!   future's drop now takes the waker back.
//! - A `LoopHandle` dropped unused on another thread while the loop slept on it (the
//!   handle was all it had to wait for) left the loop asleep for ever: nothing wrote
//!   the eventfd. The last handle's drop now wakes a loop that sleeps on handles
//!   alone, and the loop looks at the count again after it announced that sleep. A
//!   loop whose last `to_thread` job had answered could sleep for ever the same way,
//!   on the pool's count of running jobs: jobs now count through their handles. A
//!   layer above that counted its registrations again after the drop made the loop
//!   forget what its stall check had seen, and sleep for ever: the loop now keeps the
//!   most handles counted since its last park.
//! - A waker called inside the poll (it is user code) that armed a timer due at once,
//!   on a loop with no timer before, saw its callback a turn late: the timer driver
//!   looked at the empty heap before the poll only, and skipped the due pass after it.
//!   It now looks again after the poll.
//! - Attacks that found no bug, kept as guards: a wake between the loop's last check
//!   and its park (`thread::park` or `epoll_wait`); two loops on two threads waking each other's tasks; a waker
//!   dropped unused on another thread (the stall is still reported, and the offload
//!   layer's own references to its inbox do not count as handles); a wake while the
//!   loop drops its tasks at close, and one after it closed; a call racing the end of
//!   `run_until_complete`.

use std::cell::RefCell;
use std::future::poll_fn;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::task::{Poll, Waker};
use std::thread;
use std::time::Duration;

use oneloop_core::hooks::{CALLBACK_PANICKED, LayerSnapshot, ReadyQueue, with_current};
use oneloop_core::{Core, Driver, EventLoop, ExceptionReport, LoopError, ParkReport};
use oneloop_io::IoDriver;
use oneloop_offload::{Offload, OffloadDriver, new_driver, new_event_loop, to_thread};
use oneloop_testkit::{SleepProbe, watchdog_default};
use oneloop_timers::TimerDriver;

/// A driver over `inner` that runs a hook once, at the first park that may wait for
/// ever, just before `inner` parks: after the loop's stall check and its last read of
/// the foreign flag (and, under the offload layer, after its read of the inbox's
/// count), before `epoll_wait`.
struct BeforePark<D> {
    inner: D,
    hook: Option<Box<dyn FnOnce()>>,
}

impl<D: Driver> BeforePark<D> {
    fn new(inner: D, hook: impl FnOnce() + 'static) -> Self {
        Self {
            inner,
            hook: Some(Box::new(hook)),
        }
    }
}

impl<D: Driver> Driver for BeforePark<D> {
    fn install(&mut self, core: &Rc<Core>) {
        self.inner.install(core);
    }

    fn park(&mut self, timeout: Option<Duration>, ready: &ReadyQueue) -> ParkReport {
        if timeout.is_none()
            && let Some(hook) = self.hook.take()
        {
            hook();
        }
        self.inner.park(timeout, ready)
    }

    fn registrations(&self) -> usize {
        self.inner.registrations()
    }

    fn external_wakes(&self) -> bool {
        self.inner.external_wakes()
    }

    fn describe(&self, out: &mut Vec<LayerSnapshot>) {
        self.inner.describe(out);
    }
}

#[test]
fn run_forever_waits_for_a_stop_that_another_thread_sends_through_its_handle() {
    watchdog_default(|| {
        // The thread calls only once the loop is about to sleep, so the loop's stall
        // check runs first, with the handle held and nothing else to wait for.
        let (parking_tx, parking_rx) = mpsc::channel::<()>();
        let driver = BeforePark::new(new_driver().expect("epoll is available"), move || {
            parking_tx.send(()).expect("the stopping thread waits");
        });
        let mut event_loop = EventLoop::with_driver(driver);
        let handle = Offload::of(event_loop.core())
            .expect("the offload layer")
            .handle();
        let stopper = thread::spawn(move || {
            // Gone without a message: the loop never parked (it stalled).
            if parking_rx.recv().is_ok() {
                handle
                    .call_soon_threadsafe(|| {
                        with_current(|core| core.stop()).expect("run on the loop");
                    })
                    .expect("the loop is open");
            }
        });
        let outcome = event_loop.run_forever();
        drop(event_loop);
        stopper.join().expect("the stopping thread ends");
        assert_eq!(outcome, Ok(()), "run_forever ends through the stop");
    });
}

/// Runs a main task that waits for ever on a loop over `driver`, whose hook hands the
/// only `LoopHandle` to a thread that drops it unused: the loop must report the stall.
fn a_handle_dropped_in_the_hook_of<D: Driver>(
    driver: impl FnOnce(Box<dyn FnOnce()>) -> D,
) -> Result<(), LoopError> {
    let handle = Rc::new(RefCell::new(None));
    let taken = Rc::clone(&handle);
    let driver = driver(Box::new(move || {
        let handle: oneloop_offload::LoopHandle = taken.borrow_mut().take().expect("one park");
        thread::spawn(move || drop(handle))
            .join()
            .expect("the dropping thread ends");
    }));
    let mut event_loop = EventLoop::with_driver(driver);
    *handle.borrow_mut() = Some(
        Offload::of(event_loop.core())
            .expect("the offload layer")
            .handle(),
    );
    event_loop.run_until_complete(std::future::pending::<()>())
}

#[test]
fn a_handle_dropped_unused_after_the_stall_check_ends_the_wait_with_a_stall() {
    // Before the offload driver's park: it must see the count lower than the stall
    // check did, and not sleep.
    let outcome = watchdog_default(|| {
        a_handle_dropped_in_the_hook_of(|hook| {
            BeforePark::new(new_driver().expect("epoll is available"), hook)
        })
    });
    assert_eq!(outcome, Err(LoopError::Stalled));
}

#[test]
fn a_handle_dropped_unused_while_the_loop_sleeps_on_it_wakes_the_loop_to_report_the_stall() {
    // Inside the offload driver's park, just before `epoll_wait`: the drop must wake
    // the loop (it used to sleep for ever).
    let outcome = watchdog_default(|| {
        a_handle_dropped_in_the_hook_of(|hook| {
            let io = IoDriver::new().expect("epoll is available");
            OffloadDriver::new(BeforePark::new(TimerDriver::new(io), hook))
        })
    });
    assert_eq!(outcome, Err(LoopError::Stalled));
}

/// The same drop, made while the loop really sleeps in `epoll_wait`: the thread that
/// holds the only handle waits until the loop's thread is asleep, then drops it.
#[test]
fn a_handle_dropped_unused_once_the_loop_is_asleep_in_epoll_wait_wakes_it_to_report_the_stall() {
    let outcome = watchdog_default(|| {
        let mut event_loop = new_event_loop().expect("epoll is available");
        let handle = Offload::of(event_loop.core())
            .expect("the offload layer")
            .handle();
        let loop_thread = SleepProbe::current();
        let (started_tx, started_rx) = mpsc::channel::<()>();
        let dropper = thread::spawn(move || {
            started_rx.recv().expect("the main task starts");
            // The loop's thread has nothing to sleep on but its park.
            loop_thread.wait_until_asleep();
            drop(handle);
        });
        let outcome = event_loop.run_until_complete(async move {
            started_tx.send(()).expect("the dropping thread waits");
            std::future::pending::<()>().await;
        });
        dropper.join().expect("the dropping thread ends");
        outcome
    });
    assert_eq!(outcome, Err(LoopError::Stalled));
}

/// A layer over `inner` that counts its registrations again at every park, as a layer
/// that looks before it parks would: after the loop's stall check, before the offload
/// driver's idle park.
struct CountsBeforePark<D>(D);

impl<D: Driver> Driver for CountsBeforePark<D> {
    fn install(&mut self, core: &Rc<Core>) {
        self.0.install(core);
    }

    fn park(&mut self, timeout: Option<Duration>, ready: &ReadyQueue) -> ParkReport {
        let _ = self.0.registrations();
        self.0.park(timeout, ready)
    }

    fn registrations(&self) -> usize {
        self.0.registrations()
    }

    fn external_wakes(&self) -> bool {
        self.0.external_wakes()
    }

    fn describe(&self, out: &mut Vec<LayerSnapshot>) {
        self.0.describe(out);
    }
}

#[test]
fn a_handle_dropped_before_a_layer_counts_again_still_ends_the_wait_with_a_stall() {
    // The drop comes after the stall check, and a layer above counts once more after
    // it: that count of zero must not pass for the one the stall check made.
    let outcome = watchdog_default(|| {
        a_handle_dropped_in_the_hook_of(|hook| {
            BeforePark::new(
                CountsBeforePark(new_driver().expect("epoll is available")),
                hook,
            )
        })
    });
    assert_eq!(outcome, Err(LoopError::Stalled));
}

#[test]
fn a_loop_left_waiting_for_ever_after_its_last_job_reports_the_stall() {
    // The job queues its answer, drops its handle, and only then leaves the pool's
    // count of running jobs: the loop must not sleep on that count.
    for _ in 0..50 {
        let outcome = watchdog_default(|| {
            oneloop_offload::run(async {
                to_thread(|| 1).await.expect("no panic");
                std::future::pending::<()>().await;
            })
        });
        assert_eq!(outcome, Err(LoopError::Stalled));
    }
}

#[test]
fn a_job_that_waits_for_its_call_to_the_closing_loop_gets_it_before_the_timeout() {
    let (answered, left, reports) = watchdog_default(|| {
        let mut event_loop = new_event_loop().expect("epoll is available");
        let offload = Offload::of(event_loop.core()).expect("the offload layer");
        // A close held until this timeout is the bug (the job then gets no answer); a
        // loaded machine's slow job thread stays far inside it, and it ends before the
        // watchdog's ten seconds.
        offload.set_shutdown_timeout(Duration::from_secs(8));
        let reports: Rc<RefCell<Vec<ExceptionReport>>> = Rc::default();
        let seen = Rc::clone(&reports);
        event_loop.set_exception_handler(move |report| seen.borrow_mut().push(report.clone()));
        let answered = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&answered);
        event_loop
            .run_until_complete(async move {
                let handle = offload.handle();
                // Dropped when the close drops the leftover tasks, before its hooks run:
                // the job makes its calls only then, while the close waits for it.
                let (closing_tx, closing_rx) = mpsc::channel::<()>();
                drop(oneloop_core::spawn(async move {
                    let _closing = OnDrop(Some(Box::new(move || {
                        closing_tx.send(()).expect("the job waits");
                    })));
                    std::future::pending::<()>().await;
                }));
                // Submitted, then left: main ends, and the loop closes with the job on.
                drop(to_thread(move || {
                    closing_rx.recv().expect("the loop closes");
                    let (answer_tx, answer_rx) = mpsc::channel();
                    handle
                        .call_soon_threadsafe(move || answer_tx.send(()).expect("the job waits"))
                        .expect("the loop is open while it waits for its pool");
                    // A second call that panics: reported, and the wait goes on.
                    handle
                        .call_soon_threadsafe_named("panicking call", || panic!("boom"))
                        .expect("the loop is open while it waits for its pool");
                    if answer_rx.recv().is_ok() {
                        counted.fetch_add(1, Ordering::SeqCst);
                    }
                }));
            })
            .expect("main finishes");
        let offload = Offload::of(event_loop.core()).expect("the offload layer");
        event_loop.close();
        let left = offload
            .last_shutdown()
            .expect("the default pool was shut down");
        // Reports hold `Rc`s: only their texts leave the watchdog's thread.
        let reports: Vec<(String, String)> = reports
            .take()
            .into_iter()
            .map(|report| (report.message, report.label.to_string()))
            .collect();
        (answered.load(Ordering::SeqCst), left, reports)
    });
    assert_eq!(answered, 1, "the job got the answer to its call");
    assert!(left.is_clean(), "{left}");
    assert_eq!(
        reports,
        [(CALLBACK_PANICKED.to_owned(), "panicking call".to_owned())]
    );
}

/// A future that hands its waker out on first poll, and is ready once `done` is set.
fn waits_for(
    done: Arc<AtomicBool>,
    wakers: mpsc::Sender<Waker>,
) -> impl std::future::Future<Output = ()> {
    poll_fn(move |cx| {
        if done.load(Ordering::SeqCst) {
            return Poll::Ready(());
        }
        // Receiver gone: the test already failed elsewhere.
        let _ = wakers.send(cx.waker().clone());
        Poll::Pending
    })
}

/// The driver stacks a wake in the window is tried on.
#[derive(Debug, Clone, Copy)]
enum Stack {
    /// Stage 4's `ThreadParker`: the window ends in `thread::park`.
    Parker,
    /// Stage 6's epoll driver: the window ends in `epoll_wait`.
    Epoll,
    /// Stage 7's offload layer over timers over epoll, the window under the layer
    /// (after it read an empty inbox's count).
    Offload,
}

#[test]
fn a_wake_between_the_last_check_and_the_park_is_not_lost() {
    // With the offload layer the task resumes; without it, the loop fails loudly.
    for stack in [Stack::Parker, Stack::Epoll, Stack::Offload] {
        let outcome = watchdog_default(move || {
            let done = Arc::new(AtomicBool::new(false));
            let (wakers_tx, wakers_rx) = mpsc::channel();
            let set = Arc::clone(&done);
            // Inside the window: another thread wakes the task, and is joined.
            let hook = move || {
                let waker: Waker = wakers_rx.recv().expect("the task polled once");
                thread::spawn(move || {
                    set.store(true, Ordering::SeqCst);
                    waker.wake();
                })
                .join()
                .expect("the waking thread ends");
            };
            let main = waits_for(Arc::clone(&done), wakers_tx);
            let driver: Box<dyn Driver> = match stack {
                Stack::Parker => Box::new(BeforePark::new(oneloop_core::ThreadParker, hook)),
                Stack::Epoll => Box::new(BeforePark::new(
                    IoDriver::new().expect("epoll is available"),
                    hook,
                )),
                Stack::Offload => {
                    let timers = TimerDriver::new(IoDriver::new().expect("epoll is available"));
                    Box::new(OffloadDriver::new(BeforePark::new(timers, hook)))
                }
            };
            EventLoop::with_driver(driver).run_until_complete(main)
        });
        let expected = match stack {
            Stack::Offload => Ok(()),
            Stack::Parker | Stack::Epoll => Err(LoopError::ForeignWake),
        };
        assert_eq!(outcome, expected, "{stack:?}");
    }
}

#[test]
fn two_loops_on_two_threads_waking_each_others_tasks_never_miss_a_wake() {
    const ROUNDS: usize = 200;
    /// One side's turn to move: the round it may take, and the waker of the task that
    /// waits for it.
    #[derive(Default)]
    struct Baton {
        round: usize,
        waiting: Option<Waker>,
    }
    let baton = Arc::new(Mutex::new(Baton::default()));
    // Side 0 moves on even rounds, side 1 on odd ones; each move wakes the other.
    let side = |me: usize, baton: Arc<Mutex<Baton>>| {
        move || {
            oneloop_offload::run(async move {
                for round in (me..ROUNDS).step_by(2) {
                    poll_fn(|cx| {
                        let mut baton = baton.lock().expect("no side panics holding it");
                        if baton.round == round {
                            Poll::Ready(())
                        } else {
                            baton.waiting = Some(cx.waker().clone());
                            Poll::Pending
                        }
                    })
                    .await;
                    let waiting = {
                        let mut baton = baton.lock().expect("no side panics holding it");
                        baton.round += 1;
                        baton.waiting.take()
                    };
                    // The other loop's task, woken from this loop's thread.
                    if let Some(waker) = waiting {
                        waker.wake();
                    }
                }
            })
        }
    };
    let outcomes = watchdog_default(move || {
        let other = thread::spawn(side(1, Arc::clone(&baton)));
        let here = side(0, Arc::clone(&baton))();
        let there = other.join().expect("the other loop's thread ends");
        let round = baton.lock().expect("no side panicked").round;
        (here, there, round)
    });
    assert_eq!(outcomes, (Ok(()), Ok(()), ROUNDS));
}

/// A main task that hands a clone of its waker to another thread, which drops it
/// unused, and then waits for ever.
async fn hands_its_waker_to_a_thread_that_drops_it() {
    poll_fn(|cx| {
        let waker = cx.waker().clone();
        thread::spawn(move || drop(waker))
            .join()
            .expect("the dropping thread ends");
        Poll::<()>::Pending
    })
    .await;
}

#[test]
fn a_waker_dropped_unused_on_another_thread_leaves_a_stall_that_is_reported() {
    // The stall check must see the clone gone, on stage 4's loop and on the offload
    // loop (whose own handles must not count as held elsewhere).
    let (core, offload) = watchdog_default(|| {
        let core = EventLoop::new().run_until_complete(hands_its_waker_to_a_thread_that_drops_it());
        let offload = new_event_loop()
            .expect("epoll is available")
            .run_until_complete(hands_its_waker_to_a_thread_that_drops_it());
        (core, offload)
    });
    assert_eq!(core, Err(LoopError::Stalled));
    assert_eq!(offload, Err(LoopError::Stalled));
}

#[test]
fn a_wake_from_another_thread_after_the_loop_closed_does_nothing_and_the_task_is_gone() {
    for offload in [true, false] {
        watchdog_default(move || {
            let task_dropped = oneloop_testkit::DropFlag::new();
            let guard = task_dropped.guard();
            let (wakers_tx, wakers_rx) = mpsc::channel();
            let mut event_loop: EventLoop<Box<dyn Driver>> = if offload {
                EventLoop::with_driver(Box::new(new_driver().expect("epoll is available")))
            } else {
                EventLoop::with_driver(Box::new(IoDriver::new().expect("epoll is available")))
            };
            drop(event_loop.spawn(async move {
                let _guard = guard;
                waits_for(Arc::new(AtomicBool::new(false)), wakers_tx).await;
            }));
            event_loop.run_once().expect("the task's first step");
            let waker: Waker = wakers_rx.recv().expect("the task polled once");
            event_loop.close();
            assert!(task_dropped.dropped(), "closing dropped the task");
            thread::spawn(move || waker.wake())
                .join()
                .expect("a late wake does not panic");
            assert_eq!(event_loop.run_once(), Err(LoopError::Closed));
            drop(event_loop);
            assert_eq!(task_dropped.drops(), 1);
        });
    }
}

#[test]
fn a_call_that_lands_as_run_until_complete_ends_runs_in_the_next_run_or_goes_with_the_close() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().expect("epoll is available");
        let handle = Offload::of(event_loop.core())
            .expect("the offload layer")
            .handle();
        let ran = Arc::new(AtomicUsize::new(0));
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let counted = Arc::clone(&ran);
        let caller = thread::spawn(move || {
            go_rx.recv().expect("main says go");
            handle
                .call_soon_threadsafe(move || {
                    counted.fetch_add(1, Ordering::SeqCst);
                })
                .expect("the loop is open")
        });
        // Main ends in its first step; the call races the stop turn.
        event_loop
            .run_until_complete(async move { go_tx.send(()).expect("the caller waits") })
            .expect("main finishes");
        caller.join().expect("the caller ends");
        // In the inbox now, or already run: the next run's first park takes it.
        event_loop
            .run_until_complete(async {})
            .expect("main finishes");
        assert_eq!(ran.load(Ordering::SeqCst), 1, "the call ran once");
        // A call left at close is dropped with the inbox, never run, never leaked.
        let late = Arc::clone(&ran);
        Offload::of(event_loop.core())
            .expect("the offload layer")
            .handle()
            .call_soon_threadsafe(move || {
                late.fetch_add(1, Ordering::SeqCst);
            })
            .expect("the loop is open");
        drop(event_loop);
        assert_eq!(ran.load(Ordering::SeqCst), 1, "the late call never ran");
        assert_eq!(Arc::strong_count(&ran), 1, "and it was dropped");
    });
}

#[test]
fn a_task_that_dropped_its_to_thread_future_is_not_woken_when_the_job_ends() {
    let polls = watchdog_default(|| {
        let result_dropped = oneloop_testkit::DropFlag::new();
        let flag = result_dropped.clone();
        new_event_loop()
            .expect("epoll is available")
            .run_until_complete(async move {
                // The task's later wait: ready once `go` is set, counting its polls.
                let go = Rc::new(std::cell::Cell::new(false));
                let waiting: Rc<RefCell<Option<Waker>>> = Rc::default();
                let (set, woken) = (Rc::clone(&go), Rc::clone(&waiting));
                let waiter = oneloop_core::spawn(async move {
                    // Polled once, so the job's completion holds this task's waker;
                    // then dropped, as a timeout or a cancellation drops it.
                    let mut job = to_thread(move || flag.guard());
                    poll_fn(|cx| {
                        assert!(std::pin::Pin::new(&mut job).poll(cx).is_pending());
                        Poll::Ready(())
                    })
                    .await;
                    drop(job);
                    let mut polls = 0;
                    poll_fn(|cx| {
                        polls += 1;
                        if set.get() {
                            return Poll::Ready(());
                        }
                        *woken.borrow_mut() = Some(cx.waker().clone());
                        Poll::Pending
                    })
                    .await;
                    polls
                });
                // The job's result is dropped on the loop right after its completion
                // is filled in, in the same handle: once it is gone, any wake the
                // completion gave is queued.
                while !result_dropped.dropped() {
                    oneloop_core::yield_now().await;
                }
                oneloop_core::yield_now().await;
                go.set(true);
                let waker = waiting.borrow_mut().take().expect("the waiter waits");
                waker.wake();
                waiter.await.expect("the waiter finishes")
            })
            .expect("main finishes")
    });
    // The first poll, and the wake that set `go`: no step from the dropped future.
    assert_eq!(polls, 2);
}

/// Runs `on_drop` when dropped.
struct OnDrop(Option<Box<dyn FnOnce()>>);

impl Drop for OnDrop {
    fn drop(&mut self) {
        if let Some(on_drop) = self.0.take() {
            on_drop();
        }
    }
}

#[test]
fn a_wake_from_another_thread_while_the_loop_drops_its_tasks_at_close_is_harmless() {
    for stack in [Stack::Parker, Stack::Epoll, Stack::Offload] {
        let drops = watchdog_default(move || {
            let dropped = oneloop_testkit::DropFlag::new();
            let driver: Box<dyn Driver> = match stack {
                Stack::Parker => Box::new(oneloop_core::ThreadParker),
                Stack::Epoll => Box::new(IoDriver::new().expect("epoll is available")),
                Stack::Offload => Box::new(new_driver().expect("epoll is available")),
            };
            let mut event_loop = EventLoop::with_driver(driver);
            let (wakers_tx, wakers_rx) = mpsc::channel();
            let waker_of_b: Rc<RefCell<Option<Waker>>> = Rc::default();
            let taken = Rc::clone(&waker_of_b);
            // Dropped first at close (slot order): wakes B from another thread.
            let a_guard = dropped.guard();
            drop(event_loop.spawn(async move {
                let _guard = a_guard;
                let _wakes_b = OnDrop(Some(Box::new(move || {
                    let waker = taken.borrow_mut().take().expect("B polled once");
                    thread::spawn(move || waker.wake())
                        .join()
                        .expect("the waking thread ends");
                })));
                std::future::pending::<()>().await;
            }));
            let b_guard = dropped.guard();
            drop(event_loop.spawn(async move {
                let _guard = b_guard;
                waits_for(Arc::new(AtomicBool::new(false)), wakers_tx).await;
            }));
            event_loop.run_once().expect("both tasks' first steps");
            *waker_of_b.borrow_mut() = Some(wakers_rx.recv().expect("B polled once"));
            event_loop.close();
            assert_eq!(event_loop.run_once(), Err(LoopError::Closed));
            drop(event_loop);
            dropped.drops()
        });
        assert_eq!(drops, 2, "{stack:?}: each task dropped once");
    }
}

/// A waker is user code, and the I/O driver calls it inside the timer driver's park.
/// One that arms a timer due at once (a zero delay) there, on a loop with no timer
/// yet, has it moved to the ready queue by that same park: the callback runs in the
/// turn whose poll woke the waker, as it does when the heap was not empty before.
#[test]
fn a_timer_armed_by_a_waker_inside_the_poll_of_an_empty_heap_runs_in_that_turn() {
    struct ArmsATimer {
        task: Waker,
        turns: Arc<Mutex<Vec<(&'static str, u64)>>>,
    }
    impl std::task::Wake for ArmsATimer {
        fn wake(self: Arc<Self>) {
            let turn = || with_current(|core| core.turn()).expect("inside the loop");
            self.turns.lock().expect("no panic").push(("woken", turn()));
            let turns = Arc::clone(&self.turns);
            oneloop_timers::call_later(Duration::ZERO, move || {
                turns.lock().expect("no panic").push(("timer", turn()));
            });
            self.task.wake_by_ref();
        }
    }
    let turns = watchdog_default(|| {
        let mut event_loop = oneloop_io::new_event_loop().expect("epoll");
        let (mut client, server) = crate::loopback_pair();
        let turns: Arc<Mutex<Vec<(&'static str, u64)>>> = Arc::default();
        let seen = Arc::clone(&turns);
        let reader = event_loop.spawn(async move {
            let mut ready = std::pin::pin!(oneloop_io::readable(&server));
            poll_fn(|cx| {
                let waker = Waker::from(Arc::new(ArmsATimer {
                    task: cx.waker().clone(),
                    turns: Arc::clone(&seen),
                }));
                ready
                    .as_mut()
                    .poll(&mut std::task::Context::from_waker(&waker))
            })
            .await
            .expect("readable");
            // One more turn, so that a timer left in the heap would still run.
            oneloop_core::yield_now().await;
        });
        event_loop.run_once().expect("a turn");
        std::io::Write::write_all(&mut client, b"x").expect("send");
        event_loop
            .run_until_complete(reader)
            .expect("the loop ran")
            .expect("the reader finished");
        std::mem::take(&mut *turns.lock().expect("no panic"))
    });
    assert_eq!(turns.len(), 2, "{turns:?}");
    assert_eq!(turns[0].0, "woken");
    assert_eq!(turns[1], ("timer", turns[0].1), "{turns:?}");
}
