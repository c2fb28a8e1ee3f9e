//! A session: a loop with a main task and a recorder, driven one turn at a time.
//!
//! The figures and the stepper run the same scenarios. Both need to drive the loop
//! turn by turn (the stepper stops between turns), so a scenario does not call
//! `run_until_complete`: it builds a loop, spawns its main task, and hands back a
//! [`Session`], whose [`run_once`](Session::run_once) is one turn. Like
//! `run_until_complete`, a session is over as soon as a turn leaves the main task
//! finished.

use std::cell::Cell;
use std::fmt;
use std::future::Future;
use std::rc::Rc;

use oneloop_core::hooks::{Snapshot, with_current};
use oneloop_core::{Driver, EventLoop, JoinHandle, LoopError};

use crate::Recorder;

/// At most this many turns: a scenario that runs longer is a bug, not a figure.
pub const MAX_TURNS: u64 = 10_000;

// ANCHOR: session
/// A loop being driven one turn at a time, with a recorder on it.
pub trait Session {
    /// Runs one turn of the loop.
    fn run_once(&mut self) -> Result<(), LoopError>;
    /// What the loop holds now: ready labels, timer heap head, registrations.
    fn snapshot(&self) -> Snapshot;
    /// Whether the main task has finished.
    fn finished(&self) -> bool;
    /// The recorder attached to the loop.
    fn recorder(&self) -> &Rc<Recorder>;
}
// ANCHOR_END: session

/// The one implementation: any loop, its recorder, and the main task's done flag.
struct LoopSession<D: Driver> {
    event_loop: EventLoop<D>,
    recorder: Rc<Recorder>,
    done: Rc<Cell<bool>>,
}

impl<D: Driver> Session for LoopSession<D> {
    fn run_once(&mut self) -> Result<(), LoopError> {
        self.event_loop.run_once()
    }

    fn snapshot(&self) -> Snapshot {
        self.event_loop.snapshot()
    }

    fn finished(&self) -> bool {
        self.done.get()
    }

    fn recorder(&self) -> &Rc<Recorder> {
        &self.recorder
    }
}

impl fmt::Debug for dyn Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field("recorder", self.recorder())
            .field("finished", &self.finished())
            .finish()
    }
}

/// Attaches a recorder to `event_loop` and spawns `main` as the task `"main"`.
pub fn start<D: Driver>(
    event_loop: EventLoop<D>,
    main: impl Future<Output = ()> + 'static,
) -> Box<dyn Session> {
    let recorder = Recorder::attach(&event_loop);
    let done = Rc::new(Cell::new(false));
    let flag = Rc::clone(&done);
    // The handle is not needed: the flag says when main is over, and dropping a
    // join handle does not cancel its task.
    drop(event_loop.spawn_named("main", async move {
        main.await;
        flag.set(true);
    }));
    Box::new(LoopSession {
        event_loop,
        recorder,
        done,
    })
}

/// Runs turns until the main task finishes (or [`MAX_TURNS`] pass).
pub fn run_to_end(session: &mut dyn Session) -> Result<(), String> {
    for _ in 0..MAX_TURNS {
        if session.finished() {
            return Ok(());
        }
        session
            .run_once()
            .map_err(|error| format!("the loop stopped: {error}"))?;
    }
    Err(format!(
        "the main task was not done after {MAX_TURNS} turns"
    ))
}

/// Spawns a named task on the running loop (the free `spawn` names none).
///
/// # Panics
///
/// When no loop is running on this thread.
pub fn spawn_named<F: Future + 'static>(label: &'static str, future: F) -> JoinHandle<F::Output> {
    with_current(|core| core.spawn_named(label, future))
        .expect("spawn_named needs a running loop on this thread")
}
