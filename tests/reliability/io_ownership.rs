//! Who owns an I/O registration, and what closing a loop releases.
//!
//! - fd reuse: the I/O table is keyed by fd number. A socket dropped with a reader or a
//!   writer still registered must take its entry with it, or the next socket to get the
//!   same number inherits an entry that epoll no longer backs, and waits for ever.
//!   Checked for a persistent reader, a persistent writer and a one-shot readiness
//!   wait, and for a raw fd closed without being removed.
//! - close: a reader callback holding the loop must not keep the loop alive after
//!   close, and fifty loops closed must leave no fd open.
//! - a waker that panics when an I/O event wakes it is reported, and the loop goes on.
//!
//! Every wait runs under the watchdog: before the fixes, each fd-reuse test hung.

use std::cell::{Cell, RefCell};
use std::future::{Future, poll_fn};
use std::io::Write;
use std::net::{TcpListener as StdListener, TcpStream as StdStream, UdpSocket};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::UnixStream;
use std::rc::Rc;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use oneloop_core::ExceptionReport;
use oneloop_io::{Io, IoLoop, TcpListener, TcpStream, new_event_loop, readable};
use oneloop_testkit::{DropFlag, watchdog_default};

/// A connected loopback pair: a std client and the accepted side as a oneloop stream.
fn pair() -> (StdStream, TcpStream) {
    let listener = StdListener::bind("127.0.0.1:0").expect("bind loopback");
    let client = StdStream::connect(listener.local_addr().unwrap()).expect("connect");
    let (server, _) = listener.accept().expect("accept");
    (client, TcpStream::from_std(server).expect("non-blocking"))
}

/// Makes things with `make` until one has the fd number `fd` (the kernel hands out the
/// lowest free number; another test's thread may hold `fd` for a moment).
fn with_number<T>(fd: RawFd, mut make: impl FnMut() -> T, number: impl Fn(&T) -> RawFd) -> T {
    // Lower numbers are held until the end, so that the kernel moves on to `fd`.
    let mut lower = Vec::new();
    for _ in 0..10_000 {
        let made = make();
        match number(&made) {
            n if n == fd => return made,
            n if n < fd => lower.push(made),
            _ => drop(made),
        }
    }
    panic!("fd {fd} never came back: another thread keeps it");
}

/// A non-blocking UDP socket with the fd number `fd` (one socket, one fd: writable at
/// once, readable when a datagram comes), and a socket to send it datagrams.
fn udp_with_number(fd: RawFd) -> (UdpSocket, UdpSocket) {
    let socket = with_number(
        fd,
        || UdpSocket::bind("127.0.0.1:0").unwrap(),
        |socket| socket.as_raw_fd(),
    );
    socket.set_nonblocking(true).unwrap();
    let sender = UdpSocket::bind("127.0.0.1:0").unwrap();
    sender.connect(socket.local_addr().unwrap()).unwrap();
    (socket, sender)
}

/// Runs turns until `done()` holds. A turn with nothing to do parks in epoll until an
/// event comes, so a lost registration hangs here (and the watchdog reports it).
fn run_until(event_loop: &mut IoLoop, done: impl Fn() -> bool) {
    while !done() {
        event_loop.run_once().expect("a turn runs");
    }
}

/// Registers on `old` with `register`, then drops it inside a task (as a server drops
/// a finished connection) without removing anything. Returns its fd number.
fn drop_registered_in_task(
    event_loop: &mut IoLoop,
    register: impl FnOnce(&Io, &TcpStream) + 'static,
) -> RawFd {
    let (client, old) = pair();
    let fd = old.as_raw_fd();
    event_loop
        .run_until_complete(async move {
            let io = Io::current().expect("an I/O loop");
            register(&io, &old);
            drop(old);
            drop(client);
        })
        .expect("the task runs");
    fd
}

