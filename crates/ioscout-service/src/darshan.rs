//! Darshan log summaries (`ioscout darshan summary`, `ioscout info LOG`, the MCP tool
//! `darshan_summary`): version, processes, run time, modules and counter totals per module.

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
/// reported in the order given.
pub fn summaries(logs: &[PathBuf], partial: bool) -> Result<Outcome> {
    let results: Vec<Result<(serde_json::Value, Vec<String>)>> = logs
        .par_iter()
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
        .collect();
    let mut values = Vec::with_capacity(logs.len());
    let mut warnings = Vec::new();
    for result in results {
        let (value, mut found) = result?;
        values.push(value);
        warnings.append(&mut found);
    }
    let mut text = String::new();
    for value in &values {
        write_summary(&mut text, value);
    }
    let value = if values.len() == 1 { values.remove(0) } else { serde_json::Value::Array(values) };
    let mut outcome = Outcome::new(value, text);
    outcome.warnings = warnings;
    Ok(outcome)
}

fn write_summary(out: &mut String, value: &serde_json::Value) {
    let text = |key: &str| {
        value.get(key).map(|field| field.to_string().trim_matches('"').to_string()).unwrap_or_default()
    };
    let _ = writeln!(out, "{}", text("log"));
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
