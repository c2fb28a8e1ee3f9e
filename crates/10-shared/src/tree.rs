//! The live task tree: every task of the loop, what it waits on, and who awaits it.
//!
//! Nothing here is kept up to date by the loop. A view is built when asked, from
//! relations the runtime holds anyway: stage 9's list of tasks and its join, gather,
//! shield and group links (who awaits whom), the I/O table's parked wakers (which
//! task waits on which socket), and the notes leaf futures leave through the core's
//! [`note_wait`](oneloop_core::hooks::note_wait) hook once [`track`] installed a listener
//! (a sleep says until when).
//!
//! [`snapshot`] reads it all into plain [`TaskInfo`] values; [`walk`] turns them into
//! the lines of a tree, as `python -m asyncio pstree` prints one (3.14); [`render_tree`]
//! and [`render_table`] make text of them (the table is `python -m asyncio ps`).

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::fmt::Write as _;
use std::rc::Rc;

use oneloop_cancel::{TaskRef, current};
use oneloop_core::hooks::{Diagnostics, with_current};
use oneloop_core::{Core, ExceptionReport, Label};
use oneloop_io::Io;
use oneloop_io::hooks::Direction;

pub use crate::tree_walk::walk;

/// The message of the report a stalled loop gives when [`track`] is on: the report's
/// text is the task tree.
pub const STALLED_TREE: &str = "the loop stalled; its task tree";

// ANCHOR: task_info
/// One task as a view of the tree sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskInfo {
    /// The task's id (stage 9's, unique in the process).
    pub id: u64,
    /// Its name.
    pub name: String,
    /// Running, pending, or pending with a cancel requested.
    pub state: TaskState,
    /// The tasks it awaits, and how.
    pub awaits: Vec<Awaited>,
    /// What its leaf futures wait on: a sleep until a time, a socket.
    pub leaves: Vec<String>,
}

/// One edge of the tree: the awaiting task waits for `task`, through `how`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Awaited {
    /// The awaited task's id.
    pub task: u64,
    /// `"join"`, `"gather"`, `"group"`, `"shield"`, `"wait"` or `"as_completed"`.
    pub how: &'static str,
}

/// Where a task is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskState {
    /// Its step is running now (the task that asked for the view).
    Running,
    /// Suspended, waiting for a wake.
    Pending,
    /// Suspended, with this many cancel requests not taken back.
    Cancelling(u32),
}
// ANCHOR_END: task_info

impl fmt::Display for TaskState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TaskState::Running => f.write_str("running"),
            TaskState::Pending => f.write_str("pending"),
            TaskState::Cancelling(n) => write!(f, "cancelling({n})"),
        }
    }
}

// ANCHOR: tree_line
/// One line of the tree that [`walk`] produces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeLine {
    /// How deep the line sits: 0 for a root.
    pub depth: usize,
    /// What the line shows.
    pub item: TreeItem,
}

/// What one line of the tree shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TreeItem {
    /// A task; `how` says how its parent line awaits it (`None` for a root).
    Task {
        /// The task's id.
        id: u64,
        /// How the task on the line above awaits it.
        how: Option<&'static str>,
    },
    /// A leaf its task waits on ("sleep until 3.000s", "fd 7 readable").
    Leaf(String),
    /// A task already on the path from the root: the awaits go round in a cycle.
    Cycle(u64),
    /// An awaited task that is not in the view (it finished meanwhile).
    Gone(u64),
}
// ANCHOR_END: tree_line

/// The unfinished tasks of the running loop (asyncio's `asyncio.all_tasks()`), in
/// spawn order. Empty outside a loop.
pub fn all_tasks() -> Vec<TaskRef> {
    oneloop_cancel::all_tasks()
}

/// The task running now (asyncio's `asyncio.current_task()`), if any.
pub fn current_task() -> Option<TaskRef> {
    current()
}

/// The notes leaves left, per task: the step they were left in, and the notes.
#[derive(Debug, Default)]
struct Notes(RefCell<HashMap<u64, (u64, Vec<String>)>>);

impl Notes {
    fn note(&self, note: String) {
        let Some(task) = current() else { return };
        let mut notes = self.0.borrow_mut();
        let entry = notes.entry(task.id()).or_default();
        if entry.0 != task.steps() {
            // A note of an earlier step is stale: that step's leaves were left behind.
            *entry = (task.steps(), Vec::new());
        }
        entry.1.push(note);
    }

