//! Darshan log summaries and dumps (`ioscout darshan summary|dump`, `ioscout info LOG`, the MCP
//! tool `darshan_summary`): version, processes, run time, modules and counter totals per module,
//! or `darshan-parser`'s text; of a Darshan log, or of the records derived from a DFTracer trace
//! ([`crate::evidence`]). Over many logs ([`summary_over`]): groups by program, user, processes
//! or job id, and the top jobs and files, read in parallel in bounded memory. The module
//! breakdown of logs ([`analyze_logs`], `ioscout analyze LOG`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use std::collections::BTreeMap;

use ioscout_darshan::totals::{Amounts, FileTotals, GroupBy, JobTotals, RankBy};
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

/// One log's module breakdown (`ioscout analyze LOG`).
#[derive(Clone, Debug, serde::Serialize)]
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
#[derive(Clone, Debug, serde::Serialize)]
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
    let mut text = crate::evidence::derivation_text(&derived);
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

fn summaries_of_logs(logs: &[&PathBuf], partial: bool) -> Vec<Result<(serde_json::Value, Vec<String>)>> {
    logs.par_iter()
        .map(|path| {
            let log = read(path, partial)?;
            let mut value = ioscout_darshan::summary::summary(&log);
            if let Some(object) = value.as_object_mut() {
                object.insert("log".into(), serde_json::Value::String(display_path(path)));
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

/// One group of logs.
#[derive(Clone, Debug, Default, serde::Serialize, schemars::JsonSchema)]
pub struct Group {
    /// The program, user, process count or job id the logs share.
    pub key: String,
    /// Logs in the group.
    pub logs: usize,
    /// Processes over the logs.
    pub processes: i64,
    /// Run time over the logs, in seconds.
    pub run_time_s: f64,
    /// The longest run time, in seconds.
    pub max_run_time_s: f64,
    /// Run time times processes: the process-seconds the I/O share is taken of.
    pub process_seconds: f64,
    /// Bytes, operations and times over the logs.
    #[serde(flatten)]
    pub amounts: Amounts,
}

/// A job in the top list.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct TopJob {
    /// The log.
    pub log: String,
    /// The job's totals.
    #[serde(flatten)]
    pub job: JobTotals,
}

/// A file in the top list.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct TopFile {
    /// The log.
    pub log: String,
    /// The file's totals.
    #[serde(flatten)]
    pub file: FileTotals,
}

/// What the logs read so far add up to; one per worker, merged at the end. Its size is the
/// groups, the top lists (at most twice `top` each between trims) and the logs that failed,
/// never the logs read.
#[derive(Default)]
struct Fold {
    read: usize,
    groups: BTreeMap<String, Group>,
    jobs: Vec<TopJob>,
    files: Vec<TopFile>,
    unreadable: Vec<(String, String)>,
    damaged: Vec<(String, Vec<String>)>,
}

/// Most first by the metric, then by log (and file name) for a stable order.
fn job_order(by: RankBy) -> impl Fn(&TopJob, &TopJob) -> std::cmp::Ordering {
    move |left, right| {
        by.of(&right.job.amounts).total_cmp(&by.of(&left.job.amounts)).then(left.log.cmp(&right.log))
    }
}

fn file_order(by: RankBy) -> impl Fn(&TopFile, &TopFile) -> std::cmp::Ordering {
    move |left, right| {
        by.of(&right.file.amounts)
            .total_cmp(&by.of(&left.file.amounts))
            .then(left.log.cmp(&right.log))
            .then(left.file.name.cmp(&right.file.name))
            .then(left.file.rank.cmp(&right.file.rank))
    }
}

impl Fold {
    fn trim(&mut self, request: &ManyLogsRequest, force: bool) {
        if force || self.jobs.len() > 2 * request.top.max(1) {
            self.jobs.sort_by(job_order(request.by));
            self.jobs.truncate(request.top);
        }
        if force || self.files.len() > 2 * request.top.max(1) {
            self.files.sort_by(file_order(request.by));
            self.files.truncate(request.top);
        }
    }

    fn add(mut self, path: &Path, request: &ManyLogsRequest) -> Fold {
        let shown = display_path(path);
        let log = match read(path, request.partial) {
            Ok(log) => log,
            Err(error) => {
                self.unreadable.push((shown, error.to_string()));
                return self;
            }
        };
        if !log.problems.is_empty() {
            self.damaged.push((shown.clone(), log.problems.iter().map(ToString::to_string).collect()));
        }
        let (job, files) = ioscout_darshan::totals::totals(&log);
        drop(log);
        self.read += 1;
        let key = request.group_by.key(&job);
        let group = self.groups.entry(key.clone()).or_insert_with(|| Group { key, ..Group::default() });
        group.logs += 1;
        group.processes += job.nprocs.max(0);
        group.run_time_s += job.run_time_s.max(0.0);
        group.max_run_time_s = group.max_run_time_s.max(job.run_time_s);
        group.process_seconds += job.run_time_s.max(0.0) * job.nprocs.max(0) as f64;
        group.amounts.add(&job.amounts);
        self.files.extend(files.into_iter().map(|file| TopFile { log: shown.clone(), file }));
        self.jobs.push(TopJob { log: shown, job });
        self.trim(request, false);
        self
    }

    fn merge(mut self, other: Fold, request: &ManyLogsRequest) -> Fold {
        self.read += other.read;
        for (key, group) in other.groups {
            let mine = self.groups.entry(key.clone()).or_insert_with(|| Group { key, ..Group::default() });
            mine.logs += group.logs;
            mine.processes += group.processes;
            mine.run_time_s += group.run_time_s;
            mine.max_run_time_s = mine.max_run_time_s.max(group.max_run_time_s);
            mine.process_seconds += group.process_seconds;
            mine.amounts.add(&group.amounts);
        }
        self.jobs.extend(other.jobs);
        self.files.extend(other.files);
        self.unreadable.extend(other.unreadable);
        self.damaged.extend(other.damaged);
        self.trim(request, false);
        self
    }
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
    let mut fold = logs
        .par_iter()
        .fold(Fold::default, |fold, path| fold.add(path, request))
        .reduce(Fold::default, |left, right| left.merge(right, request));
    fold.trim(request, true);
    fold.unreadable.sort();
    fold.damaged.sort();
    if fold.read == 0 {
        let (log, error) = fold.unreadable.first().cloned().unwrap_or_default();
        return Err(crate::ServiceError::BadRequest(format!(
            "none of the {} logs could be read (the first, {log}: {error})",
            logs.len()
        )));
    }
    let mut groups: Vec<Group> = std::mem::take(&mut fold.groups).into_values().collect();
    groups.sort_by(|left, right| {
        request.by.of(&right.amounts).total_cmp(&request.by.of(&left.amounts)).then(left.key.cmp(&right.key))
    });
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
    let text = many_logs_text(request, &fold, &groups, logs.len());
    let mut warnings: Vec<String> =
        fold.unreadable.iter().map(|(log, error)| format!("{log}: not read: {error}")).collect();
    for (log, problems) in &fold.damaged {
        warnings.extend(problems.iter().map(|problem| format!("{log}: read in part: {problem}")));
    }
    Ok(Outcome { warnings, ..Outcome::new(value, text) })
}

/// The text of a summary over many logs: what was read, the groups, the top jobs and files.
fn many_logs_text(request: &ManyLogsRequest, fold: &Fold, groups: &[Group], logs: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} of {logs} logs read{}{}; I/O counted from POSIX and STDIO records, times summed over processes",
        fold.read,
        if fold.unreadable.is_empty() {
            String::new()
        } else {
            format!(", {} not readable", fold.unreadable.len())
        },
        if fold.damaged.is_empty() {
            String::new()
        } else {
            format!(", {} read in part", fold.damaged.len())
        },
    );
    out.push('\n');
    out.push_str(&groups_table(request, groups).render());
    if groups
        .iter()
        .any(|group| group.process_seconds > 0.0 && group.amounts.io_time_s() > group.process_seconds)
    {
        out.push_str(
            "  I/O share: I/O time summed over processes and files over run time x processes; above 100 % when a process's calls overlap (threads, asynchronous I/O, or STDIO and POSIX records of the same calls)\n",
        );
    }
    let (jobs, files) = top_tables(request, fold);
    out.push('\n');
    out.push_str(&jobs.render());
    out.push('\n');
    out.push_str(&files.render());
    out
}

