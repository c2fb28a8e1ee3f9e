//! Seeing the tree from outside the process: the introspection socket.
//!
//! [`enable_introspection`] is an API call on the loop, never an environment
//! variable: a program opts in. The loop then listens on a Unix socket whose path is
//! derived from the process id, in a directory private to the user
//! (`/tmp/oneloop-UID/PID.sock`, mode 0700). [`query`] is the client: `cargo run -p
//! oneloop-shared --example ps -- PID` prints another process's tree with it.
//!
//! Who may ask. The directory's mode keeps other users out, but not root, and a mode
//! can be loosened by mistake. So every connection is checked on its own: the kernel
//! says which user connected (`SO_PEERCRED`), and a peer that is not the loop's own
//! user gets an error line and is closed before anything is read.
//!
//! The loop never waits for a client. The listener is a reader on the I/O layer, like
//! any socket; each accepted connection is served by a small task that reads one
//! request line of at most [`MAX_REQUEST`] bytes, answers, and closes. At most
//! [`MAX_CLIENTS`] are served at once (more are told "busy"), and a client that has not
//! sent its request and read its answer after [`CLIENT_TIMEOUT`] is dropped. An accept
//! that fails (out of fds, say) stops the listening for [`ACCEPT_RETRY_DELAY`] (unless
//! set with [`Introspection::set_accept_retry_delay`]), so the loop parks instead of
//! retrying it every turn. Both need the loop's timers: a loop
//! without them is refused ([`NEEDS_TIMERS`]).

use std::cell::Cell;
use std::fmt;
use std::fs;
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::rc::{Rc, Weak};
use std::sync::Mutex;
use std::time::Duration;

use oneloop_core::Core;
use oneloop_io::{ACCEPT_RETRY_DELAY, Io};
use oneloop_timers::Timers;

use crate::introspect_serve::serve_one;
use crate::track;

/// The longest request line the loop reads, newline included.
pub const MAX_REQUEST: usize = 256;

/// How many clients are served at once; more are answered "busy" and closed.
pub const MAX_CLIENTS: usize = 4;

/// The error [`enable_introspection`] gives on a loop without a timer layer.
pub const NEEDS_TIMERS: &str = "the introspection socket needs a loop with timers: \
                                its client deadline and its accept back-off are timers";

/// How long a client may take to send its request and read its answer.
pub const CLIENT_TIMEOUT: Duration = Duration::from_secs(5);

/// The longest path a Unix socket can have on Linux: `sun_path` holds 108 bytes, the
/// last of which ends the string.
pub const MAX_SOCKET_PATH: usize = 107;

/// The directory where this user's loops put their sockets: `/tmp/oneloop-UID`.
pub fn socket_dir() -> PathBuf {
    PathBuf::from(format!(
        "/tmp/oneloop-{}",
        rustix::process::getuid().as_raw()
    ))
}

/// Where the loop of process `pid` listens when enabled in the default directory.
pub fn socket_path(pid: u32) -> PathBuf {
    path_in(&socket_dir(), pid)
}

fn path_in(dir: &Path, pid: u32) -> PathBuf {
    dir.join(format!("{pid}.sock"))
}

/// Counts of what the socket did, for tests and for the curious.
#[derive(Debug, Default)]
pub struct IntrospectStats {
    pub(crate) answered: Cell<u64>,
    pub(crate) refused: Cell<u64>,
    pub(crate) malformed: Cell<u64>,
    pub(crate) busy: Cell<u64>,
    pub(crate) accept_failed: Cell<u64>,
}

impl IntrospectStats {
    /// Requests answered with a tree or a table.
    pub fn answered(&self) -> u64 {
        self.answered.get()
    }

    /// Connections refused because the peer was another user.
    pub fn refused(&self) -> u64 {
        self.refused.get()
    }

    /// Requests answered with an error (unknown, too long, incomplete, not UTF-8).
    pub fn malformed(&self) -> u64 {
        self.malformed.get()
    }

    /// Connections turned away because [`MAX_CLIENTS`] were being served.
    pub fn busy(&self) -> u64 {
        self.busy.get()
    }

