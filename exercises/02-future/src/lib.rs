//! Stage 2 exercises: futures and wakers.
//!
//! This file is the frame of the exercise crate: do not edit it. It takes the finished
//! parts of stage 2 from the reference crate (`crates/02-future`) and leaves four files
//! for you to write, each explained in chapter 2 of the book:
//!
//! 1. `src/oneshot_poll.rs` — a waiter's `poll`, and its waker registration
//!    (section 2.2).
//! 2. `src/block_on.rs` — `block_on`'s thread-parking waker and its park loop
//!    (section 2.3).
//! 3. `src/raw_waker.rs` — a waker from a hand-written `RawWakerVTable` (section 2.4).
//! 4. `src/join_poll.rs` — polling two futures as one (section 2.6).
//!
//! Test your work with `cargo course test 2`, or `cargo test -p ex02-future` (add
//! `-- oneshot::` and so on for one group of tests). `cargo course hint 2` reveals
//! hints one at a time.
#![deny(unsafe_code)]

#[path = "../../../crates/02-future/src/done.rs"]
mod done;
#[path = "../../../crates/02-future/src/error.rs"]
mod error;
#[path = "../../../crates/02-future/src/join.rs"]
mod join;
#[cfg(not(all(feature = "challenge", not(feature = "challenge-reference"))))]
#[path = "../../../crates/02-future/src/oneshot.rs"]
mod oneshot;
// The challenge: your own file, compiled by `cargo course test N --challenge`.
#[cfg(all(feature = "challenge", not(feature = "challenge-reference")))]
#[cfg_attr(
    all(feature = "challenge", not(feature = "challenge-reference")),
    path = "../challenge/oneshot.rs"
)]
mod oneshot;
#[allow(unsafe_code)]
#[path = "../../../crates/02-future/src/pinning.rs"]
mod pinning;

#[cfg(not(feature = "solution"))]
mod oneshot_poll;
#[cfg(feature = "solution")]
#[path = "../../../crates/02-future/src/oneshot_poll.rs"]
mod oneshot_poll;

#[cfg(not(feature = "solution"))]
mod block_on;
#[cfg(feature = "solution")]
#[path = "../../../crates/02-future/src/block_on.rs"]
mod block_on;

#[cfg(not(feature = "solution"))]
#[allow(unsafe_code)]
mod raw_waker;
#[cfg(feature = "solution")]
#[allow(unsafe_code)]
#[path = "../../../crates/02-future/src/raw_waker.rs"]
mod raw_waker;

#[cfg(not(feature = "solution"))]
mod join_poll;
#[cfg(feature = "solution")]
#[path = "../../../crates/02-future/src/join_poll.rs"]
mod join_poll;

pub use block_on::block_on;
pub use error::{FutureError, Phase};
pub use join::{Join, join};
pub use oneshot::{OneShot, Wait};
pub use pinning::{CAPACITY, CountPolls, CountPollsLite, ReadBack, SelfRef};
pub use raw_waker::waker_fn;
