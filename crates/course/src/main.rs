//! `cargo course`: the learner's view of oneloop — progress, the next step, tests,
//! hints, solutions — and the maintainers' `verify` and `book` checks.
//!
//! `cargo course help` lists the commands. The work is in the `cli` modules; what they
//! read (the catalog, hints, cargo's test output, the cache) is in the library.

#![forbid(unsafe_code)]

#[macro_use]
mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match cli::run(&args) {
        Ok(code) => code,
        Err(error) => {
            errln!("error: {error}");
            ExitCode::from(error.exit_code())
        }
    };
    cli::output::flush();
    code
}
