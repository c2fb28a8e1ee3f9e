//! The server: its limits, its clients, the accept loop and the shutdown.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::io;
use std::net::Shutdown;
use std::rc::Rc;
use std::time::Duration;

use oneloop::cancel::{self, TaskGroup};
use oneloop::{ACCEPT_RETRY_DELAY, Event, TcpListener, TcpStream, serve, spawn};

use crate::connection::{Ending, connection};
use crate::{Db, Limits, PubSub, new_db};

/// The reply a client gets when the server is full.
pub const MAX_CLIENTS_REACHED: &[u8] = b"-ERR max number of clients reached\r\n";

/// The server's limits.
#[derive(Debug, Clone)]
pub struct Config {
    /// How big a request frame may be.
    pub limits: Limits,
    /// How many clients may be connected at once (Redis's `maxclients`).
    pub max_clients: usize,
    /// How many bytes may wait for one client when a published message comes: a
    /// message past it disconnects the subscriber. A client's own replies are not
    /// refused by it; past half of it, its reader pauses before the next request.
    pub max_output: usize,
    /// The most unparsed bytes one client may have buffered, a request still arriving
    /// included (Redis's `client-query-buffer-limit`, 1 GiB there).
    pub max_query: usize,
    /// How long a client may send nothing, or leave its waiting replies unread,
    /// before it is disconnected. `None`, the default, is for ever, as Redis's
    /// default `timeout 0` is. Subscribers are exempt, as in Redis.
    pub idle_timeout: Option<Duration>,
    /// How long shutdown waits for connections to finish before closing them.
    pub shutdown_deadline: Duration,
    /// How long the accept loop stops accepting after an accept failed for lack of
    /// resources (out of file descriptors): asyncio's one second by default. Tests set
    /// it shorter.
    pub accept_retry_delay: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            limits: Limits::default(),
            max_clients: 10_000,
            max_output: 8 * 1024 * 1024,
            max_query: 64 * 1024 * 1024,
            idle_timeout: None,
            shutdown_deadline: Duration::from_secs(5),
            accept_retry_delay: ACCEPT_RETRY_DELAY,
        }
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
    /// Connections cancelled at the shutdown deadline.
    pub forced: u64,
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
    next_id: Cell<u64>,
    stats: Cell<Stats>,
    /// Set by [`stop`](Server::stop); the accept loop races its wait.
    pub(crate) stopping: Event,
}

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("config", &self.config)
            .field("clients", &self.clients.borrow().len())
            .field("stats", &self.stats.get())
            .field("stopping", &self.stopping.is_set())
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
            next_id: Cell::new(1),
            stats: Cell::new(Stats::default()),
            stopping: Event::new(),
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
        self.stopping.is_set()
    }

    /// Begins the shutdown (a signal handler calls it); idempotent.
    pub fn stop(&self) {
        self.stopping.set();
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
        self.count(|stats| match ending {
            Ending::Malformed => stats.malformed += 1,
            Ending::Idle => stats.idle += 1,
            Ending::SlowClient => stats.slow += 1,
            Ending::Forced => stats.forced += 1,
            _ => {}
        });
    }

    /// Takes a slot for a new connection, or refuses it when all are taken. `open` is
    /// how many connections are open: the children of the server's group.
    fn admit(&self, open: usize) -> bool {
        if open >= self.config.max_clients || self.is_stopping() {
            self.count(|stats| stats.refused += 1);
            return false;
        }
        self.count(|stats| stats.accepted += 1);
        true
    }

    // ANCHOR: accept
    /// The accept loop: each admitted connection becomes a child of `group`; a
    /// refused one gets its error from a task of its own, outside the group.
    ///
    /// Redis refuses a client past `maxclients` at once. So the limit is a count
    /// checked at accept, not a semaphore: a semaphore would make the newcomer queue.
    pub(crate) fn accept(
        self: &Rc<Self>,
        listener: TcpListener,
        group: TaskGroup,
    ) -> impl Future<Output = io::Result<()>> + use<> {
        let server = Rc::clone(self);
        let listener = listener.with_accept_retry_delay(self.config.accept_retry_delay);
        serve(listener, move |stream, _addr| {
            if server.admit(group.len()) {
                let connection = connection(Rc::clone(&server), stream);
                // The group refuses a child only once it is finished or aborting, and
                // the accept loop is dropped before either: this never fails.
                let _child = group.spawn("connection", connection);
            } else {
                // The handle is dropped: the refusal runs detached.
                drop(spawn(refuse(stream)));
            }
            // `serve` runs this as a task of its own: it ends at its first step.
            std::future::ready(())
        })
    }
    // ANCHOR_END: accept

    // ANCHOR: run
    /// Serves `listener` until [`stop`](Self::stop), then shuts down: stops
    /// accepting, lets every connection finish the replies it computed, cancels those
    /// still open at the deadline, and says what it closed.
    ///
    /// The server is a task of stage 9, run here in the caller's task: its children,
    /// the connections, can then be cancelled as asyncio cancels them.
    pub async fn run(self: Rc<Self>, listener: TcpListener) -> io::Result<ShutdownReport> {
        let (server, outcome) = cancel::task_future("server", self.serve_until_stopped(listener));
        server.await;
        match outcome.try_result() {
            Some(Ok(served)) => served,
            Some(Err(error)) => Err(io::Error::other(error.to_string())),
            None => unreachable!("the server's task is done once its future returns"),
        }
    }
    // ANCHOR_END: run
}

/// Tells a client the server is full, then closes.
async fn refuse(stream: TcpStream) {
    // A client that is gone already misses the message; nothing else to do.
    let _ = stream.write_all(MAX_CLIENTS_REACHED).await;
    let _ = stream.shutdown(Shutdown::Write);
}