/// The table of the groups, one row each.
fn groups_table(request: &ManyLogsRequest, groups: &[Group]) -> crate::table::Table {
    use crate::table::Table;
    let mut table = Table::new(
        &format!("By {} (most {} first)", request.group_by.heading().to_lowercase(), request.by.words()),
        &[
            request.group_by.heading(),
            "Logs",
            "Processes",
            "Run time (s)",
            "Longest (s)",
            "I/O time (s)",
            "Meta time (s)",
            "Read (MiB)",
            "Written (MiB)",
            "I/O share",
        ],
        &[false, true, true, true, true, true, true, true, true, true],
    );
    for group in groups {
        table.row(vec![
            if group.key.is_empty() { "(no command line)".into() } else { group.key.clone() },
            group.logs.to_string(),
            group.processes.to_string(),
            format!("{:.1}", group.run_time_s),
            format!("{:.1}", group.max_run_time_s),
            format!("{:.3}", group.amounts.io_time_s()),
            format!("{:.3}", group.amounts.meta_time_s),
            ioscout_render::text::mib(group.amounts.bytes_read as f64),
            ioscout_render::text::mib(group.amounts.bytes_written as f64),
            if group.process_seconds > 0.0 {
                format!("{:.1} %", 100.0 * group.amounts.io_time_s() / group.process_seconds)
            } else {
                "-".into()
            },
        ]);
    }
    table
}

