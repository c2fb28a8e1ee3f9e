//! The book's figures: every scenario recorded, drawn, and (in virtual time) exported.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::{Bottom, Kind, Scenario, SvgOptions, Trace, chrome_json, render_svg, scenarios};

/// One figure: its file name, its SVG, its Chrome trace JSON if exact.
#[derive(Debug, Clone)]
pub struct Figure {
    /// The scenario's name: the files are `<name>.svg` and `<name>.json`.
    pub name: &'static str,
    /// The recording it was drawn from.
    pub trace: Trace,
    /// The SVG timeline.
    pub svg: String,
    /// The Chrome trace JSON, for virtual-time asyncio runs (exact and reproducible);
    /// `None` where times are real or unknown.
    pub json: Option<String>,
    /// Whether the files are the same bytes on every run.
    pub reproducible: bool,
}

impl Figure {
    /// The files of this figure and their contents.
    pub fn files(&self) -> Vec<(String, &str)> {
        let mut files = vec![(format!("{}.svg", self.name), self.svg.as_str())];
        if let Some(json) = &self.json {
            files.push((format!("{}.json", self.name), json.as_str()));
        }
        files
    }
}

// ANCHOR: figure
/// Records `scenario` and draws it.
pub fn figure(scenario: &Scenario) -> Result<Figure, String> {
    figure_with_options(scenario).map(|(figure, _)| figure)
}

/// Records `scenario` and draws it; also returns the options it was drawn with.
pub(crate) fn figure_with_options(scenario: &Scenario) -> Result<(Figure, SvgOptions), String> {
    let mut options = SvgOptions::timeline(scenario.title, scenario.about);
    options.durations = scenario.durations;
    let trace = match scenario.kind {
        Kind::Loop(_) => scenario.record()?,
        Kind::Node(run) => {
            let run = run().map_err(|e| format!("{}: {e}", scenario.name))?;
            options.column = "phase".to_string();
            options.bottom = Bottom::Groups(run.groups);
            options.parked = false;
            options.header_rows = 2;
            run.trace
        }
    };
    if !scenario.durations && matches!(scenario.kind, Kind::Loop(_)) {
        options.bottom = Bottom::Nothing;
    }
    let svg = render_svg(&trace, &options);
    let json =
        (scenario.durations && scenario.reproducible && matches!(scenario.kind, Kind::Loop(_)))
            .then(|| chrome_json(&trace, scenario.title));
    let figure = Figure {
        name: scenario.name,
        trace,
        svg,
        json,
        reproducible: scenario.reproducible,
    };
    Ok((figure, options))
}
// ANCHOR_END: figure

/// Every figure, in the book's order.
pub fn figures() -> Result<Vec<Figure>, String> {
    scenarios().iter().map(figure).collect()
}

/// Writes every figure's files, and every [diagram](crate::diagrams), into `dir`
/// (made if missing) and returns their paths.
pub fn write_figures(dir: &Path) -> io::Result<Vec<PathBuf>> {
    fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    for figure in figures().map_err(io::Error::other)? {
        for (name, contents) in figure.files() {
            let path = dir.join(name);
            fs::write(&path, contents)?;
            written.push(path);
        }
    }
    for diagram in crate::diagrams().map_err(io::Error::other)? {
        let path = dir.join(format!("{}.svg", diagram.name));
        fs::write(&path, diagram.svg)?;
        written.push(path);
    }
    Ok(written)
}