#[test]
fn a_dropped_stream_takes_its_reader_with_it_and_a_reused_fd_fires() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let io = Io::of(&event_loop).unwrap();
        let old_ran = Rc::new(Cell::new(false));
        let flag = Rc::clone(&old_ran);
        let fd = drop_registered_in_task(&mut event_loop, move |io, old| {
            io.add_reader(old, move || flag.set(true)).unwrap();
        });
        // A listener with the same number: readable once a client connects.
        let listener = with_number(
            fd,
            || StdListener::bind("127.0.0.1:0").unwrap(),
            |listener| listener.as_raw_fd(),
        );
        let listener = TcpListener::from_std(listener).unwrap();
        let fired = Rc::new(Cell::new(false));
        let seen = Rc::clone(&fired);
        io.add_reader(&listener, move || seen.set(true)).unwrap();
        let _client = StdStream::connect(listener.local_addr().unwrap()).unwrap();
        run_until(&mut event_loop, || fired.get());
        assert!(!old_ran.get(), "the old socket's reader never runs");
        assert!(io.remove_reader(&listener));
    });
}

#[test]
fn a_dropped_stream_takes_its_writer_with_it_and_a_reused_fd_fires() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let io = Io::of(&event_loop).unwrap();
        let fd = drop_registered_in_task(&mut event_loop, |io, old| {
            // Writable at once, but the task drops it before the loop parks again.
            io.add_writer(old, || {}).unwrap();
        });
        let (new, _other) = udp_with_number(fd);
        let fired = Rc::new(Cell::new(false));
        let seen = Rc::clone(&fired);
        io.add_writer(&new, move || seen.set(true)).unwrap();
        run_until(&mut event_loop, || fired.get());
        assert!(io.remove_writer(&new));
    });
}

#[test]
fn a_one_shot_wait_on_a_reused_fd_is_woken() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let fd = drop_registered_in_task(&mut event_loop, |io, old| {
            io.add_reader(old, || {}).unwrap();
        });
        let listener = with_number(
            fd,
            || StdListener::bind("127.0.0.1:0").unwrap(),
            |listener| listener.as_raw_fd(),
        );
        let listener = TcpListener::from_std(listener).unwrap();
        let _client = StdStream::connect(listener.local_addr().unwrap()).unwrap();
        // `accept` says WouldBlock or takes the connection; either way it must end.
        let accepted = event_loop
            .run_until_complete(async move {
                readable(&listener).await?;
                listener.accept().await.map(|(_, peer)| peer)
            })
            .expect("the main task finishes");
        assert!(accepted.is_ok(), "{accepted:?}");
    });
}

#[test]
fn a_dropped_stream_leaves_nothing_in_the_table() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let io = Io::of(&event_loop).unwrap();
        let callbacks = DropFlag::new();
        let (reader, writer) = (callbacks.guard(), callbacks.guard());
        drop_registered_in_task(&mut event_loop, move |io, old| {
            io.add_reader(old, move || {
                let _ = &reader;
            })
            .unwrap();
            io.add_writer(old, move || {
                let _ = &writer;
            })
            .unwrap();
        });
        assert_eq!(io.registrations(), 0, "the stream's drop removed its entry");
        assert_eq!(callbacks.drops(), 2, "and dropped both callbacks");
        // Dropped outside any loop, a stream made in a loop releases that loop's entry.
        let io_of_task = Rc::clone(&io);
        let (client, stream) = event_loop
            .run_until_complete(async move {
                let listener = TcpListener::bind("127.0.0.1:0")?;
                let client = StdStream::connect(listener.local_addr()?)?;
                let (stream, _) = listener.accept().await?;
                io_of_task.add_reader(&stream, || {})?;
                std::io::Result::Ok((client, stream))
            })
            .unwrap()
            .unwrap();
        assert_eq!(io.registrations(), 1);
        drop(stream);
        drop(client);
        assert_eq!(io.registrations(), 0, "released where it was made");
    });
}

