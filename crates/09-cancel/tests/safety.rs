//! Cancel safety, future by future: what a cancel delivered at each await loses and
//! what it keeps. Real sockets on 127.0.0.1 and a real thread pool; no test waits on
//! time. A delivered cancel drops the awaited future, so each test shows what a drop
//! there (an abort, a select's loser) keeps as well.

use std::cell::RefCell;
use std::future::Future;
use std::io::{Read, Write};
use std::net::{TcpListener as StdListener, TcpStream as StdStream};
use std::rc::Rc;
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use oneloop_cancel::{Error, cancellable, gather, sleep, spawn_named, task_future, yield_now};
use oneloop_io::{StreamReader, StreamWriter, TcpListener, TcpStream};
use oneloop_offload::to_thread;
use oneloop_testkit::watchdog_default;
use oneloop_timers::Timers;

/// Runs `main` as a task of this layer on a loop with I/O, timers and the thread pool.
fn run<T: 'static>(main: impl Future<Output = Result<T, Error>> + 'static) -> T {
    let mut event_loop = oneloop_offload::new_event_loop().expect("a loop with I/O");
    let (main, task) = task_future("main", main);
    event_loop.run_until_complete(main).expect("the loop runs");
    task.try_result()
        .expect("main finished")
        .expect("main ends well")
}

/// A loopback pair: a blocking std client and the server side as a oneloop stream.
fn pair() -> (StdStream, TcpStream) {
    let listener = StdListener::bind("127.0.0.1:0").expect("bind loopback");
    let client = StdStream::connect(listener.local_addr().expect("an address")).expect("connect");
    let (server, _) = listener.accept().expect("accept");
    (client, TcpStream::from_std(server).expect("non-blocking"))
}

#[test]
fn a_cancel_during_read_line_keeps_the_half_line_in_the_readers_buffer() {
    watchdog_default(|| {
        let (mut client, server) = pair();
        client.write_all(b"first ha").expect("send");
        let (buffered, line) = run(async move {
            let mut reader = StreamReader::new(server);
            let task = spawn_named("reader", async move {
                let read = cancellable(reader.read_line()).await;
                Ok((reader, read.is_err()))
            });
            // The reader's first step reads the half line and waits for the rest.
            yield_now().await?;
            task.cancel(None);
            let (mut reader, cancelled) = task.join().await?;
            assert!(cancelled, "the cancel was delivered at read_line");
            let buffered = reader.buffered().to_vec();
            client.write_all(b"lf\n").expect("send");
            let line = reader.read_line().await.expect("a line");
            Ok((buffered, line))
        });
        assert_eq!(buffered, b"first ha");
        assert_eq!(line.as_deref(), Some("first half\n"));
    });
}

#[test]
fn a_cancel_during_read_exact_keeps_the_bytes_that_came() {
    watchdog_default(|| {
        let (mut client, server) = pair();
        client.write_all(b"0123").expect("send");
        let (buffered, frame) = run(async move {
            let mut reader = StreamReader::new(server);
            let task = spawn_named("reader", async move {
                let read = cancellable(reader.read_exact(10)).await;
                Ok((reader, read.is_err()))
            });
            yield_now().await?;
            task.cancel(None);
            let (mut reader, cancelled) = task.join().await?;
            assert!(cancelled, "the cancel was delivered at read_exact");
            let buffered = reader.buffered().to_vec();
            client.write_all(b"456789").expect("send");
            let frame = reader.read_exact(10).await.expect("ten bytes");
            Ok((buffered, frame))
        });
        assert_eq!(buffered, b"0123");
        assert_eq!(frame, b"0123456789");
    });
}

#[test]
fn a_cancel_during_accept_takes_no_connection_and_the_next_accept_gets_it() {
    watchdog_default(|| {
        let (accepted_from, client_addr) = run(async {
            let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
            let addr = listener.local_addr().expect("an address");
            let task = spawn_named("acceptor", async move {
                let accepted = cancellable(listener.accept()).await;
                Ok((listener, accepted.is_err()))
            });
            // The acceptor waits in accept; a client connects and, in the same step,
            // the acceptor is cancelled: its next step meets the cancel first.
            yield_now().await?;
            let client = StdStream::connect(addr).expect("connect");
            task.cancel(None);
            let (listener, cancelled) = task.join().await?;
            assert!(cancelled, "the cancel was delivered at accept");
            let (_stream, from) = listener.accept().await.expect("the waiting connection");
            Ok((from, client.local_addr().expect("an address")))
        });
        assert_eq!(
            accepted_from, client_addr,
            "the connection was kept for the next accept"
        );
    });
}

