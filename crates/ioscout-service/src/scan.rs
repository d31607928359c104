//! What a scan read and what it could not, as a type: the `scan` section every `--json` output
//! and MCP result carries ([`ScanSection`]) and its `coverage` ([`CoverageSection`]: the files
//! still being written). The service serialises these types; the MCP server and the docs take
//! their JSON Schema from them.

use ioscout_read::{Coverage, Growth, Problem, ProblemKind, ProcessKey, ScanReport};
use serde::Serialize;

use crate::text::display_path;

/// What a scan read and what it could not.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ScanSection {
    /// Nothing skipped, no invalid line but the unfinished end of a file still being written,
    /// not stopped early ([`ScanReport::bad_input_count`], the rule `--strict` uses).
    pub complete: bool,
    /// Files read.
    pub files_read: usize,
    /// Files that could not be read, with the reason.
    pub files_skipped: Vec<SkippedFile>,
    /// Problems counted.
    pub problem_count: u64,
    /// The problems kept (file, line, byte offset).
    pub problems: Vec<Problem>,
    /// How many more were counted than kept.
    pub problems_not_shown: u64,
    /// The files still being written.
    pub coverage: CoverageSection,
}

/// A file the scan could not read.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SkippedFile {
    /// The file.
    pub path: String,
    /// Why it could not be read.
    pub reason: String,
}

/// The files that look still being written (modified in the last [`ioscout_read::SETTLE`],
/// grown since they were read, or ending in an unfinished gzip member), so no reader takes the
/// result of a running job for the whole run.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct CoverageSection {
    /// Whether any file is still being written.
    pub still_being_written: bool,
    /// Files complete.
    pub files_complete: usize,
    /// Files still being written.
    pub files_growing: Vec<GrowingSection>,
    /// Processes complete and still being written (`null` for passes that do not read events).
    pub processes: Option<ProcessesSection>,
    /// The time covered (`null` for passes that do not read events).
    pub span: Option<SpanSection>,
    /// How long after its last change a file still counts as being written, in seconds.
    pub settle_s: u64,
}

/// A file still being written.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct GrowingSection {
    /// The file.
    pub path: String,
    /// Why it looks still being written.
    pub growth: Vec<Growth>,
    /// Its size when it was found (what the scan read from).
    pub size_read: u64,
    /// Its size when the coverage was taken.
    pub size_now: u64,
    /// The latest end of an event it held when read, in seconds from the first event's start.
    pub written_until_s: Option<f64>,
}

/// Which processes are complete and which still being written (a process with events in a
/// growing file is growing).
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ProcessesSection {
    /// Processes whose events are only in complete files.
    pub complete: usize,
    /// Processes with events in a file still being written.
    pub growing: usize,
    /// Those processes.
    pub growing_processes: Vec<ProcessKey>,
}

/// The time a scan covered.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SpanSection {
    /// Earliest start of an event read (trace µs).
    pub start_us: i64,
    /// Latest end of an event read (trace µs).
    pub end_us: i64,
    /// The span in seconds.
    pub seconds: f64,
    /// Up to when the trace holds every event, in seconds from the start: the earliest of the
    /// growing files' latest events.
    pub complete_until_s: f64,
}

impl ScanSection {
    /// The section of `report`, its coverage taken now.
    pub fn of(report: &ScanReport) -> ScanSection {
        let files_skipped: Vec<SkippedFile> = report
            .files
            .iter()
            .filter_map(|file| {
                let problem = file.problems.first()?;
                (problem.kind == ProblemKind::Unreadable)
                    .then(|| SkippedFile { path: display_path(&file.path), reason: problem.detail.clone() })
            })
            .collect();
        let problem_count = report.problem_count();
        let problems: Vec<Problem> = report.problems().cloned().collect();
        let coverage = report.coverage(std::time::SystemTime::now(), ioscout_read::SETTLE);
        ScanSection {
            complete: report.bad_input_count(&coverage) == 0 && !report.stopped,
            files_read: report.files.len() - files_skipped.len(),
            files_skipped,
            problem_count,
            problems_not_shown: problem_count.saturating_sub(problems.len() as u64),
            problems,
            coverage: CoverageSection::of(&coverage),
        }
    }
}

impl CoverageSection {
    /// The section of `coverage`.
    pub fn of(coverage: &Coverage) -> CoverageSection {
        let origin = coverage.span.map(|span| span.start);
        let seconds = |at: i64| origin.map(|origin| (at - origin) as f64 / 1e6);
        let files_growing: Vec<GrowingSection> = coverage
            .growing
            .iter()
            .map(|file| GrowingSection {
                path: display_path(&file.path),
                growth: file.growth.clone(),
                size_read: file.size_read,
                size_now: file.size_now,
                written_until_s: file.written_until.and_then(seconds),
            })
            .collect();
        CoverageSection {
            still_being_written: !files_growing.is_empty(),
            files_complete: coverage.files - files_growing.len(),
            files_growing,
            processes: coverage.processes.as_ref().map(|processes| ProcessesSection {
                complete: processes.complete.len(),
                growing: processes.growing.len(),
                growing_processes: processes.growing.clone(),
            }),
            span: coverage.span.map(|span| SpanSection {
                start_us: span.start,
                end_us: span.end,
                seconds: (span.end - span.start) as f64 / 1e6,
                complete_until_s: (span.complete_until - span.start) as f64 / 1e6,
            }),
            settle_s: ioscout_read::SETTLE.as_secs(),
        }
    }
}
