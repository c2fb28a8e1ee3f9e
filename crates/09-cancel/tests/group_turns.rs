//! The turns of a task group whose child fails, as chapter 9.4's figure draws them
//! (the figure's scenario is `taskgroup_one_fails` in `crates/trace`): the same
//! program, with an observer naming every handle the loop runs.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use oneloop_cancel::{Error, sleep, task_future, task_group};
use oneloop_core::{Label, Observer};
use oneloop_testkit::watchdog_default;

#[derive(Default)]
struct Handles(RefCell<Vec<(u64, String)>>);

impl Observer for Handles {
    fn handle_ran(&self, turn: u64, label: &Label, _elapsed: Duration) {
        self.0.borrow_mut().push((turn, label.to_string()));
    }
}

#[test]
fn a_failing_child_cancels_its_sibling_and_the_body_a_turn_after_it_fails() {
    watchdog_default(|| {
        let handles = Rc::new(Handles::default());
        let mut event_loop = oneloop_timers::virtual_time_loop();
        event_loop
            .core()
            .add_observer(Rc::clone(&handles) as Rc<dyn Observer>);
        // The main task is itself a task of this layer, as in the figure's scenario
        // and in CPython's `taskgroup_one_fails.py`, where the group runs in main.
        let (main, task) = task_future("main", async {
            task_group(|tg| async move {
                tg.spawn("a", async {
                    sleep(Duration::from_millis(500)).await?;
                    Ok(())
                })?;
                tg.spawn("bad", async {
                    sleep(Duration::from_millis(100)).await?;
                    Err::<(), _>(Error::Failed("boom".into()))
                })?;
                sleep(Duration::from_secs(100)).await?;
                Ok(())
            })
            .await
        });
        event_loop.run_until_complete(main).expect("the loop runs");
        assert_eq!(
            task.try_result().expect("main finished"),
            Err(Error::Group(vec![Error::Failed("boom".into())]))
        );
        let turns: Vec<(u64, String)> = handles
            .0
            .borrow()
            .iter()
            .filter(|(_, label)| label != "task")
            .cloned()
            .collect();
        let of = |turn: u64| -> Vec<&str> {
            turns
                .iter()
                .filter(|(t, _)| *t == turn)
                .map(|(_, label)| label.as_str())
                .collect()
        };
        // Turn 3 moves bad's timer; bad fails in turn 4.
        assert_eq!(of(4), ["bad"]);
        // The group's done callback runs the turn after and cancels a and the body.
        assert_eq!(of(5), ["_on_task_done"]);
        // Both see the cancel in turn 6.
        assert_eq!(of(6), ["a", "main"]);
        // a's done callback; then the group, woken by its last child, returns.
        assert_eq!(of(7), ["_on_task_done"]);
        assert_eq!(of(8), ["main"]);
    });
}
