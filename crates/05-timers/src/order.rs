//! The heap's order: earliest deadline first, ties in scheduling order.

use std::cmp::Ordering;

use crate::Scheduled;

// ANCHOR: order
impl Ord for Scheduled {
    /// Compares by `(when, seq)`: the heap pops its *least* entry, so the earliest
    /// deadline (and, on a tie, the lowest sequence number) must compare least.
    fn cmp(&self, other: &Self) -> Ordering {
        self.when
            .cmp(&other.when)
            .then_with(|| self.seq().cmp(&other.seq()))
    }
}
// ANCHOR_END: order
