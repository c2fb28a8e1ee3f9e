//! The asyncio names each stage's `run` offers: a setup hook whose observer sees turn 1,
//! and a debug flag, on the loops of stages 6 and 7 and on the facade's.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use oneloop_core::{Observer, with_current, yield_now};
use oneloop_testkit::watchdog_default;
use oneloop_timers::prelude::TimerMethods;
use oneloop_timers::sleep;

/// An observer that writes down the turns it is told of.
#[derive(Default)]
struct Turns(RefCell<Vec<u64>>);

impl Observer for Turns {
    fn turn_started(&self, turn: u64) {
        self.0.borrow_mut().push(turn);
    }
}

/// A main that takes a few turns and waits on a timer once.
async fn main_of_a_few_turns() -> bool {
    yield_now().await;
    sleep(Duration::from_millis(1)).await;
    with_current(|core| core.get_debug()).expect("in the loop")
}

/// Runs `run_with` (given as a closure that takes the observer to add) and returns the
/// turns the observer saw.
fn turns_seen(run_with: impl FnOnce(Rc<Turns>)) -> Vec<u64> {
    let turns = Rc::new(Turns::default());
    run_with(Rc::clone(&turns));
    turns.0.take()
}

#[test]
fn stage6_run_with_lets_an_observer_see_turn_one_and_run_debug_turns_debug_on() {
    let (turns, debug) = watchdog_default(|| {
        let turns = turns_seen(|observer| {
            oneloop_io::run_with(|l| l.add_observer(observer), main_of_a_few_turns())
                .expect("main finishes");
        });
        let debug = oneloop_io::run_debug(main_of_a_few_turns()).expect("main finishes");
        (turns, debug)
    });
    assert_eq!(turns.first(), Some(&1), "turns seen: {turns:?}");
    assert!(debug);
}

#[test]
fn stage7_run_with_lets_an_observer_see_turn_one_and_run_debug_turns_debug_on() {
    let (turns, debug) = watchdog_default(|| {
        let turns = turns_seen(|observer| {
            oneloop_offload::run_with(|l| l.add_observer(observer), main_of_a_few_turns())
                .expect("main finishes");
        });
        let debug = oneloop_offload::run_debug(main_of_a_few_turns()).expect("main finishes");
        (turns, debug)
    });
    assert_eq!(turns.first(), Some(&1), "turns seen: {turns:?}");
    assert!(debug);
}

#[test]
fn the_facades_run_with_and_run_debug_work_with_use_oneloop_star() {
    let (turns, debug, slept) = watchdog_default(|| {
        use oneloop::*;
        let turns = turns_seen(|observer| {
            run_with(|l| l.add_observer(observer), main_of_a_few_turns()).expect("main finishes");
        });
        let debug = run_debug(main_of_a_few_turns()).expect("main finishes");
        // The timer methods come with the glob: `time` on the running loop's core.
        let slept = run(async {
            let core = with_current(Rc::clone).expect("in the loop");
            let start = core.time();
            sleep(Duration::from_millis(1)).await;
            core.time() > start
        })
        .expect("main finishes");
        (turns, debug, slept)
    });
    assert_eq!(turns.first(), Some(&1), "turns seen: {turns:?}");
    assert!(debug && slept);
}
