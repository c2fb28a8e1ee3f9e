//! The book's diagrams for chapters 1 to 3: pictures of how the pieces fit, drawn from
//! the code itself.
//!
//! - [`countdown_diagram`] draws chapter 1's countdown as a state machine, from the
//!   table of transitions stage 1 exports ([`COUNTDOWN_TRANSITIONS`]); a test drives the
//!   real `Countdown` to check that `resume` makes exactly those moves.
//! - [`waker_round_trip`] runs stage 2's real `block_on`, `join` and `OneShot` with a
//!   producer thread, and writes down every poll, every answer and every wake;
//!   [`waker_diagram`] draws that log as a sequence diagram.
//! - [`loop_parts`] builds a stage 7 loop, gives each of its parts something to hold,
//!   and takes the loop's own snapshot; [`loop_diagram`] draws the parts with what the
//!   snapshot says they hold.
//! - [`fifty_compared`] draws two of the timeline scenarios on one time axis.

use std::fmt::Debug;
use std::future::Future;
use std::io::{self, Write as _};
use std::pin::Pin;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::thread;
use std::time::Duration;

use oneloop_core::hooks::{Snapshot, with_current};
use oneloop_core::{EventLoop, yield_now};
use oneloop_coroutine::{COUNTDOWN_TRANSITIONS, Transition};
use oneloop_future::{OneShot, block_on, join};
use oneloop_io::IoDriver;
use oneloop_offload::{LoopHandle, OffloadDriver};
use oneloop_timers::{TimerDriver, sleep};

use crate::diagram_svg::{Canvas, WAKE, line};
use crate::session::{spawn_named, start};
use crate::svg_compare::render_comparison;

/// One diagram: its file name (without `.svg`) and its SVG.
#[derive(Debug, Clone)]
pub struct Diagram {
    /// The file is `<name>.svg`.
    pub name: &'static str,
    /// The SVG document.
    pub svg: String,
}

/// Every diagram, in the book's order.
pub fn diagrams() -> Result<Vec<Diagram>, String> {
    let messages = waker_round_trip()?;
    let snapshot = loop_parts().map_err(|e| format!("loop_parts: {e}"))?;
    Ok(vec![
        Diagram {
            name: "countdown_states",
            svg: countdown_diagram(&COUNTDOWN_TRANSITIONS),
        },
        Diagram {
            name: "waker_round_trip",
            svg: waker_diagram(&messages),
        },
        Diagram {
            name: "loop_parts",
            svg: loop_diagram(&snapshot),
        },
        Diagram {
            name: "fifty_compared",
            svg: fifty_compared()?,
        },
    ])
}

// ANCHOR: fifty_compared
/// The two fifty-task scenarios, one above the other on one time axis.
pub fn fifty_compared() -> Result<String, String> {
    let record = |name: &str| {
        crate::scenario(name)
            .ok_or_else(|| format!("no scenario {name}"))?
            .record()
    };
    let blocking = record("fifty_blocking")?;
    let sleeping = record("fifty_sleeping")?;
    Ok(render_comparison(
        "fifty tasks of 100 ms each: blocking the loop, or sleeping",
        "virtual time; the scenarios fifty_blocking and fifty_sleeping, on one time axis",
        &[
            ("blocking (block_for)", &blocking),
            ("sleeping (sleep)", &sleeping),
        ],
    ))
}
// ANCHOR_END: fifty_compared

// ---------------------------------------------------------------- chapter 1

/// The states of `table`, in the order they first appear.
fn states(table: &[Transition]) -> Vec<&'static str> {
    let mut states = Vec::new();
    for transition in table {
        for state in [transition.from, transition.to] {
            if !states.contains(&state) {
                states.push(state);
            }
        }
    }
    states
}

