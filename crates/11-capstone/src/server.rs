//! The server: its limits, its clients, the accept loop and the shutdown.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::fmt;
use std::future::{Future, poll_fn};
use std::io;
use std::net::Shutdown;
use std::pin::pin;
use std::rc::Rc;
use std::task::{Poll, Waker};
use std::time::Duration;

use oneloop::{TcpListener, TcpStream, serve};

use crate::connection::{Ending, connection};
use crate::{Db, Limits, PubSub, new_db};

/// The reply a client gets when the server is full.
pub const MAX_CLIENTS_REACHED: &[u8] = b"-ERR max clients reached\r\n";

/// The server's limits.
#[derive(Debug, Clone)]
pub struct Config {
    /// How big a request frame may be.
    pub limits: Limits,
    /// How many clients may be connected at once (Redis's `maxclients`).
    pub max_clients: usize,
    /// How many bytes of replies and messages may wait for one client.
    pub max_output: usize,
    /// How long a client may send nothing before it is disconnected (`None`: for
    /// ever). Subscribers are exempt, as in Redis.
    pub idle_timeout: Option<Duration>,
    /// How long shutdown waits for connections to finish before closing them.
    pub shutdown_deadline: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            limits: Limits::default(),
            max_clients: 10_000,
            max_output: 8 * 1024 * 1024,
            idle_timeout: Some(Duration::from_secs(300)),
            shutdown_deadline: Duration::from_secs(5),
        }
    }
}

impl Config {
    /// The most unparsed bytes a client may have buffered: room for a request whose
    /// arguments are four bulk strings of the largest size.
    pub fn max_query(&self) -> usize {
        4 * self.limits.max_bulk + 2 * self.limits.max_line
    }
}

/// What the server counted while it ran.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Connections served.
    pub accepted: u64,
    /// Connections refused with [`MAX_CLIENTS_REACHED`].
    pub refused: u64,
    /// Connections closed for a malformed request.
    pub malformed: u64,
    /// Connections closed for idling.
    pub idle: u64,
    /// Connections closed for passing the output bound.
    pub slow: u64,
}

/// What the shutdown closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShutdownReport {
    /// Connections open when the shutdown began.
    pub open: usize,
    /// Of those, how many finished within the deadline.
    pub finished: usize,
    /// Of those, how many were closed at the deadline.
    pub forced: usize,
}

impl fmt::Display for ShutdownReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "shutdown: stopped accepting; closed {} connections ({} finished, {} forced at the deadline)",
            self.open, self.finished, self.forced
        )
    }
}

/// The state every connection shares.
pub struct Server {
    /// The limits.
    pub config: Config,
    /// The key space.
    pub db: Db,
    /// The channels.
    pub pubsub: PubSub,
    pub(crate) clients: RefCell<BTreeMap<u64, Rc<TcpStream>>>,
    /// Admitted connections, counted from accept (before their task first runs).
    pub(crate) admitted: Cell<usize>,
    next_id: Cell<u64>,
    stats: Cell<Stats>,
    stopping: Cell<bool>,
    stop_waker: RefCell<Option<Waker>>,
    closed_waker: RefCell<Option<Waker>>,
}

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("config", &self.config)
            .field("clients", &self.clients.borrow().len())
            .field("stats", &self.stats.get())
            .field("stopping", &self.stopping.get())
            .finish_non_exhaustive()
    }
}

impl Server {
    /// A server with `config` and an empty store.
    pub fn new(config: Config) -> Rc<Server> {
        Rc::new(Server {
            config,
            db: new_db(),
            pubsub: PubSub::default(),
            clients: RefCell::new(BTreeMap::new()),
            admitted: Cell::new(0),
            next_id: Cell::new(1),
            stats: Cell::new(Stats::default()),
            stopping: Cell::new(false),
            stop_waker: RefCell::new(None),
            closed_waker: RefCell::new(None),
        })
    }

    /// What the server counted so far.
    pub fn stats(&self) -> Stats {
        self.stats.get()
    }

    /// Connected clients.
    pub fn clients(&self) -> usize {
        self.clients.borrow().len()
    }

    /// Whether the shutdown began.
    pub fn is_stopping(&self) -> bool {
        self.stopping.get()
    }

