//! The stepper: a scenario one turn at a time, with what the loop holds between turns.
//!
//! Before each turn it prints the loop's [`Snapshot`](oneloop_core::hooks::Snapshot): the
//! labels in the ready queue, and what each driver layer holds (the head of the timer
//! heap, the selector's registrations). Then it runs the turn and prints what the park
//! did and what ran, and waits for Enter (or not, with `--all`).

use std::io::{self, BufRead, Write};

use crate::human;
use crate::session::MAX_TURNS;
use crate::{Kind, Lane, Scenario, Turn};

/// Whether to wait for Enter between turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pace {
    /// Wait for Enter after each turn (end of input counts as `All`).
    Enter,
    /// Run every turn without waiting.
    All,
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "(empty)".to_string()
    } else {
        items.join(", ")
    }
}

fn print_ran(out: &mut dyn Write, turn: &Turn, durations: bool) -> io::Result<()> {
    if turn.handles.is_empty() {
        writeln!(out, "  ran:     nothing")?;
    }
    for (index, span) in turn.handles.iter().enumerate() {
        let whose = match &span.lane {
            Lane::Task(id) => format!("{} step, {id}", span.kind),
            Lane::Callbacks => span.kind.to_string(),
            Lane::Named(name) => name.clone(),
        };
        let took = if durations {
            format!(", {}", human(span.duration()))
        } else {
            String::new()
        };
        let head = if index == 0 {
            "  ran:    "
        } else {
            "          "
        };
        writeln!(out, "{head} {} ({whose}{took})", span.label)?;
    }
    Ok(())
}

fn pause(pace: &mut Pace, input: &mut dyn BufRead, out: &mut dyn Write) -> io::Result<()> {
    if *pace == Pace::All {
        return Ok(());
    }
    write!(out, "  [Enter: next turn] ")?;
    out.flush()?;
    let mut line = String::new();
    if input.read_line(&mut line)? == 0 {
        // No more input: run the rest without waiting.
        *pace = Pace::All;
        writeln!(out)?;
    }
    Ok(())
}

// ANCHOR: step
/// Runs `scenario` turn by turn, writing each turn to `out` and waiting on `input`
/// for Enter between turns when `pace` says so.
pub fn step(
    scenario: &Scenario,
    mut pace: Pace,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> io::Result<()> {
    writeln!(out, "{}: {}", scenario.name, scenario.title)?;
    writeln!(out, "({})", scenario.about)?;
    let begin = match scenario.kind {
        Kind::Loop(begin) => begin,
        Kind::Node(_) => return step_node(scenario, pace, input, out),
    };
    let mut session = begin()?;
    for _ in 0..MAX_TURNS {
        if session.finished() {
            break;
        }
        let before = session.snapshot();
        writeln!(out, "\nturn {}", before.turn + 1)?;
        writeln!(out, "  ready:   {}", list(&before.ready))?;
        for layer in &before.layers {
            writeln!(
                out,
                "  {:<8} {}",
                format!("{}:", layer.name),
                list(&layer.lines)
            )?;
        }
        session.run_once().map_err(io::Error::other)?;
        let turn = session
            .recorder()
            .last_turn()
            .ok_or_else(|| io::Error::other("the turn was not recorded"))?;
        let timeout = match turn.timeout {
            Some(timeout) => human(timeout),
            None => "none (wait for an event)".to_string(),
        };
        if scenario.durations {
            writeln!(
                out,
                "  park:    timeout {timeout}, parked {}, {} timer(s) moved, {} I/O event(s)",
                human(turn.parked),
                turn.timers_moved,
                turn.io_events
            )?;
        } else {
            writeln!(
                out,
                "  park:    timeout {timeout}, {} timer(s) moved, {} I/O event(s)",
                turn.timers_moved, turn.io_events
            )?;
        }
        print_ran(out, &turn, scenario.durations)?;
        pause(&mut pace, input, out)?;
    }
    let turns = session.recorder().turns();
    if session.finished() {
        writeln!(out, "\nmain finished after {turns} turns")?;
    } else {
        writeln!(out, "\nstopped after {turns} turns, main not finished")?;
    }
    Ok(())
}
// ANCHOR_END: step

/// The Node-style loop has no hook to stop between phases: its run is recorded first,
/// then shown one phase at a time (empty phases skipped).
fn step_node(
    scenario: &Scenario,
    mut pace: Pace,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> io::Result<()> {
    let Kind::Node(run) = scenario.kind else {
        return Ok(());
    };
    writeln!(
        out,
        "(the Node-style loop runs to the end in one call: its phases are replayed from the log)"
    )?;
    let run = run().map_err(io::Error::other)?;
    for (index, turn) in run.trace.turns.iter().enumerate() {
        let group = run
            .groups
            .iter()
            .find(|(first, last, _)| (*first..=*last).contains(&index))
            .map_or("", |(_, _, name)| name.as_str());
        if turn.handles.is_empty() {
            continue;
        }
        writeln!(out, "\n{group}, phase {}", turn.title)?;
        print_ran(out, turn, false)?;
        pause(&mut pace, input, out)?;
    }
    writeln!(out, "\nthe loop ended: nothing left alive")?;
    Ok(())
}
