//! A watchdog that counts the CPU time of the body's thread, for a test that only
//! computes and whose failure is a cost that grows too fast.
//!
//! A view or a table built in proportion to a hundred thousand tasks takes a second or
//! two of CPU time in a debug build; one whose cost grows with the square of the tasks
//! takes a minute. The wall clock cannot tell them apart on a loaded machine: a thread
//! that gets a fifth of a core spends ten seconds on the first. Its own CPU time does
//! not grow with the load, so a limit on it keeps the wide margin on both sides.

use std::panic;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// How long a body may wait off the CPU, in all, before it counts as hung. The bodies
/// this is for never wait: only a thread that a loaded machine starves for minutes, or
/// a body that blocks after all, reaches it.
pub const WALL_BACKSTOP: Duration = Duration::from_secs(120);

/// How often the watchdog reads the body's CPU time.
const POLL: Duration = Duration::from_millis(50);

/// Runs `body` on a fresh thread, and fails once that thread has spent `cpu_limit` on
/// the CPU (user and system time), or [`WALL_BACKSTOP`] has passed.
///
/// For a body that only computes, on its one thread. Time its thread spends waiting for
/// a core does not count, so a loaded machine does not fail it; a cost that grows too
/// fast does. The body's result is returned; its panic is re-raised with its message.
///
/// # Panics
///
/// When the body panics, when its thread spends more than `cpu_limit` on the CPU, or
/// when it has not finished after [`WALL_BACKSTOP`].
pub fn cpu_watchdog<T, F>(cpu_limit: Duration, body: F) -> T
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let (stat_tx, stat_rx) = mpsc::channel();
    let (done_tx, done_rx) = mpsc::channel();
    let worker = thread::Builder::new()
        .name("test body (cpu watchdog)".into())
        .spawn(move || {
            // `/proc/thread-self` is this thread's directory, `<pid>/task/<tid>`.
            let stat = std::fs::read_link("/proc/thread-self")
                .map(|me| Path::new("/proc").join(me).join("stat"));
            let _ = stat_tx.send(stat);
            let outcome = panic::catch_unwind(panic::AssertUnwindSafe(body));
            // The receiver is gone only if the watchdog already gave up; nothing to tell.
            let _ = done_tx.send(outcome);
        })
        .expect("spawning the test body's thread");
    let stat: PathBuf = stat_rx
        .recv()
        .expect("the body's thread names itself first")
        .expect("Linux: /proc/thread-self names the body's thread");
    let started = Instant::now();
    loop {
        match done_rx.recv_timeout(POLL) {
            Ok(Ok(value)) => {
                worker.join().expect("the body already finished");
                return value;
            }
            Ok(Err(payload)) => {
                let _ = worker.join();
                panic::resume_unwind(payload)
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                unreachable!("the body's thread sends its outcome before it ends")
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                // Unreadable only once the body's thread has ended: its outcome is sent.
                if let Some(spent) = cpu_time(&stat) {
                    assert!(
                        spent <= cpu_limit,
                        "cpu watchdog: the test body spent more than {cpu_limit:?} on the \
                         CPU; its cost grows faster than it should (or it spins)"
                    );
                }
                assert!(
                    started.elapsed() < WALL_BACKSTOP,
                    "cpu watchdog: the test body did not finish within {WALL_BACKSTOP:?}, \
                     though it spent under {cpu_limit:?} on the CPU: it waits for something"
                );
            }
        }
    }
}

/// The CPU time, user and system, of the thread whose `/proc/<pid>/task/<tid>/stat` is
/// `stat`. Linux counts both in clock ticks of USER_HZ, 100 a second on every
/// mainstream build (std cannot ask sysconf, so this is assumed).
fn cpu_time(stat: &Path) -> Option<Duration> {
    let text = std::fs::read_to_string(stat).ok()?;
    // The thread's name, the second field, is in parentheses and may hold spaces: the
    // fields after it start past the last `)`, with the third field, the state.
    let mut fields = text[text.rfind(')')? + 1..].split_whitespace();
    // Fields 14 and 15 of the line (utime, stime) are the 12th and 13th after the name.
    let utime: u64 = fields.nth(11)?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(Duration::from_millis((utime + stime) * 10))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn returns_the_bodys_value() {
        assert_eq!(cpu_watchdog(Duration::from_secs(1), || 7), 7);
    }

    #[test]
    fn a_body_that_spins_fails() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicBool, Ordering};
        let stop = Arc::new(AtomicBool::new(false));
        let spinning = Arc::clone(&stop);
        let failed = panic::catch_unwind(move || {
            cpu_watchdog(Duration::from_millis(20), move || {
                while !spinning.load(Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
            })
        });
        // The watchdog has given up on the body: let its thread end.
        stop.store(true, Ordering::Relaxed);
        let payload = failed.expect_err("a spinning body fails");
        let message = crate::panic_text(&*payload);
        assert!(
            message.starts_with("cpu watchdog: the test body spent more than 20ms"),
            "{message}"
        );
    }

    #[test]
    fn time_off_the_cpu_does_not_count() {
        // Asleep four times as long as its CPU limit: the wall clock would have failed it.
        let slept = cpu_watchdog(Duration::from_millis(50), || {
            thread::sleep(Duration::from_millis(200));
            "woke"
        });
        assert_eq!(slept, "woke");
    }

    #[test]
    #[should_panic(expected = "stage 0, exercise 0")]
    fn a_panic_keeps_its_message() {
        cpu_watchdog(Duration::from_secs(1), || todo!("stage 0, exercise 0"));
    }
}
