//! The runner: interleave the contenders, collect `RESULT` lines, print the table.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Command;

use crate::measure::{Sample, parse_result};
use crate::workloads::{Kind, RUNTIMES, UVLOOP_VERSION, WORKLOADS, Workload};

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
    match find_result(&output.stdout, id, runtime) {
        Some(sample) => sample,
        None => panic!(
            "{id} on {runtime} printed no RESULT line (status {}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ),
    }
}

/// The `RESULT` line of `id` on `runtime` in a child's output.
fn find_result(stdout: &[u8], id: &str, runtime: &str) -> Option<Sample> {
    String::from_utf8_lossy(stdout)
        .lines()
        .find_map(parse_result)
        .filter(|(w, r, _)| w == id && r == runtime)
        .map(|(_, _, sample)| sample)
}

/// A script contender that can run here: its name and the command line before the
/// workload's name.
struct Script {
    runtime: &'static str,
    argv: Vec<String>,
    /// Arguments after the workload's name.
    after: Vec<String>,
}

/// Whether `program args…` runs and exits 0.
fn runs(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .output()
        .is_ok_and(|out| out.status.success())
}

/// The first line `program args…` prints, if it runs.
fn first_line(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    out.status
        .success()
        .then(|| text.lines().next().unwrap_or("").trim().to_string())
}

/// Finds the interpreters, makes uvloop's virtualenv under `bench/target` if it is
/// not there yet, and returns the script contenders that can run, with a note for
/// each (its version, or why it is left out).
fn prepare_scripts() -> (Vec<Script>, Vec<String>) {
    let bench = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python_script = bench.join("python/workloads.py").display().to_string();
    let node_script = bench.join("node/workloads.js").display().to_string();
    let mut scripts = Vec::new();
    let mut notes = Vec::new();

    match first_line("python3", &["--version"]) {
        Some(version) => {
            notes.push(format!("asyncio: {version}"));
            scripts.push(Script {
                runtime: "asyncio",
                argv: vec!["python3".into(), python_script.clone()],
                after: Vec::new(),
            });
        }
        None => notes.push("asyncio: no python3 here; its column is left out".into()),
    }

    let venv = bench.join("target/py-venv");
    let venv_python = venv.join("bin/python").display().to_string();
    let import = ["-c", "import uvloop; print('uvloop', uvloop.__version__)"];
    if !runs(&venv_python, &import) {
        eprintln!(
            "making a virtualenv for uvloop {UVLOOP_VERSION} in {}",
            venv.display()
        );
        let venv_text = venv.display().to_string();
        let pin = format!("uvloop=={UVLOOP_VERSION}");
        let made = runs("python3", &["-m", "venv", &venv_text])
            && runs(&venv_python, &["-m", "pip", "install", "--quiet", &pin]);
        if !made {
            eprintln!("uvloop could not be installed; its column is left out");
        }
    }
    match first_line(&venv_python, &import) {
        Some(version) => {
            notes.push(format!("uvloop: {version}, in {}", venv.display()));
            scripts.push(Script {
                runtime: "uvloop",
                argv: vec![venv_python, python_script],
                after: vec!["--uvloop".into()],
            });
        }
        None => notes.push(format!(
            "uvloop: could not be installed here (a virtualenv with uvloop=={UVLOOP_VERSION} in {}); its column is left out",
            venv.display()
        )),
    }

    match first_line("node", &["--version"]) {
        Some(version) => {
            notes.push(format!("node: {version}"));
            scripts.push(Script {
                runtime: "node",
                argv: vec!["node".into(), "--expose-gc".into(), node_script],
                after: Vec::new(),
            });
        }
        None => notes.push("node: not found here; its column is left out".into()),
    }
    (scripts, notes)
}

