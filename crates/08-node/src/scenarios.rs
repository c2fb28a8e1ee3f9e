//! The scenarios' programs: each one the same program as a script in
//! `tests/node/<name>.js`, written line for line for this loop.
//!
//! `scenario_list.rs` lists them; the suite `tests/truth_node.rs` runs both sides and
//! compares what they print, and the quizzes and the examples run them too. Node's
//! globals are spelled as this crate's functions: `console.log` is [`console_log`],
//! `process.nextTick` is [`next_tick`], an `async function` is an `async` block given
//! to [`spawn_async`], `await p` is `p.await`.

use std::cell::Cell;
use std::io::Write;
use std::rc::Rc;

use crate::{
    Interest, Promise, TimerId, busy_wait, clear_interval, clear_timeout, close, console_log,
    next_tick, once_ready, pipe, queue_microtask, ref_timer, refresh_timer, set_immediate,
    set_interval, set_timeout, spawn_async, spawn_async_promise, timer_has_ref, unref_timer, watch,
};

// ANCHOR: tick_before_promise
pub(crate) fn tick_before_promise() {
    Promise::resolved(()).then(|()| console_log("promise"));
    next_tick(|| console_log("tick"));
    queue_microtask(|| console_log("microtask"));
    console_log("main");
}
// ANCHOR_END: tick_before_promise

// ANCHOR: microtasks_between_timers
pub(crate) fn microtasks_between_timers() {
    set_timeout(
        || {
            console_log("timeout 1");
            Promise::resolved(()).then(|()| console_log("promise 1"));
            next_tick(|| console_log("tick 1"));
        },
        0,
    );
    set_timeout(
        || {
            console_log("timeout 2");
            Promise::resolved(()).then(|()| console_log("promise 2"));
        },
        0,
    );
}
// ANCHOR_END: microtasks_between_timers

pub(crate) fn tick_inside_immediate() {
    set_immediate(|| {
        console_log("immediate 1");
        Promise::resolved(()).then(|()| console_log("promise"));
        next_tick(|| console_log("tick"));
    });
    set_immediate(|| console_log("immediate 2"));
}

pub(crate) fn immediate_in_immediate() {
    set_immediate(|| {
        console_log("immediate A");
        set_immediate(|| console_log("immediate C"));
    });
    set_immediate(|| console_log("immediate B"));
}

// ANCHOR: io_timeout_vs_immediate
pub(crate) fn io_timeout_vs_immediate() {
    // Node reads a file on its thread pool; here a pipe with a byte in it stands for
    // the finished read: a real readiness event from epoll, in the poll phase.
    let (mut sender, receiver) = pipe::new().expect("a pipe can be made");
    sender
        .write_all(b"x")
        .expect("one byte fits in an empty pipe");
    once_ready(receiver, Interest::READABLE, move |_receiver| {
        drop(sender);
        console_log("io");
        set_timeout(|| console_log("timeout"), 0);
        set_immediate(|| console_log("immediate"));
        next_tick(|| console_log("tick"));
    })
    .expect("the pipe can be registered");
}
// ANCHOR_END: io_timeout_vs_immediate

pub(crate) fn main_timeout_vs_immediate() {
    set_timeout(|| console_log("timeout"), 0);
    set_immediate(|| console_log("immediate"));
}

pub(crate) fn timer_timeout_vs_immediate() {
    set_timeout(
        || {
            console_log("timeout A");
            set_timeout(|| console_log("timeout B"), 0);
            set_immediate(|| console_log("immediate"));
        },
        0,
    );
}

// ANCHOR: async_classic
pub(crate) fn async_classic() {
    async fn async2() {
        console_log("async2");
    }
    async fn async1() {
        console_log("async1 start");
        spawn_async(async2()).await;
        console_log("async1 end");
    }
    console_log("script start");
    set_timeout(|| console_log("setTimeout"), 0);
    spawn_async(async1());
    Promise::new(|resolve| {
        console_log("promise1");
        resolve.resolve(());
    })
    .then(|()| console_log("promise2"));
    console_log("script end");
}
// ANCHOR_END: async_classic

// ANCHOR: await_vs_then_chain
pub(crate) fn await_vs_then_chain() {
    spawn_async(async {
        console_log("a1");
        Promise::resolved(()).await;
        console_log("a2");
        Promise::resolved(()).await;
        console_log("a3");
    });
    Promise::resolved(())
        .then(|()| console_log("p1"))
        .then(|()| console_log("p2"))
        .then(|()| console_log("p3"));
    console_log("sync");
}
// ANCHOR_END: await_vs_then_chain

