//! The introspection socket under hostile or clumsy clients and a hostile directory:
//! a stale socket name, a second loop of the same process, a request sent a byte at a
//! time, more clients than it serves at once, and a directory of another user.

use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::DirBuilderExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use oneloop_cancel::yield_now;
use oneloop_io::ACCEPT_RETRY_DELAY;
use oneloop_offload::to_thread;
use oneloop_shared::{
    CLIENT_TIMEOUT, MAX_CLIENTS, MAX_REQUEST, enable_introspection_in, query_path,
};
use oneloop_testkit::watchdog;

/// The testkit's ceiling: generous for a loaded machine.
const LIMIT: Duration = Duration::from_secs(10);

/// A fresh directory for one test, removed when dropped.
struct TestDir(PathBuf);

impl TestDir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("oneloop-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        Self(dir)
    }

    /// Creates it private (0700), as the loop would.
    fn private(name: &str) -> Self {
        let dir = Self::new(name);
        fs::DirBuilder::new()
            .mode(0o700)
            .create(&dir.0)
            .expect("a private directory");
        dir
    }

    fn socket(&self) -> PathBuf {
        self.0.join(format!("{}.sock", std::process::id()))
    }
}

impl Drop for TestDir {
    fn drop(&mut self) {
        if fs::remove_dir_all(&self.0).is_err() {
            let _ = fs::remove_file(&self.0);
        }
    }
}

/// Asks `path` for `request` from a worker thread, while the loop runs.
async fn ask(path: &Path, request: &'static str) -> String {
    let path = path.to_owned();
    to_thread(move || query_path(&path, request))
        .await
        .expect("the client ran")
        .expect("the loop answered")
}

/// Connects as many silent clients as the socket serves at once, from a worker thread
/// (a blocking connect must not stall the loop that accepts them).
async fn fill_every_slot(path: &Path) -> Vec<UnixStream> {
    let path = path.to_owned();
    to_thread(move || {
        (0..MAX_CLIENTS)
            .map(|_| UnixStream::connect(&path).expect("connects"))
            .collect::<Vec<_>>()
    })
    .await
    .expect("the clients connected")
}

/// Whether `answer` is the `ps` table (its header line), not an error line.
fn is_table(answer: &str) -> bool {
    answer.starts_with("ID ") && answer.contains("WAITS ON")
}

#[test]
fn a_stale_socket_name_left_by_a_dead_process_is_replaced() {
    watchdog(LIMIT, || {
        let dir = TestDir::private("stale");
        // A listener that is gone leaves its name behind, as a killed process would.
        drop(UnixListener::bind(dir.socket()).expect("a listener"));
        assert!(dir.socket().exists(), "the stale name is there");
        let mut event_loop = oneloop_offload::new_event_loop().expect("epoll");
        let introspection = enable_introspection_in(&event_loop, &dir.0).expect("enabled");
        let path = introspection.path().to_owned();
        let answer = event_loop
            .run_until_complete(async move { ask(&path, "ps").await })
            .expect("the loop runs");
        assert!(is_table(&answer), "{answer}");
    });
}

#[test]
fn a_second_loop_of_the_same_process_does_not_take_over_the_first_ones_socket() {
    watchdog(LIMIT, || {
        let dir = TestDir::private("twice");
        let mut first_loop = oneloop_offload::new_event_loop().expect("epoll");
        let first = enable_introspection_in(&first_loop, &dir.0).expect("enabled");
        let second_loop = oneloop_io::new_event_loop().expect("epoll");
        let second = enable_introspection_in(&second_loop, &dir.0);
        let error = second.expect_err("the name is in use by a live loop of this process");
        assert_eq!(error.kind(), std::io::ErrorKind::AddrInUse, "{error}");
        assert!(
            first.path().exists(),
            "the failed attempt left the first loop's name alone"
        );
        drop(second_loop);
        let path = first.path().to_owned();
        let answer = first_loop
            .run_until_complete(async move { ask(&path, "ps").await })
            .expect("the loop runs");
        assert!(is_table(&answer), "the first loop still answers: {answer}");
        assert_eq!(first.stats().answered(), 1);
        drop(first);
        // Once the first lets go, the name is free for another loop.
        let third_loop = oneloop_io::new_event_loop().expect("epoll");
        let third = enable_introspection_in(&third_loop, &dir.0).expect("free again");
        drop(third);
    });
}

