//! Per-file and per-job statistics over many Darshan logs (`ioscout darshan files|jobs`,
//! PyDarshan's `file_stats` and `job_stats`): the logs are read in parallel, each reduced to
//! its rows by [`ioscout_darshan::stats`] as it is read, then merged (a file by its name
//! across logs), ordered, cut to the limit and laid out by the render crate as a table, CSV or
//! JSON.

use std::collections::HashMap;
use std::path::PathBuf;

use ioscout_darshan::stats::{FileStats, JobStats, StatsModule};
use rayon::prelude::*;
use regex::Regex;

use crate::text::display_path;
use crate::{Outcome, Result, ServiceError};

/// The module statistics are given for.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Module {
    /// POSIX.
    #[default]
    Posix,
    /// MPI-IO.
    MpiIo,
    /// STDIO.
    Stdio,
}

impl Module {
    fn stats(self) -> StatsModule {
        match self {
            Module::Posix => StatsModule::Posix,
            Module::MpiIo => StatsModule::MpiIo,
            Module::Stdio => StatsModule::Stdio,
        }
    }
}

/// What files or jobs are ordered by, most first.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum OrderBy {
    /// Bytes read and written.
    #[default]
    TotalBytes,
    /// Bytes read.
    BytesRead,
    /// Bytes written.
    BytesWritten,
    /// Reads.
    Reads,
    /// Writes.
    Writes,
    /// Logs (jobs) that accessed the file; for jobs, the files.
    Jobs,
    /// The slowest rank's I/O time.
    TimeBySlowest,
    /// Bytes over that time.
    Bandwidth,
}

/// A request over many logs.
#[derive(Clone, Debug, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct StatsRequest {
    /// Darshan logs, or directories searched (recursively) for `*.darshan` files.
    pub logs: Vec<PathBuf>,
    /// The module (posix, mpi-io or stdio).
    pub module: Module,
    /// What the rows are ordered by, most first.
    pub order_by: OrderBy,
    /// At most this many rows (all when absent).
    pub limit: Option<usize>,
    /// Only files whose name matches one of these regular expressions.
    pub include: Vec<String>,
    /// No file whose name matches one of these regular expressions.
    pub exclude: Vec<String>,
    /// Read what can be read of a damaged log (its problems become warnings) instead of
    /// counting it as unreadable.
    pub partial: bool,
}

/// A file's row: [`FileStats`] with its totals.
#[derive(Clone, Debug, serde::Serialize)]
pub struct FileRow {
    /// The figures.
    #[serde(flatten)]
    pub stats: FileStats,
    /// Bytes read and written.
    pub total_bytes: u64,
    /// Bytes over the slowest rank's time summed over the logs.
    pub bandwidth_bytes_per_s: f64,
}

/// A log's row.
#[derive(Clone, Debug, serde::Serialize)]
pub struct JobRow {
    /// The log.
    pub log: String,
    /// Its figures.
    #[serde(flatten)]
    pub stats: JobStats,
}

/// A log that could not be read, and why.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Unreadable {
    /// The log.
    pub log: String,
    /// Why.
    pub error: String,
}

/// What is common to both results.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Coverage {
    /// The module.
    pub module: &'static str,
    /// The order.
    pub order_by: OrderBy,
    /// Logs given (directories expanded).
    pub logs: usize,
    /// Logs read.
    pub logs_read: usize,
    /// Logs read that had no record of the module (after the name filter).
    pub logs_without_module: usize,
    /// Logs that could not be read.
    pub unreadable: Vec<Unreadable>,
    /// Logs read in part, with their problems.
    pub read_in_part: Vec<Unreadable>,
}

/// `darshan files`: one row per file over every log.
#[derive(Clone, Debug, serde::Serialize)]
pub struct FilesResult {
    /// Logs and module.
    #[serde(flatten)]
    pub coverage: Coverage,
    /// Files before the limit.
    pub files_total: usize,
    /// The rows, ordered, cut to the limit.
    pub files: Vec<FileRow>,
}

/// `darshan jobs`: one row per log.
#[derive(Clone, Debug, serde::Serialize)]
pub struct JobsResult {
    /// Logs and module.
    #[serde(flatten)]
    pub coverage: Coverage,
    /// Jobs before the limit.
    pub jobs_total: usize,
    /// The rows, ordered, cut to the limit.
    pub jobs: Vec<JobRow>,
}

/// The name filter of a request.
struct Filter {
    include: Vec<Regex>,
    exclude: Vec<Regex>,
}

impl Filter {
    fn of(request: &StatsRequest) -> Result<Filter> {
        let compile = |patterns: &[String], option: &str| {
            patterns
                .iter()
                .map(|pattern| {
                    Regex::new(pattern)
                        .map_err(|error| ServiceError::BadRequest(format!("{option} {pattern:?}: {error}")))
                })
                .collect::<Result<Vec<_>>>()
        };
        Ok(Filter {
            include: compile(&request.include, "--include")?,
            exclude: compile(&request.exclude, "--exclude")?,
        })
    }

