//! The scenarios the book draws: each a small program on a fresh loop.
//!
//! Most run in virtual time, where every figure is exact and the same on every
//! machine. `two_sockets` uses real sockets on 127.0.0.1 and the real clock, so its
//! figure draws order only. `ticker_offloaded` needs a real thread, hence the real
//! clock: its figure is one sample run, different every time, and is not checked for
//! freshness. `node_iteration` runs on stage 8's Node-style loop.
//!
//! Where a ticker and a block meet, the ticker has *started* (run its first step)
//! before the block: its timers are already in the heap when the loop blocks.

use std::cell::Cell;
use std::io::{self, Write};
use std::net::{TcpListener, TcpStream};
use std::rc::Rc;
use std::time::Duration;

use oneloop_core::{gather, yield_now};
use oneloop_io::new_event_loop;
use oneloop_offload::to_thread;
use oneloop_timers::{block_for, sleep, virtual_time_loop};

use crate::session::{Session, spawn_named, start};

fn ms(millis: u64) -> Duration {
    Duration::from_millis(millis)
}

// ANCHOR: gather_sleeps
/// `gather` of three sleeps, 0.3, 0.1 and 0.2 s.
pub fn gather_sleeps() -> io::Result<Box<dyn Session>> {
    Ok(start(virtual_time_loop(), async {
        let naps = [300, 100, 200].map(|length| sleep(ms(length)));
        gather(naps).await.expect("no sleep panics");
    }))
}
// ANCHOR_END: gather_sleeps

// ANCHOR: ticker_blocked
/// A ticker (three ticks, 0.1 s apart) that has started, then a 0.35 s blocking call
/// on the loop's thread.
pub fn ticker_blocked() -> io::Result<Box<dyn Session>> {
    Ok(start(virtual_time_loop(), async {
        let ticking = spawn_named("ticker", async {
            for _ in 0..3 {
                sleep(ms(100)).await;
            }
        });
        yield_now().await;
        block_for(ms(350));
        ticking.await.expect("the ticker does not panic");
    }))
}
// ANCHOR_END: ticker_blocked

// ANCHOR: ticker_offloaded
/// The same started ticker, with the 0.35 s blocking call moved to a worker thread
/// (stage 7's `to_thread`). Threads need the real clock.
pub fn ticker_offloaded() -> io::Result<Box<dyn Session>> {
    Ok(start(oneloop_offload::new_event_loop()?, async {
        let ticking = spawn_named("ticker", async {
            for _ in 0..3 {
                sleep(ms(100)).await;
            }
        });
        yield_now().await;
        to_thread(|| std::thread::sleep(ms(350)))
            .await
            .expect("the worker thread runs the call");
        ticking.await.expect("the ticker does not panic");
    }))
}
// ANCHOR_END: ticker_offloaded

/// The pulse: a task that ticks every 10 ms beside a worker doing ten 100 ms chunks,
/// each followed by a yield; the worker blocks in each chunk, or sleeps.
fn pulse(blocking: bool) -> Box<dyn Session> {
    start(virtual_time_loop(), async move {
        let done = Rc::new(Cell::new(false));
        let pulse_done = Rc::clone(&done);
        let pulse = spawn_named("pulse", async move {
            while !pulse_done.get() {
                sleep(ms(10)).await;
            }
        });
        let worker = spawn_named("worker", async move {
            for _ in 0..10 {
                if blocking {
                    block_for(ms(100));
                } else {
                    sleep(ms(100)).await;
                }
                yield_now().await;
            }
            done.set(true);
        });
        worker.await.expect("the worker does not panic");
        pulse.await.expect("the pulse does not panic");
    })
}

/// The pulse beside a worker that blocks the loop in each chunk.
pub fn pulse_blocking() -> io::Result<Box<dyn Session>> {
    Ok(pulse(true))
}

/// The pulse beside a worker that sleeps in each chunk.
pub fn pulse_sleeping() -> io::Result<Box<dyn Session>> {
    Ok(pulse(false))
}

