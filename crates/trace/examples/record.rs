//! Records a small run and writes it as Chrome trace JSON and as an SVG timeline:
//! `cargo run -p oneloop-trace --example record -- <out dir>`, then open
//! `<out dir>/record.json` in ui.perfetto.dev and `<out dir>/record.svg` in a browser.

use std::fs;
use std::io;
use std::path::PathBuf;
use std::time::Duration;

use oneloop_core::{spawn, yield_now};
use oneloop_timers::{block_for, sleep, virtual_time_loop};
use oneloop_trace::{Recorder, SvgOptions, chrome_json, render_svg};

fn main() -> io::Result<()> {
    let dir = PathBuf::from(std::env::args_os().nth(1).unwrap_or_else(|| ".".into()));
    // ANCHOR: record
    let mut event_loop = virtual_time_loop();
    let recorder = Recorder::attach(&event_loop);
    event_loop
        .run_until_complete(async {
            let napper = spawn(sleep(Duration::from_millis(200)));
            yield_now().await;
            block_for(Duration::from_millis(150));
            napper.await.expect("the sleep does not panic");
        })
        .expect("main finishes");
    let trace = recorder.trace();
    let json = chrome_json(&trace, "a sleep beside a block");
    let options = SvgOptions::timeline("a sleep beside a block", "virtual time");
    let svg = render_svg(&trace, &options);
    // ANCHOR_END: record
    fs::create_dir_all(&dir)?;
    fs::write(dir.join("record.json"), json)?;
    fs::write(dir.join("record.svg"), svg)?;
    println!(
        "{} turns, ending at {:?}; wrote record.json and record.svg to {}",
        trace.turns.len(),
        trace.end(),
        dir.display()
    );
    Ok(())
}
