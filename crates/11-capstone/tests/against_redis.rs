//! Requests for which the server's bytes once differed from Redis 7.0.15's. Each test
//! sends the bytes that were sent to both and expects what Redis answered; each doc
//! says what the server used to do instead.

mod common;

use std::io::Write;

use common::{ServerProcess, command, read_to_end};
use oneloop_testkit::watchdog_default;

/// Sends `bytes` in one write, half-closes, and reads every reply until the server
/// closes.
fn replies_to(server: &ServerProcess, bytes: &[u8]) -> Vec<u8> {
    let mut stream = server.connect();
    // A server that closes early fails the write: what it sent is still read.
    let _ = stream.write_all(bytes);
    let _ = stream.shutdown(std::net::Shutdown::Write);
    read_to_end(&mut stream)
}

/// A request whose every argument is within `--max-bulk` (1 MiB by default) and
/// whose count is within the element limit is answered, however large the arguments
/// are together: Redis 7 answers `EXISTS` on five keys of 1,000,001 bytes with `:0`.
/// The server used to refuse it with `-ERR query buffer over limit` and close: its
/// query limit was 4 MiB + 128 KiB, and is now its own setting, 64 MiB by default.
#[test]
fn a_request_within_every_limit_is_not_refused_for_its_total_size() {
    watchdog_default(|| {
        let server = ServerProcess::start(&[]);
        let keys: Vec<Vec<u8>> = (b'1'..=b'5')
            .map(|last| {
                let mut key = vec![b'x'; 1_000_000];
                key.push(last);
                key
            })
            .collect();
        let mut parts: Vec<&[u8]> = vec![b"EXISTS"];
        parts.extend(keys.iter().map(Vec::as_slice));
        let mut request = command(&parts);
        request.extend_from_slice(&command(&[b"PING"]));
        assert_eq!(
            String::from_utf8_lossy(&replies_to(&server, &request)),
            ":0\r\n+PONG\r\n"
        );
    });
}

/// Redis shows an unknown command's name and arguments as the client wrote them,
/// byte for byte: `*2\r\n$2\r\n\xff\xfe\r\n$1\r\n\xff\r\n` gets
/// `-ERR unknown command '\xff\xfe', with args beginning with: '\xff' \r\n`. The
/// server used to replace each byte that is not UTF-8 with U+FFFD (`\xef\xbf\xbd`).
#[test]
fn an_unknown_command_is_named_with_its_own_bytes() {
    watchdog_default(|| {
        let server = ServerProcess::start(&[]);
        let got = replies_to(&server, b"*2\r\n$2\r\n\xff\xfe\r\n$1\r\n\xff\r\n");
        assert_eq!(
            got,
            b"-ERR unknown command '\xff\xfe', with args beginning with: '\xff' \r\n".to_vec(),
            "{}",
            String::from_utf8_lossy(&got)
        );
    });
}

/// A `\r` or `\n` inside a quoted name would end the error line early: each becomes a
/// space, as Redis's `rejectCommandFormat` maps them, and every other byte is kept.
#[test]
fn a_cr_or_lf_in_a_quoted_name_becomes_a_space() {
    watchdog_default(|| {
        let server = ServerProcess::start(&[]);
        let got = replies_to(&server, b"*2\r\n$4\r\na\r\nb\r\n$3\r\nc\nd\r\n");
        assert_eq!(
            got,
            b"-ERR unknown command 'a  b', with args beginning with: 'c d' \r\n".to_vec(),
            "{}",
            String::from_utf8_lossy(&got)
        );
    });
}

/// A count line that passes 64 KiB with no `\r\n` gets Redis's own words: `too big
/// mbulk count string` for an array's, `too big bulk count string` for a bulk
/// string's. The server used to say `header line too long` for both.
#[test]
fn a_count_line_too_long_gets_redis_words() {
    watchdog_default(|| {
        let server = ServerProcess::start(&[]);
        let digits = vec![b'1'; 70_000];
        let array = [&b"*"[..], &digits].concat();
        let bulk = [&b"*1\r\n$"[..], &digits].concat();
        for (bytes, error) in [
            (array, "-ERR Protocol error: too big mbulk count string\r\n"),
            (bulk, "-ERR Protocol error: too big bulk count string\r\n"),
        ] {
            assert_eq!(String::from_utf8_lossy(&replies_to(&server, &bytes)), error);
        }
    });
}

