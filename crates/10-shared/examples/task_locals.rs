//! Task-locals copied at the spawn: the parent sets a request id, spawns a child,
//! changes the id; the child sets its own. Run with
//! `cargo run -p oneloop-shared --example task_locals`.

use std::rc::Rc;
use std::time::Duration;

use oneloop_cancel::{Error, sleep};
use oneloop_shared::{TaskLocal, spawn_named};

fn main() {
    let request = Rc::new(TaskLocal::with_default("request", "none"));
    let mut event_loop = oneloop_timers::virtual_time_loop();
    event_loop
        .run_until_complete(async move {
            let main = spawn_named("main", async move {
                request.set("req-1");
                let r = Rc::clone(&request);
                let child = spawn_named("child", async move {
                    println!("child sees  {:?}", r.get());
                    r.set("req-1/child");
                    sleep(Duration::ZERO).await?;
                    println!("child still {:?}", r.get());
                    Ok::<(), Error>(())
                });
                request.set("req-2");
                println!("parent set  {:?} after the spawn", request.get());
                child.join().await?;
                println!("parent sees {:?}", request.get());
                Ok::<(), Error>(())
            });
            main.join().await
        })
        .expect("the loop runs")
        .expect("main ends well");
}
