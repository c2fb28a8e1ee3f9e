//! What a turn costs, layer by layer; what `run` costs; what an `await` costs.
//!
//! `cargo run --release -p oneloop --example turn_cost`
//!
//! Three measurements, each printed as ns per operation:
//!
//! 1. **A turn of each layer.** One task yields again and again, so each turn runs one
//!    handle and the loop never sleeps. The same program runs on the bare core, then
//!    with timers, with epoll under them, and with the offload layer on top. A second,
//!    counted pass of the same program (a counting clock, an observer that adds up the
//!    `epoll_wait` calls each `ParkReport` gives) prints what each turn did.
//! 2. **`run` in a loop, a loop reused, an await inside.** `oneloop::run` of an empty
//!    main, called again and again (a fresh loop each time, as `asyncio.run` in a loop);
//!    one loop kept and given the same main again and again (asyncio's `Runner`); and
//!    the same `async fn` awaited again and again inside one running loop.
//! 3. **A ready await, and a real suspension.** Three nested ready awaits inside a
//!    running task, against one `yield_now` that goes back to the loop.
//!
//! The test `tests/turn_cost_claims.rs` runs these same functions, smaller, and asserts
//! the counts printed here (turns, clock reads, `epoll_wait` calls, allocations); the
//! timings are samples of one machine.
//!
//! Times are the loop thread's CPU time, read from Linux's
//! `/proc/thread-self/schedstat` (its first field: nanoseconds spent running), so that
//! other processes on a busy machine do not count; where that file cannot be read, wall
//! time stands in, and the output says so.

use std::cell::Cell;
use std::fs::File;
use std::future::ready;
use std::hint::black_box;
use std::io::Read;
use std::rc::Rc;
use std::str;
use std::time::{Duration, Instant};

use oneloop_core::{Driver, EventLoop, Observer, ParkReport, Runner, ThreadParker, yield_now};
use oneloop_io::{IoDriver, TcpListener};
use oneloop_offload::OffloadDriver;
use oneloop_timers::prelude::TimerMethods;
use oneloop_timers::{Clock, CountingClock, RealClock, TimerDriver};

/// This thread's CPU time so far, in ns, if Linux tells it.
///
/// The file is read into a buffer on the stack. The tests that count a turn's
/// allocations run this code too, and reading it into a `String` allocates more often
/// when its figures are longer, as they become on a loaded machine.
fn thread_cpu_ns() -> Option<u64> {
    let mut buffer = [0_u8; 128];
    let read = File::open("/proc/thread-self/schedstat")
        .ok()?
        .read(&mut buffer)
        .ok()?;
    let text = str::from_utf8(&buffer[..read]).ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// A started measurement: the thread's CPU time, or wall time where that is unknown.
struct Stopwatch {
    cpu: Option<u64>,
    wall: Instant,
}

impl Stopwatch {
    fn start() -> Self {
        Self {
            cpu: thread_cpu_ns(),
            wall: Instant::now(),
        }
    }

    /// Nanoseconds since the start, per `ops`.
    fn per(&self, ops: u64) -> f64 {
        let ns = match (self.cpu, thread_cpu_ns()) {
            (Some(start), Some(now)) => now.saturating_sub(start) as f64,
            _ => self.wall.elapsed().as_nanos() as f64,
        };
        ns / ops as f64
    }
}

/// Yields per layer in the timed pass.
const YIELDS: u64 = 1_000_000;
/// Timed passes per layer; the table shows the fastest (the least disturbed).
const PASSES: usize = 3;
/// Calls of `run`, each with a fresh loop.
const RUNS: u64 = 20_000;
/// Calls of a reused loop's `run`.
const REUSED_RUNS: u64 = 1_000_000;
/// Awaits of an `async fn` inside one loop (each is a few ns: many, so that the
/// thread's CPU clock, which may advance only at a scheduler tick, sees them).
const INSIDE_AWAITS: u64 = 50_000_000;
/// Ready await chains and suspensions in the third measurement.
const AWAITS: u64 = 1_000_000;

/// The layers of the driver stack, from the bare core up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layer {
    /// Stage 4 alone: the ready queue, parked by `ThreadParker`.
    Core,
    /// + stage 5's timers, with an empty heap.
    Timers,
    /// + timers, with one timer an hour away in the heap.
    TimersOneTimer,
    /// + stage 6's epoll under the timers, no fd registered.
    Epoll,
    /// + epoll, with one listening socket registered.
    EpollOneFd,
    /// + stage 7's offload layer on top: the whole stack, no fd registered.
    Offload,
}