#[test]
fn a_cancel_during_drain_keeps_the_buffered_bytes_and_they_all_arrive() {
    const TOTAL: usize = 16 * 1024 * 1024;
    watchdog_default(|| {
        let (mut client, server) = pair();
        let (kept, received) = run(async move {
            let mut writer = StreamWriter::new(Rc::new(server));
            writer.set_write_buffer_limits(1024, 0);
            // More than the kernel's buffers hold while the peer reads nothing.
            writer.write(&vec![7u8; TOTAL]).expect("buffered");
            let task = spawn_named("writer", async move {
                let drained = cancellable(writer.drain()).await;
                Ok((writer, drained.is_err()))
            });
            yield_now().await?;
            task.cancel(None);
            let (mut writer, cancelled) = task.join().await?;
            assert!(cancelled, "the cancel was delivered at drain");
            let kept = writer.buffered();
            let peer = thread::spawn(move || {
                let mut all = Vec::new();
                client.read_to_end(&mut all).expect("read to the end");
                all.len()
            });
            writer.shutdown().await.expect("flushed and shut down");
            drop(writer);
            let received = to_thread(move || peer.join().expect("the peer thread"))
                .await
                .expect("the pool runs it");
            Ok((kept, received))
        });
        assert!(
            kept > 0,
            "bytes were still buffered when drain was cancelled"
        );
        assert_eq!(received, TOTAL, "every byte written arrived");
    });
}

#[test]
fn a_cancel_during_to_thread_leaves_the_job_running_to_its_end_and_loses_its_result() {
    watchdog_default(|| {
        let (go, wait_for_go) = mpsc::channel::<()>();
        let (finished, job_finished) = mpsc::channel::<u32>();
        let (cancelled, job_ran_on) = run(async move {
            let task = spawn_named("offloader", async move {
                let result = cancellable(to_thread(move || {
                    wait_for_go.recv().expect("the test says go");
                    finished.send(42).expect("the test listens");
                    42
                }))
                .await;
                Ok(result.is_err())
            });
            yield_now().await?;
            task.cancel(None);
            let cancelled = task.join().await?;
            // The job is still blocked on the pool: let it go, and wait for its end.
            go.send(()).expect("the job listens");
            let ran_on = to_thread(move || job_finished.recv().expect("the job finishes"))
                .await
                .expect("the pool runs it");
            Ok((cancelled, ran_on))
        });
        assert!(cancelled, "the cancel was delivered at to_thread");
        assert_eq!(
            job_ran_on, 42,
            "the job ran to its end after its awaiter was cancelled"
        );
    });
}

#[test]
fn a_cancel_during_sleep_releases_its_timer() {
    watchdog_default(|| {
        let mut event_loop = oneloop_timers::virtual_time_loop();
        let (main, task) = task_future("main", async {
            let sleeper = spawn_named("sleeper", async {
                sleep(Duration::from_secs(3600)).await?;
                Ok(())
            });
            yield_now().await?;
            let held = Timers::current().expect("timers").live();
            sleeper.cancel(None);
            let joined = sleeper.join().await;
            let left = Timers::current().expect("timers").live();
            Ok((held, joined, left))
        });
        event_loop.run_until_complete(main).expect("the loop runs");
        let (held, joined, left) = task.try_result().expect("main finished").expect("ok");
        assert_eq!(held, 1, "the sleep held its timer");
        assert_eq!(joined, Err(Error::Cancelled(None)));
        assert_eq!(
            left, 0,
            "the delivered cancel dropped the sleep and its timer"
        );
    });
}

#[test]
fn a_cancel_during_gather_goes_on_to_every_child_and_ends_the_gather_cancelled() {
    watchdog_default(|| {
        let seen = Rc::new(RefCell::new(Vec::new()));
        let s = Rc::clone(&seen);
        let mut event_loop = oneloop_timers::virtual_time_loop();
        let (main, task) = task_future("main", async move {
            let children: Vec<_> = (0..3)
                .map(|i| {
                    let s = Rc::clone(&s);
                    async move {
                        let slept = sleep(Duration::from_secs(3600)).await;
                        if slept.is_err() {
                            s.borrow_mut().push(i);
                        }
                        slept.map(|()| i)
                    }
                })
                .collect();
            let gathering = spawn_named("gathering", gather(children, true));
            yield_now().await?;
            yield_now().await?;
            gathering.cancel(Some("bye"));
            Ok(gathering.join().await.map(|_| ()))
        });
        event_loop.run_until_complete(main).expect("the loop runs");
        let joined = task.try_result().expect("main finished").expect("ok");
        assert_eq!(
            joined,
            Err(Error::Cancelled(Some("bye".to_owned()))),
            "cancelled, though gather collects failures, as asyncio's does"
        );
        assert_eq!(*seen.borrow(), [0, 1, 2], "each child saw the cancel");
    });
}
