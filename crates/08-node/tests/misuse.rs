//! What the loop does with misuse it can report: a wake from another thread, a nested
//! run, a Node global called with no loop running, a watch whose descriptor its own
//! callback closed.

use std::cell::Cell;
use std::future::poll_fn;
use std::io::Write;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::rc::Rc;
use std::sync::mpsc;
use std::task::Poll;
use std::thread;

use mio::event::Source;
use mio::unix::SourceFd;
use mio::{Registry, Token};
use oneloop_node::{
    Interest, NodeError, NodeLoop, once_ready, pipe, set_timeout, spawn_async, watch,
};
use oneloop_testkit::watchdog_default;

#[test]
fn a_wake_from_another_thread_stops_the_loop_with_an_error_instead_of_hanging() {
    watchdog_default(|| {
        let (wakers, waker_rx) = mpsc::channel();
        let waker_thread = thread::spawn(move || {
            let waker: std::task::Waker = waker_rx.recv().expect("the task sends its waker");
            waker.wake();
        });
        let mut node = NodeLoop::new().expect("a poller");
        // Keep the loop blocked in its poll: a pipe that never becomes readable.
        let (sender, receiver) = pipe::new().expect("a pipe");
        let result = node.run(move || {
            once_ready(receiver, Interest::READABLE, |_| {}).expect("registers");
            spawn_async(poll_fn(move |cx| {
                // Only the first poll comes before the foreign wake; if the receiver is
                // gone, the waker thread has failed and its join says so.
                let _ = wakers.send(cx.waker().clone());
                Poll::<()>::Pending
            }));
        });
        waker_thread.join().expect("the waker thread ends");
        drop(sender);
        assert!(matches!(result, Err(NodeError::ForeignWake)), "{result:?}");
    });
}

#[test]
fn a_run_inside_a_run_is_refused() {
    watchdog_default(|| {
        let mut outer = NodeLoop::with_virtual_clock().expect("a poller");
        let mut inner = NodeLoop::with_virtual_clock().expect("a poller");
        let mut nested = None;
        outer
            .run(|| nested = Some(inner.run(|| {})))
            .expect("the outer run ends");
        assert!(matches!(nested, Some(Err(NodeError::AlreadyRunning))));
    });
}

#[test]
fn a_node_global_outside_a_run_panics_with_its_name() {
    watchdog_default(|| {
        let panic = thread::spawn(|| set_timeout(|| {}, 0))
            .join()
            .expect_err("no loop runs on this thread");
        let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(
            message.contains("`set_timeout` was called outside NodeLoop::run"),
            "{message}"
        );
    });
}

/// A descriptor that a watch's callback may close while the watch still names it by
/// number: the loop's re-arm (`epoll_ctl`) then fails.
struct ClosableFd {
    number: RawFd,
    owned: Option<OwnedFd>,
}

impl ClosableFd {
    fn new(owned: OwnedFd) -> Self {
        Self {
            number: owned.as_raw_fd(),
            owned: Some(owned),
        }
    }
}

impl Source for ClosableFd {
    fn register(
        &mut self,
        registry: &Registry,
        token: Token,
        interest: Interest,
    ) -> std::io::Result<()> {
        SourceFd(&self.number).register(registry, token, interest)
    }
    fn reregister(
        &mut self,
        registry: &Registry,
        token: Token,
        interest: Interest,
    ) -> std::io::Result<()> {
        SourceFd(&self.number).reregister(registry, token, interest)
    }
    fn deregister(&mut self, registry: &Registry) -> std::io::Result<()> {
        SourceFd(&self.number).deregister(registry)
    }
}

#[test]
fn a_watch_that_cannot_be_rearmed_ends_the_run_with_the_error_after_its_whole_batch() {
    watchdog_default(|| {
        // Two handles ready in one batch; each callback closes its own descriptor, so
        // each re-arm fails. The first failure used to end the run at once, with the
        // other watch out of the table and never fired.
        let fired = Rc::new(Cell::new(0));
        let mut senders = Vec::new();
        let mut node = NodeLoop::new().expect("a poller");
        let result = node.run(|| {
            for _ in 0..2 {
                let (mut sender, receiver) = pipe::new().expect("a pipe");
                sender.write_all(b"x").expect("a byte in the pipe");
                senders.push(sender);
                let fired = Rc::clone(&fired);
                watch(
                    ClosableFd::new(OwnedFd::from(receiver)),
                    Interest::READABLE,
                    move |fd| {
                        fired.set(fired.get() + 1);
                        drop(fd.owned.take());
                    },
                )
                .expect("registers");
            }
        });
        assert_eq!(fired.get(), 2, "both watches of the batch fired");
        assert!(matches!(result, Err(NodeError::Io(_))), "{result:?}");
        // Nothing is left behind: a second run has nothing to wait for.
        let again = node.run(|| {});
        assert!(again.is_ok(), "{again:?}");
    });
}