    fn of(&self, task: &TaskRef) -> Vec<String> {
        match self.0.borrow().get(&task.id()) {
            Some((step, notes)) if *step == task.steps() => notes.clone(),
            _ => Vec::new(),
        }
    }

    fn forget_all_but(&self, live: &[TaskRef]) {
        self.0
            .borrow_mut()
            .retain(|id, _| live.iter().any(|task| task.id() == *id));
    }
}

// ANCHOR: track
/// Makes the loop keep what a tree view needs beyond what it holds anyway: leaves'
/// notes (a sleep says until when), and, when the loop stalls, a report whose text is
/// the tree ([`STALLED_TREE`], to the exception handler). Until this is called, the
/// hooks cost one look-up and nothing else. Calling it again changes nothing.
pub fn track(core: &Core) {
    if core.extensions().contains::<Notes>() {
        return;
    }
    let notes = Rc::new(Notes::default());
    core.extensions().insert(Rc::clone(&notes));
    core.extensions().insert(Rc::new(Diagnostics {
        wait_note: Box::new(move |note| notes.note(note)),
        stalled: Box::new(|core| {
            let tasks = snapshot();
            let tree = render_tree(&tasks, &walk(&tasks));
            core.report(&ExceptionReport {
                message: STALLED_TREE.to_owned(),
                label: Label::Static("stalled"),
                panic: tree,
            });
        }),
    }));
}
// ANCHOR_END: track

// ANCHOR: snapshot
/// Reads the running loop's tasks into plain values: what each awaits (stage 9's
/// links, plus the children of the groups it runs), and its leaves (notes left in its
/// current step, and the sockets whose wakers would wake it).
pub fn snapshot() -> Vec<TaskInfo> {
    let tasks = all_tasks();
    let running = current().map(|task| task.id());
    let (notes, waiters) = with_current(|core| {
        let notes = core.extensions().get::<Notes>();
        let waiters = Io::of(core).map(|io| io.waiters()).unwrap_or_default();
        (notes, waiters)
    })
    .unwrap_or_default();
    if let Some(notes) = &notes {
        notes.forget_all_but(&tasks);
    }
    // A group's children, by the id of the task running the group: one pass, so that a
    // snapshot of many tasks costs in proportion to them, never their square.
    let mut group_children: HashMap<u64, Vec<u64>> = HashMap::new();
    for child in &tasks {
        if let Some(parent) = child.group_parent() {
            group_children
                .entry(parent.id())
                .or_default()
                .push(child.id());
        }
    }
    let mut infos = Vec::with_capacity(tasks.len());
    for task in &tasks {
        let mut awaits: Vec<Awaited> = task
            .awaits()
            .into_iter()
            .map(|(awaited, how)| Awaited {
                task: awaited.id(),
                how,
            })
            .collect();
        let children = group_children.remove(&task.id()).unwrap_or_default();
        awaits.extend(children.into_iter().map(|child| Awaited {
            task: child,
            how: "group",
        }));
        let mut seen = HashSet::new();
        awaits.retain(|edge| seen.insert(edge.task));
        let mut leaves = notes
            .as_ref()
            .map(|notes| notes.of(task))
            .unwrap_or_default();
        for (fd, direction, waker) in &waiters {
            if task.will_wake(waker) {
                let what = match direction {
                    Direction::Read => "readable",
                    Direction::Write => "writable",
                };
                leaves.push(format!("fd {fd} {what}"));
            }
        }
        let state = if running == Some(task.id()) {
            TaskState::Running
        } else if task.cancelling() > 0 {
            TaskState::Cancelling(task.cancelling())
        } else {
            TaskState::Pending
        };
        infos.push(TaskInfo {
            id: task.id(),
            name: task.name().to_owned(),
            state,
            awaits,
            leaves,
        });
    }
    infos
}
// ANCHOR_END: snapshot

/// How many levels of guides a tree line draws at most. A line deeper than this is
/// drawn at this depth with its own depth written before it (`[depth 1000]`), so that
/// a long chain of awaits gives lines of bounded width, not text that grows with the
/// square of its depth.
pub const DRAWN_DEPTH: usize = 32;