    /// Accepts that failed (out of fds, for one). After each, the socket stops
    /// accepting for its retry delay ([`ACCEPT_RETRY_DELAY`] unless set).
    pub fn accept_failed(&self) -> u64 {
        self.accept_failed.get()
    }
}

/// The socket names this process's loops listen on. A name found here belongs to a
/// live loop, not to a dead process: a second loop must not take it over.
static LISTENING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// This process's hold on one socket name, given back when dropped.
struct Claim(PathBuf);

impl Claim {
    fn take(path: &Path) -> io::Result<Self> {
        let mut listening = LISTENING
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if listening.iter().any(|held| held == path) {
            return Err(io::Error::new(
                io::ErrorKind::AddrInUse,
                format!(
                    "{} is in use: another loop of this process listens there",
                    path.display()
                ),
            ));
        }
        listening.push(path.to_owned());
        Ok(Self(path.to_owned()))
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        let mut listening = LISTENING
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        listening.retain(|held| *held != self.0);
    }
}

/// The listening half, shared by the reader callback and the connection tasks.
pub(crate) struct Server {
    pub(crate) listener: UnixListener,
    pub(crate) path: PathBuf,
    /// Dropped after the name is removed (fields drop after `drop` runs).
    _claim: Claim,
    pub(crate) owner: u32,
    pub(crate) clients: Cell<usize>,
    pub(crate) stats: Rc<IntrospectStats>,
    /// The loop's I/O and timer layers, weakly: the listener's reader is taken off
    /// while accepting backs off, and a timer puts it back.
    io: Weak<Io>,
    timers: Weak<Timers>,
    /// Set when the socket is dropped: a pending retry then adds no reader.
    stopped: Cell<bool>,
    /// How long a client may take ([`CLIENT_TIMEOUT`] unless set).
    pub(crate) client_timeout: Cell<Duration>,
    /// How long accepting stops after an accept failed ([`ACCEPT_RETRY_DELAY`] unless
    /// set).
    accept_retry_delay: Cell<Duration>,
}

impl Drop for Server {
    fn drop(&mut self) {
        // The socket's name goes with the listener; a stale name would only mislead.
        let _ = fs::remove_file(&self.path);
    }
}

/// An enabled introspection socket. Dropping it stops listening and removes the
/// socket's name; closing the loop does too.
#[must_use = "dropping it stops the introspection socket"]
pub struct Introspection {
    server: Rc<Server>,
    io: Rc<Io>,
}

impl fmt::Debug for Introspection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Introspection")
            .field("path", &self.server.path)
            .finish_non_exhaustive()
    }
}

impl Introspection {
    /// Where the loop listens.
    pub fn path(&self) -> &Path {
        &self.server.path
    }

    /// What the socket did so far.
    pub fn stats(&self) -> Rc<IntrospectStats> {
        Rc::clone(&self.server.stats)
    }

    /// How long a client may keep its slot from now on: [`CLIENT_TIMEOUT`] until set.
    /// A client already connected keeps the time it was given.
    pub fn set_client_timeout(&self, limit: Duration) {
        self.server.client_timeout.set(limit);
    }

    /// How long the socket stops accepting after an accept failed: asyncio's
    /// [`ACCEPT_RETRY_DELAY`], one second, until set.
    pub fn accept_retry_delay(&self) -> Duration {
        self.server.accept_retry_delay.get()
    }

    /// Sets how long the socket stops accepting after an accept failed, from the next
    /// failure on. A back-off already waiting keeps the delay it was given.
    pub fn set_accept_retry_delay(&self, delay: Duration) {
        self.server.accept_retry_delay.set(delay);
    }
}

impl Drop for Introspection {
    fn drop(&mut self) {
        self.server.stopped.set(true);
        self.io.remove_reader(&self.server.listener);
    }
}

/// Puts the listener's reader on the I/O layer.
fn listen(server: &Rc<Server>, io: &Io) -> io::Result<()> {
    let accepting = Rc::clone(server);
    io.add_reader_named(&server.listener, "introspect", move || {
        accept_all(&accepting);
    })
}

// ANCHOR: enable
/// Makes the loop answer on `/tmp/oneloop-UID/PID.sock` (see [`socket_path`]) with
/// its task tree, and turns [`track`] on. The loop needs the I/O layer and the timers.
pub fn enable_introspection(core: &Core) -> io::Result<Introspection> {
    enable_introspection_in(core, &socket_dir())
}

