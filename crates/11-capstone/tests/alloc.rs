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

/// Arguments in the one long request of the next test.
const KEYS: usize = 20_000;

#[test]
fn a_long_request_arriving_in_many_reads_is_parsed_once() {
    watchdog_default(|| {
        // `DEL` of 20,000 keys, about 140 KB: the server takes it in a dozen reads or
        // more (its reads are at most 16 KiB). Each argument is one allocation once
        // parsed. Parsing the unfinished array again after every read would copy the
        // arguments that had arrived each time: some ten times as many.
        let mut request = format!("*{}\r\n$3\r\nDEL\r\n", KEYS + 1).into_bytes();
        for _ in 0..KEYS {
            request.extend_from_slice(b"$1\r\nx\r\n");
        }
        let (reply, allocations) = ALLOC.count(|| {
            run(async move {
                let listener = oneloop::TcpListener::bind("127.0.0.1:0").expect("bind");
                let addr = listener.local_addr().expect("an address");
                let server = Server::new(Config::default());
                let serving = oneloop::spawn(Rc::clone(&server).run(listener));
                let reply = oneloop::to_thread(move || {
                    let mut client = TcpStream::connect(addr).expect("connect");
                    client
                        .set_read_timeout(Some(std::time::Duration::from_secs(8)))
                        .expect("a hang detector");
                    // Written in pieces, so that it arrives over many reads.
                    for piece in request.chunks(1024) {
                        std::io::Write::write_all(&mut client, piece).expect("write");
                    }
                    let mut reply = [0u8; 4];
                    client.read_exact(&mut reply).expect("the reply");
                    reply
                })
                .await
                .expect("the client's thread");
                server.stop();
                serving
                    .await
                    .expect("the server's task")
                    .expect("it served");
                reply
            })
            .expect("the loop runs")
        });
        assert_eq!(&reply, b":0\r\n");
        assert!(
            allocations < 2 * KEYS,
            "{allocations} allocations for a request of {KEYS} arguments"
        );
    });
}
