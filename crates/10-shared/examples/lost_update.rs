//! The lost update: two workers increment a shared counter, each read and write
//! separated by one await. Run with `cargo run -p oneloop-shared --example lost_update`.

use oneloop_shared::lost_update;

fn main() {
    for (workers, rounds) in [(2, 100), (3, 100), (10, 10)] {
        for with_lock in [false, true] {
            let run = lost_update(workers, rounds, with_lock);
            println!(
                "{workers:>2} workers x {rounds:>3} rounds, {:<12} expected {:>4}, counted {:>4}, lost {:>4}, turns {:>4}",
                if with_lock {
                    "with a lock:"
                } else {
                    "no lock:"
                },
                run.expected,
                run.counted,
                run.lost(),
                run.turns,
            );
        }
    }
}
