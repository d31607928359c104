//! Darshan log summaries and dumps (`ioscout darshan summary|dump`, `ioscout info LOG`, the MCP
//! tool `darshan_summary`): version, processes, run time, modules and counter totals per module,
//! or `darshan-parser`'s text; of a Darshan log, or of the records derived from a DFTracer trace
//! ([`crate::evidence`]). Over many logs ([`summary_over`]): groups by program, user, processes
//! or job id, and the top jobs and files, read in parallel in bounded memory. The module
//! breakdown of logs ([`analyze_logs`], `ioscout analyze LOG`).

use std::path::{Path, PathBuf};

use ioscout_darshan::survey::{Group, Plan, Survey, TopFile, TopJob};
use ioscout_darshan::totals::{GroupBy, RankBy};
use ioscout_darshan::{DarshanLog, ReadOptions};
use rayon::prelude::*;

use crate::text::display_path;
use crate::{Outcome, Result};

/// Reads a log; with `partial`, a damaged log gives what could be read and its problems.
pub fn read(path: &Path, partial: bool) -> Result<DarshanLog> {
    Ok(DarshanLog::open_streaming(path, ReadOptions { partial })?)
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
    let text: String = values.iter().map(SummaryResult::text).collect();
    let mut outcome =
        if values.len() == 1 { Outcome::typed(&values[0], text) } else { Outcome::typed(&values, text) };
    outcome.warnings = warnings;
    outcome.report = merge_reports(reports);
    Ok(outcome)
}

/// One log's module breakdown (`ioscout analyze LOG`).
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct LogBreakdown {
    /// The log, as given.
    pub log: String,
    /// Darshan's format version.
    pub version: String,
    /// The breakdown.
    #[serde(flatten)]
    pub breakdown: ioscout_darshan::breakdown::Breakdown,
    /// What could not be read of the log.
    pub problems: Vec<String>,
}

/// The module breakdowns of several logs.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct LogsBreakdown {
    /// Always `darshan`: what was analysed.
    pub kind: &'static str,
    /// One per log, in the order given.
    pub logs: Vec<LogBreakdown>,
}

/// `ioscout analyze LOG...`: per log and I/O module its operations, bytes and time, summed over
/// processes and the slowest rank's, read in parallel; with `partial`, a damaged log gives what
/// could be read and says what was not.
pub fn analyze_logs(logs: &[PathBuf], partial: bool) -> Result<Outcome> {
    let read: Vec<Result<LogBreakdown>> = logs
        .par_iter()
        .map(|path| {
            let log = read(path, partial)?;
            Ok(LogBreakdown {
                log: display_path(path),
                version: log.header.version.clone(),
                breakdown: ioscout_darshan::breakdown::Breakdown::of(&log),
                problems: log.problems.clone(),
            })
        })
        .collect();
    let logs = read.into_iter().collect::<Result<Vec<_>>>()?;
    let mut text = String::new();
    let mut warnings = Vec::new();
    for (index, log) in logs.iter().enumerate() {
        if index > 0 {
            text.push('\n');
        }
        text.push_str(&ioscout_render::darshan::breakdown_text(&log.log, &log.version, &log.breakdown));
        warnings.extend(log.problems.iter().map(|problem| format!("{}: {problem}", log.log)));
    }
    let value = serde_json::to_value(LogsBreakdown { kind: "darshan", logs })
        .map_err(|error| crate::ServiceError::output("the module breakdown", error))?;
    let mut outcome = Outcome::new(value, text);
    outcome.warnings = warnings;
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
        let mut outcome = Outcome::typed(&LogDump { log: display_path(path), source: "darshan" }, text);
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
    let mut text = ioscout_render::evidence::derivation_text(&derived);
    text.push_str(&ioscout_darshan::dump::dump(&derived.log, options));
    let result = DerivedDump { log: display_path(path), derived: crate::evidence::Derivation::of(&derived) };
    Ok(Outcome { report: Some(report), ..Outcome::typed(&result, text) })
}

