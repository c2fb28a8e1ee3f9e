//! The redis-benchmark rows: interleaved rounds, one `RESULT` line per run, then the
//! table of medians and ratios.

use std::collections::BTreeMap;
use std::process::Command;

use crate::load_average;
use crate::servers::start;

/// Every server that speaks GET and SET.
const ALL: &[&str] = &["oneloop", "mini-redis-mt", "mini-redis-st", "redis-server"];
/// `mini-redis` has no INCR.
const INCR: &[&str] = &["oneloop", "redis-server"];

/// One row: a redis-benchmark test at a pipeline depth, and who runs it.
struct Row {
    test: &'static str,
    pipeline: usize,
    servers: &'static [&'static str],
}

const ROWS: &[Row] = &[
    Row {
        test: "set",
        pipeline: 1,
        servers: ALL,
    },
    Row {
        test: "get",
        pipeline: 1,
        servers: ALL,
    },
    Row {
        test: "set",
        pipeline: 16,
        servers: ALL,
    },
    Row {
        test: "get",
        pipeline: 16,
        servers: ALL,
    },
    Row {
        test: "incr",
        pipeline: 1,
        servers: INCR,
    },
    Row {
        test: "incr",
        pipeline: 16,
        servers: INCR,
    },
];

/// What one run measured.
#[derive(Debug, Clone, Copy)]
struct Sample {
    rps: f64,
    p50_ms: f64,
    p99_ms: f64,
    /// The server's CPU time per request, in µs, user and system together: less
    /// sensitive to a busy machine than requests/s.
    cpu_us: f64,
    /// Of that, in the server's own code.
    user_us: f64,
    /// Of that, in the kernel on the server's behalf.
    sys_us: f64,
}

impl Row {
    fn id(&self) -> String {
        format!("{}-P{}", self.test, self.pipeline)
    }
}

/// How many requests one run of `row` sends: pipelined runs send 4 times more, so
/// that oneloop's and Redis's last about as long as their `-P 1` runs.
fn count(row: &Row, requests: usize) -> usize {
    requests * row.pipeline.min(4)
}

/// The core `redis-benchmark` runs on with `--split-cores`.
const CLIENT_CPU: usize = 0;
/// The core the server runs on with `--split-cores`.
const SERVER_CPU: usize = 1;

/// Where the processes of the `-P 1` rows run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cores {
    /// Wherever the kernel puts them: client and server share the machine's cores.
    Shared,
    /// `redis-benchmark` on core 0, the server on core 1 (`taskset`). Only the `-P 1`
    /// rows are pinned; the pipelined rows run as with [`Cores::Shared`].
    Split,
}

/// One run of `row` against a fresh `server`, with `requests` requests from 50 clients.
fn measure(row: &Row, server: &str, requests: usize, cores: Cores) -> Sample {
    let split = cores == Cores::Split && row.pipeline == 1;
    let running = start(server, split.then_some(SERVER_CPU));
    let count = count(row, requests);
    let n = count.to_string();
    let cpu_before = running.cpu();
    let mut benchmark = if split {
        let mut command = Command::new("taskset");
        command.args(["-c", &CLIENT_CPU.to_string(), "redis-benchmark"]);
        command
    } else {
        Command::new("redis-benchmark")
    };
    let output = benchmark
        .args(["-h", "127.0.0.1", "-p", &running.port.to_string()])
        .args(["-c", "50", "-n", &n, "-P", &row.pipeline.to_string()])
        .args(["-t", row.test, "--csv"])
        .output()
        .expect("redis-benchmark runs (Debian's redis-tools)");
    let cpu = running.cpu() - cpu_before;
    drop(running);
    let stdout = String::from_utf8_lossy(&output.stdout);
    // "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms",
    // "p95_latency_ms","p99_latency_ms","max_latency_ms"
    let line = stdout
        .lines()
        .find(|l| l.starts_with(&format!("\"{}\"", row.test.to_uppercase())))
        .unwrap_or_else(|| {
            panic!(
                "{} on {server}: no CSV line in\n{stdout}\n{}",
                row.id(),
                String::from_utf8_lossy(&output.stderr)
            )
        });
    let fields: Vec<f64> = line
        .split(',')
        .skip(1)
        .map(|f| f.trim_matches('"').parse().expect("a number"))
        .collect();
    let per_request = |time: std::time::Duration| time.as_secs_f64() * 1e6 / count as f64;
    let sample = Sample {
        rps: fields[0],
        p50_ms: fields[3],
        p99_ms: fields[5],
        cpu_us: per_request(cpu.user + cpu.sys),
        user_us: per_request(cpu.user),
        sys_us: per_request(cpu.sys),
    };
    println!(
        "RESULT workload=redis-{} server={server} cores={} rps={:.0} p50_ms={:.3} p99_ms={:.3} cpu_us={:.2} user_us={:.2} sys_us={:.2}",
        row.id(),
        if split { "split" } else { "shared" },
        sample.rps,
        sample.p50_ms,
        sample.p99_ms,
        sample.cpu_us,
        sample.user_us,
        sample.sys_us
    );
    sample
}

/// The median, smallest and largest of some runs' figures.
#[derive(Debug, Clone, Copy)]
struct Spread {
    median: f64,
    min: f64,
    max: f64,
}

impl Spread {
    fn of(runs: &[Sample], figure: impl Fn(&Sample) -> f64) -> Spread {
        let mut values: Vec<f64> = runs.iter().map(figure).collect();
        values.sort_by(f64::total_cmp);
        let n = values.len();
        let median = if n % 2 == 1 {
            values[n / 2]
        } else {
            (values[n / 2 - 1] + values[n / 2]) / 2.0
        };
        Spread {
            median,
            min: values[0],
            max: values[n - 1],
        }
    }

