//! What a recording holds: turns, what each parked, and the handles each ran.
//!
//! The model is plain data with no reference to a loop, so a trace outlives the run
//! that made it and every exporter (JSON, SVG, the stepper) reads the same thing.
//! Everything is kept in the order it happened: lanes are listed by first appearance,
//! never by a hash map's order, so two recordings of the same virtual-time run are
//! equal and draw the same bytes.

use std::time::Duration;

use oneloop_core::TaskId;

// ANCHOR: model
/// The row a handle is drawn in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lane {
    /// A callback that belongs to no task (`call_soon`, a timer, an I/O reader).
    Callbacks,
    /// The steps of one task.
    Task(TaskId),
    /// A row a non-asyncio recording names itself (Node's nextTick and microtasks).
    Named(String),
}

/// One handle the loop ran: what it was called, whose it was, when it ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    /// The handle's label (a task's name, `"sleep"`, `"reader fd 7"`, ...).
    pub label: String,
    /// The row it belongs to.
    pub lane: Lane,
    /// asyncio's class name for it: `"Task"`, `"Handle"`, `"TimerHandle"`.
    pub kind: &'static str,
    /// When it started, on the recording's clock.
    pub start: Duration,
    /// When it returned.
    pub end: Duration,
}

/// One turn of the loop (or, for a Node recording, one phase of an iteration).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    /// The turn's number (from 1), as the loop counts it.
    pub number: u64,
    /// The column's heading: the turn number, or a phase's name.
    pub title: String,
    /// When the turn began, on the recording's clock.
    pub start: Duration,
    /// The timeout the loop asked the driver for (`None`: wait for an event).
    pub timeout: Option<Duration>,
    /// How long the driver parked.
    pub parked: Duration,
    /// I/O events the driver turned into handles.
    pub io_events: usize,
    /// Timers the driver moved to the ready queue.
    pub timers_moved: usize,
    /// The handles run in this turn, in order.
    pub handles: Vec<Span>,
    /// When the turn ended.
    pub end: Duration,
}

/// Which clock the times come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeBase {
    /// The loop's virtual clock: exact, the same on every machine.
    Virtual,
    /// A real clock: measured, different on every run.
    Real,
}

/// A whole recording.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trace {
    /// Where the times come from.
    pub time_base: TimeBase,
    /// Every finished turn, in order.
    pub turns: Vec<Turn>,
    /// Names given to task lanes (by default a lane is named by its first label).
    pub names: Vec<(TaskId, String)>,
}
// ANCHOR_END: model

/// A lane as the exporters show it: its key and its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaneInfo {
    /// The lane.
    pub lane: Lane,
    /// What it is called on the page.
    pub name: String,
}

impl Span {
    /// How long the handle ran.
    pub fn duration(&self) -> Duration {
        self.end.saturating_sub(self.start)
    }
}

impl Turn {
    /// When the driver stopped parking and the run phase began.
    pub fn park_end(&self) -> Duration {
        self.start + self.parked
    }
}

impl Trace {
    /// An empty recording.
    pub fn new(time_base: TimeBase) -> Self {
        Self {
            time_base,
            turns: Vec::new(),
            names: Vec::new(),
        }
    }

    /// Names the lane of `task` (instead of its first label).
    pub fn name_task(&mut self, task: TaskId, name: impl Into<String>) {
        self.names.retain(|(id, _)| *id != task);
        self.names.push((task, name.into()));
    }

    /// Every lane a handle ran in: callbacks first, then the other lanes in the order
    /// they first ran.
    pub fn lanes(&self) -> Vec<LaneInfo> {
        let mut lanes: Vec<LaneInfo> = Vec::new();
        let spans = self.turns.iter().flat_map(|turn| turn.handles.iter());
        let has_callbacks = spans.clone().any(|span| span.lane == Lane::Callbacks);
        if has_callbacks {
            lanes.push(LaneInfo {
                lane: Lane::Callbacks,
                name: "callbacks".to_string(),
            });
        }
        for span in spans {
            if lanes.iter().any(|known| known.lane == span.lane) {
                continue;
            }
            let name = match &span.lane {
                Lane::Callbacks => continue,
                Lane::Task(id) => self
                    .names
                    .iter()
                    .find(|(named, _)| named == id)
                    .map_or_else(|| span.label.clone(), |(_, name)| name.clone()),
                Lane::Named(name) => name.clone(),
            };
            lanes.push(LaneInfo {
                lane: span.lane.clone(),
                name,
            });
        }
        lanes
    }

    /// Every handle, in the order it ran, with its turn.
    pub fn spans(&self) -> impl Iterator<Item = (&Turn, &Span)> {
        self.turns
            .iter()
            .flat_map(|turn| turn.handles.iter().map(move |span| (turn, span)))
    }

    /// The labels run in turn `number`, in order.
    pub fn ran_in(&self, number: u64) -> Vec<&str> {
        self.turns
            .iter()
            .filter(|turn| turn.number == number)
            .flat_map(|turn| turn.handles.iter().map(|span| span.label.as_str()))
            .collect()
    }

    /// When the last turn ended.
    pub fn end(&self) -> Duration {
        self.turns.last().map_or(Duration::ZERO, |turn| turn.end)
    }
}