impl Layer {
    /// Every layer, in the order of the table.
    pub(crate) const ALL: [Layer; 6] = [
        Layer::Core,
        Layer::Timers,
        Layer::TimersOneTimer,
        Layer::Epoll,
        Layer::EpollOneFd,
        Layer::Offload,
    ];

    /// The row's name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Layer::Core => "bare core (stage 4)",
            Layer::Timers => "+ timers, empty heap",
            Layer::TimersOneTimer => "+ timers, one timer pending",
            Layer::Epoll => "+ epoll, no fd registered",
            Layer::EpollOneFd => "+ epoll, one fd registered",
            Layer::Offload => "+ offload (the whole stack)",
        }
    }
}

/// Adds up the `epoll_wait` calls of every park.
#[derive(Default)]
struct Polls(Cell<usize>);

impl Observer for Polls {
    fn turn_ended(&self, _turn: u64, park: &ParkReport, _handles: usize) {
        self.0.set(self.0.get() + park.polls);
    }
}

/// What one run of the yielding task measured.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Figures {
    /// Turns the loop made.
    pub(crate) turns: u64,
    /// Time per turn (a sample).
    pub(crate) ns_per_turn: f64,
    /// Clock reads over the run (counted pass only; zero on the bare core).
    pub(crate) clock_reads: usize,
    /// `epoll_wait` calls over the run (counted pass only).
    pub(crate) polls: usize,
}

/// Counters of the counted pass: the clock's reads and the parks' polls.
struct Counters {
    clock: Rc<CountingClock>,
    polls: Rc<Polls>,
}

/// The clock a layer's timers read: counted, or the plain real clock.
fn clock(counters: Option<&Counters>) -> Rc<dyn Clock> {
    match counters {
        Some(counters) => Rc::clone(&counters.clock) as Rc<dyn Clock>,
        None => Rc::new(RealClock::new()),
    }
}

/// Runs a task that yields `yields` times on `event_loop`; main waits for it.
fn yield_on<D: Driver>(
    mut event_loop: EventLoop<D>,
    yields: u64,
    counters: Option<&Counters>,
) -> Figures {
    if let Some(counters) = counters {
        event_loop
            .core()
            .add_observer(Rc::clone(&counters.polls) as Rc<dyn Observer>);
    }
    let worker = event_loop.spawn(async move {
        for _ in 0..yields {
            yield_now().await;
        }
    });
    let started = Stopwatch::start();
    event_loop
        .run_until_complete(worker)
        .expect("the loop runs")
        .expect("the task does not panic");
    let turns = event_loop.core().turn();
    Figures {
        turns,
        ns_per_turn: started.per(turns),
        clock_reads: counters.map_or(0, |c| c.clock.reads()),
        polls: counters.map_or(0, |c| c.polls.0.get()),
    }
}