// ANCHOR: tick_microtask_nesting
pub(crate) fn tick_microtask_nesting() {
    Promise::resolved(()).then(|()| {
        console_log("promise 1");
        next_tick(|| console_log("tick from promise"));
        Promise::resolved(()).then(|()| console_log("promise 2"));
    });
    next_tick(|| {
        console_log("tick 1");
        next_tick(|| console_log("tick 2"));
        Promise::resolved(()).then(|()| console_log("promise from tick"));
    });
}
// ANCHOR_END: tick_microtask_nesting

// ANCHOR: async_with_timers
pub(crate) fn async_with_timers() {
    async fn worker(name: &'static str, ms: u64) {
        console_log(format!("{name} start"));
        Promise::new(|resolve| {
            set_timeout(move || resolve.resolve(()), ms);
        })
        .await;
        console_log(format!("{name} woke"));
        Promise::resolved(()).await;
        console_log(format!("{name} done"));
    }
    console_log("main start");
    set_timeout(|| console_log("plain timer"), 300);
    spawn_async(worker("a", 600));
    spawn_async(worker("b", 1));
    console_log("main end");
}
// ANCHOR_END: async_with_timers

pub(crate) fn interval_cleared() {
    let id = std::rc::Rc::new(std::cell::Cell::new(None));
    let mut n = 0;
    let handle = std::rc::Rc::clone(&id);
    let timer = set_interval(
        move || {
            n += 1;
            console_log(format!("interval {n}"));
            next_tick(move || console_log(format!("tick {n}")));
            if n == 3 {
                if let Some(timer) = handle.get() {
                    clear_interval(timer);
                }
                set_timeout(|| console_log("after clear"), 0);
            }
        },
        1,
    );
    id.set(Some(timer));
}

pub(crate) fn main_busy_then_race() {
    busy_wait(50);
    set_timeout(|| console_log("timeout"), 0);
    set_immediate(|| console_log("immediate"));
}

pub(crate) fn main_timer_then_busy() {
    set_timeout(|| console_log("timeout"), 0);
    set_immediate(|| console_log("immediate"));
    busy_wait(50);
}

// ANCHOR: interval_slow_callback
pub(crate) fn interval_slow_callback() {
    let id = std::rc::Rc::new(std::cell::Cell::new(None));
    let mut n = 0;
    let handle = std::rc::Rc::clone(&id);
    let timer = set_interval(
        move || {
            n += 1;
            console_log(format!("tick {n}"));
            if n == 1 {
                set_timeout(|| console_log("timeout"), 380);
            }
            busy_wait(80);
            if n == 4
                && let Some(timer) = handle.get()
            {
                clear_interval(timer);
            }
        },
        100,
    );
    id.set(Some(timer));
}
// ANCHOR_END: interval_slow_callback

// ANCHOR: close_after_check
pub(crate) fn close_after_check() {
    let listener = crate::TcpListener::bind("127.0.0.1:0".parse().expect("an address"))
        .expect("a listener on 127.0.0.1");
    let address = listener.local_addr().expect("the listener's address");
    let socket = crate::TcpStream::connect(address).expect("a connecting socket");
    // Writable: the connection is made (Node's 'connect').
    once_ready(socket, Interest::WRITABLE, move |socket| {
        drop(listener);
        console_log("connect");
        // The socket becomes a handle, then `destroy()` closes it: uv_close.
        let handle = watch(socket, Interest::READABLE, |_| {}).expect("the socket registers");
        close(handle, || console_log("close callback")).expect("the socket deregisters");
        set_immediate(|| console_log("immediate"));
        next_tick(|| console_log("tick"));
    })
    .expect("the socket registers");
}
// ANCHOR_END: close_after_check

pub(crate) fn async_return_then() {
    async fn value() -> &'static str {
        console_log("body");
        "v"
    }
    spawn_async(value()).then(|v| console_log(format!("then {v}")));
    queue_microtask(|| console_log("microtask"));
    next_tick(|| console_log("tick"));
}

