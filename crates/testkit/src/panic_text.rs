//! The text of a caught panic, for tests that check what a panic says.

use std::any::Any;

/// The text of a panic's payload: `panic!` gives a `&str` or a `String`; anything else
/// is reported as having no text.
///
/// ```
/// let payload = std::panic::catch_unwind(|| panic!("polled after completion")).unwrap_err();
/// assert_eq!(oneloop_testkit::panic_text(payload.as_ref()), "polled after completion");
/// ```
pub fn panic_text(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|text| text.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(a panic with no text)".to_string())
}
