//! Printing that survives a closed pipe.
//!
//! `println!` panics when stdout is gone, as in `cargo course test 1 | head -3`: the
//! reader exits and the next write fails with `EPIPE`. A command line tool should
//! simply stop then, as `cat` does, so every line the course prints goes through
//! [`write()`], which ends the program quietly when its reader has gone away.

use std::fmt;
use std::io::{self, Write};
use std::process;

/// Where a line goes.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Stream {
    Out,
    Err,
}

/// Writes `args` to `stream`; a closed pipe ends the program quietly.
pub(crate) fn write(stream: Stream, args: fmt::Arguments<'_>) {
    let result = match stream {
        Stream::Out => io::stdout().lock().write_fmt(args),
        Stream::Err => io::stderr().lock().write_fmt(args),
    };
    if let Err(error) = result {
        exit_on(stream, &error);
    }
}

/// Flushes stdout before the program ends; a closed pipe is not an error.
pub(crate) fn flush() {
    if let Err(error) = io::stdout().lock().flush() {
        exit_on(Stream::Out, &error);
    }
}

fn exit_on(stream: Stream, error: &io::Error) -> ! {
    if error.kind() == io::ErrorKind::BrokenPipe {
        // Nobody reads any more: nothing is lost by stopping, and nothing to report.
        process::exit(0);
    }
    if let Stream::Out = stream {
        // stderr may still work; if it does not, there is no one left to tell.
        let _ = writeln!(io::stderr(), "error: cannot write to stdout: {error}");
    }
    process::exit(1);
}

/// `println!` that stops quietly on a closed pipe.
macro_rules! outln {
    () => { $crate::cli::output::write($crate::cli::output::Stream::Out, format_args!("\n")) };
    ($($arg:tt)*) => {
        $crate::cli::output::write(
            $crate::cli::output::Stream::Out,
            format_args!("{}\n", format_args!($($arg)*)),
        )
    };
}

/// `print!` that stops quietly on a closed pipe.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::output::write($crate::cli::output::Stream::Out, format_args!($($arg)*))
    };
}

/// `eprintln!` that stops quietly on a closed pipe.
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::cli::output::write(
            $crate::cli::output::Stream::Err,
            format_args!("{}\n", format_args!($($arg)*)),
        )
    };
}

/// `eprint!` that stops quietly on a closed pipe.
macro_rules! err {
    ($($arg:tt)*) => {
        $crate::cli::output::write($crate::cli::output::Stream::Err, format_args!($($arg)*))
    };
}
