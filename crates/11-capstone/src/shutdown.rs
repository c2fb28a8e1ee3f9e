//! The shutdown sequence: stop accepting, let the connections finish what they
//! computed, cancel the rest at the deadline, and say what was closed.

use std::cell::Cell;
use std::io;
use std::net::Shutdown;
use std::rc::Rc;

use oneloop::cancel::{Error, Selected, select, task_group, timeout_scope};
use oneloop::{TcpListener, time};

use crate::{Server, ShutdownReport};

impl Server {
    // ANCHOR: serve_until_stopped
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
        let open = Cell::new(0);
        let (server, open_at_stop) = (&self, &open);
        let ended = timeout_scope(None, |scope| {
            task_group(|group| async move {
                let accepting = server.accept(listener, group.clone());
                // Whichever ends first: the stop, or the accept loop (only on an error).
                let failed = match select(server.stopping.wait(), accepting).await {
                    Selected::First(stopped, _) => stopped.map(|()| None)?,
                    Selected::Second(accepted, _) => accepted.err(),
                };
                // The accept loop is dropped: the listener is closed, nobody new gets in.
                open_at_stop.set(group.len());
                for stream in server.clients.borrow().values() {
                    // A socket the peer already reset has nothing left to shut.
                    let _ = stream.shutdown(Shutdown::Read);
                }
                scope.reschedule(Some(time() + server.config.shutdown_deadline))?;
                Ok(failed)
            })
        })
        .await;
        // The group waited for every child: each finished, or was cancelled.
        let failed = match ended {
            Ok(failed) => failed,
            Err(Error::TimedOut) => None,
            Err(error) => return Err(error),
        };
        if let Some(error) = failed {
            return Ok(Err(error));
        }
        let open = open.get();
        let forced = self.stats().forced as usize;
        Ok(Ok(ShutdownReport {
            open,
            finished: open - forced,
            forced,
        }))
    }
    // ANCHOR_END: serve_until_stopped
}
