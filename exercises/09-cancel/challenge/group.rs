//! Task groups with asyncio 3.11's `TaskGroup` semantics.
#![allow(unused_variables, unused_imports, unused_mut, dead_code)]

use std::cell::{Cell, RefCell};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use crate::ctl::{Ctl, current_ctl};
use crate::error::{GROUP_FINISHED, GROUP_SHUTTING_DOWN, NO_CURRENT_TASK};
use crate::group_done::on_child_done;
use crate::{Error, Task, TaskRef, current, spawn_named};

/// The state of one group (the fields of asyncio's `TaskGroup`).
pub(crate) struct GroupState {
    /// The task that runs the group's body and waits for its children.
    pub(crate) parent: TaskRef,
    /// The children not finished yet.
    pub(crate) children: RefCell<Vec<Rc<Ctl>>>,
    /// Every failure of a child, in the order they were seen.
    pub(crate) errors: RefCell<Vec<Error>>,
    /// Set once the group has cancelled its children.
    pub(crate) aborting: Cell<bool>,
    /// Set once the group has cancelled its parent (for its first failing child).
    pub(crate) parent_cancel_requested: Cell<bool>,
    pub(crate) exiting: Cell<bool>,
    pub(crate) exited: Cell<bool>,
    /// The parent's waker while it waits for the last child.
    pub(crate) waiter: RefCell<Option<Waker>>,
}

impl GroupState {
    /// Cancels every child not finished yet (asyncio's `_abort`).
    pub(crate) fn abort(&self) {
        self.aborting.set(true);
        let children = self.children.borrow().clone();
        for child in children {
            if !child.done.get() {
                child.cancel(None);
            }
        }
    }

    /// Forgets a finished child; wakes the parent if it was the last.
    pub(crate) fn forget(&self, child: &Rc<Ctl>) {
        self.children.borrow_mut().retain(|c| !Rc::ptr_eq(c, child));
        let last = self.children.borrow().is_empty();
        let waker = if last {
            self.waiter.borrow_mut().take()
        } else {
            None
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// A handle on a running group: spawn children into it.
#[derive(Clone)]
pub struct TaskGroup {
    state: Rc<GroupState>,
}

impl fmt::Debug for TaskGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskGroup")
            .field("children", &self.state.children.borrow().len())
            .field("errors", &self.state.errors.borrow().len())
            .field("aborting", &self.state.aborting.get())
            .finish()
    }
}

impl TaskGroup {
    /// Spawns a child (asyncio's `TaskGroup.create_task`). A group that is finished, or
    /// shutting down after a failure, refuses with a clear error (the future is
    /// dropped unpolled).
    pub fn spawn<T, F>(&self, name: &str, future: F) -> Result<Task<T>, Error>
    where
        T: 'static,
        F: Future<Output = Result<T, Error>> + 'static,
    {
        todo!("stage 9, challenge: the task group; see chapter 9.4")
    }

    /// How many children are not finished.
    pub fn len(&self) -> usize {
        self.state.children.borrow().len()
    }

    /// Whether every child finished.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Waits until the group has no child left: a cancellation point of the parent.
struct AllDone<'a>(&'a GroupState);

impl Future for AllDone<'_> {
    type Output = Result<(), Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        todo!("stage 9, challenge: the task group; see chapter 9.4")
    }
}

/// Runs `body` with a new group in the current task (asyncio's `async with
/// TaskGroup() as tg`), then waits for every child.
///
/// The first child to fail cancels the other children and the body; every failure is
/// returned together as `Err(Error::Group(..))`. A cancel of the current task from
/// outside cancels the children too and comes out as a cancel.
pub async fn task_group<T, F, Fut>(body: F) -> Result<T, Error>
where
    F: FnOnce(TaskGroup) -> Fut,
    Fut: Future<Output = Result<T, Error>>,
{
    todo!("stage 9, challenge: the task group; see chapter 9.4")
}

async fn exit<T>(state: &GroupState, result: Result<T, Error>) -> Result<T, Error> {
    todo!("stage 9, challenge: the task group; see chapter 9.4")
}
