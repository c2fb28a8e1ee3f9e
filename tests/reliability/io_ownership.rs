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
//!
//! The tests at the end attack the ownership rule itself: a socket dropped by a callback
//! while its own reader is queued in the same turn, a task left waiting on a socket that
//! goes, a socket made in one loop and dropped while another runs, one registered in a
//! loop that neither made it nor runs at the drop, a cancelled accept, a drop after close,
//! a reader holding its own stream when close empties the table, a waker that panics
//! when a socket's drop wakes it.
//! Each passed when written; each fails if the rule it leans on is taken out (the queued
//! handle not cancelled, the waiting task not woken, either table not released, the
//! staleness check skipped, the table borrowed while close drops the callbacks). Two
//! failed before their fix: with a duplicate fd the stale reader ran on every event, and
//! a refused `add_reader` dropped its callback under the table's borrow, so a stream it
//! owned panicked with "already borrowed" when its drop released its fd.

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
use oneloop_testkit::{DropFlag, alone, watchdog_default};

/// A connected loopback pair whose oneloop side is accepted by a task of `event_loop`,
/// so that the stream is made in that loop.
fn pair_made_in(event_loop: &mut IoLoop) -> (StdStream, TcpStream) {
    event_loop
        .run_until_complete(async {
            let listener = TcpListener::bind("127.0.0.1:0")?;
            let client = StdStream::connect(listener.local_addr()?)?;
            let (stream, _) = listener.accept().await?;
            std::io::Result::Ok((client, stream))
        })
        .expect("the accepting task finishes")
        .expect("a loopback pair connects")
}

/// A flag, and a callback that raises it.
fn flag() -> (Rc<Cell<bool>>, impl Fn() + 'static) {
    let raised = Rc::new(Cell::new(false));
    let raise = Rc::clone(&raised);
    (raised, move || raise.set(true))
}

/// The reports of `event_loop`'s exception handler, collected in order.
fn collect_reports(event_loop: &IoLoop) -> Rc<RefCell<Vec<ExceptionReport>>> {
    let reports: Rc<RefCell<Vec<ExceptionReport>>> = Rc::default();
    let into = Rc::clone(&reports);
    event_loop.set_exception_handler(move |report| into.borrow_mut().push(report.clone()));
    reports
}

/// Makes things with `make` until one has the fd number `fd` (the kernel hands out the
/// lowest free number). A test that calls it runs alone in a child process
/// ([`alone`]): another test's thread could hold `fd` for as long as that test runs.
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

/// A std listener with the fd number `fd`: readable once a client connects.
fn listener_with_number(fd: RawFd) -> StdListener {
    with_number(
        fd,
        || StdListener::bind("127.0.0.1:0").unwrap(),
        |listener| listener.as_raw_fd(),
    )
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
    let (client, old) = crate::loopback_pair();
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
    if !alone(
        module_path!(),
        "a_dropped_stream_takes_its_reader_with_it_and_a_reused_fd_fires",
    ) {
        return;
    }
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let io = Io::of(&event_loop).unwrap();
        let (old_ran, mark_old_ran) = flag();
        let fd = drop_registered_in_task(&mut event_loop, move |io, old| {
            io.add_reader(old, mark_old_ran).unwrap();
        });
        // A listener with the same number: readable once a client connects.
        let listener = listener_with_number(fd);
        let listener = TcpListener::from_std(listener).unwrap();
        let (fired, mark_fired) = flag();
        io.add_reader(&listener, mark_fired).unwrap();
        let _client = StdStream::connect(listener.local_addr().unwrap()).unwrap();
        run_until(&mut event_loop, || fired.get());
        assert!(!old_ran.get(), "the old socket's reader never runs");
        assert!(io.remove_reader(&listener));
    });
}

#[test]
fn a_dropped_stream_takes_its_writer_with_it_and_a_reused_fd_fires() {
    if !alone(
        module_path!(),
        "a_dropped_stream_takes_its_writer_with_it_and_a_reused_fd_fires",
    ) {
        return;
    }
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let io = Io::of(&event_loop).unwrap();
        let fd = drop_registered_in_task(&mut event_loop, |io, old| {
            // Writable at once, but the task drops it before the loop parks again.
            io.add_writer(old, || {}).unwrap();
        });
        let (new, _other) = udp_with_number(fd);
        let (fired, mark_fired) = flag();
        io.add_writer(&new, mark_fired).unwrap();
        run_until(&mut event_loop, || fired.get());
        assert!(io.remove_writer(&new));
    });
}