/// Fifty tasks gathered, each busy 100 ms: blocking the loop, or sleeping.
fn fifty(blocking: bool) -> Box<dyn Session> {
    start(virtual_time_loop(), async move {
        let work = (0..50).map(|_| async move {
            if blocking {
                block_for(ms(100));
            } else {
                sleep(ms(100)).await;
            }
        });
        gather(work).await.expect("no task panics");
    })
}

/// Fifty tasks blocking the loop 100 ms each.
pub fn fifty_blocking() -> io::Result<Box<dyn Session>> {
    Ok(fifty(true))
}

/// Fifty tasks sleeping 100 ms each.
pub fn fifty_sleeping() -> io::Result<Box<dyn Session>> {
    Ok(fifty(false))
}

// ANCHOR: taking_turns
/// Two tasks taking turns: each yields three times.
pub fn taking_turns() -> io::Result<Box<dyn Session>> {
    Ok(start(virtual_time_loop(), async {
        let tasks = ["a", "b"].map(|name| {
            spawn_named(name, async {
                for _ in 0..3 {
                    yield_now().await;
                }
            })
        });
        for task in tasks {
            task.await.expect("no task panics");
        }
    }))
}
// ANCHOR_END: taking_turns

/// A connected pair of loopback sockets: the client end (std, blocking) and the
/// server end (accepted).
fn pair() -> io::Result<(TcpStream, TcpStream)> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let client = TcpStream::connect(listener.local_addr()?)?;
    let (server, _) = listener.accept()?;
    Ok((client, server))
}

// ANCHOR: two_sockets
/// Two readers on real loopback sockets; the data arrives for b first, then for a,
/// while both wait. One park sees both, and they run in the order the data arrived.
pub fn two_sockets() -> io::Result<Box<dyn Session>> {
    let (mut client_a, server_a) = pair()?;
    let (mut client_b, server_b) = pair()?;
    let server_a = oneloop_io::TcpStream::from_std(server_a)?;
    let server_b = oneloop_io::TcpStream::from_std(server_b)?;
    Ok(start(new_event_loop()?, async move {
        let readers = [("reader a", server_a), ("reader b", server_b)].map(|(name, server)| {
            spawn_named(name, async move {
                let mut buf = [0; 8];
                server.read(&mut buf).await.expect("loopback reads work")
            })
        });
        // One turn for both readers to find nothing yet and register.
        yield_now().await;
        client_b.write_all(b"bee").expect("loopback writes work");
        client_a.write_all(b"ay").expect("loopback writes work");
        for reader in readers {
            reader.await.expect("no reader panics");
        }
        // The clients stay open until both readers are done.
        drop((client_a, client_b));
    }))
}
// ANCHOR_END: two_sockets

// ANCHOR: taskgroup_one_fails
/// Stage 9: a task group whose child `bad` fails at 0.1 s while its sibling `a` sleeps
/// 0.5 s and the body sleeps 100 s. The group cancels `a` and the body, waits for
/// both, and returns the failure.
pub fn taskgroup_one_fails() -> io::Result<Box<dyn Session>> {
    use oneloop_cancel::{Error, sleep, task_group};
    Ok(start(virtual_time_loop(), async {
        let owner = oneloop_cancel::spawn_named("group", async {
            task_group(|tg| async move {
                tg.spawn("a", async {
                    sleep(ms(500)).await?;
                    Ok(())
                })?;
                tg.spawn("bad", async {
                    sleep(ms(100)).await?;
                    Err::<(), _>(Error::Failed("boom".into()))
                })?;
                sleep(Duration::from_secs(100)).await?;
                Ok(())
            })
            .await
        });
        let outcome = owner.join().await;
        assert!(
            matches!(outcome, Err(Error::Group(_))),
            "the group returns the failure"
        );
    }))
}
// ANCHOR_END: taskgroup_one_fails
