//! The task tree from outside the process: the introspection socket, who it answers,
//! and what it does with bad requests.
//!
//! The first test starts this test binary again as a child process that runs a
//! program with introspection enabled, and asks for its tree through the socket, as
//! the `ps` example does.

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Barrier};
use std::time::Duration;

use oneloop_cancel::{Error, cancellable, sleep, spawn_named, task_group, yield_now};
use oneloop_offload::to_thread;
use oneloop_shared::{
    MAX_REQUEST, enable_introspection, enable_introspection_in, query, query_path, socket_dir,
    socket_path,
};
use oneloop_testkit::watchdog;

/// Set in the child process the first test starts.
const CHILD: &str = "ONELOOP_SHARED_INTROSPECT_CHILD";

/// The testkit's ceiling: generous for a second process on a loaded machine.
const LIMIT: Duration = Duration::from_secs(10);

/// A fresh directory for one test, removed when dropped.
struct TestDir(PathBuf);

impl TestDir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("oneloop-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        Self(dir)
    }
}

impl Drop for TestDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Kills the child (started by this test, by its id) if the test ends early.
struct Reaped(Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
        // Killed, the child could not remove its socket's name.
        let _ = fs::remove_file(socket_path(self.0.id()));
    }
}

/// The program the child runs: a group of two workers, one sleeping and one reading a
/// socket, and a task that joins the sleeping one. It says READY, then sleeps.
fn child_program() {
    let mut event_loop = oneloop_offload::new_event_loop().expect("epoll");
    let _introspection = enable_introspection(&event_loop).expect("introspection");
    let (mine, _peer) = UnixStream::pair().expect("a socket pair");
    mine.set_nonblocking(true).expect("non-blocking");
    let main = async move {
        task_group(|group| async move {
            let sleeper = group.spawn("sleeper", async {
                sleep(Duration::from_secs(3600)).await?;
                Ok(())
            })?;
            group.spawn("reader", async move {
                cancellable(oneloop_io::readable(&mine)).await?.ok();
                Ok(())
            })?;
            group.spawn("joiner", async move { sleeper.join().await })?;
            for _ in 0..3 {
                yield_now().await?;
            }
            println!("READY");
            std::io::stdout().flush().expect("stdout");
            sleep(Duration::from_secs(3600)).await?;
            Ok::<(), Error>(())
        })
        .await
    };
    let (driven, _handle) = oneloop_cancel::task_future("main", main);
    event_loop
        .run_until_complete(driven)
        .expect("the program runs");
}

/// A line of the tree without what changes from run to run: task ids (` #12`),
/// fd numbers, and times.
fn normalize(line: &str) -> String {
    let words: Vec<&str> = line.split(' ').collect();
    let mut out: Vec<String> = Vec::new();
    for (i, word) in words.iter().enumerate() {
        let previous = i.checked_sub(1).map(|j| words[j]);
        if word.starts_with('#') {
            continue;
        } else if previous == Some("fd") {
            out.push("N".to_owned());
        } else if previous == Some("until") {
            out.push("T".to_owned());
        } else {
            out.push((*word).to_owned());
        }
    }
    out.join(" ")
}

#[test]
fn introspect_child_program() {
    if std::env::var_os(CHILD).is_some() {
        child_program();
    }
}

