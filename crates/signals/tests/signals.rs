//! Signal handlers through the public API.
//!
//! Signal dispositions belong to the whole process, so every test that delivers a
//! signal re-runs this test binary as a child process with one `*_child` test selected,
//! and the parent sends the signal to that child (`kill -TERM PID`).

use std::cell::RefCell;
use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};
use std::rc::Rc;
use std::time::Duration;

use oneloop_core::hooks::with_current;
use oneloop_core::{Label, Observer};
use oneloop_io::{channel, new_event_loop};
use oneloop_signals::{
    SIGTERM, SIGUSR1, SignalError, add_signal_handler, remove_signal_handler, signal_name,
};
use oneloop_testkit::watchdog_default;

/// Set in the child's environment to the test it should run.
const CHILD: &str = "ONELOOP_SIGNALS_CHILD";

/// The line a child prints once its handler is in place.
const READY: &str = "child: handler added";

fn is_child(name: &str) -> bool {
    std::env::var(CHILD).as_deref() == Ok(name)
}

/// A child process that is killed if the test fails before it ended.
struct ChildGuard(std::process::Child);

impl std::ops::Deref for ChildGuard {
    type Target = std::process::Child;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for ChildGuard {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        // Already ended in a passing test: the kill fails harmlessly.
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts this binary again running only the child test `name`.
fn start_child(name: &str) -> ChildGuard {
    let exe = std::env::current_exe().expect("the test binary's path");
    let child = Command::new(exe)
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, name)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the test binary runs again");
    ChildGuard(child)
}

/// Reads the child's stdout up to the `READY` line; returns what it read.
fn wait_ready(child: &mut ChildGuard) -> (BufReader<std::process::ChildStdout>, String) {
    let mut lines = BufReader::new(child.stdout.take().expect("stdout is piped"));
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        let n = lines
            .read_line(&mut line)
            .expect("the child's stdout reads");
        assert!(n > 0, "the child ended before it was ready:\n{seen}");
        seen.push_str(&line);
        if line.trim_end().ends_with(READY) {
            return (lines, seen);
        }
    }
}

fn kill(signal: &str, pid: u32) {
    let status = Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .expect("kill(1) runs");
    assert!(status.success(), "kill {signal} {pid} failed");
}

/// Records the label and turn of every handle the loop runs.
#[derive(Default)]
struct Labels(RefCell<Vec<(u64, String)>>);

impl Observer for Labels {
    fn handle_ran(&self, turn: u64, label: &Label, _elapsed: Duration) {
        self.0.borrow_mut().push((turn, label.to_string()));
    }
}

#[test]
fn sigterm_sent_by_another_process_runs_the_callback_on_the_loop() {
    watchdog_default(|| {
        let mut child = start_child("sigterm_child");
        let (mut rest, mut stdout) = wait_ready(&mut child);
        kill("-TERM", child.id());
        rest.read_to_string(&mut stdout)
            .expect("the child's stdout");
        let mut stderr = String::new();
        let mut err = child.stderr.take().expect("stderr is piped");
        err.read_to_string(&mut stderr).expect("the child's stderr");
        let status = child.wait().expect("the child ends");
        assert!(status.success(), "child failed:\n{stdout}\n{stderr}");
        assert!(stdout.contains("1 passed"), "the child test ran:\n{stdout}");
        assert!(
            stdout.contains("child: callback ran on the loop as 'signal handler SIGTERM'"),
            "stdout was:\n{stdout}"
        );
    });
}

#[test]
fn sigterm_child() {
    if !is_child("sigterm_child") {
        return;
    }
    let mut event_loop = new_event_loop().expect("epoll is available");
    let labels = Rc::new(Labels::default());
    event_loop.core().add_observer(labels.clone());
    let loop_id = event_loop.core().id();
    let loop_thread = std::thread::current().id();
    let got = event_loop
        .run_until_complete(async move {
            let (sender, mut receiver) = channel();
            add_signal_handler(SIGTERM, move || {
                // On the loop's thread, inside one of its turns.
                let running = with_current(|core| core.id());
                let _ = sender.send((running, std::thread::current().id()));
            })
            .expect("SIGTERM can be handled");
            println!("{READY}");
            receiver.recv().await
        })
        .expect("main finishes");
    assert_eq!(got, Some((Some(loop_id), loop_thread)));
    // The reader drained the pipe in one turn; the callback ran as its own handle in a
    // later one.
    let labels = labels.0.borrow();
    let reader = labels
        .iter()
        .find(|(_, label)| label == "signal reader SIGTERM")
        .expect("the pipe's reader ran");
    let handler = labels
        .iter()
        .find(|(_, label)| label == "signal handler SIGTERM")
        .expect("the callback ran as a labelled handle");
    assert!(
        reader.0 < handler.0,
        "reader in turn {}, callback in turn {}",
        reader.0,
        handler.0
    );
    println!("child: callback ran on the loop as 'signal handler SIGTERM'");
}

