//! A waker that counts what is done with it.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Wake, Waker};

/// Counts wakes, and how many live [`Waker`]s point at it.
///
/// Built on std's [`Wake`] trait: no unsafe code. The live count comes from the `Arc`'s
/// strong count, so a future that leaks a waker (or keeps a stale one) shows up as a
/// wrong [`live_wakers`](Self::live_wakers). The counter itself is deliberately not
/// `Clone`: its one handle is the only reference that is not a waker.
#[derive(Debug, Default)]
pub struct CountingWaker {
    inner: Arc<Counts>,
}

#[derive(Debug, Default)]
struct Counts {
    wakes: AtomicUsize,
}

impl Wake for Counts {
    fn wake(self: Arc<Self>) {
        self.wakes.fetch_add(1, Ordering::SeqCst);
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.wakes.fetch_add(1, Ordering::SeqCst);
    }
}

impl CountingWaker {
    /// A fresh counter with no wakes.
    pub fn new() -> Self {
        Self::default()
    }

    /// A [`Waker`] that counts into this counter.
    pub fn waker(&self) -> Waker {
        Waker::from(Arc::clone(&self.inner))
    }

    /// Runs `f` with a [`Context`] whose waker counts into this counter.
    pub fn with_context<R>(&self, f: impl FnOnce(&mut Context<'_>) -> R) -> R {
        let waker = self.waker();
        let mut cx = Context::from_waker(&waker);
        f(&mut cx)
    }

    /// How many times a waker of this counter was woken (by value or by reference).
    pub fn wakes(&self) -> usize {
        self.inner.wakes.load(Ordering::SeqCst)
    }

    /// How many [`Waker`]s made by this counter are alive right now.
    pub fn live_wakers(&self) -> usize {
        // Every Waker holds one strong reference; this handle holds the other one.
        Arc::strong_count(&self.inner) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_wakes_and_live_wakers() {
        let counter = CountingWaker::new();
        assert_eq!(counter.live_wakers(), 0);
        let a = counter.waker();
        let b = a.clone();
        assert_eq!(counter.live_wakers(), 2);
        a.wake();
        b.wake_by_ref();
        assert_eq!(counter.wakes(), 2);
        assert_eq!(counter.live_wakers(), 1);
        drop(b);
        assert_eq!(counter.live_wakers(), 0);
    }
}
