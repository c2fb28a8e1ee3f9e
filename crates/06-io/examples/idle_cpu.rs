//! An idle loop sleeps in `epoll_wait`: how much CPU does one idle second cost?
//!
//! ```console
//! cargo run -p oneloop-io --example idle_cpu
//! ```
//!
//! The loop waits on a listener nobody connects to and a one-second `sleep`, so it
//! parks in `epoll_wait` with the timer's deadline as timeout. The CPU time is the
//! process's user + system time from `/proc/self/stat`, in clock ticks.

use std::fs;
use std::io;
use std::time::{Duration, Instant};

use oneloop_io::{TcpListener, new_event_loop};
use oneloop_timers::sleep;

/// Linux reports process times in USER_HZ ticks; std cannot ask `sysconf(_SC_CLK_TCK)`,
/// so this assumes the usual 100 (and says so in the output).
const ASSUMED_TICKS_PER_SECOND: u64 = 100;

fn cpu_ticks() -> io::Result<u64> {
    let stat = fs::read_to_string("/proc/self/stat")?;
    let close = stat
        .rfind(')')
        .ok_or_else(|| io::Error::other("no command name in /proc/self/stat"))?;
    let fields: Vec<&str> = stat[close + 2..].split_whitespace().collect();
    let field = |index: usize| -> io::Result<u64> {
        fields
            .get(index)
            .ok_or_else(|| io::Error::other("short /proc/self/stat"))?
            .parse()
            .map_err(io::Error::other)
    };
    // utime and stime are fields 14 and 15 of the line, 12th and 13th after the name.
    Ok(field(11)? + field(12)?)
}

fn main() -> io::Result<()> {
    let mut event_loop = new_event_loop()?;
    let turns_before = event_loop.turn();
    let (ticks, wall) = event_loop
        .run_until_complete(async {
            let listener = TcpListener::bind("127.0.0.1:0")?;
            let waiting = oneloop_core::spawn(async move {
                let _ = listener.accept().await;
            });
            let before = cpu_ticks()?;
            let started = Instant::now();
            sleep(Duration::from_secs(1)).await;
            let wall = started.elapsed();
            let ticks = cpu_ticks()? - before;
            drop(waiting);
            io::Result::Ok((ticks, wall))
        })
        .map_err(io::Error::other)??;
    let turns = event_loop.turn() - turns_before;
    let ms = ticks * 1000 / ASSUMED_TICKS_PER_SECOND;
    println!("idle for {wall:.3?} in {turns} turns");
    println!(
        "CPU time used: {ticks} ticks = {ms} ms (assuming {ASSUMED_TICKS_PER_SECOND} ticks per \
         second, the usual CLK_TCK)"
    );
    Ok(())
}
