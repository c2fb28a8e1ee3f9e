//! What the poll phase needs to know to choose its timeout.

/// The facts libuv's `uv__backend_timeout` reads, gathered by the loop just before the
/// poll phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PollFacts {
    /// The loop was asked to stop (`uv_stop`).
    pub stopping: bool,
    /// Something that can produce an event is alive: an armed timer, an I/O watch, a
    /// pending request (libuv: active handles or active requests).
    pub alive: bool,
    /// Callbacks wait in the pending queue.
    pub pending: bool,
    /// Immediates are queued. Node keeps an idle handle running exactly while this is
    /// true, and libuv never sleeps while an idle handle runs.
    pub immediates: bool,
    /// Close callbacks wait for the close phase.
    pub closing: bool,
    /// The earliest timer's deadline, in loop milliseconds.
    pub next_timer: Option<u64>,
    /// The loop's cached time, in milliseconds.
    pub now: u64,
}

/// How long the poll phase may block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PollTimeout {
    /// At most this many milliseconds (0: only look, never block).
    Millis(u64),
    /// Until an I/O event comes (libuv's `-1`).
    Forever,
}
