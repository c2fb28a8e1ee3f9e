//! The shutdown sequence: stop accepting, let the connections finish what they
//! computed, cancel the rest at the deadline, and say what was closed.
#![allow(unused_variables, unused_imports)]

use std::cell::Cell;
use std::io;
use std::net::Shutdown;
use std::rc::Rc;

use oneloop::cancel::{Error, Selected, select, task_group, timeout_scope};
use oneloop::{TcpListener, time};

use crate::{Server, ShutdownReport};

impl Server {
    /// The server's task: accepts into a task group until [`stop`](Server::stop), then
    /// shuts down (see [`run`](Server::run)).
    ///
    /// The group sits inside a timeout scope with no deadline yet (asyncio's
    /// `async with timeout(None) as scope: async with TaskGroup() as group:`). The
    /// body races the stop against the accept loop; the loser, the accept loop, is
    /// dropped, and the listener with it. Then every connection's read half is shut:
    /// its reader sees end of file and takes no more requests, while its writer sends
    /// the replies already computed. The scope's deadline is set
    /// `config.shutdown_deadline` from now, and the group waits for its children. At
    /// the deadline the scope cancels this task, so the group cancels the children
    /// still open; each closes its socket and counts itself forced
    /// ([`Stats::forced`](crate::Stats::forced)).
    ///
    /// Returns what was closed, once every connection ended, or the accept loop's
    /// error (after the same shutdown).
    pub(crate) async fn serve_until_stopped(
        self: Rc<Self>,
        listener: TcpListener,
    ) -> Result<io::Result<ShutdownReport>, Error> {
        todo!(
            "stage 11, exercise 4: accept into a group until the stop, then shut the read \
             halves, give the group its deadline, and count what was forced — see \
             chapter 11.5"
        )
    }
}
