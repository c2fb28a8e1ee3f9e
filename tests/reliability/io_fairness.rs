//! The I/O layer under pressure: one busy socket, an exhausted fd table, a chat member
//! that never reads.
//!
//! - **Read fairness.** A peer that always has data never makes `read` say
//!   `WouldBlock`; without a rule, its task read on for thousands of reads in one step
//!   while every other client and every timer waited. Now a stream gives one successful
//!   read per turn. A turn count alone cannot see a hog (all its reads fit in one
//!   turn), so the test counts the hog's reads too: between another client's data
//!   arriving and its echo, and between a timer falling due and its callback, the hog
//!   reads at most twice, and the other client and the timer are served within two
//!   turns.
//! - **fd exhaustion.** Under a low `RLIMIT_NOFILE`, `accept` fails with `EMFILE`;
//!   `serve` returned that error and the server exited, dropping every client. Now it
//!   reports the error, stops accepting for `ACCEPT_RETRY_DELAY` and tries again, as
//!   asyncio does. The attack runs the echo server in a child process with a lowered
//!   limit, and a retry delay of a tenth of a second (`with_accept_retry_delay`) so as
//!   not to wait whole seconds.
//! - **A slow chat member.** A member that never reads let its queue grow without
//!   bound. Now a member whose queue would pass the room's limit is disconnected. The
//!   attack runs a chat room in a child process.

use std::cell::{Cell, RefCell};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener as StdListener, TcpStream as StdStream};
use std::process::{Child, ChildStderr, Command, Stdio};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use oneloop_core::hooks::with_current;
use oneloop_core::{EventLoop, spawn};
use oneloop_io::{
    ACCEPT_OUT_OF_RESOURCES, ACCEPT_RETRY_DELAY, AsyncRead, ChatRoom, EpollCtls, Io, IoDriver,
    SLOW_MEMBER_DISCONNECTED, StreamReader, StreamWriter, TcpListener, TcpStream, WELCOME, echo,
    echo_connection, new_event_loop, serve, serve_room,
};
use oneloop_testkit::watchdog;
use oneloop_timers::{TimerDriver, call_later, sleep};

/// What the fairness test logs, each with the turn it happened in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Event {
    /// The firehose's server side read some bytes.
    HogRead,
    /// The other client's line was written: it is in the kernel from now on.
    OtherSent,
    /// A timer was made due at once.
    TimerDue,
    /// The other client's server side read its line (and echoes it in the same step).
    OtherRead,
    /// The timer's callback ran.
    TimerRan,
}

type Log = Rc<RefCell<Vec<(u64, Event)>>>;

/// The running loop's turn.
fn turn() -> u64 {
    with_current(|core| core.turn()).expect("called inside a turn")
}

/// A `TcpStream` that logs each read that brought bytes, and runs `on_first` after the
/// first one.
struct Logged {
    stream: Rc<TcpStream>,
    log: Log,
    event: Event,
    on_first: Option<Box<dyn FnOnce()>>,
}

impl AsyncRead for Logged {
    async fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.stream.read(buf).await?;
        if n > 0 {
            self.log.borrow_mut().push((turn(), self.event));
            if let Some(first) = self.on_first.take() {
                first();
            }
        }
        Ok(n)
    }
}

/// A loopback pair: a blocking std client and the oneloop server side, shared.
fn pair() -> (StdStream, Rc<TcpStream>) {
    let (client, server) = crate::loopback_pair();
    (client, Rc::new(server))
}

/// Lines of 1 KiB.
const LINE: usize = 1024;
/// What the firehose has sent before the loop first reads: eight reads' worth.
const PREFILL: usize = 64 * 1024;
/// What the firehose sends in all (it keeps sending while the test runs).
const FIREHOSE: usize = 4 * 1024 * 1024;

/// Starts a firehose client on `client`: a thread that sends `FIREHOSE` bytes of lines
/// as fast as the kernel takes them (telling `prefilled` after the first `PREFILL`),
/// and a thread that reads and drops the echoes.
fn firehose(client: StdStream, prefilled: mpsc::Sender<()>) -> [thread::JoinHandle<()>; 2] {
    let mut reader = client.try_clone().expect("a second handle");
    let mut writer = client;
    let sending = thread::spawn(move || {
        let mut line = vec![b'x'; LINE];
        line[LINE - 1] = b'\n';
        for sent in (LINE..=FIREHOSE).step_by(LINE) {
            // The server closing the connection ends the firehose.
            if writer.write_all(&line).is_err() {
                return;
            }
            if sent == PREFILL {
                let _ = prefilled.send(());
            }
        }
    });
    let draining = thread::spawn(move || {
        let mut sink = vec![0; 64 * 1024];
        while matches!(reader.read(&mut sink), Ok(n) if n > 0) {}
    });
    [sending, draining]
}

