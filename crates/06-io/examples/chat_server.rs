//! A chat server: each line one client sends reaches every other client.
//!
//! ```console
//! cargo run -p oneloop-io --example chat_server [port]
//! ```
//!
//! Binds 127.0.0.1 on `port` (0 by default), prints the address, and serves until
//! interrupted. Connect two or more `nc 127.0.0.1 <port>` and type.
//!
//! A member that stops reading is disconnected once 1 MiB of lines waits for it
//! (`MEMBER_QUEUE_LIMIT`); the disconnect is reported on stderr.

use std::env;
use std::io;

use oneloop_io::{TcpListener, new_event_loop, serve_chat};

fn main() -> io::Result<()> {
    let port: u16 = match env::args().nth(1) {
        Some(arg) => arg.parse().map_err(io::Error::other)?,
        None => 0,
    };
    let listener = TcpListener::bind(("127.0.0.1", port))?;
    println!("chat room on {}", listener.local_addr()?);
    let mut event_loop = new_event_loop()?;
    event_loop
        .run_until_complete(serve_chat(listener))
        .map_err(io::Error::other)?
}
