//! The `Send` and `Sync` facts the book states, checked by the compiler.
//!
//! Each assertion below is a function with the bound: if a type stopped meeting it,
//! this suite would not compile. The negative facts (a loop is not `Send`) are
//! `compile_fail` doctests in `crates/oneloop/src/send_facts.rs` and in the docs of
//! stage 6's sockets; `every_type_a_not_send_proof_names_exists` names each of those
//! types here without the bound, so a snippet can only fail for the bound.

use std::sync::Arc;
use std::task::Waker;

use oneloop_task::{Schedule, TaskId, TaskWaker};

fn send<T: Send>() {}
fn send_sync<T: Send + Sync>() {}
fn send_sync_value<T: Send + Sync>(_: &T) {}
fn exists<T>() {}

/// A scheduler that schedules nothing, to name a task waker's type.
struct Nowhere;

impl Schedule for Nowhere {
    fn schedule(&self, _id: TaskId) {}
}

#[test]
fn wakers_are_send_and_sync() {
    // Stage 2: std's waker, and the one-shot future any thread may settle.
    send_sync::<Waker>();
    send_sync::<oneloop_future::OneShot<u32, String>>();
    send_sync::<oneloop_future::Wait<u32, String>>();
    // Stage 3: the state behind every task's waker, whatever schedules it.
    send_sync::<TaskWaker<Nowhere>>();
    send_sync::<Arc<TaskWaker<Nowhere>>>();
    // Stage 4: the loop's scheduler, which a task waker holds, ids and all.
    let event_loop = oneloop_core::EventLoop::new();
    send_sync_value(&event_loop.loop_waker());
    send_sync::<oneloop_core::LoopId>();
}

#[test]
fn what_other_threads_get_is_send() {
    // Stage 7: the handle any thread uses to reach the loop.
    send_sync::<oneloop_offload::LoopHandle>();
    // Stage 9: aborting a task from another thread.
    send::<oneloop_cancel::AbortHandle>();
    // Stage 6: a connection changes threads as std's stream, then becomes a oneloop one.
    send::<std::net::TcpStream>();
}

#[test]
fn every_type_a_not_send_proof_names_exists() {
    exists::<oneloop_core::EventLoop>();
    exists::<oneloop_core::Core>();
    exists::<oneloop_core::JoinHandle<u32>>();
    exists::<oneloop::OffloadLoop>();
    exists::<oneloop_io::TcpStream>();
    exists::<oneloop_io::TcpListener>();
}
