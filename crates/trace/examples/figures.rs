//! Regenerates every figure: `cargo run -q -p oneloop-trace --example figures -- <dir>`
//! (`cargo course figures` runs it with `book/src/figures`).

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let (Some(dir), None) = (args.next(), args.next()) else {
        eprintln!("usage: figures <output dir>");
        return ExitCode::from(2);
    };
    let dir = PathBuf::from(dir);
    match oneloop_trace::write_figures(&dir) {
        Ok(written) => {
            for path in written {
                println!("wrote {}", path.display());
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!(
                "error: could not write the figures into {}: {error}",
                dir.display()
            );
            ExitCode::FAILURE
        }
    }
}
