//! The server binary, driven over loopback with std sockets: a small RESP client for
//! the commands, raw bytes for pipelining, malformed input, limits and shutdown.

mod common;

use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::Duration;

use common::{Con, ServerProcess, command, expect_reply, read_to_end, send};
use oneloop_testkit::watchdog_default;

#[test]
fn every_key_command_answers_as_redis_does() {
    watchdog_default(|| {
        let server = ServerProcess::start(&[]);
        let mut con = Con::new(&server);
        assert_eq!(con.simple(&["PING"]), "PONG");
        assert_eq!(con.bulk(&["ECHO", "hi there"]).as_deref(), Some("hi there"));
        assert_eq!(con.simple(&["SET", "k", "v"]), "OK");
        assert_eq!(con.bulk(&["GET", "k"]).as_deref(), Some("v"));
        assert_eq!(con.bulk(&["GET", "missing"]), None);
        // NX writes only a new key; XX only an existing one.
        assert_eq!(con.bulk(&["SET", "k", "w", "NX"]), None);
        assert_eq!(con.simple(&["SET", "k", "w", "XX"]), "OK");
        assert_eq!(con.bulk(&["SET", "new", "w", "XX"]), None);
        assert_eq!(con.bulk(&["GET", "k"]).as_deref(), Some("w"));
        assert_eq!(con.int(&["INCR", "n"]), 1);
        assert_eq!(con.int(&["INCR", "n"]), 2);
        assert_eq!(con.int(&["DECR", "n"]), 1);
        assert_eq!(
            con.error(&["INCR", "k"]),
            "ERR value is not an integer or out of range"
        );
        assert_eq!(con.int(&["EXISTS", "k", "n", "missing"]), 2);
        assert_eq!(con.int(&["DEL", "k", "missing"]), 1);
        assert_eq!(con.int(&["EXISTS", "k"]), 0);
        // Time to live: none, then a deadline.
        assert_eq!(con.int(&["TTL", "n"]), -1);
        assert_eq!(con.int(&["TTL", "missing"]), -2);
        assert_eq!(con.int(&["EXPIRE", "n", "100"]), 1);
        let ttl = con.int(&["TTL", "n"]);
        assert!((1..=100).contains(&ttl), "TTL {ttl}");
        let pttl = con.int(&["PTTL", "n"]);
        assert!((1..=100_000).contains(&pttl), "PTTL {pttl}");
        assert_eq!(con.int(&["EXPIRE", "missing", "100"]), 0);
        assert_eq!(
            con.error(&["GET"]),
            "ERR wrong number of arguments for 'get' command"
        );
        assert_eq!(con.int(&["COMMAND", "COUNT"]), 17);
        let stopped = server.stop();
        assert!(stopped.status.success(), "{}", stopped.stderr);
    });
}

#[test]
fn a_key_set_with_a_time_to_live_is_gone_once_it_has_passed() {
    watchdog_default(|| {
        let server = ServerProcess::start(&[]);
        let mut con = Con::new(&server);
        assert_eq!(con.simple(&["SET", "k", "v", "PX", "20"]), "OK");
        assert_eq!(con.simple(&["SET", "s", "v", "EX", "100"]), "OK");
        assert_eq!(con.simple(&["SET", "p", "v"]), "OK");
        assert_eq!(con.int(&["PEXPIRE", "p", "20"]), 1);
        // Past both deadlines: whether the timer ran yet or not, a read must miss.
        thread::sleep(Duration::from_millis(40));
        assert_eq!(con.bulk(&["GET", "k"]), None);
        assert_eq!(con.bulk(&["GET", "p"]), None);
        assert_eq!(con.int(&["PTTL", "k"]), -2);
        assert_eq!(con.bulk(&["GET", "s"]).as_deref(), Some("v"));
        assert_eq!(
            con.error(&["SET", "k", "v", "EX", "0"]),
            "ERR invalid expire time in 'set' command"
        );
    });
}

#[test]
fn publish_reaches_every_subscriber_and_counts_them() {
    watchdog_default(|| {
        let server = ServerProcess::start(&[]);
        let mut subscriber = server.connect();
        send(
            &mut subscriber,
            &command(&[b"SUBSCRIBE", b"news", b"other"]),
        );
        expect_reply(
            &mut subscriber,
            b"*3\r\n$9\r\nsubscribe\r\n$4\r\nnews\r\n:1\r\n*3\r\n$9\r\nsubscribe\r\n$5\r\nother\r\n:2\r\n",
        );
        // In subscribed mode, GET is refused and PING answers as a push.
        send(&mut subscriber, &command(&[b"GET", b"k"]));
        send(&mut subscriber, &command(&[b"PING"]));
        expect_reply(&mut subscriber, b"-ERR Can't execute 'get': only SUBSCRIBE / UNSUBSCRIBE / PING / QUIT are allowed in this context\r\n");
        expect_reply(&mut subscriber, b"*2\r\n$4\r\npong\r\n$0\r\n\r\n");
        let mut con = Con::new(&server);
        assert_eq!(con.int(&["PUBLISH", "news", "hello"]), 1);
        assert_eq!(con.int(&["PUBLISH", "nobody", "hello"]), 0);
        expect_reply(
            &mut subscriber,
            b"*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$5\r\nhello\r\n",
        );
        send(&mut subscriber, &command(&[b"UNSUBSCRIBE"]));
        expect_reply(
            &mut subscriber,
            b"*3\r\n$11\r\nunsubscribe\r\n$4\r\nnews\r\n:1\r\n*3\r\n$11\r\nunsubscribe\r\n$5\r\nother\r\n:0\r\n",
        );
        assert_eq!(con.int(&["PUBLISH", "news", "again"]), 0);
        // Out of subscribed mode, commands work again.
        send(&mut subscriber, &command(&[b"PING"]));
        expect_reply(&mut subscriber, b"+PONG\r\n");
    });
}