#[test]
fn a_request_sent_one_byte_at_a_time_is_answered() {
    watchdog(LIMIT, || {
        let dir = TestDir::new("split");
        let mut event_loop = oneloop_offload::new_event_loop().expect("epoll");
        let introspection = enable_introspection_in(&event_loop, &dir.0).expect("enabled");
        let path = introspection.path().to_owned();
        let answer = event_loop
            .run_until_complete(async move {
                to_thread(move || {
                    let mut stream = UnixStream::connect(&path).expect("connects");
                    for byte in b"ps\n" {
                        stream.write_all(&[*byte]).expect("sent");
                        stream.flush().expect("sent");
                    }
                    let mut answer = String::new();
                    stream.read_to_string(&mut answer).expect("answered");
                    answer
                })
                .await
                .expect("the client ran")
            })
            .expect("the loop runs");
        assert!(is_table(&answer), "{answer}");
        assert_eq!(introspection.stats().answered(), 1);
    });
}

#[test]
fn more_clients_than_it_serves_at_once_are_told_busy_and_the_socket_recovers() {
    watchdog(LIMIT, || {
        let dir = TestDir::new("many");
        let mut event_loop = oneloop_offload::new_event_loop().expect("epoll");
        let introspection = enable_introspection_in(&event_loop, &dir.0).expect("enabled");
        let stats = introspection.stats();
        let path = introspection.path().to_owned();
        let (busy, later) = event_loop
            .run_until_complete(async move {
                // Clients that connect and say nothing fill every slot.
                let held = fill_every_slot(&path).await;
                let busy = ask(&path, "ps").await;
                drop(held);
                // Each silent client hangs up without a request: count them out.
                while stats.malformed() < MAX_CLIENTS as u64 {
                    yield_now().await.expect("not cancelled");
                }
                (busy, ask(&path, "ps").await)
            })
            .expect("the loop runs");
        assert_eq!(busy, "error: busy, try again\n");
        assert!(
            is_table(&later),
            "served again once a slot is free: {later}"
        );
        let stats = introspection.stats();
        assert_eq!((stats.busy(), stats.answered()), (1, 1));
    });
}

#[test]
fn a_directory_owned_by_another_user_is_refused() {
    if rustix::process::getuid().as_raw() != 0 {
        eprintln!("skipped: only root can give a directory to another user (CI runs as root)");
        return;
    }
    watchdog(LIMIT, || {
        let dir = TestDir::private("owner");
        std::os::unix::fs::chown(&dir.0, Some(65534), Some(65534)).expect("chown");
        let event_loop = oneloop_io::new_event_loop().expect("epoll");
        let refused = enable_introspection_in(&event_loop, &dir.0).expect_err("not ours");
        assert_eq!(refused.kind(), std::io::ErrorKind::PermissionDenied);
        assert!(
            refused.to_string().contains("owned by uid 65534"),
            "{refused}"
        );
        assert!(!dir.socket().exists(), "nothing was made in it");
    });
}

#[test]
fn a_link_at_the_socket_name_is_replaced_and_its_target_left_alone() {
    watchdog(LIMIT, || {
        let dir = TestDir::private("namelink");
        let target = TestDir::new("namelink-target");
        fs::write(&target.0, "precious").expect("a file");
        std::os::unix::fs::symlink(&target.0, dir.socket()).expect("a link");
        let event_loop = oneloop_io::new_event_loop().expect("epoll");
        let introspection = enable_introspection_in(&event_loop, &dir.0).expect("enabled");
        let kind = fs::symlink_metadata(introspection.path()).expect("the name");
        assert!(!kind.file_type().is_symlink(), "the link was replaced");
        assert_eq!(
            fs::read_to_string(&target.0).expect("the target"),
            "precious",
            "the link's target was not touched"
        );
    });
}

