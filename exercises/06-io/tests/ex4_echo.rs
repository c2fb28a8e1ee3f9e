//! Exercise 4: the echo handler — many connections, half-close, and the errors that end
//! one handler while the server keeps serving the others.

use std::cell::Cell;
use std::io::{BufRead, Read, Write};
use std::net::{Shutdown, SocketAddr};
use std::rc::Rc;
use std::sync::mpsc;
use std::thread;

use crate::common::{line_client, pair, round_trip};
use ex06_io::{
    AsyncRead, DEFAULT_HIGH_WATER, StreamError, StreamReader, StreamWriter, TcpListener, TcpStream,
    channel, echo, new_event_loop, serve,
};
use oneloop_core::spawn;
use oneloop_testkit::watchdog_default;

const CONNECTIONS: usize = 200;
const MESSAGES: usize = 100;

#[test]
fn ex4_two_hundred_connections_each_echo_a_hundred_messages() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let outcome = event_loop
            .run_until_complete(async {
                let listener = TcpListener::bind("127.0.0.1:0")?;
                let addr = listener.local_addr()?;
                drop(spawn(serve(listener, |stream, _| async move {
                    let (mut reader, mut writer) = stream.into_streams();
                    echo(&mut reader, &mut writer).await.expect("a clean echo");
                })));
                // The clients run on the same loop: one thread serves both sides.
                let clients: Vec<_> = (0..CONNECTIONS)
                    .map(|client| spawn(echo_client(addr, client)))
                    .collect();
                let mut echoed = 0;
                for client in clients {
                    echoed += client.await.expect("no client panics")?;
                }
                std::io::Result::Ok(echoed)
            })
            .unwrap()
            .unwrap();
        assert_eq!(outcome, CONNECTIONS * MESSAGES);
    });
}

/// Sends `MESSAGES` lines one at a time and checks each echo; then half-closes and
/// expects end of file.
async fn echo_client(addr: SocketAddr, client: usize) -> std::io::Result<usize> {
    let (mut reader, mut writer) = TcpStream::connect(addr).await?.into_streams();
    for message in 0..MESSAGES {
        let line = format!("client {client} message {message}\n");
        writer.write(line.as_bytes())?;
        writer.drain().await?;
        let back = reader.read_line().await.map_err(std::io::Error::other)?;
        assert_eq!(back.as_deref(), Some(line.as_str()));
    }
    writer.shutdown().await?;
    assert_eq!(
        reader.read_line().await.map_err(std::io::Error::other)?,
        None
    );
    Ok(MESSAGES)
}

#[test]
fn ex4_a_half_closed_peer_gets_every_echo_then_end_of_file() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let (mut client, server) = pair();
        client.write_all(b"one\ntwo\nthree\n").unwrap();
        client.shutdown(Shutdown::Write).unwrap();
        let lines = event_loop
            .run_until_complete(async move {
                let (mut reader, mut writer) = server.into_streams();
                echo(&mut reader, &mut writer).await
            })
            .unwrap()
            .expect("a clean echo");
        assert_eq!(lines, 3);
        let mut back = String::new();
        client.read_to_string(&mut back).unwrap();
        assert_eq!(back, "one\ntwo\nthree\n");
    });
}

/// What a handler ended with, and what its reader still held.
type Outcome = (String, Result<u64, StreamError>, Vec<u8>);