#[test]
fn a_firehose_does_not_delay_another_clients_echo_or_a_due_timer() {
    watchdog(Duration::from_secs(10), || {
        let mut event_loop = new_event_loop().expect("epoll");
        let log: Log = Rc::default();
        let (hose_client, hose_server) = pair();
        let (other_client, other_server) = pair();
        let mut other_writer = other_client.try_clone().expect("a second handle");
        let (prefilled_tx, prefilled_rx) = mpsc::channel();
        let hose = firehose(hose_client, prefilled_tx);
        prefilled_rx
            .recv()
            .expect("the firehose sent its first bytes");

        // The other client's handler waits first, so that its socket is watched.
        let other_reader = Logged {
            stream: Rc::clone(&other_server),
            log: Rc::clone(&log),
            event: Event::OtherRead,
            on_first: None,
        };
        drop(event_loop.spawn(async move {
            let mut reader = StreamReader::new(other_reader);
            let mut writer = StreamWriter::new(other_server);
            let _ = echo(&mut reader, &mut writer).await;
        }));
        // After the hog's first read, in its own step: the other client sends a line,
        // and a timer becomes due.
        let (sent_log, due_log) = (Rc::clone(&log), Rc::clone(&log));
        let on_first = Box::new(move || {
            other_writer.write_all(b"hello\n").expect("send");
            sent_log.borrow_mut().push((turn(), Event::OtherSent));
            let ran_log = Rc::clone(&due_log);
            call_later(Duration::ZERO, move || {
                ran_log.borrow_mut().push((turn(), Event::TimerRan));
            });
            due_log.borrow_mut().push((turn(), Event::TimerDue));
        });
        let hog_reader = Logged {
            stream: Rc::clone(&hose_server),
            log: Rc::clone(&log),
            event: Event::HogRead,
            on_first: Some(on_first),
        };
        drop(event_loop.spawn(async move {
            let mut reader = StreamReader::new(hog_reader);
            let mut writer = StreamWriter::new(hose_server);
            let _ = echo(&mut reader, &mut writer).await;
        }));

        let served = |log: &[(u64, Event)]| {
            [Event::OtherRead, Event::TimerRan]
                .iter()
                .all(|event| log.iter().any(|(_, e)| e == event))
        };
        for _ in 0..10_000 {
            if served(&log.borrow()) {
                break;
            }
            event_loop.run_once().expect("a turn");
        }
        let log = log.borrow().clone();
        assert!(served(&log), "{log:?}");

        let at = |event: Event| {
            log.iter()
                .position(|(_, e)| *e == event)
                .unwrap_or_else(|| panic!("no {event:?} in {log:?}"))
        };
        let hog_reads = |from: usize, to: usize| {
            log[from..to]
                .iter()
                .filter(|(_, e)| *e == Event::HogRead)
                .count()
        };
        for (cause, effect) in [
            (Event::OtherSent, Event::OtherRead),
            (Event::TimerDue, Event::TimerRan),
        ] {
            let (from, to) = (at(cause), at(effect));
            let turns = log[to].0 - log[from].0;
            assert!(
                turns <= 2,
                "{effect:?} came {turns} turns after {cause:?}: {log:?}"
            );
            assert!(
                hog_reads(from, to) <= 2,
                "the hog read {} times between {cause:?} and {effect:?}",
                hog_reads(from, to)
            );
        }
        let mut per_turn = std::collections::BTreeMap::<u64, usize>::new();
        for (turn, _) in log.iter().filter(|(_, e)| *e == Event::HogRead) {
            *per_turn.entry(*turn).or_default() += 1;
        }
        assert!(per_turn.len() >= 2, "the hog kept reading: {per_turn:?}");
        assert!(
            per_turn.values().all(|&reads| reads == 1),
            "one read per turn: {per_turn:?}"
        );

        // The echo really went back.
        let mut back = String::new();
        BufReader::new(other_client)
            .read_line(&mut back)
            .expect("the echo");
        assert_eq!(back, "hello\n");
        // Closing the loop closes the server sides, which ends the firehose threads.
        drop(event_loop);
        for thread in hose {
            thread.join().expect("a firehose thread");
        }
    });
}

