//! What the `scenarios` example prints, asserted: every scenario runs on both clocks.
//! Where Node's order is fixed, the virtual and the real clock print the same lines;
//! where it is a race, the virtual clock gives the first listed order and the real clock
//! one of the listed orders; where it keeps a margin of time, the virtual clock gives
//! the paced order and one of a few real runs does too.

use std::sync::atomic::{AtomicUsize, Ordering};

use oneloop_node::hooks::{NodeOrder, Scenario, kept_pace, run_scenario, scenarios};
use oneloop_node::{Clock, RealClock, VirtualClock};
use oneloop_testkit::watchdog_default;

fn on<C: Clock + Default>(scenario: &'static Scenario) -> Vec<String> {
    watchdog_default(move || run_scenario(scenario, C::default()))
        .unwrap_or_else(|e| panic!("{} failed: {e}", scenario.name))
}

/// Runs `scenario` on the virtual clock and on the real one (a few times if paced), and
/// checks what each printed.
fn check(scenario: &'static Scenario) {
    let on_virtual = on::<VirtualClock>(scenario);
    assert!(!on_virtual.is_empty(), "{} printed nothing", scenario.name);
    match scenario.node {
        NodeOrder::Fixed => {
            let on_real = on::<RealClock>(scenario);
            assert_eq!(on_virtual, on_real, "{}", scenario.name);
        }
        NodeOrder::Either(orders) => {
            let on_real = on::<RealClock>(scenario);
            assert_eq!(
                on_virtual, orders[0],
                "{}: the virtual clock",
                scenario.name
            );
            assert!(
                orders.iter().any(|order| on_real == *order),
                "{}: the real clock printed {on_real:?}",
                scenario.name
            );
        }
        NodeOrder::Paced { order, stalled } => {
            assert_eq!(on_virtual, order, "{}: the virtual clock", scenario.name);
            kept_pace(
                &format!("{}: the real clock", scenario.name),
                order,
                stalled,
                || on::<RealClock>(scenario),
            );
        }
    }
}

/// How many scenarios whose order is fixed or a race run at once. Most of a scenario's
/// time on the real clock is spent parked until its timers are due, so two at a time
/// take about half as long; two is also what the suites' two test threads already run
/// side by side. Each scenario has a loop of its own.
const AT_ONCE: usize = 2;

#[test]
fn every_scenario_runs_on_both_clocks_and_they_agree_where_node_is_fixed() {
    assert!(!scenarios().is_empty());
    let (paced, others): (Vec<&'static Scenario>, Vec<&'static Scenario>) = scenarios()
        .iter()
        .partition(|scenario| matches!(scenario.node, NodeOrder::Paced { .. }));
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..AT_ONCE {
            scope.spawn(|| {
                while let Some(scenario) = others.get(next.fetch_add(1, Ordering::Relaxed)) {
                    check(scenario);
                }
            });
        }
    });
    // A paced order rests on a margin of time: these run alone, one after the other.
    for scenario in paced {
        check(scenario);
    }
}
