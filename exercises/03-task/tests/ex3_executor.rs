//! Exercise 3: the naive executor's run loop — FIFO, and how one task starves it.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::thread;
use std::time::Duration;

use crate::common::yield_once;
use ex03_task::{BlockOnError, Executor, RunReport};
use oneloop_testkit::{PollCounter, SleepProbe, watchdog, watchdog_default};

#[test]
fn ex3_steps_run_in_fifo_order() {
    watchdog_default(|| {
        let executor = Executor::new();
        let log = Rc::new(RefCell::new(Vec::new()));
        for name in ["A", "B", "C"] {
            let log = Rc::clone(&log);
            drop(executor.spawn(async move {
                for i in 0..2 {
                    log.borrow_mut().push(format!("{name}{i}"));
                    yield_once().await;
                }
            }));
        }
        executor.run_until_idle();
        assert_eq!(*log.borrow(), ["A0", "B0", "C0", "A1", "B1", "C1"]);
    });
}

#[test]
fn ex3_run_until_idle_counts_the_polls_and_returns_when_the_queue_is_empty() {
    watchdog_default(|| {
        let executor = Executor::new();
        drop(executor.spawn(async { yield_once().await }));
        drop(executor.spawn(async {}));
        assert_eq!(executor.queued(), 2);
        let report = executor.run_with_budget(100);
        assert_eq!(
            report,
            RunReport {
                polls: 3,
                idle: true
            }
        );
        assert_eq!(executor.live_tasks(), 0);
    });
}

#[test]
fn ex3_a_task_is_polled_only_when_its_id_is_popped() {
    watchdog_default(|| {
        // The queue says who is ready. A loop that polled every live task whenever
        // something was queued would poll the waiting one again and again.
        let executor = Executor::new();
        let waiting = PollCounter::new(std::future::pending::<()>());
        let waits = waiting.count_handle();
        drop(executor.spawn(waiting));
        drop(executor.spawn(async {
            for _ in 0..3 {
                yield_once().await;
            }
        }));
        assert_eq!(executor.run_until_idle(), 5);
        assert_eq!(
            waits.get(),
            1,
            "polled once, on its first step, never woken"
        );
        assert_eq!(executor.live_tasks(), 1);
    });
}

#[test]
fn ex3_a_budget_spent_on_the_last_queued_step_still_reports_idle() {
    watchdog_default(|| {
        // `idle` says whether the queue is empty when the loop returns, even when the
        // budget ran out on that very step.
        let executor = Executor::new();
        drop(executor.spawn(async {}));
        drop(executor.spawn(async {}));
        assert_eq!(
            executor.run_with_budget(2),
            RunReport {
                polls: 2,
                idle: true
            }
        );
    });
}

#[test]
fn ex3_block_on_returns_the_main_output() {
    watchdog_default(|| {
        let executor = Executor::new();
        let parts: Vec<_> = (1..=4)
            .map(|n| executor.spawn(async move { n * n }))
            .collect();
        let sum = executor.block_on(async move {
            let mut sum = 0;
            for part in parts {
                sum += part.await.unwrap();
            }
            sum
        });
        assert_eq!(sum, Ok(30));
    });
}

/// A value set by another thread, awaited here.
#[derive(Default)]
struct Slot {
    value: Option<u32>,
    waker: Option<Waker>,
}

struct Await(Arc<Mutex<Slot>>);

