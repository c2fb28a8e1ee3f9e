//! C10K: ten thousand connections, each sending a command every second, from a load
//! generator in a process of its own; the server's RSS per connection and the
//! latency percentiles.
//!
//! `mini-redis` is not run: its server accepts at most 250 connections at once (a
//! semaphore in its `server::run`), so it cannot hold this load.

use std::cell::RefCell;
use std::process::Command;
use std::rc::Rc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::load_average;
use crate::servers::start;

/// Raises this process's soft limit on open files to its hard limit (children
/// inherit it).
fn raise_file_limit() -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a valid, writable rlimit for the call's duration.
    let got = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) };
    assert_eq!(got, 0, "getrlimit: {}", std::io::Error::last_os_error());
    limit.rlim_cur = limit.rlim_max;
    // SAFETY: `limit` is a valid rlimit; raising the soft limit to the hard one is
    // always permitted.
    let set = unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) };
    assert_eq!(set, 0, "setrlimit: {}", std::io::Error::last_os_error());
    limit.rlim_cur
}

/// The resident set of process `pid`, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("the server runs");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("a VmRSS line")
}

/// The orchestrator: for each server, start it, then the load generator against it.
pub fn run(conns: usize, seconds: u64) {
    let limit = raise_file_limit();
    assert!(
        conns as u64 + 64 <= limit,
        "{conns} connections need more than the file limit of {limit}"
    );
    println!(
        "C10K: {conns} connections, one PING each per second, for {seconds} s; \
         file limit {limit}; load average before: {}",
        load_average()
    );
    println!();
    println!(
        "| server | connected | RSS before | RSS with all connected | per connection | p50 ms | p99 ms | max ms | replies |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for server in ["oneloop", "redis-server"] {
        let running = start(server, None);
        let exe = std::env::current_exe().expect("own path");
        let output = Command::new(exe)
            .args([
                "load",
                &running.port.to_string(),
                &running.pid().to_string(),
            ])
            .args([conns.to_string(), seconds.to_string()])
            .output()
            .expect("the load generator runs");
        drop(running);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let Some(line) = stdout.lines().find(|l| l.starts_with("RESULT ")) else {
            panic!(
                "the load against {server} printed no RESULT line:\n{stdout}\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
        };
        eprintln!("{line} server={server}");
        let field = |name: &str| -> String {
            line.split_whitespace()
                .find_map(|w| w.strip_prefix(&format!("{name}=")))
                .unwrap_or("?")
                .to_string()
        };
        println!(
            "| {server} | {} | {} KiB | {} KiB | {} B | {} | {} | {} | {} |",
            field("connected"),
            field("rss_before_kib"),
            field("rss_loaded_kib"),
            field("rss_per_conn_bytes"),
            field("p50_ms"),
            field("p99_ms"),
            field("max_ms"),
            field("replies"),
        );
    }
    println!();
    println!("load average after: {}", load_average());
}

/// The load generator: `conns` connections to `port`, each sends PING once a second
/// (starts spread over the first second) and times the reply; the first three
/// seconds are warm-up. Prints one `RESULT` line.
pub fn load(port: u16, server_pid: u32, conns: usize, seconds: u64) {
    raise_file_limit();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let local = tokio::task::LocalSet::new();
    local.block_on(&runtime, async move {
        let rss_before = rss_kib(server_pid);
        // Connect one after another: a burst of 10,000 SYNs would overflow the
        // listen backlog and wait for the kernel's retransmits.
        let mut streams = Vec::with_capacity(conns);
        for _ in 0..conns {
            let stream = TcpStream::connect(("127.0.0.1", port))
                .await
                .expect("the server accepts");
            stream.set_nodelay(true).expect("nodelay");
            streams.push(stream);
        }
        let latencies: Rc<RefCell<Vec<Duration>>> = Rc::default();
        let start = tokio::time::Instant::now();
        let warm = start + Duration::from_secs(3);
        let end = start + Duration::from_secs(seconds);
        let mut tasks = Vec::with_capacity(conns);
        for (i, mut stream) in streams.into_iter().enumerate() {
            let latencies = Rc::clone(&latencies);
            let first = start + Duration::from_micros((i as u64 * 1_000_000) / conns as u64);
            tasks.push(tokio::task::spawn_local(async move {
                let mut ticks = tokio::time::interval_at(first, Duration::from_secs(1));
                ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                let mut reply = [0u8; 7];
                loop {
                    let at = ticks.tick().await;
                    if at >= end {
                        return;
                    }
                    let sent = Instant::now();
                    stream
                        .write_all(b"*1\r\n$4\r\nPING\r\n")
                        .await
                        .expect("send");
                    stream.read_exact(&mut reply).await.expect("a reply");
                    assert_eq!(&reply, b"+PONG\r\n");
                    if at >= warm {
                        latencies.borrow_mut().push(sent.elapsed());
                    }
                }
            }));
        }
        // Every connection is open and pinging: the server's RSS under the load.
        tokio::time::sleep_until(warm).await;
        let rss_loaded = rss_kib(server_pid);
        for task in tasks {
            task.await.expect("a connection's task");
        }
        let mut all = latencies.borrow().clone();
        all.sort();
        let at = |q: f64| all[((all.len() as f64 * q) as usize).min(all.len() - 1)];
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        println!(
            "RESULT workload=c10k connected={conns} rss_before_kib={rss_before} \
             rss_loaded_kib={rss_loaded} rss_per_conn_bytes={} p50_ms={:.3} p99_ms={:.3} \
             max_ms={:.3} replies={}",
            (rss_loaded.saturating_sub(rss_before) * 1024) / conns as u64,
            ms(at(0.50)),
            ms(at(0.99)),
            ms(*all.last().expect("some replies")),
            all.len()
        );
    });
}
