//! Out of file descriptors: the server backs off and keeps serving.

mod common;

use std::process::Command;

use common::{ServerProcess, command, expect_reply, send};
use oneloop_testkit::watchdog_default;

/// The server under a limit of 16 open files: about half are its own (standard
/// streams, epoll, the eventfd, the listener, the signal pairs).
fn start_with_few_files() -> ServerProcess {
    let mut shell = Command::new("sh");
    shell.args([
        "-c",
        "ulimit -n 16 && exec \"$0\" \"$@\"",
        env!("CARGO_BIN_EXE_capstone-redis"),
    ]);
    ServerProcess::start_with(shell, &[])
}

#[test]
fn accept_out_of_files_backs_off_and_existing_clients_are_still_served() {
    watchdog_default(|| {
        let server = start_with_few_files();
        // More connections than the server has descriptors for: the kernel completes
        // every handshake, and the ones past the limit wait in the listen backlog.
        let mut clients: Vec<_> = (0..16).map(|_| server.connect()).collect();
        // The first is served.
        send(&mut clients[0], &command(&[b"PING"]));
        expect_reply(&mut clients[0], b"+PONG\r\n");
        // The last waits in the backlog; its request waits with it.
        send(clients.last_mut().unwrap(), &command(&[b"ECHO", b"late"]));
        // The first is still served while the accept loop backs off.
        send(&mut clients[0], &command(&[b"PING"]));
        expect_reply(&mut clients[0], b"+PONG\r\n");
        // Connections leave; after the retry delay the server accepts again.
        let mut last = clients.pop().unwrap();
        clients.clear();
        expect_reply(&mut last, b"$4\r\nlate\r\n");
        let stopped = server.stop();
        assert!(stopped.status.success(), "{}", stopped.stderr);
        let reports = stopped
            .stderr
            .matches("accept failed for lack of resources")
            .count();
        // At least one back-off; and one report per retry delay, not a spin.
        assert!(reports >= 1, "stderr was:\n{}", stopped.stderr);
        assert!(reports <= 20, "{reports} reports: the accept loop spun");
    });
}
