//! The `Send` and `Sync` facts the book states, checked by the compiler.
//!
//! Each assertion below is a function with the bound: if a type stopped meeting it,
//! this suite would not compile. The negative facts (a loop is not `Send`) are
//! `compile_fail` doctests in `crates/oneloop/src/send_facts.rs` and in the docs of
//! stage 6's sockets. `the_loop_its_core_and_join_handles_stay_on_their_thread` checks
//! the same facts as values, with a probe, so each snippet names a type that exists and
//! can only fail for the bound.

use std::marker::PhantomData;
use std::task::Waker;

use oneloop_task::hooks::{RawTask, TaskRef};

fn send<T: Send>() {}
fn send_sync<T: Send + Sync>() {}
fn send_sync_value<T: Send + Sync>(_: &T) {}

#[test]
fn wakers_are_send_and_sync() {
    // Stage 2: std's waker, and the one-shot future any thread may settle.
    send_sync::<Waker>();
    send_sync::<oneloop_future::OneShot<u32, String>>();
    send_sync::<oneloop_future::Wait<u32, String>>();
    // Stage 3: a task's waker is a std `Waker` over the task's cell (checked above);
    // the loop's own pointer to that cell is neither (see the probe test below).
    // Stage 4: the loop's scheduler, which a task waker holds, ids and all.
    let event_loop = oneloop_core::EventLoop::new();
    send_sync_value(&event_loop.scheduler());
    send_sync::<oneloop_core::hooks::LoopId>();
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

/// Tells at compile time whether `T` is `Send` (or `Sync`), as a value a test can
/// assert: the inherent `is_send` exists only when `T: Send`, and method lookup takes
/// it over the trait's blanket one, which answers `false`.
struct Probe<T>(PhantomData<T>);

trait NotSend {
    fn is_send(&self) -> bool {
        false
    }
}

trait NotSync {
    fn is_sync(&self) -> bool {
        false
    }
}

impl<T> NotSend for Probe<T> {}
impl<T> NotSync for Probe<T> {}

impl<T: Send> Probe<T> {
    fn is_send(&self) -> bool {
        true
    }
}

impl<T: Sync> Probe<T> {
    fn is_sync(&self) -> bool {
        true
    }
}

fn probe<T>() -> Probe<T> {
    Probe(PhantomData)
}

#[test]
fn the_loop_its_core_and_join_handles_stay_on_their_thread() {
    // The probe tells the two cases apart: a handle for other threads is both.
    assert!(probe::<oneloop_offload::LoopHandle>().is_send());
    assert!(probe::<oneloop_offload::LoopHandle>().is_sync());
    // Each type here also has a compile_fail doctest in crates/oneloop/src/send_facts.rs.
    assert!(!probe::<oneloop_core::EventLoop>().is_send());
    assert!(!probe::<oneloop_core::Core>().is_send());
    assert!(!probe::<oneloop_core::Core>().is_sync());
    assert!(!probe::<oneloop_core::JoinHandle<u32>>().is_send());
    assert!(!probe::<TaskRef<dyn RawTask>>().is_send());
    assert!(!probe::<TaskRef<dyn RawTask>>().is_sync());
    assert!(!probe::<oneloop::OffloadLoop>().is_send());
    assert!(!probe::<oneloop_io::TcpStream>().is_send());
    assert!(!probe::<oneloop_io::TcpListener>().is_send());
}
