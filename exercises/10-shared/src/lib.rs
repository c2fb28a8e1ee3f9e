//! Stage 10 exercises: shared state across awaits, and the live task tree.
//!
//! This crate is the reference crate `oneloop-shared` with mechanisms cut out. The
//! file you edit here is:
//!
//! - `src/tree_walk.rs` — exercise 4: the tree walk from join relations (chapter
//!   10.1).
//!
//! Every other module comes from `crates/10-shared/src`, unchanged. Do not edit this
//! file. Test your work with `cargo course test 10`, or `cargo test -p ex10-shared`.
#![forbid(unsafe_code)]

// The live task tree, and the socket that shows it outside the process.
#[path = "../../../crates/10-shared/src/introspect.rs"]
mod introspect;
#[path = "../../../crates/10-shared/src/introspect_serve.rs"]
mod introspect_serve;
#[path = "../../../crates/10-shared/src/tree.rs"]
mod tree;

#[cfg(not(feature = "solution"))]
mod tree_walk;
#[cfg(feature = "solution")]
#[path = "../../../crates/10-shared/src/tree_walk.rs"]
mod tree_walk;

pub use introspect::{
    CLIENT_TIMEOUT, IntrospectStats, Introspection, MAX_CLIENTS, MAX_REQUEST, MAX_SOCKET_PATH,
    enable_introspection, enable_introspection_in, query, query_path, socket_dir, socket_path,
};
pub use tree::{
    Awaited, STALLED_TREE, TaskInfo, TaskState, TreeItem, TreeLine, all_tasks, current_task,
    render_table, render_tree, snapshot, table_text, track, tree_text, walk,
};