/// Redis names an unknown subcommand by its first 128 bytes: `COMMAND` with a
/// 300-byte subcommand gets `-ERR unknown subcommand '` + 128 bytes +
/// `'. Try COMMAND HELP.\r\n`. The server used to name all 300 bytes.
#[test]
fn an_unknown_subcommand_is_named_by_its_first_128_bytes() {
    watchdog_default(|| {
        let server = ServerProcess::start(&[]);
        let long = vec![b'z'; 300];
        let got = replies_to(&server, &command(&[b"COMMAND", &long]));
        let expected = format!(
            "-ERR unknown subcommand '{}'. Try COMMAND HELP.\r\n",
            "z".repeat(128)
        );
        assert_eq!(String::from_utf8_lossy(&got), expected);
    });
}

/// In an inline command Redis separates words only by space, tab, `\r` and `\n`
/// (sdssplitargs; a vertical tab or form feed is skipped only before a word): a
/// `\x0b` or `\x0c` inside a word is part of it. `SET k a\x0bb\r\nGET k\r\n` gets
/// `+OK\r\n$3\r\na\x0bb\r\n`; the server used to split the word in two and answer
/// `-ERR syntax error\r\n$-1\r\n`.
#[test]
fn a_vertical_tab_or_form_feed_inside_an_inline_word_is_part_of_it() {
    watchdog_default(|| {
        let server = ServerProcess::start(&[]);
        let got = replies_to(&server, b"SET k a\x0bb\r\nGET k\r\nECHO\x0ca\r\n");
        assert_eq!(
            String::from_utf8_lossy(&got),
            "+OK\r\n$3\r\na\x0bb\r\n-ERR unknown command 'ECHO\x0ca', with args beginning with: \r\n"
        );
    });
}

/// A NUL byte inside an inline word is part of the word here: `SET k a\0b` stores the
/// three bytes. Redis reads an inline line as a C string (sdssplitargs walks it to its
/// first NUL), so it would stop at the NUL; this server does not.
#[test]
fn a_nul_inside_an_inline_word_is_kept_in_the_word() {
    watchdog_default(|| {
        let server = ServerProcess::start(&[]);
        let got = replies_to(&server, b"SET k a\0b\r\nGET k\r\n");
        assert_eq!(got, b"+OK\r\n$3\r\na\0b\r\n");
    });
}

/// Redis refuses a count line once more than 64 KiB (65,536 bytes) have arrived from
/// its type byte on with no `\r\n`: `*` and 65,536 digits (65,537 bytes) get
/// `-ERR Protocol error: too big mbulk count string\r\n`, and `*1\r\n$` and 65,536
/// digits get `too big bulk count string`. The server used to wait for more until
/// 65,539 (it counted from after the type byte and allowed the `\r\n` on top), so a
/// client that sent these bytes and half-closed got nothing.
#[test]
fn a_count_line_is_refused_at_the_byte_redis_refuses_it() {
    watchdog_default(|| {
        let server = ServerProcess::start(&[]);
        let digits = vec![b'1'; 65_536];
        for (head, error) in [
            (
                &b"*"[..],
                "-ERR Protocol error: too big mbulk count string\r\n",
            ),
            (
                b"*1\r\n$",
                "-ERR Protocol error: too big bulk count string\r\n",
            ),
        ] {
            let bytes = [head, &digits].concat();
            assert_eq!(String::from_utf8_lossy(&replies_to(&server, &bytes)), error);
            // One byte fewer, 64 KiB from the type byte on, still waits: the client
            // half-closes and reads end of file with no reply.
            let within = [head, &digits[1..]].concat();
            assert_eq!(String::from_utf8_lossy(&replies_to(&server, &within)), "");
        }
    });
}

