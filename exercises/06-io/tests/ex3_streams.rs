//! Exercise 3: `read_until` and `read_line` on the buffered reader, and the chat room
//! built on them.

use std::future::{Future, poll_fn};
use std::io::{BufRead, Read, Write};
use std::net::Shutdown;
use std::pin::pin;
use std::task::Poll;
use std::thread;

use crate::common::{line_client, pair};
use ex06_io::{
    StreamError, StreamReader, TcpListener, TcpStream, WELCOME, new_event_loop, serve_chat,
};
use oneloop_testkit::watchdog_default;

/// Runs `body` with a reader over the server side of a pair whose client sent `sent`
/// and then closed its writing half.
fn with_reader<T: 'static>(
    sent: &[u8],
    limit: usize,
    body: impl AsyncFnOnce(&mut StreamReader<TcpStream>) -> T + 'static,
) -> T {
    let mut event_loop = new_event_loop().unwrap();
    let (mut client, server) = pair();
    client.write_all(sent).unwrap();
    client.shutdown(Shutdown::Write).unwrap();
    event_loop
        .run_until_complete(async move {
            let mut reader = StreamReader::with_limit(server, limit);
            let out = body(&mut reader).await;
            drop(client);
            out
        })
        .unwrap()
}

#[test]
fn ex3_read_line_returns_lines_in_order_then_none_at_eof() {
    watchdog_default(|| {
        let lines = with_reader(b"one\ntwo\n\nthree\n", 64, async |reader| {
            let mut lines = Vec::new();
            while let Some(line) = reader.read_line().await.expect("a line") {
                lines.push(line);
            }
            lines
        });
        assert_eq!(lines, ["one\n", "two\n", "\n", "three\n"]);
    });
}

#[test]
fn ex3_read_until_uses_any_delimiter_and_leaves_the_rest_buffered() {
    watchdog_default(|| {
        let (record, rest) = with_reader(b"key=value;tail", 64, async |reader| {
            let record = reader.read_until(b';').await.expect("a record");
            (record, reader.read(64).await.expect("the rest"))
        });
        assert_eq!(record.as_deref(), Some(&b"key=value;"[..]));
        assert_eq!(rest, b"tail");
    });
}

#[test]
fn ex3_eof_mid_line_is_an_incomplete_read_carrying_the_partial_line() {
    watchdog_default(|| {
        let outcome = with_reader(b"whole\nhalf a li", 64, async |reader| {
            let first = reader.read_line().await.expect("the whole line");
            (first, reader.read_line().await)
        });
        assert_eq!(outcome.0.as_deref(), Some("whole\n"));
        match outcome.1 {
            Err(StreamError::Incomplete { partial, expected }) => {
                assert_eq!(partial, b"half a li");
                assert_eq!(expected, None);
            }
            other => panic!("expected an incomplete read, got {other:?}"),
        }
    });
}

#[test]
fn ex3_a_line_over_the_limit_is_an_error_that_loses_no_buffered_data() {
    watchdog_default(|| {
        let mut sent = vec![b'a'; 100];
        sent.extend_from_slice(b"\nshort\n");
        let (error, kept, next) = with_reader(&sent, 16, async |reader| {
            let error = reader.read_line().await.expect_err("over the limit");
            let kept = reader.buffered().to_vec();
            // The caller decides what to do: here, discard up to the newline and go on.
            let mut long = Vec::new();
            while !long.ends_with(b"\n") {
                let mut byte = reader.read(1).await.expect("buffered");
                long.append(&mut byte);
            }
            assert_eq!(long.len(), 101, "the long line was all still there");
            (
                error,
                kept,
                reader.read_line().await.expect("the next line"),
            )
        });
        match error {
            StreamError::LimitOverrun { limit, buffered } => {
                assert_eq!(limit, 16);
                assert!(buffered > 16);
                assert_eq!(buffered, kept.len());
            }
            other => panic!("expected a limit overrun, got {other:?}"),
        }
        assert!(
            sent.starts_with(&kept),
            "the buffer is a prefix of what was sent"
        );
        assert_eq!(next.as_deref(), Some("short\n"));
    });
}

