//! A lock's hand-off: main holds a lock, three tasks queue for it, and each takes it
//! in turn. Run with `cargo run -p oneloop-shared --example lock_handoff`.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use oneloop_cancel::{Error, sleep, spawn_named};
use oneloop_shared::Lock;

fn turn() -> u64 {
    oneloop_core::hooks::with_current(|core| core.turn()).expect("a loop runs")
}

fn main() {
    let log = Rc::new(RefCell::new(Vec::new()));
    let say = {
        let log = Rc::clone(&log);
        move |what: String| log.borrow_mut().push((turn(), what))
    };
    let mut event_loop = oneloop_timers::virtual_time_loop();
    let say_main = say.clone();
    event_loop
        .run_until_complete(async move {
            let main = spawn_named("main", async move {
                let lock = Rc::new(Lock::new());
                lock.acquire().await?;
                let tasks: Vec<_> = ["a", "b", "c"]
                    .into_iter()
                    .map(|name| {
                        let (lock, say) = (Rc::clone(&lock), say_main.clone());
                        spawn_named(name, async move {
                            say(format!("{name} queues"));
                            lock.acquire().await?;
                            say(format!("{name} takes the lock"));
                            sleep(Duration::ZERO).await?;
                            say(format!("{name} releases it"));
                            lock.release()
                        })
                    })
                    .collect();
                sleep(Duration::ZERO).await?;
                say_main(format!("main releases it ({} waiting)", lock.waiters()));
                lock.release()?;
                lock.acquire().await?;
                say_main("main takes it again, last".to_owned());
                lock.release()?;
                for task in &tasks {
                    task.join().await?;
                }
                Ok::<(), Error>(())
            });
            main.join().await
        })
        .expect("the loop runs")
        .expect("main ends well");
    for (turn, what) in log.borrow().iter() {
        println!("turn {turn:>2}: {what}");
    }
}
