//! Events per file and in total, by phase (what `dftracer_event_count` reports, and more).

use std::fmt::Write as _;
use std::ops::ControlFlow;

use ioscout_model::PhaseCounts;
use ioscout_read::{FileSummary, NoFold, Problem};
use serde::Serialize;

use crate::text::{count_of, display_path, thousands};
use crate::{Input, Outcome, Result};

/// The events of a set of traces by phase, per file and in total.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct CountResult {
    /// Every file's counts added up.
    pub total: PhaseCounts,
    /// Each file's counts, in the order read.
    pub files: Vec<FileCount>,
    /// Problems counted (lines not decoded, files not read).
    pub problem_count: u64,
    /// The problems kept (file, line, byte offset).
    pub problems: Vec<Problem>,
}

/// One file's events by phase.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct FileCount {
    /// The file.
    pub path: String,
    /// Its events by phase.
    #[serde(flatten)]
    pub counts: PhaseCounts,
}

/// Counts the events of `input` ([`CountResult`]).
pub fn count(input: &Input) -> Result<Outcome> {
    let (files, input_problems) = input.discover()?;
    let report =
        input.scanner().scan(&files, &input_problems, |_| NoFold, |_, _, _| ControlFlow::Continue(()));
    let total = report.totals();
    let result = CountResult {
        total,
        files: report
            .files
            .iter()
            .map(|file| FileCount { path: display_path(&file.path), counts: file.counts })
            .collect(),
        problem_count: report.problem_count(),
        problems: report.problems().cloned().collect(),
    };
    let text = table(&report.files, &total);
    Ok(Outcome { report: Some(report), ..Outcome::typed(&result, text) })
}

fn table(files: &[FileSummary], total: &PhaseCounts) -> String {
    let header = ["complete", "metadata", "counter", "aggregated", "other", "invalid"];
    let row = |counts: &PhaseCounts| {
        [counts.complete, counts.metadata, counts.counter, counts.aggregated, counts.other, counts.invalid]
            .map(thousands)
    };
    let total_label = format!("total ({})", count_of(files.len() as u64, "file", "files"));
    let longest = files.iter().map(|file| display_path(&file.path).chars().count()).max().unwrap_or(5);
    let mut width = longest.max(total_label.chars().count()).max(5);
    // On a terminal, paths are shortened from the left so the numbers fit.
    if let Some(limit) = crate::text::width() {
        width = width.min(limit.saturating_sub(13 * header.len())).max(total_label.chars().count());
    }
    let mut out = String::new();
    let _ = write!(out, "{:<width$}", "file");
    for name in header {
        let _ = write!(out, " {name:>12}");
    }
    out.push('\n');
    for file in files {
        let _ = write!(out, "{:<width$}", crate::text::abbreviate_left(&display_path(&file.path), width));
        for value in row(&file.counts) {
            let _ = write!(out, " {value:>12}");
        }
        out.push('\n');
    }
    let _ = write!(out, "{total_label:<width$}");
    for value in row(total) {
        let _ = write!(out, " {value:>12}");
    }
    out.push('\n');
    out
}
