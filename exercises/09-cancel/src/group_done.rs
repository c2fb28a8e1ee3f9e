//! What a group does when one of its children finishes.
#![allow(unused_variables, unused_imports)]

use crate::Error;
use crate::group::GroupState;

/// Runs (in a coming turn, as asyncio's done callbacks do) after a child of `group`
/// finished and was forgotten. `cancelled` says whether it ended cancelled; `error`
/// is its failure, if it failed another way.
///
/// - A cancelled child, or one that succeeded: nothing more.
/// - A failed child: push its error onto `group.errors`. If it is the first failure
///   (the group is not aborting and has not cancelled its parent yet): cancel every
///   other child (`group.abort()`), note `parent_cancel_requested`, and cancel the
///   parent (`group.parent.cancel(None)`), so that the body stops at its next
///   cancellation point and the group goes on to wait for all.
pub(crate) fn on_child_done(group: &GroupState, cancelled: bool, error: Option<Error>) {
    todo!(
        "stage 9, exercise 3: record the failure; on the first one cancel the other \
         children and the parent — see chapter 9.4"
    )
}
