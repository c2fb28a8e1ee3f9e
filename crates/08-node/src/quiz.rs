//! The programs of the two predict-the-order quizzes. Your predictions go in
//! `predict.rs`; the tests run these programs and compare.

use std::io::Write;

use crate::{
    Interest, NodeError, NodeLoop, Promise, close, console_log, next_tick, once_ready, pipe,
    queue_microtask, set_immediate, set_timeout, spawn_async, watch,
};

/// Runs a quiz program on a fresh loop with the virtual clock, and returns what it
/// printed.
pub fn run_quiz(program: fn()) -> Result<Vec<String>, NodeError> {
    let mut node = NodeLoop::with_virtual_clock()?;
    Ok(node.run(program)?.output)
}

// ANCHOR: phases_quiz
/// Quiz 1: the phases. A pipe already holds a byte when the loop starts, so the first
/// poll finds it readable.
pub fn phases_quiz() {
    console_log("main");
    set_immediate(|| {
        console_log("immediate 1");
        next_tick(|| console_log("tick in immediate"));
        set_immediate(|| console_log("immediate 3"));
    });
    let (mut sender, receiver) = pipe::new().expect("a pipe can be made");
    sender
        .write_all(b"x")
        .expect("one byte fits in an empty pipe");
    once_ready(receiver, Interest::READABLE, move |receiver| {
        drop(sender);
        console_log("io");
        set_immediate(|| console_log("immediate from io"));
        let handle = watch(receiver, Interest::READABLE, |_| {}).expect("the pipe registers");
        close(handle, || console_log("close")).expect("the pipe deregisters");
    })
    .expect("the pipe registers");
    next_tick(|| console_log("tick"));
    set_immediate(|| console_log("immediate 2"));
}
// ANCHOR_END: phases_quiz

// ANCHOR: async_quiz
/// Quiz 2: promises and async functions (Node prints the same; it is also the
/// scenario `tests/node/async_quiz.js`).
pub fn async_quiz() {
    async fn job(name: &'static str) {
        console_log(format!("{name} start"));
        Promise::resolved(()).await;
        console_log(format!("{name} resumed"));
    }
    console_log("script start");
    set_timeout(|| console_log("timeout"), 0);
    spawn_async(job("one"));
    Promise::resolved(())
        .then(|()| console_log("then 1"))
        .then(|()| console_log("then 2"));
    next_tick(|| console_log("tick"));
    spawn_async(job("two"));
    queue_microtask(|| console_log("microtask"));
    console_log("script end");
}
// ANCHOR_END: async_quiz
