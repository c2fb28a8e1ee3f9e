//! Exercise 2: `block_on`, its thread-parking waker and its park loop (chapter 2.3).

use std::future::{Future, poll_fn};
use std::sync::mpsc;
use std::task::{Poll, Waker};
use std::thread;

use crate::common::{gate, yield_times};
use ex02_future::{OneShot, block_on};
use oneloop_testkit::{PollCount, PollCounter, SleepProbe, watchdog_default};

#[test]
fn ex2_a_ready_future_is_polled_once() {
    watchdog_default(|| {
        let fut = PollCounter::new(async { 40 + 2 });
        let polls = fut.count_handle();
        assert_eq!(block_on(fut), 42);
        assert_eq!(polls.get(), 1);
    });
}

#[test]
fn ex2_a_self_wake_means_one_more_poll() {
    watchdog_default(|| {
        // Pending three times, waking itself before each: four polls, no more.
        let fut = PollCounter::new(yield_times(3));
        let polls = fut.count_handle();
        block_on(fut);
        assert_eq!(polls.get(), 4);
    });
}

/// A future that, on its first poll, sends its waker to `tx` and then waits on `inner`.
fn announce_first_poll<F: Future + Unpin>(
    mut inner: F,
    tx: mpsc::Sender<Waker>,
) -> impl Future<Output = F::Output> {
    let mut announced = false;
    poll_fn(move |cx| {
        let poll = std::pin::Pin::new(&mut inner).poll(cx);
        if poll.is_pending() && !announced {
            announced = true;
            tx.send(cx.waker().clone())
                .expect("the helper thread is waiting");
        }
        poll
    })
}

/// A gate that a helper thread opens with `value` once the gate's first poll has
/// returned `Pending` and the thread that polled it sleeps, after running
/// `before_opening`. Returns the gate (counting its polls), its poll count, and the
/// helper thread to join. Call it on the thread that then runs `block_on`.
fn opened_from_another_thread<T: Send + 'static>(
    value: T,
    before_opening: impl FnOnce() + Send + 'static,
) -> (
    PollCounter<impl Future<Output = T>>,
    PollCount,
    thread::JoinHandle<()>,
) {
    let (opener, gate) = gate::<T>();
    let (tx, rx) = mpsc::channel();
    let fut = PollCounter::new(announce_first_poll(gate, tx));
    let polls = fut.count_handle();
    let watched = polls.clone();
    let blocked = SleepProbe::current();
    let helper = thread::spawn(move || {
        rx.recv().expect("the first poll announces itself");
        before_opening();
        open_once_asleep(&blocked, &watched, 1);
        opener.open(value);
    });
    (fut, polls, helper)
}

/// Returns once the thread of `blocked` sleeps (block_on has parked and stays parked),
/// so that what happens next is the wake, and nothing before it. A wrong block_on that
/// polls again without a wake never sleeps; it is let go as soon as it has polled two
/// times more than the `expected` polls before the wake, and its test then fails on the
/// count instead of hanging.
fn open_once_asleep(blocked: &SleepProbe, watched: &PollCount, expected: usize) {
    while !blocked.is_asleep() && watched.get() < expected + 2 {
        thread::yield_now();
    }
}

#[test]
fn ex2_a_value_set_on_another_thread_wakes_block_on() {
    watchdog_default(|| {
        // The helper opens the gate only once block_on has polled and gone to sleep.
        let (fut, polls, helper) = opened_from_another_thread("from another thread", || {});
        assert_eq!(block_on(fut), "from another thread");
        assert_eq!(polls.get(), 2, "one poll before the wake, one after");
        helper.join().unwrap();
    });
}

#[test]
fn ex2_a_stray_unpark_is_not_a_wake() {
    watchdog_default(|| {
        // An unpark left over from someone else: the next `park` returns at once
        // although nobody woke our future. block_on must park again, not poll again.
        thread::current().unpark();
        let blocked = thread::current();
        // More stray unparks, from another thread, before the one real wake.
        let (fut, polls, helper) = opened_from_another_thread(1, move || {
            for _ in 0..3 {
                blocked.unpark();
            }
        });
        assert_eq!(block_on(fut), 1);
        assert_eq!(
            polls.get(),
            2,
            "one wake, so one poll after the first: unparks alone must not cause polls"
        );
        helper.join().unwrap();
    });
}

#[test]
fn ex2_block_on_awaits_a_oneshot_set_on_another_thread() {
    // Uses exercise 1's waiter as well: the stage's two halves working together.
    watchdog_default(|| {
        let fut: OneShot<String, String> = OneShot::new();
        let producer = fut.clone();
        let (tx, rx) = mpsc::channel::<Waker>();
        let helper = thread::spawn(move || {
            rx.recv().expect("the first poll announces itself");
            producer.set_result("ready".to_string()).unwrap();
        });
        let got = block_on(announce_first_poll(fut.wait(), tx));
        assert_eq!(got, Ok("ready".to_string()));
        helper.join().unwrap();
    });
}

#[test]
fn ex2_block_on_can_run_again_on_the_same_thread() {
    watchdog_default(|| {
        // Each call makes its own waker and its own flag: a waker kept from the first
        // run, woken late, must not count as a wake of the second run's future.
        let mut kept = None;
        block_on(poll_fn(|cx| {
            kept = Some(cx.waker().clone());
            Poll::Ready(())
        }));
        kept.expect("the waker was kept").wake();

        let (fut, polls, helper) = opened_from_another_thread(2, || {});
        assert_eq!(block_on(fut), 2);
        assert_eq!(
            polls.get(),
            2,
            "the stale wake belonged to the first run: no extra poll in the second"
        );
        helper.join().unwrap();
    });
}

#[test]
fn ex2_each_wake_is_used_once() {
    watchdog_default(|| {
        // A self-wake, then a wait for another thread: the flag the first wake set must
        // be taken (set back to false) by the poll it caused. A flag that stays set
        // makes block_on poll again and again without any wake.
        let (opener, gate) = gate::<u8>();
        let (tx, rx) = mpsc::channel();
        let fut = PollCounter::new(Box::pin(async move {
            yield_times(1).await;
            announce_first_poll(gate, tx).await
        }));
        let polls = fut.count_handle();
        let watched = polls.clone();
        let blocked = SleepProbe::current();
        let helper = thread::spawn(move || {
            rx.recv().expect("the gate's first poll announces itself");
            open_once_asleep(&blocked, &watched, 2);
            opener.open(5);
        });
        assert_eq!(block_on(fut), 5);
        assert_eq!(
            polls.get(),
            3,
            "the self-wake's poll, the gate's first poll, then one poll after the wake"
        );
        helper.join().unwrap();
    });
}
