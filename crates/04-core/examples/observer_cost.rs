//! Measures what an observer costs per handle: the same run without one, then with one.
//!
//! `cargo run --release -p oneloop-core --example observer_cost`

use std::cell::Cell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use oneloop_core::{EventLoop, Label, Observer, yield_now};

const STEPS: u64 = 1_000_000;

/// Adds up handle durations: about the least an observer can do.
#[derive(Default)]
struct Total {
    handles: Cell<u64>,
    busy: Cell<Duration>,
}

impl Observer for Total {
    fn handle_ran(&self, _turn: u64, _label: &Label, elapsed: Duration) {
        self.handles.set(self.handles.get() + 1);
        self.busy.set(self.busy.get() + elapsed);
    }
}

/// Runs one task that yields `STEPS` times; returns ns per handle.
fn measure(observer: Option<Rc<Total>>) -> f64 {
    let mut event_loop = EventLoop::new();
    if let Some(observer) = observer {
        event_loop.add_observer(observer);
    }
    let started = Instant::now();
    event_loop
        .run_until_complete(async {
            for _ in 0..STEPS {
                yield_now().await;
            }
        })
        .expect("main finishes");
    let handles = event_loop.turn(); // one handle (main's step) per turn
    started.elapsed().as_nanos() as f64 / handles as f64
}

fn main() {
    let bare = measure(None);
    let total = Rc::new(Total::default());
    let observed = measure(Some(Rc::clone(&total)));
    println!("without an observer: {bare:.1} ns per handle");
    println!(
        "with an observer:    {observed:.1} ns per handle ({} handles seen, {:?} inside them)",
        total.handles.get(),
        total.busy.get()
    );
}