#[test]
fn a_one_shot_wait_on_a_reused_fd_is_woken() {
    if !alone(module_path!(), "a_one_shot_wait_on_a_reused_fd_is_woken") {
        return;
    }
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let fd = drop_registered_in_task(&mut event_loop, |io, old| {
            io.add_reader(old, || {}).unwrap();
        });
        let listener = listener_with_number(fd);
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
    if !alone(
        module_path!(),
        "a_raw_fd_closed_without_remove_leaves_a_stale_entry_that_a_reused_fd_replaces",
    ) {
        return;
    }
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
        let (fired, mark_fired) = flag();
        io.add_reader(&new, mark_fired).unwrap();
        assert!(captured.dropped(), "the stale reader was dropped on reuse");
        peer.send(b"x").unwrap();
        run_until(&mut event_loop, || fired.get());
        assert!(io.remove_reader(&new));
        assert_eq!(io.registrations(), 0);
    });
}

#[test]
fn a_reused_raw_fd_with_a_stale_writer_and_a_new_reader_runs_only_the_new_one() {
    if !alone(
        module_path!(),
        "a_reused_raw_fd_with_a_stale_writer_and_a_new_reader_runs_only_the_new_one",
    ) {
        return;
    }
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let io = Io::of(&event_loop).unwrap();
        let (old, _old_peer) = UnixStream::pair().unwrap();
        let fd = old.as_raw_fd();
        let (stale_ran, mark_stale_ran) = flag();
        io.add_writer(&old, mark_stale_ran).unwrap();
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
    if !alone(
        module_path!(),
        "removing_one_side_of_a_stale_entry_registers_nothing_for_the_new_file",
    ) {
        return;
    }
    watchdog_default(|| {
        use oneloop_timers::LoopTimers;
        let mut event_loop = new_event_loop().unwrap();
        let io = Io::of(&event_loop).unwrap();
        let (old, _old_peer) = UnixStream::pair().unwrap();
        let fd = old.as_raw_fd();
        let (stale_ran, mark_stale_ran) = flag();
        io.add_reader(&old, || {}).unwrap();
        io.add_writer(&old, mark_stale_ran).unwrap();
        drop(old);
        let (new, _peer) = udp_with_number(fd);
        // The new file is writable at once: were the stale writer given to epoll for it,
        // it would run in the next turn.
        assert!(io.remove_reader(&new), "the number's reader is removed");
        let (timer_ran, mark_timer_ran) = flag();
        event_loop
            .timers()
            .call_later(std::time::Duration::ZERO, mark_timer_ran);
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
        let (_client, server) = crate::loopback_pair();
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
        let (_client, server) = crate::loopback_pair();
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

/// Run alone in a child process (fds opened by other tests' threads would blur the
/// count): 50 loops, each with a reader that holds its loop, run a turn and close.
#[test]
fn fifty_closed_loops_leave_no_fd_open() {
    if !alone(module_path!(), "fifty_closed_loops_leave_no_fd_open") {
        return;
    }
    watchdog_default(fifty_loops);
}

fn fifty_loops() {
    let (mut client, server) = crate::loopback_pair();
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

impl WakesThenPanics {
    /// Polls `future` with a waker that wakes the task behind `cx`, then panics.
    fn poll_through<F: Future + Unpin>(future: &mut F, cx: &Context<'_>) -> Poll<F::Output> {
        let breaking = Waker::from(Arc::new(Self(cx.waker().clone())));
        std::pin::Pin::new(future).poll(&mut Context::from_waker(&breaking))
    }
}

#[test]
fn a_panicking_waker_on_an_io_wait_is_reported_and_no_task_is_lost() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let reports = collect_reports(&event_loop);
        let (mut first_client, first) = crate::loopback_pair();
        let (mut second_client, second) = crate::loopback_pair();
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
                let poll = WakesThenPanics::poll_through(&mut wait, cx);
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

// Attacks on ownership: sockets dropped while events are processed, from another loop,
// after close, and a task left waiting on a socket that goes.

#[test]
fn a_socket_dropped_by_an_earlier_reader_in_the_same_turn_never_runs_its_queued_reader() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let io = Io::of(&event_loop).unwrap();
        let (mut first_client, first) = crate::loopback_pair();
        let (mut second_client, second) = crate::loopback_pair();
        let second = Rc::new(RefCell::new(Some(second)));
        let (second_ran, mark_second_ran) = flag();
        io.add_reader(second.borrow().as_ref().unwrap(), mark_second_ran)
            .unwrap();
        let first_ran = Rc::new(Cell::new(false));
        let (ran, victim) = (Rc::clone(&first_ran), Rc::clone(&second));
        let first_fd = first.as_raw_fd();
        io.add_reader(&first_fd, move || {
            ran.set(true);
            // The second socket's reader is queued behind this one, in the same turn.
            drop(victim.borrow_mut().take());
        })
        .unwrap();
        // Readable in this order before the loop parks: one park reports first, second.
        first_client.write_all(b"1").unwrap();
        second_client.write_all(b"2").unwrap();
        event_loop.run_once().unwrap();
        assert!(first_ran.get(), "the first reader ran");
        assert!(
            !second_ran.get(),
            "the dropped socket's queued reader was cancelled"
        );
        assert!(io.remove_reader(&first_fd));
        assert_eq!(io.registrations(), 0, "the dropped socket left nothing");
        drop(first);
    });
}

#[test]
fn a_task_waiting_on_a_socket_that_is_dropped_is_woken_to_retry() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let (_client, stream) = crate::loopback_pair();
        // A readiness future names an fd number, not the socket: it can outlive it.
        let mut wait = readable(&stream);
        let polls = Rc::new(Cell::new(0));
        let counted = Rc::clone(&polls);
        let _waiting = event_loop.spawn(poll_fn(move |cx: &mut Context<'_>| {
            counted.set(counted.get() + 1);
            std::pin::Pin::new(&mut wait).poll(cx)
        }));
        let polls_after_drop = event_loop
            .run_until_complete(async move {
                oneloop_core::yield_now().await;
                assert_eq!(polls.get(), 1, "the task waits in the stream's entry");
                // The drop must wake it, or it waits for an event no file can send.
                // (Its next poll ends the wait as ready: the task retries and finds its
                // socket gone.)
                drop(stream);
                oneloop_core::yield_now().await;
                polls.get()
            })
            .expect("the main task finishes");
        assert_eq!(polls_after_drop, 2, "the drop woke the waiting task");
    });
}