#[test]
fn a_raw_fd_closed_without_remove_leaves_a_stale_entry_that_a_reused_fd_replaces() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let io = Io::of(&event_loop).unwrap();
        let (old, _old_peer) = UnixStream::pair().unwrap();
        let fd = old.as_raw_fd();
        let captured = DropFlag::new();
        let guard = captured.guard();
        io.add_reader(&old, move || {
            let _ = &guard;
            panic!("the stale reader of a closed fd ran");
        })
        .unwrap();
        // A raw fd has no owner: closing it does not reach the table.
        drop(old);
        assert_eq!(io.registrations(), 1, "the stale entry stays until reused");
        assert!(!captured.dropped());
        let (new, peer) = udp_with_number(fd);
        let fired = Rc::new(Cell::new(false));
        let seen = Rc::clone(&fired);
        io.add_reader(&new, move || seen.set(true)).unwrap();
        assert!(captured.dropped(), "the stale reader was dropped on reuse");
        peer.send(b"x").unwrap();
        run_until(&mut event_loop, || fired.get());
        assert!(io.remove_reader(&new));
        assert_eq!(io.registrations(), 0);
    });
}

#[test]
fn a_reused_raw_fd_with_a_stale_writer_and_a_new_reader_runs_only_the_new_one() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let io = Io::of(&event_loop).unwrap();
        let (old, _old_peer) = UnixStream::pair().unwrap();
        let fd = old.as_raw_fd();
        let stale_ran = Rc::new(Cell::new(false));
        let flag = Rc::clone(&stale_ran);
        io.add_writer(&old, move || flag.set(true)).unwrap();
        drop(old);
        let (new, peer) = udp_with_number(fd);
        let got = Rc::new(RefCell::new(Vec::new()));
        let (reading, into) = (new.try_clone().unwrap(), Rc::clone(&got));
        io.add_reader(&new, move || {
            let mut buf = [0; 8];
            if let Ok(n) = reading.recv(&mut buf) {
                into.borrow_mut().extend_from_slice(&buf[..n]);
            }
        })
        .unwrap();
        peer.send(b"hi").unwrap();
        run_until(&mut event_loop, || got.borrow().len() == 2);
        assert!(io.remove_reader(&new));
        assert!(
            !stale_ran.get(),
            "the stale writer never ran for the new file"
        );
        assert!(
            !io.remove_writer(&new),
            "the stale writer went with its entry"
        );
    });
}

#[test]
fn removing_one_side_of_a_stale_entry_registers_nothing_for_the_new_file() {
    watchdog_default(|| {
        use oneloop_timers::LoopTimers;
        let mut event_loop = new_event_loop().unwrap();
        let io = Io::of(&event_loop).unwrap();
        let (old, _old_peer) = UnixStream::pair().unwrap();
        let fd = old.as_raw_fd();
        let stale_ran = Rc::new(Cell::new(false));
        let flag = Rc::clone(&stale_ran);
        io.add_reader(&old, || {}).unwrap();
        io.add_writer(&old, move || flag.set(true)).unwrap();
        drop(old);
        let (new, _peer) = udp_with_number(fd);
        // The new file is writable at once: were the stale writer given to epoll for it,
        // it would run in the next turn.
        assert!(io.remove_reader(&new), "the number's reader is removed");
        let timer_ran = Rc::new(Cell::new(false));
        let timer_flag = Rc::clone(&timer_ran);
        event_loop
            .timers()
            .call_later(std::time::Duration::ZERO, move || timer_flag.set(true));
        run_until(&mut event_loop, || timer_ran.get());
        assert!(
            !stale_ran.get(),
            "the stale writer never runs for the new file"
        );
        // The next registration on the number replaces the stale entry.
        io.add_writer(&new, || {}).unwrap();
        assert!(io.remove_writer(&new));
        assert_eq!(io.registrations(), 0);
    });
}

#[test]
fn close_drops_a_reader_that_holds_the_loop_and_the_loop_is_freed() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let core = Rc::clone(event_loop.core());
        let weak = Rc::downgrade(&core);
        let (_client, server) = pair();
        let captured = DropFlag::new();
        let guard = captured.guard();
        Io::of(&event_loop)
            .unwrap()
            .add_reader(&server, move || {
                let _ = (&core, &guard);
            })
            .unwrap();
        event_loop.close();
        assert!(captured.dropped(), "close dropped the reader callback");
        drop(event_loop);
        assert!(
            weak.upgrade().is_none(),
            "nothing keeps the closed loop alive"
        );
    });
}