/// A read that follows a short read in the same turn waits for readiness at once. The
/// short read left the socket empty, so a `recv` in the next turn could only say
/// `WouldBlock`: the read is not polled in the turns before the next data, and it
/// still gets that data (its edge wakes the wait).
#[test]
fn a_read_after_a_short_read_in_its_turn_waits_for_readiness_without_a_turn_of_its_own() {
    watchdog(Duration::from_secs(10), || {
        let mut event_loop = new_event_loop().expect("epoll");
        let (mut client, server) = pair();
        client.write_all(b"one\n").expect("send");
        // The turns in which the second read was polled.
        let polls: Rc<RefCell<Vec<u64>>> = Rc::default();
        let first_read: Rc<Cell<Option<u64>>> = Rc::default();
        let (seen_polls, seen_first) = (Rc::clone(&polls), Rc::clone(&first_read));
        let reader = event_loop.spawn(async move {
            let mut buf = [0; 64];
            let n = TcpStream::read(&server, &mut buf)
                .await
                .expect("the first line");
            assert_eq!(&buf[..n], b"one\n", "a short read");
            seen_first.set(Some(turn()));
            let mut more = [0; 64];
            let n = {
                let mut second = std::pin::pin!(TcpStream::read(&server, &mut more));
                std::future::poll_fn(|cx| {
                    seen_polls.borrow_mut().push(turn());
                    second.as_mut().poll(cx)
                })
                .await
                .expect("the second line")
            };
            more[..n].to_vec()
        });
        // Keeps the loop turning while nothing arrives.
        drop(event_loop.spawn(async {
            for _ in 0..4 {
                oneloop_core::yield_now().await;
            }
        }));
        for _ in 0..5 {
            event_loop.run_once().expect("a turn");
        }
        let first = first_read
            .get()
            .expect("the first read was done in the first turn");
        assert_eq!(
            *polls.borrow(),
            [first],
            "polled only when it began, in the turn of the short read"
        );
        client.write_all(b"two\n").expect("send");
        let second = event_loop
            .run_until_complete(reader)
            .expect("the loop ran")
            .expect("the reader finished");
        assert_eq!(second, b"two\n");
        let polls = polls.borrow();
        assert_eq!(polls.len(), 2, "began, then woken by the data: {polls:?}");
        assert!(polls[1] > first + 4, "read after the data came: {polls:?}");
    });
}

/// A socket that epoll already holds: after a short read, the next read of the same
/// turn waits for readiness with no `epoll_ctl` at all (no event said the read side
/// closed, so no end of file can be queued behind the data).
#[test]
fn a_wait_after_a_short_read_on_a_registered_socket_calls_no_epoll_ctl() {
    watchdog(Duration::from_secs(10), || {
        let mut event_loop = new_event_loop().expect("epoll");
        let (mut client, server) = pair();
        // The table's counts: after the short read, then after the second read began.
        let ctls: Rc<RefCell<Vec<EpollCtls>>> = Rc::default();
        let seen = Rc::clone(&ctls);
        let reader = event_loop.spawn(async move {
            let io = Io::current().expect("an I/O table");
            let mut buf = [0; 64];
            // Nothing has come yet: this read waits, and the socket registers its fd.
            let n = TcpStream::read(&server, &mut buf)
                .await
                .expect("the first line");
            assert_eq!(&buf[..n], b"one\n", "a short read");
            seen.borrow_mut().push(io.epoll_ctls());
            let mut more = [0; 64];
            let n = {
                let mut second = std::pin::pin!(TcpStream::read(&server, &mut more));
                let mut began = false;
                std::future::poll_fn(|cx| {
                    let poll = second.as_mut().poll(cx);
                    if !began {
                        began = true;
                        assert!(poll.is_pending(), "nothing more has come yet");
                        seen.borrow_mut().push(io.epoll_ctls());
                    }
                    poll
                })
                .await
                .expect("the second line")
            };
            more[..n].to_vec()
        });
        // The reader's first read waits for data.
        event_loop.run_once().expect("a turn");
        client.write_all(b"one\n").expect("send");
        while ctls.borrow().len() < 2 {
            event_loop.run_once().expect("a turn");
        }
        client.write_all(b"two\n").expect("send");
        let second = event_loop
            .run_until_complete(reader)
            .expect("the loop ran")
            .expect("the reader finished");
        assert_eq!(second, b"two\n");
        let ctls = ctls.borrow();
        assert_eq!(ctls[0].add, 1, "the first wait registered the fd: {ctls:?}");
        assert_eq!(
            ctls[1], ctls[0],
            "the wait after the short read called no epoll_ctl: {ctls:?}"
        );
    });
}

