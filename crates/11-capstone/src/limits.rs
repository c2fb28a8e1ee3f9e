//! What the parser accepts, and its errors: the limits on a frame, and the small
//! readers (a header line, an integer, a length) that [`parse`](crate::parse) is built
//! from.

use std::fmt;

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

/// A protocol error, worded as Redis words them.
pub(crate) fn protocol(what: impl fmt::Display) -> ParseError {
    ParseError(format!("Protocol error: {what}"))
}

/// One step of the parse: `None` while the buffer ends too early.
pub(crate) type Step<T> = Result<Option<T>, ParseError>;

// ANCHOR: line
/// The header line starting at `from`, without its `\r\n`; `None` if the `\r\n` has
/// not arrived yet.
///
/// It looks at no more than the longest line allowed and its `\r\n`: past that, the
/// line is too long whatever follows.
pub(crate) fn line<'b>(buf: &'b [u8], from: usize, limits: &Limits) -> Step<&'b [u8]> {
    let rest = buf.get(from..).unwrap_or_default();
    let window = &rest[..rest.len().min(limits.max_line.saturating_add(2))];
    let mut end = None;
    let mut at = 0;
    // Each `\r` found is the line's end if a `\n` follows it.
    while let Some(offset) = window[at..].iter().position(|&b| b == b'\r') {
        let cr = at + offset;
        if window.get(cr + 1) == Some(&b'\n') {
            end = Some(cr);
            break;
        }
        at = cr + 1;
    }
    match end {
        Some(end) if end > limits.max_line => Err(protocol("header line too long")),
        Some(end) => Ok(Some(&rest[..end])),
        // No end yet: fine while the line could still fit.
        None if rest.len() > limits.max_line + 1 => Err(protocol("header line too long")),
        None => Ok(None),
    }
}
// ANCHOR_END: line

/// A simple string or error line as text.
pub(crate) fn text(line: &[u8]) -> Result<String, ParseError> {
    String::from_utf8(line.to_vec()).map_err(|_| protocol("simple string is not UTF-8"))
}

/// An integer line: optional `-`, then digits (no `+`, as Redis reads it).
pub(crate) fn integer(line: &[u8]) -> Result<i64, ParseError> {
    let invalid = || protocol("invalid integer");
    let (negative, digits) = match line.split_first() {
        Some((b'-', digits)) => (true, digits),
        _ => (false, line),
    };
    if digits.is_empty() {
        return Err(invalid());
    }
    // Accumulated as a negative number, which reaches i64::MIN as well as i64::MAX.
    let mut value: i64 = 0;
    for &byte in digits {
        if !byte.is_ascii_digit() {
            return Err(invalid());
        }
        value = value
            .checked_mul(10)
            .and_then(|v| v.checked_sub(i64::from(byte - b'0')))
            .ok_or_else(invalid)?;
    }
    if negative {
        Ok(value)
    } else {
        value.checked_neg().ok_or_else(invalid)
    }
}

