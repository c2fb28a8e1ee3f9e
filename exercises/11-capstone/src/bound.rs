//! The output bound: how a push past it disconnects the client.
#![allow(unused_variables, unused_imports)]

use std::net::Shutdown;

use crate::outbox::{Closed, Outbox, wake};

impl Outbox {
    /// Queues bytes already encoded (a published message is encoded once for all
    /// its subscribers), and wakes the writer (with [`wake_writer`](Outbox::wake_writer)).
    ///
    /// The bound counts every byte not yet written ([`pending`](Outbox::pending):
    /// the buffer and the writer's chunk in flight). A push that would take that past
    /// `limit` (exactly at it is allowed) is refused and disconnects the client: the
    /// output is marked [`Closed::Overflow`], the buffer is dropped, the socket is shut
    /// down both ways, and the writer and the reader are woken so both end. Returns
    /// whether the bytes were queued (`false` too once the output is closed).
    pub fn push_bytes(&self, bytes: &[u8]) -> bool {
        todo!(
            "stage 11, exercise 3: queue the bytes, or disconnect a client whose output \
             would pass its bound — see chapter 11.4"
        )
    }
}