#[test]
fn a_pipeline_of_any_depth_is_answered_in_order_however_it_is_split() {
    watchdog_default(|| {
        let server = ServerProcess::start(&[]);
        let mut stream = server.connect();
        let mut requests = Vec::new();
        let mut expected = Vec::new();
        for i in 1..=2000 {
            requests.extend(command(&[b"INCR", b"counter"]));
            expected.extend(format!(":{i}\r\n").into_bytes());
            requests.extend(command(&[b"ECHO", format!("m{i}").as_bytes()]));
            let m = format!("m{i}");
            expected.extend(format!("${}\r\n{m}\r\n", m.len()).into_bytes());
        }
        // Split at odd places: inside headers, inside bulk strings, between frames.
        let writer = {
            let mut stream = stream.try_clone().unwrap();
            thread::spawn(move || {
                for piece in requests.chunks(7919) {
                    send(&mut stream, piece);
                }
                // An empty line, as `redis-cli --pipe` sends one: ignored.
                send(&mut stream, b"\r\n");
                send(&mut stream, &command(&[b"QUIT"]));
            })
        };
        expected.extend_from_slice(b"+OK\r\n");
        let got = read_to_end(&mut stream);
        writer.join().unwrap();
        assert_eq!(got.len(), expected.len());
        assert!(got == expected, "replies out of order");
    });
}

#[test]
fn a_malformed_frame_gets_an_error_and_a_close_while_others_go_on() {
    watchdog_default(|| {
        let server = ServerProcess::start(&["--max-bulk", "1024"]);
        let mut bystander = server.connect();
        send(&mut bystander, &command(&[b"SET", b"k", b"v"]));
        expect_reply(&mut bystander, b"+OK\r\n");
        for (input, error) in [
            (
                &b"*1\r\n$abc\r\nPING\r\n"[..],
                "-ERR Protocol error: invalid bulk length\r\n",
            ),
            (
                b"ECHO \"open\r\n",
                "-ERR Protocol error: unbalanced quotes in request\r\n",
            ),
            (
                b"*2\r\n$3\r\nSET\r\n$2000\r\n",
                "-ERR Protocol error: invalid bulk length: 2000 is over the limit of 1024\r\n",
            ),
            (
                b"*2\r\n$4\r\nECHO\r\n:1\r\n",
                "-ERR Protocol error: expected '$', got ':'\r\n",
            ),
        ] {
            let mut bad = server.connect();
            // A good command first: it is answered before the bad frame's error.
            let mut bytes = command(&[b"PING"]);
            bytes.extend_from_slice(input);
            send(&mut bad, &bytes);
            let got = read_to_end(&mut bad);
            assert_eq!(String::from_utf8_lossy(&got), format!("+PONG\r\n{error}"));
        }
        send(&mut bystander, &command(&[b"GET", b"k"]));
        expect_reply(&mut bystander, b"$1\r\nv\r\n");
        let stopped = server.stop();
        assert!(stopped.stdout.contains("4 malformed"), "{}", stopped.stdout);
    });
}

#[test]
fn past_max_clients_a_newcomer_is_refused_with_an_error() {
    watchdog_default(|| {
        let server = ServerProcess::start(&["--max-clients", "2"]);
        let mut first = server.connect();
        let mut second = server.connect();
        for stream in [&mut first, &mut second] {
            send(stream, &command(&[b"PING"]));
            expect_reply(stream, b"+PONG\r\n");
        }
        let mut third = server.connect();
        assert_eq!(
            read_to_end(&mut third),
            b"-ERR max number of clients reached\r\n"
        );
        // One leaves: a slot is free again.
        send(&mut first, &command(&[b"QUIT"]));
        assert_eq!(read_to_end(&mut first), b"+OK\r\n");
        // The server frees the slot when the first connection's task ends; until then
        // a newcomer may still be refused. Try until one is served (bounded).
        let mut served = false;
        for _ in 0..100 {
            let mut fourth = server.connect();
            send(&mut fourth, &command(&[b"PING"]));
            let mut reply = [0u8; 7];
            use std::io::Read;
            fourth.read_exact(&mut reply).unwrap();
            if &reply == b"+PONG\r\n" {
                served = true;
                break;
            }
        }
        assert!(served, "a freed slot was never reused");
    });
}

#[test]
fn an_idle_client_is_disconnected_and_a_subscriber_is_not() {
    watchdog_default(|| {
        // Short, so that the test waits half a second, not the default five minutes.
        // Every client here sends its first command at once after its connect; the
        // timeout must still outlast a stall of a loaded machine between the two, or
        // a client that is not idle would be closed.
        let server = ServerProcess::start(&["--idle-timeout-ms", "500"]);
        let mut subscriber = server.connect();
        send(&mut subscriber, &command(&[b"SUBSCRIBE", b"c"]));
        expect_reply(
            &mut subscriber,
            b"*3\r\n$9\r\nsubscribe\r\n$1\r\nc\r\n:1\r\n",
        );
        let mut idle = server.connect();
        send(&mut idle, &command(&[b"PING"]));
        expect_reply(&mut idle, b"+PONG\r\n");
        // Nothing more: the server closes it after the timeout.
        assert_eq!(read_to_end(&mut idle), b"");
        // The subscriber, idle as long, still gets messages.
        let mut con = Con::new(&server);
        assert_eq!(con.int(&["PUBLISH", "c", "still here"]), 1);
        expect_reply(
            &mut subscriber,
            b"*3\r\n$7\r\nmessage\r\n$1\r\nc\r\n$10\r\nstill here\r\n",
        );
        let stopped = server.stop();
        assert!(stopped.stdout.contains("1 idle"), "{}", stopped.stdout);
    });
}

