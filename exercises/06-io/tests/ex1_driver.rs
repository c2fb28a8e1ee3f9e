//! Exercise 1: `_process_events` — ready fds become handles, in the poller's order.
//!
//! Every socket is a real loopback socket. Orders come from the loop's own turn counter
//! (an observer), never from sleeps; threads are ordered with channels.

use std::cell::RefCell;
use std::io::{Read, Write};
use std::rc::Rc;
use std::time::Duration;

use crate::common::{Trace, log, pair};
use ex06_io::{Io, new_event_loop};
use oneloop_testkit::watchdog_default;

#[test]
fn ex1_events_become_handles_in_the_order_the_poller_reports_them() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let trace = Trace::on(&event_loop);
        let io = Io::of(&event_loop).unwrap();
        let mut clients = Vec::new();
        let mut servers = Vec::new();
        for name in ["reader a", "reader b", "reader c"] {
            let (client, server) = pair();
            let server = Rc::new(server);
            let reading = Rc::clone(&server);
            io.add_reader_named(&*server, name, move || {
                let mut buf = [0; 8];
                let _ = reading.try_read(&mut buf);
            })
            .unwrap();
            clients.push(client);
            servers.push(server);
        }
        // Readable in the order c, a, b, all before the loop parks.
        for index in [2, 0, 1] {
            clients[index].write_all(b"!").unwrap();
        }
        event_loop.run_once().unwrap();
        assert_eq!(trace.io_events(1), 3, "one park saw all three");
        assert_eq!(trace.turn(1), ["reader c", "reader a", "reader b"]);
        for server in &servers {
            assert!(io.remove_reader(&**server));
        }
        assert_eq!(io.registrations(), 0);
    });
}
#[test]
fn ex1_add_reader_is_level_triggered_data_left_unread_fires_again_next_turn() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let trace = Trace::on(&event_loop);
        let (mut client, server) = pair();
        let server = Rc::new(server);
        let got = log();
        let io = Io::of(&event_loop).unwrap();
        let (reading, seen) = (Rc::clone(&server), Rc::clone(&got));
        // The callback reads one byte per call, leaving the rest unread.
        io.add_reader_named(&*server, "one byte", move || {
            let mut byte = [0; 1];
            if let Ok(1) = reading.try_read(&mut byte) {
                seen.borrow_mut().push((byte[0] as char).to_string());
            }
        })
        .unwrap();
        client.write_all(b"xyz").unwrap();
        for _ in 0..3 {
            event_loop.run_once().unwrap();
        }
        assert_eq!(*got.borrow(), ["x", "y", "z"]);
        assert_eq!(
            trace.turns_of("one byte"),
            [1, 2, 3],
            "once per turn, three turns running"
        );
        assert!(io.remove_reader(&*server), "a reader was set");
        assert!(!io.remove_reader(&*server), "nothing left to remove");
        assert_eq!(io.registrations(), 0);
    });
}

#[test]
fn ex1_add_writer_fires_when_writable_and_remove_writer_inside_stops_it() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let (mut client, server) = pair();
        let server = Rc::new(server);
        let io = Io::of(&event_loop).unwrap();
        let removed = Rc::new(RefCell::new(Vec::new()));
        let (sock, io2, out) = (Rc::clone(&server), Rc::clone(&io), Rc::clone(&removed));
        io.add_writer(&*server, move || {
            sock.try_write(b"w").expect("writable");
            out.borrow_mut().push(io2.remove_writer(&*sock));
        })
        .unwrap();
        event_loop.run_once().unwrap();
        assert_eq!(*removed.borrow(), [true]);
        assert_eq!(io.registrations(), 0);
        let mut byte = [0; 1];
        client.read_exact(&mut byte).unwrap();
        assert_eq!(&byte, b"w");
    });
}