/// What `darshan dump` of a log returns beside its text.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct LogDump {
    /// The log.
    pub log: String,
    /// Always `darshan`.
    pub source: &'static str,
}

/// What `darshan dump` of a trace returns beside its text: how its records were derived.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct DerivedDump {
    /// The trace.
    pub log: String,
    /// How the Darshan records were derived from it.
    pub derived: crate::evidence::Derivation,
}

fn summaries_of_logs(logs: &[&PathBuf], partial: bool) -> Vec<Result<(SummaryResult, Vec<String>)>> {
    logs.par_iter()
        .map(|path| {
            let log = read(path, partial)?;
            let summary = ioscout_darshan::summary::summary(&log);
            let warnings =
                log.problems.iter().map(|problem| format!("{}: {problem}", display_path(path))).collect();
            Ok((SummaryResult { summary, log: display_path(path), derived: None }, warnings))
        })
        .collect()
}

/// The summary of one log (`darshan summary`, `info LOG`, the MCP tool `darshan_summary`), or of
/// the records derived from a trace with how they were derived.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct SummaryResult {
    /// The summary, in PyDarshan's shape.
    #[serde(flatten)]
    pub summary: ioscout_darshan::summary::LogSummary,
    /// The log (or trace) as given.
    pub log: String,
    /// How the records were derived, for a trace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub derived: Option<crate::evidence::Derivation>,
}

impl SummaryResult {
    /// Its text.
    pub fn text(&self) -> String {
        let derived = self.derived.as_ref().map(|derived| ioscout_render::darshan::DerivedCounts {
            calls: derived.calls,
            approximated_counters: derived.approximated_counters,
            unusable_calls: derived.unusable_calls,
        });
        ioscout_render::darshan::summary_text(&self.log, &self.summary, derived.as_ref())
    }
}

/// A summary over many logs (`ioscout darshan summary --group-by`).
#[derive(Clone, Debug, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ManyLogsRequest {
    /// Darshan logs, or directories searched (recursively) for `*.darshan` files.
    pub logs: Vec<PathBuf>,
    /// What the logs are grouped by.
    #[serde(default)]
    pub group_by: GroupBy,
    /// How many jobs and files to list, most first.
    #[serde(default = "default_top")]
    pub top: usize,
    /// What the groups, jobs and files are ranked by.
    #[serde(default)]
    pub by: RankBy,
    /// Read what can be read of a damaged log (its problems become warnings) instead of
    /// counting it as unreadable.
    #[serde(default)]
    pub partial: bool,
}

fn default_top() -> usize {
    10
}

/// A summary over many logs: what was read, the groups, the top jobs and files.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct ManyLogsResult<'a> {
    /// Logs found.
    pub logs: usize,
    /// Logs read.
    pub logs_read: usize,
    /// The logs that could not be read, with why.
    pub unreadable: Vec<UnreadableLog<'a>>,
    /// The logs read in part, with their problems.
    pub read_in_part: Vec<LogReadInPart<'a>>,
    /// What the logs are grouped by.
    pub group_by: GroupBy,
    /// What the groups, jobs and files are ranked by.
    pub by: RankBy,
    /// How many jobs and files are listed.
    pub top: usize,
    /// What the amounts count.
    pub counted: &'static str,
    /// The groups, most first by the metric.
    pub groups: Vec<GroupLine<'a>>,
    /// The jobs with most of the metric.
    pub top_jobs: &'a [TopJob],
    /// The files with most of the metric.
    pub top_files: &'a [TopFile],
}

/// A log that could not be read.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct UnreadableLog<'a> {
    /// The log.
    pub log: &'a str,
    /// Why.
    pub error: &'a str,
}

/// A log read in part.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct LogReadInPart<'a> {
    /// The log.
    pub log: &'a str,
    /// What could not be read.
    pub problems: &'a [String],
}

