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

use crate::Frame;
use crate::limits::{Limits, ParseError, Step, integer, length, line, protocol, text};

// ANCHOR: parse
/// Parses one frame from the front of `buf` (see the module docs for the three
/// answers).
pub fn parse(buf: &[u8], limits: &Limits) -> Result<Option<(Frame, usize)>, ParseError> {
    let mut at = 0;
    Ok(frame(buf, &mut at, limits, 0)?.map(|frame| (frame, at)))
}

/// The frame that starts at `*at`; on success `*at` is just past it.
fn frame(buf: &[u8], at: &mut usize, limits: &Limits, depth: usize) -> Step<Frame> {
    let Some(kind) = buf.get(*at).copied() else {
        return Ok(None);
    };
    let Some(line) = line(buf, *at + 1, limits)? else {
        return Ok(None);
    };
    let mut next = *at + 1 + line.len() + 2;
    let frame = match kind {
        b'+' => Frame::Simple(text(line)?),
        b'-' => Frame::Error(text(line)?),
        b':' => Frame::Integer(integer(line)?),
        b'$' => {
            let Some(len) = length(line, limits.max_bulk, "invalid bulk length")? else {
                *at = next;
                return Ok(Some(Frame::Bulk(None)));
            };
            // The bytes and their `\r\n` must all be here before anything is copied.
            let Some(end) = next.checked_add(len + 2) else {
                return Err(protocol("invalid bulk length"));
            };
            if buf.len() < end {
                return Ok(None);
            }
            if &buf[next + len..end] != b"\r\n" {
                return Err(protocol("bulk string not followed by CRLF"));
            }
            let bytes = buf[next..next + len].to_vec();
            next = end;
            Frame::Bulk(Some(bytes))
        }
        b'*' => {
            if depth >= limits.max_depth {
                return Err(protocol("arrays nested too deep"));
            }
            let Some(count) = length(line, limits.max_elements, "invalid multibulk length")? else {
                *at = next;
                return Ok(Some(Frame::Array(None)));
            };
            // Every element takes at least three bytes (`+\r\n`): a count larger than
            // the buffer allows reserves no more than the buffer could hold.
            let mut items = Vec::with_capacity(count.min((buf.len() - next) / 3));
            for _ in 0..count {
                match frame(buf, &mut next, limits, depth + 1)? {
                    Some(item) => items.push(item),
                    None => return Ok(None),
                }
            }
            Frame::Array(Some(items))
        }
        other => {
            return Err(protocol(format_args!(
                "expected a type byte, got '{}'",
                char::from(other).escape_default()
            )));
        }
    };
    *at = next;
    Ok(Some(frame))
}
// ANCHOR_END: parse
