//! One program, two loops: stage 4's asyncio-style `EventLoop` and this stage's
//! `NodeLoop`. Shared by the `side_by_side` example and the test that pins both orders.
//!
//! The program: queue a callback `cb` that queues a second callback `cb2`; start two
//! coroutines, `a` and `b`, that each print, give the thread back once, and print again.
//! On asyncio's loop "queue a callback" is `call_soon`, "start" is `spawn` and "give
//! back" is `yield_now` (`await asyncio.sleep(0)`). On Node's, it is `setImmediate`,
//! calling an async function, and `await null`.

use std::cell::RefCell;
use std::rc::Rc;

use oneloop_core::{EventLoop, LoopError, yield_now};
use oneloop_node::{NodeError, NodeLoop, Promise, console_log, set_immediate, spawn_async};

// ANCHOR: asyncio_style
/// The program on stage 4's loop; returns what it printed, in order.
pub fn asyncio_style() -> Result<Vec<String>, LoopError> {
    let mut event_loop = EventLoop::new();
    let log = Rc::new(RefCell::new(Vec::new()));
    let core = Rc::clone(event_loop.core());
    let seen = Rc::clone(&log);
    event_loop.call_soon(move || {
        seen.borrow_mut().push("cb".to_string());
        let seen = Rc::clone(&seen);
        core.call_soon(move || seen.borrow_mut().push("cb2".to_string()));
    });
    for name in ["a", "b"] {
        let seen = Rc::clone(&log);
        event_loop.spawn(async move {
            seen.borrow_mut().push(format!("{name}1"));
            yield_now().await;
            seen.borrow_mut().push(format!("{name}2"));
        });
    }
    // asyncio's loop runs only when asked: turn until nothing is ready.
    while !event_loop.ready().is_empty() {
        event_loop.run_once()?;
    }
    Ok(log.take())
}
// ANCHOR_END: asyncio_style

// ANCHOR: node_style
/// The program on this stage's loop; returns what it printed, in order.
pub fn node_style() -> Result<Vec<String>, NodeError> {
    let mut node = NodeLoop::with_virtual_clock()?;
    let report = node.run(|| {
        set_immediate(|| {
            console_log("cb");
            set_immediate(|| console_log("cb2"));
        });
        for name in ["a", "b"] {
            spawn_async(async move {
                console_log(format!("{name}1"));
                Promise::resolved(()).await;
                console_log(format!("{name}2"));
            });
        }
    })?;
    Ok(report.output)
}
// ANCHOR_END: node_style