// ANCHOR: async_returns_promise
pub(crate) fn async_returns_promise() {
    async fn returns_promise() -> Promise<&'static str> {
        Promise::resolved("v")
    }
    spawn_async_promise(returns_promise()).then(|v| console_log(format!("async resolved {v}")));
    Promise::resolved(())
        .then_promise(|()| Promise::resolved("w"))
        .then(|w| console_log(format!("then adopted {w}")));
    Promise::resolved(())
        .then(|()| console_log("then 1"))
        .then(|()| console_log("then 2"))
        .then(|()| console_log("then 3"))
        .then(|()| console_log("then 4"));
}
// ANCHOR_END: async_returns_promise

pub(crate) fn await_promise_vs_adopt() {
    let p = Promise::resolved("p");
    let awaited = p.clone();
    spawn_async(async move {
        let v = awaited.await;
        console_log(format!("awaited {v}"));
    });
    Promise::new(|resolve| resolve.resolve_with(p.clone()))
        .then(|v| console_log(format!("adopted {v}")));
    // `Promise.resolve(p)` of a promise is `p` itself: here, a handle to the same one.
    let same = p.clone();
    same.then(|v| console_log(format!("resolve kept {v}")));
    Promise::resolved(())
        .then(|()| console_log("then 1"))
        .then(|()| console_log("then 2"))
        .then(|()| console_log("then 3"))
        .then(|()| console_log("then 4"));
}

pub(crate) fn timers_by_deadline() {
    console_log("main");
    set_timeout(|| console_log("400 ms"), 400);
    set_timeout(|| console_log("200 ms"), 200);
    set_timeout(|| console_log("0 ms"), 0);
}

// ANCHOR: late_loop_runs_lists
pub(crate) fn late_loop_runs_lists() {
    set_timeout(|| console_log("10 ms, first"), 10);
    set_timeout(|| console_log("12 ms"), 12);
    busy_wait(5);
    set_timeout(|| console_log("10 ms, second"), 10);
    busy_wait(50);
}
// ANCHOR_END: late_loop_runs_lists

// ANCHOR: interval_behind_its_list
pub(crate) fn interval_behind_its_list() {
    let id = std::rc::Rc::new(std::cell::Cell::new(None));
    let handle = std::rc::Rc::clone(&id);
    let mut n = 0;
    let timer = set_interval(
        move || {
            n += 1;
            console_log(format!("interval {n}"));
            if n == 1 {
                busy_wait(5);
                set_timeout(|| console_log("timeout"), 10);
            } else if let Some(timer) = handle.get() {
                clear_interval(timer);
            }
        },
        10,
    );
    id.set(Some(timer));
}
// ANCHOR_END: interval_behind_its_list

// ANCHOR: unref_timer
pub(crate) fn unref_timer_scenario() {
    let a = set_timeout(|| console_log("unref 10 ms"), 10);
    unref_timer(a);
    let b = set_timeout(|| console_log("unref then ref 20 ms"), 20);
    unref_timer(b);
    ref_timer(b);
    console_log(format!("hasRef {} {}", timer_has_ref(a), timer_has_ref(b)));
    set_timeout(
        || {
            console_log("ref 100 ms");
            let last = set_timeout(|| console_log("never"), 5000);
            unref_timer(last);
        },
        100,
    );
}
// ANCHOR_END: unref_timer

pub(crate) fn interval_cleared_by_its_tick() {
    let id = Rc::new(Cell::new(None));
    let in_tick = Rc::clone(&id);
    let interval = set_interval(
        move || {
            console_log("interval");
            let in_tick = Rc::clone(&in_tick);
            next_tick(move || {
                console_log("tick clears it");
                if let Some(id) = in_tick.get() {
                    clear_interval(id);
                }
            });
        },
        10,
    );
    id.set(Some(interval));
    set_timeout(|| console_log("50 ms"), 50);
}

pub(crate) fn refresh_due_timer() {
    let b = Rc::new(Cell::new(None));
    let in_a = Rc::clone(&b);
    set_timeout(
        move || {
            console_log("A 20 ms refreshes B");
            if let Some(b) = in_a.get() {
                refresh_timer(b);
            }
        },
        20,
    );
    b.set(Some(set_timeout(|| console_log("B 20 ms, refreshed"), 20)));
    set_timeout(|| console_log("C 30 ms"), 30);
}

pub(crate) fn unref_interval() {
    let mut n = 0;
    let id = set_interval(
        move || {
            n += 1;
            console_log(format!("interval {n}"));
        },
        40,
    );
    unref_timer(id);
    console_log(format!("hasRef {}", timer_has_ref(id)));
    set_timeout(|| console_log("100 ms"), 100);
}

