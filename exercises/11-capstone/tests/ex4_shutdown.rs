//! Exercise 4: the shutdown sequence. Stop accepting, send every reply already
//! computed, cancel what is left at the deadline, and count what was closed.

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::rc::Rc;
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use crate::common::{command, hang_detector, read_to_end, until};
use ex11_capstone::{Config, Server, ShutdownReport, store};
use oneloop::{TcpListener, run, spawn, to_thread};
use oneloop_testkit::{panic_text, watchdog_default};

/// 32 KiB values, 1000 of them asked for: 32 MiB of replies, more than loopback's
/// buffers hold, so most of them wait in the server when the shutdown begins.
const VALUE: usize = 32 * 1024;
const GETS: usize = 1000;

fn config(deadline: Duration) -> Config {
    Config {
        // Room for every reply: the reader never pauses for backpressure here.
        max_output: 256 * 1024 * 1024,
        shutdown_deadline: deadline,
        ..Config::default()
    }
}

/// What a client that asked for the big pipeline must read, in order.
fn pipeline_replies() -> Vec<u8> {
    let mut want = b"+OK\r\n".to_vec();
    for _ in 0..GETS {
        want.extend_from_slice(format!("${VALUE}\r\n").as_bytes());
        want.extend(std::iter::repeat_n(b'v', VALUE));
        want.extend_from_slice(b"\r\n");
    }
    want.extend_from_slice(b":1\r\n");
    want
}

/// Sends SET, the GETs and `INCR done_key` without reading a byte of the replies.
fn send_pipeline(addr: SocketAddr, done_key: &str) -> TcpStream {
    let mut client = TcpStream::connect(addr).expect("connect");
    hang_detector(&client);
    let mut bytes = command(&[b"SET", b"big", &vec![b'v'; VALUE]]);
    for _ in 0..GETS {
        bytes.extend(command(&[b"GET", b"big"]));
    }
    bytes.extend(command(&[b"INCR", done_key.as_bytes()]));
    client.write_all(&bytes).expect("send the pipeline");
    client
}

/// The client thread's result; its panic, if it panicked, with its own message (a
/// thread's panic reaches `join` as a payload that `unwrap` would print as `Any`).
fn joined<T>(clients: thread::JoinHandle<T>) -> T {
    clients
        .join()
        .unwrap_or_else(|payload| panic!("the client thread panicked: {}", panic_text(&*payload)))
}

/// Connects, sends PING and reads PONG: a client that is up to date and idle.
fn idle_client(addr: SocketAddr) -> TcpStream {
    let mut client = TcpStream::connect(addr).expect("connect");
    hang_detector(&client);
    client.write_all(&command(&[b"PING"])).expect("send PING");
    let mut pong = [0u8; 7];
    client.read_exact(&mut pong).expect("read PONG");
    assert_eq!(&pong, b"+PONG\r\n");
    client
}

#[test]
fn ex4_shutdown_sends_every_reply_already_computed_then_closes_everyone() {
    watchdog_default(|| {
        let (report, pipelined, idle) = run(async {
            let listener = TcpListener::bind("127.0.0.1:0").unwrap();
            let addr = listener.local_addr().unwrap();
            let server = Server::new(config(Duration::from_secs(5)));
            let serving = spawn(Rc::clone(&server).run(listener));
            let (stopped_tx, stopped_rx) = mpsc::channel::<()>();
            let (ready_tx, ready_rx) = mpsc::channel::<()>();
            // One client pipelines and reads nothing until the shutdown began; two
            // others are idle.
            let clients = thread::spawn(move || {
                let mut pipelined = send_pipeline(addr, "done");
                let mut idle = [idle_client(addr), idle_client(addr)];
                ready_tx.send(()).unwrap();
                stopped_rx.recv().unwrap();
                let pipelined = read_to_end(&mut pipelined);
                let idle = idle.each_mut().map(read_to_end);
                (pipelined, idle)
            });
            // Every reply is computed once `done` exists: INCR was the last command.
            until(|| ready_rx.try_recv().is_ok()).await;
            until(|| store::get(&server.db, b"done").is_some()).await;
            assert_eq!(server.clients(), 3);
            server.stop();
            stopped_tx.send(()).unwrap();
            let report = serving.await.unwrap().unwrap();
            assert_eq!(server.clients(), 0, "a connection outlived the shutdown");
            assert_eq!(server.stats().forced, 0, "a connection was cancelled");
            let (pipelined, idle) = to_thread(move || joined(clients)).await.unwrap();
            (report, pipelined, idle)
        })
        .unwrap();
        assert!(
            pipelined == pipeline_replies(),
            "the pipelining client read {} bytes of the {} computed for it",
            pipelined.len(),
            pipeline_replies().len()
        );
        assert_eq!(
            idle,
            [Vec::<u8>::new(), Vec::new()],
            "idle clients read only the end"
        );
        assert_eq!(
            report,
            ShutdownReport {
                open: 3,
                finished: 3,
                forced: 0
            }
        );
    });
}