#[test]
fn ex1_a_replaced_reader_does_not_run_and_the_new_one_does() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let (mut client, server) = pair();
        let io = Io::of(&event_loop).unwrap();
        let ran = log();
        let (first, second) = (Rc::clone(&ran), Rc::clone(&ran));
        io.add_reader(&server, move || first.borrow_mut().push("first".into()))
            .unwrap();
        let stop = Rc::clone(event_loop.core());
        io.add_reader(&server, move || {
            second.borrow_mut().push("second".into());
            stop.stop();
        })
        .unwrap();
        client.write_all(b"!").unwrap();
        event_loop.run_forever().unwrap();
        assert_eq!(*ran.borrow(), ["second"]);
        assert!(io.remove_reader(&server));
    });
}

#[test]
fn ex1_io_handles_are_queued_before_timers_due_in_the_same_turn() {
    watchdog_default(|| {
        use oneloop_timers::LoopTimers;
        let mut event_loop = new_event_loop().unwrap();
        let trace = Trace::on(&event_loop);
        let (mut client, server) = pair();
        let io = Io::of(&event_loop).unwrap();
        let server = Rc::new(server);
        let reading = Rc::clone(&server);
        io.add_reader_named(&*server, "reader", move || {
            let mut buf = [0; 8];
            let _ = reading.try_read(&mut buf);
        })
        .unwrap();
        // The timer is scheduled first and is already due when the loop parks.
        event_loop
            .timers()
            .call_later_named(Duration::ZERO, "timer", || {});
        client.write_all(b"data").unwrap();
        event_loop.run_once().unwrap();
        assert_eq!(trace.io_events(1), 1);
        assert_eq!(trace.turn(1), ["reader", "timer"]);
        assert!(io.remove_reader(&*server));
    });
}

#[test]
fn ex1_add_reader_takes_a_raw_fd_and_a_mio_source() {
    watchdog_default(|| {
        use std::os::fd::AsRawFd;
        let mut event_loop = new_event_loop().unwrap();
        let io = Io::of(&event_loop).unwrap();
        let (mut left, right) = mio::net::UnixStream::pair().unwrap();
        let raw = right.as_raw_fd();
        let got = log();
        let (seen, source) = (Rc::clone(&got), Rc::new(right));
        let reading = Rc::clone(&source);
        // Registered by raw fd number...
        io.add_reader(&raw, move || {
            let mut buf = [0; 8];
            if let Ok(n) = (&*reading).read(&mut buf) {
                seen.borrow_mut()
                    .push(String::from_utf8_lossy(&buf[..n]).into_owned());
            }
        })
        .unwrap();
        left.write_all(b"raw").unwrap();
        event_loop.run_once().unwrap();
        // ...and removed through the mio source that owns it: the same fd.
        assert!(io.remove_reader(&*source));
        assert_eq!(*got.borrow(), ["raw"]);
        assert_eq!(io.registrations(), 0);
    });
}

#[test]
fn ex1_a_reader_removing_itself_runs_once_and_the_next_reader_sees_the_unread_data() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let trace = Trace::on(&event_loop);
        let (mut client, server) = pair();
        let server = Rc::new(server);
        let io = Io::of(&event_loop).unwrap();
        let got = log();
        let (reading, seen, io2) = (Rc::clone(&server), Rc::clone(&got), Rc::clone(&io));
        // Reads one byte of three, then removes itself from inside its own callback.
        io.add_reader_named(&*server, "once", move || {
            let mut byte = [0; 1];
            if let Ok(1) = reading.try_read(&mut byte) {
                seen.borrow_mut().push((byte[0] as char).to_string());
            }
            assert!(io2.remove_reader(&*reading), "it was set");
        })
        .unwrap();
        client.write_all(b"xyz").unwrap();
        event_loop.run_once().unwrap();
        assert_eq!(*got.borrow(), ["x"]);
        assert_eq!(io.registrations(), 0, "nothing left watching the fd");
        // The two bytes left unread make no new edge. A reader added now must still
        // hear of them: registering looks at the fd's state as it is.
        let (reading, seen) = (Rc::clone(&server), Rc::clone(&got));
        io.add_reader_named(&*server, "again", move || {
            let mut rest = [0; 8];
            if let Ok(n) = reading.try_read(&mut rest) {
                seen.borrow_mut()
                    .push(String::from_utf8_lossy(&rest[..n]).into_owned());
            }
        })
        .unwrap();
        event_loop.run_once().unwrap();
        assert_eq!(*got.borrow(), ["x", "yz"]);
        assert_eq!(trace.turns_of("once"), [1]);
        assert_eq!(trace.turns_of("again"), [2]);
        assert!(io.remove_reader(&*server));
    });
}

