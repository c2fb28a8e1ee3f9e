//! Panic payloads: the one place the runtime reads a panic's message.
//!
//! A caught panic is a `Box<dyn Any + Send>` of the panicking code's choosing. `panic!`
//! with a literal gives a `&str`, with a format string a `String`; `panic_any` may give
//! anything at all. Every layer that catches a panic (a task's poll, a callback, an
//! observer, a close hook, a job on a worker thread) turns the payload into text here,
//! so a report reads the same whichever layer made it.

use std::any::Any;
use std::mem;
use std::panic::{self, AssertUnwindSafe};

/// The text given for a payload that is neither a `&str` nor a `String`.
pub const PANIC_WITHOUT_MESSAGE: &str = "a panic with a payload that is not a string";

// ANCHOR: panic_message
/// The text of a panic payload (`&str` or `String`; anything else is
/// [`PANIC_WITHOUT_MESSAGE`]). Takes the payload and drops it with [`drop_payload`]:
/// its drop may panic too.
pub fn panic_message(payload: Box<dyn Any + Send>) -> String {
    let message = if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        PANIC_WITHOUT_MESSAGE.to_owned()
    };
    drop_payload(payload);
    message
}

/// How many payloads in a row [`drop_payload`] drops before it gives up on the chain.
const PAYLOAD_DROPS: usize = 8;

/// Drops a panic payload, which is a value of the panicking code's choosing: its `Drop`
/// is user code and may panic again. That panic is caught here, and its own payload
/// dropped the same way; a chain longer than eight is leaked rather than followed for
/// ever (leaking is safe; a panic escaping from here is not).
pub fn drop_payload(mut payload: Box<dyn Any + Send>) {
    for _ in 0..PAYLOAD_DROPS {
        match panic::catch_unwind(AssertUnwindSafe(move || drop(payload))) {
            Ok(()) => return,
            Err(next) => payload = next,
        }
    }
    mem::forget(payload);
}
// ANCHOR_END: panic_message
