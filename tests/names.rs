//! The asyncio names each stage's `run` offers: a setup hook whose observer sees turn 1,
//! and a debug flag, on the loops of stages 6 and 7 and on the facade's.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use oneloop_core::hooks::with_current;
use oneloop_core::{Observer, yield_now};
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

#[test]
fn stage9_run_makes_main_a_task_that_can_be_cancelled_and_run_with_sees_turn_one() {
    use oneloop_cancel::{Error, current};
    let (name, cancelled, turns_and_debug) = watchdog_default(|| {
        let name =
            oneloop_cancel::run(async { Ok(current().expect("main is a task").name().to_owned()) })
                .expect("the loop runs");
        // main asks for its own cancellation; its next await point delivers it.
        let cancelled = oneloop_cancel::run(async {
            current().expect("main is a task").cancel(Some("enough"));
            oneloop_cancel::sleep(Duration::from_millis(1)).await?;
            Ok(())
        })
        .expect("the loop runs");
        let turns_of_main = turns_seen(|observer| {
            oneloop_cancel::run_with(|l| l.add_observer(observer), async {
                Ok(main_of_a_few_turns().await)
            })
            .expect("the loop runs")
            .expect("main ends well");
        });
        let turns = turns_of_main.first() == Some(&1);
        let debug = oneloop_cancel::run_debug(async { Ok(main_of_a_few_turns().await) })
            .expect("the loop runs")
            .expect("main ends well");
        (name, cancelled, turns && debug)
    });
    assert_eq!(name, Ok("main".to_owned()));
    assert_eq!(cancelled, Err(Error::Cancelled(Some("enough".to_owned()))));
    assert!(
        turns_and_debug,
        "an observer saw turn 1, and run_debug turned debug on"
    );
}
