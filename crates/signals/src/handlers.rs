//! The layer's shared half: one socket pair per handled signal, read on the loop.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;
use std::io::{self, Read};
use std::os::unix::net::UnixStream;
use std::rc::{Rc, Weak};

use oneloop_core::hooks::with_current;
use oneloop_core::{Core, Label};
use oneloop_io::Io;
use signal_hook::SigId;
use signal_hook::consts::FORBIDDEN;

use crate::{SignalError, default};

/// The highest signal number Linux has (`SIGRTMAX`).
const MAX_SIGNAL: i32 = 64;

/// The name of `signal` (`SIGTERM`), or `signal 42` for one with no name.
pub fn signal_name(signal: i32) -> String {
    match signal_hook::low_level::signal_name(signal) {
        Some(name) => name.to_owned(),
        None => format!("signal {signal}"),
    }
}

/// One handled signal: the read end of its pair, its registration, its callback.
struct Entry {
    read: Rc<UnixStream>,
    id: SigId,
    callback: Rc<RefCell<Rc<dyn Fn()>>>,
}

// ANCHOR: handlers
/// The signal handlers of one loop (in its extensions).
pub struct SignalHandlers {
    io: Rc<Io>,
    entries: RefCell<BTreeMap<i32, Entry>>,
}
// ANCHOR_END: handlers

impl SignalHandlers {
    /// The handlers of the loop `core`, created on first use. Fails with
    /// [`SignalError::NoIoLayer`] if the loop has no selector to wake it.
    pub fn of(core: &Core) -> Result<Rc<SignalHandlers>, SignalError> {
        if let Some(handlers) = core.extensions().get::<SignalHandlers>() {
            return Ok(handlers);
        }
        let io = Io::of(core).ok_or(SignalError::NoIoLayer)?;
        let handlers = Rc::new(SignalHandlers {
            io,
            entries: RefCell::new(BTreeMap::new()),
        });
        core.extensions().insert(Rc::clone(&handlers));
        // Closing the loop removes its handlers; a weak link, so no cycle through the
        // extensions keeps them alive.
        let weak: Weak<SignalHandlers> = Rc::downgrade(&handlers);
        core.add_close_hook("remove signal handlers", move || {
            if let Some(handlers) = weak.upgrade() {
                handlers.clear();
            }
        });
        Ok(handlers)
    }

    // ANCHOR: add
    /// Runs `callback` on this loop, as a handle labelled `signal handler SIGTERM`,
    /// each time `signal` arrives (asyncio's `loop.add_signal_handler`). Replaces the
    /// callback already set for `signal`, if any.
    pub fn add(&self, signal: i32, callback: impl Fn() + 'static) -> Result<(), SignalError> {
        check(signal)?;
        let callback: Rc<dyn Fn()> = Rc::new(callback);
        if let Some(entry) = self.entries.borrow().get(&signal) {
            entry.callback.replace(callback);
            return Ok(());
        }
        // The OS handler writes a byte to `write`; the loop reads `read`.
        let (read, write) = UnixStream::pair()?;
        read.set_nonblocking(true)?;
        write.set_nonblocking(true)?;
        let read = Rc::new(read);
        let callback = Rc::new(RefCell::new(callback));
        let label = Label::from(format!("signal handler {}", signal_name(signal)));
        let reader = {
            let read = Rc::clone(&read);
            let callback = Rc::clone(&callback);
            move || {
                // Each byte is one delivery: queue one handle per byte, as asyncio does.
                for _ in 0..drain(&read) {
                    let callback = Rc::clone(&*callback.borrow());
                    // The reader runs as a handle, so its loop is the current one.
                    let _ = with_current(|core| {
                        core.call_soon_named(label.clone(), move || callback())
                    });
                }
            }
        };
        let reader_label = format!("signal reader {}", signal_name(signal));
        self.io.add_reader_named(&*read, reader_label, reader)?;
        // The pipe first, then the claim that turns the default action off: a signal
        // between the two then still reaches the pipe (and, if no handler held the
        // signal, also its default action, as in asyncio's own window between
        // `set_wakeup_fd` and `signal.signal`). The other order would lose it.
        let registered = signal_hook::low_level::pipe::register(signal, write).and_then(|id| {
            default::claim(signal).inspect_err(|_| {
                signal_hook::low_level::unregister(id);
            })?;
            Ok(id)
        });
        match registered {
            Ok(id) => {
                self.entries
                    .borrow_mut()
                    .insert(signal, Entry { read, id, callback });
                Ok(())
            }
            Err(error) => {
                self.io.remove_reader(&*read);
                Err(error.into())
            }
        }
    }
    // ANCHOR_END: add