/// Fills the pipe until the kernel takes no more.
fn fill(sender: &mio::unix::pipe::Sender) {
    let chunk = [0u8; 4096];
    loop {
        match (&*sender).write(&chunk) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return,
            Err(e) => panic!("filling the pipe: {e}"),
        }
    }
}

#[test]
fn ex1_a_hang_up_with_no_data_fires_the_reader() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let trace = Trace::on(&event_loop);
        let io = Io::of(&event_loop).unwrap();
        let (sender, receiver) = mio::unix::pipe::new().unwrap();
        io.add_reader_named(&receiver, "reader", || {}).unwrap();
        // The writer goes, nothing was written: epoll reports a hang-up, not "readable".
        drop(sender);
        event_loop.run_once().unwrap();
        assert_eq!(trace.io_events(1), 1, "one park saw the hang-up");
        assert_eq!(
            trace.turn(1),
            ["reader"],
            "a read-closed event fires the read side"
        );
        assert!(io.remove_reader(&receiver));
    });
}

#[test]
fn ex1_an_error_event_fires_both_the_reader_and_the_writer() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let trace = Trace::on(&event_loop);
        let io = Io::of(&event_loop).unwrap();
        let (sender, receiver) = mio::unix::pipe::new().unwrap();
        // A full pipe is not writable; with its reading end gone, epoll reports an error
        // alone on the writing end: neither readable nor writable.
        fill(&sender);
        io.add_reader_named(&sender, "reader", || {}).unwrap();
        io.add_writer_named(&sender, "writer", || {}).unwrap();
        drop(receiver);
        event_loop.run_once().unwrap();
        assert_eq!(trace.io_events(1), 1, "one park saw the error");
        assert_eq!(
            trace.turn(1),
            ["reader", "writer"],
            "an error fires both sides, reader first"
        );
        assert!(io.remove_reader(&sender));
        assert!(io.remove_writer(&sender));
    });
}

#[test]
fn ex1_one_event_queues_reader_then_read_task_then_writer_then_write_task() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let trace = Trace::on(&event_loop);
        let io = Io::of(&event_loop).unwrap();
        let (mut client, server) = pair();
        let server = Rc::new(server);
        let (reading, writing) = (Rc::clone(&server), Rc::clone(&server));
        drop(event_loop.spawn_named("read task", async move {
            ex06_io::readable(&*reading).await.unwrap();
        }));
        drop(event_loop.spawn_named("write task", async move {
            ex06_io::writable(&*writing).await.unwrap();
        }));
        // Turn 1: both tasks start waiting (the socket is not watched before that).
        event_loop.run_once().unwrap();
        assert_eq!(trace.turn(1), ["read task", "write task"]);
        io.add_reader_named(&*server, "reader", || {}).unwrap();
        io.add_writer_named(&*server, "writer", || {}).unwrap();
        client.write_all(b"x").unwrap();
        // Turn 2: one event, readable and writable, for one fd with all four set.
        event_loop.run_once().unwrap();
        assert_eq!(trace.io_events(2), 1);
        assert_eq!(
            trace.turn(2),
            ["reader", "read task", "writer", "write task"],
            "per event: queue the reader, wake the read task, queue the writer, wake the \
             write task"
        );
        assert!(io.remove_reader(&*server));
        assert!(io.remove_writer(&*server));
    });
}

