//! A panic payload is the panicking code's value, and its drop may panic too. The loop
//! reads every caught payload through stage 3's one `panic_message`, which drops it
//! safely: such a callback is reported like any other, and the loop goes on.

use std::cell::RefCell;
use std::panic;
use std::rc::Rc;

use oneloop_core::hooks::{CALLBACK_PANICKED, PANIC_WITHOUT_MESSAGE};
use oneloop_core::{EventLoop, ExceptionReport};
use oneloop_testkit::watchdog_default;

/// A payload whose drop panics.
struct PanicsWhenDropped;

impl Drop for PanicsWhenDropped {
    fn drop(&mut self) {
        panic!("the payload's drop panicked");
    }
}

#[test]
fn a_callback_whose_panic_payload_panics_when_dropped_is_reported_and_the_loop_goes_on() {
    watchdog_default(|| {
        let mut event_loop = EventLoop::new();
        let reports = Rc::new(RefCell::new(Vec::<ExceptionReport>::new()));
        let seen = Rc::clone(&reports);
        event_loop.set_exception_handler(move |report| seen.borrow_mut().push(report.clone()));
        let after = Rc::new(RefCell::new(false));
        let ran = Rc::clone(&after);
        event_loop.call_soon(|| panic::panic_any(PanicsWhenDropped));
        event_loop.call_soon(move || *ran.borrow_mut() = true);
        event_loop.run_once().expect("the turn finishes");
        assert!(*after.borrow(), "the next callback of the batch ran");
        let reports = reports.borrow();
        assert_eq!(reports.len(), 1);
        assert_eq!(reports[0].message, CALLBACK_PANICKED);
        assert_eq!(reports[0].panic, PANIC_WITHOUT_MESSAGE);
    });
}