/// The tables of the top jobs and the top files.
fn top_tables(request: &ManyLogsRequest, fold: &Fold) -> (crate::table::Table, crate::table::Table) {
    use crate::table::Table;
    let mut jobs = Table::new(
        &format!("Top {} jobs by {}", fold.jobs.len(), request.by.words()),
        &[
            "Log",
            "Program",
            "Processes",
            "Job id",
            "Run time (s)",
            "I/O time (s)",
            "Meta time (s)",
            "Bytes (MiB)",
        ],
        &[false, false, true, true, true, true, true, true],
    );
    for top in &fold.jobs {
        jobs.row(vec![
            top.log.clone(),
            top.job.program.clone(),
            top.job.nprocs.to_string(),
            top.job.jobid.to_string(),
            format!("{:.1}", top.job.run_time_s),
            format!("{:.3}", top.job.amounts.io_time_s()),
            format!("{:.3}", top.job.amounts.meta_time_s),
            ioscout_render::text::mib(top.job.amounts.bytes() as f64),
        ]);
    }
    let mut files = Table::new(
        &format!("Top {} files by {}", fold.files.len(), request.by.words()),
        &["File", "Module", "Rank", "Log", "I/O time (s)", "Meta time (s)", "Bytes (MiB)"],
        &[false, false, true, false, true, true, true],
    );
    for top in &fold.files {
        files.row(vec![
            top.file.name.clone(),
            top.file.module.to_string(),
            top.file.rank.to_string(),
            top.log.clone(),
            format!("{:.3}", top.file.amounts.io_time_s()),
            format!("{:.3}", top.file.amounts.meta_time_s),
            ioscout_render::text::mib(top.file.amounts.bytes() as f64),
        ]);
    }
    (jobs, files)
}
