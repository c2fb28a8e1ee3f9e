//! What keeps the Node-style loop alive, and what does not.

use std::cell::Cell;
use std::io::{Read, Write};
use std::rc::Rc;

use oneloop_node::{
    Interest, NodeLoop, Promise, WatchId, clear_timeout, close, console_log, once_ready, pipe,
    set_interval, set_timeout, spawn_async, timer_has_ref, unref_timer, watch,
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

/// An unref'd interval alone keeps nothing alive: the run ends after the main script,
/// with zero iterations, and the interval never runs. Node 20 prints only `main` for
/// `const t = setInterval(f, 10); t.unref(); console.log('main')` and exits.
#[test]
fn an_unrefd_interval_alone_does_not_keep_the_loop_alive() {
    watchdog_default(|| {
        let mut node = NodeLoop::with_virtual_clock().expect("a poller");
        let report = node
            .run(|| {
                let interval = set_interval(|| console_log("interval"), 10);
                unref_timer(interval);
                console_log("main");
            })
            .expect("the run ends");
        assert_eq!(report.output, ["main"]);
        assert_eq!(report.iterations, 0);
    });
}

/// `timer_has_ref` asks whether a timer is armed and keeps the loop alive: `true` for
/// a timer just set, `false` once it was unref'd, once it ran, or once it was cleared.
/// (Node's `hasRef()` reads a flag of the `Timeout` object, which stays `true` after
/// the timer ran or was cleared.)
#[test]
fn timer_has_ref_is_false_once_a_timer_ran_or_was_cleared() {
    watchdog_default(|| {
        let mut node = NodeLoop::with_virtual_clock().expect("a poller");
        let report = node
            .run(|| {
                let ran = set_timeout(|| {}, 1);
                let cleared = set_timeout(|| {}, 5);
                let unrefd = set_timeout(|| {}, 5);
                unref_timer(unrefd);
                console_log(format!(
                    "set: {} {} {}",
                    timer_has_ref(ran),
                    timer_has_ref(cleared),
                    timer_has_ref(unrefd)
                ));
                clear_timeout(cleared);
                set_timeout(
                    move || {
                        console_log(format!(
                            "later: {} {}",
                            timer_has_ref(ran),
                            timer_has_ref(cleared)
                        ));
                    },
                    2,
                );
            })
            .expect("the run ends");
        assert_eq!(
            report.output,
            ["set: true true false", "later: false false"]
        );
    });
}
