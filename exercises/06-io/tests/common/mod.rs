//! Instruments the stage 6 tests share: a turn trace, loopback pairs, turn runners.
#![allow(dead_code)]

use std::cell::RefCell;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener as StdListener, TcpStream as StdStream};
use std::rc::Rc;
use std::time::Duration;

use ex06_io::{IoLoop, TcpStream};
use oneloop_core::{Label, Observer, ParkReport};

/// Records every handle the loop runs, with its turn, and every park report.
#[derive(Debug, Default)]
pub struct Trace {
    pub handles: RefCell<Vec<(u64, String)>>,
    pub parks: RefCell<Vec<(u64, ParkReport)>>,
}

impl Observer for Trace {
    fn handle_ran(&self, turn: u64, label: &Label, _elapsed: Duration) {
        self.handles.borrow_mut().push((turn, label.to_string()));
    }
    fn turn_ended(&self, turn: u64, park: &ParkReport, _handles: usize) {
        self.parks.borrow_mut().push((turn, *park));
    }
}

impl Trace {
    /// Installs a trace on `event_loop`.
    pub fn on(event_loop: &IoLoop) -> Rc<Trace> {
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

    /// The I/O events the park of `turn` reported.
    pub fn io_events(&self, turn: u64) -> usize {
        self.parks
            .borrow()
            .iter()
            .find(|(t, _)| *t == turn)
            .map_or(0, |(_, park)| park.io_events)
    }
}

/// A shared log of strings.
pub fn log() -> Rc<RefCell<Vec<String>>> {
    Rc::new(RefCell::new(Vec::new()))
}

/// A connected loopback pair: a blocking std client and its accepted std server side.
pub fn std_pair() -> (StdStream, StdStream) {
    let listener = StdListener::bind("127.0.0.1:0").expect("bind loopback");
    let addr = listener.local_addr().expect("local addr");
    let client = StdStream::connect(addr).expect("connect loopback");
    let (server, _) = listener.accept().expect("accept loopback");
    (client, server)
}

/// A connected pair whose server side is a oneloop `TcpStream`.
pub fn pair() -> (StdStream, TcpStream) {
    let (client, server) = std_pair();
    (client, TcpStream::from_std(server).expect("non-blocking"))
}

/// Runs turns until `done()` holds, at most `limit` turns.
pub fn run_until(event_loop: &mut IoLoop, limit: usize, mut done: impl FnMut() -> bool) {
    for _ in 0..limit {
        if done() {
            return;
        }
        event_loop.run_once().expect("a turn runs");
    }
    assert!(done(), "the condition did not hold within {limit} turns");
}

/// Blocking line client: sends `line`, reads one line back.
pub fn round_trip(stream: &mut BufReader<StdStream>, line: &str) -> String {
    stream.get_mut().write_all(line.as_bytes()).expect("send");
    let mut back = String::new();
    stream.read_line(&mut back).expect("receive");
    back
}

/// A std client connected to `addr`, wrapped for line reads.
pub fn line_client(addr: SocketAddr) -> BufReader<StdStream> {
    BufReader::new(StdStream::connect(addr).expect("connect"))
}
