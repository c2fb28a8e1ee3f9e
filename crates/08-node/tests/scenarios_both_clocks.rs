//! What the `scenarios` example prints, asserted: every scenario runs on both clocks.
//! Where Node's order is fixed, the virtual and the real clock print the same lines;
//! where it is a race, the virtual clock gives the first listed order and the real clock
//! one of the listed orders.

use oneloop_node::hooks::{NodeOrder, Scenario, run_scenario, scenarios};
use oneloop_node::{Clock, RealClock, VirtualClock};
use oneloop_testkit::watchdog_default;

fn on<C: Clock + Default>(scenario: &'static Scenario) -> Vec<String> {
    watchdog_default(move || run_scenario(scenario, C::default()))
        .unwrap_or_else(|e| panic!("{} failed: {e}", scenario.name))
}

#[test]
fn every_scenario_runs_on_both_clocks_and_they_agree_where_node_is_fixed() {
    assert!(!scenarios().is_empty());
    for scenario in scenarios() {
        let (on_virtual, on_real) = (on::<VirtualClock>(scenario), on::<RealClock>(scenario));
        assert!(!on_virtual.is_empty(), "{} printed nothing", scenario.name);
        match scenario.node {
            NodeOrder::Fixed => assert_eq!(on_virtual, on_real, "{}", scenario.name),
            NodeOrder::Either(orders) => {
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
        }
    }
}
