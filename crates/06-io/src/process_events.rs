//! `_process_events`: the events of one park become handles and wakes, in order.

use mio::Events;
use oneloop_core::hooks::{Handle, ReadyQueue};

use crate::Io;
use crate::io::Fired;

// ANCHOR: process_events
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
    let mut count = 0;
    for event in events {
        count += 1;
        let read = event.is_readable() || event.is_read_closed() || event.is_error();
        let write = event.is_writable() || event.is_write_closed() || event.is_error();
        // The table's borrow ends inside `take_event`: the wakes below run loop code.
        let Fired {
            reader,
            read_waker,
            writer,
            write_waker,
        } = io.take_event(event.token(), read, write);
        if let Some(reader) = reader {
            ready.push(Handle::shared(reader.label, reader.callback, reader.cancel));
        }
        if let Some(waker) = read_waker {
            waker.wake();
        }
        if let Some(writer) = writer {
            ready.push(Handle::shared(writer.label, writer.callback, writer.cancel));
        }
        if let Some(waker) = write_waker {
            waker.wake();
        }
    }
    count
}
// ANCHOR_END: process_events
