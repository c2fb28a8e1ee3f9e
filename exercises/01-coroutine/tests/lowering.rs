//! Exercise 1 (chapter 1.2): the `login` generator, lowered by hand; and the resume
//! protocol itself, which every machine of this stage follows.

use ex01_coroutine::{
    Averager, CoError, Coroutine, Countdown, Interrupt, Login, LoginError, Prompt, Resume, Resumed,
    Session, Step,
};
use oneloop_testkit::{DropFlag, DropGuard, watchdog_default};

fn prompt(user: &str, attempt: u32) -> Resumed<Prompt, Session, LoginError> {
    Ok(Step::Yielded(Prompt {
        user: user.to_owned(),
        attempt,
    }))
}

#[test]
fn ex1_the_first_send_is_the_user_name() {
    watchdog_default(|| {
        let mut login = Login::new("open sesame", 3);
        assert_eq!(login.send("ada".into()), prompt("ada", 1));
    });
}

#[test]
fn ex1_a_right_guess_completes_with_the_session() {
    watchdog_default(|| {
        let mut login = Login::new("open sesame", 3);
        login.send("ada".into()).unwrap();
        assert_eq!(
            login.send("open sesame".into()),
            Ok(Step::Complete(Session {
                user: "ada".into(),
                attempts: 1
            }))
        );
    });
}

#[test]
fn ex1_each_wrong_guess_asks_again_with_the_next_attempt() {
    watchdog_default(|| {
        let mut login = Login::new("open sesame", 3);
        login.send("ada".into()).unwrap();
        assert_eq!(login.send("guess".into()), prompt("ada", 2));
        assert_eq!(login.send("again".into()), prompt("ada", 3));
        assert_eq!(
            login.send("open sesame".into()),
            Ok(Step::Complete(Session {
                user: "ada".into(),
                attempts: 3
            }))
        );
    });
}

#[test]
fn ex1_too_many_wrong_guesses_raise_locked() {
    watchdog_default(|| {
        let mut login = Login::new("open sesame", 2);
        login.send("bob".into()).unwrap();
        login.send("one".into()).unwrap();
        assert_eq!(
            login.send("two".into()),
            Err(CoError::Raised(LoginError::Locked { user: "bob".into() }))
        );
        // Raising `Locked` ended the dialogue: even the right password comes too late.
        assert_eq!(
            login.send("open sesame".into()),
            Err(CoError::ResumedAfterCompletion)
        );
    });
}

#[test]
fn ex1_a_thrown_timeout_is_handled_and_the_same_attempt_is_asked_again() {
    watchdog_default(|| {
        let mut login = Login::new("open sesame", 3);
        login.send("ada".into()).unwrap();
        login.send("wrong".into()).unwrap();
        assert_eq!(login.throw(LoginError::Timeout), prompt("ada", 2));
        assert_eq!(login.throw(LoginError::Timeout), prompt("ada", 2));
        assert_eq!(
            login.send("open sesame".into()),
            Ok(Step::Complete(Session {
                user: "ada".into(),
                attempts: 2
            }))
        );
    });
}

#[test]
fn ex1_other_thrown_errors_end_the_dialogue() {
    watchdog_default(|| {
        let mut login = Login::new("open sesame", 3);
        login.send("ada".into()).unwrap();
        assert_eq!(
            login.throw(LoginError::Cancelled),
            Err(CoError::Raised(LoginError::Cancelled))
        );
        assert_eq!(
            login.send("open sesame".into()),
            Err(CoError::ResumedAfterCompletion)
        );
    });
}

/// Only `Timeout` is handled at the prompt: any other error thrown there ends the
/// dialogue, `Locked` included (the dialogue raises it itself, but it is no `Timeout`).
#[test]
fn ex1_only_a_timeout_is_handled_while_a_password_is_awaited() {
    watchdog_default(|| {
        let mut login = Login::new("open sesame", 3);
        login.send("ada".into()).unwrap();
        let locked = LoginError::Locked { user: "eve".into() };
        assert_eq!(login.throw(locked.clone()), Err(CoError::Raised(locked)));
        assert_eq!(
            login.send("open sesame".into()),
            Err(CoError::ResumedAfterCompletion)
        );
    });
}

/// A timeout is no wrong guess, even on the last attempt: the same attempt is asked
/// again, and only a wrong guess there locks the account.
#[test]
fn ex1_a_timeout_on_the_last_attempt_asks_for_it_again() {
    watchdog_default(|| {
        let mut login = Login::new("open sesame", 1);
        assert_eq!(login.send("ada".into()), prompt("ada", 1));
        assert_eq!(login.throw(LoginError::Timeout), prompt("ada", 1));
        assert_eq!(
            login.send("open sesame".into()),
            Ok(Step::Complete(Session {
                user: "ada".into(),
                attempts: 1
            }))
        );

        let mut login = Login::new("open sesame", 2);
        login.send("bob".into()).unwrap();
        assert_eq!(login.send("one".into()), prompt("bob", 2));
        assert_eq!(login.throw(LoginError::Timeout), prompt("bob", 2));
        assert_eq!(
            login.send("two".into()),
            Err(CoError::Raised(LoginError::Locked { user: "bob".into() }))
        );
    });
}

#[test]
fn ex1_nothing_is_handled_while_waiting_for_the_user_name() {
    watchdog_default(|| {
        let mut login = Login::new("open sesame", 3);
        assert_eq!(
            login.throw(LoginError::Timeout),
            Err(CoError::Raised(LoginError::Timeout))
        );
        assert_eq!(
            login.send("ada".into()),
            Err(CoError::ResumedAfterCompletion)
        );
    });
}

