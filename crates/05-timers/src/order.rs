//! The heap's order: earliest deadline first, ties in scheduling order.

use std::cmp::Ordering;

use crate::Scheduled;

// ANCHOR: order
impl Ord for Scheduled {
    /// Compares by `(when, seq)`, reversed: std's `BinaryHeap` pops its *greatest*
    /// entry, so the earliest deadline (and, on a tie, the lowest sequence number) must
    /// compare greatest.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .when
            .cmp(&self.when)
            .then_with(|| other.seq().cmp(&self.seq()))
    }
}
// ANCHOR_END: order
