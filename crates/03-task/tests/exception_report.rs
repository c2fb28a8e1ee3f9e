//! How a report reads on the default handler's line.

use oneloop_task::{ExceptionReport, Label};

#[test]
fn a_report_shows_its_panic_after_a_colon_and_a_report_with_none_ends_at_its_label() {
    let mut report = ExceptionReport {
        message: "callback panicked".to_owned(),
        label: Label::from("tick"),
        panic: "boom".to_owned(),
    };
    assert_eq!(report.to_string(), "callback panicked (tick): boom");
    report.panic.clear();
    assert_eq!(report.to_string(), "callback panicked (tick)");
}
