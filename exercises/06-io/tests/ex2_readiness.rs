//! Exercise 2: the readiness future, and the sockets built on it.
//!
//! Every socket is a real loopback socket. Orders come from the loop's own turn counter
//! (an observer), never from sleeps; threads are ordered with channels.

use std::cell::{Cell, RefCell};
use std::future::{Future, poll_fn};
use std::io::Write;
use std::pin::{Pin, pin};
use std::rc::Rc;
use std::sync::mpsc;
use std::task::Poll;
use std::thread;
use std::time::Duration;

use crate::common::{Trace, log, pair, run_until, std_pair};
use ex06_io::{
    Io, NO_IO_DRIVER, TcpListener, TcpStream, new_event_loop, readable, serve, writable,
};
use oneloop_core::hooks::CancelFlag;
use oneloop_core::{Label, spawn, yield_now};
use oneloop_testkit::{CountingWaker, alone, watchdog_default};
use oneloop_timers::sleep;

type SharedCallback = Rc<dyn Fn()>;

#[test]
fn ex2_accept_connect_read_write_on_loopback() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let echoed = event_loop
            .run_until_complete(async {
                let listener = TcpListener::bind("127.0.0.1:0")?;
                let addr = listener.local_addr()?;
                let client = TcpStream::connect(addr).await?;
                let (server, peer) = listener.accept().await?;
                assert_eq!(peer, client.local_addr()?);
                client.write_all(b"hello").await?;
                let mut buf = [0; 5];
                let mut got = 0;
                while got < 5 {
                    got += server.read(&mut buf[got..]).await?;
                }
                server.write_all(&buf).await?;
                let mut back = [0; 5];
                let mut got = 0;
                while got < 5 {
                    got += client.read(&mut back[got..]).await?;
                }
                std::io::Result::Ok(back)
            })
            .unwrap()
            .unwrap();
        assert_eq!(&echoed, b"hello");
    });
}

#[test]
fn ex2_the_client_whose_data_arrives_first_is_served_first() {
    watchdog_default(|| {
        for first in ["a", "b"] {
            let mut event_loop = new_event_loop().unwrap();
            let listener = TcpListener::bind("127.0.0.1:0").unwrap();
            let addr = listener.local_addr().unwrap();
            let served = log();
            let seen = Rc::clone(&served);
            drop(event_loop.spawn(serve(listener, move |stream, _| {
                let seen = Rc::clone(&seen);
                async move {
                    let mut buf = [0; 1];
                    let n = stream.read(&mut buf).await.expect("read");
                    seen.borrow_mut()
                        .push(String::from_utf8_lossy(&buf[..n]).into_owned());
                }
            })));
            // a connects first, then b; both wait in the server before any data.
            let mut a = std::net::TcpStream::connect(addr).unwrap();
            let mut b = std::net::TcpStream::connect(addr).unwrap();
            let io = Io::of(&event_loop).unwrap();
            // The listener and the two connections are registered: both handlers wait.
            run_until(&mut event_loop, 50, || io.registrations() == 3);
            let (early, late) = if first == "a" {
                (&mut a, &mut b)
            } else {
                (&mut b, &mut a)
            };
            early
                .write_all(if first == "a" { b"a" } else { b"b" })
                .unwrap();
            run_until(&mut event_loop, 50, || served.borrow().len() == 1);
            late.write_all(if first == "a" { b"b" } else { b"a" })
                .unwrap();
            run_until(&mut event_loop, 50, || served.borrow().len() == 2);
            let expected: Vec<String> = if first == "a" {
                vec!["a".into(), "b".into()]
            } else {
                vec!["b".into(), "a".into()]
            };
            assert_eq!(
                *served.borrow(),
                expected,
                "served in order of data, not of connection"
            );
        }
    });
}

