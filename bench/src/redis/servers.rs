//! The contenders, each started in a fresh process on a free port.

use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use capstone_redis::{Config, Server};

/// Serves `name` on `port` in this process, until killed.
pub fn serve_here(name: &str, port: u16) {
    match name {
        "oneloop" => {
            let outcome = oneloop::run(async move {
                let listener = oneloop::TcpListener::bind(("127.0.0.1", port))?;
                let config = Config {
                    // Ten thousand clients and a few more; none is idle for too long here.
                    max_clients: 20_000,
                    idle_timeout: None,
                    ..Config::default()
                };
                Server::new(config).run(listener).await
            });
            outcome.expect("the loop runs").expect("the server runs");
        }
        "mini-redis-mt" => mini_redis(tokio::runtime::Builder::new_multi_thread(), port),
        "mini-redis-st" => mini_redis(tokio::runtime::Builder::new_current_thread(), port),
        other => panic!("no server `{other}` runs in this process"),
    }
}

/// `mini-redis`'s own `server::run`, on the runtime `builder` makes. As shipped, its
/// binary runs it on tokio's multi-thread runtime (`#[tokio::main]`); its log
/// subscriber is left out here, as the other servers log nothing per request either.
fn mini_redis(mut builder: tokio::runtime::Builder, port: u16) {
    let runtime = builder.enable_all().build().expect("a tokio runtime");
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .expect("bind");
        mini_redis::server::run(listener, std::future::pending::<()>())
            .await
            .expect("mini-redis runs");
    });
}

/// A server process, killed when dropped.
pub struct Running {
    child: Child,
    /// Where it listens.
    pub port: u16,
}

impl Running {
    /// Its process id (for its RSS).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The CPU time its process used so far, user and system, every thread counted.
    pub fn cpu(&self) -> Cpu {
        let stat =
            std::fs::read_to_string(format!("/proc/{}/stat", self.pid())).expect("the server runs");
        // Fields after the command name (which is in parentheses): utime is the
        // 12th of them, stime the 13th, in clock ticks.
        let after = &stat[stat.rfind(')').expect("a command name") + 2..];
        let fields: Vec<u64> = after
            .split_whitespace()
            .skip(11)
            .take(2)
            .map(|f| f.parse().expect("a tick count"))
            .collect();
        // SAFETY: sysconf only reads a configuration value.
        let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as u64;
        let time = |t: u64| Duration::from_micros(t * 1_000_000 / ticks);
        Cpu {
            user: time(fields[0]),
            sys: time(fields[1]),
        }
    }
}

/// A process's CPU time, in user space and in the kernel.
#[derive(Debug, Clone, Copy)]
pub struct Cpu {
    /// Time in the process's own code (the server, its runtime, its allocator).
    pub user: Duration,
    /// Time in the kernel on its behalf (syscalls: the TCP stack, epoll).
    pub sys: Duration,
}

impl std::ops::Sub for Cpu {
    type Output = Cpu;
    fn sub(self, earlier: Cpu) -> Cpu {
        Cpu {
            user: self.user - earlier.user,
            sys: self.sys - earlier.sys,
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // It may have died already; then there is nothing to kill.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A port the kernel says is free now.
fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    listener.local_addr().expect("an address").port()
}

/// Starts `name` and waits until it accepts; with `cpu`, the process may run on that
/// core only (`taskset -c CPU`, which then executes the server itself: the child's pid
/// stays the server's).
pub fn start(name: &str, cpu: Option<usize>) -> Running {
    match cpu {
        Some(cpu) => start_under(name, &["taskset", "-c", &cpu.to_string()]),
        None => start_under(name, &[]),
    }
}

/// Starts `name` as the last argument of `wrapper` (`taskset …`, `valgrind …`; none
/// when empty), and waits until it accepts. The wrapper must execute the server in its
/// own process, so that the child's pid is the server's.
pub fn start_under(name: &str, wrapper: &[&str]) -> Running {
    let port = free_port();
    let program = |program: &std::ffi::OsStr| match wrapper.split_first() {
        Some((first, rest)) => {
            let mut command = Command::new(first);
            command.args(rest).arg(program);
            command
        }
        None => Command::new(program),
    };
    let mut command = if name == "redis-server" {
        let mut command = program("redis-server".as_ref());
        command.args(["--port", &port.to_string(), "--bind", "127.0.0.1"]);
        // Persistence off: no snapshot, no append-only file.
        command.args(["--save", "", "--appendonly", "no"]);
        command.args(["--maxclients", "20000", "--logfile", "/dev/null"]);
        command
    } else {
        let mut command = program(std::env::current_exe().expect("own path").as_os_str());
        command.args(["serve", name, &port.to_string()]);
        command
    };
    let child = command
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {name}: {e} (is redis-server installed?)"));
    let running = Running { child, port };
    // A server under valgrind takes seconds to start on a busy machine.
    let deadline = Instant::now() + Duration::from_secs(60);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "{name} does not accept on {port}"
        );
        thread::sleep(Duration::from_millis(20));
    }
    running
}