// ANCHOR: refresh_timer
pub(crate) fn refresh_timer_scenario() {
    let timer = set_timeout(|| console_log("refreshed 200 ms timer"), 200);
    set_timeout(
        move || {
            refresh_timer(timer);
            console_log("100 ms: refresh");
        },
        100,
    );
    set_timeout(|| console_log("250 ms"), 250);
    set_timeout(|| console_log("350 ms"), 350);
}
// ANCHOR_END: refresh_timer

pub(crate) fn delays_clamped() {
    set_timeout(|| console_log("50 ms"), 50);
    set_timeout(|| console_log("2^31 ms"), 1 << 31);
    set_timeout(|| console_log("0 ms"), 0);
    set_timeout(|| console_log("1 ms"), 1);
}

// ANCHOR: timers_phase_reads_clock_once
pub(crate) fn timers_phase_reads_clock_once() {
    set_timeout(
        || {
            console_log("10 ms, busy 100 ms");
            set_immediate(|| console_log("immediate"));
            busy_wait(100);
        },
        10,
    );
    set_timeout(|| console_log("60 ms"), 60);
}
// ANCHOR_END: timers_phase_reads_clock_once

pub(crate) fn same_deadline_lists() {
    set_timeout(|| console_log("T1 10 ms"), 10);
    set_timeout(
        || {
            set_timeout(|| console_log("T2 10 ms, set at 5"), 10);
        },
        5,
    );
    set_timeout(
        || {
            set_timeout(|| console_log("U 7 ms, set at 8"), 7);
        },
        8,
    );
}

pub(crate) fn clear_due_timer() {
    let timers = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let cleared = std::rc::Rc::clone(&timers);
    let a = set_timeout(
        move || {
            console_log("A clears B");
            clear_timeout(cleared.borrow()[1]);
            next_tick(move || {
                console_log("tick clears C");
                clear_timeout(cleared.borrow()[2]);
            });
        },
        0,
    );
    timers.borrow_mut().push(a);
    let b = set_timeout(|| console_log("B"), 0);
    timers.borrow_mut().push(b);
    let c = set_timeout(|| console_log("C"), 0);
    timers.borrow_mut().push(c);
    set_timeout(|| console_log("50 ms"), 50);
}

pub(crate) fn refresh_in_own_interval() {
    let id = std::rc::Rc::new(std::cell::Cell::new(None));
    let handle = std::rc::Rc::clone(&id);
    let mut n = 0;
    let interval = set_interval(
        move || {
            n += 1;
            console_log(format!("run {n}"));
            busy_wait(50);
            if let Some(interval) = handle.get() {
                refresh_timer(interval);
                if n == 3 {
                    clear_interval(interval);
                }
            }
        },
        100,
    );
    id.set(Some(interval));
    set_timeout(|| console_log("240 ms"), 240);
}

// ANCHOR: close_order
pub(crate) fn close_order() {
    let listener = crate::TcpListener::bind("127.0.0.1:0".parse().expect("an address"))
        .expect("a listener on 127.0.0.1");
    let address = listener.local_addr().expect("the listener's address");
    let a = crate::TcpStream::connect(address).expect("a connecting socket");
    once_ready(a, Interest::WRITABLE, move |a| {
        let a = watch(a, Interest::READABLE, |_| {}).expect("a registers");
        let b = crate::TcpStream::connect(address).expect("a second connecting socket");
        once_ready(b, Interest::WRITABLE, move |b| {
            drop(listener);
            console_log("both connected");
            let b = watch(b, Interest::READABLE, |_| {}).expect("b registers");
            close(a, || console_log("a closed")).expect("a deregisters");
            close(b, || console_log("b closed")).expect("b deregisters");
            set_immediate(|| console_log("immediate"));
        })
        .expect("b registers");
    })
    .expect("a registers");
}
// ANCHOR_END: close_order