#[test]
fn ex2_two_sockets_readable_in_one_park_are_both_served_next_turn_in_arrival_order() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let trace = Trace::on(&event_loop);
        let (mut client_a, server_a) = pair();
        let (mut client_b, server_b) = pair();
        let served = log();
        // The test keeps both sockets open: a socket's drop releases its entry, which
        // would hide an entry that the completed waits left behind.
        let servers = [Rc::new(server_a), Rc::new(server_b)];
        for (name, server) in ["reader a", "reader b"].into_iter().zip(servers.clone()) {
            let served = Rc::clone(&served);
            drop(event_loop.spawn_named(name, async move {
                let mut buf = [0; 8];
                let n = server.read(&mut buf).await.expect("read");
                served
                    .borrow_mut()
                    .push(format!("{name}: {}", String::from_utf8_lossy(&buf[..n])));
            }));
        }
        // Turn 1: both readers find nothing and register; nothing else is ready.
        event_loop.run_once().unwrap();
        let io = Io::of(&event_loop).unwrap();
        assert_eq!(io.registrations(), 2);
        assert!(served.borrow().is_empty());
        // Both become readable before the loop parks again: b's data first, then a's.
        client_b.write_all(b"bee").unwrap();
        client_a.write_all(b"ay").unwrap();
        event_loop.run_once().unwrap();
        let turn = event_loop.turn();
        assert_eq!(trace.io_events(turn), 2, "one park saw both sockets");
        assert_eq!(trace.turn(turn), ["reader b", "reader a"]);
        assert_eq!(*served.borrow(), ["reader b: bee", "reader a: ay"]);
        assert_eq!(io.registrations(), 0, "one-shot: nobody waits any more");
        assert_eq!(io.armed(), 2, "the sockets stay registered with epoll");
        drop(servers);
    });
}

#[test]
fn ex2_a_spurious_poll_keeps_waiting_and_the_event_still_arrives() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let (mut client, server) = pair();
        let polls = Rc::new(Cell::new(0));
        let seen = Rc::clone(&polls);
        let core = Rc::clone(event_loop.core());
        let main = async move {
            let mut ready = pin!(readable(&server));
            let mut kicked = false;
            // Poll the readiness future, and wake ourselves once more (a spurious wake).
            poll_fn(|cx| {
                seen.set(seen.get() + 1);
                if let Poll::Ready(result) = ready.as_mut().poll(cx) {
                    return Poll::Ready(result);
                }
                if !kicked {
                    kicked = true;
                    cx.waker().wake_by_ref();
                }
                Poll::Pending
            })
            .await
            .expect("readable");
            let mut buf = [0; 4];
            server.try_read(&mut buf).expect("data is there")
        };
        let task = event_loop.spawn(main);
        // Turn 1 registers; turn 2 is the spurious poll: still pending, still registered.
        event_loop.run_once().unwrap();
        event_loop.run_once().unwrap();
        assert_eq!(polls.get(), 2);
        assert!(
            task.try_take().is_none(),
            "a spurious poll does not finish the wait"
        );
        assert_eq!(Io::of(&core).unwrap().registrations(), 1);
        client.write_all(b"data").unwrap();
        run_until(&mut event_loop, 10, || polls.get() == 3);
        assert_eq!(task.try_take().unwrap().unwrap(), 4);
    });
}

