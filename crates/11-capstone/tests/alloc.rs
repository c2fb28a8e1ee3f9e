//! What running one command allocates, once a connection is warmed up.
//!
//! The binary's global allocator is the test kit's `CountingAllocator`, which counts
//! only on the thread that asks. The frames are built before counting: what the parser
//! allocates for a request (its array and its bulk strings) is not counted here, only
//! what running the command and queuing its reply add: nothing, for `SET`, `GET`,
//! `INCR` and `PING` (the parser's bulk strings are moved into a list the client keeps
//! and from there into the store, and the reply is encoded into a buffer the outbox
//! keeps).

use std::io::Read;
use std::net::TcpStream;
use std::rc::Rc;

use capstone_redis::{Client, Config, Frame, Outbox, Server, execute};
use oneloop::run;
use oneloop_testkit::{CountingAllocator, watchdog_default};

mod common;
use common::pair;

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator::new();

/// Requests counted for each command.
const REQUESTS: usize = 200;

/// Runs `command` `REQUESTS` times, each as a batch of one (as the reader runs a read
/// that held one request), and returns the allocations made while they ran. The
/// replies are read off the socket between requests, outside the count.
fn allocations_of(
    server: &Server,
    client: &mut Client,
    peer: &mut TcpStream,
    command: &[&str],
) -> usize {
    let frames: Vec<Frame> = (0..=REQUESTS)
        .map(|_| Frame::command(command.iter().map(|part| part.as_bytes())))
        .collect();
    let mut frames = frames.into_iter();
    let mut reply = [0u8; 64];
    // One request first, uncounted: the outbox's buffers reach their size.
    let one = |client: &mut Client, frame: Frame| {
        client.outbox.begin_batch();
        execute(server, client, frame);
        client.outbox.end_batch();
    };
    one(client, frames.next().expect("a frame"));
    let _ = peer.read(&mut reply).expect("a reply");
    let mut total = 0;
    for frame in frames {
        let ((), allocations) = ALLOC.count(|| one(client, frame));
        total += allocations;
        let _ = peer.read(&mut reply).expect("a reply");
    }
    total
}

#[test]
fn set_get_incr_and_ping_allocate_nothing() {
    watchdog_default(|| {
        run(async {
            let (stream, mut peer) = pair().await;
            let server = Server::new(Config::default());
            let mut client = Client::new(1, Outbox::new(Rc::clone(&stream), 1024 * 1024));
            // SET of a key that exists: nothing. The key and the value are the
            // request's own buffers, moved in (the key is dropped, as the map keeps
            // the one it has); the argument list is the client's, kept; `+OK` is
            // queued as it is.
            let set = allocations_of(&server, &mut client, &mut peer, &["SET", "key", "value"]);
            assert_eq!(set, 0, "{set} allocations for {REQUESTS} SETs");
            // GET: nothing. The reply is encoded from the store's own value into a
            // buffer the outbox keeps; no copy of the value is made first.
            let get = allocations_of(&server, &mut client, &mut peer, &["GET", "key"]);
            assert_eq!(get, 0, "{get} allocations for {REQUESTS} GETs");
            // INCR of a key that exists: nothing. Its digits are rewritten in the
            // room the value already has, and the integer reply is encoded into the
            // outbox's buffer.
            let incr = allocations_of(&server, &mut client, &mut peer, &["INCR", "counter"]);
            assert_eq!(incr, 0, "{incr} allocations for {REQUESTS} INCRs");
            // PING: nothing; `+PONG` is queued as it is.
            let ping = allocations_of(&server, &mut client, &mut peer, &["PING"]);
            assert_eq!(ping, 0, "{ping} allocations for {REQUESTS} PINGs");
        })
        .expect("the loop runs");
    });
}
