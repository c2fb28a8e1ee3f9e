//! What the task tree costs while it is off: nothing per turn. A busy loop whose
//! tasks join each other and whose leaf notes what it waits on, over many turns,
//! makes no allocation, reads no clock and calls no `epoll_wait`; each count is
//! also taken with the tree on, to show that the same counters do see its cost.

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use oneloop_cancel::{Error, cancellable, spawn_named};
use oneloop_core::hooks::note_wait;
use oneloop_core::{EventLoop, Observer, ParkReport};
use oneloop_io::IoDriver;
use oneloop_shared::{enable_introspection_in, track};
use oneloop_testkit::{CountingAllocator, watchdog_default};
use oneloop_timers::{Clock, CountingClock, RealClock, TimerDriver};

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator::new();

const WARM_UP: usize = 100;
const TURNS: usize = 1_000;

/// Adds up the `epoll_wait` calls the parks made.
#[derive(Default)]
struct Polls(Cell<usize>);

impl Observer for Polls {
    fn turn_ended(&self, _turn: u64, park: &ParkReport, _handles: usize) {
        self.0.set(self.0.get() + park.polls);
    }
}

/// A leaf that says what it waits on at every poll, then asks to be polled again:
/// a busy stand-in for a sleep or a lock.
struct NotingLeaf {
    described: Rc<Cell<usize>>,
}

impl Future for NotingLeaf {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        note_wait(|| {
            self.described.set(self.described.get() + 1);
            "a busy leaf".to_owned()
        });
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// What the busy turns cost.
#[derive(Debug, PartialEq, Eq)]
struct Cost {
    allocations: usize,
    clock_reads: usize,
    polls: usize,
    notes_described: usize,
}

#[derive(Clone, Copy)]
enum Tree {
    Off,
    Tracked,
    Socket,
}

/// A loop of the whole stack on a counting clock, with a task that joins another
/// whose leaf notes at every poll; counts `TURNS` busy turns after `WARM_UP`.
fn busy_turns(tree: Tree) -> Cost {
    let clock = Rc::new(CountingClock::new(RealClock::new()));
    let driver = TimerDriver::with_clock(
        IoDriver::new().expect("epoll"),
        Rc::clone(&clock) as Rc<dyn Clock>,
    );
    let mut event_loop = EventLoop::with_driver(driver);
    let polls = Rc::new(Polls::default());
    event_loop.add_observer(Rc::clone(&polls) as Rc<dyn Observer>);
    // Only the socket's run makes the directory, and only it removes it: the other
    // runs go on at the same time on other test threads, and one that removed the
    // directory as it ended pulled it away from under the socket's run as that made it.
    let dir = std::env::temp_dir().join(format!("oneloop-cost-{}", std::process::id()));
    let introspection = match tree {
        Tree::Off => None,
        Tree::Tracked => {
            track(&event_loop);
            None
        }
        Tree::Socket => Some(enable_introspection_in(&event_loop, &dir).expect("enabled")),
    };
    let described = Rc::new(Cell::new(0));
    let leaf = NotingLeaf {
        described: Rc::clone(&described),
    };
    let (driven, _main) = oneloop_cancel::task_future("main", async move {
        let busy = spawn_named("busy", async move {
            cancellable(leaf).await?;
            Ok::<(), Error>(())
        });
        busy.join().await
    });
    drop(event_loop.spawn(driven));
    for _ in 0..WARM_UP {
        event_loop.run_once().expect("a turn");
    }
    let reads_before = clock.reads();
    let polls_before = polls.0.get();
    let described_before = described.get();
    let ((), allocations) = ALLOC.count(|| {
        for _ in 0..TURNS {
            event_loop.run_once().expect("a turn");
        }
    });
    let cost = Cost {
        allocations,
        clock_reads: clock.reads() - reads_before,
        polls: polls.0.get() - polls_before,
        notes_described: described.get() - described_before,
    };
    if let Some(introspection) = introspection {
        drop(introspection);
        let _ = std::fs::remove_dir_all(&dir);
    }
    cost
}

#[test]
fn while_off_the_tree_costs_no_allocation_clock_read_or_syscall_per_turn() {
    watchdog_default(|| {
        assert_eq!(
            busy_turns(Tree::Off),
            Cost {
                allocations: 0,
                clock_reads: 0,
                polls: 0,
                notes_described: 0,
            }
        );
    });
}

#[test]
fn tracked_the_leaf_notes_are_written_and_allocate() {
    watchdog_default(|| {
        let cost = busy_turns(Tree::Tracked);
        assert_eq!(cost.notes_described, TURNS, "one note per poll of the leaf");
        assert!(cost.allocations >= TURNS, "each note is a string: {cost:?}");
        assert_eq!(cost.polls, 0, "no socket, no epoll_wait: {cost:?}");
    });
}

#[test]
fn with_the_socket_on_every_busy_turn_asks_epoll() {
    watchdog_default(|| {
        let cost = busy_turns(Tree::Socket);
        // The listener is a registration: a turn can no longer skip `epoll_wait`.
        assert_eq!(cost.polls, TURNS, "{cost:?}");
        // The socket turns the notes on, and each note allocates its text.
        assert_eq!(cost.notes_described, TURNS, "one note per poll of the leaf");
        assert!(cost.allocations >= TURNS, "each note is a string: {cost:?}");
    });
}