#[test]
fn a_subscriber_that_does_not_read_is_disconnected_at_the_output_bound() {
    watchdog_default(|| {
        let server = ServerProcess::start(&["--max-output", "65536"]);
        let mut slow = server.connect();
        send(&mut slow, &command(&[b"SUBSCRIBE", b"firehose"]));
        expect_reply(
            &mut slow,
            b"*3\r\n$9\r\nsubscribe\r\n$8\r\nfirehose\r\n:1\r\n",
        );
        // From here on `slow` reads nothing. The kernel's buffers fill, then the
        // server's 64 KiB bound; the next message disconnects it.
        let mut con = Con::new(&server);
        let message = "x".repeat(16 * 1024);
        let mut receivers = 1;
        for _ in 0..20_000 {
            receivers = con.int(&["PUBLISH", "firehose", &message]);
            if receivers == 0 {
                break;
            }
        }
        assert_eq!(receivers, 0, "the slow subscriber was never disconnected");
        // The publisher, and the server, go on.
        assert_eq!(con.simple(&["PING"]), "PONG");
        drop(slow);
        let stopped = server.stop();
        assert!(stopped.status.success());
        assert!(stopped.stdout.contains("1 slow"), "{}", stopped.stdout);
        assert!(
            stopped
                .stderr
                .contains("client disconnected: its output passed the buffer limit"),
            "{}",
            stopped.stderr
        );
    });
}

#[test]
fn a_client_that_pipelines_faster_than_it_reads_is_paused_not_dropped() {
    watchdog_default(|| {
        let server = ServerProcess::start(&["--max-output", "1048576"]);
        let mut client = server.connect();
        // 400 replies of 64 KiB: 25 MiB, far past the 1 MiB bound and loopback's
        // buffers. All of it is sent before a byte is read.
        let value = vec![b'v'; 64 * 1024];
        let mut pipeline = command(&[b"SET", b"big", &value]);
        for _ in 0..400 {
            pipeline.extend(command(&[b"GET", b"big"]));
        }
        pipeline.extend(command(&[b"INCR", b"done"]));
        send(&mut client, &pipeline);
        // The reader pauses at half the bound instead of overflowing it: every reply
        // arrives once the client reads.
        let mut want = b"+OK\r\n".to_vec();
        for _ in 0..400 {
            want.extend_from_slice(b"$65536\r\n");
            want.extend_from_slice(&value);
            want.extend_from_slice(b"\r\n");
        }
        want.extend_from_slice(b":1\r\n");
        let mut got = vec![0u8; want.len()];
        std::io::Read::read_exact(&mut client, &mut got)
            .expect("every reply arrives: the client was paused, not dropped");
        assert!(got == want, "the replies differ from what was asked");
        drop(client);
        let stopped = server.stop();
        assert!(stopped.status.success());
        assert!(stopped.stdout.contains("0 slow"), "{}", stopped.stdout);
    });
}

/// A pipeline that fills the output past the pause, then 40 MiB of `SET` requests
/// behind it: far more than loopback's kernel buffers hold, so a server that stopped
/// reading while paused would leave the client blocked in its send. Returns the
/// pipeline and the replies it asks for.
fn a_pipeline_bigger_than_the_kernel_buffers() -> (Vec<u8>, Vec<u8>) {
    let value = vec![b'v'; 256 * 1024];
    let mut pipeline = command(&[b"SET", b"big", &value]);
    let mut want = b"+OK\r\n".to_vec();
    // 100 replies of 256 KiB, 25 MiB: the reader pauses among them.
    for _ in 0..100 {
        pipeline.extend(command(&[b"GET", b"big"]));
        want.extend_from_slice(b"$262144\r\n");
        want.extend_from_slice(&value);
        want.extend_from_slice(b"\r\n");
    }
    let small = vec![b's'; 1024];
    for _ in 0..40 * 1024 {
        pipeline.extend(command(&[b"SET", b"small", &small]));
        want.extend_from_slice(b"+OK\r\n");
    }
    pipeline.extend(command(&[b"INCR", b"done"]));
    want.extend_from_slice(b":1\r\n");
    (pipeline, want)
}

#[test]
fn a_client_that_sends_its_whole_pipeline_before_reading_is_not_left_blocked_in_its_send() {
    watchdog_default(|| {
        // As a client library's pipeline does: every request is sent before a reply is
        // read. Paused, the reader goes on reading requests (not running them), so the
        // send completes; Redis, which never pauses, answers this client too.
        let server = ServerProcess::start(&["--max-output", "1048576"]);
        let mut client = server.connect();
        let (pipeline, want) = a_pipeline_bigger_than_the_kernel_buffers();
        send(&mut client, &pipeline);
        let mut got = vec![0u8; want.len()];
        std::io::Read::read_exact(&mut client, &mut got).expect("every reply arrives");
        assert!(got == want, "the replies differ from what was asked");
        drop(client);
        let stopped = server.stop();
        assert!(stopped.status.success());
        assert!(stopped.stdout.contains("0 slow"), "{}", stopped.stdout);
    });
}

/// The server's resident memory, in KiB (Linux's `/proc`).
fn rss_kib(pid: u32) -> usize {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc");
    let line = status
        .lines()
        .find(|line| line.starts_with("VmRSS:"))
        .expect("a VmRSS line");
    line.split_whitespace()
        .nth(1)
        .expect("a number")
        .parse()
        .expect("KiB")
}

