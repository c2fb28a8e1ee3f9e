//! The workloads on tokio's current-thread runtime.

use std::future::pending;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::{spawn, yield_now};
use tokio::time::sleep;

use crate::measure::{Meter, Sample, bytes_per, live_bytes};
use crate::workloads::*;

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
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
        .block_on(future)
}

async fn spawn_join() -> Sample {
    let meter = Meter::start();
    let handles: Vec<_> = (0..SPAWN_TASKS).map(|i| spawn(async move { i })).collect();
    for handle in handles {
        handle.await.expect("no panic");
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
    a.await.expect("no panic");
    b.await.expect("no panic");
    meter.stop(YIELDS, 1.0)
}

// Tasks on tokio's `spawn` must be `Send`: the slots sit behind a mutex, never
// contended (one thread).
type Slots = Arc<Vec<Mutex<Option<oneshot::Sender<()>>>>>;

async fn wake_chain() -> Sample {
    let slots: Slots = Arc::new((0..CHAIN_TASKS).map(|_| Mutex::new(None)).collect());
    let meter = Meter::start();
    let handles: Vec<_> = (0..CHAIN_TASKS)
        .map(|i| {
            let slots = Arc::clone(&slots);
            spawn(async move {
                for _ in 0..CHAIN_ROUNDS {
                    let (tx, rx) = oneshot::channel();
                    *slots[i].lock().expect("no panic") = Some(tx);
                    rx.await.expect("sent, never dropped");
                    let next = slots[(i + 1) % CHAIN_TASKS]
                        .lock()
                        .expect("no panic")
                        .take();
                    if let Some(next) = next {
                        next.send(()).expect("waiting");
                    }
                }
            })
        })
        .collect();
    while slots.iter().any(|s| s.lock().expect("no panic").is_none()) {
        yield_now().await;
    }
    let first = slots[0]
        .lock()
        .expect("no panic")
        .take()
        .expect("registered");
    first.send(()).expect("waiting");
    for handle in handles {
        handle.await.expect("no panic");
    }
    meter.stop((CHAIN_TASKS * CHAIN_ROUNDS) as u64, 1.0)
}

async fn timers() -> Sample {
    let meter = Meter::start();
    let handles: Vec<_> = (0..TIMERS)
        .map(|i| spawn(sleep(Duration::from_micros(timer_delay_us(i)))))
        .collect();
    for handle in handles {
        handle.await.expect("no panic");
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
            echo.await.expect("no panic");
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
        client.await.expect("no panic");
    }
    server.await.expect("no panic");
    meter.stop((ECHO_CONNS * ECHO_TRIPS) as u64, 1e3)
}

async fn idle() -> Sample {
    let meter = Meter::start();
    sleep(Duration::from_millis(IDLE_MS)).await;
    meter.stop(1, 1e6)
}

async fn mem_pending() -> Sample {
    let polled = Arc::new(AtomicUsize::new(0));
    let mut handles = Vec::with_capacity(MEM_TASKS);
    let before = live_bytes();
    for _ in 0..MEM_TASKS {
        let polled = Arc::clone(&polled);
        handles.push(spawn(async move {
            polled.fetch_add(1, Ordering::Relaxed);
            pending::<()>().await;
        }));
    }
    while polled.load(Ordering::Relaxed) < MEM_TASKS {
        yield_now().await;
    }
    bytes_per(before, live_bytes(), MEM_TASKS)
}

async fn mem_sleeping() -> Sample {
    let polled = Arc::new(AtomicUsize::new(0));
    let mut handles = Vec::with_capacity(MEM_TASKS);
    let before = live_bytes();
    for _ in 0..MEM_TASKS {
        let polled = Arc::clone(&polled);
        handles.push(spawn(async move {
            polled.fetch_add(1, Ordering::Relaxed);
            sleep(Duration::from_secs(3600)).await;
        }));
    }
    while polled.load(Ordering::Relaxed) < MEM_TASKS {
        yield_now().await;
    }
    bytes_per(before, live_bytes(), MEM_TASKS)
}
