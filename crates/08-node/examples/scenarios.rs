//! Runs every scenario on the virtual clock and on the real clock, and prints what
//! each printed. (`tests/truth_node.rs` compares them with real Node.)
use oneloop_node::hooks::{run_scenario, scenarios};
use oneloop_node::{RealClock, VirtualClock};

fn main() {
    for scenario in scenarios() {
        let virtual_run = run_scenario(scenario, VirtualClock::new());
        let real_run = run_scenario(scenario, RealClock::new());
        println!("{} — {}", scenario.name, scenario.about);
        match (virtual_run, real_run) {
            (Ok(v), Ok(r)) => {
                println!("  virtual clock: {}", v.join(" | "));
                println!("  real clock:    {}", r.join(" | "));
            }
            (Err(e), _) | (_, Err(e)) => println!("  failed: {e}"),
        }
    }
}