#[test]
fn ex2_a_poll_with_a_new_waker_moves_the_wait_to_it() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let (mut client, server) = pair();
        let stale = Rc::new(CountingWaker::new());
        let polls = Rc::new(Cell::new(0));
        let (old, seen) = (Rc::clone(&stale), Rc::clone(&polls));
        let task = event_loop.spawn(async move {
            let mut ready = pin!(readable(&server));
            // The first poll happens under a waker that is not this task's...
            let first = old.with_context(|cx| ready.as_mut().poll(cx));
            assert!(first.is_pending(), "nothing was sent yet");
            // ...every later one under the task's own: the wait must move to it.
            poll_fn(|cx| {
                seen.set(seen.get() + 1);
                ready.as_mut().poll(cx)
            })
            .await
            .expect("readable");
            let mut buf = [0; 4];
            server.try_read(&mut buf).expect("data is there")
        });
        event_loop.run_once().unwrap();
        assert_eq!(polls.get(), 1);
        assert_eq!(
            stale.live_wakers(),
            0,
            "the slot holds the waker of the latest poll, not the first one"
        );
        client.write_all(b"data").unwrap();
        run_until(&mut event_loop, 10, || polls.get() == 2);
        assert_eq!(stale.wakes(), 0, "the stale waker is never woken");
        run_until(&mut event_loop, 10, || task.is_finished());
        assert_eq!(task.try_take().unwrap().unwrap(), 4);
    });
}

#[test]
fn ex2_data_arriving_between_would_block_and_the_first_poll_is_not_missed() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let (mut client, server) = pair();
        let got = event_loop
            .run_until_complete(async move {
                let mut buf = [0; 8];
                let error = server.try_read(&mut buf).expect_err("nothing sent yet");
                assert_eq!(error.kind(), std::io::ErrorKind::WouldBlock);
                // The data lands after the WouldBlock and before anything is registered:
                // the edge is over before epoll watches the fd.
                client.write_all(b"late").unwrap();
                readable(&server).await.expect("readable");
                let n = server.try_read(&mut buf).expect("data is there");
                buf[..n].to_vec()
            })
            .unwrap();
        assert_eq!(got, b"late");
    });
}

#[test]
fn ex2_a_dropped_readiness_future_unregisters() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let (mut client, server) = pair();
        let counts = event_loop
            .run_until_complete(async move {
                let io = Io::current().expect("inside the loop");
                let mut ready = Box::pin(readable(&server));
                poll_fn(|cx| {
                    assert!(ready.as_mut().poll(cx).is_pending());
                    Poll::Ready(())
                })
                .await;
                let while_waiting = io.registrations();
                drop(ready);
                let after_drop = io.registrations();
                // epoll forgot the fd too: a new wait registers it again and is woken.
                client.write_all(b"x").unwrap();
                readable(&server)
                    .await
                    .expect("a new wait on the fd registers again");
                (while_waiting, after_drop)
            })
            .unwrap();
        assert_eq!(counts, (1, 0));
    });
}

/// Polls a first readiness future on `stream` (it must wait), runs `after_first`, then
/// polls a second one for the same direction: the text of the error it must give.
async fn second_waiter_error(stream: &TcpStream, after_first: impl Fn()) -> String {
    let mut first = Box::pin(readable(stream));
    let mut second = Box::pin(readable(stream));
    poll_fn(|cx| {
        assert!(first.as_mut().poll(cx).is_pending());
        after_first();
        Poll::Ready(match second.as_mut().poll(cx) {
            Poll::Ready(Err(error)) => error.to_string(),
            other => format!("unexpected: {other:?}"),
        })
    })
    .await
}

#[test]
fn ex2_two_tasks_waiting_for_the_same_direction_is_an_error_for_the_second() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let (_client, server) = pair();
        let outcome = event_loop
            .run_until_complete(async move { second_waiter_error(&server, || {}).await })
            .unwrap();
        assert!(outcome.contains("already waiting"), "{outcome}");
    });
}

#[test]
fn ex2_a_readiness_future_polled_after_ready_is_an_error_not_a_panic() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let (_client, server) = pair();
        let again = event_loop
            .run_until_complete(async move {
                let mut ready = Box::pin(writable(&server));
                (&mut ready).await.expect("a fresh socket is writable");
                poll_fn(|cx| Poll::Ready(ready.as_mut().poll(cx))).await
            })
            .expect("polling after Ready does not panic");
        assert!(
            matches!(again, Poll::Ready(Err(_))),
            "polled after Ready: {again:?}"
        );
    });
}

