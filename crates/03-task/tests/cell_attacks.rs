//! The task cell's counts under attack: wakers held inside the very body the last
//! `TaskRef` drops, wakers outliving the slab and the executor, wakers cloned and
//! dropped on other threads while their tasks finish. Each test checks, through the
//! scheduler's own `Arc` (every cell holds one), that every cell is freed exactly when
//! its last owner goes; run under valgrind, a wrong order is a use after free.

use std::cell::RefCell;
use std::future::{Future, pending, poll_fn};
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::rc::Rc;
use std::sync::{Arc, Barrier, Mutex, mpsc};
use std::task::{Context, Poll, Waker};
use std::thread;

use oneloop_task::hooks::{ExceptionSink, spawn_into};
use oneloop_task::{BlockOnError, Executor, JoinError, StepOutcome, Tasks, step};
use oneloop_testkit::{DropFlag, DropGuard, watchdog_default};

use crate::common::Recorder;

/// A waker of the task that holds it; when dropped, it clones itself, wakes both
/// ways, and drops the clone before its own waker goes.
struct OwnWaker {
    waker: Waker,
    _guard: DropGuard,
}

impl Drop for OwnWaker {
    fn drop(&mut self) {
        let clone = self.waker.clone();
        assert!(clone.will_wake(&self.waker));
        clone.wake_by_ref();
        clone.wake();
        self.waker.wake_by_ref();
    }
}

/// Keeps a clone of its waker at its first poll; then drains the slab it lives in and
/// panics.
struct DrainsThenPanics {
    tasks: Rc<RefCell<Tasks<Recorder>>>,
    own: Option<OwnWaker>,
    guard: Option<DropGuard>,
}

impl Future for DrainsThenPanics {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let guard = self.guard.take().expect("polled once");
        self.own = Some(OwnWaker {
            waker: cx.waker().clone(),
            _guard: guard,
        });
        let drained = self.tasks.borrow_mut().drain();
        drop(drained);
        panic!("after the drain");
    }
}

#[test]
fn a_bare_task_that_drains_its_slab_then_panics_is_dropped_once_by_its_last_ref() {
    // A bare task's panic unwinds out of the step; the step's `TaskRef` is then the
    // last one and drops the body with the future still in it (the drain could not,
    // the poll held it). Catches a body that is not dropped (a leak) or dropped after
    // the loop's count is gone (the future's own waker then frees the cell under it).
    watchdog_default(|| {
        let recorder = Arc::new(Recorder::default());
        let tasks = Rc::new(RefCell::new(Tasks::new(Arc::clone(&recorder))));
        let base = Arc::strong_count(&recorder);
        let drops = DropFlag::new();
        let future = DrainsThenPanics {
            tasks: Rc::clone(&tasks),
            own: None,
            guard: Some(drops.guard()),
        };
        let id = tasks.borrow_mut().insert(future, None);
        let unwound = panic::catch_unwind(AssertUnwindSafe(|| step(&tasks, id)));
        assert!(unwound.is_err(), "a bare task's panic is not caught");
        assert_eq!(drops.drops(), 1, "the future was dropped, once");
        assert_eq!(recorder.taken(), vec![id; 3]);
        assert!(tasks.borrow().is_empty());
        assert_eq!(Arc::strong_count(&recorder), base, "the cell is freed");
    });
}

/// Panics at its first poll; its drop is counted.
struct PanicsAtOnce {
    _drops: DropGuard,
}

impl Future for PanicsAtOnce {
    type Output = ();
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        panic!("at the first poll");
    }
}

#[test]
fn a_bare_task_whose_poll_panics_stays_running_until_its_caller_removes_it() {
    // The contract `Tasks::insert` states: `step` catches no panic, so the slot of a
    // bare task whose poll unwound still says a step holds it. A later step of it is
    // stale (no second poll of a future that panicked), and the caller frees it, as
    // stage 4's loop does after it catches the panic: the future is dropped then, once.
    watchdog_default(|| {
        let recorder = Arc::new(Recorder::default());
        let tasks = RefCell::new(Tasks::new(Arc::clone(&recorder)));
        let base = Arc::strong_count(&recorder);
        let drops = DropFlag::new();
        let id = tasks.borrow_mut().insert(
            PanicsAtOnce {
                _drops: drops.guard(),
            },
            None,
        );
        let unwound = panic::catch_unwind(AssertUnwindSafe(|| step(&tasks, id)));
        assert!(unwound.is_err(), "a bare task's panic is not caught");
        assert_eq!(drops.drops(), 0, "the future is still in its slot");
        assert!(
            tasks.borrow().get(id).is_some_and(|slot| slot.is_running()),
            "the slot still says a step holds it"
        );
        assert_eq!(
            step(&tasks, id),
            StepOutcome::Stale,
            "it is not polled again"
        );
        let removed = tasks.borrow_mut().remove(id);
        assert!(removed.is_some(), "the caller frees the slot");
        drop(removed);
        assert_eq!(drops.drops(), 1, "the future was dropped, once");
        assert!(tasks.borrow().is_empty());
        assert_eq!(Arc::strong_count(&recorder), base, "the cell is freed");
    });
}

