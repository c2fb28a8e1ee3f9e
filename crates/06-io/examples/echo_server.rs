//! An echo server: every line a client sends comes back.
//!
//! ```console
//! cargo run -p oneloop-io --example echo_server [port]
//! ```
//!
//! Binds 127.0.0.1 on `port` (0, the default, lets the kernel choose), prints the
//! address, and serves until interrupted. Try it with `nc 127.0.0.1 <port>`, or with
//! `cargo run -p oneloop-io --example echo_client 127.0.0.1:<port>`.
//!
//! Out of file descriptors (try `ulimit -n 32` first), it reports each failed accept on
//! stderr, goes on serving the clients it has, and accepts again a second later.

use std::env;
use std::process::ExitCode;

use oneloop_io::{TcpListener, echo_connection, new_event_loop, serve};

fn main() -> ExitCode {
    let port: u16 = match env::args().nth(1).map(|arg| arg.parse()) {
        None => 0,
        Some(Ok(port)) => port,
        Some(Err(error)) => {
            eprintln!("usage: echo_server [port] ({error})");
            return ExitCode::FAILURE;
        }
    };
    let listener = match TcpListener::bind(("127.0.0.1", port)) {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!("cannot bind 127.0.0.1:{port}: {error}");
            return ExitCode::FAILURE;
        }
    };
    let addr = listener
        .local_addr()
        .expect("a bound listener has an address");
    println!("listening on {addr}");
    let mut event_loop = new_event_loop().expect("epoll is available");
    let served = event_loop.run_until_complete(serve(listener, |stream, peer| async move {
        match echo_connection(stream).await {
            Ok(lines) => println!("{peer}: echoed {lines} lines, then end of file"),
            Err(error) => println!("{peer}: {error}"),
        }
    }));
    match served {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(error)) => {
            eprintln!("accept failed: {error}");
            ExitCode::FAILURE
        }
        Err(error) => {
            eprintln!("the loop failed: {error}");
            ExitCode::FAILURE
        }
    }
}
