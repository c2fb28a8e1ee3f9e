//! A counting global allocator: how many times did this code ask for memory, and for
//! how many bytes?
//!
//! "A turn allocates nothing in steady state" is a claim a test can check only by
//! counting allocations, and a Rust program counts them by installing its own global
//! allocator. This one hands every request to [`System`] unchanged and adds to two
//! counters of the calling thread: one allocation, and the bytes it asked for. Counting
//! per thread keeps the other tests of the same binary, which run on their own
//! threads, out of the count.
//!
//! A count of allocations cannot see their size: one `Vec::with_capacity(n)` is one
//! allocation whatever `n` is. "A parser reserves no more than the bytes it was given"
//! is a claim about bytes, so the bytes are counted too.
//!
//! A test binary has one global allocator, so the counters are thread-locals: every
//! [`CountingAllocator`] value reads the same ones. The counts mean something only
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
    /// Bytes those allocations asked for: the size of each block handed out (for a
    /// `realloc`, the whole new block).
    static BYTES: Cell<usize> = const { Cell::new(0) };
}

/// Counts one allocation of `size` bytes on the calling thread.
fn count_one(size: usize) {
    // While a thread is torn down its counters may already be gone; what it allocates
    // then is no test's business, so such calls go uncounted.
    let _ = ALLOCATIONS.try_with(|count| count.set(count.get() + 1));
    let _ = BYTES.try_with(|bytes| bytes.set(bytes.get().saturating_add(size)));
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
///     let (buffer, bytes) = ALLOC.count_bytes(|| Vec::<u8>::with_capacity(1000));
///     assert_eq!((buffer.capacity(), bytes), (1000, 1000));
/// }
/// ```
///
/// `alloc`, `alloc_zeroed` and `realloc` count one allocation each, and the bytes of
/// the block they hand out (a `realloc` counts its whole new size, not the growth);
/// `dealloc` counts nothing (freeing is not what a "no allocation" claim is about). So
/// the bytes are those asked for while the code ran, not those still held after it.
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

    /// Bytes the calling thread's allocations asked for so far (zero unless this type
    /// is the binary's global allocator).
    pub fn bytes(&self) -> usize {
        BYTES.with(Cell::get)
    }

    /// Runs `body` and returns its value with the bytes the calling thread's
    /// allocations asked for while it ran (each block's size, freed or not).
    pub fn count_bytes<T>(&self, body: impl FnOnce() -> T) -> (T, usize) {
        let before = self.bytes();
        let value = body();
        (value, self.bytes() - before)
    }
}

// SAFETY: every method delegates to `std::alloc::System` with the caller's pointer,
// layout and size unchanged, and returns what the system allocator returned, so the
// system allocator's guarantees are ours. Counting reads and writes only a thread-local
// `Cell<usize>`: it allocates nothing and touches no memory handed out.
unsafe impl GlobalAlloc for CountingAllocator {
    /// Counts one allocation of `layout.size()` bytes, then allocates with [`System`].
    ///
    /// # Safety
    ///
    /// The contract of [`GlobalAlloc::alloc`]: `layout` has a non-zero size.
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one(layout.size());
        // SAFETY: the caller upholds `alloc`'s contract; `layout` goes on unchanged.
        unsafe { System.alloc(layout) }
    }

    /// Counts one allocation of `layout.size()` bytes, then allocates zeroed memory
    /// with [`System`].
    ///
    /// # Safety
    ///
    /// The contract of [`GlobalAlloc::alloc_zeroed`]: `layout` has a non-zero size.
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count_one(layout.size());
        // SAFETY: the caller upholds `alloc_zeroed`'s contract; `layout` goes on
        // unchanged.
        unsafe { System.alloc_zeroed(layout) }
    }

    /// Counts one allocation of `new_size` bytes, then resizes with [`System`].
    ///
    /// # Safety
    ///
    /// The contract of [`GlobalAlloc::realloc`]: `ptr` was allocated by this allocator
    /// with `layout`, and `new_size` is non-zero and does not overflow when rounded up
    /// to `layout`'s alignment.
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one(new_size);
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

#[cfg(test)]
mod tests {
    use super::CountingAllocator;

    // The unit tests' binary counts with it too.
    #[global_allocator]
    static ALLOC: CountingAllocator = CountingAllocator::new();

    #[test]
    fn it_counts_the_bytes_each_allocation_asks_for_and_frees_count_nothing() {
        let ((), bytes) = ALLOC.count_bytes(|| {
            let boxed = std::hint::black_box(Box::new([0_u8; 24]));
            drop(boxed);
        });
        assert_eq!(bytes, 24);
        // A reserve is one allocation of its whole size.
        let ((mut buffer, bytes), allocations) =
            ALLOC.count(|| ALLOC.count_bytes(|| Vec::<u64>::with_capacity(100)));
        assert_eq!((allocations, bytes), (1, 800));
        // Growing counts the new block's whole size; freeing counts nothing.
        let (_, grown) = ALLOC.count_bytes(|| buffer.reserve_exact(200));
        assert_eq!(grown, 8 * 200);
        let (_, freed) = ALLOC.count_bytes(|| drop(buffer));
        assert_eq!(freed, 0);
    }
}