/// One run of `id` by a script, in a fresh process; `None` (with a warning) if it
/// printed no `RESULT` line, so that one failing script does not stop the table.
fn run_script(script: &Script, id: &str) -> Option<Sample> {
    let output = Command::new(&script.argv[0])
        .args(&script.argv[1..])
        .arg(id)
        .args(&script.after)
        .output();
    let output = match output {
        Ok(output) => output,
        Err(error) => {
            eprintln!("{id} on {} did not start: {error}", script.runtime);
            return None;
        }
    };
    let sample = find_result(&output.stdout, id, script.runtime);
    if sample.is_none() {
        eprintln!(
            "{id} on {} printed no RESULT line (status {}):\n{}",
            script.runtime,
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    sample
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
    if values.is_empty() {
        return "—".to_string();
    }
    let (median, min, max) = stats(values);
    format!("{} ({}–{})", fmt(median), fmt(min), fmt(max))
}

/// Runs `rounds` rounds of the rows named in `only` (every row if empty) and prints
/// the table. With `with_scripts`, the runtime rows also run on CPython's asyncio,
/// uvloop and Node.js, interleaved with the Rust contenders, in columns of their own.
pub fn run(rounds: usize, only: &[String], with_scripts: bool) {
    let rows: Vec<&Workload> = WORKLOADS
        .iter()
        .filter(|w| only.is_empty() || only.iter().any(|o| o == w.id))
        .collect();
    let (scripts, notes) = if with_scripts {
        prepare_scripts()
    } else {
        (Vec::new(), Vec::new())
    };
    // The contenders of a row: its own, then the scripts if it is a runtime row.
    let contenders_of = |row: &Workload| -> Vec<&str> {
        let mut all = row.contenders.to_vec();
        if row.contenders == RUNTIMES {
            all.extend(scripts.iter().map(|s| s.runtime));
        }
        all
    };
    let load_before = load_average();
    // (row, contender) → samples, one per round.
    let mut samples: BTreeMap<(&str, &str), Vec<Sample>> = BTreeMap::new();
    for round in 0..rounds {
        for row in &rows {
            let contenders = contenders_of(row);
            let n = contenders.len();
            for k in 0..n {
                let runtime = contenders[(k + round) % n];
                let entry = samples.entry((row.id, runtime)).or_default();
                match scripts.iter().find(|s| s.runtime == runtime) {
                    Some(script) => entry.extend(run_script(script, row.id)),
                    None => entry.push(run_child(row.id, runtime)),
                }
            }
        }
        eprintln!("round {} of {rounds} done", round + 1);
    }
    let load_after = load_average();

    println!(
        "{rounds} rounds, interleaved; load average before: {load_before}, after: {load_after}"
    );
    for note in &notes {
        println!("{note}");
    }
    // One table per set of contenders: the runtime rows share one, other rows (a
    // server benchmark) may bring their own.
    let mut groups: Vec<&[&str]> = Vec::new();
    for row in &rows {
        if !groups.contains(&row.contenders) {
            groups.push(row.contenders);
        }
    }
    for contenders in groups {
        let extra: Vec<&str> = if contenders == RUNTIMES {
            scripts.iter().map(|s| s.runtime).collect()
        } else {
            Vec::new()
        };
        println!();
        print_table(contenders, &extra, &rows, &samples);
    }
}

/// Prints the rows run by `contenders`: CPU medians (min–max), ratio, then wall. The
/// `extra` columns (the scripts) come after the contenders'; the ratios are the first
/// contender's median over the best of the other contenders, never over a script.
fn print_table(
    contenders: &[&str],
    extra: &[&str],
    rows: &[&Workload],
    samples: &BTreeMap<(&str, &str), Vec<Sample>>,
) {
    let columns: Vec<&str> = contenders.iter().chain(extra).copied().collect();
    let names: Vec<String> = columns.iter().map(|c| c.to_string()).collect();
    println!(
        "| workload | unit | {} cpu | cpu ratio | {} wall | wall ratio |",
        names.join(" cpu | "),
        names.join(" wall | ")
    );
    println!("|---|---|{}", "---:|".repeat(2 * (columns.len() + 1)));
    for row in rows.iter().filter(|r| r.contenders == contenders) {
        let figures = |rt: &str, wall: bool| -> Vec<f64> {
            samples
                .get(&(row.id, rt))
                .map(|all| {
                    all.iter()
                        .map(|s| if wall { s.wall } else { s.cpu })
                        .collect()
                })
                .unwrap_or_default()
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
        for rt in &columns {
            line += &format!(" {} |", cell(&figures(rt, false)));
        }
        line += &format!(" {} |", ratio(false));
        for rt in &columns {
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
