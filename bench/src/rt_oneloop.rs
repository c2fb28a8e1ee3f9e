//! The workloads on oneloop's full stack: `oneloop_offload::run` (offload over timers
//! over epoll).

use std::cell::RefCell;
use std::future::pending;
use std::rc::Rc;
use std::time::Duration;

use oneloop_core::{spawn, yield_now};
use oneloop_future::OneShot;
use oneloop_io::{TcpListener, TcpStream};
use oneloop_timers::sleep;

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

fn block(future: impl Future<Output = Sample> + 'static) -> Sample {
    oneloop_offload::run(future).expect("the workload finishes")
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

type Slots = Rc<RefCell<Vec<Option<OneShot<(), ()>>>>>;

async fn wake_chain() -> Sample {
    let slots: Slots = Rc::new(RefCell::new(vec![None; CHAIN_TASKS]));
    let meter = Meter::start();
    let handles: Vec<_> = (0..CHAIN_TASKS)
        .map(|i| {
            let slots = Rc::clone(&slots);
            spawn(async move {
                for _ in 0..CHAIN_ROUNDS {
                    let token = OneShot::new();
                    let wait = token.wait();
                    slots.borrow_mut()[i] = Some(token);
                    wait.await.expect("set, never failed");
                    let next = slots.borrow_mut()[(i + 1) % CHAIN_TASKS].take();
                    if let Some(next) = next {
                        next.set_result(()).expect("pending");
                    }
                }
            })
        })
        .collect();
    while slots.borrow().iter().any(Option::is_none) {
        yield_now().await;
    }
    let first = slots.borrow_mut()[0].take().expect("registered");
    first.set_result(()).expect("pending");
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
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("address");
    let meter = Meter::start();
    let server = spawn(async move {
        let mut echoes = Vec::new();
        for _ in 0..ECHO_CONNS {
            let (stream, _) = listener.accept().await.expect("accept");
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
                let stream = TcpStream::connect(addr).await.expect("connect");
                stream.set_nodelay(true).expect("nodelay");
                let out = [7u8; ECHO_BYTES];
                let mut back = [0u8; ECHO_BYTES];
                for _ in 0..ECHO_TRIPS {
                    stream.write_all(&out).await.expect("write");
                    let mut got = 0;
                    while got < ECHO_BYTES {
                        let n = stream.read(&mut back[got..]).await.expect("read");
                        assert!(n > 0, "the server closed early");
                        got += n;
                    }
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
            sleep(Duration::from_secs(3600)).await;
        }));
    }
    while *polled.borrow() < MEM_TASKS {
        yield_now().await;
    }
    bytes_per(before, live_bytes(), MEM_TASKS)
}