    /// `median (min–max)`, with `digits` decimals.
    fn show(&self, digits: usize) -> String {
        format!(
            "{:.digits$} ({:.digits$}–{:.digits$})",
            self.median, self.min, self.max
        )
    }
}

/// The verdict on one figure of a shared row, from the runs alone: one server is
/// ahead only when every one of its runs beat every run of the other (their
/// min–max ranges do not overlap); otherwise the gap is inside the run-to-run spread.
fn verdict(ours: Spread, theirs: Spread, higher_is_better: bool) -> &'static str {
    let (ours_ahead, theirs_ahead) = if higher_is_better {
        (ours.min > theirs.max, theirs.min > ours.max)
    } else {
        (ours.max < theirs.min, theirs.max < ours.min)
    };
    match (ours_ahead, theirs_ahead) {
        (true, _) => "oneloop ahead",
        (_, true) => "peer ahead",
        _ => "within spread",
    }
}

/// Runs every row (of pipeline depth `depth` only, if given) `rounds` times, rotating
/// the servers' order each round, and prints the table.
pub fn run(rounds: usize, requests: usize, cores: Cores, depth: Option<usize>) {
    let rows: Vec<&Row> = ROWS
        .iter()
        .filter(|row| depth.is_none_or(|depth| row.pipeline == depth))
        .collect();
    if rows.is_empty() {
        eprintln!("redis-bench: no row has pipeline depth {depth:?}; the rows have 1 and 16");
        std::process::exit(2);
    }
    if cores == Cores::Split {
        require_two_cores();
    }
    let load_before = load_average();
    let mut samples: BTreeMap<(String, &str), Vec<Sample>> = BTreeMap::new();
    for round in 0..rounds {
        for row in &rows {
            let n = row.servers.len();
            for k in 0..n {
                let server = row.servers[(k + round) % n];
                let sample = measure(row, server, requests, cores);
                samples.entry((row.id(), server)).or_default().push(sample);
            }
        }
        eprintln!("round {} of {rounds} done", round + 1);
    }
    let load_after = load_average();
    println!();
    println!(
        "{rounds} rounds, interleaved; redis-benchmark -c 50, {requests} requests per run \
         (x4 pipelined); load average before: {load_before}, after: {load_after}"
    );
    println!(
        "Figures: median (min–max) over the {rounds} runs of each server. Ratios are of \
         medians; above 1 is worse for oneloop."
    );
    println!(
        "Verdicts: a row is shared when oneloop and the peer both run it. \"oneloop ahead\" \
         or \"peer ahead\" only when the two servers' min–max ranges do not overlap (every \
         run of one beat every run of the other); otherwise \"within spread\": the gap is \
         smaller than the run-to-run spread and says nothing either way. {} The server's \
         CPU per request (user + sys, from /proc) is the server's alone.",
        match cores {
            Cores::Shared => {
                "At -P 1, redis-benchmark runs on the same cores as the server, so \
                 requests/s measure the client too (--split-cores pins them apart)."
            }
            Cores::Split => {
                "At -P 1 (--split-cores), redis-benchmark runs on core 0 and the server on \
                 core 1 (taskset), so requests/s measure the server, not the shared cores. \
                 mini-redis-mt is pinned to core 1 too: tokio sizes its multi-thread runtime \
                 to the cores the process may use, so it runs one worker thread there. \
                 The pipelined rows run unpinned."
            }
        }
    );
    println!();
    println!(
        "| workload | server | requests/s | ratio (peer ÷ oneloop) | verdict (requests/s) | p50 ms | p99 ms | server CPU µs/request | user | sys | CPU ratio (oneloop ÷ peer) | verdict (CPU) |"
    );
    println!("|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---|");
    for row in &rows {
        let ours_runs = &samples[&(row.id(), "oneloop")];
        let ours_rps = Spread::of(ours_runs, |s| s.rps);
        let ours_cpu = Spread::of(ours_runs, |s| s.cpu_us);
        for server in row.servers {
            let runs = &samples[&(row.id(), *server)];
            let rps = Spread::of(runs, |s| s.rps);
            let p50 = Spread::of(runs, |s| s.p50_ms).median;
            let p99 = Spread::of(runs, |s| s.p99_ms).median;
            let cpu = Spread::of(runs, |s| s.cpu_us);
            let user = Spread::of(runs, |s| s.user_us).median;
            let sys = Spread::of(runs, |s| s.sys_us).median;
            let (ratio, rps_verdict, cpu_ratio, cpu_verdict) = if *server == "oneloop" {
                ("—".to_string(), "—", "—".to_string(), "—")
            } else {
                (
                    format!("{:.2}", rps.median / ours_rps.median),
                    verdict(ours_rps, rps, true),
                    format!("{:.2}", ours_cpu.median / cpu.median),
                    verdict(ours_cpu, cpu, false),
                )
            };
            println!(
                "| {} | {server} | {} | {ratio} | {rps_verdict} | {p50:.3} | {p99:.3} | {} | {user:.2} | {sys:.2} | {cpu_ratio} | {cpu_verdict} |",
                row.id(),
                rps.show(0),
                cpu.show(2),
            );
        }
    }
}

/// Stops with a message when the machine has fewer than two cores to pin apart.
fn require_two_cores() {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    if cores < 2 {
        eprintln!("redis-bench: --split-cores needs two cores; this process may use {cores}");
        std::process::exit(2);
    }
    let runs = Command::new("taskset")
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success());
    if !runs {
        eprintln!("redis-bench: --split-cores needs `taskset` (Debian's util-linux)");
        std::process::exit(2);
    }
}