#[test]
fn the_client_refuses_an_answer_from_a_socket_of_another_user() {
    if rustix::process::getuid().as_raw() != 0 {
        eprintln!("skipped: only root can start a process as another user (CI runs as root)");
        return;
    }
    watchdog(LIMIT, || {
        let dir = TestDir::new("spoof");
        fs::DirBuilder::new()
            .mode(0o755)
            .create(&dir.0)
            .expect("a directory");
        std::os::unix::fs::chown(&dir.0, Some(65534), Some(65534)).expect("chown");
        let path = dir.0.join("1.sock");
        // Another user's process listens where a client looks, and answers a fake tree.
        let script = "import socket, sys\n\
            s = socket.socket(socket.AF_UNIX)\n\
            s.bind(sys.argv[1])\n\
            s.listen(1)\n\
            print('READY', flush=True)\n\
            c, _ = s.accept()\n\
            c.recv(256)\n\
            c.sendall(b'fake tree\\n')\n\
            c.close()\n";
        let mut server = std::process::Command::new("python3")
            .args(["-c", script])
            .arg(&path)
            .current_dir("/")
            .stdout(std::process::Stdio::piped())
            .uid(65534)
            .gid(65534)
            .spawn()
            .expect("python3 runs as nobody");
        let mut ready = [0; 6];
        server
            .stdout
            .take()
            .expect("its stdout")
            .read_exact(&mut ready)
            .expect("READY");
        let answer = query_path(&path, "tree");
        // Whatever happened, end the child this test started, by its own handle.
        let _ = server.kill();
        let _ = server.wait();
        let error = answer.expect_err("an answer from another user is not trusted");
        assert_eq!(
            error.kind(),
            std::io::ErrorKind::PermissionDenied,
            "{error}"
        );
        assert!(error.to_string().contains("uid 65534"), "{error}");
    });
}

#[test]
fn a_line_longer_than_the_limit_is_refused_even_when_it_comes_in_pieces() {
    watchdog(LIMIT, || {
        let dir = TestDir::new("pieces");
        let mut event_loop = oneloop_offload::new_event_loop().expect("epoll");
        let introspection = enable_introspection_in(&event_loop, &dir.0).expect("enabled");
        let path = introspection.path().to_owned();
        // The client sends part of a long line, waits until the loop has read all of
        // it (the kernel's count of its unread bytes is zero), then sends the rest.
        let script = "import socket, sys, fcntl, termios, struct, time\n\
            s = socket.socket(socket.AF_UNIX)\n\
            s.connect(sys.argv[1])\n\
            s.sendall(b'p' * 200)\n\
            while struct.unpack('i', fcntl.ioctl(s, termios.TIOCOUTQ, b'\\0' * 4))[0]:\n    time.sleep(0.001)\n\
            s.sendall(b'p' * 100 + b'\\n')\n\
            data = b''\n\
            while True:\n    chunk = s.recv(4096)\n    if not chunk: break\n    data += chunk\n\
            sys.stdout.write(data.decode())\n";
        let answer = event_loop
            .run_until_complete(async move {
                to_thread(move || {
                    std::process::Command::new("python3")
                        .args(["-c", script])
                        .arg(&path)
                        .output()
                        .expect("python3 runs")
                })
                .await
                .expect("the client ran")
            })
            .expect("the loop runs");
        let said = String::from_utf8_lossy(&answer.stdout);
        assert_eq!(
            said,
            format!("error: a request is one line of at most {MAX_REQUEST} bytes\n"),
            "a 301-byte line in two pieces: {}",
            String::from_utf8_lossy(&answer.stderr)
        );
    });
}

/// The client timeout [`clients_that_never_finish_lose_their_slots_after_the_client_timeout`]
/// sets. The stuck clients are admitted, and the next one told "busy", a few
/// milliseconds apart: this leaves room for a stall of the loaded machine in between.
const STUCK_CLIENT_TIMEOUT: Duration = Duration::from_millis(500);