// ANCHOR: countdown_diagram
/// Draws a state machine from its transition table: a box per state, left to right in
/// the order the table names them, and an arrow per transition labelled with its
/// condition and what `resume` returns.
pub fn countdown_diagram(table: &[Transition]) -> String {
    let states = states(table);
    let (width, height) = (750.0, 250.0);
    let (box_w, box_h, top) = (124.0, 44.0, 120.0);
    let gap = (width - 40.0 - box_w * states.len() as f64) / (states.len().max(2) - 1) as f64;
    let x_of = |state: &str| {
        let index = states.iter().position(|s| *s == state).unwrap_or(0);
        20.0 + index as f64 * (box_w + gap)
    };
    let mut canvas = Canvas::new(
        width,
        height,
        "the countdown's states: one resume, one arrow",
        "drawn from stage 1's COUNTDOWN_TRANSITIONS; each label: when / what resume returns",
    );
    for state in &states {
        canvas.node((x_of(state), top, box_w, box_h), state, &[], "#F0F0F0");
    }
    // Where it begins: `Countdown::new(n)`.
    let first = x_of(states[0]) + box_w / 2.0;
    canvas.arrow(&line(first, top - 50.0, first, top), false);
    canvas.label(first, top - 56.0, "Countdown::new(n)", "#222222");
    let mut below = 0;
    for transition in table {
        let label = format!("{} / {}", transition.when, transition.returns);
        let (from, to) = (x_of(transition.from), x_of(transition.to));
        if transition.from == transition.to {
            // A loop over the top of the box.
            let (left, right) = (from + box_w * 0.3, from + box_w * 0.7);
            let d = format!(
                "M{left:.1},{top:.1} C{left:.1},{:.1} {right:.1},{:.1} {right:.1},{top:.1}",
                top - 45.0,
                top - 45.0
            );
            canvas.arrow(&d, transition.returns == "Err");
            canvas.label(from + box_w / 2.0, top - 40.0, &label, "#222222");
        } else if (to - from).abs() <= box_w + gap + 1.0 {
            let y = top + box_h / 2.0;
            let (start, end) = if to > from {
                (from + box_w, to)
            } else {
                (from, to + box_w)
            };
            canvas.arrow(&line(start, y, end, y), false);
            canvas.label((start + end) / 2.0, y - 6.0, &label, "#222222");
        } else {
            // A longer jump: an arc under the boxes, one level lower each time.
            below += 1;
            let depth = top + box_h + 40.0 * below as f64;
            let (start, end) = (from + box_w / 2.0, to + box_w / 2.0);
            let bottom = top + box_h;
            let d = format!(
                "M{start:.1},{bottom:.1} C{start:.1},{depth:.1} {end:.1},{depth:.1} {end:.1},{bottom:.1}"
            );
            canvas.arrow(&d, false);
            canvas.label((start + end) / 2.0, depth - 26.0, &label, "#222222");
        }
    }
    canvas.text(
        4.0,
        height - 10.0,
        "start",
        11.0,
        "dashed: a resume after completion, which returns Err(ResumedAfterCompletion)",
    );
    canvas.finish()
}
// ANCHOR_END: countdown_diagram

// ---------------------------------------------------------------- chapter 2

/// One message of the waker's round trip: an arrow from one party to another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// Who sends it: `"block_on"`, a future's name, or `"producer thread"`.
    pub from: &'static str,
    /// Who receives it.
    pub to: &'static str,
    /// What it is: `"poll"`, `"Pending"`, `"Ready(..)"`, `"set_result(7)"`, `"wake"`.
    pub what: String,
}

type Log = Arc<Mutex<Vec<Message>>>;

fn note(log: &Log, from: &'static str, to: &'static str, what: impl Into<String>) {
    log.lock()
        .expect("no thread panics holding the log")
        .push(Message {
            from,
            to,
            what: what.into(),
        });
}

/// A future that writes down each poll it gets and what it answers, and passes the
/// context on unchanged.
struct Traced<F: Future> {
    name: &'static str,
    parent: &'static str,
    inner: Pin<Box<F>>,
    log: Log,
    /// The outermost one: wraps the executor's waker so that the wake is written down,
    /// and tells the producer each time it answers `Pending`.
    top: Option<mpsc::Sender<()>>,
}

/// The executor's waker, wrapped: writes the wake down, then passes it on.
struct Noted {
    executor: Waker,
    log: Log,
}

impl Wake for Noted {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        note(&self.log, "producer thread", "block_on", "wake");
        self.executor.wake_by_ref();
    }
}

impl<F: Future> Future for Traced<F>
where
    F::Output: Debug,
{
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let (name, parent) = (self.name, self.parent);
        note(&self.log, parent, name, "poll");
        let answer = if self.top.is_some() {
            let waker = Waker::from(Arc::new(Noted {
                executor: cx.waker().clone(),
                log: Arc::clone(&self.log),
            }));
            self.inner.as_mut().poll(&mut Context::from_waker(&waker))
        } else {
            self.inner.as_mut().poll(cx)
        };
        let what = match &answer {
            Poll::Pending => "Pending".to_string(),
            Poll::Ready(value) => format!("Ready({value:?})"),
        };
        note(&self.log, name, parent, what);
        if answer.is_pending()
            && let Some(tell) = &self.top
        {
            // The producer may have finished; nothing is then waiting for this.
            let _ = tell.send(());
        }
        answer
    }
}

fn traced<F: Future>(name: &'static str, parent: &'static str, inner: F, log: &Log) -> Traced<F> {
    Traced {
        name,
        parent,
        inner: Box::pin(inner),
        log: Arc::clone(log),
        top: None,
    }
}

