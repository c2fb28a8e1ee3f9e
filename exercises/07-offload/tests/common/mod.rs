//! Instruments the stage 7 tests share.
#![allow(dead_code)]

use std::future::Future;
use std::pin::Pin;
use std::sync::mpsc::{Receiver, RecvError};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use ex07_offload::ThreadPool;

/// The watchdog limit of every stage 7 test: a hang detector, not a timing. A correct
/// solution finishes each test (or each round of a long one) in well under a second on
/// an idle machine, but these tests run threads, and on a loaded machine a thread may
/// wait long for a core; so the limit is the longest the watchdog allows. A test that
/// passes it is reported hung: most likely a callback that never arrives or a job that
/// never runs (a lost wakeup is one way to get there), not slowness.
pub const LIMIT: Duration = oneloop_testkit::DEFAULT_LIMIT;

/// Receives what a job sends. A job the pool dropped without running it (its worker
/// thread died outside any job, as an unwritten worker loop does) drops its sender:
/// this then fails at once, showing the pool with the worker's panic in its phase.
pub fn from_job<T>(rx: &Receiver<T>, pool: &ThreadPool) -> T {
    match rx.recv() {
        Ok(value) => value,
        Err(RecvError) => panic!("the pool dropped a job without running it: {pool:?}"),
    }
}

/// A one-way flag that a task can await; `set` may be called from any thread.
#[derive(Clone, Default)]
pub struct Signal {
    state: Arc<Mutex<(bool, Option<Waker>)>>,
}

impl Signal {
    /// Sets the flag and wakes the waiting task (on whatever thread calls it).
    pub fn set(&self) {
        let waker = {
            let mut state = self.state.lock().unwrap();
            state.0 = true;
            state.1.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Whether the flag is set.
    pub fn is_set(&self) -> bool {
        self.state.lock().unwrap().0
    }

    /// A future that resolves once the flag is set.
    pub fn wait(&self) -> WaitSignal {
        WaitSignal {
            signal: self.clone(),
        }
    }
}

/// The future of [`Signal::wait`].
pub struct WaitSignal {
    signal: Signal,
}

impl Future for WaitSignal {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut state = self.signal.state.lock().unwrap();
        if state.0 {
            Poll::Ready(())
        } else {
            state.1 = Some(cx.waker().clone());
            Poll::Pending
        }
    }
}

/// A future that is pending once: on its first poll it hands its waker to `send`, and
/// it is ready on the next poll.
pub struct WakeFromElsewhere<S: FnMut(Waker)> {
    pub send: S,
    pub polled: bool,
}

impl<S: FnMut(Waker) + Unpin> Future for WakeFromElsewhere<S> {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.polled {
            return Poll::Ready(());
        }
        self.polled = true;
        (self.send)(cx.waker().clone());
        Poll::Pending
    }
}

/// An innermost driver whose park and unpark a test can see, to catch a
/// `call_soon_threadsafe` that wakes the loop *before* it pushes.
///
/// `park` sleeps on a condvar until an unpark token arrives (or the timeout passes).
/// `unpark` leaves the token and then holds its caller until the loop has entered two
/// more parks (at most half a second): the first returns on the token, the second
/// finds no token. A pusher that woke the loop before pushing has by then let the loop
/// drain an empty inbox and fall asleep again; its item lands after, unseen, and the
/// test hangs. A pusher that pushed first loses only the wait.
#[derive(Debug, Default)]
pub struct Gate {
    state: Mutex<GateState>,
    changed: std::sync::Condvar,
}

#[derive(Debug, Default)]
struct GateState {
    token: bool,
    parks: u64,
}

impl Gate {
    fn lock(&self) -> std::sync::MutexGuard<'_, GateState> {
        self.state.lock().unwrap()
    }
}

/// The [`Gate`]'s way to end a park, handed to the layers above it.
#[derive(Debug)]
pub struct GateUnpark(pub Arc<Gate>);

impl oneloop_core::hooks::Unpark for GateUnpark {
    fn unpark(&self) {
        let gate = &self.0;
        let mut state = gate.lock();
        let seen = state.parks;
        state.token = true;
        gate.changed.notify_all();
        let deadline = std::time::Instant::now() + Duration::from_millis(500);
        while state.parks < seen + 2 {
            let now = std::time::Instant::now();
            if now >= deadline {
                break;
            }
            state = gate.changed.wait_timeout(state, deadline - now).unwrap().0;
        }
    }
}

/// The driver half of a [`Gate`].
#[derive(Debug, Default)]
pub struct GateDriver(pub Arc<Gate>);

impl oneloop_core::Driver for GateDriver {
    fn install(&mut self, core: &std::rc::Rc<oneloop_core::Core>) {
        core.scheduler()
            .set_unparker(oneloop_core::hooks::Unparker::new(GateUnpark(Arc::clone(
                &self.0,
            ))));
    }

    fn park(
        &mut self,
        timeout: Option<Duration>,
        _ready: &oneloop_core::hooks::ReadyQueue,
    ) -> oneloop_core::ParkReport {
        let gate = &self.0;
        let mut state = gate.lock();
        state.parks += 1;
        gate.changed.notify_all();
        let deadline = timeout.map(|timeout| std::time::Instant::now() + timeout);
        while !state.token {
            match deadline {
                None => state = gate.changed.wait(state).unwrap(),
                Some(deadline) => {
                    let now = std::time::Instant::now();
                    if now >= deadline {
                        break;
                    }
                    state = gate.changed.wait_timeout(state, deadline - now).unwrap().0;
                }
            }
        }
        state.token = false;
        oneloop_core::ParkReport {
            timeout,
            ..oneloop_core::ParkReport::default()
        }
    }
}

/// The message of the panic that [`KillsItsWorker`] raises when dropped.
pub const KILLER_MESSAGE: &str = "a panic payload that panics again when dropped";

/// A panic payload whose drop panics. A job that panics with it kills its worker
/// *outside* any job: the job's panic is caught, but its payload is dropped by the
/// worker loop after the catch, and that second panic unwinds the worker loop itself.
/// It is the one way a correct worker loop dies, and how these tests break a pool.
pub struct KillsItsWorker;

impl Drop for KillsItsWorker {
    fn drop(&mut self) {
        panic!("{KILLER_MESSAGE}");
    }
}

/// A job that breaks its pool (see [`KillsItsWorker`]).
pub fn worker_killer() -> impl FnOnce() + Send + 'static {
    || std::panic::panic_any(KillsItsWorker)
}

/// Fills the only worker of a one-thread `pool` with a job that holds it until
/// [`Hold::release`], and queues a [`worker_killer`] behind it: jobs submitted after
/// this call queue behind the killer, and the pool breaks with them still queued.
pub fn hold_then_kill(pool: &ThreadPool) -> Hold {
    assert_eq!(pool.max_threads(), 1, "the pool must have a single thread");
    let (started_tx, started_rx) = std::sync::mpsc::channel();
    let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
    pool.submit(move || {
        started_tx.send(()).unwrap();
        let _ = release_rx.recv();
    })
    .unwrap();
    from_job(&started_rx, pool);
    pool.submit(worker_killer()).unwrap();
    Hold(release_tx)
}

/// Holds a pool's only worker; see [`hold_then_kill`].
pub struct Hold(std::sync::mpsc::Sender<()>);

impl Hold {
    /// Lets the worker go on, to the killer.
    pub fn release(self) {
        self.0.send(()).unwrap();
    }
}