#[test]
fn clients_that_never_finish_lose_their_slots_after_the_client_timeout() {
    // Real time: the timeout is what is tested. The limit only catches a hang.
    assert_eq!(
        CLIENT_TIMEOUT,
        Duration::from_secs(5),
        "the default the book gives"
    );
    watchdog(LIMIT, || {
        let dir = TestDir::new("stuck");
        let mut event_loop = oneloop_offload::new_event_loop().expect("epoll");
        let introspection = enable_introspection_in(&event_loop, &dir.0).expect("enabled");
        // Shorter than the default, so that the test waits half a second, not five. The
        // answered client connects and asks from a worker thread: the timeout must
        // outlast a loaded machine's stall between the two, or it too would be closed.
        introspection.set_client_timeout(STUCK_CLIENT_TIMEOUT);
        let path = introspection.path().to_owned();
        let (busy, later, held) = event_loop
            .run_until_complete(async move {
                let held = fill_every_slot(&path).await;
                let busy = ask(&path, "ps").await;
                // The stuck clients' timeouts were set before this sleep and end
                // before it: their slots are free when it returns.
                oneloop_cancel::sleep(STUCK_CLIENT_TIMEOUT + Duration::from_millis(100))
                    .await
                    .expect("not cancelled");
                (busy, ask(&path, "ps").await, held)
            })
            .expect("the loop runs");
        assert_eq!(busy, "error: busy, try again\n");
        assert!(
            is_table(&later),
            "served while the stuck clients are still connected: {later}"
        );
        drop(held);
    });
}

#[test]
fn a_loop_without_timers_is_refused_as_no_client_deadline_could_be_kept() {
    watchdog(LIMIT, || {
        let dir = TestDir::new("untimed");
        // I/O but no timer layer: a silent client could hold its slot for ever.
        let event_loop =
            oneloop_core::EventLoop::with_driver(oneloop_io::IoDriver::new().expect("epoll"));
        let refused = enable_introspection_in(&event_loop, &dir.0).err();
        let refused = refused.expect("a loop without timers is refused");
        assert!(
            refused.to_string().contains("timers"),
            "the error says why: {refused}"
        );
    });
}

/// Set in the child that [`an_accept_out_of_fds_backs_off_and_accepts_again`] starts.
const EMFILE_CHILD: &str = "ONELOOP_INTROSPECT_EMFILE_CHILD";

/// The child's fd limit: enough for the loop, the pool and the socket, then filled up.
const CHILD_NOFILE: u32 = 64;

/// The accept retry delay the child sets: shorter than asyncio's second
/// (`the_accept_retry_delay_is_asyncios_second_until_set` checks that default), so that
/// the child waits a fraction of a second, not several.
const CHILD_RETRY_DELAY: Duration = Duration::from_millis(100);

/// How long the child runs with its descriptors used up: five retry delays.
const OUT_OF_FDS_FOR: Duration = Duration::from_millis(500);

/// Turns a loop may take in [`OUT_OF_FDS_FOR`] with one connection it cannot accept.
/// Backing off, it parks until each retry and fails again: a few turns per retry, some
/// twenty in all. Spinning on the listener, it turns thousands of times, however loaded
/// the machine.
const MOST_TURNS: u64 = 100;