#[test]
fn ex4_bad_peers_each_get_a_clear_error_and_the_server_keeps_serving() {
    watchdog_default(|| {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let (done_tx, done_rx) = mpsc::channel::<Vec<(String, String, Vec<u8>)>>();
        let (count_tx, count_rx) = mpsc::channel::<()>();
        let server = thread::spawn(move || {
            let mut event_loop = new_event_loop().unwrap();
            let listener = TcpListener::from_std(listener).unwrap();
            let (outcome_tx, mut outcome_rx) = channel::<Outcome>();
            let expected = 6;
            event_loop
                .run_until_complete(async move {
                    drop(spawn(serve(listener, move |stream, _| {
                        let outcome_tx = outcome_tx.clone();
                        let count_tx = count_tx.clone();
                        async move {
                            let stream = Rc::new(stream);
                            let mut reader = StreamReader::with_limit(Rc::clone(&stream), 32);
                            let mut writer = StreamWriter::new(stream);
                            // The first line names the client.
                            let name = reader.read_line().await.ok().flatten().unwrap_or_default();
                            let result = echo(&mut reader, &mut writer).await;
                            let kept = reader.buffered().to_vec();
                            outcome_tx
                                .send((name.trim().to_string(), result, kept))
                                .unwrap();
                            count_tx.send(()).unwrap();
                        }
                    })));
                    let mut report = Vec::new();
                    for _ in 0..expected {
                        let (name, result, kept) = outcome_rx.recv().await.expect("an outcome");
                        report.push((name, format!("{result:?}"), kept));
                    }
                    done_tx.send(report).unwrap();
                })
                .unwrap();
        });
        // The peers, one after another; the good one both before and after the bad.
        let good = |name: &str| {
            let mut client = line_client(addr);
            client
                .get_mut()
                .write_all(format!("{name}\n").as_bytes())
                .unwrap();
            assert_eq!(round_trip(&mut client, "still here\n"), "still here\n");
            client.get_mut().shutdown(Shutdown::Write).unwrap();
            let mut rest = String::new();
            client.read_line(&mut rest).unwrap();
            assert_eq!(rest, "", "end of file after the echoes");
        };
        good("good before");
        count_rx.recv().unwrap();

        let mut garbage = line_client(addr);
        garbage
            .get_mut()
            .write_all(b"garbage\nok\n\xff\xfe\n")
            .unwrap();
        let mut ok = String::new();
        garbage.read_line(&mut ok).unwrap();
        assert_eq!(ok, "ok\n");
        count_rx.recv().unwrap();

        let mut long = line_client(addr);
        long.get_mut().write_all(b"long\n").unwrap();
        long.get_mut().write_all(&[b'x'; 100]).unwrap();
        count_rx.recv().unwrap();

        let mut cut = line_client(addr);
        cut.get_mut().write_all(b"cut\nno newline").unwrap();
        cut.get_mut().shutdown(Shutdown::Write).unwrap();
        count_rx.recv().unwrap();

        // A reset: the client leaves an echo unread and closes, so its kernel sends RST.
        let mut reset = line_client(addr);
        reset.get_mut().write_all(b"reset\nunread\n").unwrap();
        let mut peeked = [0; 1];
        reset.get_mut().peek(&mut peeked).unwrap();
        drop(reset);
        count_rx.recv().unwrap();

        good("good after");
        count_rx.recv().unwrap();
        drop((garbage, long, cut));
        let report = done_rx.recv().unwrap();
        server.join().unwrap();
        let find = |name: &str| {
            report
                .iter()
                .find(|(n, _, _)| n == name)
                .unwrap_or_else(|| panic!("no outcome for {name}: {report:?}"))
                .clone()
        };
        assert!(find("good before").1.starts_with("Ok(1)"));
        assert!(find("good after").1.starts_with("Ok(1)"));
        let (_, garbage, _) = find("garbage");
        assert!(
            garbage.contains("InvalidUtf8") && garbage.contains("[255, 254, 10]"),
            "{garbage}"
        );
        let (_, long, kept) = find("long");
        assert!(long.contains("LimitOverrun"), "{long}");
        assert!(
            kept.len() > 32 && kept.iter().all(|&b| b == b'x'),
            "the long line is kept"
        );
        let (_, cut, _) = find("cut");
        assert!(
            cut.contains("Incomplete") && cut.contains("partial"),
            "{cut}"
        );
        let (_, reset, _) = find("reset");
        assert!(reset.contains("ConnectionReset"), "{reset}");
    });
}

#[test]
fn ex4_a_writer_faster_than_its_peer_is_paused_not_buffered_without_bound() {
    watchdog_default(|| {
        const CHUNK: usize = 16 * 1024;
        const CHUNKS: usize = 512;
        let mut event_loop = new_event_loop().unwrap();
        let (client, server) = pair();
        let (paused_tx, paused_rx) = mpsc::channel::<()>();
        // The peer reads nothing until the writer has been paused, then everything.
        let peer = thread::spawn(move || {
            let mut client = client;
            paused_rx.recv().unwrap();
            let mut all = Vec::new();
            client.read_to_end(&mut all).unwrap();
            all
        });
        let most = event_loop
            .run_until_complete(async move {
                let mut writer = StreamWriter::new(Rc::new(server));
                let mut most = 0;
                let mut told = false;
                for chunk in 0..CHUNKS {
                    let fill = u8::try_from(chunk % 251).unwrap();
                    writer.write(&[fill; CHUNK]).expect("write");
                    most = most.max(writer.buffered());
                    if writer.is_paused() && !told {
                        told = true;
                        paused_tx.send(()).unwrap();
                    }
                    writer.drain().await.expect("drain");
                }
                assert!(told, "the kernel's buffers filled and the writer paused");
                writer.shutdown().await.expect("shutdown");
                most
            })
            .unwrap();
        assert!(
            most <= DEFAULT_HIGH_WATER + CHUNK,
            "buffered at most {most} bytes"
        );
        let all = peer.join().unwrap();
        assert_eq!(all.len(), CHUNK * CHUNKS);
        for (index, chunk) in all.chunks(CHUNK).enumerate() {
            let fill = u8::try_from(index % 251).unwrap();
            assert!(
                chunk.iter().all(|&b| b == fill),
                "chunk {index} arrived intact"
            );
        }
    });
}