/// Pending for ever; sends a clone of its waker at its first poll.
struct SendsItsWaker(Option<mpsc::Sender<Waker>>);

impl Future for SendsItsWaker {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if let Some(sender) = self.0.take() {
            sender.send(cx.waker().clone()).expect("the test receives");
        }
        Poll::Pending
    }
}

#[test]
fn wakers_and_a_handle_outlive_their_executor_and_the_wakers_free_the_cell_elsewhere() {
    // Catches a cell freed with the slab or the executor while wakers still point at it,
    // and a handle that no longer reads its cell once the executor is gone.
    watchdog_default(|| {
        let (sender, wakers) = mpsc::channel();
        let executor = Executor::new();
        let handle = executor.spawn(SendsItsWaker(Some(sender)));
        executor.run_until_idle();
        let waker = wakers.recv().expect("the task sent its waker");
        let clone = waker.clone();
        drop(executor);
        assert!(
            handle.is_finished(),
            "dropping the executor cancels the task"
        );
        assert_eq!(handle.try_take(), Some(Err(JoinError::Cancelled)));
        drop(handle);
        // The queue outlives its executor too: a wake pushes a stale id nobody pops.
        clone.wake_by_ref();
        let start = Arc::new(Barrier::new(2));
        let other = {
            let start = Arc::clone(&start);
            thread::spawn(move || {
                start.wait();
                clone.wake();
            })
        };
        start.wait();
        waker.wake();
        other.join().expect("the waking thread does not panic");
    });
}

#[test]
fn wakers_dropped_on_other_threads_while_the_loop_drains_free_each_cell_once() {
    // Catches a count shared non-atomically between the loop and the wakers, or a
    // body dropped by whichever side goes last: the threads drop their wakers while
    // the loop drops the tasks.
    const TASKS: usize = 8;
    const THREADS: usize = 4;
    const ROUNDS: usize = 20;
    watchdog_default(|| {
        for _ in 0..ROUNDS {
            let recorder = Arc::new(Recorder::default());
            let tasks = RefCell::new(Tasks::new(Arc::clone(&recorder)));
            let sink = ExceptionSink::new();
            let base = Arc::strong_count(&recorder);
            let drops = DropFlag::new();
            let (sender, wakers) = mpsc::channel();
            let mut handles = Vec::new();
            for _ in 0..TASKS {
                let guard = drops.guard();
                let sender = sender.clone();
                let mut sent = false;
                let future = poll_fn(move |cx| {
                    let _ = &guard;
                    if !std::mem::replace(&mut sent, true) {
                        sender.send(cx.waker().clone()).expect("the test receives");
                        return Poll::Pending;
                    }
                    Poll::Ready(())
                });
                let (id, handle) = spawn_into(&tasks, &sink, future, None);
                assert_eq!(step(&tasks, id), StepOutcome::Pending);
                handles.push((id, handle));
            }
            let wakers: Arc<Mutex<Vec<Waker>>> =
                Arc::new(Mutex::new(wakers.try_iter().take(TASKS).collect()));
            assert_eq!(tasks.borrow().wakers_held_elsewhere(), TASKS);
            let start = Arc::new(Barrier::new(THREADS + 1));
            let threads: Vec<_> = (0..THREADS)
                .map(|_| {
                    let mine: Vec<Waker> = wakers.lock().expect("not poisoned").clone();
                    let start = Arc::clone(&start);
                    thread::spawn(move || {
                        start.wait();
                        for waker in mine {
                            let clone = waker.clone();
                            waker.wake_by_ref();
                            drop(waker);
                            clone.wake();
                        }
                    })
                })
                .collect();
            drop(wakers);
            start.wait();
            // Half the tasks finish, the rest are drained, while the threads run.
            for (id, _) in handles.iter().step_by(2) {
                assert_eq!(step(&tasks, *id), StepOutcome::Finished);
            }
            drop(handles);
            drop(tasks.borrow_mut().drain());
            for thread in threads {
                thread.join().expect("a waking thread does not panic");
            }
            assert_eq!(drops.drops(), TASKS);
            assert_eq!(recorder.taken().len(), TASKS * THREADS * 2);
            assert_eq!(Arc::strong_count(&recorder), base, "every cell is freed");
        }
    });
}

