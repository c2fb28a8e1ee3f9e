//! Servers: an accept loop, the echo connection, and a chat room.
//!
//! The accept loop is asyncio's `start_server` in a few lines: accept, spawn a task for
//! the connection, accept again. Each connection's task waits on its own socket; the
//! one thread serves them all because none of them holds it while waiting.
//!
//! Two limits keep a server alive under pressure:
//!
//! - **Out of file descriptors.** When `accept` fails for lack of resources (`EMFILE`,
//!   `ENFILE`, `ENOBUFS`, `ENOMEM`), [`serve`] reports it to the loop's exception
//!   handler, stops accepting for [`ACCEPT_RETRY_DELAY`], and tries again; the
//!   connections it already has go on being served. asyncio's
//!   `BaseSelectorEventLoop._accept_connection` does the same.
//! - **A chat member that never reads.** Each member's queue is bounded in bytes
//!   ([`MEMBER_QUEUE_LIMIT`]); a member whose queue would pass it is disconnected, as a
//!   Redis server drops a client over its output buffer limit.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::io;
use std::net::{Shutdown, SocketAddr};
use std::rc::Rc;
use std::time::Duration;

use oneloop_core::hooks::with_current;
use oneloop_core::{ExceptionReport, Label, spawn, yield_now};
use oneloop_timers::sleep;

use crate::{
    Sender, StreamError, StreamReader, StreamWriter, TcpListener, TcpStream, channel, echo,
};

/// How long [`serve`] stops accepting after an accept failed for lack of resources
/// (asyncio's `ACCEPT_RETRY_DELAY`, one second).
pub const ACCEPT_RETRY_DELAY: Duration = Duration::from_secs(1);

/// The most connections [`serve`] accepts in one turn (asyncio's `_accept_connection`
/// takes at most `backlog`, 100 by default, per readiness event).
pub const ACCEPTS_PER_TURN: usize = 100;

/// The message [`serve`] reports when an accept failed for lack of resources.
pub const ACCEPT_OUT_OF_RESOURCES: &str = "accept failed for lack of resources; \
                                           accepting again after the retry delay";

// Linux's numbers for the errors that mean "out of resources" (std has no name for the
// first three; ENOMEM is also `ErrorKind::OutOfMemory`).
const ENFILE: i32 = 23;
const EMFILE: i32 = 24;
const ENOMEM: i32 = 12;
const ENOBUFS: i32 = 105;

/// Whether an accept error means the process or the system ran out of something that
/// closing connections gives back: worth waiting for, not worth ending the server.
fn out_of_resources(error: &io::Error) -> bool {
    matches!(
        error.raw_os_error(),
        Some(EMFILE | ENFILE | ENOBUFS | ENOMEM)
    )
}

// ANCHOR: serve
/// Accepts connections for ever, running `handler` as a task for each.
///
/// - An accept that fails for lack of resources is reported to the loop's exception
///   handler; the server sleeps the listener's retry delay ([`ACCEPT_RETRY_DELAY`]
///   unless set with [`TcpListener::with_accept_retry_delay`]) and accepts again.
///   While it sleeps nothing waits on the listener, so the loop does not spin on it.
/// - A connection aborted before it was accepted is skipped.
/// - Any other accept error ends the server with that error.
/// - At most [`ACCEPTS_PER_TURN`] connections are accepted in one turn; then the
///   server yields, and a burst is taken over several turns, so the clients already
///   connected are served in between. (An accept that succeeds never waits, so
///   without the cap one step would accept until the kernel's queue is empty.)
///
/// The back-off sleeps on the loop's timers, which every [`IoLoop`](crate::IoLoop) has.
pub async fn serve<H, F>(listener: TcpListener, mut handler: H) -> io::Result<()>
where
    H: FnMut(TcpStream, SocketAddr) -> F,
    F: Future<Output = ()> + 'static,
{
    // The loop and turn of the last accept, and how many were made in that turn.
    let mut batch = (None, 0);
    loop {
        match listener.accept().await {
            Ok((stream, addr)) => {
                // The handle is dropped: the task runs detached, as asyncio's client
                // tasks do.
                drop(spawn(handler(stream, addr)));
                let now = with_current(|core| (core.id(), core.turn()));
                batch = if batch.0 == now {
                    (now, batch.1 + 1)
                } else {
                    (now, 1)
                };
                if batch.1 >= ACCEPTS_PER_TURN {
                    yield_now().await;
                }
            }
            Err(error) if out_of_resources(&error) => {
                report_accept_error(&listener, &error);
                sleep(listener.accept_retry_delay()).await;
            }
            Err(error) if error.kind() == io::ErrorKind::ConnectionAborted => {}
            Err(error) => return Err(error),
        }
    }
}
// ANCHOR_END: serve