/// What a reader does between its short read of the peer's last bytes and the read
/// that should say end of file.
#[derive(Debug, Clone, Copy)]
enum BeforeTheEnd {
    /// Nothing: the next read, in the same turn.
    Read,
    /// A `readable` wait of its own, in the same turn.
    Readable,
    /// A `readable` wait of its own, after a turn.
    ReadableLater,
}

/// A peer that sends its last bytes and closes before the loop's poll: one event says
/// both, and the reader's read takes the bytes in a short read. Returns those bytes
/// and what the read after `between` returned.
fn last_bytes_then_the_end(between: BeforeTheEnd) -> (Vec<u8>, usize) {
    watchdog(Duration::from_secs(10), move || {
        let mut event_loop = new_event_loop().expect("epoll");
        let (mut client, server) = pair();
        let reader = event_loop.spawn(async move {
            let mut buf = [0; 64];
            // Nothing sent yet: this read registers the fd and waits for its event.
            let n = TcpStream::read(&server, &mut buf)
                .await
                .expect("the last bytes");
            let last = buf[..n].to_vec();
            if let BeforeTheEnd::ReadableLater = between {
                oneloop_core::yield_now().await;
            }
            if let BeforeTheEnd::Readable | BeforeTheEnd::ReadableLater = between {
                oneloop_io::readable(&server)
                    .await
                    .expect("readable: the end of file");
            }
            let end = TcpStream::read(&server, &mut buf)
                .await
                .expect("the end of file");
            (last, end)
        });
        event_loop.run_once().expect("a turn");
        // Both reach the socket before the next poll: this thread makes that poll.
        client.write_all(b"bye\n").expect("send");
        client
            .shutdown(Shutdown::Write)
            .expect("close the sending half");
        event_loop
            .run_until_complete(reader)
            .expect("the loop ran")
            .expect("the reader finished")
    })
}

/// The end of file was already there with the last bytes, so no later edge comes for
/// it: a read that then waited for one, with no `recv` first, would wait for ever. The
/// next read in that turn says `Ok(0)`.
#[test]
fn a_read_after_a_short_read_sees_an_end_of_file_that_came_with_the_data() {
    let (last, end) = last_bytes_then_the_end(BeforeTheEnd::Read);
    assert_eq!((last.as_slice(), end), (&b"bye\n"[..], 0));
}

/// The same end of file, met by a wait of the caller's own after the short read (in
/// that turn, or in a later one): the wait must report it, since no edge will come.
#[test]
fn a_readiness_wait_after_a_short_read_sees_an_end_of_file_that_came_with_the_data() {
    for between in [BeforeTheEnd::Readable, BeforeTheEnd::ReadableLater] {
        let (last, end) = last_bytes_then_the_end(between);
        assert_eq!((last.as_slice(), end), (&b"bye\n"[..], 0), "{between:?}");
    }
}

// The server attacks: this binary, started again as a child process, runs a server.

/// Set in a child started by a server attack: which server to run.
const SERVER_ENV: &str = "ONELOOP_RELIABILITY_SERVER";
/// The chat child's per-member queue limit, in bytes.
const CHAT_LIMIT_ENV: &str = "ONELOOP_RELIABILITY_CHAT_LIMIT";