#[test]
fn the_lent_waker_counts_nothing_and_is_the_same_waker_as_its_clones() {
    // Catches a lent waker (or a step's own `TaskRef`) that takes a count: the stall
    // check would see a waker that nobody holds; and a lent waker that is not
    // `will_wake`-equal to its clones (another data pointer or vtable), which makes a
    // join handle replace its joiner at every poll.
    watchdog_default(|| {
        let recorder = Arc::new(Recorder::default());
        let tasks = Rc::new(RefCell::new(Tasks::new(Arc::clone(&recorder))));
        let sink = ExceptionSink::new();
        let seen = Rc::new(RefCell::new(Vec::new()));
        let kept: Rc<RefCell<Option<Waker>>> = Rc::new(RefCell::new(None));
        let future = {
            let tasks = Rc::clone(&tasks);
            let seen = Rc::clone(&seen);
            let kept = Rc::clone(&kept);
            poll_fn(move |cx| {
                let held = || tasks.borrow().wakers_held_elsewhere();
                let mut seen = seen.borrow_mut();
                seen.push(held());
                let clone = cx.waker().clone();
                seen.push(held());
                assert_eq!(clone.data(), cx.waker().data(), "one cell pointer");
                assert!(cx.waker().will_wake(&clone));
                if let Some(old) = &*kept.borrow() {
                    assert!(cx.waker().will_wake(old), "the same waker at every poll");
                }
                drop(clone);
                seen.push(held());
                kept.borrow_mut().get_or_insert_with(|| cx.waker().clone());
                Poll::<()>::Pending
            })
        };
        let (id, handle) = spawn_into(&tasks, &sink, future, None);
        assert_eq!(
            tasks.borrow().wakers_held_elsewhere(),
            0,
            "handles are no wakers"
        );
        assert_eq!(step(&tasks, id), StepOutcome::Pending);
        assert_eq!(step(&tasks, id), StepOutcome::Pending);
        assert_eq!(*seen.borrow(), vec![0, 1, 0, 1, 2, 1]);
        let slot_waker = tasks.borrow().get(id).expect("live").waker();
        assert_eq!(
            Some(slot_waker.data()),
            kept.borrow().as_ref().map(Waker::data)
        );
        drop(slot_waker);
        drop(kept.borrow_mut().take());
        assert_eq!(tasks.borrow().wakers_held_elsewhere(), 0);
        drop(handle);
        drop(tasks.borrow_mut().drain());
    });
}

#[test]
fn block_on_sees_a_stall_only_once_no_waker_is_held() {
    // Catches a count off by one either way: a lent waker counted makes `block_on`
    // park for ever (the watchdog fails the test); a waker on another thread not
    // counted makes it report a stall while that thread is about to wake it.
    watchdog_default(|| {
        let executor = Executor::new();
        assert!(matches!(
            executor.block_on(pending::<()>()),
            Err(BlockOnError::Stalled)
        ));
        let executor = Executor::new();
        let go = Arc::new(Barrier::new(2));
        let (sender, wakers) = mpsc::channel::<Waker>();
        let other = {
            let go = Arc::clone(&go);
            thread::spawn(move || {
                let waker = wakers.recv().expect("the task sends its waker");
                go.wait();
                waker.wake();
            })
        };
        let mut sent = false;
        let main = poll_fn(move |cx| {
            if std::mem::replace(&mut sent, true) {
                return Poll::Ready(7);
            }
            sender
                .send(cx.waker().clone())
                .expect("the thread receives");
            go.wait();
            Poll::Pending
        });
        assert_eq!(executor.block_on(main).expect("woken, not stalled"), 7);
        other.join().expect("the waking thread does not panic");
    });
}

/// An output that wakes its own task and panics when dropped.
struct PanicsWhenDropped(Waker);

impl Drop for PanicsWhenDropped {
    fn drop(&mut self) {
        self.0.wake_by_ref();
        panic!("the output's drop");
    }
}

#[test]
fn an_output_whose_drop_panics_in_the_last_handle_still_frees_the_cell() {
    // Catches a last `TaskRef` that gives up the loop's count only after the body's
    // drop returns: the panic skips it and the cell leaks (valgrind: definitely lost),
    // and one that gives it up before the body's remaining fields (the output's waker)
    // are dropped by the unwind.
    watchdog_default(|| {
        let recorder = Arc::new(Recorder::default());
        let tasks = RefCell::new(Tasks::new(Arc::clone(&recorder)));
        let sink = ExceptionSink::new();
        let base = Arc::strong_count(&recorder);
        let future = poll_fn(|cx| Poll::Ready(PanicsWhenDropped(cx.waker().clone())));
        let (id, handle) = spawn_into(&tasks, &sink, future, None);
        assert_eq!(step(&tasks, id), StepOutcome::Finished);
        let unwound = panic::catch_unwind(AssertUnwindSafe(move || drop(handle)));
        assert!(
            unwound.is_err(),
            "the output's panic reaches the handle's owner"
        );
        assert_eq!(recorder.taken(), vec![id]);
        assert_eq!(Arc::strong_count(&recorder), base, "the cell is freed");
    });
}

