//! RESP2 frames, and how each is written on the wire.
//!
//! RESP2 has five kinds of value, each starting with one byte that says which:
//! `+` a simple string, `-` an error, `:` an integer, `$` a bulk string (length, then
//! bytes), `*` an array (count, then that many frames). Every header ends with `\r\n`.
//! A bulk string or an array of length -1 is "null".

/// One RESP2 value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// `+OK\r\n`: a short line with no `\r` or `\n` in it.
    Simple(String),
    /// `-ERR message\r\n`.
    Error(String),
    /// `:42\r\n`.
    Integer(i64),
    /// `$5\r\nhello\r\n`, or `$-1\r\n` for `None`.
    Bulk(Option<Vec<u8>>),
    /// `*2\r\n…`, or `*-1\r\n` for `None`.
    Array(Option<Vec<Frame>>),
}

impl Frame {
    /// `+OK`.
    pub fn ok() -> Frame {
        Frame::Simple("OK".to_owned())
    }

    /// A bulk string of `bytes`.
    pub fn bulk(bytes: impl Into<Vec<u8>>) -> Frame {
        Frame::Bulk(Some(bytes.into()))
    }

    /// An error with `message` (which should start with a code such as `ERR`).
    pub fn error(message: impl Into<String>) -> Frame {
        Frame::Error(message.into())
    }

    /// An array of bulk strings: the shape of every command a client sends.
    pub fn command<I, B>(parts: I) -> Frame
    where
        I: IntoIterator<Item = B>,
        B: Into<Vec<u8>>,
    {
        Frame::Array(Some(parts.into_iter().map(Frame::bulk).collect()))
    }

    // ANCHOR: encode
    /// Appends the frame's bytes to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Frame::Simple(line) => line_of(out, b'+', line.as_bytes()),
            Frame::Error(line) => line_of(out, b'-', line.as_bytes()),
            Frame::Integer(n) => number_line(out, b':', *n < 0, n.unsigned_abs()),
            Frame::Bulk(bytes) => encode_bulk(bytes.as_deref(), out),
            Frame::Array(None) => out.extend_from_slice(b"*-1\r\n"),
            Frame::Array(Some(items)) => {
                number_line(out, b'*', false, items.len() as u64);
                for item in items {
                    item.encode(out);
                }
            }
        }
    }
    // ANCHOR_END: encode

    /// The frame's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.encode(&mut out);
        out
    }
}

/// Appends a bulk string of `bytes` to `out` (`None`: the null bulk string), as
/// [`Frame::Bulk`] would be written, from bytes the caller only borrows.
pub fn encode_bulk(bytes: Option<&[u8]>, out: &mut Vec<u8>) {
    match bytes {
        None => out.extend_from_slice(b"$-1\r\n"),
        Some(bytes) => {
            number_line(out, b'$', false, bytes.len() as u64);
            out.extend_from_slice(bytes);
            out.extend_from_slice(b"\r\n");
        }
    }
}

/// An error line whose message is bytes, written as the client sent them (Redis quotes
/// a command's name and arguments byte for byte, UTF-8 or not); `\r` and `\n` become
/// spaces, as in every line.
pub(crate) fn error_line(out: &mut Vec<u8>, message: &[u8]) {
    line_of(out, b'-', message);
}

/// `kind`, `text` and the line's end. A `\r` or `\n` inside a simple line would end
/// it early: such bytes are written as spaces.
fn line_of(out: &mut Vec<u8>, kind: u8, text: &[u8]) {
    out.push(kind);
    out.extend(
        text.iter()
            .map(|&b| if b == b'\r' || b == b'\n' { b' ' } else { b }),
    );
    out.extend_from_slice(b"\r\n");
}

/// `kind`, a number in decimal (`-` first if `negative`), and the line's end. The
/// digits are made on the stack: writing a length or an integer allocates nothing.
fn number_line(out: &mut Vec<u8>, kind: u8, negative: bool, magnitude: u64) {
    // u64::MAX has 20 digits.
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = magnitude;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    out.push(kind);
    if negative {
        out.push(b'-');
    }
    out.extend_from_slice(&digits[at..]);
    out.extend_from_slice(b"\r\n");
}