/// Not a test on its own: does nothing unless a server attack below started this binary
/// as its child. Then it serves on 127.0.0.1 (printing the address) until killed, or
/// until its stdin closes (so that no server outlives its test).
#[test]
fn server_child() {
    let Some(server) = std::env::var_os(SERVER_ENV) else {
        return;
    };
    thread::spawn(|| {
        let _ = io::stdin().read_to_end(&mut Vec::new());
        std::process::exit(0);
    });
    match server.to_str() {
        Some("backoff") => backoff_child(Some(CHILD_RETRY_DELAY)),
        Some("backoff-default") => backoff_child(None),
        _ => {}
    }
    let listener = TcpListener::bind("127.0.0.1:0")
        .expect("bind loopback")
        .with_accept_retry_delay(CHILD_RETRY_DELAY);
    assert_eq!(listener.accept_retry_delay(), CHILD_RETRY_DELAY);
    println!(
        "listening on {}",
        listener.local_addr().expect("an address")
    );
    let mut event_loop = new_event_loop().expect("epoll");
    // The default exception handler writes each report on one line of stderr.
    let served = match server.to_str() {
        Some("echo") => event_loop.run_until_complete(serve(listener, |stream, _| async move {
            let _ = echo_connection(stream).await;
        })),
        Some("chat") => {
            let limit = std::env::var(CHAT_LIMIT_ENV)
                .expect("the chat child's limit")
                .parse()
                .expect("a number of bytes");
            event_loop.run_until_complete(serve_room(listener, ChatRoom::with_limit(limit)))
        }
        _ => panic!("unknown server {server:?}"),
    };
    panic!("the server ended: {served:?}");
}

/// How many failed accepts a back-off child reports before it exits.
const BACKOFF_REPORTS: u64 = 4;

/// The back-off child: `serve` on a virtual clock, out of fds for good. The child
/// connects a client to its own listener, so an accept is always waiting, then opens
/// `/dev/null` until its fd table is full: every accept fails. The listener is given
/// `delay`, or left at its default. Each failed accept is written to stderr with the
/// loop's time in milliseconds; the child exits after [`BACKOFF_REPORTS`] of them.
/// On a virtual clock the retry sleeps cost no real time, and the times are exact.
fn backoff_child(delay: Option<Duration>) -> ! {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let listener = match delay {
        Some(delay) => listener.with_accept_retry_delay(delay),
        None => listener,
    };
    let addr = listener.local_addr().expect("an address");
    println!("listening on {addr}");
    let mut event_loop =
        EventLoop::with_driver(TimerDriver::virtual_time(IoDriver::new().expect("epoll")));
    let reports = Cell::new(0);
    event_loop.core().set_exception_handler(move |report| {
        let at = oneloop_timers::time().as_millis();
        eprintln!("{} at {at} ms: {}", report.message, report.panic);
        reports.set(reports.get() + 1);
        if reports.get() == BACKOFF_REPORTS {
            std::process::exit(0);
        }
    });
    let _waiting = StdStream::connect(addr).expect("connect to the child's own listener");
    let _fill = oneloop_testkit::fill_fd_table();
    let served = event_loop.run_until_complete(serve(listener, |_stream, _| async {}));
    panic!("the back-off child's server ended: {served:?}");
}

/// A server child, killed when dropped (the test failed or not).
struct ServerChild {
    child: Child,
    addr: SocketAddr,
    /// The child's stderr, line by line.
    stderr: Receiver<String>,
}

impl ServerChild {
    /// Starts `server` in a child with these extra environment variables, with its
    /// fd limit lowered to `nofile` if given.
    fn start(server: &str, env: &[(&str, String)], nofile: Option<u32>) -> Self {
        let exe = std::env::current_exe().expect("the test binary's path");
        let args = [
            "io_fairness::server_child",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ];
        let mut command = match nofile {
            // The shell lowers the limit, then becomes the test binary.
            Some(limit) => {
                let mut command = Command::new("sh");
                command
                    .arg("-c")
                    .arg(format!("ulimit -n {limit} && exec \"$0\" \"$@\""))
                    .arg(&exe)
                    .args(args);
                command
            }
            None => {
                let mut command = Command::new(&exe);
                command.args(args);
                command
            }
        };
        command
            .env(SERVER_ENV, server)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (key, value) in env {
            command.env(key, value);
        }
        let mut child = command.spawn().expect("the child starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        let mut guard = ServerChild {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            stderr: forward_lines(stderr),
        };
        let mut lines = BufReader::new(stdout).lines();
        let addr = loop {
            let line = match lines.next() {
                Some(Ok(line)) => line,
                _ => panic!("the child ended before listening: {:?}", guard.stderr_now()),
            };
            // The harness prints the test's name first, on the same line.
            if let Some((_, addr)) = line.split_once("listening on ") {
                break addr.trim().parse().expect("an address");
            }
        };
        // The rest of stdout is the harness's; drain it so the child never blocks.
        thread::spawn(move || lines.for_each(drop));
        guard.addr = addr;
        guard
    }

