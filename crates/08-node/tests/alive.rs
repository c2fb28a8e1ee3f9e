//! What keeps the Node-style loop alive, and what does not.

use oneloop_node::{NodeLoop, Promise, console_log, spawn_async};
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