/// Panics at every `schedule` once `refuse` is set; counts the others.
#[derive(Default)]
struct Refuses {
    refuse: std::sync::atomic::AtomicBool,
}

impl oneloop_task::Schedule for Refuses {
    fn schedule(&self, _id: oneloop_task::TaskId) {
        if self.refuse.load(std::sync::atomic::Ordering::SeqCst) {
            panic!("the scheduler refuses");
        }
    }
}

#[test]
fn a_wake_whose_scheduler_panics_still_gives_up_its_waker() {
    // `Waker::wake` consumes the waker: its count must go even when the scheduler
    // panics (std's `Wake` wakers drop their `Arc` in the unwind). Catches a `wake`
    // that gives the count up only after a `schedule` that returned: the count leaks,
    // the stall check counts a waker nobody holds, and the cell is never freed.
    watchdog_default(|| {
        let scheduler = Arc::new(Refuses::default());
        let tasks = RefCell::new(Tasks::new(Arc::clone(&scheduler)));
        let sink = ExceptionSink::new();
        let base = Arc::strong_count(&scheduler);
        let (id, handle) = spawn_into(&tasks, &sink, pending::<()>(), None);
        let waker = tasks.borrow().get(id).expect("live").waker();
        assert_eq!(tasks.borrow().wakers_held_elsewhere(), 1);
        scheduler
            .refuse
            .store(true, std::sync::atomic::Ordering::SeqCst);
        let woken = panic::catch_unwind(AssertUnwindSafe(move || waker.wake()));
        assert!(
            woken.is_err(),
            "the scheduler's panic reaches the waker's owner"
        );
        assert_eq!(
            tasks.borrow().wakers_held_elsewhere(),
            0,
            "the waker was consumed: nobody holds it"
        );
        drop(handle);
        drop(tasks.borrow_mut().drain());
        assert_eq!(Arc::strong_count(&scheduler), base, "the cell is freed");
    });
}

/// A joiner whose wake panics.
struct PanicsWhenWoken;

impl std::task::Wake for PanicsWhenWoken {
    fn wake(self: Arc<Self>) {
        panic!("the joiner refuses to be woken");
    }
}

#[test]
fn a_step_that_unwinds_after_its_slot_was_emptied_still_tells_the_done_callbacks() {
    // The task empties its own slot, then finishes; writing its result wakes a joiner
    // that panics, so the step unwinds before it could drop the future and run the
    // done callbacks. The last `TaskRef` (the handle's, here) must do both when it
    // drops the body. Catches a body whose drop only frees the future's memory.
    watchdog_default(|| {
        let tasks = Rc::new(RefCell::new(Tasks::new(Arc::new(Recorder::default()))));
        let sink = ExceptionSink::new();
        let dropped = DropFlag::new();
        let guard = dropped.guard();
        let slab = Rc::clone(&tasks);
        let future = poll_fn(move |_cx| {
            let _ = &guard;
            drop(slab.borrow_mut().drain());
            Poll::Ready(5_u32)
        });
        let (id, mut handle) = spawn_into(&*tasks, &sink, future, None);
        let told = Rc::new(RefCell::new(Vec::new()));
        let tell = Rc::clone(&told);
        handle.add_done_callback(move |outcome| tell.borrow_mut().push(outcome));
        let joiner = Waker::from(Arc::new(PanicsWhenWoken));
        assert!(
            Pin::new(&mut handle)
                .poll(&mut Context::from_waker(&joiner))
                .is_pending()
        );
        let stepped = panic::catch_unwind(AssertUnwindSafe(|| step(&tasks, id)));
        assert!(
            stepped.is_err(),
            "the joiner's panic unwinds through the step"
        );
        assert_eq!(
            dropped.drops(),
            0,
            "the handle still holds the cell, future and all"
        );
        assert!(told.borrow().is_empty());
        assert_eq!(handle.try_take(), Some(Ok(5)), "the result was written");
        drop(handle);
        assert_eq!(
            dropped.drops(),
            1,
            "the last TaskRef dropped the future, once"
        );
        assert_eq!(
            *told.borrow(),
            vec![Ok(())],
            "and told the done callback, once"
        );
    });
}
