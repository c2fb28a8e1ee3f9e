//! The workloads on smol: a `LocalExecutor` (async-executor) run by `smol::block_on`,
//! which drives async-io's reactor on this thread while it waits.

use std::cell::RefCell;
use std::future::pending;
use std::rc::Rc;
use std::time::Duration;

use smol::channel::{Sender, bounded};
use smol::future::yield_now;
use smol::io::{AsyncReadExt, AsyncWriteExt};
use smol::net::{TcpListener, TcpStream};
use smol::{LocalExecutor, Task, Timer};

use crate::measure::{Meter, Sample, bytes_per, live_bytes};
use crate::workloads::*;

thread_local! {
    /// The executor every workload spawns on.
    static EXECUTOR: LocalExecutor<'static> = const { LocalExecutor::new() };
}

fn spawn<T: 'static>(future: impl Future<Output = T> + 'static) -> Task<T> {
    EXECUTOR.with(|ex| ex.spawn(future))
}

/// Runs workload `id` and returns what it measured.
pub fn run(id: &str) -> Option<Sample> {
    let sample = match id {
        "spawn_join" => block(spawn_join()),
        "yield" => block(ping_pong()),
        "wake_chain" => block(wake_chain()),
        "timers" => block(timers()),
        "tcp_echo" => block(tcp_echo()),
        "idle" => block(idle()),
        "mem_pending" => block(mem_pending()),
        "mem_sleeping" => block(mem_sleeping()),
        _ => return None,
    };
    Some(sample)
}

fn block(future: impl Future<Output = Sample>) -> Sample {
    EXECUTOR.with(|ex| smol::block_on(ex.run(future)))
}

async fn spawn_join() -> Sample {
    let meter = Meter::start();
    let handles: Vec<_> = (0..SPAWN_TASKS).map(|i| spawn(async move { i })).collect();
    for handle in handles {
        handle.await;
    }
    meter.stop(SPAWN_TASKS, 1.0)
}

async fn ping_pong() -> Sample {
    let meter = Meter::start();
    let each = YIELDS / 2;
    let a = spawn(async move {
        for _ in 0..each {
            yield_now().await;
        }
    });
    let b = spawn(async move {
        for _ in 0..each {
            yield_now().await;
        }
    });
    a.await;
    b.await;
    meter.stop(YIELDS, 1.0)
}

// smol has no oneshot of its own: a channel of capacity one stands in.
type Slots = Rc<RefCell<Vec<Option<Sender<()>>>>>;

async fn wake_chain() -> Sample {
    let slots: Slots = Rc::new(RefCell::new(vec![None; CHAIN_TASKS]));
    let meter = Meter::start();
    let handles: Vec<_> = (0..CHAIN_TASKS)
        .map(|i| {
            let slots = Rc::clone(&slots);
            spawn(async move {
                for _ in 0..CHAIN_ROUNDS {
                    let (tx, rx) = bounded(1);
                    slots.borrow_mut()[i] = Some(tx);
                    rx.recv().await.expect("sent, never dropped");
                    let next = slots.borrow_mut()[(i + 1) % CHAIN_TASKS].take();
                    if let Some(next) = next {
                        next.try_send(()).expect("room for one");
                    }
                }
            })
        })
        .collect();
    while slots.borrow().iter().any(Option::is_none) {
        yield_now().await;
    }
    let first = slots.borrow_mut()[0].take().expect("registered");
    first.try_send(()).expect("room for one");
    for handle in handles {
        handle.await;
    }
    meter.stop((CHAIN_TASKS * CHAIN_ROUNDS) as u64, 1.0)
}

async fn timers() -> Sample {
    let meter = Meter::start();
    let handles: Vec<_> = (0..TIMERS)
        .map(|i| {
            spawn(async move {
                Timer::after(Duration::from_micros(timer_delay_us(i))).await;
            })
        })
        .collect();
    for handle in handles {
        handle.await;
    }
    meter.stop(1, 1e6)
}

async fn tcp_echo() -> Sample {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    let meter = Meter::start();
    let server = spawn(async move {
        let mut echoes = Vec::new();
        for _ in 0..ECHO_CONNS {
            let (mut stream, _) = listener.accept().await.expect("accept");
            stream.set_nodelay(true).expect("nodelay");
            echoes.push(spawn(async move {
                let mut buf = [0u8; ECHO_BYTES];
                loop {
                    let n = stream.read(&mut buf).await.expect("read");
                    if n == 0 {
                        break;
                    }
                    stream.write_all(&buf[..n]).await.expect("write");
                }
            }));
        }
        for echo in echoes {
            echo.await;
        }
    });
    let clients: Vec<_> = (0..ECHO_CONNS)
        .map(|_| {
            spawn(async move {
                let mut stream = TcpStream::connect(addr).await.expect("connect");
                stream.set_nodelay(true).expect("nodelay");
                let out = [7u8; ECHO_BYTES];
                let mut back = [0u8; ECHO_BYTES];
                for _ in 0..ECHO_TRIPS {
                    stream.write_all(&out).await.expect("write");
                    stream.read_exact(&mut back).await.expect("read");
                }
            })
        })
        .collect();
    for client in clients {
        client.await;
    }
    server.await;
    meter.stop((ECHO_CONNS * ECHO_TRIPS) as u64, 1e3)
}

async fn idle() -> Sample {
    let meter = Meter::start();
    Timer::after(Duration::from_millis(IDLE_MS)).await;
    meter.stop(1, 1e6)
}

async fn mem_pending() -> Sample {
    let polled = Rc::new(RefCell::new(0usize));
    let mut handles = Vec::with_capacity(MEM_TASKS);
    let before = live_bytes();
    for _ in 0..MEM_TASKS {
        let polled = Rc::clone(&polled);
        handles.push(spawn(async move {
            *polled.borrow_mut() += 1;
            pending::<()>().await;
        }));
    }
    while *polled.borrow() < MEM_TASKS {
        yield_now().await;
    }
    bytes_per(before, live_bytes(), MEM_TASKS)
}

async fn mem_sleeping() -> Sample {
    let polled = Rc::new(RefCell::new(0usize));
    let mut handles = Vec::with_capacity(MEM_TASKS);
    let before = live_bytes();
    for _ in 0..MEM_TASKS {
        let polled = Rc::clone(&polled);
        handles.push(spawn(async move {
            *polled.borrow_mut() += 1;
            Timer::after(Duration::from_secs(3600)).await;
        }));
    }
    while *polled.borrow() < MEM_TASKS {
        yield_now().await;
    }
    bytes_per(before, live_bytes(), MEM_TASKS)
}
