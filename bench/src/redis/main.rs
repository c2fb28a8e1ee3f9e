//! The Redis rows: oneloop's capstone server beside `mini-redis` and `redis-server`,
//! measured with the real `redis-benchmark`, and a C10K run.
//!
//! ```text
//! cargo run --release --bin redis-bench                  # the redis-benchmark table, 5 rounds
//! cargo run --release --bin redis-bench -- --rounds 9    # more rounds
//! cargo run --release --bin redis-bench -- --split-cores  # -P 1: client on core 0, server on core 1
//! cargo run --release --bin redis-bench -- --pipeline 1   # only the rows of one pipeline depth
//! cargo run --release --bin redis-bench -- c10k          # 10,000 paced connections
//! cargo run --release --bin redis-bench -- instructions  # -P 1 instructions per request (valgrind)
//! ```
//!
//! Every server runs in a process of its own, started fresh for each measurement:
//! oneloop's server and `mini-redis` from this binary (`redis-bench serve NAME PORT`),
//! `redis-server` from Debian's package with persistence off. The C10K load generator
//! is a process of its own too (`redis-bench load …`): client and server each need
//! their ten thousand descriptors under the machine's hard limit.
//!
//! The figures are samples of one machine at one moment: read them with the load
//! average printed beside them.

mod c10k;
mod instructions;
mod rows;
mod servers;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    if !matches!(words.first(), Some(&"serve" | &"load")) {
        require_redis_tools();
    }
    match words.as_slice() {
        ["serve", name, port] => servers::serve_here(name, port.parse().expect("a port")),
        ["load", port, pid, conns, seconds] => c10k::load(
            port.parse().expect("a port"),
            pid.parse().expect("a pid"),
            conns.parse().expect("a number of connections"),
            seconds.parse().expect("a number of seconds"),
        ),
        ["instructions", rest @ ..] => {
            instructions::run(flag(rest, "--requests").unwrap_or(20_000));
        }
        ["c10k", rest @ ..] => {
            let conns = flag(rest, "--conns").unwrap_or(10_000);
            let seconds = flag(rest, "--seconds").unwrap_or(20);
            c10k::run(conns, seconds as u64);
        }
        rest => {
            let rounds = flag(rest, "--rounds").unwrap_or(5);
            let requests = flag(rest, "--requests").unwrap_or(200_000);
            let cores = if rest.contains(&"--split-cores") {
                rows::Cores::Split
            } else {
                rows::Cores::Shared
            };
            rows::run(rounds, requests, cores, flag(rest, "--pipeline"));
        }
    }
}

/// Stops with the command that installs them when `redis-benchmark` or `redis-server`
/// cannot be run.
fn require_redis_tools() {
    for tool in ["redis-benchmark", "redis-server"] {
        let runs = std::process::Command::new(tool)
            .arg("--version")
            .output()
            .is_ok_and(|out| out.status.success());
        if !runs {
            eprintln!(
                "redis-bench: `{tool}` cannot be run; install it with `bash install-redis.sh` (as root)"
            );
            std::process::exit(2);
        }
    }
}

/// The number after `name` in `words`, if there is one.
fn flag(words: &[&str], name: &str) -> Option<usize> {
    let at = words.iter().position(|w| *w == name)?;
    let value = words.get(at + 1).expect("a flag takes a number");
    Some(value.parse().expect("a flag takes a number"))
}

/// The 1, 5 and 15 minute load averages, as the kernel prints them.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|_| "unknown".to_string())
}