    fn keeps(&self, name: &str) -> bool {
        (self.include.is_empty() || self.include.iter().any(|regex| regex.is_match(name)))
            && !self.exclude.iter().any(|regex| regex.is_match(name))
    }
}

/// One log read: its rows, or why not.
enum Read<T> {
    Rows { log: String, rows: T, problems: Vec<String> },
    Unreadable(Unreadable),
}

/// Reads every log of `request` in parallel, reducing each with `reduce`.
fn read_all<T: Send>(
    request: &StatsRequest,
    reduce: impl Fn(&ioscout_darshan::DarshanLog) -> T + Sync,
) -> Result<(Vec<PathBuf>, Vec<Read<T>>)> {
    let logs = crate::darshan::logs_under(&request.logs)?;
    let read: Vec<Read<T>> = logs
        .par_iter()
        .map(|path: &PathBuf| {
            let log_name = display_path(path);
            match crate::darshan::read(path, request.partial) {
                Ok(log) => Read::Rows { rows: reduce(&log), problems: log.problems.clone(), log: log_name },
                Err(error) => Read::Unreadable(Unreadable { log: log_name, error: error.to_string() }),
            }
        })
        .collect();
    Ok((logs, read))
}

/// The coverage of `read`, and the rows of the logs read (in the order given).
fn coverage<T>(
    request: &StatsRequest,
    logs: usize,
    read: Vec<Read<T>>,
) -> Result<(Coverage, Vec<(String, T)>)> {
    let mut coverage = Coverage {
        module: request.module.stats().name(),
        order_by: request.order_by,
        logs,
        logs_read: 0,
        logs_without_module: 0,
        unreadable: Vec::new(),
        read_in_part: Vec::new(),
    };
    let mut rows = Vec::new();
    for entry in read {
        match entry {
            Read::Rows { log, rows: found, problems } => {
                coverage.logs_read += 1;
                if !problems.is_empty() {
                    coverage.read_in_part.push(Unreadable { log: log.clone(), error: problems.join("; ") });
                }
                rows.push((log, found));
            }
            Read::Unreadable(unreadable) => coverage.unreadable.push(unreadable),
        }
    }
    if coverage.logs_read == 0 {
        let first =
            coverage.unreadable.first().map(|entry| format!(" (the first, {}: {})", entry.log, entry.error));
        return Err(ServiceError::BadRequest(format!(
            "none of the {logs} logs could be read{}",
            first.unwrap_or_default()
        )));
    }
    Ok((coverage, rows))
}

fn warnings(coverage: &Coverage) -> Vec<String> {
    let unreadable =
        coverage.unreadable.iter().map(|entry| format!("{}: not read: {}", entry.log, entry.error));
    let in_part =
        coverage.read_in_part.iter().map(|entry| format!("{}: read in part: {}", entry.log, entry.error));
    unreadable.chain(in_part).collect()
}

/// Per-file statistics over every log of `request`.
pub fn files(request: &StatsRequest) -> Result<(FilesResult, Vec<String>)> {
    let filter = Filter::of(request)?;
    let module = request.module.stats();
    let (logs, read) = read_all(request, |log| {
        ioscout_darshan::stats::file_stats(log, module, &|name: &str| filter.keeps(name))
    })?;
    let (mut coverage, per_log) = coverage(request, logs.len(), read)?;
    let mut merged: HashMap<String, FileStats> = HashMap::new();
    for (_, stats) in per_log {
        if stats.is_empty() {
            coverage.logs_without_module += 1;
        }
        for file in stats {
            match merged.get_mut(&file.file) {
                Some(existing) => existing.merge(&file),
                None => {
                    merged.insert(file.file.clone(), file);
                }
            }
        }
    }
    let mut files: Vec<FileRow> = merged
        .into_values()
        .map(|stats| FileRow {
            total_bytes: stats.total_bytes(),
            bandwidth_bytes_per_s: stats.bandwidth_bytes_per_s(),
            stats,
        })
        .collect();
    let key = |row: &FileRow| match request.order_by {
        OrderBy::TotalBytes => row.total_bytes as f64,
        OrderBy::BytesRead => row.stats.bytes_read as f64,
        OrderBy::BytesWritten => row.stats.bytes_written as f64,
        OrderBy::Reads => row.stats.reads as f64,
        OrderBy::Writes => row.stats.writes as f64,
        OrderBy::Jobs => row.stats.jobs as f64,
        OrderBy::TimeBySlowest => row.stats.time_by_slowest_s,
        OrderBy::Bandwidth => row.bandwidth_bytes_per_s,
    };
    files.sort_by(|left, right| {
        key(right).total_cmp(&key(left)).then_with(|| left.stats.file.cmp(&right.stats.file))
    });
    let files_total = files.len();
    files.truncate(request.limit.unwrap_or(usize::MAX));
    let warnings = warnings(&coverage);
    Ok((FilesResult { coverage, files_total, files }, warnings))
}