/// The yielding task on `layer`; counted if `counted`, timed either way.
pub(crate) fn measure_layer(layer: Layer, yields: u64, counted: bool) -> Figures {
    let counters = counted.then(|| Counters {
        clock: Rc::new(CountingClock::new(RealClock::new())),
        polls: Rc::new(Polls::default()),
    });
    let counters = counters.as_ref();
    match layer {
        Layer::Core => yield_on(EventLoop::new(), yields, counters),
        Layer::Timers => yield_on(
            EventLoop::with_driver(TimerDriver::with_clock(ThreadParker, clock(counters))),
            yields,
            counters,
        ),
        Layer::TimersOneTimer => {
            let event_loop =
                EventLoop::with_driver(TimerDriver::with_clock(ThreadParker, clock(counters)));
            // Far away: every turn must look whether it is due, none finds it so.
            let timer = event_loop
                .core()
                .call_later(Duration::from_secs(3600), || {});
            let figures = yield_on(event_loop, yields, counters);
            drop(timer);
            figures
        }
        Layer::Epoll => yield_on(
            EventLoop::with_driver(TimerDriver::with_clock(
                IoDriver::new().expect("epoll is available"),
                clock(counters),
            )),
            yields,
            counters,
        ),
        Layer::EpollOneFd => {
            let event_loop = EventLoop::with_driver(TimerDriver::with_clock(
                IoDriver::new().expect("epoll is available"),
                clock(counters),
            ));
            let listener = TcpListener::bind("127.0.0.1:0").expect("bind a local port");
            // Waits for a connection that never comes: its fd stays registered.
            drop(event_loop.spawn(async move { listener.accept().await.map(|_| ()) }));
            yield_on(event_loop, yields, counters)
        }
        Layer::Offload => yield_on(
            EventLoop::with_driver(OffloadDriver::new(TimerDriver::with_clock(
                IoDriver::new().expect("epoll is available"),
                clock(counters),
            ))),
            yields,
            counters,
        ),
    }
}

/// The empty main of the run measurements (`async def noop(): pass`).
async fn noop() -> u64 {
    black_box(1)
}

/// ns per call, and turns per call, of `oneloop::run(noop())` called `runs` times:
/// a fresh loop (epoll, eventfd, timers, pool) built and closed each time.
pub(crate) fn fresh_runs(runs: u64) -> (f64, f64) {
    let turns = Rc::new(Cell::new(0));
    let started = Stopwatch::start();
    for _ in 0..runs {
        let seen = Rc::clone(&turns);
        let core = Rc::new(Cell::new(None));
        let keep = Rc::clone(&core);
        let out = oneloop::run_with(
            move |event_loop| keep.set(Some(Rc::clone(event_loop.core()))),
            noop(),
        )
        .expect("the loop runs");
        black_box(out);
        let core = core.take().expect("setup ran");
        seen.set(seen.get() + core.turn());
    }
    (started.per(runs), turns.get() as f64 / runs as f64)
}

/// ns per call, and turns per call, of one runner (the whole stack) given `noop()`
/// `runs` times, then closed once.
pub(crate) fn reused_runner(runs: u64) -> (f64, f64) {
    let mut runner = Runner::with_driver(oneloop_offload::new_driver().expect("epoll and eventfd"));
    let started = Stopwatch::start();
    for _ in 0..runs {
        black_box(runner.run(noop()).expect("the loop runs"));
    }
    let ns = started.per(runs);
    let turns = runner.event_loop().core().turn();
    runner.close();
    (ns, turns as f64 / runs as f64)
}

/// ns per await, and the turns of the whole run, of `noop()` awaited `runs` times
/// inside one `oneloop::run`.
pub(crate) fn inside_one_loop(runs: u64) -> (f64, u64) {
    let core = Rc::new(Cell::new(None));
    let keep = Rc::clone(&core);
    let ns = oneloop::run_with(
        move |event_loop| keep.set(Some(Rc::clone(event_loop.core()))),
        async move {
            let started = Stopwatch::start();
            for _ in 0..runs {
                // A fresh future each time, hidden from the optimiser, then awaited.
                black_box(black_box(noop()).await);
            }
            started.per(runs)
        },
    )
    .expect("the loop runs");
    let turns = core.take().expect("setup ran").turn();
    (ns, turns)
}

async fn level3(x: u64) -> u64 {
    ready(x).await + 1
}

async fn level2(x: u64) -> u64 {
    level3(x).await + 1
}

/// Three nested ready awaits: level1 -> level2 -> level3 -> ready.
async fn level1(x: u64) -> u64 {
    level2(x).await + 1
}

