//! Exercise 1: in steady state, an I/O event allocates nothing.
//!
//! The binary's global allocator is the test kit's `CountingAllocator`, which counts
//! only on the thread that asks, so other tests' threads do not disturb it.

use std::cell::Cell;
use std::io::Write;
use std::rc::Rc;

use crate::common::pair;
use ex06_io::{Io, new_event_loop};
use oneloop_testkit::{CountingAllocator, watchdog_default};

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator::new();

const WARM_UP: usize = 100;
const EVENTS: usize = 1_000;

#[test]
fn ex1_a_reader_event_allocates_nothing_in_steady_state() {
    watchdog_default(|| {
        // The whole stack: timers (none scheduled) over epoll.
        let mut event_loop = new_event_loop().unwrap();
        let (mut client, server) = pair();
        let server = Rc::new(server);
        let calls = Rc::new(Cell::new(0usize));
        let (reading, counted) = (Rc::clone(&server), Rc::clone(&calls));
        // One byte per call: the rest stays unread and fires again next turn.
        Io::of(&event_loop)
            .unwrap()
            .add_reader(&*server, move || {
                let mut byte = [0; 1];
                if let Ok(1) = reading.try_read(&mut byte) {
                    counted.set(counted.get() + 1);
                }
            })
            .unwrap();
        client.write_all(&[7; WARM_UP + EVENTS]).unwrap();
        for _ in 0..WARM_UP {
            event_loop.run_once().unwrap();
        }
        let ((), allocated) = ALLOC.count(|| {
            for _ in 0..EVENTS {
                event_loop.run_once().unwrap();
            }
        });
        assert_eq!(
            calls.get(),
            WARM_UP + EVENTS,
            "one event, one call, per turn"
        );
        assert_eq!(
            allocated, 0,
            "{EVENTS} turns with an I/O event each allocated {allocated} times"
        );
    });
}
