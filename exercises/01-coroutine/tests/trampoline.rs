//! Exercise 2 (chapter 1.3): the trampoline runs chains of coroutines without recursion.
//!
//! The frames below are small hand-written coroutines; each says which Python generator
//! it stands for. Every chain uses `i64` values and `String` errors.

use ex01_coroutine::{CoError, Coroutine, Descend, Frame, Op, Resume, Resumed, Step, Trampoline};
use oneloop_testkit::{DropFlag, DropGuard, watchdog_default};

type Out = Resumed<Op<i64, String>, i64, String>;

/// The associated types of a `Frame<i64, String>`, which every frame below is: `i64` in,
/// `i64` out, suspensions and calls as `Op`, `String` errors. Used inside each
/// `impl Coroutine`, next to that frame's own `resume`.
macro_rules! frame_types {
    () => {
        type Input = i64;
        type Yield = Op<i64, String>;
        type Return = i64;
        type Error = String;
    };
}

/// The value sent in. A thrown error ends the frame: these bodies have no `try`.
fn sent(input: Resume<i64, String>) -> Result<i64, CoError<String>> {
    match input {
        Resume::Send(value) => Ok(value),
        Resume::Throw(error) => Err(CoError::Raised(error)),
    }
}

/// ```python
/// def read_number(tag):
///     value = yield tag      # suspends the whole chain, asking the outside for a number
///     return value
/// ```
struct ReadNumber {
    waiting: bool,
    _guard: Option<DropGuard>,
}

fn read_number(guard: Option<DropGuard>) -> Frame<i64, String> {
    Box::new(ReadNumber {
        waiting: false,
        _guard: guard,
    })
}

impl Coroutine for ReadNumber {
    frame_types!();

    fn resume(&mut self, input: Resume<i64, String>) -> Out {
        let value = sent(input)?;
        if self.waiting {
            // Resumed at the `yield`: the value sent in is the number asked for.
            Ok(Step::Complete(value))
        } else {
            // The first input is the tag to suspend the whole chain with.
            self.waiting = true;
            Ok(Step::Yielded(Op::Suspend(value)))
        }
    }
}

/// ```python
/// def add_two(_):
///     a = yield from read_number(1)
///     b = yield from read_number(2)
///     return a + b
/// ```
struct AddTwo {
    stage: u8,
    a: i64,
    flag: Option<DropFlag>,
    _guard: Option<DropGuard>,
}

fn add_two(flag: Option<DropFlag>) -> Frame<i64, String> {
    let guard = flag.as_ref().map(DropFlag::guard);
    Box::new(AddTwo {
        stage: 0,
        a: 0,
        flag,
        _guard: guard,
    })
}

impl Coroutine for AddTwo {
    frame_types!();

    fn resume(&mut self, input: Resume<i64, String>) -> Out {
        let value = sent(input)?;
        let child_guard = || self.flag.as_ref().map(DropFlag::guard);
        match self.stage {
            0 => {
                self.stage = 1;
                let callee = read_number(child_guard());
                Ok(Step::Yielded(Op::Call { callee, arg: 1 }))
            }
            1 => {
                self.stage = 2;
                self.a = value;
                let callee = read_number(child_guard());
                Ok(Step::Yielded(Op::Call { callee, arg: 2 }))
            }
            _ => Ok(Step::Complete(self.a + value)),
        }
    }
}

/// ```python
/// def product(_):
///     x = yield from add_two(0)
///     y = yield from add_two(0)
///     return x * y
/// ```
struct Product {
    stage: u8,
    x: i64,
}

impl Coroutine for Product {
    frame_types!();

    fn resume(&mut self, input: Resume<i64, String>) -> Out {
        let value = sent(input)?;
        self.stage += 1;
        match self.stage {
            1 => Ok(Step::Yielded(Op::Call {
                callee: add_two(None),
                arg: 0,
            })),
            2 => {
                self.x = value;
                Ok(Step::Yielded(Op::Call {
                    callee: add_two(None),
                    arg: 0,
                }))
            }
            _ => Ok(Step::Complete(self.x * value)),
        }
    }
}

/// ```python
/// def fail(_):
///     raise Error("boom")
/// ```
struct Fail;

impl Coroutine for Fail {
    frame_types!();

    fn resume(&mut self, _input: Resume<i64, String>) -> Out {
        Err(CoError::Raised("boom".to_owned()))
    }
}

/// ```python
/// def catch(child):
///     try:
///         return (yield from child(7))
///     except Error as e:
///         return -len(str(e))
/// ```
struct Catch {
    child: Option<Frame<i64, String>>,
}

impl Coroutine for Catch {
    frame_types!();

    fn resume(&mut self, input: Resume<i64, String>) -> Out {
        match (self.child.take(), input) {
            (Some(callee), _) => Ok(Step::Yielded(Op::Call { callee, arg: 7 })),
            (None, Resume::Send(value)) => Ok(Step::Complete(value)),
            (None, Resume::Throw(error)) => Ok(Step::Complete(-(error.len() as i64))),
        }
    }
}

