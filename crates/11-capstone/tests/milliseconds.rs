//! Deadlines in whole milliseconds, as Redis keeps them, on a virtual clock.
//!
//! Redis stores a key's deadline as a time in milliseconds and reads the time in
//! milliseconds. Sent to Redis 7.0.15 in one write, `SET k v PX 100000`, `PTTL k`,
//! `PEXPIRE k 100000 GT` answer `OK`, `100000`, `0` when the three run in the same
//! millisecond (as they mostly do). The server used to count the time to live in
//! nanoseconds: it answered `99999` and `1`, because some nanoseconds had passed.

use std::io::Read;
use std::net::TcpStream;
use std::rc::Rc;
use std::time::Duration;

use capstone_redis::{Client, Config, Frame, Outbox, Server, execute};
use oneloop_core::EventLoop;
use oneloop_io::IoDriver;
use oneloop_testkit::watchdog_default;
use oneloop_timers::{TimerDriver, block_for};

mod common;
use common::pair;

/// Runs `command` as a batch of one and returns its reply, read off the socket.
fn reply(server: &Server, client: &mut Client, peer: &mut TcpStream, command: &[&str]) -> String {
    client.outbox.begin_batch();
    execute(
        server,
        client,
        Frame::command(command.iter().map(|part| part.as_bytes())),
    );
    client.outbox.end_batch();
    let mut reply = [0u8; 64];
    let n = peer.read(&mut reply).expect("a reply");
    String::from_utf8_lossy(&reply[..n]).into_owned()
}

fn micros(n: u64) -> Duration {
    Duration::from_micros(n)
}

#[test]
fn a_time_to_live_counts_whole_milliseconds_as_redis_does() {
    watchdog_default(|| {
        let driver = TimerDriver::virtual_time(IoDriver::new().expect("an epoll instance"));
        let mut event_loop = EventLoop::with_driver(driver);
        event_loop
            .run_until_complete(async {
                let (stream, mut peer) = pair().await;
                let server = Server::new(Config::default());
                let mut client = Client::new(1, Outbox::new(Rc::clone(&stream), 1024 * 1024));
                let mut run = |command: &[&str]| reply(&server, &mut client, &mut peer, command);
                // Set at 0.3 ms: the deadline is in millisecond 100.
                block_for(micros(300));
                assert_eq!(run(&["SET", "k", "v", "PX", "100"]), "+OK\r\n");
                // Still in millisecond 0: 100 left, not 99.
                block_for(micros(500));
                assert_eq!(run(&["PTTL", "k"]), ":100\r\n");
                // A new deadline of 100 from millisecond 0 is the same, not later.
                assert_eq!(run(&["PEXPIRE", "k", "100", "GT"]), ":0\r\n");
                // In millisecond 1 it is later: the deadline moves to millisecond 101.
                block_for(micros(400));
                assert_eq!(run(&["PEXPIRE", "k", "100", "GT"]), ":1\r\n");
                assert_eq!(run(&["PTTL", "k"]), ":100\r\n");
                // 99 from millisecond 1 is 100, earlier than 101; then no longer earlier.
                assert_eq!(run(&["PEXPIRE", "k", "99", "LT"]), ":1\r\n");
                assert_eq!(run(&["PEXPIRE", "k", "99", "LT"]), ":0\r\n");
                assert_eq!(run(&["PTTL", "k"]), ":99\r\n");
                // TTL rounds the same whole milliseconds to seconds.
                assert_eq!(run(&["EXPIRE", "k", "10"]), ":1\r\n");
                block_for(micros(900));
                assert_eq!(run(&["PTTL", "k"]), ":9999\r\n");
                assert_eq!(run(&["TTL", "k"]), ":10\r\n");
            })
            .expect("the loop runs");
    });
}