    /// Begins the shutdown (a signal handler calls it); idempotent.
    pub fn stop(&self) {
        self.stopping.set(true);
        take_and_wake(&self.stop_waker);
    }

    fn count(&self, update: impl FnOnce(&mut Stats)) {
        let mut stats = self.stats.get();
        update(&mut stats);
        self.stats.set(stats);
    }

    pub(crate) fn register(&self, stream: &Rc<TcpStream>) -> u64 {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        self.clients.borrow_mut().insert(id, Rc::clone(stream));
        id
    }

    pub(crate) fn unregister(&self, id: u64, ending: Ending) {
        self.clients.borrow_mut().remove(&id);
        self.admitted.set(self.admitted.get() - 1);
        self.count(|stats| match ending {
            Ending::Malformed => stats.malformed += 1,
            Ending::Idle => stats.idle += 1,
            Ending::SlowClient => stats.slow += 1,
            _ => {}
        });
        take_and_wake(&self.closed_waker);
    }

    /// Takes a slot for a new connection, or refuses it when all are taken.
    fn admit(&self) -> bool {
        if self.admitted.get() >= self.config.max_clients || self.stopping.get() {
            self.count(|stats| stats.refused += 1);
            return false;
        }
        self.admitted.set(self.admitted.get() + 1);
        self.count(|stats| stats.accepted += 1);
        true
    }

    /// Resolves once [`stop`](Self::stop) was called.
    async fn stopped(&self) {
        poll_fn(|cx| {
            if self.stopping.get() {
                return Poll::Ready(());
            }
            *self.stop_waker.borrow_mut() = Some(cx.waker().clone());
            Poll::Pending
        })
        .await;
    }

    /// Resolves once no connection is left.
    pub(crate) async fn all_closed(&self) {
        poll_fn(|cx| {
            if self.admitted.get() == 0 {
                return Poll::Ready(());
            }
            *self.closed_waker.borrow_mut() = Some(cx.waker().clone());
            Poll::Pending
        })
        .await;
    }

    // ANCHOR: run
    /// Serves `listener` until [`stop`](Self::stop), then shuts down: stops
    /// accepting, lets every connection finish the replies it computed, closes those
    /// still open at the deadline, and says what it closed.
    pub async fn run(self: Rc<Self>, listener: TcpListener) -> io::Result<ShutdownReport> {
        let server = Rc::clone(&self);
        let accepting = serve(listener, move |stream, _addr| {
            let server = Rc::clone(&server);
            let admitted = server.admit();
            async move {
                if admitted {
                    connection(server, stream).await;
                } else {
                    refuse(stream).await;
                }
            }
        });
        // Whichever ends first: the accept loop (only on an error) or the stop.
        if let Some(error) = first(accepting, self.stopped()).await {
            return Err(error);
        }
        // The accept loop's future is dropped: the listener is closed.
        Ok(self.shut_down().await)
    }
    // ANCHOR_END: run
}

/// Tells a client the server is full, then closes.
async fn refuse(stream: TcpStream) {
    // A client that is gone already misses the message; nothing else to do.
    let _ = stream.write_all(MAX_CLIENTS_REACHED).await;
    let _ = stream.shutdown(Shutdown::Write);
}

/// Polls both futures; the accept loop's error if it ended first, `None` if `stop`
/// came first (the accept loop is then dropped).
async fn first(
    accepting: impl Future<Output = io::Result<()>>,
    stop: impl Future<Output = ()>,
) -> Option<io::Error> {
    let mut accepting = pin!(accepting);
    let mut stop = pin!(stop);
    poll_fn(|cx| {
        if stop.as_mut().poll(cx).is_ready() {
            return Poll::Ready(None);
        }
        match accepting.as_mut().poll(cx) {
            Poll::Ready(Err(error)) => Poll::Ready(Some(error)),
            // `serve` accepts for ever; it ends only with an error.
            Poll::Ready(Ok(())) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    })
    .await
}

fn take_and_wake(slot: &RefCell<Option<Waker>>) {
    let waker = slot.borrow_mut().take();
    if let Some(waker) = waker {
        waker.wake();
    }
}
