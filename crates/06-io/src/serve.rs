//! Servers: an accept loop, the echo connection, and a chat room.
//!
//! The accept loop is asyncio's `start_server` in a few lines: accept, spawn a task for
//! the connection, accept again. Each connection's task waits on its own socket; the
//! one thread serves them all because none of them holds it while waiting.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::rc::Rc;

use oneloop_core::spawn;

use crate::{Sender, StreamError, TcpListener, TcpStream, channel, echo};

// ANCHOR: serve
/// Accepts connections for ever, running `handler` as a task for each.
pub async fn serve<H, F>(listener: TcpListener, mut handler: H) -> io::Result<()>
where
    H: FnMut(TcpStream, SocketAddr) -> F,
    F: Future<Output = ()> + 'static,
{
    loop {
        let (stream, addr) = listener.accept().await?;
        // The handle is dropped: the task runs detached, as asyncio's client tasks do.
        drop(spawn(handler(stream, addr)));
    }
}
// ANCHOR_END: serve

/// Serves one echo connection: splits the stream and runs [`echo`] on it.
pub async fn echo_connection(stream: TcpStream) -> Result<u64, StreamError> {
    let (mut reader, mut writer) = stream.into_streams();
    echo(&mut reader, &mut writer).await
}

/// The line a new chat member receives first: once it has it, it is in the room.
pub const WELCOME: &str = "welcome\n";

/// The members of a chat room, each with the queue of lines its writer task sends.
#[derive(Debug, Default)]
pub struct ChatRoom {
    members: RefCell<Vec<(u64, Sender<Rc<str>>)>>,
    next_id: Cell<u64>,
}

impl ChatRoom {
    /// An empty room.
    pub fn new() -> Rc<Self> {
        Rc::new(Self::default())
    }

    /// How many members are in the room.
    pub fn len(&self) -> usize {
        self.members.borrow().len()
    }

    /// Whether the room is empty.
    pub fn is_empty(&self) -> bool {
        self.members.borrow().is_empty()
    }

    fn join(&self, sender: Sender<Rc<str>>) -> u64 {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        self.members.borrow_mut().push((id, sender));
        id
    }

    fn leave(&self, id: u64) {
        let gone: Vec<_> = {
            let mut members = self.members.borrow_mut();
            let (gone, stay) = members.drain(..).partition(|(member, _)| *member == id);
            *members = stay;
            gone
        };
        // The member's sender drops here, unborrowed; its writer task then ends.
        drop(gone);
    }

    // ANCHOR: broadcast
    /// Queues `line` for every member but `from`, in the order lines arrive.
    fn broadcast(&self, from: u64, line: &Rc<str>) {
        // Senders are cloned out first: a send wakes a task, with no borrow held.
        let others: Vec<Sender<Rc<str>>> = self
            .members
            .borrow()
            .iter()
            .filter(|(member, _)| *member != from)
            .map(|(_, sender)| sender.clone())
            .collect();
        for sender in others {
            // A member whose receiver is gone is leaving; it misses the line.
            let _ = sender.send(Rc::clone(line));
        }
    }
    // ANCHOR_END: broadcast
}

// ANCHOR: chat_member
/// Serves one chat member: joins the room, sends [`WELCOME`], then forwards each line
/// it reads to every other member until end of file or an error, and leaves.
///
/// Writing happens in a task of its own, fed by a [`channel`]: a member that reads
/// slowly pauses its own writer, never the readers of the others.
pub async fn chat_member(stream: TcpStream, room: Rc<ChatRoom>) -> Result<u64, StreamError> {
    let (mut reader, mut writer) = stream.into_streams();
    let (sender, mut queue) = channel::<Rc<str>>();
    // Welcome after joining: a member that has read it will receive every later line.
    let id = room.join(sender.clone());
    if sender.send(Rc::from(WELCOME)).is_err() {
        unreachable!("the receiver is alive: it is `queue`, right here");
    }
    drop(sender);
    let writing = spawn(async move {
        while let Some(line) = queue.recv().await {
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

/// Runs a chat room on `listener` for ever.
pub async fn serve_chat(listener: TcpListener) -> io::Result<()> {
    let room = ChatRoom::new();
    serve(listener, move |stream, _addr| {
        let room = Rc::clone(&room);
        async move {
            // A member's error ends that member only; the room goes on.
            let _ = chat_member(stream, room).await;
        }
    })
    .await
}
