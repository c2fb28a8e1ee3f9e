//! The echo handler: every line that comes in goes back out.
#![allow(unused_variables, unused_imports)]

use crate::{AsyncRead, StreamError, StreamReader, StreamWriter};

/// Echoes lines from `reader` to `writer` until end of file, then shuts the writing
/// half down, and returns how many lines it echoed.
///
/// - Each line goes back with `write`, followed by `drain().await`: a peer that sends
///   faster than it reads pauses this handler instead of growing its buffer.
/// - At end of file (`read_line` gives `Ok(None)`), `shutdown` flushes what is
///   buffered and sends end of file: the half-closed peer reads every echo, then EOF.
/// - Any error (reset, not UTF-8, a line over the limit, end of file mid-line) ends
///   the handler with that error; the reader keeps whatever it had not returned.
pub async fn echo<R: AsyncRead>(
    reader: &mut StreamReader<R>,
    writer: &mut StreamWriter,
) -> Result<u64, StreamError> {
    todo!(
        "stage 6, exercise 4: read lines, write and drain each, shut down at end of \
         file — see chapter 6.5"
    )
}