#[test]
fn a_client_that_keeps_a_window_of_requests_in_flight_holds_no_more_than_the_query_limit() {
    watchdog_default(|| {
        // As a client library's pipelining with a window does: it keeps 2,000 `ECHO`s
        // of 8 KiB (16 MiB) outstanding, sending one more for each reply it reads, and
        // it reads steadily but more slowly than the server could write. The reader is
        // paused again and again, and reads more requests each time, so its buffer
        // always holds whole requests: the batch never ends. What it ran must still
        // leave the buffer (Redis holds about the window here, under 30 MB of RSS),
        // not stay in front of the waiting requests for as long as the client goes on.
        let server = ServerProcess::start(&["--max-output", "16384", "--max-query", "33554432"]);
        let pid = server.pid();
        let mut client = server.connect();
        let mut reader = client.try_clone().expect("a second handle");
        let value = vec![b'e'; 8192];
        let request = command(&[b"ECHO", &value]);
        let reply_len = format!("${}\r\n", value.len()).len() + value.len() + 2;
        const WINDOW: usize = 2000;
        const TOTAL: usize = 30_000;
        let replies = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&replies);
        let reading = thread::spawn(move || {
            let mut chunk = vec![0u8; 64 * 1024];
            let mut bytes = 0;
            while bytes < TOTAL * reply_len {
                let n = std::io::Read::read(&mut reader, &mut chunk).expect("replies arrive");
                assert!(n > 0, "the server closed the connection");
                bytes += n;
                counted.store(bytes / reply_len, Ordering::Relaxed);
                thread::sleep(Duration::from_micros(500));
            }
        });
        // Query limit, output limit, the window itself, and room for the rest.
        let bound_kib = 96 * 1024;
        let mut sent = 0;
        while sent < TOTAL {
            let outstanding = sent - replies.load(Ordering::Relaxed);
            if outstanding < WINDOW {
                let more = (WINDOW - outstanding).min(TOTAL - sent);
                send(&mut client, &request.repeat(more));
                sent += more;
            } else {
                thread::sleep(Duration::from_millis(1));
            }
            let rss = rss_kib(pid);
            assert!(
                rss < bound_kib,
                "the server holds {rss} KiB after {sent} requests sent, {} replies read",
                replies.load(Ordering::Relaxed)
            );
        }
        reading.join().expect("every reply read");
        drop(client);
        let stopped = server.stop();
        assert!(stopped.status.success(), "{}", stopped.stderr);
    });
}

#[test]
fn a_paused_client_that_closes_its_sending_half_still_gets_every_reply() {
    watchdog_default(|| {
        // As `nc -N` does with a file of commands: send it all, close the sending half,
        // read until the server closes. The end of file reaches the reader while it is
        // paused: what it read before still runs, and every reply is written.
        let server = ServerProcess::start(&["--max-output", "1048576"]);
        let mut client = server.connect();
        let (pipeline, want) = a_pipeline_bigger_than_the_kernel_buffers();
        send(&mut client, &pipeline);
        client
            .shutdown(std::net::Shutdown::Write)
            .expect("half-close");
        let got = read_to_end(&mut client);
        assert!(got == want, "{} bytes of {}", got.len(), want.len());
        let stopped = server.stop();
        assert!(stopped.status.success(), "{}", stopped.stderr);
    });
}

#[test]
fn shutdown_finishes_computed_replies_closes_everyone_and_exits_zero() {
    watchdog_default(|| {
        let server = ServerProcess::start(&[]);
        let mut idle = server.connect();
        let mut busy = server.connect();
        send(&mut busy, &command(&[b"SET", b"k", b"v"]));
        expect_reply(&mut busy, b"+OK\r\n");
        send(&mut idle, &command(&[b"PING"]));
        expect_reply(&mut idle, b"+PONG\r\n");
        let stopped = server.stop();
        // Both connections end with end of file, nothing lost.
        assert_eq!(read_to_end(&mut idle), b"");
        assert_eq!(read_to_end(&mut busy), b"");
        assert!(stopped.status.success(), "{}", stopped.stderr);
        assert!(
            stopped.stdout.contains("shutdown: stopped accepting; closed 2 connections (2 finished, 0 forced at the deadline)"),
            "stdout was:\n{}",
            stopped.stdout
        );
        assert!(
            stopped.stderr.contains("SIGTERM received"),
            "{}",
            stopped.stderr
        );
    });
}

/// Connects, stores a 256 KiB value and sends 100 `GET`s of it: 25 MiB of replies, far
/// past the output bound (at most the default 8 MiB in these tests) and loopback's
/// buffers, so the reader pauses among them. Returns
/// the client, which has read only the `SET`'s reply, and the length of the `GET`s'.
fn a_client_paused_on_25_mib_of_replies(server: &ServerProcess) -> (TcpStream, usize) {
    let mut client = server.connect();
    let value = vec![b'v'; 256 * 1024];
    send(&mut client, &command(&[b"SET", b"big", &value]));
    expect_reply(&mut client, b"+OK\r\n");
    send(&mut client, &command(&[b"GET", b"big"]).repeat(100));
    (client, 100 * (b"$262144\r\n".len() + value.len() + 2))
}

/// Waits until the replies waiting unread in `client`'s receive queue stop growing,
/// and returns how many bytes wait. The server has stopped sending while replies are
/// left to send only when the socket takes no more: its reader is paused on its output.
/// (Replies that stop for a moment on a loaded machine make the test weaker in that
/// run, never wrong: a reader not yet paused takes no late request either.)
fn until_the_replies_stop_coming(client: &TcpStream) -> usize {
    let mut peeked = vec![0; 32 * 1024 * 1024];
    let mut last = 0;
    loop {
        thread::sleep(Duration::from_millis(100));
        let waiting = client.peek(&mut peeked).expect("peek at the replies");
        if waiting > 0 && waiting == last {
            return waiting;
        }
        last = waiting;
    }
}

