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
    /// The most bytes of a header line, its type byte included, that may arrive with no
    /// `\r\n`; for an inline command, the most bytes that may arrive with no `\n` among
    /// them (Redis's `PROTO_INLINE_MAX_SIZE`, 64 KiB, for both).
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
/// The header line starting at `from` (just after its type byte), without its
/// `\r\n`; `None` if the `\r\n` has not arrived yet.
///
/// The limit is Redis's: once more than `max_line` bytes, the type byte among them,
/// have arrived with no line end, the line is refused, in Redis's words for a count
/// (`too big mbulk count string` after `*`, `too big bulk count string` after `$`).
/// A line whose last byte so far is a `\r` waits for one more: Redis ends a count line
/// at its first `\r`, and refuses it for its length only while none has come. A line
/// whose end has arrived is returned whatever its length: a count that long is no
/// number, and the reader of the count refuses it.
pub(crate) fn line<'b>(buf: &'b [u8], from: usize, limits: &Limits) -> Step<&'b [u8]> {
    line_resumed(buf, from, &mut 0, limits)
}

/// [`line`], for a line that arrives in pieces: `searched` is how many of its bytes
/// earlier calls looked at without finding its end, and this call starts after them
/// (and then records how far it got). A line that comes a byte at a time is then
/// searched once in all, not once per byte.
pub(crate) fn line_resumed<'b>(
    buf: &'b [u8],
    from: usize,
    searched: &mut usize,
    limits: &Limits,
) -> Step<&'b [u8]> {
    let rest = buf.get(from..).unwrap_or_default();
    let start = (*searched).min(rest.len());
    // Each `\r` found is the line's end if a `\n` follows it.
    let end = find_crlf(&rest[start..]).map(|at| start + at);
    looked_at(end.map_or(rest.len(), |end| end + 2) - start);
    match end {
        Some(end) => {
            // Found again at once if the caller asks again (its bytes still to come).
            *searched = end;
            Ok(Some(&rest[..end]))
        }
        // No end yet, and the type byte and these fill the limit; a `\r` at the end
        // may be the line's, if its `\n` comes next.
        None if rest.len() >= limits.max_line && rest.last() != Some(&b'\r') => {
            Err(too_long(buf, from))
        }
        None => {
            // A `\r` at the end may be followed by its `\n`: look at it again.
            *searched = rest.len() - usize::from(rest.last() == Some(&b'\r'));
            Ok(None)
        }
    }
}

/// The error for a header line with no end past the limit, named by its type byte
/// (the byte before `from`) as Redis names the two a request can hold.
fn too_long(buf: &[u8], from: usize) -> ParseError {
    match from.checked_sub(1).and_then(|at| buf.get(at)) {
        Some(b'*') => protocol("too big mbulk count string"),
        Some(b'$') => protocol("too big bulk count string"),
        _ => protocol("header line too long"),
    }
}
// ANCHOR_END: line

/// Where the first `\r\n` in `bytes` starts.
fn find_crlf(bytes: &[u8]) -> Option<usize> {
    let mut at = 0;
    while let Some(offset) = bytes[at..].iter().position(|&b| b == b'\r') {
        let cr = at + offset;
        if bytes.get(cr + 1) == Some(&b'\n') {
            return Some(cr);
        }
        at = cr + 1;
    }
    None
}

