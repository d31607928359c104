//! Events per file and in total, by phase (what `dftracer_event_count` reports, and more).

use std::ops::ControlFlow;

use ioscout_model::PhaseCounts;
use ioscout_read::{NoFold, Problem};
use serde::Serialize;

use crate::text::display_path;
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
    let text = ioscout_render::counts::text(&report.files, &total);
    Ok(Outcome { report: Some(report), ..Outcome::typed(&result, text) })
}
