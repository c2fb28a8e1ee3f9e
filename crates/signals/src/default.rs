//! The default action, given back when the last handler of a signal is removed.
//!
//! `signal-hook` installs its OS handler once per signal and keeps it; with no action
//! left, a signal would do nothing at all. So the first time a signal is claimed, the
//! layer also registers an action that runs the signal's default (terminate, stop, …)
//! when a flag is set, and keeps a process-wide count of the handlers: the flag is set
//! exactly while the count is zero.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// One signal's flag and the number of loop handlers that hold it.
struct Claim {
    run_default: Arc<AtomicBool>,
    handlers: usize,
}

static CLAIMS: Mutex<BTreeMap<i32, Claim>> = Mutex::new(BTreeMap::new());

/// One more handler for `signal`: its default action is off.
pub(crate) fn claim(signal: i32) -> io::Result<()> {
    // Poisoning needs a panic inside these few lines, which have none to give.
    let mut claims = CLAIMS.lock().unwrap_or_else(PoisonError::into_inner);
    let claim = match claims.entry(signal) {
        Entry::Occupied(entry) => entry.into_mut(),
        Entry::Vacant(entry) => {
            let run_default = Arc::new(AtomicBool::new(false));
            signal_hook::flag::register_conditional_default(signal, Arc::clone(&run_default))?;
            entry.insert(Claim {
                run_default,
                handlers: 0,
            })
        }
    };
    claim.handlers += 1;
    claim.run_default.store(false, Ordering::SeqCst);
    Ok(())
}

/// One handler fewer for `signal`: with none left, the default action is back.
pub(crate) fn release(signal: i32) {
    let mut claims = CLAIMS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(claim) = claims.get_mut(&signal) {
        claim.handlers = claim.handlers.saturating_sub(1);
        if claim.handlers == 0 {
            claim.run_default.store(true, Ordering::SeqCst);
        }
    }
}