/// A length header: `None` for -1 (null), else a length of at most `max`.
/// Its digits are read as strictly as Redis reads them ([`decimal`]: no leading zero).
pub(crate) fn length(line: &[u8], max: usize, what: &str) -> Result<Option<usize>, ParseError> {
    match decimal(line).ok_or_else(|| protocol(what))? {
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

/// A command's argument or a stored value read as an integer, as strictly as Redis
/// reads one: an optional `-`, then digits with no leading zero (`0` alone is
/// fine), and no `+`, space or `-0`.
pub(crate) fn decimal(bytes: &[u8]) -> Option<i64> {
    let digits = bytes.strip_prefix(b"-").unwrap_or(bytes);
    match digits.first() {
        Some(b'0') if bytes.len() > 1 => None,
        _ => integer(bytes).ok(),
    }
}

/// An inline command, the form telnet and `nc` send: one line of words, ended by
/// `\n` (a `\r` before it is dropped). Returns its words and the bytes the line took,
/// or `None` while the line has not ended. A line with no words is skipped: it
/// parses to no words at all.
///
/// Words are split as Redis splits them. Spaces, tabs and `\r` separate words. A
/// word may hold a "double-quoted" part, where `\n`, `\r`, `\t`, `\b`, `\a` and
/// `\xHH` stand for their bytes and a `\` before any other byte stands for that
/// byte; or a 'single-quoted' part, where only `\'` is special. A quote left open,
/// or closed with no space after it, is an error.
pub(crate) fn inline(buf: &[u8], limits: &Limits) -> Step<(Vec<Vec<u8>>, usize)> {
    let Some(end) = buf
        .iter()
        .take(limits.max_line + 1)
        .position(|&b| b == b'\n')
    else {
        if buf.len() > limits.max_line {
            return Err(protocol("too big inline request"));
        }
        return Ok(None);
    };
    let line = &buf[..end];
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let words = split_words(line).ok_or_else(|| protocol("unbalanced quotes in request"))?;
    Ok(Some((words, end + 1)))
}

/// Where a word's reader is: outside quotes, or inside which kind.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Quote {
    None,
    Double,
    Single,
}

/// The words of an inline line; `None` for an unbalanced quote.
fn split_words(line: &[u8]) -> Option<Vec<Vec<u8>>> {
    let is_space = |b: u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b'\x0b' | b'\x0c');
    let mut words = Vec::new();
    let mut at = 0;
    loop {
        while line.get(at).is_some_and(|&b| is_space(b)) {
            at += 1;
        }
        if at == line.len() {
            return Some(words);
        }
        let mut word = Vec::new();
        let mut quote = Quote::None;
        loop {
            let Some(&byte) = line.get(at) else {
                // The line ended: fine between words, not inside quotes.
                if quote != Quote::None {
                    return None;
                }
                break;
            };
            at += 1;
            match (quote, byte) {
                (Quote::None, b) if is_space(b) => break,
                (Quote::None, b'"') => quote = Quote::Double,
                (Quote::None, b'\'') => quote = Quote::Single,
                (Quote::Double | Quote::Single, b) if closes(quote, b) => {
                    // A closing quote must end the word.
                    if line.get(at).is_some_and(|&b| !is_space(b)) {
                        return None;
                    }
                    break;
                }
                (Quote::Double, b'\\') => {
                    let (escaped, used) = escape(&line[at..]);
                    word.push(escaped);
                    at += used;
                }
                (Quote::Single, b'\\') if line.get(at) == Some(&b'\'') => {
                    word.push(b'\'');
                    at += 1;
                }
                (_, b) => word.push(b),
            }
        }
        words.push(word);
    }
}

fn closes(quote: Quote, byte: u8) -> bool {
    matches!(
        (quote, byte),
        (Quote::Double, b'"') | (Quote::Single, b'\'')
    )
}

/// The byte a `\` inside double quotes stands for, given what follows it, and how
/// many bytes of that it used.
fn escape(after: &[u8]) -> (u8, usize) {
    let hex = |b: u8| char::from(b).to_digit(16);
    if let [b'x', high, low, ..] = after
        && let (Some(high), Some(low)) = (hex(*high), hex(*low))
    {
        return ((high * 16 + low) as u8, 3);
    }
    match after.first() {
        None => (b'\\', 0),
        Some(b'n') => (b'\n', 1),
        Some(b'r') => (b'\r', 1),
        Some(b't') => (b'\t', 1),
        Some(b'b') => (b'\x08', 1),
        Some(b'a') => (b'\x07', 1),
        Some(&other) => (other, 1),
    }
}

/// How far [`scan`] checked a request that has not all arrived: where the next
/// argument starts, and how many are still to come. A connection keeps one between
/// reads, and starts a new one for each request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Scan {
    at: usize,
    left: Option<usize>,
}

/// Whether the array request at the front of `buf` has all arrived, going on from
/// where `progress` stopped. It reads the headers only, and copies nothing: a request
/// that arrives in many reads is scanned once in all, and parsed once, when whole.
///
/// A request is an array of bulk strings. Anything else in it is refused as soon as
/// its first byte is seen, as Redis refuses it. A header that [`parse`](crate::parse)
/// would refuse counts as arrived: the parser then gives its error.
pub(crate) fn scan(buf: &[u8], progress: &mut Scan, limits: &Limits) -> Result<bool, ParseError> {
    let left = match progress.left {
        Some(left) => left,
        None => {
            let Some(header) = line(buf, 1, limits)? else {
                return Ok(false);
            };
            let Ok(Some(count)) = length(header, limits.max_elements, "") else {
                return Ok(true);
            };
            progress.at = 1 + header.len() + 2;
            count
        }
    };
    progress.left = Some(left);
    for left in (0..left).rev() {
        let at = progress.at;
        let Some(&kind) = buf.get(at) else {
            return Ok(false);
        };
        if kind != b'$' {
            return Err(protocol(format_args!(
                "expected '$', got '{}'",
                char::from(kind).escape_default()
            )));
        }
        let Some(header) = line(buf, at + 1, limits)? else {
            return Ok(false);
        };
        let Some(len) = length(header, limits.max_bulk, "invalid bulk length")? else {
            return Err(protocol("invalid bulk length"));
        };
        let end = at + 1 + header.len() + 2 + len + 2;
        if buf.len() < end {
            return Ok(false);
        }
        *progress = Scan {
            at: end,
            left: Some(left),
        };
    }
    Ok(true)
}