    /// The stderr lines that have arrived so far.
    fn stderr_now(&self) -> Vec<String> {
        self.stderr.try_iter().collect()
    }

    /// The next stderr line containing `needle`; fails if the child ends first or
    /// none comes within `limit`.
    fn next_line_with(&self, needle: &str, limit: Duration) -> String {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.stderr.recv_timeout(left) {
                Ok(line) if line.contains(needle) => return line,
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => panic!("no line with {needle:?} in {limit:?}"),
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("the server child ended before a line with {needle:?}")
                }
            }
        }
    }

    fn assert_alive(&mut self) {
        let status = self.child.try_wait().expect("the child's status");
        assert!(status.is_none(), "the server child exited: {status:?}");
    }
}

impl Drop for ServerChild {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Sends every line of `stderr` down a channel, from a thread.
fn forward_lines(stderr: ChildStderr) -> Receiver<String> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { return };
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    rx
}

/// An echo round trip on a blocking client.
fn round_trip(client: &mut BufReader<StdStream>, line: &str) -> String {
    client.get_mut().write_all(line.as_bytes()).expect("send");
    let mut back = String::new();
    if let Err(error) = client.read_line(&mut back) {
        panic!("no echo of {line:?}: {error}");
    }
    back
}

fn line_client(addr: SocketAddr) -> BufReader<StdStream> {
    let stream = StdStream::connect(addr).expect("connect");
    // A hang detector for each blocking read; the watchdog is the outer one.
    stream
        .set_read_timeout(Some(Duration::from_secs(8)))
        .expect("a read timeout");
    BufReader::new(stream)
}

/// The child's fd limit: a handful for the process itself, the rest for connections.
const NOFILE: u32 = 32;
/// How long a server child stops accepting after an accept failed: a tenth of
/// asyncio's second (`ACCEPT_RETRY_DELAY`, which a listener has unless set).
const CHILD_RETRY_DELAY: Duration = Duration::from_millis(100);
/// Connections before the limit is reached.
const EARLY: usize = 5;
/// Connections opened at once afterwards, more than the limit leaves room for.
const FLOOD: usize = 30;
/// The last connections of the flood, kept open: they wait in the backlog until fds
/// free up.
const KEPT: usize = 5;
/// How many failed accepts to watch: the back-off between them is what is tested.
const FAILED_ACCEPTS: usize = 3;

/// `serve` backs off asyncio's one second on a listener unless it was given another
/// delay.
#[test]
fn a_listener_backs_off_asyncios_second_unless_told_otherwise() {
    assert_eq!(ACCEPT_RETRY_DELAY, Duration::from_secs(1));
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    assert_eq!(listener.accept_retry_delay(), ACCEPT_RETRY_DELAY);
    let listener = listener.with_accept_retry_delay(CHILD_RETRY_DELAY);
    assert_eq!(listener.accept_retry_delay(), CHILD_RETRY_DELAY);
}

/// The loop's times, in milliseconds, of the failed accepts a back-off child reports.
fn backoff_times(kind: &str) -> Vec<u128> {
    let server = ServerChild::start(kind, &[], Some(NOFILE));
    (0..BACKOFF_REPORTS)
        .map(|_| {
            let line = server.next_line_with(ACCEPT_OUT_OF_RESOURCES, Duration::from_secs(5));
            assert!(line.contains("Too many open files"), "{line}");
            let (_, at) = line.split_once(" at ").expect("the loop's time");
            let (ms, _) = at.split_once(" ms").expect("in milliseconds");
            ms.parse().expect("a number of milliseconds")
        })
        .collect()
}

/// `serve` sleeps the delay its listener was given between failed accepts, and
/// asyncio's second when it was given none: on a virtual clock, out of fds for good,
/// the failed accepts come exactly one delay apart.
#[test]
fn serve_sleeps_the_listeners_retry_delay_between_failed_accepts() {
    watchdog(Duration::from_secs(10), || {
        assert_eq!(CHILD_RETRY_DELAY, Duration::from_millis(100));
        assert_eq!(backoff_times("backoff"), [0, 100, 200, 300]);
        assert_eq!(ACCEPT_RETRY_DELAY, Duration::from_secs(1));
        assert_eq!(backoff_times("backoff-default"), [0, 1000, 2000, 3000]);
    });
}