#[cfg(test)]
thread_local! {
    /// How many bytes the line searches of this thread looked at (for the tests).
    pub(crate) static LOOKED_AT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Counts `bytes` looked at by a search, in tests; nothing otherwise.
fn looked_at(bytes: usize) {
    #[cfg(test)]
    LOOKED_AT.with(|count| count.set(count.get() + bytes));
    #[cfg(not(test))]
    let _ = bytes;
}

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
/// Words are split as Redis splits them. Spaces, tabs and `\r` end a word; vertical
/// tabs and form feeds also separate words, but after a word's first byte they are
/// part of it. A
/// word may hold a "double-quoted" part, where `\n`, `\r`, `\t`, `\b`, `\a` and
/// `\xHH` stand for their bytes and a `\` before any other byte stands for that
/// byte; or a 'single-quoted' part, where only `\'` is special. A quote left open,
/// or closed with no space after it, is an error.
///
/// The limit is Redis's: an error when more than `max_line` bytes have arrived with
/// no `\n` among them. A longer line whose `\n` is already in the buffer is read, as
/// Redis reads it (so how long a line passes depends on how its bytes arrive).
///
/// `searched` is how many bytes earlier calls looked at without finding the `\n`: this
/// call starts after them, so a line that arrives a byte at a time is searched once.
pub(crate) fn inline(
    buf: &[u8],
    searched: &mut usize,
    limits: &Limits,
) -> Step<(Vec<Vec<u8>>, usize)> {
    let start = (*searched).min(buf.len());
    let end = buf[start..]
        .iter()
        .position(|&b| b == b'\n')
        .map(|at| start + at);
    looked_at(end.map_or(buf.len(), |end| end + 1) - start);
    let Some(end) = end else {
        if buf.len() > limits.max_line {
            return Err(protocol("too big inline request"));
        }
        *searched = buf.len();
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
///
/// As in Redis, any white space separates words (vertical tab and form feed too), but
/// only a space, a tab, `\r` or `\n` ends a word: a vertical tab or a form feed after
/// its first byte is part of it.
fn split_words(line: &[u8]) -> Option<Vec<Vec<u8>>> {
    let is_space = |b: u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b'\x0b' | b'\x0c');
    let ends_word = |b: u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n');
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
                (Quote::None, b) if ends_word(b) => break,
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
    /// How much of the line being read (a header, or an inline command) was searched
    /// for its end already.
    pub(crate) searched: usize,
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
            let Some(header) = line_resumed(buf, 1, &mut progress.searched, limits)? else {
                return Ok(false);
            };
            let Ok(Some(count)) = length(header, limits.max_elements, "") else {
                return Ok(true);
            };
            progress.at = 1 + header.len() + 2;
            progress.searched = 0;
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
        let Some(header) = line_resumed(buf, at + 1, &mut progress.searched, limits)? else {
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
            searched: 0,
        };
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Bytes looked at by the searches of `run`.
    fn looked_at_by(run: impl FnOnce()) -> usize {
        let before = LOOKED_AT.with(std::cell::Cell::get);
        run();
        LOOKED_AT.with(std::cell::Cell::get) - before
    }

    /// Feeds `request` to `scan` one byte more at a time, as reads that bring a byte
    /// each would, keeping its progress; returns the answer once the last byte is in.
    fn scanned_a_byte_at_a_time(request: &[u8]) -> Result<bool, ParseError> {
        let mut progress = Scan::default();
        for end in 1..request.len() {
            if scan(&request[..end], &mut progress, &DEFAULT_LIMITS)? {
                return Ok(true);
            }
        }
        scan(request, &mut progress, &DEFAULT_LIMITS)
    }

    /// Feeds `line` to `inline` the same way.
    fn inline_a_byte_at_a_time(line: &[u8]) -> Step<(Vec<Vec<u8>>, usize)> {
        let mut searched = 0;
        for end in 1..line.len() {
            if let Some(found) = inline(&line[..end], &mut searched, &DEFAULT_LIMITS)? {
                return Ok(Some(found));
            }
        }
        inline(line, &mut searched, &DEFAULT_LIMITS)
    }

    const LONG: usize = 60 * 1024;

    #[test]
    fn an_inline_command_that_arrives_a_byte_at_a_time_is_searched_once() {
        let mut line = b"SET k ".to_vec();
        line.extend(std::iter::repeat_n(b'v', LONG));
        line.extend(b"\r\n");
        let mut found = None;
        let looked = looked_at_by(|| found = Some(inline_a_byte_at_a_time(&line)));
        let (words, used) = found.unwrap().unwrap().expect("the line has ended");
        assert_eq!((words.len(), used), (3, line.len()));
        // Once in all (searching again from the start at every byte: 1.9 billion).
        assert!(looked <= line.len(), "{looked} bytes looked at");
    }

    #[test]
    fn an_inline_line_is_refused_only_when_the_limit_has_arrived_with_no_line_end() {
        // As Redis 7 answers: past 64 KiB with no `\n` buffered, an error (the `\r`
        // counts); a longer line whose `\n` is buffered too, read.
        let max = DEFAULT_LIMITS.max_line;
        let a_line = |len: usize| [&b"ECHO "[..], &vec![b'A'; len - 5], b"\r\n"].concat();
        let too_big = Err(protocol("too big inline request"));
        for (buffered, expected) in [
            (vec![b'A'; max], Ok(None)),
            (vec![b'A'; max + 1], too_big.clone()),
            ([&vec![b'A'; max][..], b"\r"].concat(), too_big),
        ] {
            assert_eq!(inline(&buffered, &mut 0, &DEFAULT_LIMITS), expected);
        }
        for len in [max - 1, max, max + 1, 80_000] {
            let line = a_line(len);
            let (words, used) = inline(&line, &mut 0, &DEFAULT_LIMITS)
                .expect("read")
                .expect("the line has ended");
            assert_eq!((words[1].len(), used), (len - 5, line.len()));
        }
    }

    #[test]
    fn a_header_line_that_arrives_a_byte_at_a_time_is_searched_once() {
        // The array's header, then an element's: each is a line that comes in pieces.
        let digits = "1".repeat(LONG);
        // Both counts are over the limits: the array's header counts as arrived (the
        // parser gives the error), the element's is refused at once.
        let answers = [
            (format!("*{digits}\r\n"), Ok(true)),
            (
                format!("*1\r\n${digits}\r\n"),
                Err(protocol("invalid bulk length")),
            ),
        ];
        for (request, expected) in answers {
            let request = request.as_bytes();
            let mut answer = None;
            let looked = looked_at_by(|| answer = Some(scanned_a_byte_at_a_time(request)));
            assert_eq!(answer, Some(expected));
            assert!(looked <= 2 * request.len(), "{looked} bytes looked at");
        }
    }

    /// A request of a few bulk strings, or a line of words, and where to split it.
    fn request_and_cuts() -> impl Strategy<Value = (Vec<u8>, Vec<usize>)> {
        let word = prop::collection::vec(prop::sample::select(b"ab\r\n ".to_vec()), 0..12);
        let array = prop::collection::vec(word.clone(), 0..4).prop_map(|words| {
            let mut bytes = format!("*{}\r\n", words.len()).into_bytes();
            for word in words {
                bytes.extend(format!("${}\r\n", word.len()).as_bytes());
                bytes.extend(word);
                bytes.extend(b"\r\n");
            }
            bytes
        });
        let inline = word.prop_map(|mut word| {
            word.insert(0, b'x');
            word
        });
        let garbled = prop::collection::vec(prop::sample::select(b"*$1-\r\nab".to_vec()), 1..24);
        prop_oneof![array, inline, garbled].prop_flat_map(|bytes| {
            let len = bytes.len();
            (Just(bytes), prop::collection::vec(0..=len, 0..6))
        })
    }

    /// The prefixes of `bytes` that reads ending at `cuts` (and at its end) would
    /// have buffered, in order.
    fn prefixes(bytes: &[u8], cuts: &[usize]) -> Vec<usize> {
        let mut ends: Vec<usize> = cuts.iter().copied().chain([bytes.len()]).collect();
        ends.sort_unstable();
        ends.dedup();
        ends
    }

    proptest! {
        /// Going on from where the last call stopped answers as a fresh look at the
        /// same bytes would, however the reads split them.
        #[test]
        fn a_resumed_scan_answers_as_a_fresh_one((bytes, cuts) in request_and_cuts()) {
            let limits = DEFAULT_LIMITS;
            let mut progress = Scan::default();
            let mut searched = 0;
            for end in prefixes(&bytes, &cuts) {
                let buf = &bytes[..end];
                if buf.first() == Some(&b'*') {
                    let resumed = scan(buf, &mut progress, &limits);
                    prop_assert_eq!(&resumed, &scan(buf, &mut Scan::default(), &limits));
                    if resumed != Ok(false) {
                        break;
                    }
                } else {
                    let resumed = inline(buf, &mut searched, &limits);
                    prop_assert_eq!(&resumed, &inline(buf, &mut 0, &limits));
                    if resumed != Ok(None) {
                        break;
                    }
                }
            }
        }
    }
}