/// ns per chain, and the turns of the whole run, of three nested ready awaits done
/// `awaits` times inside one task on the whole stack.
pub(crate) fn ready_awaits(awaits: u64) -> (f64, u64) {
    let core = Rc::new(Cell::new(None));
    let keep = Rc::clone(&core);
    let ns = oneloop::run_with(
        move |event_loop| keep.set(Some(Rc::clone(event_loop.core()))),
        async move {
            let started = Stopwatch::start();
            for i in 0..awaits {
                black_box(black_box(level1(i)).await);
            }
            started.per(awaits)
        },
    )
    .expect("the loop runs");
    (ns, core.take().expect("setup ran").turn())
}

/// ns per suspension, and the turns of the whole run, of `yield_now` done `awaits`
/// times inside one task on the whole stack: each goes back to the loop.
pub(crate) fn suspensions(awaits: u64) -> (f64, u64) {
    let core = Rc::new(Cell::new(None));
    let keep = Rc::clone(&core);
    let ns = oneloop::run_with(
        move |event_loop| keep.set(Some(Rc::clone(event_loop.core()))),
        async move {
            let started = Stopwatch::start();
            for _ in 0..awaits {
                yield_now().await;
            }
            started.per(awaits)
        },
    )
    .expect("the loop runs");
    (ns, core.take().expect("setup ran").turn())
}

fn main() {
    let clock = if thread_cpu_ns().is_some() {
        "CPU time of the loop's thread"
    } else {
        "wall time (no /proc/thread-self/schedstat here)"
    };
    println!("times are {clock}");
    println!();
    println!(
        "1. A turn of each layer: one task yields {YIELDS} times (one handle per turn); fastest of {PASSES} passes"
    );
    println!();
    println!("| layer | ns per turn | clock reads per turn | epoll_wait per turn |");
    println!("|---|---:|---:|---:|");
    for layer in Layer::ALL {
        let fastest = (0..PASSES)
            .map(|_| measure_layer(layer, YIELDS, false).ns_per_turn)
            .fold(f64::INFINITY, f64::min);
        let counted = measure_layer(layer, YIELDS, true);
        println!(
            "| {} | {:.1} | {:.2} | {:.2} |",
            layer.name(),
            fastest,
            counted.clock_reads as f64 / counted.turns as f64,
            counted.polls as f64 / counted.turns as f64,
        );
    }
    println!();

    println!(
        "2. run in a loop ({RUNS} calls), one loop reused ({REUSED_RUNS}), an await inside one loop ({INSIDE_AWAITS})"
    );
    println!();
    let (fresh_ns, fresh_turns) = fresh_runs(RUNS);
    let (reused_ns, reused_turns) = reused_runner(REUSED_RUNS);
    let (inside_ns, inside_turns) = inside_one_loop(INSIDE_AWAITS);
    println!("| how main is run | ns per call | turns |");
    println!("|---|---:|---:|");
    println!(
        "| oneloop::run(noop()), a fresh loop each time | {fresh_ns:.0} | {fresh_turns:.0} per call |"
    );
    println!(
        "| one Runner, runner.run(noop()) each time | {reused_ns:.0} | {reused_turns:.0} per call |"
    );
    println!(
        "| noop().await inside one running loop | {inside_ns:.1} | {inside_turns} for the whole run |"
    );
    println!();

    println!("3. A ready await against a real suspension ({AWAITS} each, the whole stack)");
    println!();
    let (ready_ns, ready_turns) = ready_awaits(AWAITS);
    let (suspend_ns, suspend_turns) = suspensions(AWAITS);
    println!("| await | ns each | turns of the whole run |");
    println!("|---|---:|---:|");
    println!("| 3 nested ready awaits (a fresh chain each time) | {ready_ns:.1} | {ready_turns} |");
    println!("| yield_now(), back through the loop | {suspend_ns:.1} | {suspend_turns} |");
    println!(
        "a suspension costs about {:.0} times a ready chain",
        suspend_ns / ready_ns
    );
}