#[test]
fn a_paused_client_runs_no_request_it_sent_after_the_shutdown_began() {
    watchdog_default(|| {
        // The shutdown shuts every read half: "each reader sees end of file and takes
        // no more requests" (the shutdown chapter). Linux's `shutdown(SHUT_RD)` does
        // not stop the peer's bytes, though: a reader that reads on after it takes
        // them. An unpaused reader checks the stop after its batch; a paused one reads
        // on, and runs what it read once its output drains.
        let mut server =
            ServerProcess::start(&["--max-output", "1048576", "--shutdown-deadline", "5000"]);
        let (mut client, gets_len) = a_client_paused_on_25_mib_of_replies(&server);
        let waiting = until_the_replies_stop_coming(&client);
        assert!(
            waiting < gets_len,
            "all {waiting} bytes of replies arrived: the reader never paused"
        );
        server.signal("-INT");
        server.wait_for_stderr("SIGINT received");
        // The listener is closed and the read halves shut in one step: once a connect
        // is refused, the stop has reached the reader.
        server.wait_until_connects_are_refused();
        // Sent after the stop: none of these may run.
        let late = command(&[b"INCR", b"late"]).repeat(1000);
        for _ in 0..20 {
            if std::io::Write::write_all(&mut client, &late).is_err() {
                break;
            }
            thread::sleep(Duration::from_millis(10));
        }
        let got = read_to_end(&mut client);
        // Every `GET`'s reply, then nothing: any more is an `INCR`'s.
        let late_replies = got.get(gets_len..).unwrap_or_default();
        assert!(
            late_replies.is_empty(),
            "{} `INCR`s sent after the shutdown began ran (of {} bytes read)",
            late_replies.windows(2).filter(|w| *w == b"\r\n").count(),
            got.len()
        );
        let stopped = server.wait();
        assert!(stopped.status.success(), "{}", stopped.stderr);
    });
}

#[test]
fn at_the_shutdown_deadline_a_client_that_does_not_read_is_closed() {
    watchdog_default(|| {
        let server = ServerProcess::start(&["--shutdown-deadline", "200"]);
        // Far more than the kernel's buffers hold, and none of it is read.
        let (_slow, _) = a_client_paused_on_25_mib_of_replies(&server);
        server.signal("-INT");
        let stopped = server.wait();
        assert!(stopped.status.success(), "{}", stopped.stderr);
        assert!(
            stopped
                .stdout
                .contains("closed 1 connections (0 finished, 1 forced at the deadline)"),
            "stdout was:\n{}",
            stopped.stdout
        );
        assert!(
            stopped.stderr.contains("SIGINT received"),
            "{}",
            stopped.stderr
        );
    });
}

#[test]
fn on_ctrl_c_the_server_stops_accepting_closes_its_connections_and_exits_zero() {
    watchdog_default(|| {
        // A client that reads nothing holds the shutdown open until its deadline, two
        // seconds: long enough to see that a newcomer is refused meanwhile.
        let mut server = ServerProcess::start(&["--shutdown-deadline", "2000"]);
        let (_slow, _) = a_client_paused_on_25_mib_of_replies(&server);
        server.signal("-INT");
        server.wait_for_stderr("SIGINT received");
        server.wait_until_connects_are_refused();
        assert!(
            server.is_running(),
            "the server exited before the deadline: the refusal proves nothing"
        );
        let stopped = server.wait();
        assert!(stopped.status.success(), "{}", stopped.stderr);
        assert!(
            stopped
                .stdout
                .contains("shutdown: stopped accepting; closed 1 connections (0 finished, 1 forced at the deadline)"),
            "stdout was:\n{}",
            stopped.stdout
        );
    });
}

/// Sends `bytes` in one write and reads every reply until the server closes.
fn replies_to(server: &ServerProcess, bytes: &[u8]) -> String {
    let mut stream = server.connect();
    send(&mut stream, bytes);
    stream
        .shutdown(std::net::Shutdown::Write)
        .expect("half-close");
    String::from_utf8_lossy(&read_to_end(&mut stream)).into_owned()
}

#[test]
fn inline_commands_are_split_as_redis_splits_them() {
    watchdog_default(|| {
        let server = ServerProcess::start(&[]);
        // What telnet (CRLF) and nc (LF alone) send; blank lines are skipped.
        let input = concat!(
            "PING\r\n",
            "PING\n",
            "   \r\n\n",
            " \t SET q \"a b\\x41\\n\" \r\n",
            "GET q\r\n",
            "ECHO 'it\\'s'\r\n",
            "ECHO \"\"\r\n",
            "ECHO \"\\t\\z\\\\\\\"\\xzz\"\r\n",
            "PING\rPING\r\n",
        );
        let want = concat!(
            "+PONG\r\n",
            "+PONG\r\n",
            "+OK\r\n",
            "$5\r\na bA\n\r\n",
            "$4\r\nit's\r\n",
            "$0\r\n\r\n",
            "$7\r\n\tz\\\"xzz\r\n",
            "$4\r\nPING\r\n",
        );
        assert_eq!(replies_to(&server, input.as_bytes()), want);
        // Split at every byte, inline and RESP mixed: the same replies.
        let mut stream = server.connect();
        let input = [
            &b"ECHO one\r\n"[..],
            &command(&[b"ECHO", b"two"]),
            b"PING\n",
        ]
        .concat();
        for byte in &input {
            send(&mut stream, std::slice::from_ref(byte));
        }
        expect_reply(&mut stream, b"$3\r\none\r\n$3\r\ntwo\r\n+PONG\r\n");
        // A quote left open, or closed with no space after it: an error, then the end.
        for bad in ["ECHO \"abc\r\nPING\r\n", "ECHO a\"b c\"d\r\nPING\r\n"] {
            assert_eq!(
                replies_to(&server, bad.as_bytes()),
                "-ERR Protocol error: unbalanced quotes in request\r\n"
            );
        }
        // A line that never ends, past the limit of one.
        let endless = vec![b'A'; 70_000];
        assert_eq!(
            replies_to(&server, &endless),
            "-ERR Protocol error: too big inline request\r\n"
        );
    });
}

