//! The reliability suite: one regression test per failure found by attacking the
//! runtime as a demanding user would — lost wakeups, starvation, fd exhaustion, panics
//! in every place user code runs, loops dropped in every state, misuse, and servers
//! hammered by real clients on 127.0.0.1. Each test failed before its fix.
//!
//! The tests are grouped by the layer they attack; each module says which failure each
//! test keeps fixed. Server attacks run the servers of the examples (the same functions:
//! `serve` with `echo_connection`, `serve_room`) in a child process: this test binary
//! starts itself again, running only a server test that an environment variable turns
//! on (through `sh -c 'ulimit -n N && exec …'` when the attack needs a lower fd limit).
//! The child binds 127.0.0.1:0 and prints its address; a guard kills it when the test
//! ends, passed or failed, and the child also exits when its stdin closes. Every attack
//! is bounded in connections, in bytes and, by a watchdog, in time.

#[path = "reliability/io_fairness.rs"]
mod io_fairness;
#[path = "reliability/io_ownership.rs"]
mod io_ownership;
#[path = "reliability/io_registration.rs"]
mod io_registration;
#[path = "reliability/io_wait_cost.rs"]
mod io_wait_cost;
#[path = "reliability/node_interval.rs"]
mod node_interval;
#[path = "reliability/offload.rs"]
mod offload;
#[path = "reliability/queued_callbacks.rs"]
mod queued_callbacks;
#[path = "reliability/shutdown.rs"]
mod shutdown;
#[path = "reliability/timer_model.rs"]
mod timer_model;
#[path = "reliability/wakeups.rs"]
mod wakeups;

/// A connected loopback pair: a blocking std client and the accepted side as a oneloop
/// stream.
fn loopback_pair() -> (std::net::TcpStream, oneloop_io::TcpStream) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let client =
        std::net::TcpStream::connect(listener.local_addr().expect("an address")).expect("connect");
    let (server, _) = listener.accept().expect("accept");
    (
        client,
        oneloop_io::TcpStream::from_std(server).expect("non-blocking"),
    )
}

/// The client half of an echo of `trips` round trips: each sends 64 bytes, all the
/// trip's number, and reads them back whole from the server that echoes them.
async fn echo_round_trips(client: &oneloop_io::TcpStream, trips: usize) -> std::io::Result<()> {
    let mut buf = [0; 64];
    for trip in 0..trips {
        let message = [trip as u8; 64];
        client.write_all(&message).await?;
        let mut got = 0;
        while got < message.len() {
            got += client.read(&mut buf[got..]).await?;
        }
        assert_eq!(buf, message);
    }
    Ok(())
}
