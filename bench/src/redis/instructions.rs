//! Instructions per request: each server under `valgrind --tool=callgrind`, driven by
//! `redis-benchmark -P 1` with a fixed number of requests.
//!
//! Valgrind counts the instructions the server's process runs in user space (its own
//! code, its runtime, its allocator, libc; not the kernel). The count does not depend
//! on how busy the machine is: it is the steadiest figure of a server's own cost that
//! a shared machine can give. After a warm-up the counters are zeroed
//! (`callgrind_control -z`), the measured requests run, and the counters are dumped
//! (`callgrind_control -d`): start-up and warm-up are left out.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

use crate::servers::{Running, start_under};

/// The servers whose instructions are counted, and the tests each runs.
const RUNS: &[(&str, &[&str])] = &[
    ("oneloop", &["set", "get", "incr"]),
    ("mini-redis-st", &["set", "get"]),
    ("mini-redis-mt", &["set", "get"]),
    ("redis-server", &["set", "get", "incr"]),
];

/// Counts instructions per request of every server, `requests` measured requests per
/// test, and prints a `RESULT` line for each and a table.
pub fn run(requests: usize) {
    require_valgrind();
    let dir = std::env::temp_dir().join(format!("redis-bench-callgrind-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory for callgrind's files");
    let mut rows = Vec::new();
    for (server, tests) in RUNS {
        for test in *tests {
            let per_request = count(server, test, requests, &dir);
            println!(
                "RESULT workload=redis-{test}-P1 server={server} requests={requests} instructions_per_request={per_request:.0}"
            );
            rows.push((*test, *server, per_request));
        }
    }
    // Best effort: the files are only read once.
    let _ = std::fs::remove_dir_all(&dir);
    println!();
    println!(
        "User-space instructions per request (valgrind --tool=callgrind), redis-benchmark -c 50 -P 1, \
         {requests} requests after a warm-up of 2000; start-up and warm-up not counted."
    );
    println!();
    println!("| workload | server | instructions/request |");
    println!("|---|---|---:|");
    rows.sort_by_key(|(test, _, _)| RUNS[0].1.iter().position(|t| t == test));
    for (test, server, per_request) in rows {
        println!("| {test}-P1 | {server} | {per_request:.0} |");
    }
}

/// Instructions per request of `server` on `test`.
fn count(server: &str, test: &str, requests: usize, dir: &Path) -> f64 {
    let out = dir.join(format!("{server}-{test}"));
    let out_arg = format!("--callgrind-out-file={}.%p", out.display());
    let running = start_under(server, &["valgrind", "-q", "--tool=callgrind", &out_arg]);
    benchmark(&running, test, 2000);
    control(&running, "-z");
    benchmark(&running, test, requests);
    control(&running, "-d");
    // The first dump of the process is its file `.1`.
    let dump = PathBuf::from(format!("{}.{}.1", out.display(), running.pid()));
    let total = read_total(&dump);
    drop(running);
    total as f64 / requests as f64
}

fn benchmark(running: &Running, test: &str, requests: usize) {
    let status = Command::new("redis-benchmark")
        .args(["-h", "127.0.0.1", "-p", &running.port.to_string()])
        .args([
            "-c",
            "50",
            "-n",
            &requests.to_string(),
            "-P",
            "1",
            "-t",
            test,
            "-q",
        ])
        .output()
        .expect("redis-benchmark runs")
        .status;
    assert!(status.success(), "redis-benchmark failed: {status}");
}

fn control(running: &Running, what: &str) {
    let status = Command::new("callgrind_control")
        .args([what, &running.pid().to_string()])
        .output()
        .expect("callgrind_control runs (valgrind's package)")
        .status;
    assert!(
        status.success(),
        "callgrind_control {what} failed: {status}"
    );
}

/// The `summary:` line of a callgrind dump, once the file is complete.
fn read_total(dump: &Path) -> u64 {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(text) = std::fs::read_to_string(dump)
            && text.lines().any(|line| line.starts_with("totals:"))
            && let Some(line) = text.lines().find(|line| line.starts_with("summary:"))
        {
            return line["summary:".len()..]
                .trim()
                .parse()
                .expect("an instruction count");
        }
        assert!(
            Instant::now() < deadline,
            "no complete dump at {}",
            dump.display()
        );
        thread::sleep(Duration::from_millis(100));
    }
}

/// Stops with a message when valgrind cannot be run.
fn require_valgrind() {
    let runs = Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success());
    if !runs {
        eprintln!("redis-bench: `valgrind` cannot be run; install Debian's `valgrind` package");
        std::process::exit(2);
    }
}
