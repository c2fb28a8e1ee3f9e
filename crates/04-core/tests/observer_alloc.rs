//! What an observer costs in allocations: nothing. A turn whose handles are told to an
//! observer asks for no more memory than the same turn with none set; the observers
//! sit in a shared slice, and telling them clones one `Rc`.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use oneloop_core::{EventLoop, Label, Observer, yield_now};
use oneloop_testkit::watchdog_default;

// The counting allocator is the test binary's, declared once in `suite.rs`.
use crate::ALLOC;

/// Counts what it is told, without allocating.
#[derive(Default)]
struct Tally {
    handles: Cell<u64>,
}

impl Observer for Tally {
    fn handle_ran(&self, _turn: u64, _label: &Label, _elapsed: Duration) {
        self.handles.set(self.handles.get() + 1);
    }
}

/// Allocations made while a main that yields `yields` times runs to the end, on a loop
/// that was warmed up first, with or without an observer; and the handles it was told.
fn allocations(yields: u64, observed: bool) -> (usize, u64) {
    let mut event_loop = EventLoop::new();
    let tally = Rc::new(Tally::default());
    if observed {
        event_loop.add_observer(Rc::clone(&tally) as Rc<dyn Observer>);
    }
    // The first run grows the queue and the slab; the counted run reuses them.
    let warm = async move {
        for _ in 0..yields {
            yield_now().await;
        }
    };
    event_loop.run_until_complete(warm).expect("main finishes");
    let main = async move {
        for _ in 0..yields {
            yield_now().await;
        }
    };
    tally.handles.set(0);
    let (ran, count) = ALLOC.count(|| event_loop.run_until_complete(main));
    ran.expect("main finishes");
    (count, tally.handles.get())
}

#[test]
fn an_observer_adds_no_allocation_per_handle() {
    let counts = watchdog_default(|| {
        [(100, false), (100, true), (1000, false), (1000, true)]
            .map(|(yields, observed)| allocations(yields, observed))
    });
    let [
        (few, _),
        (few_observed, told_few),
        (many, _),
        (many_observed, told_many),
    ] = counts;
    assert_eq!(few_observed, few, "with an observer, 100 yields");
    assert_eq!(many_observed, many, "with an observer, 1000 yields");
    // The observer really was told of every step of the counted run.
    assert!(
        told_few > 100 && told_many > 1000,
        "told of {told_few} and {told_many} handles"
    );
}
