//! Out of file descriptors: the server backs off and keeps serving.

mod common;

use std::cell::Cell;
use std::process::Command;
use std::time::Duration;

use capstone_redis::{Config, Server};
use common::{ServerProcess, command, expect_reply, send};
use oneloop_core::EventLoop;
use oneloop_io::IoDriver;
use oneloop_offload::OffloadDriver;
use oneloop_testkit::{DEFAULT_LIMIT, rerun_alone, watchdog_default};
use oneloop_timers::TimerDriver;

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

/// Set in the child of the retry-delay test: run the server out of fds.
const BACKOFF_CHILD_ENV: &str = "CAPSTONE_BACKOFF_CHILD";
/// How many failed accepts the child reports before it exits.
const BACKOFF_REPORTS: usize = 4;

/// The child of [`the_server_sleeps_its_configured_retry_delay_between_failed_accepts`]:
/// the server with a retry delay of [`RETRY_DELAY_MS`] on a virtual clock, out of fds
/// for good. It connects a client to its own listener, so that an accept always waits,
/// then opens `/dev/null` until its fd table is full. Each failed accept is written to
/// stderr with the loop's time in milliseconds; it exits after [`BACKOFF_REPORTS`].
fn backoff_child() -> ! {
    let listener = oneloop::TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let addr = listener.local_addr().expect("an address");
    let driver = OffloadDriver::new(TimerDriver::virtual_time(IoDriver::new().expect("epoll")));
    let mut event_loop = EventLoop::with_driver(driver);
    let reports = Cell::new(0);
    event_loop.core().set_exception_handler(move |report| {
        let at = oneloop_timers::time().as_millis();
        eprintln!("{} at {at} ms: {}", report.message, report.panic);
        reports.set(reports.get() + 1);
        if reports.get() == BACKOFF_REPORTS {
            std::process::exit(0);
        }
    });
    let _waiting = std::net::TcpStream::connect(addr).expect("connect to its own listener");
    let _fill = oneloop_testkit::fill_fd_table();
    let server = Server::new(Config {
        accept_retry_delay: Duration::from_millis(RETRY_DELAY_MS),
        idle_timeout: None,
        ..Config::default()
    });
    let served = event_loop.run_until_complete(server.run(listener));
    panic!("the server ended: {served:?}");
}

/// The server's accept loop sleeps `Config::accept_retry_delay` between failed
/// accepts: in a child out of fds for good, on a virtual clock, they come exactly one
/// delay apart (a server that left its listener at asyncio's second would space them
/// 1000 ms apart; one that did not sleep, 0).
#[test]
fn the_server_sleeps_its_configured_retry_delay_between_failed_accepts() {
    if std::env::var_os(BACKOFF_CHILD_ENV).is_some() {
        backoff_child();
    }
    let output = watchdog_default(|| {
        let child = rerun_alone(
            module_path!(),
            "the_server_sleeps_its_configured_retry_delay_between_failed_accepts",
        );
        // The shell lowers the fd limit, then becomes the test binary.
        let mut shell = Command::new("sh");
        shell
            .args(["-c", "ulimit -n 64 && exec \"$0\" \"$@\""])
            .arg(child.get_program())
            .args(child.get_args())
            .env(BACKOFF_CHILD_ENV, "1")
            .stdin(std::process::Stdio::null());
        shell.output().expect("the child runs")
    });
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{}\n{stderr}", output.status);
    let times: Vec<u64> = stderr
        .lines()
        .filter(|line| line.contains("accept failed for lack of resources"))
        .map(|line| {
            let (_, at) = line.split_once(" at ").expect("the loop's time");
            let (ms, _) = at.split_once(" ms").expect("in milliseconds");
            ms.parse().expect("a number of milliseconds")
        })
        .collect();
    let expected: Vec<u64> = (0..BACKOFF_REPORTS as u64)
        .map(|n| n * RETRY_DELAY_MS)
        .collect();
    assert_eq!(times, expected, "stderr was:\n{stderr}");
}
