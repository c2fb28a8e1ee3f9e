//! A general hook for a later layer: a scope that every task of this stage takes at its
//! spawn and runs each of its steps in.
//!
//! Stage 10's task-locals install one, so that every task, a group's children and a
//! gather's among them, runs in a copy of the context current at its spawn, as
//! asyncio's `create_task` copies it. This stage knows nothing of contexts: it calls
//! the maker at each spawn and the scope around each step.

use std::cell::Cell;
use std::rc::Rc;

/// What makes a task's scope at its spawn.
pub type MakeStepScope = fn() -> Rc<dyn StepScope>;

/// What a task takes at its spawn, and runs each of its steps in.
pub trait StepScope {
    /// Runs `step` (one poll of the task's future) inside the scope.
    fn step(&self, step: &mut dyn FnMut());
}

thread_local! {
    /// Makes the scope of each task spawned on this thread from now on.
    static MAKE: Cell<Option<MakeStepScope>> = const { Cell::new(None) };
}

/// From now on, every task spawned on this thread takes `make()` at its spawn and runs
/// each step in it. A task spawned before keeps running without one.
pub fn scope_every_task(make: MakeStepScope) {
    MAKE.with(|maker| maker.set(Some(make)));
}

/// The scope of a task spawned now, if a layer installed a maker on this thread.
pub(crate) fn scope_for_new_task() -> Option<Rc<dyn StepScope>> {
    MAKE.with(Cell::get).map(|make| make())
}

/// Runs `step` in `scope`, or as it is without one.
pub(crate) fn in_scope<R>(scope: Option<&dyn StepScope>, mut step: impl FnMut() -> R) -> R {
    let Some(scope) = scope else {
        return step();
    };
    let mut out = None;
    scope.step(&mut || out = Some(step()));
    out.expect("a step scope runs the step it is given")
}
