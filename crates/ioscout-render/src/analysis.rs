//! The terminal text of an analysis (`ioscout analyze`): the main view's summary and its
//! "Layer Breakdown (w/ overlap %)" table, in DFAnalyzer's words, and one line on how it was
//! made. The service runs the analysis and hands it here.

use std::fmt::Write as _;

use ioscout_analysis::{Analysis, LayerSummary, OverlapMode, View};

use crate::table::Table;
use crate::text::{MIB, mib_units, thousands};

fn fixed(value: f64) -> String {
    format!("{value:.3}")
}

fn percent(share: Option<f64>) -> String {
    match share {
        Some(share) => format!("({:>3.0}%)", share * 100.0),
        None => "(----)".into(),
    }
}

/// The terminal report: summary and layer breakdown of the main view.
pub fn text(analysis: &Analysis, compat: bool, file_count: usize) -> String {
    let Some(view) = analysis.views.first() else { return String::new() };
    let mut out = String::new();
    out.push_str(&summary_table(analysis, view, compat).render());
    out.push('\n');
    out.push_str(&breakdown_table(analysis, view, compat).render());
    let raw = &analysis.raw;
    let _ = writeln!(
        out,
        "\npreset {}, {}, time bins of {} s, overlap {}{}",
        analysis.preset.name,
        crate::text::count_of(file_count as u64, "file", "files"),
        raw.time_granularity_s,
        match analysis.options.overlap {
            OverlapMode::Exact => "exact (interval unions per process tree)",
            OverlapMode::Binned => "binned (DFAnalyzer's per-bin approximation)",
        },
        if raw.ignored_rows > 0 {
            format!("; {} rows ignored (system paths, set-up functions)", thousands(raw.ignored_rows))
        } else {
            String::new()
        }
    );
    out
}

fn summary_table(analysis: &Analysis, view: &View, compat: bool) -> Table {
    let raw = &analysis.raw;
    let (size_unit, rate_unit) = mib_units(compat);
    let mut table = Table::new(
        &format!("{} Summary", view.view.label()),
        &["Metric", "Unit", "Value"],
        &[false, false, true],
    );
    let mut add =
        |metric: String, unit: &str, value: String| table.row(vec![metric, unit.to_string(), value]);
    add("Job Time".into(), "seconds", fixed(raw.job_time_s));
    add("Trace Count".into(), "count", thousands(raw.trace_event_count));
    add("Profile Count".into(), "count", thousands(raw.profile_event_count));
    add("Total Count".into(), "count", thousands(raw.total_event_count));
    add("Total Files".into(), "count", thousands(raw.unique_file_count));
    add("Total Nodes".into(), "count", thousands(raw.unique_host_count));
    add("Total Processes".into(), "count", thousands(raw.unique_process_count));
    for line in view.summary.iter().filter(|line| line.count > 0) {
        add(format!("{} Count", line.label), "count", thousands(line.count));
        if let Some(size) = line.size_bytes.filter(|size| *size > 0.0) {
            add(format!("{} Size", line.label), size_unit, fixed(size / MIB));
            add(
                format!("{} Bandwidth", line.label),
                rate_unit,
                fixed(line.bandwidth_bps.unwrap_or(0.0) / MIB),
            );
            let operations = if compat { line.count } else { line.sized_count };
            if operations > 0 {
                add(
                    format!("{} Avg Transfer Size", line.label),
                    size_unit,
                    fixed(size / operations as f64 / MIB),
                );
            }
        }
    }
    table
}

fn breakdown_table(analysis: &Analysis, view: &View, compat: bool) -> Table {
    let (size_unit, rate_unit) = mib_units(compat);
    let (size, bandwidth) = (format!("Size ({size_unit})"), format!("Bandwidth ({rate_unit})"));
    let mut table = Table::new(
        "Layer Breakdown (w/ overlap %)",
        &["Layer", "Time (s)", "Ops", "Ops/sec", &size, &bandwidth],
        &[false, true, true, true, true, true],
    );
    let measured = analysis.preset.measures_overlap();
    for line in &view.summary {
        if line.count == 0 {
            continue;
        }
        let with_overlap = |value: String, share: Option<f64>, layer: &LayerSummary| {
            if measured && layer.u_time_s.is_some() { format!("{value} {}", percent(share)) } else { value }
        };
        table.row(vec![
            line.label.clone(),
            with_overlap(fixed(line.time_s), line.overlap_time(), line),
            with_overlap(thousands(line.count), line.overlap_count(), line),
            line.ops_per_s.map_or_else(|| "-".into(), fixed),
            line.size_bytes.filter(|size| *size > 0.0).map_or_else(|| "-".into(), |size| fixed(size / MIB)),
            line.bandwidth_bps.map_or_else(|| "-".into(), |bandwidth| fixed(bandwidth / MIB)),
        ]);
    }
    table
}