/// Like [`enable_introspection`], in `dir` instead of the default directory. `dir` is
/// created with mode 0700 if missing; an existing one must be a directory (not a
/// link) of this user that no one else may enter (mode 0700 or stricter). A socket
/// name left there by a dead process is replaced; one that another loop of this
/// process listens on is `ErrorKind::AddrInUse`, and stays that loop's.
pub fn enable_introspection_in(core: &Core, dir: &Path) -> io::Result<Introspection> {
    let owner = rustix::process::getuid().as_raw();
    let io = Io::of(core).ok_or_else(|| io::Error::other(oneloop_io::NO_IO_DRIVER))?;
    let timers = core
        .extensions()
        .get::<Timers>()
        .ok_or_else(|| io::Error::other(NEEDS_TIMERS))?;
    private_dir(dir, owner)?;
    let path = path_in(dir, std::process::id());
    if path.as_os_str().len() > MAX_SOCKET_PATH {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} is longer than a Unix socket path may be ({MAX_SOCKET_PATH} bytes)",
                path.display()
            ),
        ));
    }
    // The name is this process's. Unless another of its loops holds it, whatever is
    // there was left by a dead process that had the same id.
    let claim = Claim::take(&fs::canonicalize(dir)?.join(path.file_name().unwrap_or_default()))?;
    match fs::remove_file(&path) {
        Err(error) if error.kind() != io::ErrorKind::NotFound => return Err(error),
        _ => {}
    }
    let listener = UnixListener::bind(&path)?;
    fs::set_permissions(&path, fs::Permissions::from_mode(0o600))?;
    listener.set_nonblocking(true)?;
    let server = Rc::new(Server {
        listener,
        path,
        _claim: claim,
        owner,
        clients: Cell::new(0),
        stats: Rc::new(IntrospectStats::default()),
        io: Rc::downgrade(&io),
        timers: Rc::downgrade(&timers),
        stopped: Cell::new(false),
        client_timeout: Cell::new(CLIENT_TIMEOUT),
        accept_retry_delay: Cell::new(ACCEPT_RETRY_DELAY),
    });
    listen(&server, &io)?;
    track(core);
    Ok(Introspection { server, io })
}
// ANCHOR_END: enable

/// Creates `dir` private to `owner`, or checks that it is.
fn private_dir(dir: &Path, owner: u32) -> io::Result<()> {
    match fs::DirBuilder::new().mode(0o700).create(dir) {
        Err(error) if error.kind() != io::ErrorKind::AlreadyExists => return Err(error),
        _ => {}
    }
    let meta = fs::symlink_metadata(dir)?;
    let refuse = |why: String| {
        Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("{} is not a private directory: {why}", dir.display()),
        ))
    };
    if !meta.file_type().is_dir() {
        return refuse("not a directory".to_owned());
    }
    if meta.uid() != owner {
        return refuse(format!("owned by uid {}, not {owner}", meta.uid()));
    }
    if meta.mode() & 0o077 != 0 {
        return refuse(format!("mode {:o}, others may enter", meta.mode() & 0o777));
    }
    Ok(())
}

/// The peer's user id, as the kernel recorded it when the peer connected.
pub(crate) fn peer_uid(stream: &UnixStream) -> io::Result<u32> {
    let cred = rustix::net::sockopt::socket_peercred(stream)?;
    Ok(cred.uid.as_raw())
}

/// Accepts what is waiting, a bounded number per event so that a flood of
/// connections cannot hold the loop.
fn accept_all(server: &Rc<Server>) {
    for _ in 0..16 {
        let stream = match server.listener.accept() {
            Ok((stream, _)) => stream,
            // Nothing more waits: the next event brings more.
            Err(error) if error.kind() == io::ErrorKind::WouldBlock => return,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            // Another error (out of fds, most likely) would come back at once: the
            // reader is level-triggered, and the connection still waits.
            Err(_) => {
                back_off(server);
                return;
            }
        };
        admit(server, stream);
    }
}