/// `close_microtasks`: each close callback queues a promise and a nextTick, and both
/// queues drain before the next close callback.
pub(crate) fn close_microtasks() {
    fn closed(name: &'static str) -> impl FnOnce() + 'static {
        move || {
            console_log(format!("{name} closed"));
            Promise::resolved(()).then(move |()| console_log(format!("promise {name}")));
            next_tick(move || console_log(format!("tick {name}")));
        }
    }
    let listener = crate::TcpListener::bind("127.0.0.1:0".parse().expect("an address"))
        .expect("a listener on 127.0.0.1");
    let address = listener.local_addr().expect("the listener's address");
    let a = crate::TcpStream::connect(address).expect("a connecting socket");
    once_ready(a, Interest::WRITABLE, move |a| {
        let a = watch(a, Interest::READABLE, |_| {}).expect("a registers");
        let b = crate::TcpStream::connect(address).expect("a second connecting socket");
        once_ready(b, Interest::WRITABLE, move |b| {
            drop(listener);
            console_log("both connected");
            let b = watch(b, Interest::READABLE, |_| {}).expect("b registers");
            close(a, closed("a")).expect("a deregisters");
            close(b, closed("b")).expect("b deregisters");
        })
        .expect("b registers");
    })
    .expect("a registers");
}

// ANCHOR: tick_in_microtask_in_immediate
pub(crate) fn tick_in_microtask_in_immediate() {
    set_immediate(|| {
        console_log("immediate 1");
        Promise::resolved(()).then(|()| {
            console_log("promise 1");
            next_tick(|| {
                console_log("tick from promise");
                Promise::resolved(()).then(|()| console_log("promise from tick"));
            });
            queue_microtask(|| console_log("microtask 2"));
        });
    });
    set_immediate(|| console_log("immediate 2"));
}
// ANCHOR_END: tick_in_microtask_in_immediate

/// An interval of `ms` that prints `interval N` at its Nth run and, at run `last`, does
/// `at_last` to itself (clears or unrefs it), as a script's `setInterval` callback does
/// with the id it closes over.
fn counted_interval(ms: u64, last: u32, at_last: fn(TimerId)) -> TimerId {
    let id = Rc::new(Cell::new(None));
    let handle = Rc::clone(&id);
    let mut n = 0;
    let interval = set_interval(
        move || {
            n += 1;
            console_log(format!("interval {n}"));
            if n == last
                && let Some(interval) = handle.get()
            {
                at_last(interval);
            }
        },
        ms,
    );
    id.set(Some(interval));
    interval
}

pub(crate) fn interval_zero_clamped() {
    counted_interval(0, 3, clear_interval);
    set_timeout(|| console_log("timeout 1 ms"), 1);
}

pub(crate) fn interval_cleared_by_list_mate() {
    let interval = set_interval(|| console_log("interval"), 10);
    set_timeout(
        move || {
            console_log("timeout clears interval");
            clear_interval(interval);
        },
        10,
    );
    set_timeout(|| console_log("50 ms"), 50);
}

pub(crate) fn ref_from_callback() {
    let a = set_timeout(|| console_log("50 ms, ref again"), 50);
    unref_timer(a);
    let b = set_timeout(|| console_log("30 ms, unref"), 30);
    unref_timer(b);
    set_timeout(
        move || {
            console_log(format!("10 ms refs A {}", timer_has_ref(a)));
            ref_timer(a);
        },
        10,
    );
}

pub(crate) fn timer_set_in_check() {
    set_immediate(|| {
        console_log("immediate 1");
        set_timeout(|| console_log("timeout"), 0);
        set_immediate(|| console_log("immediate 2"));
        busy_wait(5);
    });
}

// ANCHOR: every_phase_from_io
pub(crate) fn every_phase_from_io() {
    let listener = crate::TcpListener::bind("127.0.0.1:0".parse().expect("an address"))
        .expect("a listener on 127.0.0.1");
    let address = listener.local_addr().expect("the listener's address");
    let socket = crate::TcpStream::connect(address).expect("a connecting socket");
    once_ready(socket, Interest::WRITABLE, move |socket| {
        // The server's side: accept the connection and send one byte.
        let (mut conn, _) = listener
            .accept()
            .expect("the connection waits in the backlog");
        conn.write_all(b"x").expect("one byte fits");
        drop(listener);
        let id = Rc::new(Cell::new(None));
        let own = Rc::clone(&id);
        let watched = watch(socket, Interest::READABLE, move |socket| {
            let mut buf = [0; 16];
            if !matches!(std::io::Read::read(socket, &mut buf), Ok(n) if n > 0) {
                return;
            }
            console_log("data");
            if let Some(id) = own.get() {
                close(id, || console_log("close")).expect("the socket deregisters");
            }
            set_timeout(|| console_log("timeout"), 0);
            set_immediate(|| console_log("immediate"));
            Promise::resolved(()).then(|()| console_log("promise"));
            next_tick(|| console_log("tick"));
            busy_wait(5);
        })
        .expect("the socket registers");
        id.set(Some(watched));
        drop(conn);
    })
    .expect("the socket registers");
}
// ANCHOR_END: every_phase_from_io

pub(crate) fn refresh_keeps_unref() {
    let a = set_timeout(|| console_log("never"), 30);
    unref_timer(a);
    set_timeout(
        move || {
            refresh_timer(a);
            console_log(format!("20 ms refreshes A, hasRef {}", timer_has_ref(a)));
        },
        20,
    );
}

pub(crate) fn interval_unrefs_itself() {
    counted_interval(10, 2, unref_timer);
}

pub(crate) fn refresh_cleared_timer() {
    let a = set_timeout(|| console_log("never"), 20);
    clear_timeout(a);
    set_timeout(
        move || {
            refresh_timer(a);
            console_log("10 ms refreshes cleared A");
        },
        10,
    );
    set_timeout(|| console_log("50 ms"), 50);
}

pub(crate) fn timer_joins_its_own_list() {
    set_timeout(
        || {
            console_log("A 10 ms sets B 10 ms");
            set_timeout(|| console_log("B 10 ms"), 10);
        },
        10,
    );
    set_timeout(|| console_log("C 15 ms"), 15);
}

pub(crate) fn refresh_interval_from_timer() {
    let interval = counted_interval(60, 2, clear_interval);
    set_timeout(
        move || {
            refresh_timer(interval);
            console_log("30 ms refreshes interval");
        },
        30,
    );
    set_timeout(|| console_log("75 ms"), 75);
    set_timeout(|| console_log("120 ms"), 120);
}

pub(crate) fn immediate_lets_io_in() {
    let listener = crate::TcpListener::bind("127.0.0.1:0".parse().expect("an address"))
        .expect("a listener on 127.0.0.1");
    let address = listener.local_addr().expect("the listener's address");
    let socket = crate::TcpStream::connect(address).expect("a connecting socket");
    once_ready(socket, Interest::WRITABLE, move |socket| {
        // The server's side: accept the connection and watch it for data.
        let (conn, _) = listener
            .accept()
            .expect("the connection waits in the backlog");
        drop(listener);
        let id = Rc::new(Cell::new(None));
        let own = Rc::clone(&id);
        let watched = watch(conn, Interest::READABLE, move |conn| {
            let mut buf = [0; 16];
            let Ok(n @ 1..) = std::io::Read::read(conn, &mut buf) else {
                return;
            };
            console_log(format!("data {}", String::from_utf8_lossy(&buf[..n])));
            if let Some(id) = own.get() {
                close(id, || {}).expect("the connection deregisters");
            }
        })
        .expect("the connection registers");
        id.set(Some(watched));
        let socket = Rc::new(std::cell::RefCell::new(Some(socket)));
        set_timeout(
            move || {
                set_immediate(move || {
                    console_log("immediate 1 writes");
                    if let Some(socket) = socket.borrow_mut().as_mut() {
                        socket.write_all(b"x").expect("one byte fits");
                    }
                    set_immediate(move || {
                        console_log("immediate 2");
                        set_immediate(move || {
                            console_log("immediate 3");
                            socket.borrow_mut().take();
                        });
                    });
                });
            },
            20,
        );
    })
    .expect("the socket registers");
}

pub(crate) fn close_from_close() {
    let listener = crate::TcpListener::bind("127.0.0.1:0".parse().expect("an address"))
        .expect("a listener on 127.0.0.1");
    let address = listener.local_addr().expect("the listener's address");
    let a = crate::TcpStream::connect(address).expect("a connecting socket");
    once_ready(a, Interest::WRITABLE, move |a| {
        let a = watch(a, Interest::READABLE, |_| {}).expect("a registers");
        let b = crate::TcpStream::connect(address).expect("a second connecting socket");
        once_ready(b, Interest::WRITABLE, move |b| {
            console_log("both connected");
            drop(listener);
            let b = watch(b, Interest::READABLE, |_| {}).expect("b registers");
            close(a, move || {
                console_log("a closed, closes b");
                set_immediate(|| console_log("immediate"));
                close(b, || console_log("b closed")).expect("b deregisters");
            })
            .expect("a deregisters");
        })
        .expect("b registers");
    })
    .expect("a registers");
}
