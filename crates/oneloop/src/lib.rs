//! oneloop: what you built, in one place.
//!
//! Each stage of the course added one layer to one loop. This crate adds nothing of its
//! own: it names the pieces a program uses, so that `use oneloop::*` is all a server
//! needs. Here is where each name comes from, and what it does.
//!
//! - **The loop** (stage 4): a ready queue of handles, run in turns. [`run`] builds a
//!   loop, runs a future to completion on it and closes it, as `asyncio.run` does;
//!   [`spawn`] starts a task on the running loop; [`yield_now`] gives the loop a turn;
//!   [`gather`] awaits several futures at once. [`run_with`] prepares the fresh loop
//!   before its first turn (an observer added there sees turn 1), and [`run_debug`] is
//!   `asyncio.run(main, debug=True)`.
//! - **Time** (stage 5): a heap of timers, whose earliest deadline bounds how long the
//!   loop may sleep. [`sleep`] waits on it, [`timeout`] drops a future whose time is up,
//!   [`call_later`] runs a callback after a delay and gives back a [`TimerHandle`]
//!   that cancels it, [`time`] reads the loop's clock, and [`Timers`] is the heap
//!   itself, found from inside the loop (the capstone's expiry files its timers there).
//!   [`TimerMethods`] gives the loop itself asyncio's `call_later`, `call_at`, `time`
//!   and `set_debug`.
//! - **Sockets** (stage 6): epoll, through mio, at the bottom of the driver stack.
//!   [`TcpListener`] and [`TcpStream`] try each syscall and await readiness on
//!   `WouldBlock`; [`StreamReader`] and [`StreamWriter`] are asyncio's streams, with a
//!   read limit and write water marks; [`serve`] accepts for ever and backs off when
//!   the process runs out of file descriptors.
//! - **Threads** (stage 7): [`to_thread`] runs a blocking call on a pool and resolves
//!   on the loop; a [`LoopHandle`] lets any thread hand work back
//!   (`call_soon_threadsafe`).
//! - **Shared state** (stage 10): [`Lock`], [`Event`], [`Condition`], [`Semaphore`],
//!   [`BoundedSemaphore`], [`Barrier`] and [`Queue`] are asyncio's primitives, each a
//!   queue of wakers woken first in, first out through the ready queue. [`TaskLocal`]
//!   is a context variable: a task started with [`spawn_with_locals`] runs in a copy
//!   of its spawner's values, taken at the spawn.
//! - **Cancellation** (stage 9): [`cancel`] is asyncio's way of stopping work, for
//!   tasks started with `cancel::spawn`. `Task::cancel` is a request, delivered at the
//!   task's next cancellation point as `Err(cancel::Error::Cancelled(msg))`;
//!   `cancel::timeout` is `asyncio.timeout`, which cancels its own task at the deadline
//!   and tells that cancel from an outer one; `cancel::task_group` is 3.11's
//!   `TaskGroup`; `cancel::run` is `asyncio.run`, main a task that can be cancelled.
//!   Its names stay in their module: `spawn`, `sleep`, `timeout` and `run` there return
//!   a `Result` that can say "cancelled", where the top-level ones do not. The
//!   top-level [`timeout`] drops the future whose time is up (Rust's way), which is
//!   what a server's idle timeout wants.
//! - **Signals** (the signal layer): [`add_signal_handler`] runs a callback on the loop
//!   when the process receives `SIGINT`, `SIGTERM` and the like. The OS handler only
//!   writes a byte that wakes the selector; the callback runs as an ordinary handle.
//!
//! [`run`] here is stage 7's: its loop is offload over timers over epoll, so every name
//! above works inside it.
//!
//! ```
//! use std::time::Duration;
//! use oneloop::{
//!     SIGUSR1, TcpListener, TcpStream, add_signal_handler, remove_signal_handler, run,
//!     sleep, spawn, timeout, to_thread,
//! };
//!
//! let answer = run(async {
//!     // A server task on an ephemeral port: it reads one message and answers it.
//!     let listener = TcpListener::bind("127.0.0.1:0")?;
//!     let addr = listener.local_addr()?;
//!     let server = spawn(async move {
//!         let (stream, _) = listener.accept().await?;
//!         let mut buf = [0; 16];
//!         let n = stream.read(&mut buf).await?;
//!         // A blocking computation leaves the loop's thread.
//!         let len = to_thread(move || n).await.expect("no panic");
//!         stream.write_all(format!("{len} bytes").as_bytes()).await
//!     });
//!     // A handler, in place for as long as the program wants it.
//!     add_signal_handler(SIGUSR1, || {}).expect("SIGUSR1 can be handled");
//!     let client = TcpStream::connect(addr).await?;
//!     client.write_all(b"hello").await?;
//!     let mut buf = [0; 16];
//!     let n = timeout(Duration::from_secs(5), client.read(&mut buf))
//!         .await
//!         .expect("the answer comes in time")?;
//!     server.await.expect("the server task finishes")?;
//!     sleep(Duration::from_millis(1)).await;
//!     remove_signal_handler(SIGUSR1).expect("SIGUSR1 was handled");
//!     std::io::Result::Ok(String::from_utf8_lossy(&buf[..n]).into_owned())
//! })
//! .expect("main finishes")
//! .expect("loopback works");
//! assert_eq!(answer, "5 bytes");
//! ```
#![forbid(unsafe_code)]

pub use oneloop_core::hooks::with_current;

/// Stage 9: tasks that take asyncio's cancel requests, timeouts and task groups on top
/// of them. A group's children are cancelled when one fails:
///
/// ```
/// use std::time::Duration;
/// use oneloop::cancel::{self, Error};
///
/// let outcome = cancel::run(async {
///     cancel::task_group(|group| async move {
///         group.spawn("sleeper", async {
///             cancel::sleep(Duration::from_secs(3600)).await?;
///             Ok(())
///         })?;
///         group.spawn("failer", async { Err::<(), _>(Error::Failed("no".into())) })?;
///         Ok(())
///     })
///     .await
/// })
/// .expect("the loop runs");
/// // The sleeper was cancelled; the group reports the failure, as an ExceptionGroup.
/// assert_eq!(outcome, Err(Error::Group(vec![Error::Failed("no".into())])));
/// ```
pub use oneloop_cancel as cancel;

mod send_facts;

pub use oneloop_core::{
    Core, ExceptionReport, JoinError, JoinHandle, Label, LoopError, gather, spawn, yield_now,
};
pub use oneloop_io::{
    ACCEPT_RETRY_DELAY, Io, Receiver, Sender, StreamError, StreamReader, StreamWriter, TcpListener,
    TcpStream, channel, open_connection, readable, serve, writable,
};
pub use oneloop_offload::{
    LoopHandle, OffloadLoop, ThreadPool, new_event_loop, run, run_debug, run_with, to_thread,
};
pub use oneloop_shared::{
    Barrier, BoundedSemaphore, Condition, Event, Lock, Queue, QueueError, Semaphore, TaskLocal,
    spawn as spawn_with_locals,
};
pub use oneloop_signals::{
    SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SignalError, SignalHandlers,
    add_signal_handler, remove_signal_handler, signal_name,
};
pub use oneloop_timers::prelude::TimerMethods;
pub use oneloop_timers::{
    TimedOut, Timeout, TimerHandle, Timers, call_later, sleep, time, timeout,
};