/// After a failed accept: stop listening for the retry delay ([`ACCEPT_RETRY_DELAY`]
/// unless set), then listen again, as stage 6's `serve` does. While it waits the listener has no reader, so the
/// loop parks instead of running the failing accept every turn.
fn back_off(server: &Rc<Server>) {
    let failed = &server.stats.accept_failed;
    failed.set(failed.get() + 1);
    let (Some(io), Some(timers)) = (server.io.upgrade(), server.timers.upgrade()) else {
        return;
    };
    io.remove_reader(&server.listener);
    let delay = server.accept_retry_delay.get();
    let server = Rc::downgrade(server);
    let retry = timers.call_later_named(delay, "introspect accept retry", move || {
        let Some(server) = server.upgrade() else {
            return;
        };
        if server.stopped.get() {
            return;
        }
        if let Some(io) = server.io.upgrade() {
            // A loop that is closing refuses the reader: the socket is gone with it.
            let _ = listen(&server, &io);
        }
    });
    // The retry runs detached; the loop's close drops it with the heap.
    drop(retry);
}

// ANCHOR: admit
/// Checks a new connection's peer, every time, before reading anything from it.
fn admit(server: &Rc<Server>, stream: UnixStream) {
    if stream.set_nonblocking(true).is_err() {
        return;
    }
    match peer_uid(&stream) {
        Ok(uid) if uid == server.owner => {}
        Ok(uid) => {
            server.stats.refused.set(server.stats.refused.get() + 1);
            let line = format!(
                "error: refused: uid {uid} is not the owner of this loop (uid {})\n",
                server.owner
            );
            // Best effort, never waiting: the peer is closed either way.
            let _ = (&stream).write(line.as_bytes());
            discard_unread(&stream);
            return;
        }
        Err(_) => {
            server.stats.refused.set(server.stats.refused.get() + 1);
            return;
        }
    }
    if server.clients.get() >= MAX_CLIENTS {
        server.stats.busy.set(server.stats.busy.get() + 1);
        let _ = (&stream).write(b"error: busy, try again\n");
        discard_unread(&stream);
        return;
    }
    server.clients.set(server.clients.get() + 1);
    let server = Rc::clone(server);
    oneloop_core::hooks::with_current(|core| {
        drop(core.spawn_named("introspect client", serve_one(server, stream)));
    });
}
// ANCHOR_END: admit

/// Reads and drops what the peer already sent, a bounded amount, without waiting: a
/// Unix socket closed with unread bytes resets its peer, which would then lose the
/// answer written just before.
pub(crate) fn discard_unread(stream: &UnixStream) {
    let mut sink = [0; MAX_REQUEST];
    for _ in 0..16 {
        match (&*stream).read(&mut sink) {
            Ok(n) if n > 0 => {}
            _ => return,
        }
    }
}

/// Asks the loop of process `pid` for `request` (`"tree"` or `"ps"`) and returns its
/// answer. A blocking client, for another process: waits at most five seconds.
pub fn query(pid: u32, request: &str) -> io::Result<String> {
    query_path(&socket_path(pid), request)
}

/// Like [`query`], at a socket path. The client checks the listener as the loop checks
/// its clients: a socket of another user (`SO_PEERCRED` again) could answer anything, so
/// it is `ErrorKind::PermissionDenied`, before a byte is sent.
pub fn query_path(path: &Path, request: &str) -> io::Result<String> {
    let mut stream = UnixStream::connect(path)?;
    let (listener, own) = (peer_uid(&stream)?, rustix::process::getuid().as_raw());
    if listener != own {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{} is served by uid {listener}, not by this user (uid {own})",
                path.display()
            ),
        ));
    }
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    stream.set_write_timeout(Some(Duration::from_secs(5)))?;
    let mut line = request.as_bytes().to_vec();
    line.push(b'\n');
    // A loop that refuses closes at once: its error line is still there to read.
    match stream.write_all(&line) {
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => {}
        other => other?,
    }
    let mut answer = Vec::new();
    match stream.read_to_end(&mut answer) {
        Ok(_) => {}
        // A refusing loop may close before our request reached it; the request left
        // unread turns its close into a reset, which comes after the line it wrote.
        Err(error) if error.kind() == io::ErrorKind::ConnectionReset && answer.ends_with(b"\n") => {
        }
        Err(error) => return Err(error),
    }
    String::from_utf8(answer)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "the answer is not UTF-8 text"))
}