impl Future for Await {
    type Output = u32;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u32> {
        let mut slot = self.0.lock().unwrap();
        match slot.value {
            Some(value) => Poll::Ready(value),
            None => {
                slot.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

#[test]
fn ex3_a_wake_from_another_thread_unparks_block_on() {
    watchdog_default(|| {
        let slot = Arc::new(Mutex::new(Slot::default()));
        let (ready_tx, ready_rx) = mpsc::channel::<()>();
        let remote = Arc::clone(&slot);
        let executor_thread = SleepProbe::current();
        let helper = thread::spawn(move || {
            // Wait until the main task has stored its waker and `block_on` has parked
            // (nothing else puts its thread to sleep), then set and wake: only the
            // unpark can end that park.
            ready_rx.recv().unwrap();
            executor_thread.wait_until_asleep();
            let waker = {
                let mut slot = remote.lock().unwrap();
                slot.value = Some(9);
                slot.waker.take()
            };
            waker.expect("the waker was stored").wake();
        });
        let executor = Executor::new();
        let signal = Rc::new(RefCell::new(Some(ready_tx)));
        let future = Await(Arc::clone(&slot));
        let value = executor.block_on(async move {
            let waiting = future;
            // The first poll of `waiting` stores the waker; tell the helper after it.
            let mut waiting = std::pin::pin!(waiting);
            std::future::poll_fn(|cx| {
                let polled = waiting.as_mut().poll(cx);
                if let Some(tx) = signal.borrow_mut().take() {
                    tx.send(()).unwrap();
                }
                polled
            })
            .await
        });
        helper.join().unwrap();
        assert_eq!(value, Ok(9));
    });
}

#[test]
fn ex3_block_on_with_nothing_that_could_wake_it_is_an_error_not_a_hang() {
    watchdog_default(|| {
        let executor = Executor::new();
        assert_eq!(
            executor.block_on(std::future::pending::<()>()),
            Err(BlockOnError::Stalled)
        );
    });
}

#[test]
fn ex3_a_handle_dropped_while_pending_does_not_keep_block_on_waiting() {
    // A dropped handle lets go of main's waker; if it kept it, block_on would count it
    // as held and park for ever (a shorter watchdog turns that into a quick failure).
    watchdog(Duration::from_secs(3), || {
        let executor = Executor::new();
        let child = executor.spawn(std::future::pending::<()>());
        let result = executor.block_on(async move {
            let mut child = child;
            // Poll the child's handle once (it keeps main's waker), then give up on it.
            std::future::poll_fn(|cx| {
                assert!(Pin::new(&mut child).poll(cx).is_pending());
                Poll::Ready(())
            })
            .await;
            drop(child);
            std::future::pending::<()>().await
        });
        assert_eq!(result, Err(BlockOnError::Stalled));
    });
}

/// Wakes itself and returns `Pending`, for ever.
struct Spinner(Rc<RefCell<usize>>);

impl Future for Spinner {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        *self.0.borrow_mut() += 1;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

#[test]
fn ex3_a_task_that_wakes_itself_for_ever_keeps_the_naive_loop_from_returning() {
    watchdog_default(|| {
        let executor = Executor::new();
        let spins = Rc::new(RefCell::new(0));
        drop(executor.spawn(Spinner(Rc::clone(&spins))));
        let main = executor.spawn(async {
            yield_once().await;
            "main is done"
        });
        // A watchdog could not stop this loop; a poll budget does.
        let report = executor.run_with_budget(10_000);
        assert_eq!(
            report,
            RunReport {
                polls: 10_000,
                idle: false
            }
        );
        // The FIFO queue still shared the thread between the queued tasks: main
        // finished in its second step...
        assert!(main.is_finished());
        // ...but the loop never returned on its own, so whatever waits for it to
        // return (block_on checking main; from stages 5 and 6 on, the timers and the selector)
        // starved. The spinner took all the polls but main's two.
        assert_eq!(*spins.borrow(), 10_000 - 2);
    });
}

#[test]
fn ex3_a_stale_id_in_the_queue_is_skipped() {
    watchdog_default(|| {
        let executor = Executor::new();
        let kept = Rc::new(RefCell::new(None::<Waker>));
        let keep = Rc::clone(&kept);
        drop(executor.spawn(std::future::poll_fn(move |cx| {
            *keep.borrow_mut() = Some(cx.waker().clone());
            Poll::Ready(())
        })));
        assert_eq!(executor.run_until_idle(), 1);
        // The task is gone; its waker is not. Waking it queues a stale id.
        kept.borrow_mut().take().unwrap().wake();
        assert_eq!(executor.queued(), 1);
        assert_eq!(
            executor.run_with_budget(10),
            RunReport {
                polls: 0,
                idle: true
            }
        );
    });
}
