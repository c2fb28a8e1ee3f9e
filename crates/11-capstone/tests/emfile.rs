//! Out of file descriptors: the server backs off and keeps serving.

mod common;

use std::process::Command;
use std::time::Duration;

use capstone_redis::Config;
use common::{ServerProcess, command, expect_reply, send};
use oneloop_testkit::{DEFAULT_LIMIT, watchdog_default};

/// The accept retry delay the test gives the server, in milliseconds: a tenth of
/// asyncio's second, so that the back-offs (four of them, as the backlog drains a few
/// connections per retry) cost a fraction of a second, not four.
const RETRY_DELAY_MS: u64 = 100;

/// The server under a limit of 16 open files: about half are its own (standard
/// streams, epoll, the eventfd, the listener, the signal pairs).
fn start_with_few_files() -> ServerProcess {
    let mut shell = Command::new("sh");
    shell.args([
        "-c",
        "ulimit -n 16 && exec \"$0\" \"$@\"",
        env!("CARGO_BIN_EXE_capstone-redis"),
    ]);
    ServerProcess::start_with(
        shell,
        &["--accept-retry-delay", &RETRY_DELAY_MS.to_string()],
    )
}

/// The server waits asyncio's one second after a failed accept unless told otherwise.
#[test]
fn the_accept_retry_delay_is_asyncios_second_by_default() {
    assert_eq!(Config::default().accept_retry_delay, Duration::from_secs(1));
    assert_eq!(oneloop::ACCEPT_RETRY_DELAY, Duration::from_secs(1));
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
        // At least one back-off; and one report per retry delay, not a spin: however
        // slow the machine, no more than fit in the hang detector's time (a spin
        // reports thousands).
        let most = DEFAULT_LIMIT.as_millis() / u128::from(RETRY_DELAY_MS);
        assert!(reports >= 1, "stderr was:\n{}", stopped.stderr);
        assert!(
            reports as u128 <= most,
            "{reports} reports: the accept loop spun"
        );
    });
}
