//! The tree walk: from "who awaits whom" to the lines of a tree.

use std::collections::{BTreeMap, BTreeSet};

use crate::{TaskInfo, TreeItem, TreeLine};

// ANCHOR: walk
/// Turns a snapshot into the lines of a tree, depth first.
///
/// - The roots are the tasks no task awaits, lowest id first.
/// - Under a task come its leaves, in the order given, then the tasks it awaits,
///   lowest id first, each line with `how` it is awaited. The output never depends on
///   the order of `tasks` or of their `awaits`.
/// - A task awaited by two tasks appears under both.
/// - A task already on the path from the root is a [`TreeItem::Cycle`] line, and the
///   walk does not go into it again; an awaited id that is not in `tasks` is a
///   [`TreeItem::Gone`] line.
/// - Tasks that only a cycle reaches have no root: once the roots are done, the
///   lowest id not shown yet starts a tree of its own, until every task is shown.
/// - However deep a chain of awaits, the walk does not overflow the thread's stack.
pub fn walk(tasks: &[TaskInfo]) -> Vec<TreeLine> {
    let by_id: BTreeMap<u64, &TaskInfo> = tasks.iter().map(|task| (task.id, task)).collect();
    let awaited: BTreeSet<u64> = tasks
        .iter()
        .flat_map(|task| task.awaits.iter().map(|edge| edge.task))
        .collect();
    let mut walk = Walk {
        by_id: &by_id,
        on_path: BTreeSet::new(),
        shown: BTreeSet::new(),
        lines: Vec::new(),
    };
    for &root in by_id.keys().filter(|id| !awaited.contains(id)) {
        walk.tree(root);
    }
    // One pass in id order: each id below the one looked at is shown already, so the
    // first one not shown is the lowest (no scan from the start for each tree).
    for &left in by_id.keys() {
        if !walk.shown.contains(&left) {
            walk.tree(left);
        }
    }
    walk.lines
}

/// What is left to do on the walk's own stack.
enum Step {
    /// Write the line of task `id` and go into it.
    Visit {
        id: u64,
        how: Option<&'static str>,
        depth: usize,
    },
    /// Every task under `id` is written: it leaves the path.
    Leave(u64),
}

struct Walk<'a> {
    by_id: &'a BTreeMap<u64, &'a TaskInfo>,
    /// The tasks from the root down to the line being written.
    on_path: BTreeSet<u64>,
    shown: BTreeSet<u64>,
    lines: Vec<TreeLine>,
}

impl Walk<'_> {
    /// Writes the tree under `root`, depth first, on a stack of its own: a chain of
    /// awaits as deep as the program made it must not overflow the thread's stack.
    fn tree(&mut self, root: u64) {
        let mut stack = vec![Step::Visit {
            id: root,
            how: None,
            depth: 0,
        }];
        while let Some(step) = stack.pop() {
            let (id, how, depth) = match step {
                Step::Leave(id) => {
                    self.on_path.remove(&id);
                    continue;
                }
                Step::Visit { id, how, depth } => (id, how, depth),
            };
            if self.on_path.contains(&id) {
                self.push(depth, TreeItem::Cycle(id));
                continue;
            }
            let Some(task) = self.by_id.get(&id).copied() else {
                self.push(depth, TreeItem::Gone(id));
                continue;
            };
            self.push(depth, TreeItem::Task { id, how });
            self.shown.insert(id);
            self.on_path.insert(id);
            for leaf in &task.leaves {
                self.push(depth + 1, TreeItem::Leaf(leaf.clone()));
            }
            stack.push(Step::Leave(id));
            let mut awaits = task.awaits.clone();
            awaits.sort_by_key(|edge| edge.task);
            // Pushed last to first, so the lowest id is popped, and written, first.
            stack.extend(awaits.into_iter().rev().map(|edge| Step::Visit {
                id: edge.task,
                how: Some(edge.how),
                depth: depth + 1,
            }));
        }
    }

    fn push(&mut self, depth: usize, item: TreeItem) {
        self.lines.push(TreeLine { depth, item });
    }
}
// ANCHOR_END: walk
