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
//! the next call; that costs a re-scan of the headers, never a copy of a bulk string.

use std::fmt;

use crate::Frame;

/// How big a frame the parser accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The longest bulk string, in bytes (Redis's `proto-max-bulk-len` is 512 MiB).
    pub max_bulk: usize,
    /// The most elements in one array (Redis accepts up to 2^31 - 1 arguments).
    pub max_elements: usize,
    /// How deep arrays may nest (a command is one level; replies nest more).
    pub max_depth: usize,
    /// The longest header line, `\r\n` excluded (Redis's inline limit is 64 KiB).
    pub max_line: usize,
}

/// The limits of the server by default: bulk strings up to 1 MiB.
pub const DEFAULT_LIMITS: Limits = Limits {
    max_bulk: 1024 * 1024,
    max_elements: 1024 * 1024,
    max_depth: 8,
    max_line: 64 * 1024,
};

impl Default for Limits {
    fn default() -> Self {
        DEFAULT_LIMITS
    }
}

/// Bytes that can never become a frame. The message is what the client is sent
/// (after `-ERR `), as Redis words it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError(pub String);

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseError {}

fn protocol(what: impl fmt::Display) -> ParseError {
    ParseError(format!("Protocol error: {what}"))
}

/// One step of the parse: `None` while the buffer ends too early.
type Step<T> = Result<Option<T>, ParseError>;

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

/// The header line starting at `from`, without its `\r\n`; `None` if the `\r\n` has
/// not arrived yet.
fn line<'b>(buf: &'b [u8], from: usize, limits: &Limits) -> Step<&'b [u8]> {
    let rest = buf.get(from..).unwrap_or_default();
    match rest.windows(2).position(|pair| pair == b"\r\n") {
        Some(end) if end > limits.max_line => Err(protocol("header line too long")),
        Some(end) => Ok(Some(&rest[..end])),
        // No end yet: fine while the line could still fit.
        None if rest.len() > limits.max_line + 1 => Err(protocol("header line too long")),
        None => Ok(None),
    }
}

fn text(line: &[u8]) -> Result<String, ParseError> {
    String::from_utf8(line.to_vec()).map_err(|_| protocol("simple string is not UTF-8"))
}

fn integer(line: &[u8]) -> Result<i64, ParseError> {
    std::str::from_utf8(line)
        .ok()
        .filter(|s| !s.starts_with('+'))
        .and_then(|s| s.parse::<i64>().ok())
        .ok_or_else(|| protocol("invalid integer"))
}

/// A length header: `None` for -1 (null), else a length of at most `max`.
fn length(line: &[u8], max: usize, what: &str) -> Result<Option<usize>, ParseError> {
    match integer(line).map_err(|_| protocol(what))? {
        -1 => Ok(None),
        n if n < 0 => Err(protocol(what)),
        n => match usize::try_from(n) {
            Ok(n) if n <= max => Ok(Some(n)),
            _ => Err(protocol(format_args!(
                "{what}: {n} is over the limit of {max}"
            ))),
        },
    }
}
