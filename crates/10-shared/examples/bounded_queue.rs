//! A producer and a consumer on a queue of `maxsize` 1: the turn each put and get
//! finishes in. Run with `cargo run -p oneloop-shared --example bounded_queue`.

use std::rc::Rc;

use oneloop_cancel::{Error, spawn_named};
use oneloop_shared::Queue;

fn turn() -> u64 {
    oneloop_core::hooks::with_current(|core| core.turn()).expect("a loop runs")
}

fn main() {
    let mut event_loop = oneloop_timers::virtual_time_loop();
    event_loop
        .run_until_complete(async {
            let main = spawn_named("main", async {
                let queue = Rc::new(Queue::new(1));
                let q = Rc::clone(&queue);
                let producer = spawn_named("producer", async move {
                    for item in 0..3 {
                        q.put(item).await?;
                        println!("turn {}: put {item} (queue holds {})", turn(), q.len());
                    }
                    Ok::<(), Error>(())
                });
                let q = Rc::clone(&queue);
                let consumer = spawn_named("consumer", async move {
                    for _ in 0..3 {
                        let item = q.get().await?;
                        println!("turn {}: got {item}", turn());
                    }
                    Ok::<(), Error>(())
                });
                producer.join().await?;
                consumer.join().await
            });
            main.join().await
        })
        .expect("the loop runs")
        .expect("main ends well");
}
