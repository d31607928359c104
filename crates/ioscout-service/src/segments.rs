//! Darshan DXT segments as events: what `view`, `query`, `export` and `count` read from a
//! Darshan log, in the same schema, filters and outputs as a trace's events.
//!
//! DXT (Darshan eXtended Tracing) records every read and write a rank made to a file, with its
//! offset, length and start and end times; [`ioscout_darshan`] decodes them as
//! [`ioscout_darshan::Segment`]s. Here each one becomes one complete event:
//!
//! | event field | from the segment |
//! |---|---|
//! | `name` | `read` or `write` (alias `op`) |
//! | `cat` | the DXT module: `POSIX` or `MPIIO` (alias `module`) |
//! | `pid` | the rank (alias `rank`) |
//! | `tid` | the thread id where DXT recorded it (DXT POSIX 2+, DXT MPI-IO 3+), else 0 |
//! | `id` | the segment's place in the log, from 0 |
//! | `ts`, `dur` | start and duration in microseconds since the job started (alias `start`; `end` is `ts + dur`) |
//! | `args.fname`, `args.hostname` | the file's name record and the rank's host (so `file` and `host` resolve) |
//! | `args.offset` | the file offset (alias `offset`; absent where DXT MPI-IO 1 did not record it) |
//! | `args.ret` | bytes moved (alias `length`), as a trace's read or write returns them |
//!
//! Events come in the log's order: module by module, record (one file on one rank) by record,
//! each record's writes and then its reads, as `darshan-dxt-parser` prints them. A segment
//! with a negative length, a time that is not a number, or an end before its start is left
//! out, counted and named in the problems, never emitted.
//!
//! Logs are read one at a time, their DXT records one at a time from the file
//! ([`DarshanLog::for_each_dxt_record`]) and their events handed on in blocks, so memory holds
//! one log's counter records, one DXT record and one block of rows.

use std::ops::ControlFlow;
use std::path::PathBuf;

use ioscout_darshan::{DarshanLog, DxtRecord, Records};
use ioscout_model::{Event, HashTables, Phase};
use ioscout_query::Predicate;
use ioscout_query::aggregate::{GroupFold, GroupSpec, Groups};
use ioscout_read::Fold;

use crate::text::{count_of, display_path};
use crate::view::{Emitter, Output, Sink, ViewFold, ViewFormat};
use crate::{Outcome, Result, ServiceError};

/// Events handed to a fold at a time (the rows of one block are held until written).
const BLOCK: usize = 65_536;

/// What reading the segments of some logs found besides the events.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct SegmentReport {
    /// One entry per log, in the order given.
    pub logs: Vec<LogSegments>,
    /// What the caller should be told (logs without DXT, how far a query read).
    pub notes: Vec<String>,
}

impl SegmentReport {
    /// Every log's problems, each prefixed with its log.
    pub fn problems(&self) -> impl Iterator<Item = String> + '_ {
        self.logs
            .iter()
            .flat_map(|log| log.problems.iter().map(move |problem| format!("{}: {problem}", log.log)))
    }
}

pub use ioscout_darshan::dxt::{LogSegments, ModuleSegments};

/// A module's event category: `DXT_POSIX` → `POSIX`.
fn category(module: &str) -> &str {
    module.strip_prefix("DXT_").unwrap_or(module)
}

/// Microseconds of a time in seconds, when it is a number inside i64's range.
fn microseconds(seconds: f64) -> Option<i64> {
    let value = (seconds * 1e6).round();
    (value.is_finite() && value.abs() < 9.0e18).then_some(value as i64)
}

