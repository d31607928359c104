//! Darshan log summaries and dumps (`ioscout darshan summary|dump`, `ioscout info LOG`, the MCP
//! tool `darshan_summary`): version, processes, run time, modules and counter totals per module,
//! or `darshan-parser`'s text; of a Darshan log, or of the records derived from a DFTracer trace
//! ([`crate::evidence`]).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use ioscout_darshan::{DarshanLog, ReadOptions};
use rayon::prelude::*;

use crate::text::display_path;
use crate::{Outcome, Result};

/// Reads a log; with `partial`, a damaged log gives what could be read and its problems.
pub fn read(path: &Path, partial: bool) -> Result<DarshanLog> {
    Ok(DarshanLog::open(path, ReadOptions { partial })?)
}

/// The summaries of `logs` (one object, or an array for several), read in parallel and
/// reported in the order given. A path that is not a Darshan log is read as DFTracer traces
/// (a file or a directory) and summarised from their derived records.
pub fn summaries(logs: &[PathBuf], partial: bool) -> Result<Outcome> {
    let mut reports = Vec::new();
    let mut values = Vec::with_capacity(logs.len());
    let mut warnings = Vec::new();
    let log_paths: Vec<&PathBuf> = logs.iter().filter(|path| crate::is_darshan_log(path)).collect();
    let mut read_logs = summaries_of_logs(&log_paths, partial).into_iter();
    for path in logs {
        if crate::is_darshan_log(path) {
            let Some(result) = read_logs.next() else { continue };
            let (value, mut found) = result?;
            values.push(value);
            warnings.append(&mut found);
        } else {
            let (value, report) = crate::evidence::summary(&crate::Input::of(vec![path.clone()]))?;
            values.push(value);
            reports.extend(report);
        }
    }
    let mut text = String::new();
    for value in &values {
        write_summary(&mut text, value);
    }
    let value = if values.len() == 1 { values.remove(0) } else { serde_json::Value::Array(values) };
    let mut outcome = Outcome::new(value, text);
    outcome.warnings = warnings;
    outcome.report = merge_reports(reports);
    Ok(outcome)
}

/// One report for several scans.
fn merge_reports(reports: Vec<ioscout_read::ScanReport>) -> Option<ioscout_read::ScanReport> {
    let mut reports = reports.into_iter();
    let mut merged = reports.next()?;
    for report in reports {
        merged.files.extend(report.files);
        merged.stopped |= report.stopped;
    }
    Some(merged)
}

/// `darshan-parser`'s text of a log, or of the records derived from the traces at `path` (with
/// header lines saying so); `--dxt` text for logs only.
pub fn dump(
    path: &Path,
    partial: bool,
    options: ioscout_darshan::dump::DumpOptions,
    dxt: bool,
) -> Result<Outcome> {
    if crate::is_darshan_log(path) {
        let log = read(path, partial)?;
        let text =
            if dxt { ioscout_darshan::dump::dxt(&log) } else { ioscout_darshan::dump::dump(&log, options) };
        let mut outcome =
            Outcome::new(serde_json::json!({"log": display_path(path), "source": "darshan"}), text);
        outcome.warnings =
            log.problems.iter().map(|problem| format!("{}: {problem}", display_path(path))).collect();
        return Ok(outcome);
    }
    if dxt {
        return Err(crate::ServiceError::BadRequest(format!(
            "{}: --dxt prints a Darshan log's DXT traces; a DFTracer trace is already a trace of every call",
            display_path(path)
        )));
    }
    let (derived, report) = crate::evidence::derive(&crate::Input::of(vec![path.to_path_buf()]))?;
    let mut text = crate::evidence::derivation_text(&derived);
    text.push_str(&ioscout_darshan::dump::dump(&derived.log, options));
    let value = serde_json::json!({
        "log": display_path(path),
        "derived": crate::evidence::derivation_json(&derived),
    });
    let mut outcome = Outcome::new(value, text);
    outcome.report = Some(report);
    Ok(outcome)
}

fn summaries_of_logs(logs: &[&PathBuf], partial: bool) -> Vec<Result<(serde_json::Value, Vec<String>)>> {
    logs.par_iter()
        .map(|path| {
            let log = read(path, partial)?;
            let mut value = ioscout_darshan::summary::summary(&log);
            if let Some(object) = value.as_object_mut() {
                object.insert("log".into(), serde_json::json!(display_path(path)));
            }
            let warnings =
                log.problems.iter().map(|problem| format!("{}: {problem}", display_path(path))).collect();
            Ok((value, warnings))
        })
        .collect()
}

fn write_summary(out: &mut String, value: &serde_json::Value) {
    let text = |key: &str| {
        value.get(key).map(|field| field.to_string().trim_matches('"').to_string()).unwrap_or_default()
    };
    let _ = writeln!(out, "{}", text("log"));
    if let Some(derived) = value.get("derived") {
        let _ = writeln!(
            out,
            "  records derived from a DFTracer trace: {} calls replayed, {} counters approximated, {} calls without a file",
            derived["calls"], derived["approximated_counters"], derived["unusable_calls"]
        );
    }
    let _ = writeln!(
        out,
        "  format {}, {} processes, run time {} s, {} name records",
        text("version"),
        text("nprocs"),
        value
            .get("run_time")
            .and_then(serde_json::Value::as_f64)
            .map_or(String::new(), |seconds| format!("{seconds:.4}")),
        text("name_records")
    );
    let _ = writeln!(out, "  exe: {}", text("exe"));
    let modules: Vec<String> = value
        .get("modules")
        .and_then(serde_json::Value::as_array)
        .map(|modules| modules.iter().filter_map(|module| module.as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    for module in &modules {
        let Some(entry) = value.get(module) else { continue };
        let get = |key: &str| entry.get(key).and_then(serde_json::Value::as_i64);
        let prefix = match module.as_str() {
            "MPI-IO" => "MPIIO",
            other => other,
        };
        let mut line = format!("  {module:<13} {:>8} records", get("records").unwrap_or(0));
        for (label, counter) in [("opens", "OPENS"), ("reads", "READS"), ("writes", "WRITES")] {
            // MPI-IO counts its calls by kind (independent, collective, split, non-blocking).
            let kinds: Vec<i64> = ["", "INDEP_", "COLL_", "SPLIT_", "NB_"]
                .iter()
                .filter_map(|kind| get(&format!("{prefix}_{kind}{counter}")))
                .collect();
            if !kinds.is_empty() {
                let _ = write!(line, ", {} {label}", kinds.iter().filter(|count| **count > 0).sum::<i64>());
            }
        }
        for (label, counter) in [("read", "BYTES_READ"), ("written", "BYTES_WRITTEN")] {
            if let Some(bytes) = get(&format!("{prefix}_{counter}")) {
                let _ = write!(line, ", {bytes} B {label}");
            }
        }
        let _ = writeln!(out, "{line}");
    }
}