/// The bytes of one line the firehose hands out, newline included.
const LINE: usize = 1024;

/// A peer in memory that sends `left` lines as fast as they are read: every read is
/// ready at once, so only the handler itself can decide to stop reading.
struct Firehose {
    left: usize,
    lines_read: Rc<Cell<usize>>,
}

impl AsyncRead for Firehose {
    async fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let lines = (buf.len() / LINE).min(self.left);
        for line in buf[..lines * LINE].chunks_mut(LINE) {
            line.fill(b'x');
            line[LINE - 1] = b'\n';
        }
        self.left -= lines;
        self.lines_read.set(self.lines_read.get() + lines);
        Ok(lines * LINE)
    }
}

#[test]
fn ex4_the_echo_handler_stops_reading_while_its_writer_is_paused() {
    watchdog_default(|| {
        // 48 MiB of lines, far more than the kernel buffers of a loopback socket whose
        // peer never reads.
        const LINES: usize = 48 * 1024;
        let mut event_loop = new_event_loop().unwrap();
        let (client, server) = pair();
        let lines_read = Rc::new(Cell::new(0));
        let counted = Rc::clone(&lines_read);
        let handler = event_loop.spawn(async move {
            let mut reader = StreamReader::new(Firehose {
                left: LINES,
                lines_read: counted,
            });
            let mut writer = StreamWriter::new(Rc::new(server));
            echo(&mut reader, &mut writer).await
        });
        // The handler's first step: it reads and echoes until its writer pauses, and
        // then waits in `drain` instead of reading on into an unbounded buffer.
        event_loop.run_once().unwrap();
        let read = lines_read.get();
        assert!(read > 0, "the handler started echoing");
        assert!(
            read < LINES,
            "the handler read all {LINES} lines in one step: its writer buffered them all"
        );
        assert!(!handler.is_finished(), "it waits for the peer to read");
        drop(client);
    });
}

#[test]
fn ex4_end_of_file_sends_every_buffered_echo_before_shutting_down() {
    watchdog_default(|| {
        // 6 MiB of lines: more than the kernel buffers of a loopback socket whose peer
        // has not read yet, so echoes are still in the writer's buffer at end of file.
        const LINES: usize = 6 * 1024;
        let mut event_loop = new_event_loop().unwrap();
        let (mut client, server) = pair();
        let handler = event_loop.spawn(async move {
            let mut reader = StreamReader::new(Firehose {
                left: LINES,
                lines_read: Rc::new(Cell::new(0)),
            });
            let mut writer = StreamWriter::new(Rc::new(server));
            // Never paused: the handler reads every line in its first step.
            writer.set_write_buffer_limits(usize::MAX, usize::MAX);
            echo(&mut reader, &mut writer).await
        });
        event_loop.run_once().unwrap();
        assert!(
            !handler.is_finished(),
            "at end of file the handler waits for its buffered echoes to be sent"
        );
        let peer = thread::spawn(move || {
            let mut back = Vec::new();
            client
                .read_to_end(&mut back)
                .expect("the peer reads to end of file");
            back
        });
        let lines = event_loop
            .run_until_complete(handler)
            .unwrap()
            .expect("the handler does not panic")
            .expect("a clean echo");
        assert_eq!(lines, LINES as u64);
        let back = peer.join().expect("the peer does not panic");
        assert_eq!(back.len(), LINES * LINE, "every echo, then end of file");
        assert!(back.chunks(LINE).all(|line| line[LINE - 1] == b'\n'));
    });
}