#[test]
fn a_socket_made_in_one_loop_and_dropped_while_another_runs_leaves_neither_table_an_entry() {
    if !alone(
        module_path!(),
        "a_socket_made_in_one_loop_and_dropped_while_another_runs_leaves_neither_table_an_entry",
    ) {
        return;
    }
    watchdog_default(|| {
        let mut first = new_event_loop().unwrap();
        let mut second = new_event_loop().unwrap();
        let first_io = Io::of(&first).unwrap();
        let second_io = Io::of(&second).unwrap();
        let (client, stream) = pair_made_in(&mut first);
        let fd = stream.as_raw_fd();
        first_io.add_reader(&stream, || {}).unwrap();
        second_io.add_writer(&stream, || {}).unwrap();
        second
            .run_until_complete(async move { drop(stream) })
            .unwrap();
        assert_eq!(first_io.registrations(), 0, "the loop it was made in");
        assert_eq!(second_io.registrations(), 0, "the loop running at the drop");
        drop(client);
        // The number comes back in the first loop, and a reader on it fires.
        let listener = listener_with_number(fd);
        let (fired, mark_fired) = flag();
        first_io.add_reader(&listener, mark_fired).unwrap();
        let _client = StdStream::connect(listener.local_addr().unwrap()).unwrap();
        run_until(&mut first, || fired.get());
        assert!(first_io.remove_reader(&listener));
    });
}

