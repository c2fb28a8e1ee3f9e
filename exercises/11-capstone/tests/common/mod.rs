//! Helpers for the in-process tests: a loopback pair, a condition to wait for, and
//! RESP bytes by hand.
#![allow(dead_code)] // Each test file uses its own part of this module.

use std::io::{ErrorKind, Read};
use std::net::TcpStream;
use std::rc::Rc;
use std::time::Duration;

use oneloop::{TcpListener, sleep};

/// A connected pair: the loop's end, and a blocking client for another thread.
pub async fn pair() -> (Rc<oneloop::TcpStream>, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let addr = listener.local_addr().expect("an address");
    // The kernel completes the handshake into the backlog: no accept needed first.
    let client = TcpStream::connect(addr).expect("connect over loopback");
    hang_detector(&client);
    let (server, _) = listener.accept().await.expect("accept");
    (Rc::new(server), client)
}

/// A reply that never comes fails the read instead of hanging the test.
pub fn hang_detector(client: &TcpStream) {
    client
        .set_read_timeout(Some(Duration::from_secs(8)))
        .expect("set a read timeout");
}

/// Waits, turn after turn, until `condition` holds (the watchdog bounds the wait).
pub async fn until(mut condition: impl FnMut() -> bool) {
    while !condition() {
        sleep(Duration::from_millis(1)).await;
    }
}

/// A command as RESP: an array of bulk strings.
pub fn command(parts: &[&[u8]]) -> Vec<u8> {
    let mut out = format!("*{}\r\n", parts.len()).into_bytes();
    for part in parts {
        out.extend_from_slice(format!("${}\r\n", part.len()).as_bytes());
        out.extend_from_slice(part);
        out.extend_from_slice(b"\r\n");
    }
    out
}

/// Everything until end of file. A read timeout is a failure: the server never
/// closed. A reset after the last byte counts as the end.
pub fn read_to_end(client: &mut TcpStream) -> Vec<u8> {
    let mut got = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        match client.read(&mut chunk) {
            Ok(0) => return got,
            Ok(n) => got.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => return got,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => panic!(
                "no end of file after {} bytes: {e} (the server never closed the connection)",
                got.len()
            ),
        }
    }
}
