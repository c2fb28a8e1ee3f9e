//! What a socket's waits cost in `epoll_ctl`, and the edges that must not be lost.
//!
//! - **One registration per socket.** A socket's one-shot waits used to add the fd to
//!   epoll before each wait and delete it when the event came: two `epoll_ctl` per
//!   wait, four per echo round trip. Now a socket's fd stays registered from its first
//!   wait until the socket is dropped. The test counts the calls through the I/O
//!   table's counters over many round trips on one connection: one add per socket, no
//!   modify, no delete until the drop.
//! - **No lost edge.** epoll, as mio sets it up, is edge-triggered: it reports a change,
//!   once. A registration that stays armed is not asked again, so a wait that starts
//!   while data is already there would never be told, unless the table knows an edge
//!   is still to come. The tests build the two sequences where that goes wrong: a wait
//!   after an event whose data nobody read, and an event that arrives while nobody
//!   waits, between two waits. Both passed before the change, when every wait gave
//!   epoll the fd afresh; both hang on a table that keeps the fd armed and skips the
//!   re-arm without checking that an edge is still to come (checked by taking out the
//!   two rules of `settle_kept`).
//! - **A short read.** It took all the data, but an end of file may have come with it
//!   (`io_fairness.rs`). A short read is trusted, and the next wait spared its re-arm,
//!   when no event for the socket reported its read side closed.
//! - **A burst of connections.** `serve` accepts until the listener says `WouldBlock`.
//!   A burst bigger than asyncio's per-event cap (its `backlog`, 100) is now accepted
//!   over more than one turn, so the connections already served get their turn in
//!   between, and none is lost.

use std::cell::{Cell, RefCell};
use std::io::{Read, Write};
use std::net::TcpStream as StdStream;
use std::rc::Rc;
use std::time::Duration;

use oneloop_core::hooks::with_current;
use oneloop_core::{Observer, ParkReport, spawn, yield_now};
use oneloop_io::{ACCEPTS_PER_TURN, Io, TcpListener, TcpStream, new_event_loop, readable, serve};
use oneloop_testkit::watchdog_default;
use oneloop_timers::sleep;

/// Round trips on one connection.
const TRIPS: usize = 200;

/// Adds up the I/O events the parks reported.
#[derive(Default)]
struct IoEvents(Cell<usize>);

impl Observer for IoEvents {
    fn turn_ended(&self, _turn: u64, park: &ParkReport, _handles: usize) {
        self.0.set(self.0.get() + park.io_events);
    }
}

/// A connected pair made inside the loop: (client, server side).
async fn connected() -> std::io::Result<(TcpStream, TcpStream)> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let client = TcpStream::connect(listener.local_addr()?).await?;
    let (server, _) = listener.accept().await?;
    Ok((client, server))
}

/// Echoes [`TRIPS`] round trips of 64 bytes on one connection, the server reading into
/// a buffer of `server_buf` bytes, and checks the `epoll_ctl` calls: one add per socket
/// over the trips, no modify, and one delete per socket at their drop.
fn round_trips_make_one_add_per_socket(server_buf: usize) {
    watchdog_default(move || {
        let mut event_loop = new_event_loop().unwrap();
        let events = Rc::new(IoEvents::default());
        event_loop.add_observer(events.clone());
        let io = Io::of(&event_loop).unwrap();
        let (during, after_drop) = event_loop
            .run_until_complete(async move {
                let io = Io::current()?;
                let (client, server) = connected().await?;
                let server = Rc::new(server);
                let before = io.epoll_ctls();
                let echo = spawn({
                    let server = Rc::clone(&server);
                    async move {
                        let mut buf = vec![0; server_buf];
                        for _ in 0..TRIPS {
                            let n = server.read(&mut buf).await?;
                            server.write_all(&buf[..n]).await?;
                        }
                        std::io::Result::Ok(())
                    }
                });
                super::echo_round_trips(&client, TRIPS).await?;
                echo.await.expect("the echo task finishes")?;
                let during = io.epoll_ctls();
                drop(client);
                drop(server);
                let after_drop = io.epoll_ctls();
                let delta = |a: oneloop_io::EpollCtls, b: oneloop_io::EpollCtls| {
                    (b.add - a.add, b.modify - a.modify, b.delete - a.delete)
                };
                std::io::Result::Ok((delta(before, during), delta(during, after_drop)))
            })
            .expect("the main task finishes")
            .expect("loopback works");
        // Each side waited for every message: the parks saw an event per wait.
        assert!(
            events.0.get() >= 2 * TRIPS,
            "both sides waited on every trip: {} events",
            events.0.get()
        );
        assert_eq!(
            during,
            (2, 0, 0),
            "(add, modify, delete) over {TRIPS} round trips: one add per socket"
        );
        assert_eq!(after_drop, (0, 0, 2), "each socket's drop deletes its fd");
        assert_eq!(io.registrations(), 0);
    });
}

