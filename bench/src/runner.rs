//! The runner: interleave the contenders, collect `RESULT` lines, print the table.

use std::collections::BTreeMap;
use std::fs;
use std::process::Command;

use crate::measure::{Sample, parse_result};
use crate::workloads::{Kind, WORKLOADS, Workload};

/// The 1, 5 and 15 minute load averages, as the kernel prints them.
fn load_average() -> String {
    fs::read_to_string("/proc/loadavg")
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|_| "unknown".to_string())
}

/// One run of `id` on `runtime` in a fresh process.
fn run_child(id: &str, runtime: &str) -> Sample {
    let exe = std::env::current_exe().expect("the runner knows its own path");
    let output = Command::new(exe)
        .args(["one", id, runtime])
        .output()
        .expect("the runner can start itself");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let parsed = stdout
        .lines()
        .find_map(parse_result)
        .filter(|(w, r, _)| w == id && r == runtime);
    match parsed {
        Some((_, _, sample)) => sample,
        None => panic!(
            "{id} on {runtime} printed no RESULT line (status {}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ),
    }
}

/// Median, min and max of some figures.
fn stats(values: &[f64]) -> (f64, f64, f64) {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let median = if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    };
    (median, sorted[0], sorted[n - 1])
}

/// A figure with as many digits as it deserves.
fn fmt(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else if x >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

fn cell(values: &[f64]) -> String {
    let (median, min, max) = stats(values);
    format!("{} ({}–{})", fmt(median), fmt(min), fmt(max))
}

/// Runs `rounds` rounds of the rows named in `only` (every row if empty) and prints
/// the table.
pub fn run(rounds: usize, only: &[String]) {
    let rows: Vec<&Workload> = WORKLOADS
        .iter()
        .filter(|w| only.is_empty() || only.iter().any(|o| o == w.id))
        .collect();
    let load_before = load_average();
    // (row, contender) → samples, one per round.
    let mut samples: BTreeMap<(&str, &str), Vec<Sample>> = BTreeMap::new();
    for round in 0..rounds {
        for row in &rows {
            let n = row.contenders.len();
            for k in 0..n {
                let runtime = row.contenders[(k + round) % n];
                let sample = run_child(row.id, runtime);
                samples.entry((row.id, runtime)).or_default().push(sample);
            }
        }
        eprintln!("round {} of {rounds} done", round + 1);
    }
    let load_after = load_average();

    println!(
        "{rounds} rounds, interleaved; load average before: {load_before}, after: {load_after}"
    );
    // One table per set of contenders: the runtime rows share one, other rows (a
    // server benchmark) may bring their own.
    let mut groups: Vec<&[&str]> = Vec::new();
    for row in &rows {
        if !groups.contains(&row.contenders) {
            groups.push(row.contenders);
        }
    }
    for contenders in groups {
        println!();
        print_table(contenders, &rows, &samples);
    }
}

/// Prints the rows run by `contenders`: CPU medians (min–max), ratio, then wall.
fn print_table(
    contenders: &[&str],
    rows: &[&Workload],
    samples: &BTreeMap<(&str, &str), Vec<Sample>>,
) {
    let names: Vec<String> = contenders.iter().map(|c| c.to_string()).collect();
    println!(
        "| workload | unit | {} cpu | cpu ratio | {} wall | wall ratio |",
        names.join(" cpu | "),
        names.join(" wall | ")
    );
    let columns = 2 + 2 * (contenders.len() + 1);
    println!("|---|---|{}", "---:|".repeat(columns - 2));
    for row in rows.iter().filter(|r| r.contenders == contenders) {
        let figures = |rt: &str, wall: bool| -> Vec<f64> {
            samples[&(row.id, rt)]
                .iter()
                .map(|s| if wall { s.wall } else { s.cpu })
                .collect()
        };
        let ratio = |wall: bool| {
            let first = stats(&figures(contenders[0], wall)).0;
            let best = contenders[1..]
                .iter()
                .map(|rt| stats(&figures(rt, wall)).0)
                .fold(f64::INFINITY, f64::min);
            format!("{:.2}", first / best)
        };
        let mut line = format!("| {} | {} |", row.title, row.unit);
        for rt in contenders {
            line += &format!(" {} |", cell(&figures(rt, false)));
        }
        line += &format!(" {} |", ratio(false));
        for rt in contenders {
            match row.kind {
                Kind::Time => line += &format!(" {} |", cell(&figures(rt, true))),
                Kind::Bytes => line += " — |",
            }
        }
        match row.kind {
            Kind::Time => line += &format!(" {} |", ratio(true)),
            Kind::Bytes => line += " — |",
        }
        println!("{line}");
    }
}
