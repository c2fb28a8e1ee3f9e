//! The server binary as a child process, raw RESP over std sockets, and a connected
//! pair of sockets for tests that drive the server's parts on a loop.
#![allow(dead_code)] // Each test file uses its own part of this module.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, ChildStderr, ChildStdout, Command, ExitStatus, Stdio};
use std::rc::Rc;
use std::thread;
use std::time::Duration;

/// A running `capstone-redis`, killed if the test ends before it stopped it.
pub struct ServerProcess {
    child: Child,
    stdout: BufReader<ChildStdout>,
    stderr: BufReader<ChildStderr>,
    /// The lines of stderr read so far by [`wait_for_stderr`](Self::wait_for_stderr).
    stderr_seen: String,
    /// Where it listens.
    pub addr: SocketAddr,
}

/// What a stopped server printed.
pub struct Stopped {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

impl ServerProcess {
    /// Starts the binary on `127.0.0.1:0` with `args`, and waits for its address.
    pub fn start(args: &[&str]) -> ServerProcess {
        Self::start_with(Command::new(env!("CARGO_BIN_EXE_capstone-redis")), args)
    }

    /// Starts `command` (the binary, or a wrapper that execs it) with `args`.
    pub fn start_with(mut command: Command, args: &[&str]) -> ServerProcess {
        let mut child = command
            .args(["--port", "0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the server binary starts");
        let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
        let stderr = BufReader::new(child.stderr.take().expect("piped"));
        let mut line = String::new();
        stdout
            .read_line(&mut line)
            .expect("the server prints its address");
        let addr = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("first line was {line:?}"))
            .parse()
            .expect("an address");
        ServerProcess {
            child,
            stdout,
            stderr,
            stderr_seen: String::new(),
            addr,
        }
    }

    /// A raw connection.
    pub fn connect(&self) -> TcpStream {
        let stream = TcpStream::connect(self.addr).expect("the server accepts");
        // A hang detector only: a reply that never comes fails the read.
        stream
            .set_read_timeout(Some(Duration::from_secs(8)))
            .expect("set a timeout");
        stream
    }

    /// Reads the server's stderr until a line holds `needle` (the watchdog is the hang
    /// detector); the lines read stay part of what [`wait`](Self::wait) returns.
    pub fn wait_for_stderr(&mut self, needle: &str) {
        loop {
            let start = self.stderr_seen.len();
            let read = self
                .stderr
                .read_line(&mut self.stderr_seen)
                .expect("stderr");
            assert!(
                read > 0,
                "stderr ended before {needle:?}:\n{}",
                self.stderr_seen
            );
            if self.stderr_seen[start..].contains(needle) {
                return;
            }
        }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends `kill -SIGNAL` to the server.
    pub fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .args([signal, &self.child.id().to_string()])
            .status()
            .expect("kill(1) runs");
        assert!(status.success());
    }

    /// Connects until a connect is refused: the listener is closed. After a stop
    /// signal the listener closes in a later turn than the signal's, and until then a
    /// connect may still land in its backlog (and is reset with it). The watchdog is the
    /// hang detector.
    pub fn wait_until_connects_are_refused(&self) {
        while TcpStream::connect(self.addr).is_ok() {
            thread::sleep(Duration::from_millis(5));
        }
    }

    /// Whether the server has not exited yet.
    pub fn is_running(&mut self) -> bool {
        self.child
            .try_wait()
            .expect("the server's status")
            .is_none()
    }

    /// Sends SIGTERM and waits for the server to exit.
    pub fn stop(self) -> Stopped {
        self.signal("-TERM");
        self.wait()
    }

