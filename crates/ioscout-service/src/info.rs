//! Trace metadata (`ioscout info`, the MCP tool `reader`): per file the detected generation,
//! compression, events, time span, processes, hosts, files named and categories, and the totals
//! for the whole input; gathered by [`ioscout_read::describe`], written by the render crate.

use std::ops::ControlFlow;

pub use ioscout_read::describe::{InfoFold, InfoRecord};
use serde::Serialize;

use crate::text::display_path;
use crate::{Input, Outcome, Result};

/// What `info` says of a set of traces (`{"files": [...], "total": {...}, "problems": [...]}`).
#[derive(Serialize, schemars::JsonSchema)]
pub struct InfoOutput<'a> {
    /// Each file.
    pub files: Vec<InfoRecord>,
    /// All of them.
    pub total: InfoRecord,
    /// The problems kept (file, line, byte offset).
    pub problems: Vec<&'a ioscout_read::Problem>,
}

/// Describes each trace file of `input` and the whole (`{"files": [...], "total": {...},
/// "problems": [...]}`); Darshan logs get their summaries ([`crate::darshan::summaries`]).
pub fn info(input: &Input) -> Result<Outcome> {
    if let Some(logs) = crate::darshan_inputs(&input.paths)? {
        return crate::darshan::summaries(&logs, !input.strict);
    }
    let (files, input_problems) = input.discover()?;
    let mut per_file: Vec<InfoFold> = (0..files.len()).map(|_| InfoFold::default()).collect();
    let report = input.scanner().scan(
        &files,
        &input_problems,
        |_| InfoFold::default(),
        |index, fold, _| {
            per_file[index].merge(fold);
            ControlFlow::Continue(())
        },
    );
    let skipped = input_problems.len();
    let mut records = Vec::new();
    let mut total = InfoFold::default();
    let mut all = Vec::new();
    for (index, fold) in per_file.into_iter().enumerate() {
        let summary = &report.files[skipped + index];
        records.push(InfoRecord::of(&fold, &[summary], Some(display_path(&summary.path))));
        total.merge(fold);
        all.push(summary);
    }
    let total = InfoRecord::of(&total, &all, None);
    let mut text: String = records.iter().map(ioscout_render::info::record_text).collect();
    text.push_str(&ioscout_render::info::record_text(&total));
    let result = InfoOutput { files: records, total, problems: report.problems().collect() };
    let outcome = Outcome::typed(&result, text);
    Ok(Outcome { report: Some(report), ..outcome })
}
