//! What a turn costs: counts of the work each layer does per turn, where nothing
//! needs it done. Each test counts one thing a layer can skip (a clock read, an
//! `epoll_wait`, an allocation) over many turns of a busy loop, so that a regression
//! shows as a count, never as a timing.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use oneloop_core::{EventLoop, Observer, ParkReport, ThreadParker, spawn, yield_now};
use oneloop_io::TcpListener;
use oneloop_testkit::{CountingAllocator, watchdog_default};
use oneloop_timers::{CountingClock, RealClock, TimerDriver};

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator::new();

const WARM_UP: usize = 100;
const TURNS: usize = 1_000;

/// Two tasks that yield to each other for `turns` turns and more.
fn ping_pong<D: oneloop_core::Driver>(event_loop: &mut EventLoop<D>, turns: usize) {
    for _ in 0..2 {
        drop(event_loop.spawn(async move {
            for _ in 0..turns + 10 {
                yield_now().await;
            }
        }));
    }
}

/// A loop on the real clock, counting its reads, and the count.
fn counted_clock_loop() -> (EventLoop<TimerDriver>, Rc<CountingClock>) {
    let clock = Rc::new(CountingClock::new(RealClock::new()));
    let event_loop = EventLoop::with_driver(TimerDriver::with_clock(
        ThreadParker,
        Rc::clone(&clock) as Rc<dyn oneloop_timers::Clock>,
    ));
    (event_loop, clock)
}

/// Starts `ping_pong`, runs `WARM_UP` turns, then `TURNS` more, and returns how much
/// `count` grew over those last `TURNS`.
fn count_over_busy_turns<D: oneloop_core::Driver>(
    event_loop: &mut EventLoop<D>,
    count: impl Fn() -> usize,
) -> usize {
    ping_pong(event_loop, WARM_UP + TURNS);
    for _ in 0..WARM_UP {
        event_loop.run_once().unwrap();
    }
    let before = count();
    for _ in 0..TURNS {
        event_loop.run_once().unwrap();
    }
    count() - before
}

#[test]
fn a_busy_turn_with_no_timer_reads_no_clock() {
    watchdog_default(|| {
        let (mut event_loop, clock) = counted_clock_loop();
        let counted = count_over_busy_turns(&mut event_loop, || clock.reads());
        assert_eq!(
            counted, 0,
            "{TURNS} turns with tasks ready and an empty heap read the clock"
        );
    });
}

#[test]
fn a_busy_turn_with_a_timer_reads_the_clock_once() {
    watchdog_default(|| {
        let (mut event_loop, clock) = counted_clock_loop();
        // A far timer: each turn must still look whether it is due.
        let timer = oneloop_timers::LoopTimers::timers(&**event_loop.core())
            .call_later(Duration::from_secs(3600), || {});
        let counted = count_over_busy_turns(&mut event_loop, || clock.reads());
        assert_eq!(
            counted, TURNS,
            "a turn that does not sleep reads the clock once, to find the due timers"
        );
        drop(timer);
    });
}

/// Sums, over the turns it sees, the `epoll_wait` calls the driver reports, and those
/// of them that could sleep (a timeout other than zero).
#[derive(Default)]
struct PollCounter {
    polls: Cell<usize>,
    sleeping: Cell<usize>,
}

impl Observer for PollCounter {
    fn turn_ended(&self, _turn: u64, park: &ParkReport, _handles: usize) {
        self.polls.set(self.polls.get() + park.polls);
        if park.polls > 0 && park.timeout != Some(Duration::ZERO) {
            self.sleeping.set(self.sleeping.get() + 1);
        }
    }
}

/// The full stack (offload over timers over epoll), with a poll counter on it.
fn counted_full_loop() -> (oneloop_offload::OffloadLoop, Rc<PollCounter>) {
    let event_loop = oneloop_offload::new_event_loop().expect("epoll is available");
    let counter = Rc::new(PollCounter::default());
    event_loop
        .core()
        .add_observer(Rc::clone(&counter) as Rc<dyn Observer>);
    (event_loop, counter)
}

#[test]
fn a_busy_turn_with_no_fd_registered_makes_no_epoll_wait() {
    watchdog_default(|| {
        let (mut event_loop, counter) = counted_full_loop();
        let counted = count_over_busy_turns(&mut event_loop, || counter.polls.get());
        assert_eq!(
            counted, 0,
            "{TURNS} busy turns with no fd registered called epoll_wait"
        );
    });
}

#[test]
fn a_busy_turn_with_an_fd_registered_still_polls_once() {
    watchdog_default(|| {
        let (mut event_loop, counter) = counted_full_loop();
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        // Waits for a connection that never comes: its fd stays registered.
        drop(event_loop.spawn(async move { listener.accept().await.map(|_| ()) }));
        let counted = count_over_busy_turns(&mut event_loop, || counter.polls.get());
        assert_eq!(
            counted, TURNS,
            "with an fd registered, every turn looks for I/O"
        );
    });
}

