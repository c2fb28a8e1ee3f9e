//! A small program to look at from outside: a group of workers, one sleeping in
//! rounds, one reading a socket nobody writes to, one joining the first. It enables
//! introspection, prints the command that shows its tree, and ends after a minute
//! (or `--seconds N`).
//! The times in its output are sample output: they depend on when it runs.
//!
//! It also prints its own tree twice, from inside: once just after the workers
//! started, and once after the first round, when the sleeper's deadline moved on.
//!
//! ```text
//! cargo run -p oneloop-shared --example tree_demo
//! ```

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::time::Duration;

use oneloop_cancel::{Error, cancellable, sleep, task_group, yield_now};
use oneloop_shared::{enable_introspection, tree_text};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let seconds: u64 = match std::env::args().skip_while(|a| a != "--seconds").nth(1) {
        Some(n) => n.parse()?,
        None => 60,
    };
    let mut event_loop = oneloop_offload::new_event_loop()?;
    let introspection = enable_introspection(&event_loop)?;
    let (mine, _peer) = UnixStream::pair()?;
    mine.set_nonblocking(true)?;
    println!("listening at {}", introspection.path().display());
    println!(
        "try: cargo run -p oneloop-shared --example ps -- {}",
        std::process::id()
    );
    let main = async move {
        task_group(|group| async move {
            let sleeper = group.spawn("sleeper", async move {
                for _ in 0..seconds {
                    sleep(Duration::from_secs(1)).await?;
                }
                Ok(())
            })?;
            let reader = group.spawn("reader", async move {
                cancellable(oneloop_io::readable(&mine)).await?.ok();
                Ok(())
            })?;
            group.spawn("joiner", async move { sleeper.join().await })?;
            yield_now().await?;
            yield_now().await?;
            println!("\nthe tree, just after the start:\n{}", tree_text());
            sleep(Duration::from_millis(1500)).await?;
            println!("the tree, 1.5 s later:\n{}", tree_text());
            std::io::stdout().flush().ok();
            // The sleeper and the joiner end with the last round; the reader is told to.
            sleep(Duration::from_secs(seconds)).await?;
            reader.cancel(Some("time is up"));
            Ok::<(), Error>(())
        })
        .await
    };
    let (driven, _handle) = oneloop_cancel::task_future("main", main);
    event_loop.run_until_complete(driven)?;
    Ok(())
}
