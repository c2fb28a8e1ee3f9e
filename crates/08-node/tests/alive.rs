//! What keeps the Node-style loop alive, and what does not.

use std::cell::Cell;
use std::io::{Read, Write};
use std::rc::Rc;

use oneloop_node::{
    Interest, NodeLoop, Promise, WatchId, close, console_log, once_ready, pipe, spawn_async, watch,
};
use oneloop_testkit::watchdog_default;

/// A promise nobody can settle any more (its resolver is kept but never used), with a
/// reaction and an async function awaiting it, keeps nothing alive: the run ends
/// after the main script, with zero iterations, and neither the reaction nor the rest
/// of the async function runs. Node 20 prints only `main` for the same script and
/// exits.
#[test]
fn a_pending_promise_and_an_async_function_awaiting_it_do_not_keep_the_loop_alive() {
    watchdog_default(|| {
        let mut node = NodeLoop::with_virtual_clock().expect("a poller");
        let mut resolver = None;
        let report = node
            .run(|| {
                let (promise, settle) = Promise::<u8>::pending();
                resolver = Some(settle);
                promise.then(|_| console_log("then"));
                spawn_async(async move {
                    promise.await;
                    console_log("resumed");
                });
                console_log("main");
            })
            .expect("the run ends");
        assert_eq!(report.output, ["main"]);
        assert_eq!(report.iterations, 0);
        assert!(resolver.is_some(), "the resolver was kept, never used");
    });
}

/// A watch is a handle: it keeps the loop alive while registered, and, although mio
/// reports readiness once per edge, it fires again while data is left unread (it is
/// re-armed after each callback, as libuv's level-triggered watchers behave). Three
/// bytes read one per callback give three callbacks, then the close callback; nothing
/// else is alive, so a watch that did not keep the loop alive, or was not re-armed,
/// would end the run early or leave the poll waiting for ever.
#[test]
fn a_watch_keeps_the_loop_alive_and_fires_again_while_data_is_left_unread() {
    watchdog_default(|| {
        let mut node = NodeLoop::new().expect("a poller");
        let report = node
            .run(|| {
                let (mut sender, receiver) = pipe::new().expect("a pipe");
                sender.write_all(b"abc").expect("three bytes");
                let id: Rc<Cell<Option<WatchId>>> = Rc::default();
                let me = Rc::clone(&id);
                let mut reads = 0;
                // The sender stays open until the last read: no end of data is seen.
                let mut sender = Some(sender);
                let handle = watch(receiver, Interest::READABLE, move |receiver| {
                    let mut byte = [0u8; 1];
                    receiver.read_exact(&mut byte).expect("a byte is there");
                    reads += 1;
                    console_log(format!("read {}", byte[0] as char));
                    if reads == 3 {
                        drop(sender.take());
                        let handle = me.get().expect("the handle's id");
                        close(handle, || console_log("closed")).expect("deregisters");
                    }
                })
                .expect("registers");
                id.set(Some(handle));
            })
            .expect("the run ends");
        assert_eq!(report.output, ["read a", "read b", "read c", "closed"]);
    });
}

/// A request (`once_ready`) keeps the loop alive until its callback has run, even
/// with nothing else registered and no timer armed.
#[test]
fn a_once_ready_request_keeps_the_loop_alive_until_its_callback_runs() {
    watchdog_default(|| {
        let mut node = NodeLoop::new().expect("a poller");
        let report = node
            .run(|| {
                let (mut sender, receiver) = pipe::new().expect("a pipe");
                sender.write_all(b"x").expect("a byte");
                once_ready(receiver, Interest::READABLE, move |_| {
                    drop(sender);
                    console_log("ready");
                })
                .expect("registers");
            })
            .expect("the run ends");
        assert_eq!(report.output, ["ready"]);
        assert_eq!(report.iterations, 1);
    });
}
