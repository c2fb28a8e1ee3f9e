//! `read_until` and `read_line`: records that end with a delimiter, with a limit.

use crate::{AsyncRead, StreamError, StreamReader};

// ANCHOR: read_until
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
        let mut searched = 0;
        loop {
            if let Some(at) = self.buffered()[searched..]
                .iter()
                .position(|&byte| byte == delimiter)
            {
                let end = searched + at + 1;
                if end > self.limit() {
                    return Err(self.overrun());
                }
                return Ok(Some(self.take(end)));
            }
            searched = self.buffered().len();
            if searched > self.limit() {
                return Err(self.overrun());
            }
            if self.fill_buf().await? == 0 {
                if self.buffered().is_empty() {
                    return Ok(None);
                }
                return Err(StreamError::Incomplete {
                    partial: self.take(usize::MAX),
                    expected: None,
                });
            }
        }
    }

    /// Returns the next line, `\n` included, as a `String` (asyncio's `readline`, but
    /// strict: a line that is not UTF-8 is [`StreamError::InvalidUtf8`] carrying its
    /// bytes), or `Ok(None)` at end of file with nothing buffered.
    pub async fn read_line(&mut self) -> Result<Option<String>, StreamError> {
        let Some(line) = self.read_until(b'\n').await? else {
            return Ok(None);
        };
        match String::from_utf8(line) {
            Ok(line) => Ok(Some(line)),
            Err(error) => {
                let valid_up_to = error.utf8_error().valid_up_to();
                Err(StreamError::InvalidUtf8 {
                    line: error.into_bytes(),
                    valid_up_to,
                })
            }
        }
    }
}
// ANCHOR_END: read_until
