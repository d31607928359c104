//! `index`: builds or refreshes the sidecar index of each trace directory (`ioscout_index`), for
//! the command line and the MCP `index` tool alike. The structured result is an
//! [`IndexResult`]; a directory whose build fails is listed under `failed` with the reason and
//! the others are still indexed.

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

/// The indexes built or refreshed.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct IndexResult {
    /// Each trace directory indexed.
    pub directories: Vec<DirectoryOutcome>,
    /// What the scan read and what it could not.
    pub scan: crate::scan::ScanSection,
    /// The directories whose build failed (absent when none did).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failed: Vec<FailedDirectory>,
}

/// A trace directory whose index could not be built.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct FailedDirectory {
    /// The trace directory.
    pub directory: String,
    /// Why its build failed.
    pub error: String,
}

/// One trace directory's index.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct DirectoryOutcome {
    /// The trace directory.
    pub directory: String,
    /// The index file.
    pub index: String,
    /// Files (re)indexed, read whole.
    pub indexed_files: usize,
    /// Files that grew since they were indexed, of which only the appended bytes were read.
    pub extended_files: usize,
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
    let (files, input_problems) = input.discover()?;
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
                    extended_files: report.extended,
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
            Err(error) => failed.push(FailedDirectory {
                directory: directory.display().to_string(),
                error: error.to_string(),
            }),
        }
    }
    let scan =
        ioscout_read::ScanReport::assemble(&input_problems, input.scan.max_reported_problems, summaries);
    let mut text = String::new();
    for outcome in &directories {
        let extended = if outcome.extended_files > 0 {
            format!(", {} extended", outcome.extended_files)
        } else {
            String::new()
        };
        let _ = writeln!(
            text,
            "{}: {} indexed{extended}, {} unchanged, {} removed; {} chunks; {} ({:.0} KiB, {:.2}% of {:.1} MiB of trace) in {:.2} s",
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
    let flagged = !failed.is_empty();
    let result = IndexResult { directories, scan: crate::scan::ScanSection::of(&scan), failed };
    Ok(Outcome { report: Some(scan), flagged, warnings, ..Outcome::typed(&result, text) })
}

/// [`refresh`] after a look at `files` whose scan gave `report`: with the files whose scan ended
/// cleanly ([`ioscout_read::FileSummary::ended_cleanly`]).
pub fn refresh_after(
    files: &[ioscout_read::TraceFile],
    report: &ioscout_read::ScanReport,
    index_dir: Option<&std::path::Path>,
    threads: usize,
) -> Vec<String> {
    let summaries: std::collections::HashMap<&std::path::Path, &ioscout_read::FileSummary> =
        report.files.iter().map(|summary| (summary.path.as_path(), summary)).collect();
    let ended_cleanly: Vec<ioscout_read::TraceFile> = files
        .iter()
        .filter(|trace| {
            summaries.get(trace.path.as_path()).is_some_and(|summary| summary.ended_cleanly(trace))
        })
        .cloned()
        .collect();
    refresh(&ended_cleanly, index_dir, threads)
}

/// Brings up to date the indexes that already exist for `files`, for `analyze --follow`: the
/// files given are those a look found ended cleanly; a grown one is extended from its indexed
/// end, a new or replaced one indexed whole, and the records of the others (caught mid-write)
/// stay as they were, to be extended at a later look. A directory without an index is left
/// alone (a follow never writes an index nobody asked for). One line per directory updated:
/// `index: 1 file extended, 0 indexed` or why it was not.
pub fn refresh(
    files: &[ioscout_read::TraceFile],
    index_dir: Option<&std::path::Path>,
    threads: usize,
) -> Vec<String> {
    let options = BuildOptions {
        threads,
        index_dir: index_dir.map(std::path::Path::to_path_buf),
        ..BuildOptions::default()
    };
    let mut lines = Vec::new();
    for (directory, group) in ioscout_query::plan::by_directory(files) {
        let indexed =
            ioscout_index::store::candidate_paths(&directory, index_dir).iter().any(|path| path.is_file());
        if !indexed {
            continue;
        }
        match build(&directory, &group, &options) {
            Ok(report) if report.extended + report.indexed + report.removed > 0 => lines.push(format!(
                "index: {} extended, {} indexed whole",
                count_of(report.extended as u64, "file", "files"),
                report.indexed
            )),
            Ok(_) => {}
            Err(error) => lines.push(format!("index of {} not updated: {error}", directory.display())),
        }
    }
    lines
}
