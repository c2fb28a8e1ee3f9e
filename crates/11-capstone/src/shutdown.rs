//! The shutdown sequence: stop taking requests, finish what was computed, close the
//! rest at the deadline, and say what was closed.

use std::net::Shutdown;
use std::rc::Rc;

use oneloop::{TcpStream, timeout};

use crate::{Server, ShutdownReport};

impl Server {
    // ANCHOR: shut_down
    /// Shuts the server down once the accept loop is gone (see
    /// [`run`](Server::run)).
    ///
    /// Every connection's read half is shut, so its reader sees end of file and
    /// takes no more requests, while its writer sends the replies already computed
    /// and closes. Those still open after `config.shutdown_deadline` are shut both
    /// ways. Returns how many were open, how many finished, how many were forced.
    pub(crate) async fn shut_down(&self) -> ShutdownReport {
        let open = self.admitted.get();
        // Shutting the read half makes each reader see end of file: it stops taking
        // requests, and its writer sends what was already computed, then closes.
        for stream in self.clients.borrow().values() {
            // A socket the peer already reset has nothing left to shut.
            let _ = stream.shutdown(Shutdown::Read);
        }
        let deadline = self.config.shutdown_deadline;
        if timeout(deadline, self.all_closed()).await.is_ok() {
            return ShutdownReport {
                open,
                finished: open,
                forced: 0,
            };
        }
        // At the deadline: close the rest both ways; their writes fail and they end.
        let forced = self.admitted.get();
        let streams: Vec<Rc<TcpStream>> = self.clients.borrow().values().cloned().collect();
        for stream in streams {
            let _ = stream.shutdown(Shutdown::Both);
        }
        // Bounded: a connection not yet registered ends when its task is dropped.
        let _ = timeout(deadline, self.all_closed()).await;
        ShutdownReport {
            open,
            finished: open - forced,
            forced,
        }
    }
    // ANCHOR_END: shut_down
}