#[test]
fn a_socket_registered_in_a_third_loop_leaves_a_stale_entry_that_reuse_replaces() {
    if !alone(
        module_path!(),
        "a_socket_registered_in_a_third_loop_leaves_a_stale_entry_that_reuse_replaces",
    ) {
        return;
    }
    watchdog_default(|| {
        let mut made_in = new_event_loop().unwrap();
        let mut other = new_event_loop().unwrap();
        let other_io = Io::of(&other).unwrap();
        let (_client, stream) = pair_made_in(&mut made_in);
        let fd = stream.as_raw_fd();
        // Registered in a loop that neither made it nor runs when it is dropped.
        other_io
            .add_reader(&stream, || panic!("a dropped socket's reader ran"))
            .unwrap();
        made_in
            .run_until_complete(async move { drop(stream) })
            .unwrap();
        assert_eq!(other_io.registrations(), 1, "that loop's entry is stale");
        // The stale entry never fires, and the next task on the number is woken.
        let listener = listener_with_number(fd);
        let listener = TcpListener::from_std(listener).unwrap();
        let addr = listener.local_addr().unwrap();
        let accepted = other
            .run_until_complete(async move {
                let accepting =
                    oneloop_core::spawn(
                        async move { listener.accept().await.map(|(_, peer)| peer) },
                    );
                // The accept waits on the number first; only then does a client come.
                oneloop_core::yield_now().await;
                let _client = StdStream::connect(addr).unwrap();
                accepting.await
            })
            .expect("the main task finishes");
        assert!(accepted.unwrap().is_ok(), "the accept was woken");
        assert_eq!(other_io.registrations(), 0, "the stale entry was replaced");
    });
}

#[test]
fn a_listener_whose_accept_timed_out_is_dropped_and_its_number_accepts_again() {
    if !alone(
        module_path!(),
        "a_listener_whose_accept_timed_out_is_dropped_and_its_number_accepts_again",
    ) {
        return;
    }
    watchdog_default(|| {
        use oneloop_timers::timeout;
        let mut event_loop = new_event_loop().unwrap();
        let io = Io::of(&event_loop).unwrap();
        let fd = event_loop
            .run_until_complete(async {
                let listener = TcpListener::bind("127.0.0.1:0").unwrap();
                let fd = listener.as_raw_fd();
                let waited = timeout(std::time::Duration::from_millis(1), listener.accept()).await;
                assert!(waited.is_err(), "nobody connects");
                fd
            })
            .unwrap();
        assert_eq!(io.registrations(), 0, "the cancelled accept left nothing");
        let listener = listener_with_number(fd);
        let listener = TcpListener::from_std(listener).unwrap();
        let _client = StdStream::connect(listener.local_addr().unwrap()).unwrap();
        let accepted = event_loop
            .run_until_complete(async move { listener.accept().await.map(|(_, peer)| peer) })
            .unwrap();
        assert!(accepted.is_ok(), "{accepted:?}");
    });
}

#[test]
fn a_socket_dropped_after_its_loop_closed_or_went_touches_nothing() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let io = Io::of(&event_loop).unwrap();
        let (client, stream) = pair_made_in(&mut event_loop);
        let (kept_client, kept) = pair_made_in(&mut event_loop);
        io.add_reader(&stream, || {}).unwrap();
        io.add_reader(&kept, || {}).unwrap();
        event_loop.close();
        drop(stream);
        drop(client);
        assert_eq!(io.registrations(), 0);
        drop(io);
        drop(event_loop);
        // The loop and its table are gone: the drop finds no table to release.
        drop(kept);
        drop(kept_client);
    });
}

#[test]
fn a_raw_fd_closed_while_a_duplicate_keeps_its_file_open_never_runs_its_stale_reader() {
    if !alone(
        module_path!(),
        "a_raw_fd_closed_while_a_duplicate_keeps_its_file_open_never_runs_its_stale_reader",
    ) {
        return;
    }
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let io = Io::of(&event_loop).unwrap();
        let (old, mut peer) = UnixStream::pair().unwrap();
        let fd = old.as_raw_fd();
        // epoll forgets a file only when its last fd closes: the duplicate keeps the
        // file, and its registration under the old number, alive.
        let duplicate = old.try_clone().unwrap();
        let reading = old.try_clone().unwrap();
        reading.set_nonblocking(true).unwrap();
        let stale_runs = Rc::new(Cell::new(0));
        let counted = Rc::clone(&stale_runs);
        io.add_reader(&old, move || counted.set(counted.get() + 1))
            .unwrap();
        drop(old);
        // A reader on the duplicate: the same file, so each write reports both numbers
        // in the same park, and this reader drains what came.
        let drained = Rc::new(Cell::new(0));
        let into = Rc::clone(&drained);
        io.add_reader(&duplicate, move || {
            let mut buf = [0; 8];
            if let Ok(n) = std::io::Read::read(&mut &reading, &mut buf) {
                into.set(into.get() + n);
            }
        })
        .unwrap();
        for round in 1..=3 {
            peer.write_all(b"x").unwrap();
            run_until(&mut event_loop, || drained.get() == round);
        }
        assert_eq!(
            stale_runs.get(),
            0,
            "the stale reader of a closed fd never ran"
        );
        assert!(io.remove_reader(&duplicate));
        drop(duplicate);
        // The number comes back: the stale entry is replaced, and the new reader fires.
        let (new, sender) = udp_with_number(fd);
        let (fired, mark_fired) = flag();
        io.add_reader(&new, mark_fired).unwrap();
        sender.send(b"y").unwrap();
        run_until(&mut event_loop, || fired.get());
        assert_eq!(stale_runs.get(), 0);
        assert!(io.remove_reader(&new));
        assert_eq!(io.registrations(), 0);
    });
}

