//! Prints the task tree of another running oneloop program, as `python -m asyncio
//! pstree PID` does (3.14), or its table of tasks with `--table` (`ps`).
//!
//! The program must have called `enable_introspection` on its loop, and run as the
//! same user: the loop refuses anyone else.
//!
//! ```text
//! cargo run -p oneloop-shared --example tree_demo &
//! cargo run -p oneloop-shared --example ps -- PID
//! cargo run -p oneloop-shared --example ps -- PID --table
//! ```

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(pid) = args.next().and_then(|pid| pid.parse::<u32>().ok()) else {
        eprintln!("usage: ps PID [--table]");
        return ExitCode::from(2);
    };
    let request = match args.next().as_deref() {
        None => "tree",
        Some("--table") => "ps",
        Some(other) => {
            eprintln!("unknown option {other:?}; usage: ps PID [--table]");
            return ExitCode::from(2);
        }
    };
    match oneloop_shared::query(pid, request) {
        Ok(answer) if answer.starts_with("error:") => {
            eprint!("{answer}");
            ExitCode::FAILURE
        }
        Ok(answer) => {
            print!("{answer}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            let path = oneloop_shared::socket_path(pid);
            eprintln!(
                "cannot reach process {pid} at {}: {error} (is it a oneloop program \
                 with introspection enabled, run by you?)",
                path.display()
            );
            ExitCode::FAILURE
        }
    }
}
