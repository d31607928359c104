//! `index`: builds or refreshes the sidecar index of each trace directory (`ioscout_index`), for
//! the command line and the MCP `index` tool alike. The structured result is
//! `{"directories": [...], "scan": {...}}`; a directory whose build fails is listed under
//! `failed` with the reason and the others are still indexed.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use ioscout_index::build::{BuildOptions, build, build_distributed};
use serde::Serialize;

use crate::text::count_of;
use crate::{Input, Outcome, Result};

/// What to index.
#[derive(Clone, Debug, Default)]
pub struct IndexRequest {
    /// Put indexes here instead of `<dir>/.ioscout/`.
    pub index_dir: Option<PathBuf>,
    /// Re-read every file, even unchanged ones.
    pub force: bool,
    /// Compressed bytes per chunk (0: the default, 1 MiB).
    pub chunk_bytes: u64,
}

/// One trace directory's index.
#[derive(Clone, Debug, Serialize)]
pub struct DirectoryOutcome {
    /// The trace directory.
    pub directory: String,
    /// The index file.
    pub index: String,
    /// Files (re)indexed.
    pub indexed_files: usize,
    /// Files whose records were kept.
    pub unchanged_files: usize,
    /// Records of vanished files removed.
    pub removed_files: usize,
    /// Chunks recorded.
    pub chunks: usize,
    /// Size of the index file.
    pub index_bytes: u64,
    /// Size of the traces it covers.
    pub trace_bytes: u64,
    /// `index_bytes / trace_bytes`.
    pub index_share_of_trace: f64,
    /// Wall time of the build.
    pub seconds: f64,
    /// Problems met in the traces (counted; see `scan`).
    pub problem_count: u64,
    /// What the build said (an older format rebuilt, a wait for another build, ...).
    pub messages: Vec<String>,
}

/// Indexes every trace directory of `input`.
pub fn index(input: &Input, request: &IndexRequest) -> Result<Outcome> {
    let (files, input_problems) = input.discover();
    if files.is_empty() {
        return Err(input.no_traces(&input_problems));
    }
    let options = BuildOptions {
        threads: input.scan.threads,
        chunk_bytes: request.chunk_bytes,
        index_dir: request.index_dir.clone(),
        force: request.force,
        progress: input.scan.progress.clone(),
    };
    let mut directories = Vec::new();
    let mut failed = Vec::new();
    let mut summaries = Vec::new();
    let mut warnings = Vec::new();
    for (directory, group) in ioscout_query::plan::by_directory(&files) {
        let started = Instant::now();
        let built = match &input.cluster {
            Some(cluster) => build_distributed(&directory, &group, &options, cluster.as_ref()),
            None => build(&directory, &group, &options),
        };
        match built {
            Ok(report) => {
                warnings.extend(report.messages.iter().cloned());
                summaries.extend(report.scan.files.iter().cloned());
                directories.push(DirectoryOutcome {
                    directory: directory.display().to_string(),
                    index: report.index_path.display().to_string(),
                    indexed_files: report.indexed,
                    unchanged_files: report.unchanged,
                    removed_files: report.removed,
                    chunks: report.chunks,
                    index_bytes: report.index_bytes,
                    trace_bytes: report.trace_bytes,
                    index_share_of_trace: report.index_bytes as f64 / report.trace_bytes.max(1) as f64,
                    seconds: started.elapsed().as_secs_f64(),
                    problem_count: report.scan.problem_count(),
                    messages: report.messages,
                });
            }
            Err(error) => failed.push(
                serde_json::json!({"directory": directory.display().to_string(), "error": error.to_string()}),
            ),
        }
    }
    let scan =
        ioscout_read::ScanReport::assemble(&input_problems, input.scan.max_reported_problems, summaries);
    let mut text = String::new();
    for outcome in &directories {
        let _ = writeln!(
            text,
            "{}: {} indexed, {} unchanged, {} removed; {} chunks; {} ({:.0} KiB, {:.2}% of {:.1} MiB of trace) in {:.2} s",
            outcome.directory,
            count_of(outcome.indexed_files as u64, "file", "files"),
            outcome.unchanged_files,
            outcome.removed_files,
            outcome.chunks,
            outcome.index,
            outcome.index_bytes as f64 / 1024.0,
            outcome.index_share_of_trace * 100.0,
            outcome.trace_bytes as f64 / (1024.0 * 1024.0),
            outcome.seconds
        );
    }
    let mut value = serde_json::json!({"directories": directories, "scan": crate::scan_json(&scan)});
    let flagged = !failed.is_empty();
    if flagged && let serde_json::Value::Object(object) = &mut value {
        object.insert("failed".into(), serde_json::Value::Array(failed));
    }
    Ok(Outcome { value, text, report: Some(scan), flagged, warnings })
}