#[test]
fn ex4_at_the_deadline_a_client_that_does_not_read_is_closed_and_counted_forced() {
    watchdog_default(|| {
        let (report, idle) = run(async {
            let listener = TcpListener::bind("127.0.0.1:0").unwrap();
            let addr = listener.local_addr().unwrap();
            // The idle client must finish within the deadline and the stuck one cannot:
            // one second leaves a loaded machine room for the first.
            let server = Server::new(config(Duration::from_secs(1)));
            let serving = spawn(Rc::clone(&server).run(listener));
            let (stopped_tx, stopped_rx) = mpsc::channel::<()>();
            let (ready_tx, ready_rx) = mpsc::channel::<()>();
            let clients = thread::spawn(move || {
                // This one never reads its 32 MiB: it cannot be finished.
                let stuck = send_pipeline(addr, "done");
                let mut idle = idle_client(addr);
                ready_tx.send(()).unwrap();
                stopped_rx.recv().unwrap();
                let idle = read_to_end(&mut idle);
                (stuck, idle)
            });
            until(|| ready_rx.try_recv().is_ok()).await;
            until(|| store::get(&server.db, b"done").is_some()).await;
            server.stop();
            stopped_tx.send(()).unwrap();
            let report = serving.await.unwrap().unwrap();
            assert_eq!(server.clients(), 0, "a connection outlived the shutdown");
            assert_eq!(server.stats().forced, 1, "one connection was cancelled");
            let (stuck, idle) = to_thread(move || joined(clients)).await.unwrap();
            drop(stuck);
            (report, idle)
        })
        .unwrap();
        assert_eq!(idle, b"");
        assert_eq!(
            report,
            ShutdownReport {
                open: 2,
                finished: 1,
                forced: 1
            }
        );
    });
}

/// Connects until the server refuses: its listener is closed. While a listener is
/// open the kernel completes every connect, accepted or not; so this ends only once
/// the server dropped its listener (the watchdog bounds the wait).
fn until_refused(addr: SocketAddr) {
    loop {
        match TcpStream::connect(addr) {
            Err(error) if error.kind() == ErrorKind::ConnectionRefused => return,
            // The listener closed during this handshake and reset it: the next
            // connect is refused.
            Err(error) if error.kind() == ErrorKind::ConnectionReset => {}
            Err(error) => panic!("connect: {error}"),
            // Accepted or queued: the listener is still open. Try again.
            Ok(stream) => drop(stream),
        }
        thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn ex4_the_listener_closes_at_the_stop_while_the_connections_still_finish() {
    watchdog_default(|| {
        let (report, stuck_read) = run(async {
            let listener = TcpListener::bind("127.0.0.1:0").unwrap();
            let addr = listener.local_addr().unwrap();
            // A deadline far past the watchdog: only the client below ends the shutdown.
            let server = Server::new(config(Duration::from_secs(600)));
            let serving = spawn(Rc::clone(&server).run(listener));
            let (stopped_tx, stopped_rx) = mpsc::channel::<()>();
            let (ready_tx, ready_rx) = mpsc::channel::<()>();
            let clients = thread::spawn(move || {
                // Its replies wait in the server: the shutdown cannot end without it.
                let mut stuck = send_pipeline(addr, "done");
                ready_tx.send(()).unwrap();
                stopped_rx.recv().unwrap();
                // The listener closes while this connection is still open.
                until_refused(addr);
                // Reading a little, then leaving, ends the one connection left.
                let mut first = [0u8; 5];
                stuck.read_exact(&mut first).unwrap();
                drop(stuck);
                first
            });
            until(|| ready_rx.try_recv().is_ok()).await;
            until(|| store::get(&server.db, b"done").is_some()).await;
            server.stop();
            stopped_tx.send(()).unwrap();
            let report = serving.await.unwrap().unwrap();
            assert_eq!(server.clients(), 0, "a connection outlived the shutdown");
            let stuck_read = to_thread(move || joined(clients)).await.unwrap();
            (report, stuck_read)
        })
        .unwrap();
        assert_eq!(&stuck_read, b"+OK\r\n");
        assert_eq!(
            report,
            ShutdownReport {
                open: 1,
                finished: 1,
                forced: 0
            },
            "a client that left during the grace period finished; nobody was cancelled"
        );
    });
}
