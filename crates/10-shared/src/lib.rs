//! Stage 10 of oneloop: shared state across awaits, task-locals, and the live task tree.
//!
//! (Being built: the primitives, the task-locals and the task tree land here.)
#![forbid(unsafe_code)]

// The live task tree: in-process views, and the socket that shows them outside.
mod introspect;
mod introspect_serve;
mod tree;
mod tree_walk;

pub use introspect::{
    CLIENT_TIMEOUT, IntrospectStats, Introspection, MAX_CLIENTS, MAX_REQUEST, MAX_SOCKET_PATH,
    enable_introspection, enable_introspection_in, query, query_path, socket_dir, socket_path,
};
pub use tree::{
    Awaited, STALLED_TREE, TaskInfo, TaskState, TreeItem, TreeLine, all_tasks, current_task,
    render_table, render_tree, snapshot, table_text, track, tree_text, walk,
};
