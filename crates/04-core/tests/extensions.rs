//! The extensions: a short list of `(TypeId, value)` pairs, found by type.
//!
//! A loop holds a handful of layers, and they are looked up often (every store command
//! of the capstone asks for the timer layer). A list scanned by `TypeId` is the whole
//! structure: two vectors behind their `RefCell`s, with no hasher state beside them.

use std::mem::size_of;
use std::rc::Rc;

use oneloop_core::hooks::Extensions;

struct Timers(u32);
struct Io(&'static str);
struct Pool;

#[test]
fn extensions_are_two_lists_and_no_hasher() {
    // Each list is a `RefCell<Vec<_>>`: a borrow flag and three words. A hash map would
    // add its table's words and a hasher's keys on top of its borrow flag.
    let list = size_of::<std::cell::RefCell<Vec<usize>>>();
    assert!(
        size_of::<Extensions>() <= 2 * list,
        "Extensions takes {} bytes: more than two lists of {list}",
        size_of::<Extensions>()
    );
}

#[test]
fn each_type_finds_its_own_value_and_insert_replaces() {
    let extensions = Extensions::new();
    assert!(extensions.is_empty());
    assert!(extensions.get::<Timers>().is_none());
    extensions.insert(Rc::new(Timers(1)));
    extensions.insert(Rc::new(Io("epoll")));
    extensions.insert(Rc::new(Pool));
    assert_eq!(extensions.len(), 3);
    assert_eq!(extensions.get::<Timers>().map(|t| t.0), Some(1));
    assert_eq!(extensions.get::<Io>().map(|io| io.0), Some("epoll"));
    assert!(extensions.contains::<Pool>());
    assert!(!extensions.contains::<u8>());

    // A second value of a type replaces the first, which is dropped.
    let first = extensions.get::<Timers>().expect("installed");
    extensions.insert(Rc::new(Timers(2)));
    assert_eq!(extensions.len(), 3);
    assert_eq!(extensions.get::<Timers>().map(|t| t.0), Some(2));
    assert_eq!(Rc::strong_count(&first), 1, "the replaced value is let go");
}
