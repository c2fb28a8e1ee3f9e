//! Fifty sleeps started in one turn share one deadline on the virtual clock, where time
//! stands still while a turn runs, and so they all come due in one turn.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use oneloop_core::{gather, spawn};
use oneloop_testkit::watchdog_default;
use oneloop_timers::{sleep, time, virtual_time_loop};

#[test]
fn fifty_sleeps_started_in_one_turn_share_a_deadline_on_the_virtual_clock() {
    let spans = watchdog_default(|| {
        let mut event_loop = virtual_time_loop();
        let core = Rc::clone(event_loop.core());
        let spans = Rc::new(RefCell::new(Vec::new()));
        let seen = Rc::clone(&spans);
        event_loop
            .run_until_complete(async move {
                let sleepers: Vec<_> = (0..50)
                    .map(|_| {
                        let (core, seen) = (Rc::clone(&core), Rc::clone(&seen));
                        spawn(async move {
                            let (began, first_turn) = (time(), core.turn());
                            sleep(Duration::from_millis(100)).await;
                            seen.borrow_mut()
                                .push((began, first_turn, time(), core.turn()));
                        })
                    })
                    .collect();
                gather(sleepers).await.expect("no sleeper panics");
            })
            .expect("main finishes");
        spans.borrow().clone()
    });
    assert_eq!(spans.len(), 50);
    let first = spans[0];
    assert!(
        spans.iter().all(|span| *span == first),
        "every sleep began in the same turn at the same time and ended in one later turn \
         at the same time: {spans:?}"
    );
    let (began, first_turn, ended, last_turn) = first;
    assert_eq!(ended - began, Duration::from_millis(100));
    assert!(last_turn > first_turn);
}
