//! Instruments the stage 4 tests share: a turn trace, a one-shot, small futures.
#![allow(dead_code, unused_imports)]

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use ex04_core::{Driver, EventLoop, ExceptionReport, Label, LoopError, Observer, ParkReport};

/// Records every handle the loop runs, with its turn, through the observer hook.
#[derive(Debug, Default)]
pub struct Trace {
    pub handles: RefCell<Vec<(u64, String)>>,
    pub turns_started: Cell<u64>,
    pub turns_ended: Cell<u64>,
    pub parks: RefCell<Vec<ParkReport>>,
    /// Each ended turn's batch: how many handles its `ntodo` snapshot held.
    pub batches: RefCell<Vec<usize>>,
}

impl Observer for Trace {
    fn turn_started(&self, _turn: u64) {
        self.turns_started.set(self.turns_started.get() + 1);
    }
    fn handle_ran(&self, turn: u64, label: &Label, _elapsed: Duration) {
        self.handles.borrow_mut().push((turn, label.to_string()));
    }
    fn turn_ended(&self, _turn: u64, park: &ParkReport, handles: usize) {
        self.turns_ended.set(self.turns_ended.get() + 1);
        self.parks.borrow_mut().push(*park);
        self.batches.borrow_mut().push(handles);
    }
}

impl Trace {
    /// Installs a trace on `event_loop`.
    pub fn on<D: ex04_core::Driver>(event_loop: &EventLoop<D>) -> Rc<Trace> {
        let trace = Rc::new(Trace::default());
        event_loop.add_observer(trace.clone());
        trace
    }

    /// The labels of the handles run in `turn`, in order.
    pub fn turn(&self, turn: u64) -> Vec<String> {
        self.handles
            .borrow()
            .iter()
            .filter(|(t, _)| *t == turn)
            .map(|(_, label)| label.clone())
            .collect()
    }

    /// The turns in which a handle labelled `label` ran.
    pub fn turns_of(&self, label: &str) -> Vec<u64> {
        self.handles
            .borrow()
            .iter()
            .filter(|(_, l)| l == label)
            .map(|(t, _)| *t)
            .collect()
    }
}

/// A shared log of strings.
pub fn log() -> Rc<RefCell<Vec<String>>> {
    Rc::new(RefCell::new(Vec::new()))
}

/// An exception handler that keeps every report.
pub fn record_reports(core: &ex04_core::Core) -> Rc<RefCell<Vec<ExceptionReport>>> {
    let reports = Rc::new(RefCell::new(Vec::new()));
    let sink = Rc::clone(&reports);
    core.set_exception_handler(move |report| sink.borrow_mut().push(report.clone()));
    reports
}

/// A value set once by a callback and awaited by a task (a tiny `asyncio.Future`).
#[derive(Debug)]
pub struct Oneshot<T> {
    state: Rc<RefCell<(Option<T>, Option<Waker>)>>,
}

impl<T> Clone for Oneshot<T> {
    fn clone(&self) -> Self {
        Self {
            state: Rc::clone(&self.state),
        }
    }
}

impl<T> Oneshot<T> {
    pub fn new() -> Self {
        Self {
            state: Rc::new(RefCell::new((None, None))),
        }
    }

    /// Sets the value and wakes the waiter (asyncio's `set_result`).
    pub fn set(&self, value: T) {
        let waker = {
            let mut state = self.state.borrow_mut();
            state.0 = Some(value);
            state.1.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl<T> Future for Oneshot<T> {
    type Output = T;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let mut state = self.state.borrow_mut();
        match state.0.take() {
            Some(value) => Poll::Ready(value),
            None => {
                state.1 = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

/// A bare yield: stage 1's `yield_now`, which this crate re-exports (asyncio's
/// `sleep(0)`): it wakes its waker and returns `Pending` once.
pub use ex04_core::yield_now as yield_once;

/// Spawns `future` as the task `main` and runs turns until it has finished, then
/// returns its result: `run_until_complete` without the stop callback's turn. The
/// tests of exercises 1 to 3 drive their main task with this, so that they do not
/// depend on exercise 4; the loop's turn counter then stops at main's last turn.
pub fn until_done<D: Driver, F: Future + 'static>(
    event_loop: &mut EventLoop<D>,
    future: F,
) -> Result<F::Output, LoopError> {
    let main = event_loop.spawn_named("main", future);
    loop {
        event_loop.run_once()?;
        if let Some(result) = main.try_take() {
            return result.map_err(LoopError::MainFailed);
        }
    }
}

/// Keeps its task's latest waker where a test can reach it; ready once `open` is set.
#[derive(Debug, Clone, Default)]
pub struct Gate {
    pub waker: Rc<RefCell<Option<Waker>>>,
    pub open: Rc<Cell<bool>>,
}

impl Future for Gate {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        *self.waker.borrow_mut() = Some(cx.waker().clone());
        if self.open.get() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

impl Gate {
    pub fn wake(&self) {
        self.waker
            .borrow()
            .as_ref()
            .expect("polled once")
            .wake_by_ref();
    }
}

/// Wakes itself and returns `Pending`, for ever, counting its polls.
#[derive(Debug)]
pub struct Spinner(pub Rc<Cell<usize>>);

impl Future for Spinner {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.0.set(self.0.get() + 1);
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}
