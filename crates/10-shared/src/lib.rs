//! Stage 10 of oneloop: shared state across awaits, task-locals, and the live task tree.
//!
//! (Being built: the primitives, the task-locals and the task tree land here.)
#![forbid(unsafe_code)]