#[test]
fn ex3_a_record_of_exactly_the_limit_fits_and_one_byte_more_overruns() {
    watchdog_default(|| {
        let (fits, over, kept) = with_reader(b"1234567\n12345678\n", 8, async |reader| {
            let fits = reader
                .read_line()
                .await
                .expect("eight bytes fit a limit of 8");
            let over = reader.read_line().await.expect_err("nine bytes do not");
            (fits, over, reader.buffered().to_vec())
        });
        assert_eq!(fits.as_deref(), Some("1234567\n"));
        assert!(matches!(over, StreamError::LimitOverrun { limit: 8, .. }));
        assert_eq!(kept, b"12345678\n", "the long line is still buffered");
    });
}

#[test]
fn ex3_no_newline_past_the_limit_on_an_open_stream_is_an_overrun_not_a_wait() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let (mut client, server) = pair();
        // The peer sends 40 bytes without a newline and keeps the connection open: no
        // more data and no end of file will come to end a wait.
        client.write_all(&[b'a'; 40]).unwrap();
        let (error, kept) = event_loop
            .run_until_complete(async move {
                let mut reader = StreamReader::with_limit(server, 16);
                let error = reader.read_line().await.expect_err("over the limit");
                let kept = reader.buffered().to_vec();
                drop(client);
                (error, kept)
            })
            .unwrap();
        match error {
            StreamError::LimitOverrun { limit, buffered } => {
                assert_eq!(limit, 16);
                assert_eq!(buffered, kept.len());
            }
            other => panic!("expected a limit overrun, got {other:?}"),
        }
        assert_eq!(kept, [b'a'; 40], "every byte is still buffered");
    });
}

#[test]
fn ex3_a_line_that_is_not_utf8_is_an_error_carrying_its_bytes() {
    watchdog_default(|| {
        let (error, next) = with_reader(b"ok\xff\xfe\nnext\n", 64, async |reader| {
            let error = reader.read_line().await.expect_err("not UTF-8");
            (error, reader.read_line().await.expect("the next line"))
        });
        match error {
            StreamError::InvalidUtf8 { line, valid_up_to } => {
                assert_eq!(line, b"ok\xff\xfe\n");
                assert_eq!(valid_up_to, 2);
            }
            other => panic!("expected invalid UTF-8, got {other:?}"),
        }
        assert_eq!(next.as_deref(), Some("next\n"));
    });
}

#[test]
fn ex3_a_read_line_dropped_half_way_loses_nothing() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let (mut client, server) = pair();
        let line = event_loop
            .run_until_complete(async move {
                let mut reader = StreamReader::new(server);
                client.write_all(b"first ha").unwrap();
                {
                    // Poll until the partial line is buffered, then drop the read.
                    let mut pending = pin!(reader.read_line());
                    poll_fn(|cx| match pending.as_mut().poll(cx) {
                        Poll::Pending => Poll::Ready(()),
                        Poll::Ready(other) => panic!("no whole line yet: {other:?}"),
                    })
                    .await;
                }
                assert_eq!(reader.buffered(), b"first ha");
                client.write_all(b"lf\n").unwrap();
                reader.read_line().await.expect("the whole line")
            })
            .unwrap();
        assert_eq!(line.as_deref(), Some("first half\n"));
    });
}

#[test]
fn ex3_a_line_arriving_in_many_pieces_is_assembled() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let (client, server) = pair();
        let (go, wait) = std::sync::mpsc::channel::<()>();
        let sender = thread::spawn(move || {
            let mut client = client;
            wait.recv().unwrap();
            for piece in [&b"pie"[..], b"ce", b"s of a ", b"line\n"] {
                client.write_all(piece).unwrap();
                client.flush().unwrap();
            }
            client
        });
        let line = event_loop
            .run_until_complete(async move {
                let mut reader = StreamReader::new(server);
                go.send(()).unwrap();
                reader.read_line().await.expect("a line")
            })
            .unwrap();
        assert_eq!(line.as_deref(), Some("pieces of a line\n"));
        drop(sender.join().unwrap());
    });
}

