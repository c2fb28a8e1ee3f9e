//! oneloop's signal layer: `add_signal_handler`, as asyncio has it.
//!
//! A Unix signal interrupts whatever the thread was doing, at any instruction. Almost
//! nothing is safe to do there: no allocation, no lock, no `RefCell`. So the handler the
//! OS runs does one thing: it writes a byte to a socket pair. The read end of that pair
//! is an ordinary reader on the loop's selector (stage 6). When it becomes readable the
//! loop wakes, the reader drains the bytes and queues the user's callback as a labelled
//! handle (`signal handler SIGTERM`). The callback then runs in a coming turn, between
//! other handles, like any `call_soon` callback: it may borrow the server's state, spawn
//! tasks or stop the loop.
//!
//! asyncio does the same with its self-pipe: `signal.set_wakeup_fd` makes the C-level
//! handler write the signal's number to the loop's socket pair, and the loop's reader
//! of that pair queues the handles. Read it with
//! `python3 -c 'import inspect, asyncio.unix_events as u; print(inspect.getsource(u._UnixSelectorEventLoop.add_signal_handler))'`.
//!
//! The registration itself comes from the `signal-hook` crate (`low_level::pipe`):
//! installing an OS handler and running several actions from it needs `unsafe` code
//! and care about what is async-signal-safe, and writing that is not this layer's
//! lesson. `signal-hook-mio` was not used: it hands out a `mio::event::Source`, which
//! only the epoll driver's own registry could take, while a socket pair's read end is
//! a plain fd that [`Io::add_reader_named`](oneloop_io::Io::add_reader_named) takes
//! as it is. So the layer needs no new hook in any earlier stage.
//!
//! Rules, as in asyncio:
//!
//! - One callback per signal per loop; adding another replaces it.
//! - Several deliveries before the loop reads the pipe run the callback once per byte
//!   read; the kernel itself merges deliveries of one signal that arrive while it is
//!   pending.
//! - `SIGKILL` and `SIGSTOP` never reach a handler; `SIGSEGV`, `SIGILL` and `SIGFPE`
//!   mean the thread cannot go on. Asking for any of them is an error
//!   ([`SignalError::Forbidden`]).
//! - Removing the last handler of a signal restores its default action (asyncio sets
//!   `SIG_DFL` back). A signal the process had ignored at start gets its default action
//!   too, not "ignored".
//! - Closing the loop removes its handlers.
//!
//! ```
//! use oneloop_io::new_event_loop;
//! use oneloop_signals::{SIGUSR1, add_signal_handler};
//!
//! let mut event_loop = new_event_loop().expect("epoll is available");
//! let got = event_loop
//!     .run_until_complete(async {
//!         let (sender, mut receiver) = oneloop_io::channel();
//!         add_signal_handler(SIGUSR1, move || {
//!             let _ = sender.send("SIGUSR1 handled on the loop");
//!         })
//!         .expect("SIGUSR1 can be handled");
//!         // The process signals itself; the loop's reader picks the byte up.
//!         signal_hook::low_level::raise(SIGUSR1).expect("raise works");
//!         receiver.recv().await
//!     })
//!     .expect("main finishes");
//! assert_eq!(got, Some("SIGUSR1 handled on the loop"));
//! ```
#![forbid(unsafe_code)]

mod default;
mod error;
mod handlers;

pub use error::SignalError;
pub use handlers::{SignalHandlers, add_signal_handler, remove_signal_handler, signal_name};
pub use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2};