#[test]
fn round_trips_on_one_connection_add_each_socket_to_epoll_once_and_delete_it_at_drop() {
    round_trips_make_one_add_per_socket(64);
}

#[test]
fn a_short_read_with_no_closed_event_spares_the_next_wait_its_epoll_ctl() {
    // Every read is short (64 bytes into 4 KiB), and the server reads again in the same
    // turn: that wait needs no re-arm, since no event said the read side closed (with
    // every short read untrusted, it made one `epoll_ctl` per trip).
    round_trips_make_one_add_per_socket(4096);
}

#[test]
fn a_wait_after_an_event_whose_data_was_not_read_is_told_at_once() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let got = event_loop
            .run_until_complete(async {
                let (client, server) = connected().await?;
                let reader = spawn(async move {
                    // Reads one byte of two, through a wait: the registration stays.
                    let mut one = [0; 1];
                    server.read(&mut one).await?;
                    // A byte is still there, and no new edge will come for it.
                    readable(&server).await?;
                    server.read(&mut one).await?;
                    std::io::Result::Ok(one[0])
                });
                yield_now().await;
                client.write_all(b"ab").await?;
                reader.await.expect("the reader finishes")
            })
            .expect("the main task finishes")
            .expect("loopback works");
        assert_eq!(got, b'b');
    });
}

#[test]
fn an_edge_that_arrives_while_nobody_waits_is_not_lost_by_the_next_wait() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let log: Rc<RefCell<Vec<&str>>> = Rc::default();
        let seen = Rc::clone(&log);
        let got = event_loop
            .run_until_complete(async move {
                let (client, server) = connected().await?;
                let client = Rc::new(client);
                let writer = Rc::clone(&client);
                let reader = spawn(async move {
                    let mut buf = [0; 16];
                    // A wait, then a short read: the socket is drained, and stays
                    // registered with epoll.
                    let n = server.read(&mut buf).await?;
                    assert_eq!(&buf[..n], b"first");
                    seen.borrow_mut().push("drained");
                    // Nobody waits on the socket while the task sleeps; the second
                    // message arrives now, and a park reports its edge to no one.
                    sleep(Duration::from_millis(20)).await;
                    seen.borrow_mut().push("woke");
                    // The data is there; no new edge will come for it.
                    readable(&server).await?;
                    let n = server.read(&mut buf).await?;
                    std::io::Result::Ok(buf[..n].to_vec())
                });
                yield_now().await;
                writer.write_all(b"first").await?;
                while log.borrow().is_empty() {
                    yield_now().await;
                }
                client.write_all(b"second").await?;
                let got = reader.await.expect("the reader finishes")?;
                assert_eq!(*log.borrow(), ["drained", "woke"]);
                std::io::Result::Ok(got)
            })
            .expect("the main task finishes")
            .expect("loopback works");
        assert_eq!(got, b"second");
    });
}

#[test]
fn a_burst_bigger_than_the_accept_cap_is_accepted_over_two_turns_and_none_is_lost() {
    watchdog_default(|| {
        // Past the cap, within the listen backlog std and mio ask for (128).
        let burst = ACCEPTS_PER_TURN + 20;
        let mut event_loop = new_event_loop().unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        // Every client connects before the loop runs: the kernel's backlog holds them
        // all, and the listener's first readiness event covers the whole burst.
        let mut clients: Vec<StdStream> = (0..burst)
            .map(|_| StdStream::connect(addr).expect("connect"))
            .collect();
        let accepted_in: Rc<RefCell<Vec<u64>>> = Rc::default();
        let record = Rc::clone(&accepted_in);
        let served = Rc::new(Cell::new(0));
        let count = Rc::clone(&served);
        drop(event_loop.spawn(async move {
            let _ = serve(listener, move |stream, _| {
                let turn = with_current(|core| core.turn()).expect("serve runs in a loop");
                record.borrow_mut().push(turn);
                let count = Rc::clone(&count);
                async move {
                    let mut byte = [0; 1];
                    if stream.read(&mut byte).await.is_ok() && stream.write_all(&byte).await.is_ok()
                    {
                        count.set(count.get() + 1);
                    }
                }
            })
            .await;
        }));
        for client in &mut clients {
            client.write_all(b"x").unwrap();
        }
        while served.get() < burst {
            event_loop.run_once().unwrap();
        }
        for client in &mut clients {
            let mut byte = [0; 1];
            client.read_exact(&mut byte).unwrap();
            assert_eq!(&byte, b"x");
        }
        let turns = accepted_in.borrow().clone();
        assert_eq!(turns.len(), burst, "every connection was accepted once");
        let first = turns[0];
        let in_first = turns.iter().filter(|&&turn| turn == first).count();
        assert_eq!(in_first, ACCEPTS_PER_TURN, "the first turn took the cap");
        assert!(
            turns.iter().any(|&turn| turn > first),
            "the rest came in a later turn: {turns:?}"
        );
    });
}
