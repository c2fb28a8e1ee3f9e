//! What may cross threads, proved by the compiler.
//!
//! The book states which of oneloop's types are `Send` or `Sync`. The positive facts
//! are static assertions in the workspace suite `tests/send_sync.rs`; each negative
//! fact is a doctest here that must fail to compile, so a change that made one of
//! these types `Send` would fail the tests. (The sockets of stage 6 carry their own,
//! in the docs of `TcpStream` and `TcpListener`.) The suite also checks each type
//! below with a probe that answers `false`, so a snippet cannot fail for a misspelt
//! name alone.
//!
//! A loop (stage 4) is full of `Rc` and `RefCell`: it stays on its thread.
//!
//! ```compile_fail,E0277
//! fn send<T: Send>() {}
//! send::<oneloop_core::EventLoop>();
//! ```
//!
//! Nor can its core move, or be shared.
//!
//! ```compile_fail,E0277
//! fn send<T: Send>() {}
//! send::<oneloop_core::Core>();
//! ```
//!
//! ```compile_fail,E0277
//! fn sync<T: Sync>() {}
//! sync::<oneloop_core::Core>();
//! ```
//!
//! A join handle shares its result cell with the task by `Rc`.
//!
//! ```compile_fail,E0277
//! fn send<T: Send>() {}
//! send::<oneloop_core::JoinHandle<u32>>();
//! ```
//!
//! The whole stack of stage 7 is no more `Send` than stage 4's loop: a thread gets a
//! [`LoopHandle`](crate::LoopHandle) instead.
//!
//! ```compile_fail,E0277
//! fn send<T: Send>() {}
//! send::<oneloop::OffloadLoop>();
//! ```