#[test]
fn an_echo_server_out_of_fds_keeps_serving_and_accepts_again_when_fds_free_up() {
    watchdog(Duration::from_secs(10), || {
        let mut server = ServerChild::start("echo", &[], Some(NOFILE));
        let mut early: Vec<_> = (0..EARLY).map(|_| line_client(server.addr)).collect();
        for client in &mut early {
            assert_eq!(round_trip(client, "before\n"), "before\n");
        }
        // The kernel completes every handshake into the listener's backlog; the server
        // accepts until its fd table is full.
        let mut flood: Vec<_> = (0..FLOOD).map(|_| line_client(server.addr)).collect();
        let first = server.next_line_with(ACCEPT_OUT_OF_RESOURCES, Duration::from_secs(5));
        let started = Instant::now();
        assert!(first.contains("Too many open files"), "{first}");

        // Exhausted: the clients it has are still served.
        for client in &mut early {
            assert_eq!(round_trip(client, "during\n"), "during\n");
        }
        // Failed accepts come one per retry delay, not in a spin.
        for _ in 1..FAILED_ACCEPTS {
            server.next_line_with(ACCEPT_OUT_OF_RESOURCES, Duration::from_secs(5));
        }
        let watched = started.elapsed();
        let spin_free = FAILED_ACCEPTS - 1;
        assert!(
            watched >= CHILD_RETRY_DELAY * u32::try_from(spin_free).expect("small") / 4,
            "{FAILED_ACCEPTS} failed accepts within {watched:?}: the server retries in a spin"
        );
        server.assert_alive();

        // Free fds: all but the last few of the flood hang up. Those the server had
        // accepted (the first ones: the backlog is first come, first served) free their
        // fds; at its next retry the server accepts the rest of the backlog — the hung-up
        // ones, reaped at once, then the last few and a newcomer, which it serves.
        let waiting = flood.split_off(FLOOD - KEPT);
        drop(flood);
        let newcomer = line_client(server.addr);
        for mut client in waiting.into_iter().chain([newcomer]) {
            assert_eq!(round_trip(&mut client, "after\n"), "after\n");
        }
        for client in &mut early {
            assert_eq!(round_trip(client, "still\n"), "still\n");
        }
        server.assert_alive();
    });
}

/// The chat child's per-member limit.
const CHAT_LIMIT: usize = 256 * 1024;
/// One chat line: 4 KiB, newline included.
const CHAT_LINE: usize = 4 * 1024;
/// The most the sender sends while waiting for the slow member to be dropped.
const CHAT_MOST: usize = 32 * 1024 * 1024;

/// A chat client that has read its welcome, so it is in the room.
fn member(addr: SocketAddr) -> BufReader<StdStream> {
    let mut client = line_client(addr);
    let mut welcome = String::new();
    client.read_line(&mut welcome).expect("the welcome");
    assert_eq!(welcome, WELCOME);
    client
}

#[test]
fn a_chat_member_that_never_reads_is_disconnected_at_its_queue_limit() {
    watchdog(Duration::from_secs(10), || {
        let server = ServerChild::start("chat", &[(CHAT_LIMIT_ENV, CHAT_LIMIT.to_string())], None);
        // Member 0 reads its welcome, then nothing more until it is dropped.
        let slow = member(server.addr);
        // Member 1 reads everything, and counts the marker line.
        let reader = member(server.addr);
        let reading = thread::spawn(move || {
            let mut reader = reader;
            let mut line = String::new();
            loop {
                line.clear();
                match reader.read_line(&mut line) {
                    Ok(0) | Err(_) => return false,
                    Ok(_) if line == "marker\n" => return true,
                    Ok(_) => {}
                }
            }
        });
        // Member 2 sends until the slow member is dropped.
        let mut sender = member(server.addr);
        let mut line = vec![b'y'; CHAT_LINE];
        line[CHAT_LINE - 1] = b'\n';
        let mut report = None;
        let mut sent = 0;
        while report.is_none() && sent < CHAT_MOST {
            sender.get_mut().write_all(&line).expect("send");
            sent += CHAT_LINE;
            report = server
                .stderr_now()
                .into_iter()
                .find(|l| l.contains(SLOW_MEMBER_DISCONNECTED));
        }
        let report = report.unwrap_or_else(|| {
            panic!("{sent} bytes sent and the member that never reads is still in the room")
        });
        // "… (chat member 0): Q bytes queued, a line of L bytes, limit M bytes"
        assert!(report.contains("(chat member 0)"), "{report}");
        let numbers: Vec<usize> = report
            .rsplit("): ")
            .next()
            .expect("the detail")
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|n| n.parse().ok())
            .collect();
        let [queued, line_len, limit] = numbers[..] else {
            panic!("three numbers in {report}");
        };
        assert_eq!((line_len, limit), (CHAT_LINE, CHAT_LIMIT), "{report}");
        assert!(
            queued <= CHAT_LIMIT && queued + line_len > CHAT_LIMIT,
            "dropped with {queued} bytes queued: the bound held and was reached"
        );

        // The room goes on without it.
        sender.get_mut().write_all(b"marker\n").expect("send");
        assert!(
            reading.join().expect("the reader"),
            "the reader got the marker"
        );
        // The dropped member reads what reached its socket, then end of file.
        let mut rest = Vec::new();
        let mut slow = slow.into_inner();
        slow.set_read_timeout(Some(Duration::from_secs(8)))
            .expect("a read timeout");
        slow.read_to_end(&mut rest)
            .expect("end of file, not an error");
        sender.get_mut().shutdown(Shutdown::Both).expect("shutdown");
    });
}

