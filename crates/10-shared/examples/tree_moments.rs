//! The figure of chapter 10's task tree page: one program's tree at two moments, in
//! virtual time (so every run prints the same).
//!
//! A task `server` runs a group of two handlers and joins a `flusher`. At t = 0 s both
//! handlers sleep; at t = 1.5 s the first handler finished, the second awaits a
//! `lookup` it spawned, and `flusher` sleeps in its second round.
//!
//! ```text
//! cargo run -p oneloop-shared --example tree_moments > book/src/ch10-shared/tree-moments.txt
//! ```

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use oneloop_cancel::{sleep, spawn_named, task_group};
use oneloop_shared::{track, tree_text};

/// Runs the program and returns the figure's text.
pub fn figure() -> String {
    let mut event_loop = oneloop_timers::virtual_time_loop();
    track(&event_loop);
    let seen = Rc::new(RefCell::new(String::new()));
    let out = Rc::clone(&seen);
    let main = async move {
        let flusher = spawn_named("flusher", async {
            for _ in 0..3 {
                sleep(Duration::from_secs(1)).await?;
            }
            Ok(())
        });
        let watcher_out = Rc::clone(&out);
        let watcher = spawn_named("watcher", async move {
            for (at, wait) in [(0.0, 0), (1.5, 1500)] {
                sleep(Duration::from_millis(wait)).await?;
                let text = format!("at t = {at:.1} s\n{}\n", tree_text());
                watcher_out.borrow_mut().push_str(&text);
            }
            Ok(())
        });
        task_group(|group| async move {
            group.spawn("handler-1", async {
                sleep(Duration::from_secs(1)).await?;
                Ok(())
            })?;
            group.spawn("handler-2", async {
                sleep(Duration::from_secs(1)).await?;
                let lookup = spawn_named("lookup", async {
                    sleep(Duration::from_secs(2)).await?;
                    Ok(())
                });
                lookup.join().await
            })?;
            flusher.join().await
        })
        .await?;
        watcher.join().await
    };
    let (driven, handle) = oneloop_cancel::task_future("server", main);
    event_loop
        .run_until_complete(driven)
        .expect("the program runs");
    handle
        .try_result()
        .expect("finished")
        .expect("no task failed");
    let figure = seen.borrow().trim_end().to_owned();
    figure + "\n"
}

// The figure's test takes this file as a module, where `main` goes unused.
#[allow(dead_code)]
fn main() {
    print!("{}", figure());
}
