//! What one `GET`, `SET` or `INCR` costs the store: one hash of its key, and no clock read
//! unless the key has a deadline. A deadline that is replaced cancels its timer.
//!
//! The store's table counts the keys it hashed (`Store::key_hashes`); the loop runs on
//! a counting clock, so the clock reads are counted too. Both counts are exact.

use std::rc::Rc;
use std::time::Duration;

use capstone_redis::new_db;
use capstone_redis::store::{self, Condition};
use oneloop_core::{EventLoop, ThreadParker};
use oneloop_timers::{Clock, CountingClock, TimerDriver, VirtualClock};

/// Runs `body` on a loop with timers on a virtual clock whose reads are counted.
fn on_counting_clock(body: impl FnOnce(Rc<CountingClock<VirtualClock>>) + 'static) {
    let clock = Rc::new(CountingClock::new(VirtualClock::new()));
    let driver = TimerDriver::with_clock(ThreadParker, Rc::clone(&clock) as Rc<dyn Clock>);
    let mut event_loop = EventLoop::with_driver(driver);
    event_loop
        .run_until_complete(async move { body(clock) })
        .expect("the loop runs");
}

/// The hashes and the clock reads that `op` made.
fn cost(
    db: &capstone_redis::Db,
    clock: &CountingClock<VirtualClock>,
    op: impl FnOnce(),
) -> (u64, usize) {
    let hashes = db.borrow().key_hashes();
    let reads = clock.reads();
    op();
    (db.borrow().key_hashes() - hashes, clock.reads() - reads)
}

#[test]
fn set_get_and_incr_hash_the_key_once_and_read_no_clock_without_a_deadline() {
    on_counting_clock(|clock| {
        let db = new_db();
        // A new key into an empty table: no other key to move as it grows.
        let new = cost(&db, &clock, || {
            assert!(store::set(
                &db,
                b"key".to_vec(),
                b"1".to_vec(),
                None,
                Condition::Always
            ));
        });
        assert_eq!(new, (1, 0), "SET of a new key: (hashes, clock reads)");
        let overwrite = cost(&db, &clock, || {
            assert!(store::set(
                &db,
                b"key".to_vec(),
                b"2".to_vec(),
                None,
                Condition::Always
            ));
        });
        assert_eq!(
            overwrite,
            (1, 0),
            "SET of an existing key: (hashes, clock reads)"
        );
        let hit = cost(&db, &clock, || {
            assert_eq!(store::get(&db, b"key"), Some(b"2".to_vec()));
        });
        assert_eq!(hit, (1, 0), "GET of a key: (hashes, clock reads)");
        let miss = cost(&db, &clock, || assert_eq!(store::get(&db, b"none"), None));
        assert_eq!(miss, (1, 0), "GET of a missing key: (hashes, clock reads)");
        let refused = cost(&db, &clock, || {
            assert!(!store::set(
                &db,
                b"key".to_vec(),
                b"3".to_vec(),
                None,
                Condition::IfMissing
            ));
        });
        assert_eq!(
            refused,
            (1, 0),
            "SET NX of an existing key: (hashes, clock reads)"
        );
        store::set(&db, b"n".to_vec(), b"41".to_vec(), None, Condition::Always);
        let incr = cost(&db, &clock, || {
            assert_eq!(store::incr_by(&db, b"n", 1), Ok(42));
        });
        assert_eq!(
            incr,
            (1, 0),
            "INCR of an existing key: (hashes, clock reads)"
        );
    });
}

#[test]
fn a_key_with_a_deadline_is_still_hashed_once_and_reads_the_clock() {
    on_counting_clock(|clock| {
        let db = new_db();
        store::set(&db, b"key".to_vec(), b"1".to_vec(), None, Condition::Always);
        let ttl = Some(Duration::from_millis(100));
        let (hashes, reads) = cost(&db, &clock, || {
            assert!(store::set(
                &db,
                b"key".to_vec(),
                b"2".to_vec(),
                ttl,
                Condition::Always
            ));
        });
        assert_eq!(hashes, 1, "SET EX of an existing key hashes it once");
        assert!(reads >= 1, "its deadline needs the time");
        let (hashes, reads) = cost(&db, &clock, || {
            assert_eq!(store::get(&db, b"key"), Some(b"2".to_vec()));
        });
        assert_eq!(hashes, 1, "GET of a key with a deadline hashes it once");
        assert_eq!(reads, 1, "and reads the clock once, to compare");
        // Past the deadline (before its timer ran): the read misses, and the lazy
        // delete is a second look-up, on this path only.
        clock.block_for(Duration::from_millis(100));
        assert_eq!(store::get(&db, b"key"), None);
        assert_eq!(db.borrow().expired(), 1);
        assert!(db.borrow().is_empty());
    });
}

#[test]
fn a_replaced_deadline_cancels_its_timer_which_stays_in_the_heap_until_swept() {
    // A key's old timer could also be left to fire and find a later deadline; the store
    // cancels it instead, and the heap keeps it, counted, as stage 5's lazy cancel does.
    on_counting_clock(|_| {
        let timers = oneloop_timers::Timers::current().expect("a timer layer");
        let counts = || (timers.scheduled(), timers.cancelled());
        let db = new_db();
        let ttl = Some(Duration::from_millis(100));
        store::set(&db, b"a".to_vec(), b"1".to_vec(), ttl, Condition::Always);
        assert_eq!(counts(), (1, 0));
        store::set(&db, b"a".to_vec(), b"2".to_vec(), None, Condition::Always);
        assert_eq!(counts(), (1, 1), "overwriting cancels the old timer");
        store::set(&db, b"b".to_vec(), b"1".to_vec(), ttl, Condition::Always);
        assert!(store::expire(&db, b"b", Duration::from_millis(300)));
        assert_eq!(counts(), (3, 2), "a new deadline cancels the old timer");
    });
}