/// Not a test on its own: does nothing unless the test below started this binary as
/// its child, under a low fd limit.
#[test]
fn emfile_child() {
    if std::env::var_os(EMFILE_CHILD).is_none() {
        return;
    }
    let dir = TestDir::new("emfile");
    let mut event_loop = oneloop_offload::new_event_loop().expect("epoll");
    let introspection = enable_introspection_in(&event_loop, &dir.0).expect("enabled");
    introspection.set_accept_retry_delay(CHILD_RETRY_DELAY);
    let path = introspection.path().to_owned();
    // Every fd but one is taken; the client takes that one, so accepting it fails with
    // EMFILE and the connection waits in the listener's backlog.
    let mut filler = oneloop_testkit::fill_fd_table();
    drop(filler.pop());
    let mut client = UnixStream::connect(&path).expect("connects into the backlog");
    client
        .set_read_timeout(Some(LIMIT))
        .expect("a hang detector on the client's read");
    let before = event_loop.turn();
    event_loop
        .run_until_complete(oneloop_cancel::sleep(OUT_OF_FDS_FOR))
        .expect("the loop runs")
        .expect("not cancelled");
    let turns = event_loop.turn() - before;
    assert!(
        turns <= MOST_TURNS,
        "{turns} turns in {OUT_OF_FDS_FOR:?} with an accept failing: the loop spins on the listener"
    );
    // The first retry is due a fifth of the way in: it ran, and failed again, so the
    // delay set is the one the back-off waits (asyncio's second would give one failure).
    let failed = introspection.stats().accept_failed();
    assert!(
        failed >= 2,
        "{failed} failed accepts: no retry after {CHILD_RETRY_DELAY:?}"
    );
    // Fds free up: at its next retry the socket accepts the waiting client again.
    drop(filler);
    let answer = event_loop
        .run_until_complete(async move {
            to_thread(move || {
                client.write_all(b"ps\n").expect("sent");
                let mut answer = String::new();
                client.read_to_string(&mut answer).expect("answered");
                answer
            })
            .await
            .expect("the client ran")
        })
        .expect("the loop runs");
    assert!(is_table(&answer), "answered after the back-off: {answer}");
    println!("emfile child: {turns} turns while out of fds, then answered");
}

/// The back-off's delay is asyncio's one second until set, and the setter changes it.
#[test]
fn the_accept_retry_delay_is_asyncios_second_until_set() {
    watchdog(LIMIT, || {
        assert_eq!(
            ACCEPT_RETRY_DELAY,
            Duration::from_secs(1),
            "asyncio's delay"
        );
        let dir = TestDir::new("retry-delay");
        let event_loop = oneloop_offload::new_event_loop().expect("epoll");
        let introspection = enable_introspection_in(&event_loop, &dir.0).expect("enabled");
        assert_eq!(introspection.accept_retry_delay(), ACCEPT_RETRY_DELAY);
        introspection.set_accept_retry_delay(CHILD_RETRY_DELAY);
        assert_eq!(introspection.accept_retry_delay(), CHILD_RETRY_DELAY);
    });
}

#[test]
fn an_accept_out_of_fds_backs_off_and_accepts_again() {
    watchdog(LIMIT, || {
        let exe = std::env::current_exe().expect("the test binary's path");
        // The shell lowers the limit, then becomes the test binary.
        let output = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("ulimit -n {CHILD_NOFILE} && exec \"$0\" \"$@\""))
            .arg(&exe)
            .arg(oneloop_testkit::test_name(module_path!(), "emfile_child"))
            .args(["--exact", "--nocapture", "--test-threads=1"])
            .env(EMFILE_CHILD, "1")
            .stdin(std::process::Stdio::null())
            .output()
            .expect("the child runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success() && stdout.contains("emfile child:"),
            "the child failed ({}):\n{stdout}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    });
}

/// A loop that refuses a client (busy, or not its owner) writes its error line and
/// closes at once, perhaps before the client's request has reached it. A Unix socket
/// closed with unread bytes resets its peer: the client then reads the line, and after
/// it a reset instead of the end of the stream. `query_path` must give the line. A
/// listener made here plays the refusing loop, and closes only once the request sits
/// unread in its socket, so the reset happens every time.
#[test]
fn a_refusal_that_resets_the_client_after_its_line_still_gives_the_line() {
    watchdog(LIMIT, || {
        let dir = TestDir::private("reset");
        let listener = UnixListener::bind(dir.socket()).expect("a listener");
        let refuser = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().expect("the client connects");
            stream
                .write_all(b"error: busy, try again\n")
                .expect("the line");
            // Wait until the request has arrived, and leave it unread.
            let mut byte = [0u8; 1];
            rustix::net::recv(&stream, &mut byte, rustix::net::RecvFlags::PEEK)
                .expect("the request arrives");
            drop(stream);
        });
        let answer = query_path(&dir.socket(), "ps");
        refuser.join().expect("the refuser ran");
        assert_eq!(
            answer.expect("the refusal's line, not the reset after it"),
            "error: busy, try again\n"
        );
    });
}