#[test]
fn an_idle_loop_makes_one_epoll_wait_per_sleep() {
    watchdog_default(|| {
        let (mut event_loop, counter) = counted_full_loop();
        const SLEEPS: usize = 5;
        event_loop
            .run_until_complete(async {
                for _ in 0..SLEEPS {
                    oneloop_timers::sleep(Duration::from_millis(2)).await;
                }
            })
            .unwrap();
        assert_eq!(
            counter.sleeping.get(),
            SLEEPS,
            "one epoll_wait that sleeps per sleep"
        );
        assert_eq!(
            counter.polls.get(),
            SLEEPS,
            "and no zero-timeout epoll_wait with no fd registered"
        );
    });
}

#[test]
fn work_from_another_thread_still_wakes_a_loop_that_skipped_its_polls() {
    watchdog_default(|| {
        let (mut event_loop, _counter) = counted_full_loop();
        let total = event_loop
            .run_until_complete(async {
                let mut total = 0;
                for i in 0..200_u64 {
                    // Busy turns first (their polls are skipped), then a wait that only
                    // another thread can end.
                    let busy = spawn(async {
                        for _ in 0..3 {
                            yield_now().await;
                        }
                    });
                    total += oneloop_offload::to_thread(move || i)
                        .await
                        .expect("no panic");
                    busy.await.expect("no panic");
                }
                total
            })
            .unwrap();
        assert_eq!(total, (0..200).sum::<u64>());
    });
}

#[test]
fn a_one_shot_with_one_waiter_allocates_nothing_to_register_it() {
    use std::future::Future;
    use std::pin::pin;
    use std::sync::{Arc, Mutex};
    use std::task::{Context, Wake, Waker};

    /// A waker that writes its name into a shared log when it is woken.
    struct Named(&'static str, Arc<Mutex<Vec<&'static str>>>);
    impl Wake for Named {
        fn wake(self: Arc<Self>) {
            self.1.lock().unwrap().push(self.0);
        }
    }
    let woken = Arc::new(Mutex::new(Vec::new()));
    let first_waker = Waker::from(Arc::new(Named("first", Arc::clone(&woken))));
    let second_waker = Waker::from(Arc::new(Named("second", Arc::clone(&woken))));

    let one_shot = oneloop_future::OneShot::<u8, ()>::new();
    let mut first = pin!(one_shot.wait());
    let mut cx = Context::from_waker(&first_waker);
    let (pending, allocations) = ALLOC.count(|| first.as_mut().poll(&mut cx).is_pending());
    assert!(pending);
    assert_eq!(allocations, 0, "registering the only waiter allocated");
    assert_eq!(one_shot.registered_wakers(), 1);

    // A second waiter goes beside the first, and both are woken in the order made.
    let mut second = pin!(one_shot.wait());
    assert!(
        second
            .as_mut()
            .poll(&mut Context::from_waker(&second_waker))
            .is_pending()
    );
    assert_eq!(one_shot.registered_wakers(), 2);
    one_shot.set_result(7).unwrap();
    assert_eq!(one_shot.registered_wakers(), 0);
    assert_eq!(*woken.lock().unwrap(), ["first", "second"]);
    assert!(matches!(
        first.as_mut().poll(&mut cx),
        std::task::Poll::Ready(Ok(7))
    ));
    assert!(matches!(
        second.as_mut().poll(&mut cx),
        std::task::Poll::Ready(Ok(7))
    ));
}

#[test]
fn a_spawned_task_is_one_allocation_whether_or_not_its_slot_was_used_before() {
    watchdog_default(|| {
        const TASKS: usize = 100;
        let mut event_loop = EventLoop::new();
        // One at a time: each task takes the slot the one before it left.
        let one_by_one = |tasks: usize| async move {
            for i in 0..tasks {
                assert_eq!(spawn(async move { i }).await.expect("no panic"), i);
            }
        };
        // All at once: each task in a slot of its own.
        let all_at_once = |tasks: usize| async move {
            let handles: Vec<_> = (0..tasks).map(|i| spawn(async move { i })).collect();
            for (i, handle) in handles.into_iter().enumerate() {
                assert_eq!(handle.await.expect("no panic"), i);
            }
        };
        // Warm up: the slab, the ready queue and the registry have their room.
        event_loop.run_until_complete(all_at_once(TASKS)).unwrap();
        let ((), one_by_one) =
            ALLOC.count(|| event_loop.run_until_complete(one_by_one(TASKS)).unwrap());
        let ((), all_at_once) =
            ALLOC.count(|| event_loop.run_until_complete(all_at_once(TASKS)).unwrap());
        // Per task: its task cell (header, join cell and future in one allocation,
        // its wakers pointing at it). Main's own allocations are a fixed few, and
        // all at once adds its vector of handles.
        for (how, allocations) in [("one by one", one_by_one), ("all at once", all_at_once)] {
            assert_eq!(
                allocations / TASKS,
                1,
                "{allocations} allocations for {TASKS} tasks spawned and joined {how}"
            );
        }
    });
}
