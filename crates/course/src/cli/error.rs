//! The one error type of the command line: a message and an exit code.

use std::fmt;

/// A failure to report on one line (plus, for a compile error, the compiler's block).
#[derive(Debug)]
pub(crate) struct CliError {
    message: String,
    code: u8,
}

impl CliError {
    /// The user asked for something that cannot be done as asked (exit code 2).
    pub(crate) fn misuse(message: impl Into<String>) -> CliError {
        CliError {
            message: message.into(),
            code: 2,
        }
    }

    /// Something the command checks did not hold (exit code 1).
    pub(crate) fn failed(message: impl Into<String>) -> CliError {
        CliError {
            message: message.into(),
            code: 1,
        }
    }

    /// The learner's code of `stage` does not compile; `block` is the first error.
    pub(crate) fn does_not_compile(stage: u32, block: &str) -> CliError {
        CliError::failed(format!(
            "stage {stage} does not compile; the compiler's first error:\n\n{block}\n"
        ))
    }

    pub(crate) fn exit_code(&self) -> u8 {
        self.code
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
