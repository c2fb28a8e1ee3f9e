//! Expiry on the loop's timer heap, in virtual time: whole timelines, exactly.

use std::time::Duration;

use ex11_capstone::new_db;
use ex11_capstone::store::{self, Condition, Ttl};
use oneloop_timers::{block_for, sleep, virtual_time_loop};

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// The running loop's timers not cancelled yet: one per key with a deadline.
fn live_timers() -> usize {
    oneloop_timers::Timers::current()
        .expect("a timer loop")
        .live()
}

#[test]
fn ex2_a_timer_deletes_the_key_at_its_deadline_with_no_read() {
    let mut event_loop = virtual_time_loop();
    event_loop
        .run_until_complete(async {
            let db = new_db();
            store::set(&db, b"k", b"v".to_vec(), Some(ms(100)), Condition::Always);
            store::set(&db, b"forever", b"v".to_vec(), None, Condition::Always);
            sleep(ms(99)).await;
            assert_eq!(db.borrow().len(), 2);
            sleep(ms(2)).await;
            // Nobody read `k`: its timer deleted it.
            assert_eq!(db.borrow().len(), 1);
            assert_eq!(db.borrow().expired(), 1);
            assert_eq!(store::ttl(&db, b"forever"), Ttl::Forever);
        })
        .unwrap();
}

#[test]
fn ex2_a_read_past_the_deadline_misses_even_before_the_timer_ran() {
    let mut event_loop = virtual_time_loop();
    event_loop
        .run_until_complete(async {
            let db = new_db();
            store::set(&db, b"k", b"v".to_vec(), Some(ms(100)), Condition::Always);
            assert_eq!(store::ttl(&db, b"k"), Ttl::Left(ms(100)));
            // The clock passes the deadline inside this step: no turn, no timer.
            block_for(ms(150));
            assert_eq!(db.borrow().len(), 1);
            assert_eq!(store::get(&db, b"k"), None);
            assert_eq!(db.borrow().len(), 0);
            assert_eq!(store::ttl(&db, b"k"), Ttl::Missing);
        })
        .unwrap();
}

#[test]
fn ex2_overwriting_or_re_expiring_a_key_replaces_its_deadline() {
    let mut event_loop = virtual_time_loop();
    event_loop
        .run_until_complete(async {
            let db = new_db();
            // Overwritten without a time to live: the old timer must not delete it.
            store::set(&db, b"a", b"1".to_vec(), Some(ms(100)), Condition::Always);
            store::set(&db, b"a", b"2".to_vec(), None, Condition::Always);
            // Given a longer deadline: the first timer must not delete it.
            store::set(&db, b"b", b"1".to_vec(), Some(ms(100)), Condition::Always);
            assert!(store::expire(&db, b"b", ms(300)));
            // INCR keeps the deadline, as in Redis.
            store::set(&db, b"n", b"1".to_vec(), Some(ms(200)), Condition::Always);
            assert_eq!(store::incr_by(&db, b"n", 1), Ok(2));
            sleep(ms(150)).await;
            assert_eq!(store::get(&db, b"a"), Some(b"2".to_vec()));
            assert_eq!(store::ttl(&db, b"b"), Ttl::Left(ms(150)));
            assert_eq!(store::ttl(&db, b"n"), Ttl::Left(ms(50)));
            sleep(ms(200)).await;
            assert_eq!(db.borrow().len(), 1);
            assert_eq!(db.borrow().expired(), 2);
            // A zero time to live deletes at once.
            assert!(store::expire(&db, b"a", Duration::ZERO));
            assert_eq!(db.borrow().len(), 0);
        })
        .unwrap();
}

#[test]
fn ex2_a_time_to_live_is_counted_in_whole_milliseconds() {
    let mut event_loop = virtual_time_loop();
    event_loop
        .run_until_complete(async {
            let db = new_db();
            // Set at 0.3 ms: the deadline falls in millisecond 100.
            block_for(Duration::from_micros(300));
            store::set(&db, b"k", b"v".to_vec(), Some(ms(100)), Condition::Always);
            // Still millisecond 0: 100 left, as Redis counts (not 99.5).
            block_for(Duration::from_micros(500));
            assert_eq!(store::ttl(&db, b"k"), Ttl::Left(ms(100)));
            // Millisecond 1: 99 left.
            block_for(Duration::from_micros(400));
            assert_eq!(store::ttl(&db, b"k"), Ttl::Left(ms(99)));
        })
        .unwrap();
}

