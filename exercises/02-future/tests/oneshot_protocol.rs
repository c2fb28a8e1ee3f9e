//! Exercise 1 (chapter 2.2): the two rules of the poll protocol that a waiter's results
//! alone do not show.
//!
//! - The stored waker is kept while `will_wake` says the new one is the same: a waker
//!   with a hand-written vtable counts the clones a waiter makes.
//! - The state is checked and the waker registered under one lock. A version with two
//!   locks loses a wakeup when a producer on another thread settles in between, but no
//!   code of a test runs between the two locks, so no test can place the producer there
//!   on purpose: a run that tried would pass or fail by luck. This rule is checked on
//!   the source instead, by counting the lock calls in the file you wrote, and by
//!   refusing a closure around `lock` (one call in the text, two when it runs twice).

use std::pin::Pin;
use std::task::Poll;

use ex02_future::{FutureError, OneShot};
use oneloop_testkit::{CloneCountingWaker, watchdog_default};

/// The file compiled as the waiter's `poll`: yours, or the reference's with
/// `--features solution`.
#[cfg(not(feature = "solution"))]
const POLL_SOURCE: &str = include_str!("../src/oneshot_poll.rs");
#[cfg(feature = "solution")]
const POLL_SOURCE: &str = include_str!("../../../crates/02-future/src/oneshot_poll.rs");

#[test]
fn ex1_a_waker_that_will_wake_is_cloned_once_not_once_per_poll() {
    watchdog_default(|| {
        let fut = OneShot::<u32, FutureError<()>>::new();
        let mut wait = fut.wait();
        let counter = CloneCountingWaker::new();
        for _ in 0..5 {
            // A new Waker value each time, but `will_wake` says it is the same waker.
            let poll = counter.with_context(|cx| Pin::new(&mut wait).poll(cx));
            assert_eq!(poll, Poll::Pending);
        }
        assert_eq!(
            counter.clones(),
            1,
            "five polls with wakers that `will_wake` each other must clone once (the first \
             registration) and keep that clone; cloning on every poll means `will_wake` was \
             not asked"
        );
        assert_eq!(counter.live_wakers(), 1, "the one stored clone");
        fut.set_result(3).unwrap();
        assert_eq!(counter.wakes(), 1);
        assert_eq!(counter.live_wakers(), 0);
    });
}

/// The code of `source`: `//` comments and string literals blanked out.
fn code_only(source: &str) -> String {
    source
        .lines()
        .map(|line| {
            let mut out = String::new();
            let mut in_str = false;
            let mut chars = line.chars().peekable();
            while let Some(c) = chars.next() {
                match c {
                    '\\' if in_str => {
                        chars.next();
                    }
                    '"' => in_str = !in_str,
                    '/' if !in_str && chars.peek() == Some(&'/') => break,
                    _ if in_str => {}
                    _ => out.push(c),
                }
            }
            out
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// How many times `code` calls something named `lock` (`lock(…)`, `.lock()`).
fn lock_calls(code: &str) -> usize {
    code.match_indices("lock(")
        .filter(|(at, _)| {
            code[..*at]
                .chars()
                .next_back()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
        })
        .count()
}

/// Whether `code` makes a closure whose body calls `lock` (`|| lock(…)`): a closure
/// called twice takes the lock twice, with one `lock(` in the text.
fn lock_in_closure(code: &str) -> bool {
    // A closure's body follows its `|…|`, perhaps inside braces: `|| lock(`, `|| { lock(`.
    let squeezed: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    squeezed.contains("|lock(") || squeezed.contains("|{lock(")
}

#[test]
fn ex1_the_state_is_checked_and_the_waker_registered_under_one_lock() {
    let code = code_only(POLL_SOURCE);
    assert!(
        !lock_in_closure(&code),
        "src/oneshot_poll.rs wraps `lock` in a closure; call `lock` once, keep the guard \
         from the state check to the registration (chapter 2.2)"
    );
    let calls = lock_calls(&code);
    assert_eq!(
        calls, 1,
        "src/oneshot_poll.rs takes the lock {calls} time(s); `poll` must take it exactly \
         once and hold it from the state check to the registration. With two locks, a \
         `set_result` on another thread can run in between: it finds no waker to wake, \
         and the waker registered after it is never woken (chapter 2.2)"
    );
}

#[test]
fn ex1_the_lock_counter_sees_a_second_lock() {
    // The check itself, on literal samples, so a broken counter cannot pass silently.
    let one = "let mut inner = lock(&self.shared); // lock(&again) in a comment\n\
               let s = \"lock(\";";
    assert_eq!(lock_calls(&code_only(one)), 1);
    let two = "let done = lock(&self.shared).state.outcome();\n\
               self.shared.lock().unwrap().register(self.id, cx.waker());";
    assert_eq!(lock_calls(&code_only(two)), 2);
    assert_eq!(lock_calls(&code_only("unlock(x); block(y);")), 0);
    let relock = "let relock = || lock(&self.shared);\n\
                  relock().state.outcome();";
    assert!(lock_in_closure(&code_only(relock)));
    assert!(lock_in_closure(&code_only(
        "let relock = move || { lock(&s) };"
    )));
    assert!(!lock_in_closure(&code_only(one)));
    assert!(!lock_in_closure(&code_only(
        "let inner = { lock(&self.shared) };"
    )));
}