#[test]
fn errors_name_the_command_as_redis_does() {
    watchdog_default(|| {
        let server = ServerProcess::start(&[]);
        let mut con = Con::new(&server);
        // An unknown name keeps its case; its arguments are shown up to 128 bytes.
        assert_eq!(
            con.error(&["Foo", "a", "b"]),
            "ERR unknown command 'Foo', with args beginning with: 'a' 'b' "
        );
        let long = "a".repeat(50);
        let shown = format!("'{long}' '{long}' '{}' ", "a".repeat(22));
        assert_eq!(
            con.error(&["Foo", &long, &long, &long, &long]),
            format!("ERR unknown command 'Foo', with args beginning with: {shown}")
        );
        let many: Vec<&str> = "abcdefghijkl".split("").filter(|s| !s.is_empty()).collect();
        let mut args = vec!["FOO"];
        args.extend(&many);
        assert_eq!(
            con.error(&args),
            "ERR unknown command 'FOO', with args beginning with: 'a' 'b' 'c' 'd' 'e' 'f' 'g' 'h' 'i' 'j' 'k' 'l' "
        );
        // No table of commands or their documentation: an empty array.
        for sub in [
            &["COMMAND"][..],
            &["COMMAND", "DOCS"],
            &["COMMAND", "INFO", "get"],
        ] {
            assert_eq!(
                con.query(sub),
                capstone_redis::Frame::Array(Some(Vec::new()))
            );
        }
        assert_eq!(
            con.error(&["COMMAND", "FOO"]),
            "ERR unknown subcommand 'FOO'. Try COMMAND HELP."
        );
        assert_eq!(
            con.error(&["COMMAND", "COUNT", "x"]),
            "ERR wrong number of arguments for 'command|count' command"
        );
        // In subscribed mode an unknown command, or a known one with the wrong number
        // of arguments, gets the same error as outside it.
        let mut subscriber = server.connect();
        send(&mut subscriber, &command(&[b"SUBSCRIBE", b"c"]));
        send(&mut subscriber, &command(&[b"Foo"]));
        send(&mut subscriber, &command(&[b"GET"]));
        send(&mut subscriber, &command(&[b"QUIT", b"now"]));
        assert_eq!(
            String::from_utf8_lossy(&read_to_end(&mut subscriber)),
            concat!(
                "*3\r\n$9\r\nsubscribe\r\n$1\r\nc\r\n:1\r\n",
                "-ERR unknown command 'Foo', with args beginning with: \r\n",
                "-ERR wrong number of arguments for 'get' command\r\n",
                "+OK\r\n",
            )
        );
    });
}

#[test]
fn times_to_live_redis_cannot_hold_are_refused() {
    watchdog_default(|| {
        let server = ServerProcess::start(&[]);
        let mut con = Con::new(&server);
        let refused = "ERR invalid expire time in 'set' command";
        // Past i64::MAX milliseconds once made a deadline: refused, nothing written.
        assert_eq!(
            con.error(&["SET", "k", "v", "EX", "9223372036854776"]),
            refused
        );
        assert_eq!(
            con.error(&["SET", "k", "v", "PX", "9223372036854775807"]),
            refused
        );
        assert_eq!(con.int(&["EXISTS", "k"]), 0);
        assert_eq!(
            con.simple(&["SET", "k", "v", "EX", "9223370000000000"]),
            "OK"
        );
        // A deadline that far is held, not wrapped: the seconds left are within one
        // second of what was asked (more on a machine that stalls a second).
        let far = 9_223_370_000_000_000;
        let ttl = con.int(&["TTL", "k"]);
        assert!((far - 10..=far).contains(&ttl), "TTL {ttl}");
        let refused = "ERR invalid expire time in 'expire' command";
        assert_eq!(con.error(&["EXPIRE", "k", "9223372036854775"]), refused);
        assert_eq!(con.error(&["EXPIRE", "k", "-9223372036854776"]), refused);
        assert_eq!(
            con.error(&["PEXPIRE", "k", "9223372036854775807"]),
            "ERR invalid expire time in 'pexpire' command"
        );
        let ttl = con.int(&["TTL", "k"]);
        assert!((far - 10..=far).contains(&ttl), "TTL {ttl}");
        // A negative time within range deletes the key.
        assert_eq!(con.int(&["EXPIRE", "k", "-9223372036854775"]), 1);
        assert_eq!(con.int(&["EXISTS", "k"]), 0);
    });
}