    /// Waits for the server to exit, and collects what it printed.
    pub fn wait(mut self) -> Stopped {
        let mut stdout = String::new();
        self.stdout.read_to_string(&mut stdout).expect("stdout");
        let mut stderr = std::mem::take(&mut self.stderr_seen);
        self.stderr.read_to_string(&mut stderr).expect("stderr");
        let status = self.child.wait().expect("the server exits");
        Stopped {
            status,
            stdout,
            stderr,
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        // Already exited when the test stopped it: the kill fails harmlessly.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A command as RESP: an array of bulk strings.
pub fn command(parts: &[&[u8]]) -> Vec<u8> {
    let mut out = format!("*{}\r\n", parts.len()).into_bytes();
    for part in parts {
        out.extend_from_slice(format!("${}\r\n", part.len()).as_bytes());
        out.extend_from_slice(part);
        out.extend_from_slice(b"\r\n");
    }
    out
}

/// Reads exactly `expected.len()` bytes and compares.
pub fn expect_reply(stream: &mut TcpStream, expected: &[u8]) {
    let mut got = vec![0; expected.len()];
    stream.read_exact(&mut got).expect("the reply arrives");
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(expected)
    );
}

/// Reads until end of file.
pub fn read_to_end(stream: &mut TcpStream) -> Vec<u8> {
    let mut rest = Vec::new();
    // A reset after the last reply counts as the end too.
    let _ = stream.read_to_end(&mut rest);
    rest
}

/// Writes all of `bytes`.
pub fn send(stream: &mut TcpStream, bytes: &[u8]) {
    stream.write_all(bytes).expect("the server reads");
}

/// A small blocking RESP client: one request, one reply frame. Replies are read with
/// the crate's parser, whose round trip the property tests check.
pub struct Con {
    stream: TcpStream,
    buffer: Vec<u8>,
}

impl Con {
    pub fn new(server: &ServerProcess) -> Con {
        Con {
            stream: server.connect(),
            buffer: Vec::new(),
        }
    }

    /// Sends `args` as a command and reads one reply.
    pub fn query(&mut self, args: &[&str]) -> capstone_redis::Frame {
        let parts: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        self.query_bytes(&parts)
    }

    pub fn query_bytes(&mut self, args: &[&[u8]]) -> capstone_redis::Frame {
        send(&mut self.stream, &command(args));
        let limits = capstone_redis::Limits::default();
        loop {
            if let Some((frame, used)) =
                capstone_redis::parse(&self.buffer, &limits).expect("a valid reply")
            {
                self.buffer.drain(..used);
                return frame;
            }
            let mut chunk = [0u8; 4096];
            let n = self.stream.read(&mut chunk).expect("the reply arrives");
            assert!(n > 0, "the server closed the connection");
            self.buffer.extend_from_slice(&chunk[..n]);
        }
    }

    /// The integer reply to `args`.
    pub fn int(&mut self, args: &[&str]) -> i64 {
        match self.query(args) {
            capstone_redis::Frame::Integer(n) => n,
            other => panic!("{args:?}: expected an integer, got {other:?}"),
        }
    }

    /// The bulk reply to `args`, as text (`None` for a null).
    pub fn bulk(&mut self, args: &[&str]) -> Option<String> {
        match self.query(args) {
            capstone_redis::Frame::Bulk(bytes) => {
                bytes.map(|b| String::from_utf8(b).expect("UTF-8"))
            }
            other => panic!("{args:?}: expected a bulk string, got {other:?}"),
        }
    }

    /// The simple-string reply to `args`.
    pub fn simple(&mut self, args: &[&str]) -> String {
        match self.query(args) {
            capstone_redis::Frame::Simple(s) => s,
            other => panic!("{args:?}: expected a simple string, got {other:?}"),
        }
    }

    /// The error reply to `args`.
    pub fn error(&mut self, args: &[&str]) -> String {
        match self.query(args) {
            capstone_redis::Frame::Error(s) => s,
            other => panic!("{args:?}: expected an error, got {other:?}"),
        }
    }
}

/// A server-side stream on the running loop and the std client connected to it; the
/// client's reads time out after 8 s (a hang detector).
pub async fn pair() -> (Rc<oneloop::TcpStream>, TcpStream) {
    let listener = oneloop::TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let client = TcpStream::connect(listener.local_addr().expect("an address")).expect("connect");
    client
        .set_read_timeout(Some(Duration::from_secs(8)))
        .expect("a hang detector");
    let (server, _) = listener.accept().await.expect("accept");
    (Rc::new(server), client)
}
