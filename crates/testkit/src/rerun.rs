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