/// Hands an accept error to the running loop's exception handler.
fn report_accept_error(listener: &TcpListener, error: &io::Error) {
    let label = match listener.local_addr() {
        Ok(addr) => Label::from(format!("listener {addr}")),
        Err(_) => Label::from("listener"),
    };
    let report = ExceptionReport {
        message: ACCEPT_OUT_OF_RESOURCES.to_owned(),
        label,
        panic: error.to_string(),
    };
    // `serve` runs as a task, so a loop is running; outside one there is no handler.
    let _ = with_current(|core| core.report(&report));
}

/// Serves one echo connection: splits the stream and runs [`echo`] on it.
pub async fn echo_connection(stream: TcpStream) -> Result<u64, StreamError> {
    let (mut reader, mut writer) = stream.into_streams();
    echo(&mut reader, &mut writer).await
}

/// The line a new chat member receives first: once it has it, it is in the room.
pub const WELCOME: &str = "welcome\n";

/// The most bytes of lines that may wait for one chat member: 1 MiB, sixteen lines of
/// the longest a reader takes ([`DEFAULT_LIMIT`](crate::DEFAULT_LIMIT)).
pub const MEMBER_QUEUE_LIMIT: usize = 1024 * 1024;

/// The message a [`ChatRoom`] reports when it disconnects a member that fell behind.
pub const SLOW_MEMBER_DISCONNECTED: &str =
    "chat member disconnected: the next line would pass its queue limit";

/// One member of a room: where its lines go, and how many bytes wait there.
#[derive(Debug)]
struct Member {
    id: u64,
    sender: Sender<Rc<str>>,
    /// Bytes queued for the member's writer task and not yet taken by it.
    queued: Rc<Cell<usize>>,
    /// The member's socket, to shut down if it falls behind.
    stream: Rc<TcpStream>,
}

/// The members of a chat room, each with the queue of lines its writer task sends.
///
/// Each member's queue is bounded in bytes. A line that would take a member's queue
/// past the limit is not queued: the member is disconnected instead (its socket is shut
/// down both ways, and the loop's exception handler is told), and the room goes on.
#[derive(Debug)]
pub struct ChatRoom {
    members: RefCell<Vec<Member>>,
    next_id: Cell<u64>,
    limit: usize,
    peak_queued: Cell<usize>,
    disconnected: Cell<u64>,
}

impl ChatRoom {
    /// An empty room whose members may each have [`MEMBER_QUEUE_LIMIT`] bytes queued.
    pub fn new() -> Rc<Self> {
        Self::with_limit(MEMBER_QUEUE_LIMIT)
    }

    /// An empty room whose members may each have `limit` bytes queued. A limit below
    /// the longest line a member may send disconnects whoever is sent such a line.
    pub fn with_limit(limit: usize) -> Rc<Self> {
        Rc::new(Self {
            members: RefCell::new(Vec::new()),
            next_id: Cell::new(0),
            limit,
            peak_queued: Cell::new(0),
            disconnected: Cell::new(0),
        })
    }

    /// How many members are in the room.
    pub fn len(&self) -> usize {
        self.members.borrow().len()
    }

    /// Whether the room is empty.
    pub fn is_empty(&self) -> bool {
        self.members.borrow().is_empty()
    }

    /// The most bytes one member may have queued.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The most bytes any member ever had queued (never above [`limit`](Self::limit)).
    pub fn peak_queued(&self) -> usize {
        self.peak_queued.get()
    }

    /// How many members were disconnected for falling behind.
    pub fn disconnected(&self) -> u64 {
        self.disconnected.get()
    }

    fn join(&self, sender: Sender<Rc<str>>, queued: Rc<Cell<usize>>, stream: Rc<TcpStream>) -> u64 {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        self.members.borrow_mut().push(Member {
            id,
            sender,
            queued,
            stream,
        });
        id
    }

    /// Takes member `id` out of the room, if it is still there.
    fn remove(&self, id: u64) -> Option<Member> {
        let mut members = self.members.borrow_mut();
        let index = members.iter().position(|member| member.id == id)?;
        Some(members.remove(index))
    }

    fn leave(&self, id: u64) {
        // The member's sender drops here, unborrowed; its writer task then ends.
        drop(self.remove(id));
    }

