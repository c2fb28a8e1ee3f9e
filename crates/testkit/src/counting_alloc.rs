//! A counting global allocator: how many times did this code ask for memory?
//!
//! "A turn allocates nothing in steady state" is a claim a test can check only by
//! counting allocations, and a Rust program counts them by installing its own global
//! allocator. This one hands every request to [`System`] unchanged and adds one to a
//! counter of the calling thread. Counting per thread keeps the other tests of the same
//! binary, which run on their own threads, out of the count.
//!
//! A test binary has one global allocator, so the counter is a single thread-local:
//! every [`CountingAllocator`] value reads the same one. The counts mean something only
//! where a `CountingAllocator` is the binary's `#[global_allocator]`; elsewhere they
//! stay at zero.
//!
//! Implementing [`GlobalAlloc`] is `unsafe`: it is the one place in the test kit that
//! needs it, so the crate denies unsafe code everywhere but in this module.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    /// Allocations (`alloc`, `alloc_zeroed`, `realloc`) made by this thread so far.
    /// A `const` `Cell<usize>` needs no lazy set-up and no destructor, so reading it
    /// never allocates (which, inside an allocator, would recurse).
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

/// Counts one allocation on the calling thread.
fn count_one() {
    // While a thread is torn down its counter may already be gone; what it allocates
    // then is no test's business, so such calls go uncounted.
    let _ = ALLOCATIONS.try_with(|count| count.set(count.get() + 1));
}

/// A global allocator that counts, per thread, the allocations it hands to [`System`].
///
/// Install it in a test binary, then count what a piece of code allocates:
///
/// ```standalone_crate
/// use oneloop_testkit::CountingAllocator;
///
/// #[global_allocator]
/// static ALLOC: CountingAllocator = CountingAllocator::new();
///
/// fn main() {
///     let (boxed, allocations) = ALLOC.count(|| Box::new(7_u64));
///     assert_eq!(allocations, 1);
///     let (sum, none) = ALLOC.count(|| *boxed + 1);
///     assert_eq!((sum, none), (8, 0));
/// }
/// ```
///
/// `alloc`, `alloc_zeroed` and `realloc` count one each; `dealloc` counts nothing
/// (freeing is not what a "no allocation" claim is about).
#[derive(Debug, Default)]
pub struct CountingAllocator {
    // No state: the counter is thread-local, shared by every value of this type.
    _private: (),
}

impl CountingAllocator {
    /// The allocator, ready for a `static` marked `#[global_allocator]`.
    pub const fn new() -> Self {
        Self { _private: () }
    }

    /// Allocations made by the calling thread so far (zero unless this type is the
    /// binary's global allocator).
    pub fn allocations(&self) -> usize {
        ALLOCATIONS.with(Cell::get)
    }

    /// Runs `body` and returns its value with the number of allocations the calling
    /// thread made while it ran. Allocations of other threads are not counted, even
    /// those `body` waits for.
    pub fn count<T>(&self, body: impl FnOnce() -> T) -> (T, usize) {
        let before = self.allocations();
        let value = body();
        (value, self.allocations() - before)
    }
}

// SAFETY: every method delegates to `std::alloc::System` with the caller's pointer,
// layout and size unchanged, and returns what the system allocator returned, so the
// system allocator's guarantees are ours. Counting reads and writes only a thread-local
// `Cell<usize>`: it allocates nothing and touches no memory handed out.
unsafe impl GlobalAlloc for CountingAllocator {
    /// Counts one allocation, then allocates with [`System`].
    ///
    /// # Safety
    ///
    /// The contract of [`GlobalAlloc::alloc`]: `layout` has a non-zero size.
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: the caller upholds `alloc`'s contract; `layout` goes on unchanged.
        unsafe { System.alloc(layout) }
    }

    /// Counts one allocation, then allocates zeroed memory with [`System`].
    ///
    /// # Safety
    ///
    /// The contract of [`GlobalAlloc::alloc_zeroed`]: `layout` has a non-zero size.
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: the caller upholds `alloc_zeroed`'s contract; `layout` goes on
        // unchanged.
        unsafe { System.alloc_zeroed(layout) }
    }

    /// Counts one allocation, then resizes with [`System`].
    ///
    /// # Safety
    ///
    /// The contract of [`GlobalAlloc::realloc`]: `ptr` was allocated by this allocator
    /// with `layout`, and `new_size` is non-zero and does not overflow when rounded up
    /// to `layout`'s alignment.
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        // SAFETY: `ptr` came from this allocator, which got it from `System` with this
        // same `layout`; the caller upholds the rest, and all three go on unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    /// Frees with [`System`]; not counted.
    ///
    /// # Safety
    ///
    /// The contract of [`GlobalAlloc::dealloc`]: `ptr` was allocated by this allocator
    /// with `layout`.
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, which got it from `System` with this
        // same `layout`; both go on unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }
}
