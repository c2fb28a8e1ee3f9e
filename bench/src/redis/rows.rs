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
    /// The server's CPU time per request, in µs: less sensitive to a busy machine
    /// than requests/s.
    cpu_us: f64,
}

impl Row {
    fn id(&self) -> String {
        format!("{}-P{}", self.test, self.pipeline)
    }
}

/// One run of `row` against a fresh `server`, with `requests` requests from 50 clients.
fn measure(row: &Row, server: &str, requests: usize) -> Sample {
    let running = start(server);
    let count = requests * row.pipeline.min(8);
    let n = count.to_string();
    let cpu_before = running.cpu();
    let output = Command::new("redis-benchmark")
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
    let sample = Sample {
        rps: fields[0],
        p50_ms: fields[3],
        p99_ms: fields[5],
        cpu_us: cpu.as_secs_f64() * 1e6 / count as f64,
    };
    println!(
        "RESULT workload=redis-{} server={server} rps={:.0} p50_ms={:.3} p99_ms={:.3} cpu_us={:.2}",
        row.id(),
        sample.rps,
        sample.p50_ms,
        sample.p99_ms,
        sample.cpu_us
    );
    sample
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

/// Runs every row `rounds` times, rotating the servers' order each round, and prints
/// the table.
pub fn run(rounds: usize, requests: usize) {
    let load_before = load_average();
    let mut samples: BTreeMap<(String, &str), Vec<Sample>> = BTreeMap::new();
    for round in 0..rounds {
        for row in ROWS {
            let n = row.servers.len();
            for k in 0..n {
                let server = row.servers[(k + round) % n];
                let sample = measure(row, server, requests);
                samples.entry((row.id(), server)).or_default().push(sample);
            }
        }
        eprintln!("round {} of {rounds} done", round + 1);
    }
    let load_after = load_average();
    println!();
    println!(
        "{rounds} rounds, interleaved; redis-benchmark -c 50, {requests} requests per run \
         (x8 pipelined); load average before: {load_before}, after: {load_after}"
    );
    println!();
    println!(
        "| workload | server | requests/s | ratio (peer ÷ oneloop) | p50 ms | p99 ms | server CPU µs/request | CPU ratio (oneloop ÷ peer) |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|");
    for row in ROWS {
        let ours_runs = &samples[&(row.id(), "oneloop")];
        let ours = median(&mut rps_of(ours_runs));
        let ours_cpu = median(&mut ours_runs.iter().map(|s| s.cpu_us).collect::<Vec<_>>());
        for server in row.servers {
            let runs = &samples[&(row.id(), *server)];
            let rps = median(&mut rps_of(runs));
            let p50 = median(&mut runs.iter().map(|s| s.p50_ms).collect::<Vec<_>>());
            let p99 = median(&mut runs.iter().map(|s| s.p99_ms).collect::<Vec<_>>());
            let cpu = median(&mut runs.iter().map(|s| s.cpu_us).collect::<Vec<_>>());
            let (ratio, cpu_ratio) = if *server == "oneloop" {
                ("—".to_string(), "—".to_string())
            } else {
                (
                    format!("{:.2}", rps / ours),
                    format!("{:.2}", ours_cpu / cpu),
                )
            };
            println!(
                "| {} | {server} | {rps:.0} | {ratio} | {p50:.3} | {p99:.3} | {cpu:.2} | {cpu_ratio} |",
                row.id()
            );
        }
    }
}

fn rps_of(runs: &[Sample]) -> Vec<f64> {
    runs.iter().map(|s| s.rps).collect()
}