#[test]
fn expire_takes_redis_conditions_and_set_takes_repeated_options() {
    watchdog_default(|| {
        let server = ServerProcess::start(&[]);
        let mut con = Con::new(&server);
        assert_eq!(con.simple(&["SET", "k", "v"]), "OK");
        assert_eq!(
            con.error(&["EXPIRE", "k", "10", "NX", "XX"]),
            "ERR NX and XX, GT or LT options at the same time are not compatible"
        );
        assert_eq!(
            con.error(&["EXPIRE", "k", "10", "GT", "LT"]),
            "ERR GT and LT options at the same time are not compatible"
        );
        assert_eq!(
            con.error(&["EXPIRE", "k", "abc", "FOO"]),
            "ERR Unsupported option FOO"
        );
        // No deadline yet: XX and GT refuse, NX sets one.
        assert_eq!(con.int(&["EXPIRE", "k", "10", "XX"]), 0);
        assert_eq!(con.int(&["EXPIRE", "k", "10", "GT"]), 0);
        assert_eq!(con.int(&["EXPIRE", "k", "10", "nx"]), 1);
        assert_eq!(con.int(&["EXPIRE", "k", "20", "NX"]), 0);
        assert_eq!(con.int(&["EXPIRE", "k", "5", "GT"]), 0);
        assert_eq!(con.int(&["EXPIRE", "k", "20", "gt"]), 1);
        assert_eq!(con.int(&["EXPIRE", "k", "30", "LT"]), 0);
        assert_eq!(con.int(&["PEXPIRE", "k", "3000", "LT", "XX"]), 1);
        let ttl = con.int(&["TTL", "k"]);
        assert!((1..=3).contains(&ttl), "TTL {ttl}");
        assert_eq!(con.int(&["EXPIRE", "k", "-1", "GT"]), 0);
        assert_eq!(con.int(&["EXPIRE", "k", "-1", "LT"]), 1);
        assert_eq!(con.int(&["EXISTS", "k"]), 0);
        // SET: a flag may repeat, and the last time given wins; the options are all
        // read before the time is.
        assert_eq!(con.simple(&["SET", "k", "v", "NX", "NX"]), "OK");
        assert_eq!(con.simple(&["SET", "k", "v", "EX", "abc", "EX", "5"]), "OK");
        let ttl = con.int(&["TTL", "k"]);
        assert!((1..=5).contains(&ttl), "TTL {ttl}");
        assert_eq!(
            con.error(&["SET", "k", "v", "EX", "abc", "NX", "XX"]),
            "ERR syntax error"
        );
        assert_eq!(
            con.error(&["SET", "k", "v", "EX", "0", "FOO"]),
            "ERR syntax error"
        );
        // Options of Redis's SET that this server does not take.
        for option in ["KEEPTTL", "GET"] {
            assert_eq!(con.error(&["SET", "k", "v", option]), "ERR syntax error");
        }
    });
}

#[test]
fn integers_are_read_as_strictly_as_redis_reads_them() {
    watchdog_default(|| {
        let server = ServerProcess::start(&[]);
        let mut con = Con::new(&server);
        let not_an_integer = "ERR value is not an integer or out of range";
        for value in ["+1", "01", "-0", " 1", "1 ", "", "99999999999999999999"] {
            assert_eq!(con.simple(&["SET", "k", value]), "OK");
            assert_eq!(
                con.error(&["INCR", "k"]),
                not_an_integer,
                "INCR of {value:?}"
            );
        }
        for (value, decremented) in [("0", -1), ("-1", -2), ("10", 9)] {
            assert_eq!(con.simple(&["SET", "k", value]), "OK");
            assert_eq!(con.int(&["DECR", "k"]), decremented);
        }
        assert_eq!(con.error(&["SET", "k", "v", "EX", "+5"]), not_an_integer);
        assert_eq!(con.error(&["EXPIRE", "k", "05"]), not_an_integer);
    });
}

#[test]
fn a_null_or_empty_request_is_skipped_and_a_bad_element_is_named() {
    watchdog_default(|| {
        let server = ServerProcess::start(&[]);
        let mut skipped = b"*-1\r\n*0\r\n".to_vec();
        skipped.extend(command(&[b"PING"]));
        skipped.extend(command(&[b"QUIT"]));
        assert_eq!(replies_to(&server, &skipped), "+PONG\r\n+OK\r\n");
        for (element, error) in [
            (
                "*1\r\n:1\r\n",
                "-ERR Protocol error: expected '$', got ':'\r\n",
            ),
            (
                "*1\r\n*1\r\n$4\r\nPING\r\n",
                "-ERR Protocol error: expected '$', got '*'\r\n",
            ),
            (
                "*1\r\n$-1\r\n",
                "-ERR Protocol error: invalid bulk length\r\n",
            ),
            // Refused at its first byte, before the rest of the array has come.
            (
                "*3\r\n:1\r\n",
                "-ERR Protocol error: expected '$', got ':'\r\n",
            ),
            // A length is read as strictly as Redis reads it: no leading zero.
            (
                "*1\r\n$04\r\nPING\r\n",
                "-ERR Protocol error: invalid bulk length\r\n",
            ),
            (
                "*01\r\n$4\r\nPING\r\n",
                "-ERR Protocol error: invalid multibulk length\r\n",
            ),
            // Stricter than Redis, which takes any negative count for an empty array.
            (
                "*-2\r\n",
                "-ERR Protocol error: invalid multibulk length\r\n",
            ),
        ] {
            assert_eq!(replies_to(&server, element.as_bytes()), error);
        }
    });
}

/// Without `--idle-timeout`, no client is disconnected for being silent: Redis's
/// default `timeout` is 0, which never disconnects one, and pooled connections rely on
/// it. (It was 300 seconds here.)
#[test]
fn by_default_no_client_is_disconnected_for_being_idle() {
    assert_eq!(capstone_redis::Config::default().idle_timeout, None);
}

