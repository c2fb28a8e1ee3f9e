//! Echo clients: many connections on one loop, each sending lines and checking echoes.
//!
//! ```console
//! cargo run -p oneloop-io --example echo_client [addr] [connections] [messages]
//! ```
//!
//! With no address it starts its own echo server on the same loop (one thread serves
//! both sides). Prints what it measured: connections, lines, time, turns.

use std::env;
use std::io;
use std::net::SocketAddr;
use std::time::Instant;

use oneloop_core::spawn;
use oneloop_io::{TcpListener, echo_connection, new_event_loop, open_connection, serve};

async fn client(addr: SocketAddr, id: usize, messages: usize) -> io::Result<usize> {
    let (mut reader, mut writer) = open_connection(addr).await?;
    for message in 0..messages {
        let line = format!("client {id} message {message}\n");
        writer.write(line.as_bytes())?;
        writer.drain().await?;
        let back = reader.read_line().await.map_err(io::Error::other)?;
        if back.as_deref() != Some(line.as_str()) {
            return Err(io::Error::other(format!(
                "sent {line:?}, got back {back:?}"
            )));
        }
    }
    writer.shutdown().await?;
    Ok(messages)
}

fn main() -> io::Result<()> {
    let mut args = env::args().skip(1);
    let target: Option<SocketAddr> = match args.next() {
        Some(addr) => Some(addr.parse().map_err(io::Error::other)?),
        None => None,
    };
    let connections: usize = args
        .next()
        .map_or(Ok(100), |a| a.parse())
        .map_err(io::Error::other)?;
    let messages: usize = args
        .next()
        .map_or(Ok(100), |a| a.parse())
        .map_err(io::Error::other)?;
    let mut event_loop = new_event_loop()?;
    let started = Instant::now();
    let turns_before = event_loop.turn();
    let lines = event_loop
        .run_until_complete(async move {
            let addr = match target {
                Some(addr) => addr,
                None => {
                    let listener = TcpListener::bind("127.0.0.1:0")?;
                    let addr = listener.local_addr()?;
                    drop(spawn(serve(listener, |stream, _| async move {
                        let _ = echo_connection(stream).await;
                    })));
                    addr
                }
            };
            let clients: Vec<_> = (0..connections)
                .map(|id| spawn(client(addr, id, messages)))
                .collect();
            let mut lines = 0;
            for handle in clients {
                lines += handle.await.map_err(io::Error::other)??;
            }
            io::Result::Ok(lines)
        })
        .map_err(io::Error::other)??;
    let elapsed = started.elapsed();
    let turns = event_loop.turn() - turns_before;
    let server = if target.is_some() {
        "a remote server"
    } else {
        "a server on the same loop"
    };
    println!("{connections} connections to {server}, {lines} lines echoed and checked");
    println!(
        "{elapsed:.2?} on one thread, {turns} turns ({:.1} lines per turn)",
        lines as f64 / turns as f64
    );
    Ok(())
}