#[test]
fn a_closed_loop_takes_no_registration() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let io = Io::of(&event_loop).unwrap();
        let (_client, server) = pair();
        event_loop.close();
        assert!(io.is_closed());
        let error = io.add_reader(&server, || {}).unwrap_err();
        assert_eq!(error.to_string(), oneloop_io::IO_CLOSED);
        assert_eq!(io.registrations(), 0);
    });
}

/// How many fds this process has open.
fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .expect("Linux: /proc/self/fd")
        .count()
}

const FD_CHILD: &str = "ONELOOP_FD_COUNT_CHILD";

/// Run alone in a child process (fds opened by other tests' threads would blur the
/// count): 50 loops, each with a reader that holds its loop, run a turn and close.
#[test]
fn fifty_closed_loops_leave_no_fd_open() {
    if std::env::var_os(FD_CHILD).is_none() {
        let child = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "io_ownership::fifty_closed_loops_leave_no_fd_open",
                "--exact",
                "--test-threads=1",
            ])
            .env(FD_CHILD, "1")
            .output()
            .expect("the test binary runs again");
        assert!(
            child.status.success(),
            "the child counting fds failed ({}):\n{}{}",
            child.status,
            String::from_utf8_lossy(&child.stdout),
            String::from_utf8_lossy(&child.stderr)
        );
        return;
    }
    watchdog_default(fifty_loops);
}

fn fifty_loops() {
    let (mut client, server) = pair();
    // Unread data: the reader fires in every turn, so a turn never waits.
    client.write_all(b"x").unwrap();
    let before = open_fds();
    for _ in 0..50 {
        let mut event_loop = new_event_loop().unwrap();
        let core = Rc::clone(event_loop.core());
        Io::of(&event_loop)
            .unwrap()
            .add_reader(&server, move || {
                let _ = &core;
            })
            .unwrap();
        event_loop.run_once().unwrap();
        event_loop.close();
    }
    assert_eq!(open_fds(), before, "every loop's fds were closed");
}

/// A waker that wakes the task it wraps, then panics.
struct WakesThenPanics(Waker);

impl Wake for WakesThenPanics {
    fn wake(self: Arc<Self>) {
        self.0.wake_by_ref();
        panic!("this waker breaks");
    }
}

#[test]
fn a_panicking_waker_on_an_io_wait_is_reported_and_no_task_is_lost() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let reports: Rc<RefCell<Vec<ExceptionReport>>> = Rc::default();
        let into = Rc::clone(&reports);
        event_loop.set_exception_handler(move |report| into.borrow_mut().push(report.clone()));
        let (mut first_client, first) = pair();
        let (mut second_client, second) = pair();
        let second_done = event_loop.spawn(async move {
            let mut buf = [0; 4];
            second.read(&mut buf).await.map(|n| buf[..n].to_vec())
        });
        let outcome = event_loop.run_until_complete(async move {
            // Let the other task start waiting, then make both sockets readable, so
            // that one park reports both events.
            oneloop_core::yield_now().await;
            let mut wait = readable(&first);
            let mut registered = false;
            poll_fn(|cx: &mut Context<'_>| {
                let breaking = Waker::from(Arc::new(WakesThenPanics(cx.waker().clone())));
                let poll = std::pin::Pin::new(&mut wait).poll(&mut Context::from_waker(&breaking));
                if !registered {
                    registered = true;
                    first_client.write_all(b"one").unwrap();
                    second_client.write_all(b"two").unwrap();
                }
                match poll {
                    Poll::Ready(result) => Poll::Ready(result),
                    Poll::Pending => Poll::Pending,
                }
            })
            .await
            .unwrap();
            second_done.await
        });
        let got = outcome.expect("the loop was not unwound by the waker");
        assert_eq!(got.unwrap().unwrap(), b"two");
        let reports = reports.borrow();
        assert_eq!(reports.len(), 1, "{reports:?}");
        assert!(
            reports[0].panic.contains("this waker breaks"),
            "{:?}",
            reports[0]
        );
        assert!(
            reports[0].label.to_string().contains("readable"),
            "{:?}",
            reports[0]
        );
    });
}
