//! `call_soon_threadsafe`'s core: push under the lock, then wake the loop.
#![allow(unused_variables)]

use crate::OffloadError;
use crate::inbox::{Injected, Remote};

impl Remote {
    /// Hands `item` to the loop from any thread (asyncio's `call_soon_threadsafe`:
    /// append the handle, then `_write_to_self`).
    ///
    /// - Lock the inbox. If it is `Open`, push `item` at the back; if it is `Closed`,
    ///   fail with [`OffloadError::LoopClosed`] (the item is dropped, after the unlock).
    /// - Release the lock, **then** wake the loop with `self.unparker.unpark()`.
    ///
    /// The order is the whole point: a wake that came before the push could let the
    /// loop drain an empty inbox and sleep again with the item unseen.
    pub(crate) fn inject(&self, item: Injected) -> Result<(), OffloadError> {
        todo!(
            "stage 7, exercise 1: push the item under the inbox's lock, release it, then \
             wake the loop — see chapter 7.2"
        )
    }
}
