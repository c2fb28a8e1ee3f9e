//! One client of the introspection socket: read a request line, answer, close.

use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::rc::Rc;

use oneloop_io::{readable, writable};
use oneloop_timers::timeout;

use crate::introspect::{MAX_REQUEST, Server, discard_unread};
use crate::{table_text, tree_text};

/// Gives a client slot back however the task ends (answered, timed out, or dropped
/// when the loop closes).
struct Slot(Rc<Server>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.clients.set(self.0.clients.get().saturating_sub(1));
    }
}

/// Serves one connection. The peer was checked already (see `admit`). A client that
/// has not sent its request and read its answer within the server's client timeout
/// ([`CLIENT_TIMEOUT`](crate::CLIENT_TIMEOUT) unless set) is dropped, so
/// a stuck client cannot keep its slot (the socket is only enabled on a loop with
/// timers).
pub(crate) async fn serve_one(server: Rc<Server>, stream: UnixStream) {
    let limit = server.client_timeout.get();
    let slot = Slot(server);
    let exchange = exchange(&slot.0, &stream);
    // Timed out: the exchange is dropped, and the connection closed below.
    let _ = timeout(limit, exchange).await;
    discard_unread(&stream);
}

/// Reads one request, answers it, and counts what happened.
async fn exchange(server: &Server, stream: &UnixStream) {
    let stats = &server.stats;
    let answer = match read_request(stream).await.and_then(|line| answer(&line)) {
        Ok(text) => {
            stats.answered.set(stats.answered.get() + 1);
            text
        }
        Err(error) => {
            stats.malformed.set(stats.malformed.get() + 1);
            error + "\n"
        }
    };
    // A client that went away is no concern of the loop's.
    let _ = write_all(stream, answer.as_bytes()).await;
}

// ANCHOR: answer
/// What a request line asks for: `tree` (pstree) or `ps` (a table).
fn answer(line: &str) -> Result<String, String> {
    match line.trim() {
        "tree" => Ok(tree_text()),
        "ps" => Ok(table_text()),
        other => Err(format!(
            "error: unknown request {other:?}; ask for \"tree\" or \"ps\""
        )),
    }
}
// ANCHOR_END: answer

/// Reads up to one line of at most `MAX_REQUEST` bytes, waiting on the I/O layer
/// (never blocking the loop).
async fn read_request(stream: &UnixStream) -> Result<String, String> {
    let mut request = Vec::new();
    let mut chunk = [0; MAX_REQUEST];
    loop {
        // Never more than the line may still hold, however the request is split.
        let room = MAX_REQUEST - request.len();
        match (&*stream).read(&mut chunk[..room]) {
            Ok(0) => return Err("error: the request ended without a newline".to_owned()),
            Ok(n) => {
                request.extend_from_slice(&chunk[..n]);
                if let Some(end) = request.iter().position(|&b| b == b'\n') {
                    request.truncate(end);
                    return String::from_utf8(request)
                        .map_err(|_| "error: the request is not UTF-8".to_owned());
                }
                if request.len() >= MAX_REQUEST {
                    return Err(format!(
                        "error: a request is one line of at most {MAX_REQUEST} bytes"
                    ));
                }
            }
            Err(error) if error.kind() == io::ErrorKind::WouldBlock => {
                readable(stream).await.map_err(|e| format!("error: {e}"))?;
            }
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(format!("error: {error}")),
        }
    }
}

async fn write_all(stream: &UnixStream, mut bytes: &[u8]) -> io::Result<()> {
    while !bytes.is_empty() {
        match (&*stream).write(bytes) {
            Ok(n) => bytes = &bytes[n..],
            Err(error) if error.kind() == io::ErrorKind::WouldBlock => writable(stream).await?,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(())
}