#[test]
fn a_client_that_leaves_its_replies_unread_past_the_idle_timeout_is_disconnected() {
    watchdog_default(|| {
        // As Redis's `timeout` does: a client whose replies wait, unread, for the idle
        // timeout is idle too. The server is paused on it, not reading its requests;
        // without the timeout it would hold that client and its output for ever.
        // The timeout is short, so that the test waits a third of a second; the client
        // sends its first command at once after its connect.
        let mut server =
            ServerProcess::start(&["--idle-timeout-ms", "300", "--max-output", "1048576"]);
        let (mut slow, gets_len) = a_client_paused_on_25_mib_of_replies(&server);
        // Nothing is read until the server says it let the client go.
        server
            .wait_for_stderr("client disconnected: its replies went unread past the idle timeout");
        let got = read_to_end(&mut slow);
        assert!(
            got.len() < gets_len,
            "{} bytes: every reply was still sent",
            got.len()
        );
        // The server goes on.
        let mut con = Con::new(&server);
        assert_eq!(con.simple(&["PING"]), "PONG");
        let stopped = server.stop();
        assert!(stopped.status.success(), "{}", stopped.stderr);
        assert!(stopped.stdout.contains("1 idle"), "{}", stopped.stdout);
    });
}

#[test]
fn a_paused_client_that_sends_after_the_shutdown_began_still_gets_every_computed_reply() {
    watchdog_default(|| {
        // A paused reader stops reading once the shutdown began; what the client sends
        // after that stays unread in the kernel, and closing a socket with unread
        // bytes sends a reset (RFC 1122 4.2.2.13, Linux's `tcp_close`), which drops
        // the replies still on their way: the shutdown counts the connection as
        // finished, yet the client loses the tail of its replies. (Sending nothing
        // after the stop, the same client gets all 100.)
        let mut server =
            ServerProcess::start(&["--max-output", "1048576", "--shutdown-deadline", "5000"]);
        let mut client = server.connect();
        let value = vec![b'v'; 256 * 1024];
        send(&mut client, &command(&[b"SET", b"big", &value]));
        expect_reply(&mut client, b"+OK\r\n");
        let gets = command(&[b"GET", b"big"]).repeat(100);
        // 25 MiB of replies: the reader pauses among them.
        send(&mut client, &gets);
        server.signal("-INT");
        server.wait_for_stderr("SIGINT received");
        // The listener is closed and the read halves shut in one step: once a connect
        // is refused, the paused reader has its end of file.
        server.wait_until_connects_are_refused();
        // One small request after the stop, then another once the server's loop has
        // surely gone round (8 MiB of replies are more than loopback's buffers hold).
        let _ = std::io::Write::write_all(&mut client, &command(&[b"PING"]));
        let mut got = vec![0u8; 8 << 20];
        std::io::Read::read_exact(&mut client, &mut got).expect("the first 8 MiB arrive");
        let _ = std::io::Write::write_all(&mut client, &command(&[b"PING"]));
        // Read in small pieces, so that the server's send buffer still holds replies
        // when it closes (a fast reader on loopback takes each write as it is made).
        let mut piece = [0u8; 64];
        while let Ok(n @ 1..) = std::io::Read::read(&mut client, &mut piece) {
            got.extend_from_slice(&piece[..n]);
        }
        let gets_len = 100 * (b"$262144\r\n".len() + value.len() + 2);
        let stopped = server.wait();
        assert!(stopped.status.success(), "{}", stopped.stderr);
        assert!(
            got.len() == gets_len,
            "{} of {gets_len} bytes of computed replies arrived; the server says: {}",
            got.len(),
            stopped.stdout
        );
    });
}

#[test]
fn a_client_that_reads_all_along_but_sends_faster_is_paused_not_dropped() {
    watchdog_default(|| {
        // A client with a reading thread and a sending thread (as a pipelining client
        // library's may be): it reads all the time, 32 bytes a read, only slower than
        // the 1 KiB replies of its 20-byte `GET`s come. Before the paused reader read on, loopback's
        // buffers held the sender back and every reply arrived. Now the paused reader
        // takes the client's requests as fast as they come, and past `--max-query`
        // of them waiting it disconnects the client as slow. Redis, which does not
        // pause, answers them all.
        let server = ServerProcess::start(&["--max-output", "65536", "--max-query", "262144"]);
        let mut client = server.connect();
        let value = vec![b'v'; 1024];
        send(&mut client, &command(&[b"SET", b"v", &value]));
        expect_reply(&mut client, b"+OK\r\n");
        let count = 30_000;
        let reply_len = b"$1024\r\n".len() + value.len() + 2;
        let mut reading = client.try_clone().expect("clone the socket");
        let reader = thread::spawn(move || {
            let (mut got, mut piece) = (0, [0u8; 32]);
            while got < count * reply_len {
                match std::io::Read::read(&mut reading, &mut piece) {
                    Ok(0) => return Err(format!("end of file after {got} bytes")),
                    Ok(n) => got += n,
                    Err(error) => return Err(format!("{error} after {got} bytes")),
                }
            }
            Ok(got)
        });
        // 600 KiB of requests, more than the query limit: it would be a slow client
        // only if it did not read.
        let sent = std::io::Write::write_all(&mut client, &command(&[b"GET", b"v"]).repeat(count));
        let read = reader.join().expect("the reader thread");
        drop(client);
        let stopped = server.stop();
        assert!(
            sent.is_ok() && read.is_ok(),
            "sent: {sent:?}, read: {read:?}; the server says: {}{}",
            stopped.stdout,
            stopped.stderr
        );
        assert!(stopped.stdout.contains("0 slow"), "{}", stopped.stdout);
    });
}