#[test]
fn ex2_a_childs_return_value_is_sent_to_its_parent() {
    watchdog_default(|| {
        let mut chain = Trampoline::new(add_two(None));
        assert_eq!(chain.send(0), Ok(Step::Yielded(1)));
        assert_eq!(chain.frames(), 2, "add_two waits on read_number(1)");
        assert_eq!(chain.send(5), Ok(Step::Yielded(2)));
        assert_eq!(
            chain.frames(),
            2,
            "read_number(1) ended, read_number(2) runs"
        );
        assert_eq!(chain.send(7), Ok(Step::Complete(12)));
        assert_eq!(chain.frames(), 0);
    });
}

#[test]
fn ex2_a_suspension_passes_out_through_three_levels() {
    watchdog_default(|| {
        let mut chain = Trampoline::new(Box::new(Product { stage: 0, x: 0 }));
        assert_eq!(chain.send(0), Ok(Step::Yielded(1)));
        assert_eq!(chain.frames(), 3, "product -> add_two -> read_number");
        assert_eq!(chain.send(2), Ok(Step::Yielded(2)));
        assert_eq!(chain.send(3), Ok(Step::Yielded(1)));
        assert_eq!(chain.send(4), Ok(Step::Yielded(2)));
        assert_eq!(chain.send(6), Ok(Step::Complete((2 + 3) * (4 + 6))));
    });
}

#[test]
fn ex2_an_error_raised_by_a_child_is_thrown_into_its_parent() {
    watchdog_default(|| {
        let mut chain = Trampoline::new(Box::new(Catch {
            child: Some(Box::new(Fail)),
        }));
        assert_eq!(chain.send(0), Ok(Step::Complete(-4)), "caught \"boom\"");
        assert_eq!(chain.frames(), 0);
    });
}

#[test]
fn ex2_an_error_thrown_from_outside_reaches_the_innermost_frame() {
    watchdog_default(|| {
        let mut chain = Trampoline::new(Box::new(Catch {
            child: Some(read_number(None)),
        }));
        assert_eq!(chain.send(0), Ok(Step::Yielded(7)));
        // read_number does not handle it; catch, its parent, does.
        assert_eq!(chain.throw("late".to_owned()), Ok(Step::Complete(-4)));
    });
}

/// ```python
/// def patient(tag):
///     try:
///         return (yield tag)
///     except Error:
///         return (yield -1)    # handled: asks again, with -1
/// ```
struct Patient {
    asked: u8,
}

impl Coroutine for Patient {
    frame_types!();

    fn resume(&mut self, input: Resume<i64, String>) -> Out {
        self.asked += 1;
        match (self.asked, input) {
            (1, input) => Ok(Step::Yielded(Op::Suspend(sent(input)?))),
            (2, Resume::Throw(_)) => Ok(Step::Yielded(Op::Suspend(-1))),
            (_, input) => Ok(Step::Complete(sent(input)?)),
        }
    }
}

#[test]
fn ex2_an_error_thrown_from_outside_is_handled_by_the_innermost_frame_if_it_can() {
    watchdog_default(|| {
        let mut chain = Trampoline::new(Box::new(Catch {
            child: Some(Box::new(Patient { asked: 0 })),
        }));
        assert_eq!(chain.send(0), Ok(Step::Yielded(7)));
        // patient handles it and suspends again; catch, its parent, never sees it.
        assert_eq!(chain.throw("late".to_owned()), Ok(Step::Yielded(-1)));
        assert_eq!(chain.frames(), 2);
        assert_eq!(chain.send(9), Ok(Step::Complete(9)));
    });
}

/// A frame that breaks the protocol: every resume says it had already ended.
struct Broken;

impl Coroutine for Broken {
    frame_types!();

    fn resume(&mut self, _input: Resume<i64, String>) -> Out {
        Err(CoError::ResumedAfterCompletion)
    }
}

#[test]
fn ex2_a_frame_that_reports_resumed_after_completion_ends_the_whole_chain() {
    watchdog_default(|| {
        let mut chain = Trampoline::new(Box::new(Catch {
            child: Some(Box::new(Broken)),
        }));
        assert_eq!(chain.send(0), Err(CoError::ResumedAfterCompletion));
        assert_eq!(
            chain.frames(),
            0,
            "every frame of the broken chain is dropped"
        );
        assert_eq!(chain.send(0), Err(CoError::ResumedAfterCompletion));
    });
}

#[test]
fn ex2_an_unhandled_error_unwinds_the_whole_chain() {
    watchdog_default(|| {
        let mut chain = Trampoline::new(Box::new(Product { stage: 0, x: 0 }));
        chain.send(0).unwrap();
        assert_eq!(
            chain.throw("stop".to_owned()),
            Err(CoError::Raised("stop".to_owned()))
        );
        assert_eq!(chain.frames(), 0);
    });
}

#[test]
fn ex2_resuming_an_ended_chain_is_an_error() {
    watchdog_default(|| {
        let mut chain = Trampoline::new(Box::new(Descend::new()));
        assert_eq!(chain.send(2), Ok(Step::Complete(2)));
        assert_eq!(chain.send(2), Err(CoError::ResumedAfterCompletion));
        assert_eq!(
            chain.throw("late".to_owned()),
            Err(CoError::ResumedAfterCompletion)
        );
    });
}

