//! Binding a primitive to the loop it first waits on (asyncio's `_LoopBoundMixin`).

use std::cell::Cell;

use oneloop_cancel::Error;
use oneloop_core::hooks::{LoopId, with_current};

use crate::error::BOUND_TO_ANOTHER_LOOP;

/// The loop a primitive belongs to: none until its first wait, then that loop for good.
///
/// As in asyncio, only a wait binds (a wait is what leaves a waker behind, and a waker
/// belongs to one loop); `release`, `set` and the `_nowait` calls do not check.
#[derive(Debug, Default)]
pub(crate) struct LoopBound {
    id: Cell<Option<LoopId>>,
}

impl LoopBound {
    /// Binds to the running loop on first use; fails on any other loop after that.
    pub(crate) fn check(&self) -> Result<(), Error> {
        let Some(running) = with_current(|core| core.id()) else {
            // Polled outside any loop (a hand-made executor): nothing to bind to.
            return Ok(());
        };
        match self.id.get() {
            None => {
                self.id.set(Some(running));
                Ok(())
            }
            Some(bound) if bound == running => Ok(()),
            Some(_) => Err(Error::Misuse(BOUND_TO_ANOTHER_LOOP)),
        }
    }
}
