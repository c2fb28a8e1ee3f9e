//! Joining two futures: poll both, finish when both have finished.
//!
//! asyncio's `gather(a, b)` wraps each coroutine in a task (a future it takes as it is)
//! and waits for their done callbacks. [`join`] makes no task: it is one future that
//! owns both inner futures and polls them itself, inside its own `poll`, with its
//! caller's waker. Whichever side wakes, the whole `Join` is polled again; it then
//! polls only the side(s) not done yet.
//!
//! # Why the inner futures are pinned
//!
//! `Future::poll` takes `Pin<&mut Self>`: once polled, a future may hold pointers into
//! itself (an `async fn`'s locals borrowed across an `.await`), so it must not move
//! again. `Join` stores `a` and `b` inline, so when `Join` is pinned they are pinned too
//! — but turning `Pin<&mut Join>` into `Pin<&mut A>` needs a promise that `Join` never
//! moves `a` out, and never offers `&mut A` to safe code. `pin_project!` writes that
//! promise for us: its `project()` gives `Pin<&mut A>` for fields marked `#[pin]` and
//! plain `&mut` for the others (the finished outputs, which may move freely). It also
//! makes `Join` `Unpin` exactly when `A` and `B` are, with no unsafe code in this crate.

use std::fmt;
use std::future::Future;

use pin_project_lite::pin_project;

// ANCHOR: join_struct
pin_project! {
    /// The future returned by [`join`].
    #[must_use = "futures do nothing unless polled"]
    pub struct Join<A: Future, B: Future> {
        // Pinned: an inner future may point into itself once polled.
        #[pin]
        pub(crate) a: A,
        #[pin]
        pub(crate) b: B,
        // Not pinned: a finished output is an ordinary value.
        pub(crate) a_out: Option<A::Output>,
        pub(crate) b_out: Option<B::Output>,
        // Set when the outputs were handed out: a later poll is a caller's bug.
        pub(crate) finished: bool,
    }
}
// ANCHOR_END: join_struct

/// A future that runs `a` and `b` concurrently and resolves to both outputs.
///
/// Each side is polled until it is ready, then never again: its output waits in the
/// `Join` until the other side is ready too. Polling the `Join` again after it resolved
/// panics, as std's own futures do.
pub fn join<A: Future, B: Future>(a: A, b: B) -> Join<A, B> {
    Join {
        a,
        b,
        a_out: None,
        b_out: None,
        finished: false,
    }
}

impl<A: Future, B: Future> fmt::Debug for Join<A, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Join")
            .field("a_done", &self.a_out.is_some())
            .field("b_done", &self.b_out.is_some())
            .finish_non_exhaustive()
    }
}
