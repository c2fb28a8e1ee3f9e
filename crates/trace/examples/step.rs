//! Steps through a scenario one turn at a time:
//! `cargo run -p oneloop-trace --example step -- <scenario> [--all]`.

use std::io;
use std::process::ExitCode;

use oneloop_trace::{Pace, scenario, scenario_names, step};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let pace = if args.iter().any(|arg| arg == "--all") {
        Pace::All
    } else {
        Pace::Enter
    };
    let names: Vec<&String> = args.iter().filter(|arg| *arg != "--all").collect();
    let [name] = names[..] else {
        eprintln!(
            "usage: step <scenario> [--all]\nscenarios: {}",
            scenario_names()
        );
        return ExitCode::from(2);
    };
    let Some(chosen) = scenario(name) else {
        eprintln!("unknown scenario `{name}`; valid: {}", scenario_names());
        return ExitCode::from(2);
    };
    let stdin = io::stdin();
    let stdout = io::stdout();
    match step(chosen, pace, &mut stdin.lock(), &mut stdout.lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
