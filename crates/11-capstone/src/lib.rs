//! The capstone: a Redis-compatible key-value server on one loop thread.
//!
//! Everything here runs on the runtime the course built, through the [`oneloop`]
//! facade's pieces: one loop thread, epoll underneath, timers on a heap, a task per
//! connection. It speaks RESP2, Redis's protocol, well enough for the real
//! `redis-cli` and `redis-benchmark`.
//!
//! The parts, one file each:
//!
//! - [`parse`]: the incremental frame parser, over whatever bytes have arrived;
//! - [`Frame`]: the five kinds of value, and how each is written;
//! - the store ([`Db`]): keys, values and deadlines behind `Rc<RefCell<…>>`, with
//!   expiry on the loop's timer heap;
//! - [`PubSub`]: channels, with a bound on what waits for each subscriber;
//! - [`Outbox`]: a client's output buffer and its writer task;
//! - the connection: read, parse every whole frame, run each, read again;
//! - [`Server`]: the accept loop (stage 6's `serve`, which backs off when the
//!   process runs out of file descriptors), the client limit, and the shutdown. The
//!   server is a task of stage 9 whose task group holds the connections; its stop is
//!   a stage 10 `Event`; at the shutdown deadline it cancels the connections left.
//!
//! Commands: `PING`, `ECHO`, `GET`, `SET` (with `EX`, `PX`, `NX`, `XX`), `DEL`,
//! `EXISTS`, `INCR`, `DECR`, `EXPIRE`, `PEXPIRE`, `TTL`, `PTTL`, `PUBLISH`,
//! `SUBSCRIBE`, `UNSUBSCRIBE`, `QUIT`, `COMMAND`. Pipelining of any depth, and inline
//! commands (a line of words, as telnet sends them) beside RESP's arrays.
//!
//! ```
//! use std::io::{Read, Write};
//! use capstone_redis::{Config, Server};
//! use oneloop::{TcpListener, run, spawn, to_thread};
//!
//! let reply = run(async {
//!     let listener = TcpListener::bind("127.0.0.1:0").unwrap();
//!     let addr = listener.local_addr().unwrap();
//!     let server = Server::new(Config::default());
//!     let _serving = spawn(Rc::clone(&server).run(listener));
//!     // A blocking client on a worker thread, speaking RESP by hand.
//!     let reply = to_thread(move || {
//!         let mut client = std::net::TcpStream::connect(addr).unwrap();
//!         client.write_all(b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n").unwrap();
//!         let mut reply = [0; 12];
//!         client.read_exact(&mut reply).unwrap();
//!         reply
//!     })
//!     .await
//!     .unwrap();
//!     server.stop();
//!     reply
//! })
//! .unwrap();
//! assert_eq!(&reply, b"+OK\r\n$1\r\nv\r\n");
//! # use std::rc::Rc;
//! ```
#![forbid(unsafe_code)]

mod bound;
mod commands;
mod connection;
mod expiry;
mod frame;
mod limits;
mod outbox;
mod parse;
mod pubsub;
mod server;
mod shutdown;
pub mod store;

pub use commands::{After, COMMANDS, Client, execute};
pub use connection::Ending;
pub use frame::Frame;
pub use limits::{DEFAULT_LIMITS, Limits, ParseError};
pub use outbox::{Closed, Outbox};
pub use parse::parse;
pub use pubsub::PubSub;
pub use server::{Config, MAX_CLIENTS_REACHED, Server, ShutdownReport, Stats};
pub use store::{Db, new_db};