#[test]
fn ex2_a_readiness_future_outside_a_loop_is_an_error_not_a_panic() {
    watchdog_default(|| {
        let (_client, server) = std_pair();
        let mut ready = pin!(writable(&server));
        let waker = CountingWaker::new();
        let outcome = waker.with_context(|cx| ready.as_mut().poll(cx));
        match outcome {
            Poll::Ready(Err(error)) => assert_eq!(error.to_string(), NO_IO_DRIVER),
            other => panic!("expected the no-driver error, got {other:?}"),
        }
    });
}

#[test]
fn ex2_a_callback_requeuing_itself_for_ever_does_not_stop_a_socket_read_or_a_timer() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let (client, server) = pair();
        // The spinner: a shared callback that queues itself again every turn.
        let core = Rc::downgrade(event_loop.core());
        let flag = CancelFlag::new();
        let again = flag.clone();
        let holder: Rc<Cell<Option<SharedCallback>>> = Rc::new(Cell::new(None));
        let me = Rc::clone(&holder);
        let spins = Rc::new(Cell::new(0u64));
        let counted = Rc::clone(&spins);
        let spin: SharedCallback = Rc::new(move || {
            counted.set(counted.get() + 1);
            let this = me.take().expect("set below");
            if let Some(core) = core.upgrade() {
                core.call_soon_shared(Label::Static("spin"), &this, &again);
            }
            me.set(Some(this));
        });
        holder.set(Some(Rc::clone(&spin)));
        event_loop.call_soon_shared(Label::Static("spin"), &spin, &flag);
        // A thread writes once the reader has started, while the loop spins.
        let (started_tx, started_rx) = mpsc::channel::<()>();
        let writer = thread::spawn(move || {
            started_rx.recv().expect("the reader started");
            let mut client = client;
            client.write_all(b"through").expect("write");
            client
        });
        let got = event_loop
            .run_until_complete(async move {
                let started = spawn(async move {
                    started_tx.send(()).expect("the writer thread waits");
                });
                let napped = spawn(async {
                    sleep(Duration::from_millis(5)).await;
                    "timer fired"
                });
                let mut buf = [0; 16];
                let n = server.read(&mut buf).await.expect("read");
                started.await.expect("sent");
                (
                    buf[..n].to_vec(),
                    napped.await.expect("the sleeper finishes"),
                )
            })
            .unwrap();
        flag.cancel();
        assert_eq!(got, (b"through".to_vec(), "timer fired"));
        assert!(spins.get() >= 1);
        drop(writer.join().expect("writer thread"));
    });
}

#[test]
fn ex2_a_peer_that_resets_gives_the_reader_an_error() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let (mut client, server) = pair();
        // The server sends a byte the client never reads; closing it then sends RST.
        server.try_write(b"unread").unwrap();
        let mut peeked = [0; 1];
        client.peek(&mut peeked).unwrap();
        client.write_all(b"x").unwrap();
        drop(client);
        let outcome = event_loop
            .run_until_complete(async move {
                let mut buf = [0; 16];
                loop {
                    match server.read(&mut buf).await {
                        Ok(0) => return Err("end of file instead of a reset".to_string()),
                        Ok(_) => continue,
                        Err(error) => return Ok(error.kind()),
                    }
                }
            })
            .unwrap();
        assert_eq!(outcome, Ok(std::io::ErrorKind::ConnectionReset));
    });
}

#[test]
fn ex2_yield_now_between_reads_keeps_the_stream_working() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let (mut client, server) = pair();
        client.write_all(b"abc").unwrap();
        client.shutdown(std::net::Shutdown::Write).unwrap();
        let all = event_loop
            .run_until_complete(async move {
                let mut all = Vec::new();
                let mut buf = [0; 1];
                loop {
                    yield_now().await;
                    match server.read(&mut buf).await.expect("read") {
                        0 => return all,
                        n => all.extend_from_slice(&buf[..n]),
                    }
                }
            })
            .unwrap();
        assert_eq!(all, b"abc");
    });
}

