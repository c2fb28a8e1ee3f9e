//! The capstone's scenarios: its real server code, recorded on the loop.
//!
//! `capstone_pipeline` serves one connection with the capstone's own `Server`, on real loopback sockets (so its figure draws order only). The client
//! has sent three commands in one write and closed its sending half before the loop
//! starts: the server finds them all in one read. `capstone_expiry` runs the store's
//! `set` and `get` on the virtual clock, so the key's timer fires on the heap at its
//! exact deadline.

use std::io::{self, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::rc::Rc;
use std::time::Duration;

use capstone_redis::store::{Condition, get, set};
use capstone_redis::{Config, Server, new_db};
use oneloop_io::new_event_loop;
use oneloop_timers::{sleep, virtual_time_loop};

use crate::session::{Session, spawn_named, start};

/// `PING`, `SET k v` and `GET k`, written in RESP, back to back.
pub const PIPELINED: &[u8] =
    b"*1\r\n$4\r\nPING\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n";

/// The three replies, in order.
pub const REPLIES: &[u8] = b"+PONG\r\n+OK\r\n$1\r\nv\r\n";

// ANCHOR: capstone_pipeline
/// One client, three commands in one write, served by the capstone's `Server`.
pub fn capstone_pipeline() -> io::Result<Box<dyn Session>> {
    let std_listener = TcpListener::bind("127.0.0.1:0")?;
    let mut client = TcpStream::connect(std_listener.local_addr()?)?;
    // All three requests, then the end of the client's requests, before the loop runs:
    // the connection waits in the listener's backlog with its bytes.
    client.write_all(PIPELINED)?;
    client.shutdown(Shutdown::Write)?;
    std_listener.set_nonblocking(true)?;
    client.set_nonblocking(true)?;
    let listener = oneloop_io::TcpListener::from_std(std_listener)?;
    let client = oneloop_io::TcpStream::from_std(client)?;
    Ok(start(new_event_loop()?, async move {
        let server = Server::new(Config::default());
        let serving = spawn_named("server", Rc::clone(&server).run(listener));
        // Read the replies until the server closes the connection.
        let mut replies = Vec::new();
        let mut chunk = [0; 64];
        loop {
            match client.read(&mut chunk).await.expect("loopback reads work") {
                0 => break,
                n => replies.extend_from_slice(&chunk[..n]),
            }
        }
        assert_eq!(replies, REPLIES, "the three replies, in order");
        server.stop();
        let report = serving.await.expect("the server does not panic");
        assert_eq!(report.expect("the server shuts down").open, 0);
    }))
}
// ANCHOR_END: capstone_pipeline

// ANCHOR: capstone_expiry
/// `SET session abc PX 100`, a read at 50 ms, and a read at 150 ms, on the store.
pub fn capstone_expiry() -> io::Result<Box<dyn Session>> {
    Ok(start(virtual_time_loop(), async {
        let db = new_db();
        let ttl = Duration::from_millis(100);
        set(
            &db,
            b"session",
            b"abc".to_vec(),
            Some(ttl),
            Condition::Always,
        );
        sleep(Duration::from_millis(50)).await;
        assert_eq!(get(&db, b"session"), Some(b"abc".to_vec()));
        sleep(Duration::from_millis(100)).await;
        // The key's own timer deleted it at 100 ms; this read finds nothing to expire.
        assert_eq!(db.borrow().expired(), 1);
        assert_eq!(db.borrow().len(), 0);
        assert_eq!(get(&db, b"session"), None);
    }))
}
// ANCHOR_END: capstone_expiry
