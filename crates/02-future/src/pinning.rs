//! Pinning by hand: a value that points into itself, and a projection with no macro.
//!
//! This is the second module of oneloop where `unsafe` is the lesson (the first is the
//! hand-made waker). Everywhere else `pin-project-lite` writes the projections, and no
//! future of ours points into itself by hand.
//!
//! - [`SelfRef`] holds a buffer and a raw pointer into it, with nothing to stop it from
//!   moving. Moving it leaves the pointer at the old place. It uses no `unsafe` at all,
//!   because it never reads through the pointer: it only shows where it points.
//! - [`ReadBack`] is the same idea as a future. Its first poll takes a pointer into its
//!   own buffer; its second poll reads through it. It is `!Unpin`, so once it is pinned
//!   safe code can no longer move it, and that read is sound.
//! - [`CountPolls`] wraps a future and counts its polls. Getting from
//!   `Pin<&mut CountPolls<F>>` to `Pin<&mut F>` is a *projection*, written here by hand
//!   with `Pin::map_unchecked_mut`. [`CountPollsLite`] is the same future with the
//!   projection written by `pin-project-lite`.
//!
//! # The promise a projection makes
//!
//! A field is *structurally pinned* when a pinned struct means a pinned field. For
//! `CountPolls`, `inner` is, and `polls` is not. Projecting `inner` is sound only if
//! the struct keeps five rules for as long as it is pinned:
//!
//! 1. no method moves `inner` out of a pinned `CountPolls`, or hands out `&mut F` from
//!    one (which would let safe code move it);
//! 2. no `Drop` impl moves it (a `Drop` gets `&mut self` even for a pinned value);
//! 3. `CountPolls<F>` is `Unpin` only when `F` is (the auto trait already says so);
//! 4. the struct is not `#[repr(packed)]` (a packed field may be moved to be read);
//! 5. once pinned, its memory is not reused or freed before `inner`'s destructor has
//!    run (std's Drop guarantee; nothing here frees it any other way).
//!
//! The compiler checks none of them: that is why the projection is `unsafe`, and why a
//! macro that writes it for you, and keeps the rules, is worth a dependency.

use std::future::Future;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::ptr;
use std::task::{Context, Poll};

use pin_project_lite::pin_project;

/// How many bytes [`SelfRef`] and [`ReadBack`] keep inline.
pub const CAPACITY: usize = 32;

/// The first [`CAPACITY`] bytes of `text` in a fixed buffer, and how many there are.
fn inline(text: &str) -> ([u8; CAPACITY], usize) {
    let mut buf = [0; CAPACITY];
    let len = text.len().min(CAPACITY);
    buf[..len].copy_from_slice(&text.as_bytes()[..len]);
    (buf, len)
}

// ANCHOR: self_ref
/// A buffer and a pointer into it, with nothing to stop it from moving.
///
/// This is what an `async` block that borrows its own local across an `.await`
/// compiles to, minus the protection: the buffer is the local, the pointer is the
/// borrow. `SelfRef` is `Unpin` (all its fields are), so `Pin` would not stop a move.
#[derive(Debug)]
pub struct SelfRef {
    buf: [u8; CAPACITY],
    len: usize,
    // Where `point_at_buffer` found the buffer. A raw pointer: the compiler does not
    // know what it points at, so it lets the struct move.
    at: *const u8,
}

impl SelfRef {
    /// A buffer holding the first [`CAPACITY`] bytes of `text`, and no pointer yet.
    pub fn new(text: &str) -> Self {
        let (buf, len) = inline(text);
        Self {
            buf,
            len,
            at: ptr::null(),
        }
    }

    /// Takes a pointer to the buffer, as an `async` block's first poll takes a borrow.
    pub fn point_at_buffer(&mut self) {
        self.at = self.buf.as_ptr();
    }

    /// Where the buffer is now.
    pub fn buffer_address(&self) -> usize {
        self.buf.as_ptr().addr()
    }

    /// Where the stored pointer points.
    pub fn pointer_address(&self) -> usize {
        self.at.addr()
    }

    /// Whether the stored pointer still points at this value's own buffer.
    pub fn points_into_itself(&self) -> bool {
        ptr::eq(self.at, self.buf.as_ptr())
    }