    /// Removes the handler of `signal` (asyncio's `loop.remove_signal_handler`).
    /// Returns whether one was set. With no handler left in the process, `signal` has
    /// its default action again.
    pub fn remove(&self, signal: i32) -> Result<bool, SignalError> {
        check(signal)?;
        let entry = self.entries.borrow_mut().remove(&signal);
        match entry {
            Some(entry) => {
                self.release(signal, entry);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// The signals this loop handles, in number order.
    pub fn signals(&self) -> Vec<i32> {
        self.entries.borrow().keys().copied().collect()
    }

    /// Removes every handler (the close hook calls it).
    fn clear(&self) {
        let entries = std::mem::take(&mut *self.entries.borrow_mut());
        for (signal, entry) in entries {
            self.release(signal, entry);
        }
    }

    fn release(&self, signal: i32, entry: Entry) {
        // Stop the OS handler writing first, then stop reading.
        signal_hook::low_level::unregister(entry.id);
        default::release(signal);
        self.io.remove_reader(&*entry.read);
    }
}

impl Drop for SignalHandlers {
    fn drop(&mut self) {
        self.clear();
    }
}

impl fmt::Debug for SignalHandlers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = self.signals().into_iter().map(signal_name).collect();
        f.debug_struct("SignalHandlers")
            .field("signals", &names)
            .finish_non_exhaustive()
    }
}

/// Refuses what no handler can take.
fn check(signal: i32) -> Result<(), SignalError> {
    if FORBIDDEN.contains(&signal) {
        return Err(SignalError::Forbidden(signal));
    }
    if !(1..=MAX_SIGNAL).contains(&signal) {
        return Err(SignalError::Invalid(signal));
    }
    Ok(())
}

/// Reads every byte waiting in the pair; returns how many there were.
fn drain(mut read: &UnixStream) -> usize {
    let mut total = 0;
    let mut buf = [0u8; 64];
    loop {
        match read.read(&mut buf) {
            Ok(0) => return total,
            Ok(n) => total += n,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            // `WouldBlock`: drained. Any other error: nothing more to read either.
            Err(_) => return total,
        }
    }
}

// ANCHOR: add_signal_handler
/// Runs `callback` on the running loop each time `signal` arrives (asyncio's
/// `loop.add_signal_handler`). Call it from a task or callback of that loop.
///
/// Errors: [`SignalError::Forbidden`] for `SIGKILL`, `SIGSTOP`, `SIGSEGV`, `SIGILL`,
/// `SIGFPE`; [`SignalError::NoRunningLoop`] outside a loop;
/// [`SignalError::NoIoLayer`] on a loop without a selector.
pub fn add_signal_handler(signal: i32, callback: impl Fn() + 'static) -> Result<(), SignalError> {
    check(signal)?;
    let handlers =
        with_current(|core| SignalHandlers::of(core)).ok_or(SignalError::NoRunningLoop)??;
    handlers.add(signal, callback)
}

/// Removes the running loop's handler of `signal` (asyncio's
/// `loop.remove_signal_handler`); returns whether one was set.
pub fn remove_signal_handler(signal: i32) -> Result<bool, SignalError> {
    check(signal)?;
    let handlers = with_current(|core| core.extensions().get::<SignalHandlers>())
        .ok_or(SignalError::NoRunningLoop)?;
    match handlers {
        Some(handlers) => handlers.remove(signal),
        None => Ok(false),
    }
}
// ANCHOR_END: add_signal_handler
