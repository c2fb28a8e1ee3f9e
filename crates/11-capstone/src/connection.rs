//! One connection: a reader task that parses and runs requests, a writer task that
//! sends the replies. The reader is a child of the server's task group; the writer is
//! a plain task of its own.
//!
//! The reader keeps the bytes it has read and not yet parsed. After each read it takes
//! every whole request from the front of that buffer and runs it, so a pipeline of any
//! depth is answered in order, one read at a time. A request is an array (for
//! [`parse`]) or an inline command, a line of words. What is left is the start of the
//! next request; it waits for more bytes.

use std::future::{Future, pending};
use std::net::Shutdown;
use std::rc::Rc;

use oneloop::cancel::{self, Selected, cancellable, select};
use oneloop::{ExceptionReport, JoinHandle, Label, TcpStream, spawn, timeout, with_current};

use crate::commands::{After, Client, execute};
use crate::limits::{Scan, inline, scan};
use crate::outbox::Closed;
use crate::{Frame, Limits, Outbox, ParseError, Server, parse};

/// How much one read takes from the socket, at most.
const READ_CHUNK: usize = 16 * 1024;
/// How much the first read takes. A read that fills the chunk doubles it, up to
/// [`READ_CHUNK`]: a client that sends a command now and then keeps a small buffer
/// (ten thousand idle clients cost ten thousand of these), one that pipelines soon
/// reads 16 KiB at a time.
const FIRST_READ: usize = 512;

/// Why a connection ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The client closed it, or sent `QUIT`.
    Client,
    /// A frame that can never be parsed: the client was told, then disconnected.
    Malformed,
    /// Idle past the timeout.
    Idle,
    /// Its output passed the bound.
    SlowClient,
    /// The server is shutting down: the connection finished its replies in time.
    Shutdown,
    /// Cancelled at the shutdown deadline: its socket was closed both ways.
    Forced,
    /// A socket error.
    Error,
}

// ANCHOR: connection
/// Serves one client until it leaves, misbehaves or the server shuts down.
///
/// The whole of it, reading and flushing, is one cancellation point: a cancel (the
/// shutdown's, at its deadline) drops it wherever it waits, then the socket is closed
/// both ways and the task ends cancelled.
pub async fn connection(server: Rc<Server>, stream: TcpStream) -> Result<Ending, cancel::Error> {
    let stream = Rc::new(stream);
    let id = server.register(&stream);
    let outbox = Outbox::new(Rc::clone(&stream), server.config.max_output);
    let mut writer = spawn(Rc::clone(&outbox).write_loop());
    let mut client = Client::new(id, outbox);
    let served = cancellable(async {
        let ending = serve_requests(&server, &mut client, &stream).await;
        let ending = leave(&server, &mut client, ending);
        // Replies already computed are written before the socket closes.
        client.outbox.close();
        if ending == Ending::Shutdown {
            // What the client still sends is read and dropped meanwhile: a socket
            // closed with bytes unread sends a reset, and a reset discards the replies
            // still on their way.
            join_writer_dropping_input(&mut writer, &stream).await;
        } else {
            join_writer(&mut writer).await;
        }
        ending
    })
    .await;
    match served {
        Ok(ending) => {
            server.unregister(id, ending);
            Ok(ending)
        }
        Err(cancelled) => {
            // What waits is not sent: the writer's next write fails, and it ends.
            let _ = stream.shutdown(Shutdown::Both);
            leave(&server, &mut client, Ending::Forced);
            client.outbox.close();
            join_writer(&mut writer).await;
            server.unregister(id, Ending::Forced);
            Err(cancelled)
        }
    }
}
// ANCHOR_END: connection

/// Leaves every channel; an output that passed its bound makes the ending
/// [`Ending::SlowClient`].
fn leave(server: &Server, client: &mut Client, ending: Ending) -> Ending {
    for channel in std::mem::take(&mut client.channels) {
        server.pubsub.unsubscribe(&channel, client.id);
    }
    match client.outbox.closed() {
        Some(Closed::Overflow) if ending != Ending::Forced => {
            report(
                client.id,
                "client disconnected: its output passed the buffer limit",
            );
            Ending::SlowClient
        }
        _ => ending,
    }
}

/// Waits for the writer task, as [`join_writer`] does, reading and dropping what the
/// client sends meanwhile, up to its end of file.
async fn join_writer_dropping_input(writer: &mut JoinHandle<()>, stream: &TcpStream) {
    let mut sink = [0u8; 4096];
    let mut open = true;
    loop {
        match or_read(join_writer(writer), stream, open.then_some(&mut sink[..])).await {
            Ok(()) => return,
            Err(Ok(n)) if n > 0 => {}
            // End of file, or the peer is gone: nothing more to drop.
            Err(_) => open = false,
        }
    }
}

/// Waits for the writer task, which ends on its own once its outbox is closed.
async fn join_writer(writer: &mut JoinHandle<()>) {
    // Its panic, if any, was reported by the loop.
    let _ = writer.await;
}