/// A group with its I/O time and the share of its process-seconds that is.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct GroupLine<'a> {
    /// The group.
    #[serde(flatten)]
    pub group: &'a Group,
    /// Read, write and metadata seconds summed over processes.
    pub io_time_s: f64,
    /// `io_time_s` over the process-seconds (`null` without run time).
    pub io_share: Option<f64>,
}

/// The logs of `paths`: each file as named, each directory's `*.darshan` files (recursively),
/// in sorted order.
pub(crate) fn logs_under(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut logs = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found: Vec<PathBuf> = walkdir::WalkDir::new(path)
                .follow_links(true)
                .into_iter()
                .flatten()
                .filter(|entry| entry.file_type().is_file())
                .map(walkdir::DirEntry::into_path)
                .filter(|found| found.extension().is_some_and(|extension| extension == "darshan"))
                .collect();
            found.sort();
            logs.append(&mut found);
        } else if path.exists() {
            logs.push(path.clone());
        } else {
            return Err(crate::ServiceError::io(path, std::io::Error::from(std::io::ErrorKind::NotFound)));
        }
    }
    if logs.is_empty() {
        return Err(crate::ServiceError::NoInput(format!(
            "no Darshan log (*.darshan) under {}",
            paths.iter().map(|path| display_path(path)).collect::<Vec<_>>().join(", ")
        )));
    }
    Ok(logs)
}

/// A summary over many logs, read in parallel, each reduced to its totals as it is read (memory
/// does not grow with the number of logs): per group (program, user, processes or job id) the
/// logs, processes, run time, bytes and I/O and metadata time; the top jobs and files by the
/// metric. A log that cannot be read is counted, named and left out; none readable is an error.
pub fn summary_over(request: &ManyLogsRequest) -> Result<Outcome> {
    let logs = logs_under(&request.logs)?;
    let plan =
        Plan { group_by: request.group_by, by: request.by, top: request.top, partial: request.partial };
    let mut fold = logs
        .par_iter()
        .fold(Survey::default, |fold, path| fold.add(path, display_path(path), &plan))
        .reduce(Survey::default, |left, right| left.merge(right, &plan));
    let groups = fold.finish(&plan);
    if fold.read == 0 {
        let (log, error) = fold.unreadable.first().cloned().unwrap_or_default();
        return Err(crate::ServiceError::BadRequest(format!(
            "none of the {} logs could be read (the first, {log}: {error})",
            logs.len()
        )));
    }
    let result = ManyLogsResult {
        logs: logs.len(),
        logs_read: fold.read,
        unreadable: fold.unreadable.iter().map(|(log, error)| UnreadableLog { log, error }).collect(),
        read_in_part: fold.damaged.iter().map(|(log, problems)| LogReadInPart { log, problems }).collect(),
        group_by: request.group_by,
        by: request.by,
        top: request.top,
        counted: "POSIX and STDIO records (MPI-IO, HDF5 and PnetCDF calls end in POSIX calls, counted there); times are summed over processes",
        groups: groups
            .iter()
            .map(|group| GroupLine {
                group,
                io_time_s: group.amounts.io_time_s(),
                io_share: (group.process_seconds > 0.0)
                    .then(|| group.amounts.io_time_s() / group.process_seconds),
            })
            .collect(),
        top_jobs: &fold.jobs,
        top_files: &fold.files,
    };
    let value = crate::to_json(&result);
    let text = ioscout_render::darshan::survey_text(&plan, &fold, &groups, logs.len());
    let mut warnings: Vec<String> =
        fold.unreadable.iter().map(|(log, error)| format!("{log}: not read: {error}")).collect();
    for (log, problems) in &fold.damaged {
        warnings.extend(problems.iter().map(|problem| format!("{log}: read in part: {problem}")));
    }
    Ok(Outcome { warnings, ..Outcome::new(value, text) })
}
