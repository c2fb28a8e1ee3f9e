//! The tests of this crate, in one binary. The files beside this one are its modules,
//! each at its own path; a file's tests are named `file::test`
//! (`cargo test -p oneloop-task --test suite file::` runs one file).
//! `#[path]` keeps a file's own `mod` lines resolving as when it was a binary of its
//! own. The helpers in `common/` are one module of the binary, which the files share
//! (`use crate::common::…`).

mod common;

#[path = "cell_attacks.rs"]
mod cell_attacks;
#[path = "done_callbacks.rs"]
mod done_callbacks;
#[path = "exception_report.rs"]
mod exception_report;
#[path = "hostile.rs"]
mod hostile;
#[path = "task_cell.rs"]
mod task_cell;
#[path = "task_cost.rs"]
mod task_cost;
#[path = "waker_over_cell.rs"]
mod waker_over_cell;
