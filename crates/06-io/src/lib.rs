//! Stage 6 of oneloop: the selector, on epoll through mio.
//!
//! Until now the loop's driver had nothing to wait for but time: stage 4 parked the
//! thread, stage 5 parks it until the next timer. This stage puts the OS selector at
//! the bottom of the driver stack. [`IoDriver`] parks in `mio::Poll::poll(timeout)` —
//! `epoll_wait` on Linux, and from now on the only place the loop's thread sleeps — and
//! turns each ready event into handles on the ready queue, in the order the poller
//! reported them. Those are steps 3 and 4 of asyncio's `_run_once`:
//! `selector.select(timeout)` and `_process_events`. Wrapped by stage 5's timer driver,
//! the timeout comes from the timer heap, and I/O handles are queued before due
//! timers simply because the inner driver returns first. [`new_event_loop`] builds that
//! stack: an [`IoLoop`] is `EventLoop<TimerDriver<IoDriver>>`, the whole runtime so far.
//!
//! On top of the driver sit two ways to use it, as in asyncio:
//!
//! - **Callbacks**: [`Io::add_reader`], [`Io::remove_reader`], [`Io::add_writer`],
//!   [`Io::remove_writer`], on any fd (a raw fd, a std socket, a mio source).
//!   Persistent and level-triggered, like asyncio's.
//! - **Futures**: [`readable`] and [`writable`] are one-shot readiness futures, and
//!   [`TcpListener`] and [`TcpStream`] are built from them: try the syscall, await
//!   readiness on `WouldBlock`, try again. [`StreamReader`] (`read_line`, `read_exact`
//!   with a limit) and [`StreamWriter`] (`write` and `drain` with water marks) are
//!   asyncio's streams; [`channel`] is a small queue for tasks to talk.
//!
//! Where Rust differs from asyncio:
//!
//! - asyncio's `add_reader` is level-triggered because `selectors` uses epoll that way;
//!   mio registers edge-triggered. The driver gets level-triggered readers back by
//!   re-arming the fd (`reregister`) after each event, so data a callback leaves unread
//!   is reported again in the next turn.
//! - A readiness future parks the task's waker, not a callback: the event wakes the
//!   task, whose step is queued at once, in the poller's order.
//! - asyncio's transports read in a callback, once per readiness event; here a task
//!   reads. So [`TcpStream::read`] keeps asyncio's pace itself: one successful read per
//!   stream per turn, yielding to the loop before a second. A peer that always has data
//!   cannot hold the loop.
//! - Rust cancels by dropping. Each future here says what a drop half-way loses
//!   (nothing, for the reader's and writer's methods).
//!
//! The [`guide`] walks through the stage step by step, every step a doctest.
//!
//! ```
//! use oneloop_io::{TcpListener, TcpStream, new_event_loop};
//!
//! let mut event_loop = new_event_loop().expect("epoll is available");
//! let got = event_loop
//!     .run_until_complete(async {
//!         let listener = TcpListener::bind("127.0.0.1:0")?;
//!         let addr = listener.local_addr()?;
//!         let client = TcpStream::connect(addr).await?;
//!         let (server, _) = listener.accept().await?;
//!         client.write_all(b"ping").await?;
//!         let mut buf = [0; 4];
//!         let n = server.read(&mut buf).await?;
//!         std::io::Result::Ok(buf[..n].to_vec())
//!     })
//!     .expect("the main task finishes")
//!     .expect("loopback works");
//! assert_eq!(got, b"ping");
//! ```
#![forbid(unsafe_code)]

mod callbacks;
mod channel;
mod driver;
mod echo;
pub mod guide;
mod io;
mod io_loop;
mod process_events;
mod read_line;
mod readiness;
mod readiness_poll;
mod registration;
mod run;
mod serve;
mod source;
mod stream_reader;
mod stream_writer;
mod tcp;
mod waits;

pub use channel::{Receiver, Sender, channel};
pub use driver::IoDriver;
pub use echo::echo;
pub use io::{EpollCtls, IO_CLOSED, Io, NO_IO_DRIVER};
pub use io_loop::{IoLoop, new_event_loop};
pub use readiness::{Readiness, readable, writable};
pub use run::{run, run_debug, run_with};
pub use serve::{
    ACCEPT_OUT_OF_RESOURCES, ACCEPT_RETRY_DELAY, ACCEPTS_PER_TURN, ChatRoom, MEMBER_QUEUE_LIMIT,
    SLOW_MEMBER_DISCONNECTED, WELCOME, chat_member, echo_connection, serve, serve_chat, serve_room,
};
pub use stream_reader::{AsyncRead, DEFAULT_LIMIT, StreamError, StreamReader};
pub use stream_writer::{DEFAULT_HIGH_WATER, DEFAULT_LOW_WATER, StreamWriter, open_connection};
pub use tcp::{TcpListener, TcpStream};

pub(crate) use hooks::*;

/// What this stage lends to the layers above it: the direction and waiter ids of
/// a registration, and the size of the events buffer.
pub mod hooks {
    pub use crate::driver::EVENTS_CAPACITY;
    pub use crate::registration::{Direction, WaiterId};
}