    /// How many bytes the buffer holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}
// ANCHOR_END: self_ref

// ANCHOR: read_back
/// A self-referential future: its first poll points into its own buffer, its second
/// reads through that pointer and resolves to the text.
///
/// `PhantomPinned` makes it `!Unpin`. Safe code then cannot get a `&mut ReadBack` out
/// of a `Pin<&mut ReadBack>`, so it cannot move a pinned one:
///
/// ```compile_fail,E0277
/// use std::pin::Pin;
/// use oneloop_future::ReadBack;
///
/// // Pin::get_mut needs `ReadBack: Unpin`, and it is not.
/// fn steal(pinned: Pin<&mut ReadBack>) -> ReadBack {
///     std::mem::replace(Pin::get_mut(pinned), ReadBack::new("swapped in"))
/// }
/// ```
///
/// Nor can it swap two pinned ones, since a `Pin` of a `!Unpin` value gives no `&mut`:
///
/// ```compile_fail,E0596
/// use oneloop_future::ReadBack;
///
/// let mut a = Box::pin(ReadBack::new("a"));
/// let mut b = Box::pin(ReadBack::new("b"));
/// std::mem::swap(&mut *a, &mut *b);
/// ```
///
/// The same calls compile for [`SelfRef`], which is `Unpin`: the pin protects nothing.
///
/// ```
/// use std::pin::Pin;
/// use oneloop_future::SelfRef;
///
/// let mut a = Box::pin(SelfRef::new("a"));
/// let mut b = Box::pin(SelfRef::new("b"));
/// std::mem::swap(&mut *a, &mut *b);
/// let _moved_out: &mut SelfRef = Pin::get_mut(a.as_mut());
/// ```
#[derive(Debug)]
pub struct ReadBack {
    buf: [u8; CAPACITY],
    len: usize,
    // Null until the first poll; then the address of `buf`, which the pin keeps valid.
    at: *const u8,
    // Opts out of `Unpin`: a pinned `ReadBack` stays where it is until it is dropped.
    _pinned: PhantomPinned,
}

impl ReadBack {
    /// A future that will resolve to the first [`CAPACITY`] bytes of `text`.
    pub fn new(text: &str) -> Self {
        let (buf, len) = inline(text);
        Self {
            buf,
            len,
            at: ptr::null(),
            _pinned: PhantomPinned,
        }
    }

    /// Whether the first poll has taken its pointer, and it points at this buffer.
    pub fn points_into_itself(self: Pin<&Self>) -> bool {
        let this = self.get_ref();
        !this.at.is_null() && ptr::eq(this.at, this.buf.as_ptr())
    }
}

impl Future for ReadBack {
    type Output = String;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<String> {
        // SAFETY: nothing below moves the value out of `this`: we only read and write
        // its fields in place, and `this` does not outlive this call.
        let this = unsafe { self.get_unchecked_mut() };
        if this.at.is_null() {
            // The first poll: borrow our own buffer, then let the caller poll again.
            this.at = this.buf.as_ptr();
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        // SAFETY: `at` was taken from `buf` in the first poll. The value was pinned then
        // (poll takes `Pin<&mut Self>`) and `ReadBack` is `!Unpin`, so it has not moved
        // since: `at` still points at `buf`, which holds `len <= CAPACITY` bytes.
        let bytes = unsafe { std::slice::from_raw_parts(this.at, this.len) };
        Poll::Ready(String::from_utf8_lossy(bytes).into_owned())
    }
}
// ANCHOR_END: read_back

// ANCHOR: count_polls
/// A future that counts how often its inner future is polled, with the projection
/// written by hand.
#[derive(Debug)]
pub struct CountPolls<F> {
    // Structurally pinned: a pinned `CountPolls` means a pinned `inner`.
    inner: F,
    // Not pinned: a count is an ordinary value.
    polls: usize,
}

impl<F> CountPolls<F> {
    /// Wraps `inner`, with no poll counted yet.
    pub fn new(inner: F) -> Self {
        Self { inner, polls: 0 }
    }

    /// How many times the inner future has been polled.
    pub fn polls(&self) -> usize {
        self.polls
    }

    /// The projection to the pinned field: `Pin<&mut Self>` to `Pin<&mut F>`.
    fn inner(self: Pin<&mut Self>) -> Pin<&mut F> {
        // SAFETY: `inner` is structurally pinned, and `CountPolls` keeps the five rules
        // of the module docs: no method moves `inner` out of a pinned value or gives out
        // `&mut F` from one, there is no `Drop` impl, the auto trait makes it `Unpin`
        // only when `F` is, it is not `repr(packed)`, and its memory is freed only by
        // dropping it, `inner`'s destructor first.
        unsafe { self.map_unchecked_mut(|this| &mut this.inner) }
    }

    /// The projection to the unpinned field: `Pin<&mut Self>` to `&mut usize`.
    fn polls_mut(self: Pin<&mut Self>) -> &mut usize {
        // SAFETY: we hand out `&mut usize` only, never `&mut Self` or `&mut F`, so
        // nothing can move `inner` through it; a `usize` may move freely.
        unsafe { &mut self.get_unchecked_mut().polls }
    }
}

impl<F: Future> Future for CountPolls<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        *self.as_mut().polls_mut() += 1;
        self.inner().poll(cx)
    }
}
// ANCHOR_END: count_polls

// ANCHOR: count_polls_lite
pin_project! {
    /// [`CountPolls`] again, with the projection written by `pin-project-lite`.
    #[derive(Debug)]
    pub struct CountPollsLite<F> {
        #[pin]
        inner: F,
        polls: usize,
    }
}

impl<F> CountPollsLite<F> {
    /// Wraps `inner`, with no poll counted yet.
    pub fn new(inner: F) -> Self {
        Self { inner, polls: 0 }
    }

    /// How many times the inner future has been polled.
    pub fn polls(&self) -> usize {
        self.polls
    }
}

impl<F: Future> Future for CountPollsLite<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // One call gives both fields: `inner` as `Pin<&mut F>`, `polls` as `&mut usize`.
        let this = self.project();
        *this.polls += 1;
        this.inner.poll(cx)
    }
}
// ANCHOR_END: count_polls_lite
