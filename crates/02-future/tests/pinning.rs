//! Pinning by hand: what a move does to a value that points into itself, what a pin
//! prevents, and a projection written by hand beside the one `pin-project-lite` writes.

use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Waker};

use oneloop_future::{CountPolls, CountPollsLite, ReadBack, SelfRef, block_on, waker_fn};

/// Tells `Unpin` types from the others at run time (the method on the inherent impl
/// wins when it applies; otherwise the trait's default answers).
struct UnpinProbe<T: ?Sized>(std::marker::PhantomData<T>);

trait NotUnpin {
    fn is_unpin(&self) -> bool {
        false
    }
}

impl<T: ?Sized> NotUnpin for UnpinProbe<T> {}

impl<T: ?Sized + Unpin> UnpinProbe<T> {
    fn is_unpin(&self) -> bool {
        true
    }
}

fn probe<T: ?Sized>() -> UnpinProbe<T> {
    UnpinProbe(std::marker::PhantomData)
}

/// A waker that counts its wakes.
fn counting_waker() -> (Waker, Arc<AtomicUsize>) {
    let wakes = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&wakes);
    let waker = waker_fn(Arc::new(move || {
        counter.fetch_add(1, Ordering::SeqCst);
    }));
    (waker, wakes)
}

/// Pending `left` more times (waking itself each time), then ready.
struct PendingTimes {
    left: usize,
}

impl Future for PendingTimes {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.left == 0 {
            return Poll::Ready(());
        }
        self.left -= 1;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

#[test]
fn a_moved_self_ref_still_points_at_the_place_it_left() {
    let mut value = SelfRef::new("GET /index.html");
    value.point_at_buffer();
    assert!(value.points_into_itself());
    let before = value.buffer_address();

    // A move copies the bytes to a new place (here, from the stack to the heap).
    let moved = Box::new(value);
    assert_ne!(
        moved.buffer_address(),
        before,
        "the buffer moved with the value"
    );
    assert_eq!(
        moved.pointer_address(),
        before,
        "the pointer still holds the old address"
    );
    assert!(!moved.points_into_itself());
    assert_eq!(moved.len(), 15);
}

#[test]
fn a_boxed_read_back_reads_its_own_buffer_after_the_box_itself_moves() {
    let (waker, wakes) = counting_waker();
    let mut cx = Context::from_waker(&waker);
    let mut fut = Box::pin(ReadBack::new("hello, pinned world"));
    assert!(
        !fut.as_ref().points_into_itself(),
        "no pointer before the first poll"
    );
    assert_eq!(fut.as_mut().poll(&mut cx), Poll::Pending);
    assert!(fut.as_ref().points_into_itself());
    assert_eq!(
        wakes.load(Ordering::SeqCst),
        1,
        "the first poll woke its caller"
    );

    // Moving the Box moves a pointer to the heap; the future stays where it is.
    let mut boxes = vec![fut];
    let mut fut = boxes.pop().expect("the box we pushed");
    assert!(fut.as_ref().points_into_itself());
    assert_eq!(
        fut.as_mut().poll(&mut cx),
        Poll::Ready("hello, pinned world".to_string())
    );
}

#[test]
fn a_read_back_pinned_on_the_stack_resolves_on_its_second_poll() {
    let mut cx = Context::from_waker(Waker::noop());
    let mut fut = pin!(ReadBack::new("on the stack"));
    assert_eq!(fut.as_mut().poll(&mut cx), Poll::Pending);
    assert!(fut.as_ref().points_into_itself());
    assert_eq!(
        fut.as_mut().poll(&mut cx),
        Poll::Ready("on the stack".to_string())
    );
    // block_on pins its future with `pin!` too.
    assert_eq!(
        block_on(ReadBack::new("through block_on")),
        "through block_on"
    );
}

#[test]
fn only_the_pinned_future_and_its_wrappers_are_not_unpin() {
    // The probe tells the two kinds apart.
    assert!(probe::<u8>().is_unpin());
    assert!(!probe::<std::marker::PhantomPinned>().is_unpin());
    // SelfRef points into itself and is Unpin all the same: nothing protects it.
    assert!(probe::<SelfRef>().is_unpin());
    // ReadBack opts out, so Pin::get_mut and swapping through a Pin do not compile.
    assert!(!probe::<ReadBack>().is_unpin());
    // A wrapper is Unpin exactly when what it wraps is, by hand and by the macro.
    assert!(probe::<CountPolls<PendingTimes>>().is_unpin());
    assert!(!probe::<CountPolls<ReadBack>>().is_unpin());
    assert!(probe::<CountPollsLite<PendingTimes>>().is_unpin());
    assert!(!probe::<CountPollsLite<ReadBack>>().is_unpin());
}

#[test]
fn the_projection_by_hand_and_the_macro_count_the_same_polls() {
    let mut cx = Context::from_waker(Waker::noop());

    let mut by_hand = pin!(CountPolls::new(PendingTimes { left: 3 }));
    let mut by_macro = pin!(CountPollsLite::new(PendingTimes { left: 3 }));
    for _ in 0..3 {
        assert_eq!(by_hand.as_mut().poll(&mut cx), Poll::Pending);
        assert_eq!(by_macro.as_mut().poll(&mut cx), Poll::Pending);
    }
    assert_eq!(by_hand.as_mut().poll(&mut cx), Poll::Ready(()));
    assert_eq!(by_macro.as_mut().poll(&mut cx), Poll::Ready(()));
    assert_eq!((by_hand.polls(), by_macro.polls()), (4, 4));

    // A `!Unpin` inner future works through both: the pin flows down the projection.
    let mut by_hand = pin!(CountPolls::new(ReadBack::new("deep")));
    let mut by_macro = pin!(CountPollsLite::new(ReadBack::new("deep")));
    assert_eq!(by_hand.as_mut().poll(&mut cx), Poll::Pending);
    assert_eq!(by_macro.as_mut().poll(&mut cx), Poll::Pending);
    assert_eq!(
        by_hand.as_mut().poll(&mut cx),
        Poll::Ready("deep".to_string())
    );
    assert_eq!(
        by_macro.as_mut().poll(&mut cx),
        Poll::Ready("deep".to_string())
    );
    assert_eq!((by_hand.polls(), by_macro.polls()), (2, 2));
}
