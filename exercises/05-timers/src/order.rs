//! The heap's order: earliest deadline first, ties in scheduling order.
#![allow(unused_variables, unused_imports)]

use std::cmp::Ordering;

use crate::Scheduled;

impl Ord for Scheduled {
    /// Compares by `(when, seq)`, reversed: std's `BinaryHeap` pops its *greatest*
    /// entry, so the earliest deadline (and, on a tie, the lowest sequence number) must
    /// compare greatest.
    fn cmp(&self, other: &Self) -> Ordering {
        todo!(
            "stage 5, exercise 1: order by (when, seq) so that the earliest deadline, \
             and on a tie the first scheduled, comes out of the max-heap first — see \
             chapter 5.1"
        )
    }
}