#[test]
fn ex1_resuming_a_completed_login_is_an_error_every_time() {
    watchdog_default(|| {
        // One login that returned, one that raised: both have ended.
        let mut completed = Login::new("s", 1);
        completed.send("ada".into()).unwrap();
        completed.send("s".into()).unwrap();
        let mut raised = Login::new("s", 1);
        raised.send("bob".into()).unwrap();
        assert_eq!(
            raised.send("wrong".into()),
            Err(CoError::Raised(LoginError::Locked { user: "bob".into() }))
        );
        for login in [&mut completed, &mut raised] {
            for _ in 0..2 {
                assert_eq!(login.send("s".into()), Err(CoError::ResumedAfterCompletion));
                assert_eq!(
                    login.throw(LoginError::Timeout),
                    Err(CoError::ResumedAfterCompletion)
                );
            }
        }
    });
}

// The protocol, through the machines the chapter shows in full.

#[test]
fn ex1_countdown_yields_each_number_then_returns() {
    watchdog_default(|| {
        let mut countdown = Countdown::new(3);
        let mut steps = Vec::new();
        while let Ok(step) = countdown.send(()) {
            steps.push(step);
        }
        let expected = [
            Step::Yielded(3),
            Step::Yielded(2),
            Step::Yielded(1),
            Step::Complete("liftoff"),
        ];
        assert_eq!(steps, expected);
        assert_eq!(countdown.send(()), Err(CoError::ResumedAfterCompletion));
    });
}

#[test]
fn ex1_averager_handles_reset_and_is_ended_by_cancel() {
    watchdog_default(|| {
        let mut avg = Averager::new();
        assert_eq!(avg.send(Some(10.0)), Ok(Step::Yielded(Some(10.0))));
        assert_eq!(avg.send(Some(20.0)), Ok(Step::Yielded(Some(15.0))));
        // Handled at the suspension point: the coroutine carries on.
        assert_eq!(avg.throw(Interrupt::Reset), Ok(Step::Yielded(None)));
        assert_eq!(avg.send(Some(4.0)), Ok(Step::Yielded(Some(4.0))));
        // Not handled: it ends the coroutine, which is then finished for good.
        assert_eq!(
            avg.throw(Interrupt::Cancel),
            Err(CoError::Raised(Interrupt::Cancel))
        );
        assert_eq!(avg.send(Some(1.0)), Err(CoError::ResumedAfterCompletion));
    });
}

#[test]
fn ex1_averager_returns_its_count_like_stop_iteration_value() {
    watchdog_default(|| {
        let mut avg = Averager::new();
        avg.send(Some(1.0)).unwrap();
        avg.send(Some(2.0)).unwrap();
        assert_eq!(avg.send(None), Ok(Step::Complete(2)));
    });
}

#[test]
fn ex1_the_misuse_error_explains_itself() {
    watchdog_default(|| {
        let message = CoError::<Interrupt>::ResumedAfterCompletion.to_string();
        assert!(message.contains("resumed after completion"), "{message}");
    });
}

/// A coroutine holding a resource across its one suspension point:
///
/// ```python
/// def holder(resource):
///     yield "holding"       # Suspend0: `resource` is alive here
///     return "released"     # ...and dropped here
/// ```
struct Holder {
    state: HolderState,
}

enum HolderState {
    Unresumed { resource: DropGuard },
    Suspend0 { resource: DropGuard },
    Returned,
}

impl Coroutine for Holder {
    type Input = ();
    type Yield = &'static str;
    type Return = &'static str;
    type Error = ();

    fn resume(&mut self, input: Resume<(), ()>) -> Resumed<&'static str, &'static str, ()> {
        match (
            std::mem::replace(&mut self.state, HolderState::Returned),
            input,
        ) {
            (HolderState::Unresumed { resource }, Resume::Send(())) => {
                self.state = HolderState::Suspend0 { resource };
                Ok(Step::Yielded("holding"))
            }
            (HolderState::Suspend0 { resource }, Resume::Send(())) => {
                drop(resource);
                Ok(Step::Complete("released"))
            }
            (HolderState::Returned, _) => Err(CoError::ResumedAfterCompletion),
            (_, Resume::Throw(())) => Err(CoError::Raised(())),
        }
    }
}

#[test]
fn ex1_close_is_drop_and_runs_the_cleanup_of_the_live_state() {
    watchdog_default(|| {
        let flag = DropFlag::new();
        let mut holder = Holder {
            state: HolderState::Unresumed {
                resource: flag.guard(),
            },
        };
        assert_eq!(holder.send(()), Ok(Step::Yielded("holding")));
        assert!(!flag.dropped(), "the resource lives across the suspension");
        // Python's `close()`: here it is simply dropping the suspended coroutine.
        drop(holder);
        assert_eq!(flag.drops(), 1);
    });
}

#[test]
fn ex1_completion_and_raising_release_the_state_too() {
    watchdog_default(|| {
        let completed = DropFlag::new();
        let mut holder = Holder {
            state: HolderState::Unresumed {
                resource: completed.guard(),
            },
        };
        holder.send(()).unwrap();
        assert_eq!(holder.send(()), Ok(Step::Complete("released")));
        assert_eq!(
            completed.drops(),
            1,
            "released before the coroutine is dropped"
        );

        let raised = DropFlag::new();
        let mut holder = Holder {
            state: HolderState::Unresumed {
                resource: raised.guard(),
            },
        };
        holder.send(()).unwrap();
        assert_eq!(holder.throw(()), Err(CoError::Raised(())));
        assert_eq!(raised.drops(), 1);
    });
}
