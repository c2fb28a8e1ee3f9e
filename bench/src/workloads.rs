//! The table of workloads: what each row measures, its unit, and who runs it.
//!
//! To add a row, add an entry to [`WORKLOADS`] and an arm for it in each contender's
//! `run` (see `main.rs`'s `run_one`). A row may name its own contenders (a server
//! benchmark compares servers, not executors).

/// How a row's figures are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// CPU and wall time per operation.
    Time,
    /// Heap bytes per item; the wall column is not shown.
    Bytes,
}

/// One row of the table.
#[derive(Debug)]
pub struct Workload {
    /// The name on the command line and in `RESULT` lines.
    pub id: &'static str,
    /// What the row says in the table.
    pub title: &'static str,
    /// The unit of both figures.
    pub unit: &'static str,
    /// Time or bytes.
    pub kind: Kind,
    /// Who runs it; the first is the one the ratio is about, the others its peers.
    pub contenders: &'static [&'static str],
}

/// The executors compared by the runtime rows.
pub const RUNTIMES: &[&str] = &["oneloop", "tokio", "smol"];

/// The uvloop version the runner installs in its virtualenv, pinned. With
/// `--with-scripts` the runtime rows also run on CPython's asyncio, on uvloop and on
/// Node.js: the same workloads at the same sizes (`bench/python/workloads.py`,
/// `bench/node/workloads.js`), each printing the same `RESULT` line. The ratios stay
/// oneloop's against the best of the Rust peers.
pub const UVLOOP_VERSION: &str = "0.23.0";

/// Sizes, the same for every runtime.
pub const SPAWN_TASKS: u64 = 100_000;
/// Two tasks yield this many times in all.
pub const YIELDS: u64 = 1_000_000;
/// The wake chain: a ring of this many tasks…
pub const CHAIN_TASKS: usize = 20;
/// …passes a token around this many times.
pub const CHAIN_ROUNDS: usize = 10_000;
/// Timers, with deadlines spread over [0, `TIMER_SPAN_US`) µs.
pub const TIMERS: u64 = 100_000;
/// See [`TIMERS`].
pub const TIMER_SPAN_US: u64 = 100_000;
/// TCP echo: connections, round trips each, bytes per message.
pub const ECHO_CONNS: usize = 50;
/// See [`ECHO_CONNS`].
pub const ECHO_TRIPS: usize = 2000;
/// See [`ECHO_CONNS`].
pub const ECHO_BYTES: usize = 64;
/// Idle: one sleep of this many ms.
pub const IDLE_MS: u64 = 1000;
/// Memory rows: this many tasks.
pub const MEM_TASKS: usize = 10_000;

/// The deadline of timer `i`, in µs: a fixed spread, the same in every runtime.
pub fn timer_delay_us(i: u64) -> u64 {
    (i * 7919) % TIMER_SPAN_US
}

/// Every row, in the order of the table.
pub const WORKLOADS: &[Workload] = &[
    Workload {
        id: "spawn_join",
        title: "spawn + join 100k",
        unit: "ns/task",
        kind: Kind::Time,
        contenders: RUNTIMES,
    },
    Workload {
        id: "yield",
        title: "yield ping-pong 1M",
        unit: "ns/yield",
        kind: Kind::Time,
        contenders: RUNTIMES,
    },
    Workload {
        id: "wake_chain",
        title: "wake chain 10k × 20 (oneshots)",
        unit: "ns/hop",
        kind: Kind::Time,
        contenders: RUNTIMES,
    },
    Workload {
        id: "timers",
        title: "100k timers in [0, 100 ms)",
        unit: "ms in all",
        kind: Kind::Time,
        contenders: RUNTIMES,
    },
    Workload {
        id: "tcp_echo",
        title: "TCP echo 50 × 2000 × 64 B",
        unit: "µs/trip",
        kind: Kind::Time,
        contenders: RUNTIMES,
    },
    Workload {
        id: "idle",
        title: "idle 1 s",
        unit: "ms in all",
        kind: Kind::Time,
        contenders: RUNTIMES,
    },
    Workload {
        id: "mem_pending",
        title: "bytes per pending task",
        unit: "bytes",
        kind: Kind::Bytes,
        contenders: RUNTIMES,
    },
    Workload {
        id: "mem_sleeping",
        title: "bytes per sleeping task",
        unit: "bytes",
        kind: Kind::Bytes,
        contenders: RUNTIMES,
    },
];