/// Redis ends a count line at its first `\r` and refuses the line for its length only
/// while no `\r` has come (`processMultibulkBuffer` looks for the `\r` alone). A count
/// line that reaches the limit with a `\r` as its last byte so far therefore waits
/// for one more byte; with its `\n` the line has ended, and a count of 65,535 digits
/// is no number: `invalid multibulk length`. The server used to refuse it at the `\r`.
#[test]
fn a_count_line_that_reaches_the_limit_on_a_cr_waits_for_its_lf() {
    watchdog_default(|| {
        let server = ServerProcess::start(&[]);
        let mut line = b"*".to_vec();
        line.extend(std::iter::repeat_n(b'1', 65_535));
        line.push(b'\r');
        // 65,537 bytes from the `*` on, the last a `\r`: no reply, the client's end
        // of file closes it.
        assert_eq!(String::from_utf8_lossy(&replies_to(&server, &line)), "");
        line.push(b'\n');
        assert_eq!(
            String::from_utf8_lossy(&replies_to(&server, &line)),
            "-ERR Protocol error: invalid multibulk length\r\n"
        );
        // A byte other than `\n` after it: refused for the length, as before.
        line.pop();
        line.push(b'1');
        assert_eq!(
            String::from_utf8_lossy(&replies_to(&server, &line)),
            "-ERR Protocol error: too big mbulk count string\r\n"
        );
    });
}

/// Where this server and Redis part: Redis ends a count line at a `\r` whatever byte
/// follows it (and skips that byte); this server ends it at `\r\n` only, so `*1\rX`
/// and the rest of its line make a count that is no number.
#[test]
fn a_cr_with_another_byte_after_it_does_not_end_a_count_line() {
    watchdog_default(|| {
        let server = ServerProcess::start(&[]);
        assert_eq!(
            String::from_utf8_lossy(&replies_to(&server, b"*1\rX\r\n$4\r\nPING\r\n")),
            "-ERR Protocol error: invalid multibulk length\r\n"
        );
    });
}

/// One command whose own reply is longer than the output bound, to a client that
/// reads: Redis 7 answers it all (its limit for ordinary clients is none, and even a
/// pub/sub client's 32 MiB hard limit is checked as the reply is written out). Here
/// `SUBSCRIBE` with 2,000 channels (a reply of about 80 KB) under `--max-output
/// 65536` used to get no byte at all: the reply overflowed the outbox inside the
/// command and the client was disconnected as slow. A client's own replies now pass
/// the bound; only a published message is refused past it.
#[test]
fn a_reply_longer_than_the_output_bound_reaches_a_client_that_reads() {
    watchdog_default(|| {
        let server = ServerProcess::start(&["--max-output", "65536"]);
        let channels: Vec<Vec<u8>> = (0..2000).map(|i| format!("c{i:06}").into_bytes()).collect();
        let mut parts: Vec<&[u8]> = vec![b"SUBSCRIBE"];
        parts.extend(channels.iter().map(Vec::as_slice));
        let mut request = command(&parts);
        request.extend_from_slice(&command(&[b"QUIT"]));
        let mut expected = Vec::new();
        for (i, channel) in channels.iter().enumerate() {
            expected.extend_from_slice(
                format!(
                    "*3\r\n$9\r\nsubscribe\r\n$7\r\n{}\r\n:{}\r\n",
                    String::from_utf8_lossy(channel),
                    i + 1
                )
                .as_bytes(),
            );
        }
        expected.extend_from_slice(b"+OK\r\n");
        let got = replies_to(&server, &request);
        assert_eq!(got.len(), expected.len(), "{} bytes arrived", got.len());
        assert_eq!(got, expected);
    });
}

/// The same for the other errors that quote an argument: `EXPIRE k 10 \xff` gets
/// `-ERR Unsupported option \xff\r\n` and `COMMAND \xff` gets
/// `-ERR unknown subcommand '\xff'. Try COMMAND HELP.\r\n` from Redis; the server
/// used to send `\xef\xbf\xbd` in place of `\xff`.
#[test]
fn an_option_or_subcommand_is_quoted_with_its_own_bytes() {
    watchdog_default(|| {
        let server = ServerProcess::start(&[]);
        let mut request = command(&[b"SET", b"k", b"v"]);
        request.extend_from_slice(&command(&[b"EXPIRE", b"k", b"10", b"\xff"]));
        request.extend_from_slice(&command(&[b"COMMAND", b"\xff"]));
        let got = replies_to(&server, &request);
        let expected: &[u8] = b"+OK\r\n-ERR Unsupported option \xff\r\n-ERR unknown subcommand '\xff'. Try COMMAND HELP.\r\n";
        assert_eq!(got, expected, "{}", String::from_utf8_lossy(&got));
    });
}