#[test]
fn ex1_a_readable_event_on_a_full_socket_fires_the_reader_and_not_the_writer() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let trace = Trace::on(&event_loop);
        let io = Io::of(&event_loop).unwrap();
        let (mut client, server) = pair();
        // The client reads nothing: once the server's send buffer is full, it is not
        // writable, and stays so for the whole test.
        let chunk = [0u8; 4096];
        loop {
            match server.try_write(&chunk) {
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) => panic!("filling the socket: {e}"),
            }
        }
        io.add_reader_named(&server, "reader", || {}).unwrap();
        io.add_writer_named(&server, "writer", || {}).unwrap();
        client.write_all(b"x").unwrap();
        // Turn 1: one event, readable only.
        event_loop.run_once().unwrap();
        assert_eq!(trace.io_events(1), 1, "one park saw the data");
        assert_eq!(
            trace.turn(1),
            ["reader"],
            "a readable event fires the read side alone"
        );
        assert!(io.remove_reader(&server));
        assert!(io.remove_writer(&server));
    });
}

#[test]
fn ex1_the_eventfd_ends_the_sleep_and_is_not_counted_as_io() {
    watchdog_default(|| {
        let driver = ex06_io::IoDriver::new().unwrap();
        let unparker = driver.unparker().clone();
        let mut event_loop =
            oneloop_core::EventLoop::with_driver(oneloop_timers::TimerDriver::new(driver));
        let trace = Trace::on(&event_loop);
        let io = Io::of(&event_loop).unwrap();
        // Something to wait on that never becomes ready: only the eventfd ends the park.
        let (_sender, receiver) = mio::unix::pipe::new().unwrap();
        io.add_reader_named(&receiver, "reader", || {}).unwrap();
        unparker.unpark();
        event_loop.run_once().unwrap();
        let park = trace.parks.borrow()[0].1;
        assert_eq!(park.polls, 1, "the park called epoll_wait");
        assert_eq!(park.io_events, 0, "the eventfd's own event is not I/O");
        assert!(trace.turn(1).is_empty(), "no handle ran");
        assert!(io.remove_reader(&receiver));
    });
}

#[test]
fn ex1_a_busy_loop_with_no_fd_skips_epoll_wait() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let trace = Trace::on(&event_loop);
        event_loop
            .run_until_complete(async {
                for _ in 0..3 {
                    oneloop_core::yield_now().await;
                }
            })
            .unwrap();
        let parks = trace.parks.borrow();
        assert!(parks.len() >= 3);
        for (turn, park) in parks.iter() {
            assert_eq!(park.timeout, Some(Duration::ZERO), "turn {turn} had work");
            assert_eq!(park.polls, 0, "turn {turn}: nothing to report, no syscall");
        }
    });
}

#[test]
fn ex1_a_timer_with_no_fd_registered_sleeps_in_epoll_wait_instead_of_spinning() {
    watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let trace = Trace::on(&event_loop);
        event_loop
            .run_until_complete(oneloop_timers::sleep(Duration::from_millis(20)))
            .unwrap();
        let parks = trace.parks.borrow();
        // The park with the timer's timeout sleeps in one `epoll_wait`. A driver that
        // skipped the call whenever no fd is registered would return at once and spin
        // through thousands of turns until the deadline.
        assert!(
            parks.len() < 20,
            "a 20 ms sleep took {} turns: the loop spun instead of sleeping",
            parks.len()
        );
        assert!(
            parks
                .iter()
                .any(|(_, park)| park.polls == 1 && park.timeout.is_some_and(|t| !t.is_zero())),
            "one park slept in epoll_wait with the timer's timeout"
        );
    });
}

#[test]
fn ex1_a_wake_from_another_thread_ends_epoll_wait_with_an_error_not_a_hang() {
    watchdog_default(|| {
        // Nothing registered, no timer: only the eventfd can end the sleep. This stage
        // cannot carry the wake, so the loop fails instead of sleeping for ever.
        let (waker_tx, waker_rx) = std::sync::mpsc::channel::<std::task::Waker>();
        let helper = std::thread::spawn(move || {
            waker_rx.recv().expect("the future sends its waker").wake();
        });
        let mut event_loop = new_event_loop().unwrap();
        let mut sent = false;
        let result = event_loop.run_until_complete(std::future::poll_fn(move |cx| {
            if !sent {
                sent = true;
                waker_tx.send(cx.waker().clone()).unwrap();
            }
            std::task::Poll::<()>::Pending
        }));
        helper.join().unwrap();
        assert_eq!(result, Err(oneloop_core::LoopError::ForeignWake));
    });
}
