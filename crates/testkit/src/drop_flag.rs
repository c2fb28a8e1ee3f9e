//! A value that records when it is dropped.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Put a [`DropFlag`] inside a future (or a coroutine) and ask later whether it was
/// dropped, and how many times: cleanup on cancellation becomes observable.
///
/// ```
/// use oneloop_testkit::DropFlag;
/// let flag = DropFlag::new();
/// let guard = flag.guard();
/// assert!(!flag.dropped());
/// drop(guard);
/// assert_eq!(flag.drops(), 1);
/// ```
#[derive(Debug, Clone, Default)]
pub struct DropFlag {
    drops: Arc<AtomicUsize>,
}

impl DropFlag {
    /// A flag with no drops recorded.
    pub fn new() -> Self {
        Self::default()
    }

    /// A guard that bumps this flag's count when dropped.
    pub fn guard(&self) -> DropGuard {
        DropGuard {
            drops: Arc::clone(&self.drops),
        }
    }

    /// Whether any guard of this flag was dropped.
    pub fn dropped(&self) -> bool {
        self.drops() > 0
    }

    /// How many guards of this flag were dropped.
    pub fn drops(&self) -> usize {
        self.drops.load(Ordering::SeqCst)
    }
}

/// Counts one drop into its [`DropFlag`] when dropped.
#[derive(Debug)]
pub struct DropGuard {
    drops: Arc<AtomicUsize>,
}

impl Drop for DropGuard {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::SeqCst);
    }
}
