//! Exercise 2: parked in epoll_wait, an idle loop costs next to no CPU.
//!
//! The one test of the stage that asserts a real-time measurement. It has a binary of
//! its own, so no other test's thread adds to the process's CPU time.

use std::fs;
use std::time::{Duration, Instant};

use ex06_io::{TcpListener, new_event_loop};
use oneloop_testkit::watchdog;
use oneloop_timers::sleep;

/// The process's CPU time (user + system) from `/proc/self/stat`, in clock ticks.
fn cpu_ticks() -> u64 {
    let stat = fs::read_to_string("/proc/self/stat").expect("Linux /proc");
    // The command name may hold spaces: fields are counted after its closing parenthesis.
    let after = &stat[stat.rfind(')').expect("comm field") + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    // Fields 14 and 15 of the whole line (utime, stime) are 12 and 13 after the name.
    let utime: u64 = fields[11].parse().expect("utime");
    let stime: u64 = fields[12].parse().expect("stime");
    utime + stime
}

/// Clock ticks per second. Linux reports times in USER_HZ, which is 100 on every
/// mainstream build; std cannot ask sysconf, so this is assumed.
const TICKS_PER_SECOND: u64 = 100;

#[test]
fn ex2_an_idle_loop_uses_under_50_ms_of_cpu_per_second() {
    watchdog(Duration::from_secs(10), || {
        let mut event_loop = new_event_loop().unwrap();
        let (cpu, wall) = event_loop
            .run_until_complete(async {
                // A listener nobody connects to: the loop has something to wait on.
                let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
                let accepting = oneloop_core::spawn(async move {
                    let _ = listener.accept().await;
                });
                let before = cpu_ticks();
                let started = Instant::now();
                sleep(Duration::from_secs(1)).await;
                let wall = started.elapsed();
                let cpu = cpu_ticks() - before;
                drop(accepting);
                (cpu, wall)
            })
            .unwrap();
        let cpu_ms = cpu * 1000 / TICKS_PER_SECOND;
        let per_second = cpu_ms as f64 / wall.as_secs_f64();
        assert!(
            per_second < 50.0,
            "an idle loop used {cpu_ms} ms of CPU in {wall:?} ({per_second:.1} ms per second)"
        );
    });
}