#[test]
fn ex2_a_chain_100_000_frames_deep_runs_without_recursion() {
    // A resume that called the child's resume from inside the parent's would need
    // 100 000 nested Rust calls here, far more than the test thread's stack holds.
    watchdog_default(|| {
        let mut chain = Trampoline::new(Box::new(Descend::new()));
        assert_eq!(chain.send(100_000), Ok(Step::Complete(100_000)));
    });
}

#[test]
fn ex2_a_frame_is_dropped_as_soon_as_it_returns() {
    watchdog_default(|| {
        let flag = DropFlag::new();
        let mut chain = Trampoline::new(add_two(Some(flag.clone())));
        chain.send(0).unwrap();
        assert_eq!(flag.drops(), 0);
        chain.send(5).unwrap();
        assert_eq!(flag.drops(), 1, "read_number(1) returned and is gone");
        chain.send(7).unwrap();
        assert_eq!(flag.drops(), 3, "everything returned");
    });
}

#[test]
fn ex2_dropping_a_suspended_chain_drops_every_frame() {
    watchdog_default(|| {
        let flag = DropFlag::new();
        let mut chain = Trampoline::new(add_two(Some(flag.clone())));
        chain.send(0).unwrap();
        assert_eq!(chain.frames(), 2);
        // Closing a chain is dropping it: the parent and the child it waits on.
        drop(chain);
        assert_eq!(flag.drops(), 2);
    });
}

/// ```python
/// def watcher(flag):
///     try:
///         yield from read_number(1)    # read_number holds a guard on `flag`
///     except Error:
///         pass
///     return flag.drops               # how many of the child's guards are gone now
/// ```
struct Watcher {
    flag: DropFlag,
    called: bool,
}

impl Coroutine for Watcher {
    frame_types!();

    fn resume(&mut self, _input: Resume<i64, String>) -> Out {
        if self.called {
            Ok(Step::Complete(self.flag.drops() as i64))
        } else {
            self.called = true;
            let callee = read_number(Some(self.flag.guard()));
            Ok(Step::Yielded(Op::Call { callee, arg: 1 }))
        }
    }
}

#[test]
fn ex2_a_frame_that_ends_is_dropped_before_its_parent_resumes() {
    watchdog_default(|| {
        // Returned: the child is gone by the time its value reaches the parent.
        let flag = DropFlag::new();
        let mut chain = Trampoline::new(Box::new(Watcher {
            flag: flag.clone(),
            called: false,
        }));
        assert_eq!(chain.send(0), Ok(Step::Yielded(1)));
        assert_eq!(chain.send(5), Ok(Step::Complete(1)), "the child was alive");

        // Raised: the same, before its error is thrown into the parent.
        let flag = DropFlag::new();
        let mut chain = Trampoline::new(Box::new(Watcher {
            flag: flag.clone(),
            called: false,
        }));
        assert_eq!(chain.send(0), Ok(Step::Yielded(1)));
        assert_eq!(
            chain.throw("stop".to_owned()),
            Ok(Step::Complete(1)),
            "the child was alive"
        );
    });
}

// `Descend` itself (the challenge's file): its base case, and an error thrown into it.

#[test]
fn ex2_descend_of_zero_returns_zero_with_no_call() {
    watchdog_default(|| {
        let mut chain = Trampoline::new(Box::new(Descend::new()));
        assert_eq!(chain.send(0), Ok(Step::Complete(0)));
        assert_eq!(chain.frames(), 0);
        let mut chain = Trampoline::new(Box::new(Descend::new()));
        assert_eq!(chain.send(1), Ok(Step::Complete(1)));
    });
}

#[test]
fn ex2_descend_has_no_try_an_error_thrown_into_it_ends_it() {
    watchdog_default(|| {
        // Thrown at the call it waits on: raised, and the frame is finished.
        let mut descend = Descend::new();
        match descend.send(3) {
            Ok(Step::Yielded(Op::Call { arg, .. })) => assert_eq!(arg, 2),
            other => panic!("descend(3) must call descend(2); it gave {other:?}"),
        }
        match descend.throw("stop".to_owned()) {
            Err(CoError::Raised(error)) => assert_eq!(error, "stop"),
            other => panic!("the error must end descend; it gave {other:?}"),
        }
        assert!(matches!(
            descend.send(1),
            Err(CoError::ResumedAfterCompletion)
        ));

        // Thrown before its first input: the same.
        let mut descend = Descend::new();
        assert!(matches!(
            descend.throw("early".to_owned()),
            Err(CoError::Raised(error)) if error == "early"
        ));
        assert!(matches!(
            descend.send(0),
            Err(CoError::ResumedAfterCompletion)
        ));
        let mut chain = Trampoline::new(Box::new(Descend::new()));
        assert_eq!(
            chain.throw("early".to_owned()),
            Err(CoError::Raised("early".to_owned()))
        );
        assert_eq!(chain.frames(), 0);
    });
}