/// The tree as text, one line per item, drawn as `pstree` draws it.
pub fn render_tree(tasks: &[TaskInfo], lines: &[TreeLine]) -> String {
    let by_id: HashMap<u64, &TaskInfo> = tasks.iter().map(|task| (task.id, task)).collect();
    let last = last_of_siblings(lines);
    let mut out = String::new();
    // For each depth drawn, whether a later sibling still comes (draw "│" under it).
    let mut open: Vec<bool> = Vec::new();
    for (line, &last) in lines.iter().zip(&last) {
        let drawn = line.depth.min(DRAWN_DEPTH);
        open.truncate(drawn);
        for &more in &open {
            out.push_str(if more { "│   " } else { "    " });
        }
        out.push_str(if last { "└── " } else { "├── " });
        if line.depth < DRAWN_DEPTH {
            open.push(!last);
        } else {
            let _ = write!(out, "[depth {}] ", line.depth);
        }
        match &line.item {
            TreeItem::Task { id, how } => {
                let (name, state) = by_id.get(id).map_or(("?", TaskState::Pending), |task| {
                    (task.name.as_str(), task.state)
                });
                let _ = write!(out, "(T) {name} #{id} {state}");
                if let Some(how) = how {
                    let _ = write!(out, " [{how}]");
                }
            }
            TreeItem::Leaf(leaf) => out.push_str(leaf),
            TreeItem::Cycle(id) => {
                let _ = write!(out, "(cycle) #{id} again");
            }
            TreeItem::Gone(id) => {
                let _ = write!(out, "(gone) #{id}");
            }
        }
        out.push('\n');
    }
    out
}

/// For each line, whether it is the last of its siblings: no later line at its depth
/// comes before a shallower one. One pass from the end, keeping, for each depth, whether
/// a line at that depth was seen since the last shallower line.
fn last_of_siblings(lines: &[TreeLine]) -> Vec<bool> {
    let mut last = vec![false; lines.len()];
    let mut seen_below: Vec<bool> = Vec::new();
    for (i, line) in lines.iter().enumerate().rev() {
        seen_below.resize(line.depth + 1, false);
        last[i] = !seen_below[line.depth];
        seen_below[line.depth] = true;
    }
    last
}

/// How many entries a table cell lists before it says how many more there are.
pub const LISTED_IN_A_CELL: usize = 8;

/// The tasks as a table, one row per task: id, name, state, who awaits it, and what
/// it waits on (leaves, then awaited tasks). A cell lists at most
/// [`LISTED_IN_A_CELL`] entries, then `… N more`: a task awaited by ten thousand
/// others would otherwise widen its column, and every row is padded to the widest
/// cell, into text that grows with the square of the tasks.
pub fn render_table(tasks: &[TaskInfo]) -> String {
    let mut rows = vec![[
        "ID".to_owned(),
        "NAME".to_owned(),
        "STATE".to_owned(),
        "AWAITED BY".to_owned(),
        "WAITS ON".to_owned(),
    ]];
    let mut awaited_by: HashMap<u64, Vec<String>> = HashMap::new();
    for other in tasks {
        for edge in &other.awaits {
            awaited_by
                .entry(edge.task)
                .or_default()
                .push(format!("#{} ({})", other.id, edge.how));
        }
    }
    for task in tasks {
        let awaited_by = awaited_by.remove(&task.id).unwrap_or_default();
        let mut waits_on = task.leaves.clone();
        waits_on.extend(task.awaits.iter().map(|edge| format!("#{}", edge.task)));
        rows.push([
            task.id.to_string(),
            task.name.clone(),
            task.state.to_string(),
            listed(&awaited_by),
            listed(&waits_on),
        ]);
    }
    let mut widths = [0; 5];
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in &rows {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                let _ = write!(line, "{cell:<width$}  ", width = widths[i]);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// A cell's entries, the first [`LISTED_IN_A_CELL`] of them; `-` if there are none.
fn listed(entries: &[String]) -> String {
    if entries.is_empty() {
        return "-".to_owned();
    }
    let shown = &entries[..entries.len().min(LISTED_IN_A_CELL)];
    let mut cell = shown.join(", ");
    let more = entries.len() - shown.len();
    if more > 0 {
        let _ = write!(cell, ", … {more} more");
    }
    cell
}

/// The running loop's tree as text (`pstree`).
pub fn tree_text() -> String {
    let tasks = snapshot();
    render_tree(&tasks, &walk(&tasks))
}

/// The running loop's tasks as a table (`ps`).
pub fn table_text() -> String {
    render_table(&snapshot())
}
