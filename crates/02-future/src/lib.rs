//! Stage 2 of oneloop: futures and wakers.
//!
//! Stage 1 built coroutines that a driver resumes and that yield back to it. The
//! driver, though, had to ask again and again, or know from the yielded value what the
//! coroutine was waiting for. Stage 2 adds the missing half: a way for the thing being
//! waited on to say "now".
//!
//! A Rust [`Future`] is a coroutine resumed by `poll`. It yields
//! `Poll::Pending` and finishes with `Poll::Ready(value)`. The new rule is the poll
//! contract: before it returns `Pending`, a future must hand the [`Waker`](std::task::Waker)
//! it finds in its [`Context`](std::task::Context) to whatever it waits on, and that
//! party calls `wake` when waiting is over. The driver then polls again; until then it
//! need not poll at all, so idle futures cost no CPU time.
//!
//! In asyncio the same handshake goes through the future itself: `Future.__await__`
//! yields the future up to the task, the task calls `add_done_callback(self.__wakeup)`,
//! and `set_result` schedules that callback through the loop. Rust puts a waker where
//! asyncio puts a done callback, and the waker says only "poll me again": the value is
//! picked up by the poll that follows, not passed to a callback.
//!
//! This crate holds:
//!
//! - [`OneShot`], the counterpart of `asyncio.Future`: settled once with a result, an
//!   error, or a cancellation; awaited by any number of [`Wait`]ers; thread-safe.
//! - [`block_on`], the smallest executor: poll on this thread, park until woken.
//! - [`waker_fn`], a waker built by hand from a `RawWakerVTable` — the first of the three
//!   modules of oneloop's runtime where `unsafe` is the lesson, with a safe function on
//!   top (stage 3's task cell is the third).
//! - [`SelfRef`], [`ReadBack`] and [`CountPolls`]: pinning by hand — a value that
//!   points into itself, why moving it breaks, and a projection with no macro (the
//!   second module where `unsafe` is the lesson).
//! - [`join`], one future that drives two, through a projection `pin-project-lite`
//!   writes.
//!
//! ```
//! use std::thread;
//! use oneloop_future::{block_on, join, OneShot};
//!
//! let price: OneShot<u32, String> = OneShot::new();
//! let stock: OneShot<u32, String> = OneShot::new();
//!
//! // Another thread produces both values; it does not know who is waiting.
//! let (p, s) = (price.clone(), stock.clone());
//! let producer = thread::spawn(move || {
//!     s.set_result(7).expect("set once");
//!     p.set_result(120).expect("set once");
//! });
//!
//! // This thread waits for both, asleep between polls.
//! let (price, stock) = block_on(join(price.wait(), stock.wait()));
//! assert_eq!((price, stock), (Ok(120), Ok(7)));
//! producer.join().unwrap();
//! ```
#![deny(unsafe_code)]

mod block_on;
mod done;
mod error;
mod join;
mod join_poll;
mod oneshot;
mod oneshot_poll;
#[allow(unsafe_code)]
mod pinning;
#[allow(unsafe_code)]
mod raw_waker;

pub use block_on::block_on;
pub use error::{FutureError, Phase};
pub use join::{Join, join};
pub use oneshot::{OneShot, Wait};
pub use pinning::{CAPACITY, CountPolls, CountPollsLite, ReadBack, SelfRef};
pub use raw_waker::waker_fn;