#[test]
fn removing_the_last_handler_gives_the_signal_its_default_action_back() {
    watchdog_default(|| {
        let mut child = start_child("removed_child");
        let (mut rest, mut stdout) = wait_ready(&mut child);
        kill("-TERM", child.id());
        rest.read_to_string(&mut stdout)
            .expect("the child's stdout");
        let status = child.wait().expect("the child ends");
        // SIGTERM's default action ends the process: no test result is printed.
        assert_eq!(status.signal(), Some(SIGTERM), "stdout was:\n{stdout}");
        assert!(!stdout.contains("test result"), "stdout was:\n{stdout}");
    });
}

#[test]
fn removed_child() {
    if !is_child("removed_child") {
        return;
    }
    let mut event_loop = new_event_loop().expect("epoll is available");
    event_loop
        .run_until_complete(async {
            add_signal_handler(SIGTERM, || {}).expect("SIGTERM can be handled");
            assert!(remove_signal_handler(SIGTERM).unwrap());
            assert!(!remove_signal_handler(SIGTERM).unwrap());
            println!("{READY}");
            // Wait for ever: only the signal's default action ends this process.
            let (_sender, mut receiver) = channel::<()>();
            receiver.recv().await
        })
        .expect("main finishes");
    unreachable!("SIGTERM ended the process");
}

#[test]
fn sigkill_and_sigstop_are_refused_with_a_clear_error() {
    let mut event_loop = new_event_loop().expect("epoll is available");
    let errors = event_loop
        .run_until_complete(async {
            [9, 19, 11].map(|signal| add_signal_handler(signal, || {}).unwrap_err().to_string())
        })
        .expect("main finishes");
    assert_eq!(
        errors,
        [
            "SIGKILL cannot be handled: the kernel never delivers it to a handler",
            "SIGSTOP cannot be handled: the kernel never delivers it to a handler",
            "SIGSEGV cannot be handled on the loop: the thread that caused it cannot go on",
        ]
    );
    assert_eq!(signal_name(SIGTERM), "SIGTERM");
}

#[test]
fn outside_a_loop_the_handler_is_refused() {
    let error = add_signal_handler(SIGUSR1, || {}).unwrap_err();
    assert!(matches!(error, SignalError::NoRunningLoop));
    assert!(
        error
            .to_string()
            .starts_with("no event loop is running on this thread")
    );
    assert!(matches!(
        add_signal_handler(0, || {}).unwrap_err(),
        SignalError::Invalid(0)
    ));
}

#[test]
fn a_loop_without_a_selector_is_refused() {
    let mut event_loop = oneloop_core::EventLoop::new();
    let error = event_loop
        .run_until_complete(async { add_signal_handler(SIGUSR1, || {}).unwrap_err() })
        .expect("main finishes");
    assert!(matches!(error, SignalError::NoIoLayer), "{error}");
}

/// Adds a counting handler of SIGUSR1, lets `deliver` signal the process, then runs
/// ten more turns (the reader needs one, the callbacks one more) and returns how many
/// times the callback ran. Run in a child process of its own (SIGUSR1's default action
/// ends a process).
fn usr1_runs_after(deliver: impl FnOnce() + 'static) -> usize {
    let mut event_loop = new_event_loop().expect("epoll is available");
    event_loop
        .run_until_complete(async move {
            let runs = Rc::new(std::cell::Cell::new(0));
            let counted = Rc::clone(&runs);
            add_signal_handler(SIGUSR1, move || counted.set(counted.get() + 1))
                .expect("SIGUSR1 can be handled");
            deliver();
            for _ in 0..10 {
                oneloop_core::yield_now().await;
            }
            runs.get()
        })
        .expect("main finishes")
}

fn raise_usr1() {
    signal_hook::low_level::raise(SIGUSR1).expect("raise works");
}

#[test]
fn a_signal_delivered_twice_before_the_loop_reads_runs_the_callback_twice() {
    if !oneloop_testkit::alone(
        module_path!(),
        "a_signal_delivered_twice_before_the_loop_reads_runs_the_callback_twice",
    ) {
        return;
    }
    // Both deliveries end before the loop's next park: two bytes, two handles, as
    // CPython 3.11 runs its handle once per signal number read.
    let runs = watchdog_default(|| {
        usr1_runs_after(|| {
            raise_usr1();
            raise_usr1();
        })
    });
    assert_eq!(runs, 2);
}

#[test]
fn a_handler_removed_before_the_loop_reads_its_signal_never_runs() {
    if !oneloop_testkit::alone(
        module_path!(),
        "a_handler_removed_before_the_loop_reads_its_signal_never_runs",
    ) {
        return;
    }
    // The byte is in the pair when the handler goes; CPython 3.11 likewise finds no
    // handler for the number it reads, and runs nothing.
    let (runs, removed) = watchdog_default(|| {
        let removed = Rc::new(std::cell::Cell::new(None));
        let seen = Rc::clone(&removed);
        let runs = usr1_runs_after(move || {
            raise_usr1();
            seen.set(Some(
                remove_signal_handler(SIGUSR1).expect("SIGUSR1 is valid"),
            ));
        });
        (runs, removed.get())
    });
    assert_eq!((runs, removed), (0, Some(true)));
}