#[test]
fn ex3_read_exact_reports_an_incomplete_read_with_what_came() {
    watchdog_default(|| {
        let (frame, short) = with_reader(b"abcdefg", 64, async |reader| {
            (reader.read_exact(4).await, reader.read_exact(4).await)
        });
        assert_eq!(frame.expect("four bytes"), b"abcd");
        match short {
            Err(StreamError::Incomplete { partial, expected }) => {
                assert_eq!(partial, b"efg");
                assert_eq!(expected, Some(4));
            }
            other => panic!("expected an incomplete read, got {other:?}"),
        }
    });
}

#[test]
fn ex3_chat_every_line_reaches_the_other_two_in_order() {
    watchdog_default(|| {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        // The room runs on its own thread; the clients are plain blocking sockets. A
        // connection to a second listener tells the room's loop to finish.
        let control = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let control_addr = control.local_addr().unwrap();
        let server = thread::spawn(move || {
            let mut event_loop = new_event_loop().unwrap();
            let listener = TcpListener::from_std(listener).unwrap();
            let control = TcpListener::from_std(control).unwrap();
            event_loop
                .run_until_complete(async move {
                    drop(oneloop_core::spawn(serve_chat(listener)));
                    control.accept().await.map(drop)
                })
                .unwrap()
                .unwrap();
        });
        let names = ["ann", "bob", "cid"];
        let mut clients: Vec<_> = names.iter().map(|_| line_client(addr)).collect();
        for client in &mut clients {
            let mut welcome = String::new();
            client.read_line(&mut welcome).unwrap();
            assert_eq!(welcome, WELCOME, "joined before anyone speaks");
        }
        for round in 0..3 {
            for (name, client) in names.iter().zip(&mut clients) {
                let line = format!("{name} says {round}\n");
                client.get_mut().write_all(line.as_bytes()).unwrap();
            }
        }
        for (me, client) in names.iter().zip(&mut clients) {
            let mut heard = Vec::new();
            for _ in 0..6 {
                let mut line = String::new();
                client.read_line(&mut line).unwrap();
                heard.push(line);
            }
            assert!(
                !heard.iter().any(|l| l.starts_with(me)),
                "{me} hears itself: {heard:?}"
            );
            for other in names.iter().filter(|n| *n != me) {
                let from: Vec<&String> = heard.iter().filter(|l| l.starts_with(other)).collect();
                let expected: Vec<String> = (0..3)
                    .map(|round| format!("{other} says {round}\n"))
                    .collect();
                assert_eq!(
                    from,
                    expected.iter().collect::<Vec<_>>(),
                    "{me} hears {other} in order"
                );
            }
        }
        // Leaving: each client half-closes; the room sends end of file back.
        for client in &mut clients {
            client.get_mut().shutdown(Shutdown::Write).unwrap();
            let mut rest = Vec::new();
            client.read_to_end(&mut rest).unwrap();
            assert!(rest.is_empty());
        }
        drop(std::net::TcpStream::connect(control_addr).unwrap());
        server.join().unwrap();
    });
}

/// A stream that hands over its bytes one per read, never waiting, and counts reads.
struct OneByteAtATime {
    data: Vec<u8>,
    at: usize,
}

impl ex06_io::AsyncRead for OneByteAtATime {
    async fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let Some(&byte) = self.data.get(self.at) else {
            return Ok(0);
        };
        buf[0] = byte;
        self.at += 1;
        Ok(1)
    }
}

#[test]
fn ex3_a_long_line_arriving_one_byte_per_read_costs_linear_time() {
    // 256 KiB arriving a byte per read: a search that starts again from byte 0 after
    // every read examines about 34 billion bytes, and the watchdog stops it; searching
    // only the new bytes examines each byte once (a fraction of a second).
    const LEN: usize = 256 * 1024;
    watchdog_default(|| {
        let mut data = vec![b'a'; LEN];
        data.push(b'\n');
        let stream = OneByteAtATime { data, at: 0 };
        let mut event_loop = new_event_loop().unwrap();
        let (line, reads) = event_loop
            .run_until_complete(async move {
                let mut reader = StreamReader::with_limit(stream, 2 * LEN);
                let line = reader.read_line().await.expect("a line");
                (line, reader.get_ref().at)
            })
            .unwrap();
        let line = line.expect("not end of file");
        assert_eq!(line.len(), LEN + 1);
        assert_eq!(
            reads,
            LEN + 1,
            "one fill per byte, as the stream hands them over"
        );
    });
}