/// Writes into `stream` until the kernel takes no more (the send buffer is full).
fn fill_stream(stream: &TcpStream) -> usize {
    let chunk = [7u8; 65536];
    let mut sent = 0;
    loop {
        match stream.try_write(&chunk) {
            Ok(n) => sent += n,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return sent,
            Err(e) => panic!("filling the socket: {e}"),
        }
    }
}

#[test]
fn ex2_both_directions_of_one_stream_wait_at_once_and_each_edge_wakes_its_own_task() {
    watchdog_default(|| {
        // One stream shared by two tasks: one waits to read, the other to write (its
        // send buffer is full). An edge in one direction must wake that task alone, and
        // must not make the other direction's wait lose its own edge later.
        let mut event_loop = new_event_loop().unwrap();
        let (mut client, server) = pair();
        let server = Rc::new(server);
        let sent = fill_stream(&server);
        let (reading, writing) = (Rc::clone(&server), Rc::clone(&server));
        let reader = event_loop.spawn(async move {
            let mut buf = [0; 16];
            let n = reading.read(&mut buf).await.expect("read");
            buf[..n].to_vec()
        });
        let writer = event_loop.spawn(async move {
            writable(&*writing).await.expect("writable");
            writing.try_write(b"more").expect("room again")
        });
        event_loop.run_once().unwrap();
        assert_eq!(Io::of(event_loop.core()).unwrap().registrations(), 1);
        client.write_all(b"ping").unwrap();
        run_until(&mut event_loop, 10, || reader.is_finished());
        assert_eq!(reader.try_take().unwrap().unwrap(), b"ping");
        assert!(
            !writer.is_finished(),
            "the read edge did not wake the writer"
        );
        // The client now reads what the server could not send: room comes back.
        let mut drained = vec![0; sent];
        std::io::Read::read_exact(&mut client, &mut drained).unwrap();
        run_until(&mut event_loop, 10, || writer.is_finished());
        assert_eq!(writer.try_take().unwrap().unwrap(), 4);
    });
}

#[test]
fn ex2_data_arriving_after_the_wait_is_registered_and_before_the_park_is_reported() {
    watchdog_default(|| {
        // The wait registers in a task's poll; the park comes after the run phase. Data
        // landing in between is already queued by epoll: the park must report it, both
        // for a wait that gives epoll the fd and for the third wait here, on a socket
        // that stays registered between its waits (that wait gives epoll nothing).
        let mut event_loop = new_event_loop().unwrap();
        let (client, server) = pair();
        let client = Rc::new(RefCell::new(client));
        let sender = Rc::clone(&client);
        let (got, ctls) = event_loop
            .run_until_complete(async move {
                let io = Io::current().expect("an I/O loop");
                let mut got = Vec::new();
                let mut ctls = Vec::new();
                for message in [&b"one"[..], b"two", b"three"] {
                    let before = io.epoll_ctls().total();
                    let mut ready = pin!(readable(&server));
                    let mut sent = false;
                    poll_fn(|cx| {
                        let polled = ready.as_mut().poll(cx);
                        if polled.is_pending() && !sent {
                            // Registered: now the data comes, before the loop parks.
                            ctls.push(io.epoll_ctls().total() - before);
                            sender.borrow_mut().write_all(message).unwrap();
                            sent = true;
                        }
                        polled
                    })
                    .await
                    .expect("readable");
                    let mut buf = [0; 16];
                    // A short read, then a read that finds nothing: the socket is
                    // drained (no end of file either), and stays registered.
                    let n = server.read(&mut buf).await.expect("read");
                    got.push(buf[..n].to_vec());
                    let empty = server.try_read(&mut buf).map_err(|e| e.kind());
                    assert_eq!(empty, Err(std::io::ErrorKind::WouldBlock));
                }
                (got, ctls)
            })
            .unwrap();
        assert_eq!(got, [&b"one"[..], b"two", b"three"]);
        assert_eq!(ctls[2], 0, "the third wait found the fd registered already");
    });
}

