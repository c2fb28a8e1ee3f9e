//! Running one test of the current test binary again, alone, in a child process.
//!
//! Some tests need a process of their own: one that sets a process-wide thing (an
//! environment variable, a signal handler, a lowered fd limit), or one that counts on
//! which fd number the kernel hands out next (the lowest free one, which another test's
//! thread could take first). Such a test starts the binary again with only itself
//! selected, and a marker in the environment telling the copy to run the body.

use std::process::{Command, Stdio};

/// The whole name the test harness gives the test `name` written in the module whose
/// `module_path!()` is `module`: the module's path without the crate's name, then
/// `name` (`ex2_readiness::ex2_a_wait` for a file that is a module of `tests/exercises.rs`).
///
/// ```
/// assert_eq!(oneloop_testkit::test_name("exercises::ex2", "ex2_a"), "ex2::ex2_a");
/// assert_eq!(oneloop_testkit::test_name("debug_mode", "child"), "child");
/// ```
pub fn test_name(module: &str, name: &str) -> String {
    match module.split_once("::") {
        Some((_, path)) => format!("{path}::{name}"),
        None => name.to_string(),
    }
}

/// A command that runs the test `name` of the module `module` (its `module_path!()`)
/// of the current test binary, and nothing else, on one thread, output not captured,
/// stdin empty. The caller adds its marker with [`Command::env`] and runs it.
pub fn rerun_alone(module: &str, name: &str) -> Command {
    let exe = std::env::current_exe().expect("the test binary's path");
    let mut command = Command::new(exe);
    command
        .arg(test_name(module, name))
        .args(["--exact", "--nocapture", "--test-threads=1"])
        .stdin(Stdio::null());
    command
}

/// Set in a child started by [`alone`]: the name of the test it runs.
const ALONE: &str = "ONELOOP_TEST_ALONE";

/// For a test that needs its process to itself. In the test harness's process: runs
/// the test `name` (of the module whose `module_path!()` is `module`) again, alone, in
/// a child process, fails unless it passed there, and returns `false`: the caller
/// returns. In that child: returns `true`, and the caller runs its body.
///
/// ```no_run
/// #[test]
/// fn counts_on_the_next_fd_number() {
///     if !oneloop_testkit::alone(module_path!(), "counts_on_the_next_fd_number") {
///         return;
///     }
///     // ... the body, with no other test's thread in the process.
/// }
/// ```
pub fn alone(module: &str, name: &str) -> bool {
    let whole = test_name(module, name);
    if std::env::var_os(ALONE).is_some_and(|running| running == *whole) {
        return true;
    }
    // No watchdog here: the child's own test ends a hang.
    let output = rerun_alone(module, name)
        .env(ALONE, &whole)
        .output()
        .expect("the test binary runs again");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "{whole} failed in its child process ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    false
}

/// Opens `/dev/null` until the process's fd table is full, for a child process that
/// must run out of file descriptors (its limit lowered, or simply used up), and returns
/// the files: dropping them frees the table again.
///
/// # Panics
///
/// When the open that stopped failed with anything but `EMFILE`.
pub fn fill_fd_table() -> Vec<std::fs::File> {
    let mut files = Vec::new();
    loop {
        match std::fs::File::open("/dev/null") {
            Ok(file) => files.push(file),
            Err(error) => {
                assert_eq!(error.raw_os_error(), Some(24), "EMFILE: {error}");
                return files;
            }
        }
    }
}
