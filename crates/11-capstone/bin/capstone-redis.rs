//! `capstone-redis`: the server as a program.
//!
//! ```text
//! capstone-redis [--bind ADDR] [--port PORT] [--max-clients N] [--max-bulk BYTES]
//!                [--max-output BYTES] [--max-query BYTES] [--idle-timeout SECONDS]
//!                [--shutdown-deadline MS]
//!                [--idle-timeout-ms MS] [--accept-retry-delay MS]
//! ```
//!
//! `--idle-timeout-ms` is `--idle-timeout` in milliseconds, for tests that should not
//! wait whole seconds.
//!
//! It prints `listening on ADDR:PORT` once it accepts (with `--port 0` the kernel picks
//! the port), serves until `SIGINT` or `SIGTERM`, then prints what the shutdown closed
//! and exits 0.

use std::process::ExitCode;
use std::rc::Rc;
use std::time::Duration;

use capstone_redis::{Config, Server};
use oneloop::{SIGINT, SIGTERM, TcpListener, add_signal_handler, run, signal_name};

/// The command line, parsed.
struct Args {
    bind: String,
    port: u16,
    config: Config,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        bind: "127.0.0.1".to_owned(),
        port: 6379,
        config: Config::default(),
    };
    let mut words = std::env::args().skip(1);
    while let Some(flag) = words.next() {
        let mut value = || words.next().ok_or_else(|| format!("{flag} needs a value"));
        let number = |text: String| -> Result<u64, String> {
            text.parse()
                .map_err(|_| format!("{flag}: '{text}' is not a number"))
        };
        match flag.as_str() {
            "--bind" => args.bind = value()?,
            "--port" => {
                args.port = u16::try_from(number(value()?)?).map_err(|_| "--port: too big")?
            }
            "--max-clients" => args.config.max_clients = number(value()?)? as usize,
            "--max-bulk" => args.config.limits.max_bulk = number(value()?)? as usize,
            "--max-output" => args.config.max_output = number(value()?)? as usize,
            "--max-query" => args.config.max_query = number(value()?)? as usize,
            "--idle-timeout" => {
                let seconds = number(value()?)?;
                args.config.idle_timeout = (seconds > 0).then(|| Duration::from_secs(seconds));
            }
            "--idle-timeout-ms" => {
                let ms = number(value()?)?;
                args.config.idle_timeout = (ms > 0).then(|| Duration::from_millis(ms));
            }
            "--shutdown-deadline" => {
                args.config.shutdown_deadline = Duration::from_millis(number(value()?)?)
            }
            "--accept-retry-delay" => {
                args.config.accept_retry_delay = Duration::from_millis(number(value()?)?)
            }
            other => return Err(format!("unknown option {other}")),
        }
    }
    Ok(args)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("capstone-redis: {message}");
            return ExitCode::from(2);
        }
    };
    let outcome = run(async move {
        let listener = TcpListener::bind((args.bind.as_str(), args.port))?;
        let server = Server::new(args.config);
        for signal in [SIGINT, SIGTERM] {
            let server = Rc::clone(&server);
            add_signal_handler(signal, move || {
                eprintln!(
                    "capstone-redis: {} received, shutting down",
                    signal_name(signal)
                );
                server.stop();
            })
            .map_err(std::io::Error::other)?;
        }
        println!("listening on {}", listener.local_addr()?);
        let report = Rc::clone(&server).run(listener).await?;
        let stats = server.stats();
        println!("{report}");
        println!(
            "served {} connections; refused {} (max clients), {} malformed, {} idle, {} slow",
            stats.accepted, stats.refused, stats.malformed, stats.idle, stats.slow
        );
        std::io::Result::Ok(())
    });
    match outcome {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(error)) => {
            eprintln!("capstone-redis: {error}");
            ExitCode::FAILURE
        }
        Err(error) => {
            eprintln!("capstone-redis: the loop failed: {error}");
            ExitCode::FAILURE
        }
    }
}