    // ANCHOR: broadcast
    /// Queues `line` for every member but `from`, in the order lines arrive. A member
    /// whose queue the line would take past the limit is disconnected instead.
    fn broadcast(&self, from: u64, line: &Rc<str>) {
        // Senders are cloned out first: a send wakes a task, with no borrow held.
        let mut others = Vec::new();
        let mut behind = Vec::new();
        for member in self.members.borrow().iter().filter(|m| m.id != from) {
            let queued = member.queued.get() + line.len();
            if queued > self.limit {
                behind.push(member.id);
            } else {
                member.queued.set(queued);
                self.peak_queued.set(self.peak_queued.get().max(queued));
                others.push(member.sender.clone());
            }
        }
        for sender in others {
            // A member whose receiver is gone is leaving; it misses the line.
            let _ = sender.send(Rc::clone(line));
        }
        for id in behind {
            self.disconnect(id, line.len());
        }
    }
    // ANCHOR_END: broadcast

    /// Disconnects a member that fell behind: out of the room, its socket shut down
    /// both ways (its reader sees end of file, its writer an error), and a report.
    fn disconnect(&self, id: u64, line: usize) {
        let Some(member) = self.remove(id) else {
            return;
        };
        self.disconnected.set(self.disconnected.get() + 1);
        // Already closed or reset by the peer: nothing left to shut down.
        let _ = member.stream.shutdown(Shutdown::Both);
        let report = ExceptionReport {
            message: SLOW_MEMBER_DISCONNECTED.to_owned(),
            label: Label::from(format!("chat member {id}")),
            panic: format!(
                "{} bytes queued, a line of {line} bytes, limit {} bytes",
                member.queued.get(),
                self.limit
            ),
        };
        drop(member);
        // Broadcasts run in a member's task, so a loop is running.
        let _ = with_current(|core| core.report(&report));
    }
}

// ANCHOR: chat_member
/// Serves one chat member: joins the room, sends [`WELCOME`], then forwards each line
/// it reads to every other member until end of file or an error, and leaves.
///
/// Writing happens in a task of its own, fed by a [`channel`]: a member that reads
/// slowly pauses its own writer, never the readers of the others. What waits in that
/// channel is bounded by the room's limit; past it, the room disconnects the member.
pub async fn chat_member(stream: TcpStream, room: Rc<ChatRoom>) -> Result<u64, StreamError> {
    let stream = Rc::new(stream);
    let mut reader = StreamReader::new(Rc::clone(&stream));
    let mut writer = StreamWriter::new(Rc::clone(&stream));
    let (sender, mut queue) = channel::<Rc<str>>();
    let queued = Rc::new(Cell::new(0));
    // Welcome after joining: a member that has read it will receive every later line.
    let id = room.join(sender.clone(), Rc::clone(&queued), stream);
    queued.set(WELCOME.len());
    if sender.send(Rc::from(WELCOME)).is_err() {
        unreachable!("the receiver is alive: it is `queue`, right here");
    }
    drop(sender);
    let writing = spawn(async move {
        while let Some(line) = queue.recv().await {
            // Out of the queue, into the writer, whose own water marks bound it.
            queued.set(queued.get() - line.len());
            writer.write(line.as_bytes())?;
            writer.drain().await?;
        }
        writer.shutdown().await
    });
    let mut lines = 0;
    let outcome = loop {
        match reader.read_line().await {
            Ok(Some(line)) => {
                room.broadcast(id, &Rc::from(line));
                lines += 1;
            }
            Ok(None) => break Ok(lines),
            Err(error) => break Err(error),
        }
    };
    // Leaving drops the room's sender: the writer flushes what is queued, then ends.
    room.leave(id);
    let written = writing.await;
    let outcome = outcome?;
    match written {
        Ok(Ok(())) => Ok(outcome),
        Ok(Err(error)) => Err(StreamError::Io(error)),
        Err(join) => Err(StreamError::Io(io::Error::other(join.to_string()))),
    }
}
// ANCHOR_END: chat_member

/// Runs a chat room on `listener` for ever, each member's queue bounded by
/// [`MEMBER_QUEUE_LIMIT`].
pub async fn serve_chat(listener: TcpListener) -> io::Result<()> {
    serve_room(listener, ChatRoom::new()).await
}

/// Runs `room` on `listener` for ever (pick the room's limit with
/// [`ChatRoom::with_limit`]).
pub async fn serve_room(listener: TcpListener, room: Rc<ChatRoom>) -> io::Result<()> {
    serve(listener, move |stream, _addr| {
        let room = Rc::clone(&room);
        async move {
            // A member's error ends that member only; the room goes on.
            let _ = chat_member(stream, room).await;
        }
    })
    .await
}
