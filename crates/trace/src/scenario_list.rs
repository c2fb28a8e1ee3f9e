//! The list of scenarios: what each is called, what its figure says, how it runs.

use crate::node;
use crate::scenarios::{
    fifty_blocking, fifty_sleeping, gather_sleeps, gather_three_children, pulse_blocking,
    pulse_sleeping, taking_turns, ticker_blocked, ticker_offloaded, two_sockets,
};
use crate::scenarios_cancel::{cancel_sleeping_task, taskgroup_one_fails};
use crate::scenarios_capstone::{capstone_expiry, capstone_pipeline};
use crate::scenarios_shared::{lock_handoff, lost_update};
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
        name: "gather_three_children",
        title: "gather of three children that each yield once",
        about: "virtual time; the children take two steps each, then main resumes",
        reproducible: true,
        durations: true,
        kind: Kind::Loop(gather_three_children),
        names: &[],
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
        name: "node_iteration",
        title: "the Node-style loop: main script, then its phases",
        about: "stage 8, virtual clock: every callback logs its phase; order only",
        reproducible: true,
        durations: false,
        kind: Kind::Node(node::node_iteration),
        names: &[],
    },
    Scenario {
        name: "phases_quiz",
        title: "chapter 8's first quiz: every phase but the timers",
        about: "stage 8, virtual clock: each line placed in the phase that printed it; order only",
        reproducible: true,
        durations: false,
        kind: Kind::Node(node::phases_quiz),
        names: &[],
    },
    Scenario {
        name: "async_quiz",
        title: "chapter 8's second quiz: promises and async functions",
        about: "stage 8, virtual clock: each line placed in the phase that printed it; order only",
        reproducible: true,
        durations: false,
        kind: Kind::Node(node::async_quiz),
        names: &[],
    },
    // Stage 9: cancellation, on oneloop-cancel.
    Scenario {
        name: "taskgroup_one_fails",
        title: "a task group whose child fails at 0.1 s",
        about: "virtual time; the group cancels the sibling and its body, waits, then fails",
        reproducible: true,
        durations: true,
        kind: Kind::Loop(taskgroup_one_fails),
        names: &[],
    },
    Scenario {
        name: "cancel_sleeping_task",
        title: "a sleeping task cancelled: the request delivered at its await",
        about: "virtual time; the sleeper's cleanup sleeps 0.1 s, then it ends cancelled",
        reproducible: true,
        durations: true,
        kind: Kind::Loop(cancel_sleeping_task),
        names: &[],
    },
    // Stage 10: shared state, on oneloop-shared.
    Scenario {
        name: "lost_update",
        title: "two workers, a shared counter, no lock",
        about: "virtual time; both read, yield and write back: three of six increments are lost",
        reproducible: true,
        durations: true,
        kind: Kind::Loop(lost_update),
        names: &[],
    },
    Scenario {
        name: "lock_handoff",
        title: "a lock handed to three waiters, first in, first out",
        about: "virtual time; each release wakes the oldest waiter, which runs in the next turn",
        reproducible: true,
        durations: true,
        kind: Kind::Loop(lock_handoff),
        names: &[],
    },
    // The capstone: its server code, on the loop.
    Scenario {
        name: "capstone_pipeline",
        title: "a pipelined request: three commands in one read, three replies",
        about: "real sockets on 127.0.0.1, real clock: order only; the client wrote PING, SET and GET at once",
        reproducible: true,
        durations: false,
        kind: Kind::Loop(capstone_pipeline),
        names: &[("task 3.0", "serve's task"), ("task 4.0", "writer")],
    },
    Scenario {
        name: "capstone_expiry",
        title: "a key with 100 ms to live: its timer fires on the heap",
        about: "virtual time; SET session abc PX 100, a GET at 50 ms, a GET at 150 ms",
        reproducible: true,
        durations: true,
        kind: Kind::Loop(capstone_expiry),
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