/// The reader's loop: parse and run what is buffered, then read more.
async fn serve_requests(server: &Server, client: &mut Client, stream: &TcpStream) -> Ending {
    let config = &server.config;
    let mut buffer: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; FIRST_READ];
    // How far the request at the front of `buffer` was scanned.
    let mut progress = Scan::default();
    loop {
        // ANCHOR: pipeline
        let mut start = 0;
        // The replies of this read go out together when the batch ends.
        client.outbox.begin_batch();
        loop {
            // A client that does not read its replies is not given more of them.
            let mark = config.max_output / 2;
            if client.outbox.pending() >= mark {
                client.outbox.end_batch();
                // What ran leaves the buffer once it is at least half of it. A client
                // that keeps a window of requests in flight pauses the reader again and
                // again, and never lets a batch end: what ran must not pile up in front
                // of what waits. Moving only as many bytes as are dropped keeps the
                // copying linear in what the client sends.
                if start >= buffer.len() - start {
                    buffer.drain(..start);
                    start = 0;
                }
                // The bytes read while paused go after the rest, unparsed.
                let waiting = Waiting {
                    buffer: &mut buffer,
                    parsed: start,
                    chunk: &mut chunk,
                };
                if let Err(ending) = paused(server, client, stream, waiting, mark).await {
                    // What waits is not sent: the writer's next write fails, and it ends.
                    let _ = stream.shutdown(Shutdown::Both);
                    return ending;
                }
                client.outbox.begin_batch();
            }
            if client.outbox.closed().is_some() {
                return Ending::SlowClient;
            }
            match request(&buffer[start..], &mut progress, &config.limits) {
                Ok(Some((request, used))) => {
                    start += used;
                    // An empty inline command (a blank line) asks for nothing: Redis
                    // skips it, and `redis-cli --pipe` sends one before its last request.
                    let Some(frame) = request else { continue };
                    match execute(server, client, frame) {
                        After::Continue => {}
                        After::Close => return Ending::Client,
                        After::Malformed => return Ending::Malformed,
                    }
                }
                Ok(None) => break,
                Err(error) => {
                    client.outbox.push(&Frame::error(format!("ERR {error}")));
                    report(client.id, &format!("malformed request: {error}"));
                    return Ending::Malformed;
                }
            }
        }
        client.outbox.end_batch();
        buffer.drain(..start);
        // ANCHOR_END: pipeline
        if buffer.len() > config.max_query {
            client
                .outbox
                .push(&Frame::error("ERR query buffer over limit"));
            return Ending::Malformed;
        }
        if server.is_stopping() {
            return Ending::Shutdown;
        }
        // A read after a short one in the same turn waits for readiness first: one
        // `recv` per request, not two (see stage 6's `TcpStream::read`).
        // Subscribers wait for messages, not requests: no idle timeout for them.
        let read = match config.idle_timeout {
            Some(limit) if client.channels.is_empty() => {
                match timeout(limit, stream.read(&mut chunk)).await {
                    Ok(read) => read,
                    Err(_) => {
                        report(client.id, "client disconnected: idle past the timeout");
                        return Ending::Idle;
                    }
                }
            }
            _ => stream.read(&mut chunk).await,
        };
        match read {
            // End of file: the client left, or the server shut our read half down. A
            // read half shut down still receives what the client sends: bytes read
            // once the shutdown began are not requests to run, whenever they were sent.
            Ok(_) if server.is_stopping() => return Ending::Shutdown,
            Ok(0) => return Ending::Client,
            Ok(n) => {
                buffer.extend_from_slice(&chunk[..n]);
                grow_after(&mut chunk, n);
            }
            Err(_) => {
                let _ = stream.shutdown(Shutdown::Both);
                return Ending::Error;
            }
        }
    }
}