#[test]
fn ex2_a_hang_up_with_no_data_wakes_a_task_waiting_to_read() {
    watchdog_default(|| {
        // epoll reports a pipe whose writer went, with nothing written, as a hang-up
        // alone: not "readable". The waiting task must still be woken.
        let mut event_loop = new_event_loop().unwrap();
        let (sender, receiver) = mio::unix::pipe::new().unwrap();
        let task = event_loop.spawn(async move {
            readable(&receiver).await.expect("woken");
            let mut buf = [0; 1];
            std::io::Read::read(&mut &receiver, &mut buf).expect("end of file")
        });
        event_loop.run_once().unwrap();
        assert!(!task.is_finished());
        drop(sender);
        run_until(&mut event_loop, 10, || task.is_finished());
        assert_eq!(task.try_take().unwrap().unwrap(), 0);
    });
}

#[test]
fn ex2_an_error_with_neither_readable_nor_writable_wakes_a_task_waiting_to_write() {
    watchdog_default(|| {
        // A full pipe whose reading end goes: epoll reports an error alone on the writing
        // end (no "writable"). The task waiting to write must be woken, to find the
        // broken pipe with its own syscall.
        let mut event_loop = new_event_loop().unwrap();
        let (sender, receiver) = mio::unix::pipe::new().unwrap();
        let chunk = [0u8; 4096];
        while (&sender).write(&chunk).is_ok() {}
        let task = event_loop.spawn(async move {
            writable(&sender).await.expect("woken");
            (&sender).write(b"x").map_err(|e| e.kind())
        });
        event_loop.run_once().unwrap();
        assert!(!task.is_finished());
        drop(receiver);
        run_until(&mut event_loop, 10, || task.is_finished());
        assert_eq!(
            task.try_take().unwrap().unwrap(),
            Err(std::io::ErrorKind::BrokenPipe)
        );
    });
}

#[test]
fn ex2_a_new_waker_on_a_socket_that_stays_registered_gets_the_event() {
    watchdog_default(|| {
        // Two rounds of wait, read, then `WouldBlock` leave the socket registered with
        // epoll and known to be drained, so its next wait parks the waker and gives
        // epoll nothing.
        // That wait is first polled under a waker that is not the task's; the event
        // must go to the task's own waker, polled next.
        let mut event_loop = new_event_loop().unwrap();
        let (client, server) = pair();
        let client = Rc::new(RefCell::new(client));
        let sender = Rc::clone(&client);
        let stale = Rc::new(CountingWaker::new());
        let old = Rc::clone(&stale);
        let got = event_loop
            .run_until_complete(async move {
                let io = Io::current().expect("an I/O loop");
                let mut buf = [0; 16];
                keep_registered(&server, &sender).await;
                let before = io.epoll_ctls().total();
                let mut ready = pin!(readable(&server));
                let first = old.with_context(|cx| ready.as_mut().poll(cx));
                assert!(first.is_pending(), "nothing was sent yet");
                assert_eq!(io.epoll_ctls().total(), before, "the fd stayed registered");
                let mut sent = false;
                poll_fn(|cx| {
                    let polled = ready.as_mut().poll(cx);
                    if !sent {
                        sender.borrow_mut().write_all(b"three").unwrap();
                        sent = true;
                    }
                    polled
                })
                .await
                .expect("readable");
                let n = server.try_read(&mut buf).expect("data is there");
                buf[..n].to_vec()
            })
            .unwrap();
        assert_eq!(got, b"three");
        assert_eq!(stale.wakes(), 0, "the first poll's waker is never woken");
        assert_eq!(stale.live_wakers(), 0, "and the slot let go of it");
    });
}