/// Per-job statistics of every log of `request`.
pub fn jobs(request: &StatsRequest) -> Result<(JobsResult, Vec<String>)> {
    let filter = Filter::of(request)?;
    let module = request.module.stats();
    let (logs, read) = read_all(request, |log| {
        ioscout_darshan::stats::job_stats(log, module, &|name: &str| filter.keeps(name))
    })?;
    let (mut coverage, per_log) = coverage(request, logs.len(), read)?;
    let mut jobs = Vec::new();
    for (log, stats) in per_log {
        match stats {
            Some(stats) => jobs.push(JobRow { log, stats }),
            None => coverage.logs_without_module += 1,
        }
    }
    let key = |row: &JobRow| match request.order_by {
        OrderBy::TotalBytes | OrderBy::BytesRead | OrderBy::BytesWritten => row.stats.total_bytes as f64,
        OrderBy::Reads | OrderBy::Writes | OrderBy::Jobs => row.stats.files as f64,
        OrderBy::TimeBySlowest => row.stats.time_by_slowest_s,
        OrderBy::Bandwidth => row.stats.bandwidth_bytes_per_s,
    };
    jobs.sort_by(|left, right| key(right).total_cmp(&key(left)).then_with(|| left.log.cmp(&right.log)));
    let jobs_total = jobs.len();
    jobs.truncate(request.limit.unwrap_or(usize::MAX));
    let warnings = warnings(&coverage);
    Ok((JobsResult { coverage, jobs_total, jobs }, warnings))
}

/// `darshan files` as an outcome: the table as text, the result as JSON.
pub fn files_outcome(request: &StatsRequest) -> Result<Outcome> {
    let (result, warnings) = files(request)?;
    let text = ioscout_render::darshan::file_stats_text(
        &line(&result.coverage, result.files.len(), result.files_total, "files"),
        &files_view(&result),
    );
    let value =
        serde_json::to_value(&result).map_err(|error| ServiceError::output("the file statistics", error))?;
    let mut outcome = Outcome::new(value, text);
    outcome.warnings = warnings;
    Ok(outcome)
}

/// `darshan jobs` as an outcome.
pub fn jobs_outcome(request: &StatsRequest) -> Result<Outcome> {
    let (result, warnings) = jobs(request)?;
    let rows = job_rows(&result);
    let text = ioscout_render::darshan::job_stats_text(
        &line(&result.coverage, result.jobs.len(), result.jobs_total, "jobs"),
        &rows,
    );
    let value =
        serde_json::to_value(&result).map_err(|error| ServiceError::output("the job statistics", error))?;
    let mut outcome = Outcome::new(value, text);
    outcome.warnings = warnings;
    Ok(outcome)
}

/// The CSV of `darshan files` (PyDarshan's `file_stats --csv` columns, times in seconds,
/// bandwidth in bytes per second).
pub fn files_csv(request: &StatsRequest) -> Result<(String, Vec<String>)> {
    let (result, warnings) = files(request)?;
    Ok((ioscout_render::darshan::file_stats_csv(&files_view(&result)), warnings))
}

/// The CSV of `darshan jobs` (PyDarshan's `job_stats --csv` columns).
pub fn jobs_csv(request: &StatsRequest) -> Result<(String, Vec<String>)> {
    let (result, warnings) = jobs(request)?;
    Ok((ioscout_render::darshan::job_stats_csv(&job_rows(&result)), warnings))
}

fn job_rows(result: &JobsResult) -> Vec<(&str, &JobStats)> {
    result.jobs.iter().map(|row| (row.log.as_str(), &row.stats)).collect()
}

fn files_view(result: &FilesResult) -> Vec<&FileStats> {
    result.files.iter().map(|row| &row.stats).collect()
}

/// The line above a table: what was read and how it is ordered.
fn line(coverage: &Coverage, shown: usize, total: usize, what: &str) -> String {
    use crate::text::{count_of, thousands};
    use std::fmt::Write as _;
    let order = serde_json::to_value(coverage.order_by)
        .ok()
        .and_then(|value| value.as_str().map(str::to_string))
        .unwrap_or_default();
    let rows = if shown < total {
        format!("{} of {} {what}", thousands(shown as u64), thousands(total as u64))
    } else {
        format!("{} {what}", thousands(total as u64))
    };
    let mut text = format!(
        "{}: {rows}, most {order} first; {} of {} read",
        coverage.module,
        thousands(coverage.logs_read as u64),
        count_of(coverage.logs as u64, "log", "logs")
    );
    if coverage.logs_without_module > 0 {
        let _ = write!(
            text,
            ", {} without {} records",
            thousands(coverage.logs_without_module as u64),
            coverage.module
        );
    }
    text
}
