//! Seeing the loop: record what it does, turn by turn, and draw it.
//!
//! The stages build the loop; this crate watches it. It adds nothing to the loop
//! itself: stage 4 already tells its observers when each turn starts and ends (with
//! the driver's `ParkReport`: the timeout asked for, how long it parked, how many I/O
//! events and due timers it queued) and around every handle it runs. A [`Recorder`]
//! is such an observer. It writes down every turn and every handle, timed on the
//! loop's own clock when the loop has one, so that in virtual time a figure is exact.
//!
//! From a recording, [`chrome_json`] writes the Chrome trace-event format that
//! Perfetto (`ui.perfetto.dev`) and `chrome://tracing` open, and [`render_svg`] draws
//! a timeline: one column per turn, one lane per task, parking apart from running, and
//! handles that blocked the loop marked. The [`scenarios()`] are the programs the book
//! draws; [`figures()`] records and draws them all, and [`step`] walks one of them a
//! turn at a time, showing the ready queue, the timer heap and the selector's
//! registrations between turns. [`record`] drives a scenario the same way and keeps
//! those snapshots with the trace: a [`Recording`], the data of the book's browser
//! stepper (its JSON schema is documented in [`recording`]). Where a scenario is also a
//! truth scenario, [`cpython`] runs the same program on CPython 3.11 and keeps its turns
//! beside oneloop's, matched turn by turn.
//!
//! asyncio has pieces of this: debug mode's slow-callback warnings, `repr` of handles,
//! and third-party tracers. Here it is one hook, and recording costs nothing when it is
//! off, because a loop with no observer does not read the clock around a handle.
//!
//! ```
//! use std::time::Duration;
//! use oneloop_core::gather;
//! use oneloop_timers::{sleep, virtual_time_loop};
//! use oneloop_trace::{Recorder, SvgOptions, chrome_json, render_svg};
//!
//! let mut event_loop = virtual_time_loop();
//! let recorder = Recorder::attach(&event_loop);
//! event_loop
//!     .run_until_complete(async {
//!         let naps = [30, 10].map(|ms| sleep(Duration::from_millis(ms)));
//!         gather(naps).await.expect("no sleep panics");
//!     })
//!     .expect("main finishes");
//! let trace = recorder.trace();
//! assert_eq!(trace.end(), Duration::from_millis(30));
//! let json = chrome_json(&trace, "two sleeps");
//! assert!(json.starts_with('{'));
//! let svg = render_svg(&trace, &SvgOptions::timeline("two sleeps", "virtual time"));
//! assert!(svg.starts_with("<svg"));
//! ```
#![forbid(unsafe_code)]

mod chrome;
pub mod cpython;
mod diagram_svg;
pub mod diagrams;
mod figures;
mod layout;
mod model;
pub mod node;
mod recorder;
pub mod recording;
mod scenario_list;
pub mod scenarios;
pub mod scenarios_cancel;
pub mod scenarios_capstone;
pub mod scenarios_shared;
mod session;
mod stepper;
mod svg;
mod svg_compare;
mod svg_marks;
mod svg_text;

pub use chrome::{FIRST_TASK_TID, PARKED_TID, TURNS_TID, chrome_json, json_string, micros};
pub use cpython::{CpythonRun, cpython_turns};
pub use diagrams::{Diagram, diagrams};
pub use figures::{Figure, figure, figures, write_figures};
pub use layout::WIDTH;
pub use model::{Lane, LaneInfo, Span, TimeBase, Trace, Turn};
pub use recorder::Recorder;
pub use recording::{
    FigureColumns, Held, RECORDING_SCHEMA, RECORDINGS_GLOBAL, Recording, record, recording_json,
    recordings, write_recordings,
};
pub use scenario_list::{Kind, Scenario, scenario, scenario_names, scenarios};
pub use session::{MAX_TURNS, Session, run_to_end, spawn_named, start};
pub use stepper::{Pace, step};
pub use svg::{Bottom, CALLBACK_COLOUR, PALETTE, SvgOptions, render_svg};
pub use svg_compare::render_comparison;
pub use svg_text::{escape, human};