#[test]
fn ex2_a_read_at_the_deadline_itself_misses() {
    let mut event_loop = virtual_time_loop();
    event_loop
        .run_until_complete(async {
            let db = new_db();
            store::set(&db, b"k", b"v".to_vec(), Some(ms(100)), Condition::Always);
            block_for(ms(99));
            assert_eq!(store::get(&db, b"k"), Some(b"v".to_vec()));
            // A deadline is the first instant the key is gone, not the last it lives.
            block_for(ms(1));
            assert_eq!(store::get(&db, b"k"), None);
            assert_eq!(db.borrow().expired(), 1);
            // Its timer, when it runs, finds nothing left to delete or count.
            sleep(ms(10)).await;
            assert_eq!(db.borrow().expired(), 1);
        })
        .unwrap();
}

#[test]
fn ex2_a_pending_expiry_timer_does_not_keep_the_store_alive() {
    let mut event_loop = virtual_time_loop();
    event_loop
        .run_until_complete(async {
            let db = new_db();
            store::set(&db, b"k", b"v".to_vec(), Some(ms(100)), Condition::Always);
            let weak = std::rc::Rc::downgrade(&db);
            drop(db);
            assert!(
                weak.upgrade().is_none(),
                "the timer holds the store strongly"
            );
            // The timer fires later and finds no store: nothing happens.
            sleep(ms(200)).await;
        })
        .unwrap();
}

#[test]
fn ex2_a_key_read_past_its_deadline_then_set_again_survives_the_old_timer() {
    let mut event_loop = virtual_time_loop();
    event_loop
        .run_until_complete(async {
            let db = new_db();
            store::set(&db, b"k", b"old".to_vec(), Some(ms(100)), Condition::Always);
            // Past the deadline before the timer ran: the read deletes the key, and a
            // new value with no deadline takes its place in the same step.
            block_for(ms(150));
            assert_eq!(store::get(&db, b"k"), None);
            store::set(&db, b"k", b"new".to_vec(), None, Condition::Always);
            // The old key's timer must not delete the new one.
            sleep(ms(10)).await;
            assert_eq!(store::get(&db, b"k"), Some(b"new".to_vec()));
            assert_eq!(db.borrow().expired(), 1);
        })
        .unwrap();
}

/// The wrong mechanism "a lazy delete leaves the timer to fire on nothing": the read
/// that finds the key past its deadline deletes it and cancels its timer, so the heap
/// holds no timer for a key that is gone.
#[test]
fn ex2_a_read_that_finds_the_key_expired_cancels_its_timer() {
    let mut event_loop = virtual_time_loop();
    event_loop
        .run_until_complete(async {
            let db = new_db();
            store::set(&db, b"k", b"v".to_vec(), Some(ms(100)), Condition::Always);
            assert_eq!(live_timers(), 1, "the key's timer is armed");
            block_for(ms(150));
            assert_eq!(store::get(&db, b"k"), None);
            assert_eq!(live_timers(), 0, "the expired key's timer is still armed");
            assert_eq!(db.borrow().expired(), 1);
        })
        .unwrap();
}

/// The wrong mechanism "leave the old timer, it checks the deadline anyway":
/// overwriting a key, giving it a new deadline and deleting it each cancel the timer
/// of the deadline it had, so the heap holds one live timer per key with a deadline.
#[test]
fn ex2_overwrite_expire_and_delete_cancel_the_old_timer() {
    let mut event_loop = virtual_time_loop();
    event_loop
        .run_until_complete(async {
            let db = new_db();
            store::set(&db, b"k", b"1".to_vec(), Some(ms(100)), Condition::Always);
            store::set(&db, b"k", b"2".to_vec(), Some(ms(200)), Condition::Always);
            assert_eq!(
                live_timers(),
                1,
                "a SET left the old deadline's timer armed"
            );
            assert!(store::expire(&db, b"k", ms(300)));
            assert_eq!(
                live_timers(),
                1,
                "an EXPIRE left the old deadline's timer armed"
            );
            assert!(store::del(&db, b"k"));
            assert_eq!(live_timers(), 0, "a DEL left the key's timer armed");
        })
        .unwrap();
}

