//! A way for one thread to wait until another is asleep in the kernel, so that a test
//! of a wakeup can send its wake to a thread that is really parked.
//!
//! A lost-wakeup bug hides in timing: a wake sent while the loop is still on its way to
//! `park` or `epoll_wait` reaches it however the wake is made, and only one sent while
//! it sleeps shows whether the wake really ends the sleep. A test that just sends the
//! wake from another thread tries one timing or the other, at random. Linux shows each
//! thread's state in `/proc/<pid>/task/<tid>/stat`: `R` while it runs or waits for a
//! core, `S` while it sleeps in the kernel (a futex wait, `epoll_wait`, a read). A
//! [`SleepProbe`] made on the thread to watch reads that state from any other thread.

use std::path::{Path, PathBuf};
use std::thread;

/// A handle on one thread's kernel state, to see or wait until that thread sleeps.
#[derive(Debug, Clone)]
pub struct SleepProbe {
    /// `/proc/<pid>/task/<tid>/stat`.
    stat: PathBuf,
}

impl SleepProbe {
    /// A probe on the calling thread.
    ///
    /// # Panics
    ///
    /// Where `/proc` does not name the thread: oneloop runs on Linux.
    pub fn current() -> Self {
        // `/proc/thread-self` is this thread's directory, `<pid>/task/<tid>`.
        let me = std::fs::read_link("/proc/thread-self").expect("Linux's /proc is mounted");
        Self {
            stat: Path::new("/proc").join(me).join("stat"),
        }
    }

    /// Whether the thread sleeps in the kernel right now (state `S`). A thread that
    /// runs, or waits for a core, is `R`; one that spins on `poll` never sleeps.
    ///
    /// # Panics
    ///
    /// When the thread has ended.
    pub fn is_asleep(&self) -> bool {
        state(&self.stat).expect("the watched thread is alive") == 'S'
    }

    /// Returns once the thread sleeps in the kernel. It yields between reads and gives
    /// up on nothing: the caller's watchdog is the limit, and a thread that never
    /// sleeps (a loop that spins instead of parking) makes it fail.
    ///
    /// The thread must have nothing else to sleep on between the moment the caller
    /// learns it is on its way and its park: a lock it must wait for also reads `S`.
    ///
    /// # Panics
    ///
    /// When the thread has ended.
    pub fn wait_until_asleep(&self) {
        while !self.is_asleep() {
            thread::yield_now();
        }
    }
}

/// The state letter of the thread whose stat file is `stat`; `None` once it has ended
/// (the file is gone).
fn state(stat: &Path) -> Option<char> {
    let text = std::fs::read_to_string(stat).ok()?;
    // The name, the second field, is in parentheses and may hold spaces or `)`: the
    // state is the first field after the last `)`.
    text[text.rfind(')')? + 1..]
        .split_whitespace()
        .next()?
        .chars()
        .next()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn a_thread_blocked_on_a_channel_is_seen_asleep() {
        let (probe_tx, probe_rx) = mpsc::channel();
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let sleeper = thread::spawn(move || {
            probe_tx.send(SleepProbe::current()).unwrap();
            go_rx.recv().unwrap();
        });
        let probe = probe_rx.recv().unwrap();
        probe.wait_until_asleep();
        assert!(
            probe.is_asleep(),
            "it stays asleep until it is sent something"
        );
        go_tx.send(()).unwrap();
        sleeper.join().unwrap();
    }

    #[test]
    fn a_running_thread_is_not_asleep() {
        // The thread that reads its own state is running.
        assert!(!SleepProbe::current().is_asleep());
    }

    #[test]
    #[should_panic(expected = "the watched thread is alive")]
    fn an_ended_thread_is_an_error_not_a_wait() {
        let probe = thread::spawn(SleepProbe::current).join().unwrap();
        probe.wait_until_asleep();
    }
}
