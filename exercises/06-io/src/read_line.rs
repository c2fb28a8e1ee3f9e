//! `read_until` and `read_line`: records that end with a delimiter, with a limit.
#![allow(unused_variables, unused_imports)]

use crate::{AsyncRead, StreamError, StreamReader};

impl<R: AsyncRead> StreamReader<R> {
    /// Returns the bytes up to and including the next `delimiter` (asyncio's
    /// `readuntil`), or `Ok(None)` at end of file with nothing buffered.
    ///
    /// - Search only the bytes not searched yet: a line arriving one byte per read
    ///   must not cost quadratic time.
    /// - A delimiter ending a record of at most `limit` bytes, delimiter included: take
    ///   the record out of the buffer. (asyncio's `readuntil` allows one byte more: it
    ///   compares the delimiter's position with the limit.)
    /// - No delimiter and more than `limit` bytes buffered (or a delimiter beyond the
    ///   limit): [`StreamError::LimitOverrun`], leaving the buffer untouched.
    /// - End of file with bytes buffered: [`StreamError::Incomplete`] carrying them.
    pub async fn read_until(&mut self, delimiter: u8) -> Result<Option<Vec<u8>>, StreamError> {
        todo!(
            "stage 6, exercise 3: search the buffer, fill it, enforce the limit, report \
             end of file mid-record — see chapter 6.4"
        )
    }

    /// Returns the next line, `\n` included, as a `String` (asyncio's `readline`, but
    /// strict: a line that is not UTF-8 is [`StreamError::InvalidUtf8`] carrying its
    /// bytes), or `Ok(None)` at end of file with nothing buffered.
    pub async fn read_line(&mut self) -> Result<Option<String>, StreamError> {
        todo!("stage 6, exercise 3: read_until a newline, then check UTF-8 — see chapter 6.4")
    }
}
