//! oneloop's side-by-side benchmark.
//!
//! `cargo run --release` (in `bench/`) runs every row of [`workloads::WORKLOADS`] on
//! every contender, interleaved: round after round, each row runs once per contender,
//! in an order that rotates with the round, each run in a fresh process. It then prints
//! a Markdown table of medians with their min–max, the ratio of oneloop's median to the
//! best peer's (above 1 is worse), and the load average before and after.
//!
//! ```text
//! cargo run --release                         # every row, 5 rounds
//! cargo run --release -- --rounds 9 yield     # one row, 9 rounds
//! cargo run --release -- one yield tokio      # one run: prints its RESULT line
//! cargo run --release -- --with-scripts       # and asyncio, uvloop, Node beside them
//! ```
//!
//! The figures are samples of one machine at one moment: read them with the load
//! average printed beside them.

mod measure;
mod rt_oneloop;
mod rt_smol;
mod rt_tokio;
mod runner;
mod workloads;

#[global_allocator]
static ALLOC: measure::CountingAllocator = measure::CountingAllocator;

/// Runs workload `id` on `runtime`, once, in this process.
fn run_one(id: &str, runtime: &str) -> Option<measure::Sample> {
    match runtime {
        "oneloop" => rt_oneloop::run(id),
        "tokio" => rt_tokio::run(id),
        "smol" => rt_smol::run(id),
        _ => None,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("one") {
        let [_, id, runtime] = args.as_slice() else {
            eprintln!("usage: bench one WORKLOAD RUNTIME");
            std::process::exit(2);
        };
        match run_one(id, runtime) {
            Some(sample) => println!("{}", measure::result_line(id, runtime, sample)),
            None => {
                eprintln!("no workload `{id}` on `{runtime}`");
                std::process::exit(2);
            }
        }
        return;
    }
    let mut rounds = 5;
    let mut with_scripts = false;
    let mut only = Vec::new();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        if arg == "--rounds" {
            rounds = rest
                .next()
                .and_then(|n| n.parse().ok())
                .expect("--rounds takes a number");
        } else if arg == "--with-scripts" {
            with_scripts = true;
        } else {
            only.push(arg.clone());
        }
    }
    runner::run(rounds, &only, with_scripts);
}