// ANCHOR: waker_round_trip
/// Chapter 2's running example, recorded: `block_on(join(price.wait(), stock.wait()))`
/// while a producer thread sets `stock`, then `price`, each time after `block_on`'s
/// poll returned `Pending`. Returns every message in the order it happened.
pub fn waker_round_trip() -> Result<Vec<Message>, String> {
    let log: Log = Arc::default();
    let price: OneShot<u32, String> = OneShot::new();
    let stock: OneShot<u32, String> = OneShot::new();
    let (tell, pending) = mpsc::channel();
    let producer = {
        let (price, stock, log) = (price.clone(), stock.clone(), Arc::clone(&log));
        thread::spawn(move || -> Result<(), String> {
            for (name, shot, value) in [("stock", &stock, 7), ("price", &price, 120)] {
                pending
                    .recv()
                    .map_err(|_| "block_on ended early".to_string())?;
                note(
                    &log,
                    "producer thread",
                    name,
                    format!("set_result({value})"),
                );
                shot.set_result(value).map_err(|e| e.to_string())?;
            }
            Ok(())
        })
    };
    let both = join(
        traced("price.wait()", "join", price.wait(), &log),
        traced("stock.wait()", "join", stock.wait(), &log),
    );
    let mut outer = traced("join", "block_on", both, &log);
    outer.top = Some(tell);
    let (price, stock) = block_on(outer);
    producer
        .join()
        .map_err(|_| "the producer panicked".to_string())??;
    if price != Ok(120) || stock != Ok(7) {
        return Err(format!("block_on gave {price:?} and {stock:?}"));
    }
    let messages = log
        .lock()
        .map_err(|_| "a thread panicked holding the log")?
        .clone();
    Ok(messages)
}
// ANCHOR_END: waker_round_trip

/// Draws `messages` as a sequence diagram: a column per party, an arrow per message,
/// top to bottom in the order they happened. Wakes are dashed and coloured.
pub fn waker_diagram(messages: &[Message]) -> String {
    let parties = [
        "block_on",
        "join",
        "price.wait()",
        "stock.wait()",
        "producer thread",
        "stock",
        "price",
    ];
    // The two one-shots are drawn under their own waiting futures' columns.
    let column = |party: &str| match party {
        "stock" => 3,
        "price" => 2,
        other => parties.iter().position(|p| *p == other).unwrap_or(0),
    };
    let shown = 5;
    let width = 750.0;
    let step = 22.0;
    let top = 60.0;
    let first_row = top + 50.0;
    let height = first_row + step * messages.len() as f64 + 30.0;
    let col_w = (width - 20.0) / shown as f64;
    let x = |index: usize| 10.0 + col_w * (index as f64 + 0.5);
    let mut canvas = Canvas::new(
        width,
        height,
        "the waker's round trip: polls go down the chain, the wake goes to block_on",
        "recorded from stage 2's block_on, join and OneShot; a producer thread sets stock, then price",
    );
    for (index, party) in parties.iter().take(shown).enumerate() {
        canvas.lifeline(x(index), top + 30.0, height - 20.0);
        canvas.node((x(index) - 66.0, top, 132.0, 28.0), party, &[], "#F0F0F0");
    }
    for (row, message) in messages.iter().enumerate() {
        let y = first_row + step * row as f64;
        let (from, to) = (x(column(message.from)), x(column(message.to)));
        let wake = message.what == "wake";
        let inset = if to > from { -4.0 } else { 4.0 };
        canvas.arrow(&line(from, y, to + inset, y), wake);
        let colour = if wake { WAKE } else { "#222222" };
        canvas.label((from + to) / 2.0, y - 3.0, &message.what, colour);
    }
    canvas.finish()
}

// ---------------------------------------------------------------- chapter 3 / 4

/// A connected pair of loopback sockets: the client end and the server end.
fn pair() -> io::Result<(std::net::TcpStream, std::net::TcpStream)> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    let client = std::net::TcpStream::connect(listener.local_addr()?)?;
    let (server, _) = listener.accept()?;
    Ok((client, server))
}