/// Waits until fewer than `mark` bytes of output are pending, reading the client's
/// next requests into its buffer meanwhile. They are not run until the output drains.
///
/// Reading on matters. A client may send its whole pipeline before it reads a reply
/// (a client library's `sendall`, a pipeline flushed at once). If the server stopped
/// reading, that client would block in its send, never reach its reads, and the two
/// would wait on each other. So only the parsing pauses: the requests wait in the
/// buffer. Once `max_query` bytes of them wait, the reader stops reading, and TCP
/// holds the client back: a client that reads gets its replies and is let send again;
/// one that sent more than that before reading anything waits on the server as the
/// server waits on it (Redis, which never pauses, answers it).
///
/// `Err(Ending::Idle)` ends the connection when, for the whole idle timeout, nothing
/// was read and the output stayed at `mark` or above (a client that leaves its
/// replies unread is idle, as Redis's `timeout` counts it; the writer's chunk counts
/// as pending until all of it is written, so a client that reads too slowly to take
/// it within the timeout counts as idle too), `Err(Ending::Error)` when a read fails.
/// Subscribers have no idle timeout here either. After end of file nothing more is read, and after the shutdown began what
/// is read is dropped: the requests waiting still run once the output drains.
async fn paused(
    server: &Server,
    client: &Client,
    stream: &TcpStream,
    waiting: Waiting<'_>,
    mark: usize,
) -> Result<(), Ending> {
    let Waiting {
        buffer,
        parsed,
        chunk,
    } = waiting;
    let config = &server.config;
    let mut sending = true;
    loop {
        // Past the query limit the reader stops reading, and TCP holds the client back.
        let room = buffer.len() - parsed < config.max_query;
        let next = or_read(
            client.outbox.below(mark),
            stream,
            (sending && room).then_some(&mut chunk[..]),
        );
        let event = match config.idle_timeout {
            Some(limit) if client.channels.is_empty() => match timeout(limit, next).await {
                Ok(event) => event,
                Err(_) => {
                    report(
                        client.id,
                        "client disconnected: its replies went unread past the idle timeout",
                    );
                    return Err(Ending::Idle);
                }
            },
            _ => next.await,
        };
        match event {
            Ok(()) => return Ok(()),
            // The client closed its sending half, or the shutdown closed our reading
            // half: the requests already read still run, their replies still go.
            Err(Ok(0)) => sending = false,
            // Once the shutdown began, no more requests are taken, as an unpaused
            // reader takes none after its batch (what was read before still runs).
            // A read half shut down still receives what the client sends: it is read
            // and dropped, since a socket closed with bytes unread sends a reset.
            Err(Ok(_)) if server.is_stopping() => {}
            Err(Ok(n)) => {
                buffer.extend_from_slice(&chunk[..n]);
                grow_after(chunk, n);
            }
            Err(Err(_)) => return Err(Ending::Error),
        }
    }
}

/// Doubles the read chunk, up to [`READ_CHUNK`], after a read of `n` bytes filled it.
fn grow_after(chunk: &mut Vec<u8>, n: usize) {
    if n == chunk.len() && chunk.len() < READ_CHUNK {
        chunk.resize((2 * chunk.len()).min(READ_CHUNK), 0);
    }
}

/// The reader's buffer as a pause finds it: `buffer[..parsed]` was run already (the
/// batch drains it when it ends, or the pause when it is half the buffer), the rest
/// waits.
struct Waiting<'a> {
    buffer: &'a mut Vec<u8>,
    parsed: usize,
    chunk: &'a mut Vec<u8>,
}

/// Waits for `first` or, if `chunk` is given, a read into it, whichever comes first:
/// `Ok` with `first`'s output, or `Err` with the read's. A biased [`select`]: `first`
/// is polled first, so a client that reads is served before it is read from. A read
/// that lost is dropped unfinished, which loses no byte (it read nothing).
async fn or_read<F: Future>(
    first: F,
    stream: &TcpStream,
    chunk: Option<&mut [u8]>,
) -> Result<F::Output, std::io::Result<usize>> {
    let read = async {
        match chunk {
            Some(chunk) => stream.read(chunk).await,
            None => pending().await,
        }
    };
    match select(first, read).await {
        Selected::First(output, _) => Ok(output),
        Selected::Second(read, _) => Err(read),
    }
}

/// The request at the front of `buf`, as [`parse`] answers, or `None` in place of
/// the frame for a line with no words. A request starting with `*` is an array;
/// anything else is an inline command, a line of words (what telnet sends), as Redis
/// decides it.
///
/// Most requests arrive whole, so a new one is parsed at once. One that has not all
/// arrived (or is not a plain array of bulk strings) goes to [`scan`] instead, and is
/// parsed only once the scan says it has all arrived: `progress` keeps how far the
/// scan went, so a long request costs one scan and one parse in all, however many
/// reads bring it (and one parse of what its first read brought).
fn request(
    buf: &[u8],
    progress: &mut Scan,
    limits: &Limits,
) -> Result<Option<(Option<Frame>, usize)>, ParseError> {
    match buf.first() {
        None => Ok(None),
        Some(b'*') => {
            if *progress == Scan::default()
                && let Ok(Some((frame, used))) = parse(buf, limits)
                && is_plain_request(&frame)
            {
                return Ok(Some((Some(frame), used)));
            }
            if !scan(buf, progress, limits)? {
                return Ok(None);
            }
            *progress = Scan::default();
            Ok(parse(buf, limits)?.map(|(frame, used)| (Some(frame), used)))
        }
        Some(_) => Ok(
            inline(buf, &mut progress.searched, limits)?.map(|(words, used)| {
                *progress = Scan::default();
                let frame = (!words.is_empty()).then(|| Frame::command(words));
                (frame, used)
            }),
        ),
    }
}

/// Whether `frame` is an array of bulk strings, none of them null: a request that the
/// scan would pass as it is.
fn is_plain_request(frame: &Frame) -> bool {
    matches!(frame, Frame::Array(Some(items))
        if items.iter().all(|item| matches!(item, Frame::Bulk(Some(_)))))
}

/// Tells the loop's exception handler (stderr by default) about client `id`.
fn report(id: u64, message: &str) {
    let report = ExceptionReport {
        message: message.to_owned(),
        label: Label::from(format!("client {id}")),
        panic: String::new(),
    };
    // Connections run as tasks, so a loop is running.
    let _ = with_current(|core| core.report(&report));
}
