//! The offload layer attaches itself when its driver is installed, so a loop built by
//! hand (not through `new_event_loop` or `run`) is whole before its first turn.

use oneloop_core::EventLoop;
use oneloop_offload::{Offload, new_driver};
use oneloop_testkit::watchdog_default;

#[test]
fn a_loop_built_by_hand_takes_wakes_from_other_threads_before_its_first_turn() {
    watchdog_default(|| {
        let event_loop = EventLoop::with_driver(new_driver().expect("epoll and eventfd"));
        assert!(
            event_loop.scheduler().has_remote(),
            "wakes from other threads go to the inbox from the start"
        );
    });
}

#[test]
fn a_loop_built_by_hand_and_closed_unrun_shuts_its_default_pool_down() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::with_driver(new_driver().expect("epoll and eventfd"));
        let pool = Offload::of(event_loop.core())
            .expect("the offload layer")
            .default_pool()
            .expect("the loop is open");
        assert!(pool.is_open());
        event_loop.close();
        assert!(
            !pool.is_open(),
            "closing the loop shut the default pool down"
        );
    });
}