#[test]
fn a_chat_rooms_queues_never_pass_its_limit() {
    watchdog(Duration::from_secs(10), || {
        let listener = StdListener::bind("127.0.0.1:0").expect("bind loopback");
        let addr = listener.local_addr().expect("an address");
        let gave_up = Arc::new(AtomicBool::new(false));
        let gave_up_in_loop = Arc::clone(&gave_up);
        // The room runs in-process, on a loop thread, so that the test can read what
        // the room itself counted.
        let server = thread::spawn(move || {
            let mut event_loop = new_event_loop().expect("epoll");
            let room = ChatRoom::with_limit(CHAT_LIMIT);
            let in_loop = Rc::clone(&room);
            event_loop
                .run_until_complete(async move {
                    let listener = TcpListener::from_std(listener).expect("non-blocking");
                    drop(spawn(serve_room(listener, Rc::clone(&in_loop))));
                    // A bounded poll: the room's count, or the sender giving up.
                    while in_loop.disconnected() == 0 && !gave_up_in_loop.load(Ordering::SeqCst) {
                        sleep(Duration::from_millis(5)).await;
                    }
                })
                .expect("the loop runs");
            (room.peak_queued(), room.disconnected(), room.len())
        });
        let slow = member(addr);
        let reader = member(addr);
        let reading = thread::spawn(move || {
            let mut reader = reader;
            let mut sink = vec![0; 64 * 1024];
            while matches!(reader.get_mut().read(&mut sink), Ok(n) if n > 0) {}
        });
        let mut sender = member(addr);
        let mut line = vec![b'z'; CHAT_LINE];
        line[CHAT_LINE - 1] = b'\n';
        let mut sent = 0;
        // Until the room closes the sockets (it stops after the first disconnect).
        while sent < CHAT_MOST && sender.get_mut().write_all(&line).is_ok() {
            sent += CHAT_LINE;
        }
        gave_up.store(true, Ordering::SeqCst);
        let (peak, disconnected, _) = server.join().expect("the loop thread");
        assert_eq!(disconnected, 1, "{sent} bytes sent");
        assert!(
            peak <= CHAT_LIMIT && peak + CHAT_LINE > CHAT_LIMIT,
            "the room's largest queue was {peak} bytes, limit {CHAT_LIMIT}"
        );
        drop((slow, sender));
        reading.join().expect("the reader");
    });
}

#[test]
fn a_chat_server_out_of_fds_keeps_its_members_talking() {
    watchdog(Duration::from_secs(10), || {
        let limit = [(CHAT_LIMIT_ENV, CHAT_LIMIT.to_string())];
        let mut server = ServerChild::start("chat", &limit, Some(NOFILE));
        let mut speaker = member(server.addr);
        let mut listener = member(server.addr);
        let flood: Vec<_> = (0..FLOOD).map(|_| line_client(server.addr)).collect();
        let report = server.next_line_with(ACCEPT_OUT_OF_RESOURCES, Duration::from_secs(5));
        assert!(report.contains("Too many open files"), "{report}");
        // Out of fds, the room goes on.
        speaker.get_mut().write_all(b"during\n").expect("send");
        let mut heard = String::new();
        listener.read_line(&mut heard).expect("the line");
        assert_eq!(heard, "during\n");
        server.assert_alive();
        drop(flood);
    });
}
