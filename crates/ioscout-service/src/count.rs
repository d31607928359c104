//! Events per file and in total, by phase (what `dftracer_event_count` reports, and more).

use std::fmt::Write as _;
use std::ops::ControlFlow;

use ioscout_model::PhaseCounts;
use ioscout_read::{FileSummary, NoFold};
use serde_json::json;

use crate::text::{count_of, display_path, thousands};
use crate::{Input, Outcome, Result};

/// Counts the events of `input`: `{"total": {...}, "files": [{"path", ...}], "problem_count",
/// "problems"}`.
pub fn count(input: &Input) -> Result<Outcome> {
    let (files, input_problems) = input.discover()?;
    let report =
        input.scanner().scan(&files, &input_problems, |_| NoFold, |_, _, _| ControlFlow::Continue(()));
    let total = report.totals();
    let file_values: Vec<serde_json::Value> = report
        .files
        .iter()
        .map(|file| {
            let mut object = serde_json::Map::new();
            object.insert("path".into(), json!(display_path(&file.path)));
            if let Ok(serde_json::Value::Object(counts)) = serde_json::to_value(file.counts) {
                object.extend(counts);
            }
            serde_json::Value::Object(object)
        })
        .collect();
    let value = json!({
        "total": total,
        "files": file_values,
        "problem_count": report.problem_count(),
        "problems": report.problems().collect::<Vec<_>>(),
    });
    let text = table(&report.files, &total);
    Ok(Outcome { value, text, report: Some(report), flagged: false, warnings: Vec::new() })
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