/// Two rounds of a wait, data sent while it waits, then a short read and a read that
/// finds nothing (`WouldBlock`): the socket stays registered with epoll and is known to
/// be drained, so its next wait parks the waker and gives epoll nothing.
async fn keep_registered(server: &TcpStream, sender: &RefCell<std::net::TcpStream>) {
    let mut buf = [0; 16];
    for message in [&b"one"[..], b"two"] {
        let mut ready = pin!(readable(server));
        let mut sent = false;
        poll_fn(|cx| {
            let polled = ready.as_mut().poll(cx);
            if !sent {
                sender.borrow_mut().write_all(message).unwrap();
                sent = true;
            }
            polled
        })
        .await
        .expect("readable");
        let n = server.read(&mut buf).await.expect("read");
        assert_eq!(&buf[..n], message);
        let empty = server.try_read(&mut buf).map_err(|e| e.kind());
        assert_eq!(empty, Err(std::io::ErrorKind::WouldBlock));
    }
}

#[test]
fn ex2_a_second_wait_on_a_socket_that_stays_registered_is_an_error_too() {
    watchdog_default(|| {
        // The wait that gives epoll nothing must still refuse a second waiter, as the
        // first wait on a socket does.
        let mut event_loop = new_event_loop().unwrap();
        let (client, server) = pair();
        let sender = RefCell::new(client);
        let outcome = event_loop
            .run_until_complete(async move {
                keep_registered(&server, &sender).await;
                let io = Io::current().expect("an I/O loop");
                let before = io.epoll_ctls().total();
                second_waiter_error(&server, || {
                    assert_eq!(io.epoll_ctls().total(), before, "the fd stayed registered");
                })
                .await
            })
            .unwrap();
        assert!(outcome.contains("already waiting"), "{outcome}");
    });
}

#[test]
fn ex2_a_wait_that_outlived_its_socket_leaves_the_number_to_the_next_socket() {
    // The test counts on the kernel giving the next socket the number just freed (the
    // lowest free one). Another test's thread could take it first, so the test runs
    // again alone in a child process of its own, where nothing else opens files.
    let name = "ex2_a_wait_that_outlived_its_socket_leaves_the_number_to_the_next_socket";
    if !alone(module_path!(), name) {
        return;
    }
    watchdog_default(|| {
        // A readiness future names an fd number, so it can outlive its socket. The
        // socket's drop wakes it to make its syscall again, and its next poll says
        // ready. If it registered again instead, it would wait on whatever file took
        // the number next, and refuse that file's own waiter.
        let mut event_loop = new_event_loop().unwrap();
        let (_client, stream) = pair();
        let number = std::os::fd::AsRawFd::as_raw_fd(&stream);
        let mut wait = readable(&stream);
        let stale = event_loop.spawn(poll_fn(move |cx| Pin::new(&mut wait).poll(cx)));
        let got = event_loop
            .run_until_complete(async move {
                yield_now().await;
                let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
                let mut client = std::net::TcpStream::connect(listener.local_addr()?)?;
                drop(stream);
                // The next socket takes the number before the stale task runs again.
                let fresh = TcpStream::from_std(listener.accept()?.0)?;
                assert_eq!(std::os::fd::AsRawFd::as_raw_fd(&fresh), number);
                yield_now().await;
                let reader = spawn(async move {
                    let mut buf = [0; 8];
                    let n = fresh.read(&mut buf).await?;
                    std::io::Result::Ok(buf[..n].to_vec())
                });
                yield_now().await;
                client.write_all(b"mine")?;
                reader.await.expect("the reader finishes")
            })
            .expect("the main task finishes")
            .expect("the new socket's wait was not refused");
        assert_eq!(got, b"mine");
        assert_eq!(
            stale
                .try_take()
                .map(|outcome| outcome.map(|ready| ready.is_ok())),
            Some(Ok(true)),
            "the stale wait was told to retry: ready"
        );
    });
}