#[test]
fn the_tree_of_another_process_lists_its_tasks_states_and_awaits() {
    watchdog(LIMIT, || {
        let child = oneloop_testkit::rerun_alone(module_path!(), "introspect_child_program")
            .env(CHILD, "1")
            .stdout(Stdio::piped())
            .spawn()
            .expect("the test binary runs again");
        let mut child = Reaped(child);
        let stdout = child.0.stdout.take().expect("piped");
        let ready = BufReader::new(stdout)
            .lines()
            .map(|line| line.expect("stdout"))
            .any(|line| line.ends_with("READY"));
        assert!(ready, "the child got ready");
        let pid = child.0.id();
        let tree = query(pid, "tree").expect("the child answers");
        let shape: Vec<String> = tree.lines().map(normalize).collect();
        assert_eq!(
            shape,
            [
                "└── (T) main pending",
                "    ├── sleep until T",
                "    ├── (T) sleeper pending [group]",
                "    │   └── sleep until T",
                "    ├── (T) reader pending [group]",
                "    │   └── fd N readable",
                "    └── (T) joiner pending [group]",
                "        └── (T) sleeper pending [join]",
                "            └── sleep until T",
            ],
            "the tree was:\n{tree}"
        );
        let table = query(pid, "ps").expect("the child answers");
        let rows: Vec<&str> = table.lines().collect();
        assert!(rows[0].starts_with("ID"), "{table}");
        let joiner = rows
            .iter()
            .find(|row| row.contains(" joiner "))
            .expect("a row for the joiner");
        assert!(
            joiner.contains("pending") && joiner.contains("(group)"),
            "{table}"
        );
        let sleeper = rows
            .iter()
            .find(|row| row.contains(" sleeper "))
            .expect("a row for the sleeper");
        assert!(
            sleeper.contains("(group)") && sleeper.contains("(join)"),
            "the sleeper is awaited by the group and the joiner:\n{table}"
        );
    });
}

#[test]
fn the_directory_is_private_and_a_loose_one_is_refused() {
    watchdog(LIMIT, || {
        let event_loop = oneloop_io::new_event_loop().expect("epoll");
        let dir = TestDir::new("mode");
        let introspection = enable_introspection_in(&event_loop, &dir.0).expect("enabled");
        let mode = fs::metadata(&dir.0).expect("the directory").mode() & 0o777;
        assert_eq!(mode, 0o700);
        let socket = fs::symlink_metadata(introspection.path()).expect("the socket");
        assert_eq!(socket.mode() & 0o777, 0o600);
        drop(introspection);
        assert!(!dir.0.join(format!("{}.sock", std::process::id())).exists());

        fs::set_permissions(&dir.0, fs::Permissions::from_mode(0o755)).expect("chmod");
        let refused = enable_introspection_in(&event_loop, &dir.0).expect_err("loose mode");
        assert_eq!(refused.kind(), std::io::ErrorKind::PermissionDenied);
        assert!(refused.to_string().contains("mode 755"), "{refused}");

        let link = TestDir::new("link");
        fs::set_permissions(&dir.0, fs::Permissions::from_mode(0o700)).expect("chmod");
        std::os::unix::fs::symlink(&dir.0, &link.0).expect("a link");
        let refused = enable_introspection_in(&event_loop, &link.0).expect_err("a link");
        assert!(refused.to_string().contains("not a directory"), "{refused}");

        let long = dir.0.join("x".repeat(100));
        let refused = enable_introspection_in(&event_loop, &long).expect_err("too long");
        assert_eq!(refused.kind(), std::io::ErrorKind::InvalidInput);
        assert!(socket_dir().to_string_lossy().starts_with("/tmp/oneloop-"));
    });
}

/// Connects to `path` as the user `nobody` from a child process (Python, which any
/// user may run), sends a request, and returns what the loop answered.
fn ask_as_nobody(path: &Path) -> std::process::Output {
    let script = "import socket, sys\n\
        s = socket.socket(socket.AF_UNIX)\n\
        s.connect(sys.argv[1])\n\
        try:\n    s.sendall(b'tree\\n')\nexcept BrokenPipeError:\n    pass\n\
        data = b''\n\
        while True:\n    chunk = s.recv(4096)\n    if not chunk: break\n    data += chunk\n\
        sys.stdout.write(data.decode())\n";
    Command::new("python3")
        .args(["-c", script])
        .arg(path)
        .current_dir("/")
        .uid(65534)
        .gid(65534)
        .output()
        .expect("python3 runs as nobody")
}

