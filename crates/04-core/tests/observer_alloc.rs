//! What an observer costs in allocations: nothing. A turn whose handles are told to an
//! observer asks for no more memory than the same turn with none set; the observers
//! sit in a shared slice, and telling them clones one `Rc`. And when a handle is timed
//! for the observers: only when one is set as it begins.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::{Duration, Instant};

use oneloop_core::hooks::with_current;
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

/// Notes each handle it is told ran, with the time it was given.
#[derive(Default)]
struct Timings {
    ran: RefCell<Vec<(String, Duration)>>,
}

impl Observer for Timings {
    fn handle_ran(&self, _turn: u64, label: &Label, elapsed: Duration) {
        self.ran.borrow_mut().push((label.to_string(), elapsed));
    }
}

/// A handle that adds the first observer is not timed: no observer was set when it
/// began, so the loop took no time for it. The next handle is timed, and the time the
/// observer gets spans the whole callback.
#[test]
fn a_handle_is_timed_only_if_an_observer_is_set_when_it_begins() {
    let (ran, inside) = watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let timings = Rc::new(Timings::default());
        let t = Rc::clone(&timings);
        event_loop
            .core()
            .call_soon_named("adds the observer", move || {
                with_current(|core| core.add_observer(t as Rc<dyn Observer>)).expect("a loop runs");
            });
        let inside = Rc::new(Cell::new(Duration::ZERO));
        let i = Rc::clone(&inside);
        event_loop.core().call_soon_named("takes time", move || {
            let start = Instant::now();
            // Until the clock moves, so that the time inside is above zero.
            while start.elapsed().is_zero() {}
            i.set(start.elapsed());
        });
        event_loop.run_once().expect("one turn");
        let ran = timings.ran.borrow().clone();
        (ran, inside.get())
    });
    let labels: Vec<&str> = ran.iter().map(|(label, _)| label.as_str()).collect();
    assert_eq!(labels, ["takes time"]);
    assert!(
        ran[0].1 >= inside,
        "the observer was told {:?}, less than the {inside:?} measured inside the callback",
        ran[0].1
    );
}