#[test]
fn close_frees_a_reader_that_holds_its_own_stream_and_the_stream_closes() {
    watchdog_default(|| {
        use std::io::Read;
        let mut event_loop = new_event_loop().unwrap();
        let reports = collect_reports(&event_loop);
        let io = Io::of(&event_loop).unwrap();
        let (mut client, stream) = crate::loopback_pair();
        let stream = Rc::new(stream);
        let captured = DropFlag::new();
        let guard = captured.guard();
        // A cycle through the table: the entry holds the reader, the reader the stream.
        let own = Rc::clone(&stream);
        io.add_reader(&*stream, move || {
            let _ = (&own, &guard);
        })
        .unwrap();
        drop(stream);
        // Close drops the reader while it empties the table; the stream's own drop then
        // releases its fd in that same table, and must find it free to borrow.
        event_loop.close();
        assert!(captured.dropped(), "close dropped the reader");
        assert!(reports.borrow().is_empty(), "{:?}", reports.borrow());
        let mut rest = Vec::new();
        client.read_to_end(&mut rest).unwrap();
        assert!(
            rest.is_empty(),
            "the stream was closed: the peer reads end of file"
        );
    });
}

#[test]
fn a_waker_that_panics_when_a_dropped_socket_wakes_it_is_reported_and_the_drop_completes() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let reports = collect_reports(&event_loop);
        let (_client, stream) = crate::loopback_pair();
        let mut wait = readable(&stream);
        let _waiting = event_loop.spawn(poll_fn(move |cx: &mut Context<'_>| {
            WakesThenPanics::poll_through(&mut wait, cx)
        }));
        let dropped = event_loop
            .run_until_complete(async move {
                oneloop_core::yield_now().await;
                // Releasing the entry wakes the waiting task through its breaking waker.
                drop(stream);
                true
            })
            .expect("the panic did not escape the socket's drop");
        assert!(dropped);
        let reports = reports.borrow();
        assert_eq!(reports.len(), 1, "{reports:?}");
        assert!(
            reports[0].panic.contains("this waker breaks"),
            "{reports:?}"
        );
    });
}

#[test]
fn a_refused_registration_drops_its_callback_after_the_table_is_released() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let io = Io::of(&event_loop).unwrap();
        let (_client, stream) = pair_made_in(&mut event_loop);
        let (_other_client, other) = crate::loopback_pair();
        event_loop.close();
        // The callback owns a stream of this loop: dropping it releases the stream's fd
        // in this table, so it must not be dropped while the table is borrowed.
        let error = io
            .add_reader(&other, move || {
                let _ = &stream;
            })
            .unwrap_err();
        assert_eq!(error.to_string(), oneloop_io::IO_CLOSED);
    });
}

/// Whether `T` is `Send`, answered at compile time and returned as a value: the
/// inherent method exists only when `T: Send` and wins over the trait's blanket one.
struct SendProbe<T>(std::marker::PhantomData<T>);

trait NotSend {
    fn is_send(&self) -> bool {
        false
    }
}

impl<T> NotSend for SendProbe<T> {}

impl<T: Send> SendProbe<T> {
    fn is_send(&self) -> bool {
        true
    }
}

#[test]
fn sockets_of_the_loop_are_not_send_while_std_sockets_are() {
    // The probe itself tells the two apart: std's stream is Send.
    assert!(SendProbe::<StdStream>(std::marker::PhantomData).is_send());
    assert!(SendProbe::<StdListener>(std::marker::PhantomData).is_send());
    // A oneloop socket's drop edits its loop's single-threaded I/O table.
    assert!(!SendProbe::<TcpStream>(std::marker::PhantomData).is_send());
    assert!(!SendProbe::<TcpListener>(std::marker::PhantomData).is_send());
}
