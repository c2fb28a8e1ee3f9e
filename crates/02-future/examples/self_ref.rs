//! What a move does to a value that points into itself, and what a pin changes.
//!
//! Run with `cargo run -p oneloop-future --example self_ref`. The addresses differ from
//! run to run; what the lines say about them does not.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use oneloop_future::{ReadBack, SelfRef};

fn main() {
    println!("unpinned SelfRef:");
    let mut value = SelfRef::new("GET /index.html");
    value.point_at_buffer();
    show("on the stack", &value);
    let moved = Box::new(value);
    show("moved to a Box", &moved);

    println!("pinned ReadBack:");
    let mut cx = Context::from_waker(Waker::noop());
    let mut fut = Box::pin(ReadBack::new("GET /index.html"));
    let first = fut.as_mut().poll(&mut cx);
    println!(
        "  first poll: {first:?}, points into itself: {}",
        fut.as_ref().points_into_itself()
    );
    // Moving the Box moves only the pointer to the heap; the future stays put.
    let mut moved: Pin<Box<ReadBack>> = fut;
    let second = moved.as_mut().poll(&mut cx);
    println!(
        "  box moved, second poll: {second:?}, points into itself: {}",
        moved.as_ref().points_into_itself()
    );
    assert!(matches!(second, Poll::Ready(_)));
}

fn show(place: &str, value: &SelfRef) {
    println!(
        "  {place:<15} buffer at {:#x}, pointer {:#x}, points into itself: {}",
        value.buffer_address(),
        value.pointer_address(),
        value.points_into_itself()
    );
}