/// Calls `each` with every segment of `log`'s DXT modules as an event (the module docs give the
/// schema), in the log's order, until it breaks; returns the count per module, with the
/// segments left out.
pub fn for_each_event(
    log: &DarshanLog,
    each: impl FnMut(&Event<'_>) -> ControlFlow<()>,
) -> (Vec<ModuleSegments>, Vec<String>) {
    for_each_event_of(log, None, each, |_| {})
}

/// [`for_each_event`] over DXT module `only` when given, with each record also handed to
/// `each_record` (so that one reading of a log's records serves both).
pub(crate) fn for_each_event_of(
    log: &DarshanLog,
    only: Option<usize>,
    mut each: impl FnMut(&Event<'_>) -> ControlFlow<()>,
    mut each_record: impl FnMut(&DxtRecord),
) -> (Vec<ModuleSegments>, Vec<String>) {
    let mut modules = Vec::new();
    let mut problems = Vec::new();
    let mut id = 0_i64;
    let mut args = String::new();
    let mut stopped = false;
    for module in log.modules.iter().filter(|module| is_dxt(module) && only.is_none_or(|id| module.id == id))
    {
        let mut counts = ModuleSegments {
            module: module.name.to_string(),
            records: module.records.len() as u64,
            damaged: module.damaged,
            ..ModuleSegments::default()
        };
        // Every record is counted, also after `each` has had enough.
        let read = log.for_each_dxt_record(module.id, |record| {
            if !stopped {
                stopped = record_events(log, category(module.name), record, &mut id, &mut args, &mut each)
                    .is_break();
            }
            tally(record, &mut counts);
            each_record(record);
            ControlFlow::Continue(())
        });
        if let Err(error) = read {
            problems.push(error.to_string());
        }
        if counts.left_out > 0 {
            problems.push(format!(
                "{}: {} left out (a negative length, a time that is not a number, or an end before the start)",
                module.name,
                count_of(counts.left_out, "segment", "segments")
            ));
        }
        modules.push(counts);
    }
    (modules, problems)
}

/// Whether a segment can be an event.
fn valid(segment: &ioscout_darshan::Segment) -> bool {
    segment.is_possible() && microseconds(segment.start).is_some() && microseconds(segment.end).is_some()
}

/// A valid segment's end, microseconds since the job started.
pub(crate) fn valid_end_us(segment: &ioscout_darshan::Segment) -> Option<i64> {
    if valid(segment) { microseconds(segment.end) } else { None }
}

/// The offsets' sample of a log's DXT POSIX segments (at most `uniform` uniformly by hash and the
/// `slowest` longest, as the trace report's), files named by their name records, gathered
/// record by record.
pub(crate) struct PosixSample<'l> {
    log: &'l DarshanLog,
    sample: ioscout_evidence::sample::AccessSample,
    paths: Vec<String>,
    numbers: std::collections::HashMap<u64, u32>,
}

impl<'l> PosixSample<'l> {
    pub(crate) fn new(log: &'l DarshanLog, uniform: usize, slowest: usize) -> PosixSample<'l> {
        PosixSample {
            log,
            sample: ioscout_evidence::sample::AccessSample::new(uniform, slowest),
            paths: Vec::new(),
            numbers: std::collections::HashMap::new(),
        }
    }

    /// Adds a DXT POSIX record's valid segments.
    pub(crate) fn record(&mut self, record: &DxtRecord) {
        let file = *self.numbers.entry(record.id).or_insert_with(|| {
            self.paths.push(self.log.name_or_id(record.id));
            (self.paths.len() - 1) as u32
        });
        for segment in record.segments.iter().filter(|segment| valid(segment)) {
            let (Some(start), Some(end)) = (microseconds(segment.start), microseconds(segment.end)) else {
                continue;
            };
            self.sample.add(
                start,
                end,
                record.rank,
                file,
                record.id,
                segment.offset,
                segment.length,
                !segment.write,
            );
        }
    }

    pub(crate) fn finish(mut self) -> ioscout_evidence::sample::AccessSample {
        self.sample.finish(&self.paths);
        self.sample
    }
}

/// Whether `module` is a DXT module (its records in memory or left in the file).
fn is_dxt(module: &ioscout_darshan::Module) -> bool {
    matches!(module.records, Records::Dxt(_) | Records::DxtOnDisk(_))
}

/// Adds a record's segments to its module's counts.
fn tally(record: &DxtRecord, counts: &mut ModuleSegments) {
    for segment in &record.segments {
        if !valid(segment) {
            counts.left_out += 1;
            continue;
        }
        let bytes = segment.length.unsigned_abs();
        if segment.write {
            counts.writes += 1;
            counts.write_bytes = counts.write_bytes.saturating_add(bytes);
        } else {
            counts.reads += 1;
            counts.read_bytes = counts.read_bytes.saturating_add(bytes);
        }
    }
}

/// One record's valid segments as events.
fn record_events(
    log: &DarshanLog,
    category: &str,
    record: &DxtRecord,
    id: &mut i64,
    args: &mut String,
    each: &mut impl FnMut(&Event<'_>) -> ControlFlow<()>,
) -> ControlFlow<()> {
    use std::fmt::Write as _;
    let quote = |text: &str| serde_json::to_string(text).unwrap_or_else(|_| "\"\"".into());
    let name = log.name_or_id(record.id);
    let prefix = format!("{{\"fname\":{},\"hostname\":{}", quote(&name), quote(&record.hostname));
    for segment in record.segments.iter().filter(|segment| valid(segment)) {
        let (Some(start), Some(end)) = (microseconds(segment.start), microseconds(segment.end)) else {
            continue;
        };
        args.clear();
        args.push_str(&prefix);
        if segment.offset >= 0 {
            let _ = write!(args, ",\"offset\":{}", segment.offset);
        }
        let _ = write!(args, ",\"ret\":{}}}", segment.length);
        let event = Event {
            phase: Some(Phase::Complete),
            id: Some(*id),
            name: Some(if segment.write { "write" } else { "read" }.into()),
            cat: Some(category.into()),
            pid: Some(record.rank),
            tid: Some(segment.pthread_id.and_then(|thread| i64::try_from(thread).ok()).unwrap_or(0)),
            ts: Some(start),
            dur: Some(end - start),
            args: Some(args.as_str()),
            ..Event::default()
        };
        *id += 1;
        each(&event)?;
    }
    ControlFlow::Continue(())
}

/// A log read for its segments, with the log's own problems.
fn read_log(path: &std::path::Path, partial: bool) -> Result<(DarshanLog, LogSegments)> {
    let log = crate::darshan::read(path, partial)?;
    let entry =
        LogSegments { log: display_path(path), problems: log.problems.clone(), ..LogSegments::default() };
    Ok((log, entry))
}

/// A log read for its segments; `None` (noted in `report`) when it has no DXT module or none
/// of its DXT regions could be read.
fn read_with_dxt(
    path: &std::path::Path,
    partial: bool,
    report: &mut SegmentReport,
) -> Result<Option<(DarshanLog, LogSegments)>> {
    let (log, entry) = read_log(path, partial)?;
    let mut dxt = log.modules.iter().filter(|module| is_dxt(module)).peekable();
    if dxt.peek().is_none() {
        report.notes.push(format!("{} has no DXT module: no segments", entry.log));
    } else if dxt.all(ioscout_darshan::Module::unread) {
        // Each unread region is named in the log's problems; the refusal names the first.
        let first = log.problems.iter().find(|problem| problem.contains("DXT_")).cloned().unwrap_or_default();
        report.notes.push(format!("{}: no DXT segment could be read ({first})", entry.log));
    } else {
        return Ok(Some((log, entry)));
    }
    report.logs.push(entry);
    Ok(None)
}

/// The refusal when no log given has DXT data to read: a log without a DXT module, or with its
/// DXT regions unreadable.
fn no_segments(logs: &[PathBuf], report: &SegmentReport) -> ServiceError {
    let absent = report.notes.iter().all(|note| note.ends_with("has no DXT module: no segments"));
    let what = match (logs, absent) {
        ([one], true) => format!("{} has no DXT module", display_path(one)),
        (_, true) => format!("none of the {} Darshan logs has a DXT module", logs.len()),
        ([_], false) => report.notes.join("; "),
        (_, false) => format!("no segment in the {} Darshan logs: {}", logs.len(), report.notes.join("; ")),
    };
    let why = if absent {
        ": Darshan records each read and write only with DXT on (DXT_ENABLE_IO_TRACE=1 at run time)"
    } else {
        ""
    };
    ServiceError::BadRequest(format!(
        "{what}{why}; a log's counters are read by `analyze`, `report`, `count`, `darshan summary`, \
         `diagnose` and `advise`"
    ))
}

/// Writes the segments of `logs` that match `predicate` as rows (JSON lines, CSV, Parquet,
/// Chrome trace events, or values), up to `limit`; the values are returned for
/// [`ViewFormat::Values`].
pub fn view(
    logs: &[PathBuf],
    partial: bool,
    predicate: Option<&Predicate>,
    limit: Option<u64>,
    output: &Output,
    out: Sink,
) -> Result<(SegmentReport, Vec<serde_json::Value>)> {
    let tables = HashTables::default();
    let mut emitter = Emitter::new(output, limit, out)?;
    let limit = emitter.limit;
    let mut report = SegmentReport::default();
    let mut stopped = false;
    for path in logs {
        let Some((log, mut entry)) = read_with_dxt(path, partial, &mut report)? else { continue };
        let mut fold = ViewFold::new(predicate, &tables, output, limit);
        let mut held = 0;
        let (modules, problems) = for_each_event(&log, |event| {
            if stopped {
                return ControlFlow::Break(());
            }
            fold.event(event);
            held += 1;
            if held == BLOCK {
                let full = std::mem::replace(&mut fold, ViewFold::new(predicate, &tables, output, limit));
                held = 0;
                if emitter.take(&full).is_break() {
                    stopped = true;
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        });
        if !stopped && emitter.take(&fold).is_break() {
            stopped = true;
        }
        entry.modules = modules;
        entry.problems.extend(problems);
        report.logs.push(entry);
    }
    if report.logs.iter().all(|log| log.modules.is_empty()) {
        return Err(no_segments(logs, &report));
    }
    let values = emitter.finish()?;
    Ok((report, values))
}

/// Groups the segments of `logs` that match `predicate` by `spec`'s keys.
pub fn group(
    logs: &[PathBuf],
    partial: bool,
    predicate: Option<&Predicate>,
    spec: &GroupSpec,
) -> Result<(SegmentReport, Groups)> {
    let tables = HashTables::default();
    let mut report = SegmentReport::default();
    let mut groups = Groups::default();
    for path in logs {
        let Some((log, mut entry)) = read_with_dxt(path, partial, &mut report)? else { continue };
        let mut fold = GroupFold::new(spec, predicate, &tables);
        let (modules, problems) = for_each_event(&log, |event| {
            fold.event(event);
            ControlFlow::Continue(())
        });
        groups.merge(fold.groups);
        entry.modules = modules;
        entry.problems.extend(problems);
        report.logs.push(entry);
    }
    if report.logs.iter().all(|log| log.modules.is_empty()) {
        return Err(no_segments(logs, &report));
    }
    Ok((report, groups))
}

/// A query over the segments of `logs`: rows, or groups when `request` has `group_by`.
pub fn query(
    logs: &[PathBuf],
    partial: bool,
    request: &crate::query::QueryRequest,
    mut out: Sink,
) -> Result<(SegmentReport, Vec<serde_json::Value>)> {
    let predicate = request.filter.as_deref().map(Predicate::parse).transpose()?;
    if let Some(keys) = request.group_by.as_deref() {
        let spec = GroupSpec::parse(keys, &request.aggregate)
            .map_err(|error| ServiceError::BadRequest(error.to_string()))?;
        if request.format == Some(ViewFormat::Parquet) {
            return Err(ServiceError::BadRequest(
                "--group-by prints a table, JSON lines or CSV; not Parquet".into(),
            ));
        }
        let (mut report, groups) = group(logs, partial, predicate.as_ref(), &spec)?;
        let rows = crate::query::print_groups(&spec, &groups, request.format, &mut out, &mut report.notes)?;
        return Ok((report, rows));
    }
    let mut output = Output::new(request.format.unwrap_or(ViewFormat::Jsonl), request.select.as_deref())?;
    output.batches.clone_from(&request.batches);
    view(logs, partial, predicate.as_ref(), request.limit, &output, out)
}

/// The segments of each log per DXT module, and every log's records per module: `count LOG`.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct SegmentCount {
    /// `darshan`.
    pub kind: &'static str,
    /// Per log.
    pub logs: Vec<LogSegments>,
    /// Over every log.
    pub total: ModuleSegments,
    /// Problems over every log.
    pub problem_count: usize,
}

/// Counts the DXT segments of `logs` (a log without DXT counts none, and says so).
pub fn count(logs: &[PathBuf], partial: bool) -> Result<Outcome> {
    let mut report = SegmentReport::default();
    for path in logs {
        let (log, mut entry) = read_log(path, partial)?;
        let (modules, problems) = for_each_event(&log, |_| ControlFlow::Break(()));
        entry.modules = modules;
        entry.problems.extend(problems);
        report.logs.push(entry);
    }
    let mut total = ModuleSegments { module: "total".into(), ..ModuleSegments::default() };
    for module in report.logs.iter().flat_map(|log| &log.modules) {
        total.records += module.records;
        total.reads += module.reads;
        total.writes += module.writes;
        total.read_bytes = total.read_bytes.saturating_add(module.read_bytes);
        total.write_bytes = total.write_bytes.saturating_add(module.write_bytes);
        total.left_out += module.left_out;
        total.damaged |= module.damaged;
    }
    let text = ioscout_render::darshan::segment_count_text(&report.logs, &total);
    let warnings: Vec<String> = report.problems().collect();
    let result = SegmentCount { kind: "darshan", problem_count: warnings.len(), logs: report.logs, total };
    let mut outcome = Outcome::typed(&result, text);
    outcome.warnings = warnings;
    Ok(outcome)
}