#[test]
fn another_user_is_refused_by_the_peer_check_even_when_the_modes_let_it_in() {
    if rustix::process::getuid().as_raw() != 0 {
        eprintln!("skipped: only root can start a process as another user (CI runs as root)");
        return;
    }
    watchdog(LIMIT, || {
        let mut event_loop = oneloop_offload::new_event_loop().expect("epoll");
        let dir = TestDir::new("peer");
        let introspection = enable_introspection_in(&event_loop, &dir.0).expect("enabled");
        // Loosen the modes on purpose: only the uid check stands between nobody and
        // the tree now.
        fs::set_permissions(&dir.0, fs::Permissions::from_mode(0o711)).expect("chmod");
        fs::set_permissions(introspection.path(), fs::Permissions::from_mode(0o777))
            .expect("chmod");
        let path = introspection.path().to_owned();
        let own = path.clone();
        let (nobody, owner) = event_loop
            .run_until_complete(async move {
                let nobody = to_thread(move || ask_as_nobody(&path)).await.expect("ran");
                let owner = to_thread(move || query_path(&own, "tree"))
                    .await
                    .expect("ran");
                (nobody, owner)
            })
            .expect("the loop runs");
        let said = String::from_utf8_lossy(&nobody.stdout);
        let stderr = String::from_utf8_lossy(&nobody.stderr);
        assert!(nobody.status.success(), "nobody could connect: {stderr}");
        assert_eq!(
            said,
            "error: refused: uid 65534 is not the owner of this loop (uid 0)\n"
        );
        let stats = introspection.stats();
        assert_eq!(stats.refused(), 1, "the loop's own check refused it");
        // The owner, through the same loose modes, is answered.
        owner.expect("the owner is answered");
        assert_eq!(stats.answered(), 1);
    });
}

#[test]
fn malformed_requests_get_an_error_and_a_silent_client_does_not_hold_the_loop() {
    watchdog(LIMIT, || {
        let mut event_loop = oneloop_offload::new_event_loop().expect("epoll");
        let dir = TestDir::new("bad");
        let introspection = enable_introspection_in(&event_loop, &dir.0).expect("enabled");
        let path = introspection.path().to_owned();
        let answers = event_loop
            .run_until_complete(async move {
                let barrier = Arc::new(Barrier::new(2));
                let silent_path = path.clone();
                let connected = Arc::clone(&barrier);
                // Connects and says nothing until the others were answered.
                let silent = spawn_named("silent", async move {
                    let held = to_thread(move || {
                        let stream = UnixStream::connect(&silent_path).expect("connects");
                        connected.wait();
                        connected.wait();
                        drop(stream);
                    });
                    held.await.expect("ran");
                    Ok(())
                });
                let waited = Arc::clone(&barrier);
                to_thread(move || waited.wait()).await.expect("ran");
                let mut answers = Vec::new();
                for request in ["bogus", "tree\u{0}x", ""] {
                    let path = path.clone();
                    let answer = to_thread(move || query_path(&path, request));
                    answers.push(answer.await.expect("ran").expect("answered"));
                }
                let long_path = path.clone();
                let long = to_thread(move || {
                    let mut stream = UnixStream::connect(&long_path).expect("connects");
                    stream.write_all(&[b'x'; MAX_REQUEST + 10]).expect("sent");
                    let mut answer = String::new();
                    stream.read_to_string(&mut answer).expect("answered");
                    answer
                });
                answers.push(long.await.expect("ran"));
                let tree_path = path.clone();
                let tree = to_thread(move || query_path(&tree_path, "tree"));
                answers.push(tree.await.expect("ran").expect("answered"));
                let released = Arc::clone(&barrier);
                to_thread(move || released.wait()).await.expect("ran");
                silent.join().await.expect("the silent client ends");
                sleep(Duration::ZERO).await.ok();
                answers
            })
            .expect("the loop runs");
        assert!(
            answers[0].starts_with("error: unknown request \"bogus\""),
            "{answers:?}"
        );
        assert!(
            answers[1].starts_with("error: unknown request"),
            "{answers:?}"
        );
        assert!(
            answers[2].starts_with("error: unknown request \"\""),
            "{answers:?}"
        );
        assert_eq!(
            answers[3],
            format!("error: a request is one line of at most {MAX_REQUEST} bytes\n")
        );
        assert!(answers[4].contains("(T) silent"), "{answers:?}");
        let stats = introspection.stats();
        // The four above, and the silent client, which hung up without a request.
        assert_eq!(stats.malformed(), 5);
        assert_eq!(stats.answered(), 1);
    });
}