/// The wrong mechanism "a SET looks only at whether the key is in the table": an entry
/// past its deadline counts as missing, for `NX` and `XX` alike, and the SET that
/// finds it so counts it as expired, as a read would.
#[test]
fn ex2_a_set_finds_a_key_past_its_deadline_missing() {
    let mut event_loop = virtual_time_loop();
    event_loop
        .run_until_complete(async {
            let db = new_db();
            store::set(&db, b"x", b"old".to_vec(), Some(ms(100)), Condition::Always);
            store::set(&db, b"n", b"old".to_vec(), Some(ms(100)), Condition::Always);
            // Past both deadlines, before their timers ran.
            block_for(ms(150));
            assert!(!store::set(
                &db,
                b"x",
                b"new".to_vec(),
                None,
                Condition::IfExists
            ));
            assert!(store::set(
                &db,
                b"n",
                b"new".to_vec(),
                None,
                Condition::IfMissing
            ));
            assert_eq!(db.borrow().expired(), 2);
            assert_eq!(store::get(&db, b"x"), None);
            assert_eq!(store::get(&db, b"n"), Some(b"new".to_vec()));
        })
        .unwrap();
}

/// The wrong mechanism "the deadline is a delay": `schedule` is given a time on the
/// loop's clock, not a time from now. A key set once the clock has moved on is deleted
/// by its timer at its own deadline, with no read.
#[test]
fn ex2_a_key_set_late_in_the_loops_life_is_deleted_at_its_own_deadline() {
    let mut event_loop = virtual_time_loop();
    event_loop
        .run_until_complete(async {
            let db = new_db();
            sleep(ms(1000)).await;
            store::set(&db, b"k", b"v".to_vec(), Some(ms(100)), Condition::Always);
            sleep(ms(150)).await;
            assert_eq!(db.borrow().len(), 0, "the timer did not run at 1100 ms");
            assert_eq!(db.borrow().expired(), 1);
        })
        .unwrap();
}

/// The timer is set for the deadline itself, not a moment after: a sleep to the same
/// instant, begun after the key was set, wakes to find the key already deleted (timers
/// due at the same time fire in the order they were scheduled).
#[test]
fn ex2_the_timer_deletes_the_key_at_the_deadline_itself() {
    let mut event_loop = virtual_time_loop();
    event_loop
        .run_until_complete(async {
            let db = new_db();
            store::set(&db, b"k", b"v".to_vec(), Some(ms(100)), Condition::Always);
            sleep(ms(100)).await;
            assert_eq!(db.borrow().len(), 0, "the key outlived its deadline");
            assert_eq!(db.borrow().expired(), 1);
        })
        .unwrap();
}

/// `expired` counts keys deleted because their deadline passed, and nothing else: a
/// look-up of a key that is not there, or of one still before its deadline, counts
/// nothing.
#[test]
fn ex2_a_look_up_of_a_missing_or_live_key_counts_no_expiry() {
    let mut event_loop = virtual_time_loop();
    event_loop
        .run_until_complete(async {
            let db = new_db();
            assert!(!store::exists(&db, b"nope"));
            assert_eq!(store::ttl(&db, b"nope"), Ttl::Missing);
            assert!(!store::del(&db, b"nope"));
            assert!(!store::expire(&db, b"nope", ms(100)));
            store::set(&db, b"k", b"v".to_vec(), Some(ms(100)), Condition::Always);
            assert!(store::exists(&db, b"k"));
            assert_eq!(store::ttl(&db, b"k"), Ttl::Left(ms(100)));
            assert_eq!(db.borrow().expired(), 0);
        })
        .unwrap();
}
