//! Regenerates every figure and every stepper recording:
//! `cargo run -q -p oneloop-trace --example figures -- <figures dir> [<recordings dir>]`
//! (`cargo course figures` runs it with `book/src/figures` and `book/src/stepper/data`).

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let (Some(dir), recordings, None) = (args.next(), args.next(), args.next()) else {
        eprintln!("usage: figures <figures dir> [<recordings dir>]");
        return ExitCode::from(2);
    };
    let dir = PathBuf::from(dir);
    let mut written = match oneloop_trace::write_figures(&dir) {
        Ok(written) => written,
        Err(error) => {
            eprintln!(
                "error: could not write the figures into {}: {error}",
                dir.display()
            );
            return ExitCode::FAILURE;
        }
    };
    if let Some(recordings) = recordings.map(PathBuf::from) {
        match oneloop_trace::write_recordings(&recordings) {
            Ok(more) => written.extend(more),
            Err(error) => {
                eprintln!(
                    "error: could not write the recordings into {}: {error}",
                    recordings.display()
                );
                return ExitCode::FAILURE;
            }
        }
    }
    for path in written {
        println!("wrote {}", path.display());
    }
    ExitCode::SUCCESS
}
