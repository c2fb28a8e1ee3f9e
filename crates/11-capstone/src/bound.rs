//! The output bound: how a push past it disconnects the client.

use std::net::Shutdown;

use crate::outbox::{Closed, Outbox, wake};

// ANCHOR: push_bytes
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
        if self.closed.get().is_some() {
            return false;
        }
        if self.pending() + bytes.len() > self.limit {
            self.overflow();
            return false;
        }
        // Within the bound: queued as a reply is.
        self.push_reply(bytes)
    }

    /// Disconnects the client: what is buffered is dropped, the socket is shut down
    /// both ways (its reader sees end of file, its writer an error).
    fn overflow(&self) {
        self.closed.set(Some(Closed::Overflow));
        self.buffered.borrow_mut().clear();
        // Already reset by the peer: nothing left to shut down.
        let _ = self.stream.shutdown(Shutdown::Both);
        wake(&self.writer);
        wake(&self.reader);
    }
}
// ANCHOR_END: push_bytes
