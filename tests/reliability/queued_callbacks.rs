//! A reader whose handle is already queued for this turn, replaced or removed before
//! its turn comes.
//!
//! `add_reader` over an existing reader, and `remove_reader`, must cancel the handle the
//! old reader already has on the ready queue: otherwise the old callback runs once
//! more, in the very turn it was replaced in. Each test queues a callback before the
//! park, so that it runs first in the turn whose park queues the old reader, and checks
//! there that the old reader's handle really is queued behind it.

use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;

use oneloop_io::{Io, TcpStream, new_event_loop};
use oneloop_testkit::watchdog_default;

/// The labels on the running loop's ready queue.
fn queued() -> Vec<String> {
    oneloop_core::hooks::with_current(|core| core.ready().labels()).expect("inside a turn")
}

type Log = Rc<RefCell<Vec<String>>>;

/// A reader callback that reads what is there and logs `name` with the bytes.
fn logging_reader(name: &'static str, stream: &Rc<TcpStream>, log: &Log) -> impl Fn() + 'static {
    let (stream, log) = (Rc::clone(stream), Rc::clone(log));
    move || {
        let mut buf = [0; 16];
        let n = stream.try_read(&mut buf).unwrap_or(0);
        log.borrow_mut()
            .push(format!("{name}: {}", String::from_utf8_lossy(&buf[..n])));
    }
}

#[test]
fn a_reader_replaced_while_its_handle_is_queued_does_not_run_and_the_new_one_does() {
    let log = watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let io = Io::of(&event_loop).unwrap();
        let (mut client, server) = crate::loopback_pair();
        let server = Rc::new(server);
        let log: Log = Rc::default();
        io.add_reader_named(&*server, "old", logging_reader("old", &server, &log))
            .unwrap();
        client.write_all(b"!").unwrap();
        // Queued before the park: it runs first in the turn whose park queues "old".
        let (replacing, seen, target) = (Rc::clone(&io), Rc::clone(&log), Rc::clone(&server));
        let new = logging_reader("new", &server, &log);
        event_loop.call_soon_named("replace", move || {
            seen.borrow_mut().push(format!("queued: {:?}", queued()));
            replacing
                .add_reader_named(&*target, "new", new)
                .expect("replaced");
        });
        event_loop.run_once().unwrap();
        // The first byte is still unread, and a second one comes: the new reader gets
        // both in the next turn (an old reader that ran would have taken the first).
        client.write_all(b"?").unwrap();
        event_loop.run_once().unwrap();
        assert!(io.remove_reader(&*server));
        assert_eq!(io.registrations(), 0);
        log.take()
    });
    assert_eq!(log, ["queued: [\"old\"]", "new: !?"]);
}

#[test]
fn a_reader_removed_while_its_handle_is_queued_does_not_run() {
    let (log, removed) = watchdog_default(|| {
        let mut event_loop = new_event_loop().unwrap();
        let io = Io::of(&event_loop).unwrap();
        let (mut client, server) = crate::loopback_pair();
        let server = Rc::new(server);
        let log: Log = Rc::default();
        io.add_reader_named(&*server, "old", logging_reader("old", &server, &log))
            .unwrap();
        client.write_all(b"!").unwrap();
        let removed = Rc::new(RefCell::new(None));
        let (removing, seen, target, answer) = (
            Rc::clone(&io),
            Rc::clone(&log),
            Rc::clone(&server),
            Rc::clone(&removed),
        );
        event_loop.call_soon_named("remove", move || {
            seen.borrow_mut().push(format!("queued: {:?}", queued()));
            *answer.borrow_mut() = Some(removing.remove_reader(&*target));
        });
        event_loop.run_once().unwrap();
        assert_eq!(io.registrations(), 0);
        let removed = removed.take();
        (log.take(), removed)
    });
    assert_eq!(removed, Some(true), "a reader was set");
    assert_eq!(log, ["queued: [\"old\"]"], "the removed reader never ran");
}
