//! The incremental RESP2 parser: one frame from the front of a partial buffer.
//!
//! A socket delivers bytes, not frames. One read may hold half a command, or a hundred
//! pipelined commands and the start of the next. So [`parse`] looks at the bytes the
//! connection has buffered so far and answers one of three things:
//!
//! - `Ok(Some((frame, used)))`: a whole frame was there, in its first `used` bytes;
//!   the caller drops those bytes and calls again for the next frame;
//! - `Ok(None)`: the buffer holds the start of a frame and no more; read more bytes
//!   and call again (nothing is consumed, so nothing is lost);
//! - `Err(..)`: the bytes can never become a frame (a bad header, a length past the
//!   limits); the connection answers with the error and closes.
//!
//! The parser allocates only for bytes already in the buffer: a header that announces
//! a gigabyte allocates nothing until the gigabyte has arrived, and [`Limits`] refuses
//! it long before. A frame that is still incomplete is parsed again from its start on
//! the next call. A lone bulk string is not copied until it is whole, but in an array
//! the elements that have already arrived are copied again on every call.
#![allow(unused_variables, unused_imports)]

use crate::Frame;
use crate::limits::{Limits, ParseError, Step, integer, length, line, protocol, text};

/// Parses one frame from the front of `buf` (see the module docs for the three
/// answers).
///
/// The pieces are in `limits.rs`: `line(buf, from, limits)` finds a header line and
/// enforces `max_line`; `text`, `integer` and `length(line, max, what)` read a line's
/// contents (`length` gives `None` for -1, a null, and refuses a length over `max`);
/// `protocol(what)` makes the error. A bulk string is binary: its header gives its
/// length, and its bytes must be followed by `\r\n`. Arrays nest at most
/// `limits.max_depth` deep.
///
/// The tests read the errors' texts. Each is `protocol(what)`, which adds "Protocol
/// error: " in front of `what`:
///
/// - a first byte that names no type: `expected a type byte, got '?'`, with the byte
///   (escaped by `char::escape_default`) in place of `?`;
/// - a `$` header `length` refuses: `invalid bulk length` (its `what`); a `*` header:
///   `invalid multibulk length`;
/// - a bulk string's bytes followed by anything but `\r\n`: `bulk string not followed
///   by CRLF`;
/// - an array deeper than `limits.max_depth`: `arrays nested too deep`.
pub fn parse(buf: &[u8], limits: &Limits) -> Result<Option<(Frame, usize)>, ParseError> {
    todo!(
        "stage 11, exercise 1: one frame from the front of a partial buffer, or None \
         until it has all arrived — see chapter 11.1"
    )
}
