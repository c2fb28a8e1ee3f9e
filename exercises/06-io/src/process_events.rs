//! `_process_events`: the events of one park become handles and wakes, in order.
#![allow(unused_variables, unused_imports)]

use mio::Events;
use oneloop_core::hooks::{Handle, ReadyQueue};

use crate::Io;
use crate::io::Fired;

/// asyncio's `_process_events`: turns the events of one park into handles and wakes,
/// in the order the poller reported them, and returns how many events there were.
///
/// - An event fires the fd's read side if it is readable, read-closed or an error; its
///   write side if it is writable, write-closed or an error.
/// - `io.take_event(token, read, write)` takes what fired out of the table (and re-arms
///   the fd); the table's borrow has ended when it returns, so waking is safe.
/// - Per event: queue the reader (`Handle::shared(label, callback, cancel)`), wake the
///   task waiting to read, queue the writer, wake the task waiting to write.
///
/// A wake on the loop's thread pushes the task's step onto the ready queue at once, so
/// callbacks and task steps keep the poller's order among themselves. Nothing here may
/// allocate: the watchers are `Rc` clones and the events buffer is reused.
pub(crate) fn process_events(io: &Io, events: &Events, ready: &ReadyQueue) -> usize {
    todo!(
        "stage 6, exercise 1: for each event, take what fired and queue the reader, wake \
         the reader task, queue the writer, wake the writer task — see chapter 6.1"
    )
}