// ANCHOR: loop_parts
/// A stage 7 loop (thread-safe inbox over timers over epoll) on a virtual clock, after
/// two turns in which its main task gave each part something to hold: a reader waiting
/// on a socket, a task sleeping 1 s, a callback queued with `call_soon`, and one sent
/// into the inbox with `call_soon_threadsafe`. Returns the loop's own snapshot.
pub fn loop_parts() -> io::Result<Snapshot> {
    let (mut client, server) = pair()?;
    let server = oneloop_io::TcpStream::from_std(server)?;
    let driver = OffloadDriver::new(TimerDriver::virtual_time(IoDriver::new()?));
    let mut session = start(EventLoop::with_driver(driver), async move {
        drop(spawn_named("reader", async move {
            let mut buf = [0; 8];
            // Never answered while the snapshot is taken: nobody writes.
            let _ = server.read(&mut buf).await;
        }));
        drop(spawn_named("sleeper", sleep(Duration::from_secs(1))));
        // One turn for the reader and the sleeper to take their first step.
        yield_now().await;
        drop(with_current(|core| core.call_soon_named("greet", || {})).expect("a loop runs this"));
        let handle = LoopHandle::current().expect("a stage 7 loop runs this");
        handle
            .call_soon_threadsafe_named("from a thread", || {})
            .expect("the loop is open");
        std::future::pending::<()>().await;
    });
    for _ in 0..2 {
        session.run_once().map_err(io::Error::other)?;
    }
    let snapshot = session.snapshot();
    // The socket stays open until the snapshot is taken.
    client.flush()?;
    Ok(snapshot)
}
// ANCHOR_END: loop_parts

/// What the diagram calls each layer of the snapshot, and what it does.
fn part(layer: &str) -> (&'static str, &'static str) {
    match layer {
        "offload" => ("thread-safe inbox", "other threads hand work to the loop"),
        "timers" => ("timer heap", "callbacks due at a time, earliest first"),
        "io" => ("selector (epoll)", "sockets waited on, by fd"),
        _ => ("another layer", ""),
    }
}

/// A line of the snapshot as the diagram prints it: fd numbers differ run to run.
fn steady(line: &str) -> String {
    match line
        .strip_prefix("fd ")
        .and_then(|rest| rest.split_once(": "))
    {
        Some((_, what)) => format!("a socket: {what}"),
        None => line.to_string(),
    }
}

/// Draws what the loop is made of: each driver layer of `snapshot` with what it holds,
/// outermost first, each feeding the ready queue, which one turn runs.
pub fn loop_diagram(snapshot: &Snapshot) -> String {
    let width = 750.0;
    let (left, part_w, part_h, gap) = (10.0, 330.0, 74.0, 16.0);
    let top = 60.0;
    let layers = &snapshot.layers;
    let height = top + (part_h + gap) * layers.len().max(3) as f64 + 40.0;
    let mut canvas = Canvas::new(
        width,
        height,
        "what the loop is made of",
        "a stage 7 loop's own snapshot after two turns; each layer queues work on the ready queue",
    );
    let queue = (
        440.0,
        top + 40.0,
        300.0,
        48.0 + 14.0 * snapshot.ready.len() as f64,
    );
    for (index, layer) in layers.iter().enumerate() {
        let y = top + (part_h + gap) * index as f64;
        let (name, does) = part(layer.name);
        let mut lines = vec![format!("({does})")];
        lines.extend(layer.lines.iter().take(2).map(|line| steady(line)));
        if layer.lines.is_empty() {
            lines.push("empty".to_string());
        }
        canvas.node(
            (left, y, part_w, part_h),
            &format!("{name} — layer \"{}\"", layer.name),
            &lines,
            "#F7F7F7",
        );
        let from = (left + part_w, y + part_h / 2.0);
        let to = (queue.0 - 4.0, queue.1 + 20.0 + 10.0 * index as f64);
        canvas.arrow(&line(from.0, from.1, to.0, to.1), false);
    }
    let ready: Vec<String> = snapshot
        .ready
        .iter()
        .enumerate()
        .map(|(i, label)| format!("{}. {label}", i + 1))
        .collect();
    let mut lines = vec!["(handles to run, oldest first)".to_string()];
    lines.extend(ready);
    canvas.node(queue, "ready queue", &lines, "#FFF4D6");
    let run_y = queue.1 + queue.3 + 50.0;
    canvas.arrow(
        &line(
            queue.0 + queue.2 / 2.0,
            queue.1 + queue.3,
            queue.0 + queue.2 / 2.0,
            run_y - 4.0,
        ),
        false,
    );
    canvas.node(
        (queue.0, run_y, queue.2, 62.0),
        "one turn",
        &[
            "park the layers, then run the".to_string(),
            "handles queued when it began".to_string(),
        ],
        "#E8F4FB",
    );
    canvas.text(
        4.0,
        height - 10.0,
        "start",
        11.0,
        &format!(
            "the driver stack, outermost first: {}; turns begun: {}",
            layers
                .iter()
                .map(|l| l.name)
                .collect::<Vec<_>>()
                .join(" → "),
            snapshot.turn
        ),
    );
    canvas.finish()
}
