//! The list of scenarios: what each is called, what its figure says, how it runs.

use crate::node;
use crate::scenarios::{
    fifty_blocking, fifty_sleeping, gather_sleeps, pulse_blocking, pulse_sleeping, taking_turns,
    taskgroup_one_fails, ticker_blocked, ticker_offloaded, two_sockets,
};
use crate::{Session, Trace};
use std::io;

/// How a scenario runs.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// An asyncio-style loop, driven turn by turn.
    Loop(fn() -> io::Result<Box<dyn Session>>),
    /// Stage 8's Node-style loop, which runs to the end in one call.
    Node(fn() -> Result<node::NodeRun, String>),
}

/// One scenario: a name, what it shows, and how to run it.
#[derive(Debug, Clone, Copy)]
pub struct Scenario {
    /// The name (also the figure's file name, without extension).
    pub name: &'static str,
    /// The figure's heading.
    pub title: &'static str,
    /// One line: what it runs and on which clock.
    pub about: &'static str,
    /// Whether the figure is the same bytes on every run (virtual time, or order only).
    pub reproducible: bool,
    /// Whether the figure draws durations (false: order only).
    pub durations: bool,
    /// How it runs.
    pub kind: Kind,
    /// Names for task lanes: `(default label, name)`.
    pub names: &'static [(&'static str, &'static str)],
}

const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "gather_sleeps",
        title: "gather of three sleeps: 0.3, 0.1 and 0.2 s",
        about: "virtual time; each child parks on its own timer, the loop waits between deadlines",
        reproducible: true,
        durations: true,
        kind: Kind::Loop(gather_sleeps),
        names: &[
            ("task 1.0", "sleep 0.3 s"),
            ("task 2.0", "sleep 0.1 s"),
            ("task 3.0", "sleep 0.2 s"),
        ],
    },
    Scenario {
        name: "ticker_blocked",
        title: "a started ticker (every 0.1 s) and a 0.35 s block on the loop thread",
        about: "virtual time; block_for stands in for a blocking call inside main",
        reproducible: true,
        durations: true,
        kind: Kind::Loop(ticker_blocked),
        names: &[],
    },
    Scenario {
        name: "ticker_offloaded",
        title: "a started ticker (every 0.1 s) and a 0.35 s call moved to a thread",
        about: "real clock, one sample run (not reproducible); to_thread runs the call on a worker",
        reproducible: false,
        durations: true,
        kind: Kind::Loop(ticker_offloaded),
        names: &[],
    },
    Scenario {
        name: "pulse_blocking",
        title: "the pulse (10 ms ticks) beside ten 100 ms blocking chunks",
        about: "virtual time; the worker blocks in each chunk, then yields",
        reproducible: true,
        durations: true,
        kind: Kind::Loop(pulse_blocking),
        names: &[],
    },
    Scenario {
        name: "pulse_sleeping",
        title: "the pulse (10 ms ticks) beside ten 100 ms sleeping chunks",
        about: "virtual time; the worker sleeps in each chunk, then yields",
        reproducible: true,
        durations: true,
        kind: Kind::Loop(pulse_sleeping),
        names: &[],
    },
    Scenario {
        name: "fifty_blocking",
        title: "fifty tasks, each blocking the loop for 100 ms",
        about: "virtual time; gather of fifty tasks that call block_for(100 ms)",
        reproducible: true,
        durations: true,
        kind: Kind::Loop(fifty_blocking),
        names: &[],
    },
    Scenario {
        name: "fifty_sleeping",
        title: "fifty tasks, each sleeping 100 ms",
        about: "virtual time; gather of fifty tasks that await sleep(100 ms)",
        reproducible: true,
        durations: true,
        kind: Kind::Loop(fifty_sleeping),
        names: &[],
    },
    Scenario {
        name: "taking_turns",
        title: "two tasks taking turns with yield_now",
        about: "virtual time; a and b each yield three times, main awaits both",
        reproducible: true,
        durations: true,
        kind: Kind::Loop(taking_turns),
        names: &[],
    },
    Scenario {
        name: "two_sockets",
        title: "two sockets served in arrival order",
        about: "real sockets on 127.0.0.1, real clock: order only; b's data arrives first",
        reproducible: true,
        durations: false,
        kind: Kind::Loop(two_sockets),
        names: &[],
    },
    Scenario {
        name: "taskgroup_one_fails",
        title: "a task group whose child fails: the others are cancelled, then awaited",
        about: "stage 9, virtual time; bad fails at 0.1 s, a sleeps 0.5 s, the body 100 s",
        reproducible: true,
        durations: true,
        kind: Kind::Loop(taskgroup_one_fails),
        names: &[],
    },
    Scenario {
        name: "node_iteration",
        title: "the Node-style loop: main script, then its phases",
        about: "stage 8, virtual clock: every callback logs its phase; order only",
        reproducible: true,
        durations: false,
        kind: Kind::Node(node::node_iteration),
        names: &[],
    },
];

/// Every scenario, in the book's order.
pub fn scenarios() -> &'static [Scenario] {
    SCENARIOS
}

/// The scenario called `name`.
pub fn scenario(name: &str) -> Option<&'static Scenario> {
    SCENARIOS.iter().find(|scenario| scenario.name == name)
}

/// The names of every scenario, comma-separated (for error messages).
pub fn scenario_names() -> String {
    SCENARIOS
        .iter()
        .map(|scenario| scenario.name)
        .collect::<Vec<_>>()
        .join(", ")
}

impl Scenario {
    /// Runs the scenario to the end and returns its recording, lanes named.
    pub fn record(&self) -> Result<Trace, String> {
        let mut trace = match self.kind {
            Kind::Loop(begin) => {
                let mut session = begin().map_err(|e| format!("{}: {e}", self.name))?;
                crate::run_to_end(&mut *session).map_err(|e| format!("{}: {e}", self.name))?;
                session.recorder().trace()
            }
            Kind::Node(run) => run().map_err(|e| format!("{}: {e}", self.name))?.trace,
        };
        self.name_lanes(&mut trace);
        Ok(trace)
    }

    /// Names the task lanes of `trace` as this scenario's figure names them.
    pub fn name_lanes(&self, trace: &mut Trace) {
        for (label, name) in self.names {
            let task = trace.spans().find_map(|(_, span)| match &span.lane {
                crate::Lane::Task(id) if span.label == *label => Some(*id),
                _ => None,
            });
            if let Some(task) = task {
                trace.name_task(task, *name);
            }
        }
    }
}
