//! Exercise 4: predict the async quiz; and the promise rules it relies on.

use ex08_node::hooks::{run_scenario, scenario};
use ex08_node::{
    NodeLoop, Promise, VirtualClock, async_quiz, console_log, next_tick, predict_async_quiz,
    queue_microtask, run_quiz, set_timeout, spawn_async,
};
use oneloop_testkit::watchdog_default;

fn run(main: impl FnOnce()) -> Vec<String> {
    let mut node = NodeLoop::with_virtual_clock().expect("a poller");
    node.run(main).expect("the run ends").output
}

#[test]
fn ex4_your_prediction_of_the_async_quiz_is_what_the_loop_prints() {
    watchdog_default(|| {
        let printed = run_quiz(async_quiz).expect("the quiz runs");
        let predicted = predict_async_quiz();
        assert_eq!(
            predicted, printed,
            "your prediction (left) is not what async_quiz printed (right)"
        );
    });
}

#[test]
fn ex4_an_async_function_runs_at_once_up_to_its_first_await() {
    watchdog_default(|| {
        let output = run(|| {
            console_log("before");
            spawn_async(async {
                console_log("body");
                Promise::resolved(()).await;
                console_log("after await");
            });
            console_log("after call");
        });
        assert_eq!(output, ["before", "body", "after call", "after await"]);
    });
}

#[test]
fn ex4_each_await_costs_one_microtask_like_each_then() {
    watchdog_default(|| {
        // The program is the scenario `await_vs_then_chain` (also run on real Node):
        // an async block awaiting twice beside a then chain of three links.
        let chain = scenario("await_vs_then_chain").expect("a listed scenario");
        let output = run_scenario(chain, VirtualClock::new()).expect("the run ends");
        assert_eq!(output, ["a1", "sync", "a2", "p1", "a3", "p2", "p3"]);
    });
}

#[test]
fn ex4_reactions_run_in_the_order_they_were_added_when_the_promise_settles() {
    watchdog_default(|| {
        let output = run(|| {
            let (promise, resolver) = Promise::pending();
            promise.then(|n: u32| console_log(format!("first {n}")));
            promise.then(|n: u32| console_log(format!("second {n}")));
            set_timeout(
                move || {
                    // Queued in the same macrotask, just before the resolve: a resolve
                    // that ran its reactions inline would print them first.
                    queue_microtask(|| console_log("queued before the resolve"));
                    resolver.resolve(7);
                    console_log("resolve returned");
                },
                5,
            );
        });
        assert_eq!(
            output,
            [
                "resolve returned",
                "queued before the resolve",
                "first 7",
                "second 7"
            ],
            "reactions are queued as microtasks, behind one queued before the resolve"
        );
    });
}

#[test]
fn ex4_an_awaited_timer_resumes_in_the_timers_phase_before_the_next_timer() {
    watchdog_default(|| {
        let output = run(|| {
            spawn_async(async {
                Promise::new(|resolve| {
                    set_timeout(move || resolve.resolve(()), 1);
                })
                .await;
                console_log("resumed");
                next_tick(|| console_log("tick after resume"));
            });
            set_timeout(|| console_log("second timer"), 1);
        });
        assert_eq!(output, ["resumed", "tick after resume", "second timer"]);
    });
}

#[test]
fn ex4_the_promise_of_an_async_function_holds_its_output() {
    watchdog_default(|| {
        let output = run(|| {
            let answer = spawn_async(async { 6 * 7 });
            assert_eq!(
                answer.value(),
                Some(42),
                "no await: fulfilled when it returns"
            );
            answer.then(|n| console_log(format!("then {n}")));
        });
        assert_eq!(output, ["then 42"]);
    });
}
