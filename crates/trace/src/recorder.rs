//! The recorder: an [`Observer`] that writes down every turn and every handle.
//!
//! Stage 4's loop tells its observers when a turn starts and ends (with the driver's
//! [`ParkReport`]) and around every handle it runs. The recorder keeps that, with
//! times read from the loop's own clock when the loop has a timer layer: in virtual
//! time a `block_for(350 ms)` inside a handle then makes that handle exactly 350 ms
//! long, and a park that jumps to a deadline lasts exactly as long as the jump. With
//! no timer layer it falls back to a real clock started with the recorder.
//!
//! Recording costs nothing when it is off, because it *is* only an observer: a loop
//! with no observer does not even read the clock around a handle.

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;
use std::time::{Duration, Instant};

use oneloop_core::hooks::{Callback, Handle};
use oneloop_core::{Driver, EventLoop, Label, Observer, ParkReport};
use oneloop_timers::Timers;

use crate::{Lane, Span, TimeBase, Trace, Turn};

/// Where the recorder reads the time.
enum Source {
    /// The loop's clock (virtual or real), through its timer layer.
    Loop(Rc<Timers>),
    /// A real clock of the recorder's own.
    Wall(Instant),
}

// ANCHOR: recorder
/// Records turns and handles as they happen. Add it with [`Recorder::attach`].
pub struct Recorder {
    source: Source,
    state: RefCell<State>,
}

#[derive(Default)]
struct State {
    finished: Vec<Turn>,
    /// The turn running now: its number and start.
    current: Option<(u64, Duration)>,
    /// The handles run so far in the current turn.
    handles: Vec<Span>,
    /// The handle running now: its lane, kind and start.
    running: Option<(Lane, &'static str, Duration)>,
}

impl Observer for Recorder {
    fn turn_started(&self, turn: u64) {
        let now = self.now();
        let mut state = self.state.borrow_mut();
        state.current = Some((turn, now));
        state.handles.clear();
    }

    fn handle_started(&self, _turn: u64, handle: &Handle) {
        let lane = match handle.callback() {
            Callback::Step(id) => Lane::Task(*id),
            Callback::Once(_) | Callback::Shared(_) | Callback::SelfCancelling(_) => {
                Lane::Callbacks
            }
        };
        let start = self.now();
        self.state.borrow_mut().running = Some((lane, handle.kind(), start));
    }

    fn handle_ran(&self, _turn: u64, label: &Label, _elapsed: Duration) {
        let end = self.now();
        let mut state = self.state.borrow_mut();
        if let Some((lane, kind, start)) = state.running.take() {
            state.handles.push(Span {
                label: label.to_string(),
                lane,
                kind,
                start,
                end,
            });
        }
    }

    fn turn_ended(&self, turn: u64, park: &ParkReport, _handles: usize) {
        let end = self.now();
        let mut state = self.state.borrow_mut();
        let Some((number, start)) = state.current.take() else {
            return;
        };
        debug_assert_eq!(number, turn, "turns end in the order they start");
        let handles = std::mem::take(&mut state.handles);
        state.finished.push(Turn {
            number,
            title: number.to_string(),
            start,
            timeout: park.timeout,
            parked: park.parked,
            io_events: park.io_events,
            timers_moved: park.timers_moved,
            handles,
            end,
        });
    }
}
// ANCHOR_END: recorder

impl Recorder {
    /// A recorder timed on the loop's clock (through its timer layer).
    pub fn on_loop_clock(timers: Rc<Timers>) -> Self {
        Self::with_source(Source::Loop(timers))
    }

    /// A recorder timed on a real clock of its own, started now.
    pub fn on_wall_clock() -> Self {
        Self::with_source(Source::Wall(Instant::now()))
    }

    fn with_source(source: Source) -> Self {
        Self {
            source,
            state: RefCell::new(State::default()),
        }
    }

    // ANCHOR: attach
    /// Adds a recorder to `event_loop`: on the loop's clock if it has a timer layer,
    /// else on a real clock. Keep the returned `Rc` to read the recording.
    pub fn attach<D: Driver>(event_loop: &EventLoop<D>) -> Rc<Self> {
        let recorder = match event_loop.extensions().get::<Timers>() {
            Some(timers) => Self::on_loop_clock(timers),
            None => Self::on_wall_clock(),
        };
        let recorder = Rc::new(recorder);
        event_loop.add_observer(Rc::clone(&recorder) as Rc<dyn Observer>);
        recorder
    }
    // ANCHOR_END: attach

    /// The time now on the recorder's clock.
    pub fn now(&self) -> Duration {
        match &self.source {
            Source::Loop(timers) => timers.time(),
            Source::Wall(start) => start.elapsed(),
        }
    }

    /// Whether the times are exact (the loop's virtual clock).
    pub fn time_base(&self) -> TimeBase {
        match &self.source {
            Source::Loop(timers) if timers.clock().is_virtual() => TimeBase::Virtual,
            _ => TimeBase::Real,
        }
    }

    /// How many turns have finished.
    pub fn turns(&self) -> usize {
        self.state.borrow().finished.len()
    }

    /// The last finished turn, if any.
    pub fn last_turn(&self) -> Option<Turn> {
        self.state.borrow().finished.last().cloned()
    }

    /// A copy of everything recorded so far (finished turns only).
    pub fn trace(&self) -> Trace {
        Trace {
            time_base: self.time_base(),
            turns: self.state.borrow().finished.clone(),
            names: Vec::new(),
        }
    }
}

impl fmt::Debug for Recorder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Recorder")
            .field("time_base", &self.time_base())
            .field("turns", &self.turns())
            .finish_non_exhaustive()
    }
}
