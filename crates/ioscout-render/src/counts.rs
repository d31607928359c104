//! The terminal text of `ioscout count`: events per file and in total, by phase, one line per
//! file with its path shortened from the left so the numbers fit the terminal.

use std::fmt::Write as _;

use ioscout_model::PhaseCounts;
use ioscout_read::FileSummary;

use crate::text::{count_of, display_path, thousands};

/// The table: a line per file and the total, each with its events by phase.
pub fn text(files: &[FileSummary], total: &PhaseCounts) -> String {
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
