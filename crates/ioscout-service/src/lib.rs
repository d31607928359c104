//! The operations behind ioscout's command line and its MCP server.
//!
//! This crate sits at the top of the pipeline, under the two front ends: each operation takes a
//! typed request, runs the library crates below it (reader, index, query, analysis, diagnosis,
//! advice) and returns an [`Outcome`]: the structured result (what `--json` prints and what an
//! MCP tool returns as structured content) and its text rendering (what the terminal shows and
//! what an MCP tool returns as text). The command line and the MCP server are thin adapters over
//! the same call, so an agent sees the numbers a user sees.
//!
//! Operations: [`count`] (events by phase), [`info`] (trace metadata), [`analyze`] (DFAnalyzer's
//! summary and layer breakdown), [`diagnose`] (findings on traces and Darshan logs, rules and
//! their documentation), [`advise`] (checklist and proposals, run comparison, the knowledge base,
//! run-directory layout), [`darshan`] (log summaries), [`view`] and [`query`] (matching events, pruned by the
//! index), [`session`] (every trace of a run directory; optimisation context) and [`search`]
//! (lexical search over the bundled references and rule documentation).

pub mod advise;
pub mod analyze;
pub mod compare;
pub mod count;
pub mod darshan;
pub mod darshan_stats;
pub mod detect;
pub mod diagnose;
mod distributed_query;
pub mod envelope;
mod error;
pub mod evidence;
pub mod index;
pub mod info;
pub mod optimize;
pub mod organize;
pub mod query;
pub mod report;
pub mod scan;
pub mod search;
pub mod segments;
pub mod session;
pub mod tune;
pub mod view;
pub mod vocabulary;

use std::path::PathBuf;

use ioscout_read::{InputProblem, ScanOptions, ScanReport, Scanner, TraceFile};

pub use crate::error::{Result, ServiceError};
pub use ioscout_render::{svg, table, text};

/// The inputs of an operation over traces.
#[derive(Clone, Debug, Default)]
pub struct Input {
    /// Trace files, directories or glob patterns (or Darshan logs where the operation takes them).
    pub paths: Vec<PathBuf>,
    /// Whether bad input is an error (otherwise it is counted and skipped, and Darshan logs are
    /// read partially).
    pub strict: bool,
    /// How to scan (threads, problems kept, progress).
    pub scan: ScanOptions,
    /// The job this process is one rank of (MPI), when the work is shared across processes;
    /// `None` runs everything here. Operations that support it (index, query, analyze and what
    /// builds on the analysis) give every rank the result one process would give.
    pub cluster: Option<std::sync::Arc<dyn ioscout_read::cluster::Collective>>,
}

impl Input {
    /// An input of `paths` with default scanning.
    pub fn of(paths: Vec<PathBuf>) -> Input {
        Input { paths, ..Input::default() }
    }

    /// The trace files under the paths, and the paths that could not be used. In a job of
    /// several ranks, rank 0 discovers them and every rank gets its list, so all ranks share the
    /// same files even where their views of the file system differ. A Darshan log given to an
    /// operation that reads traces (a log file, or a directory holding logs and no trace) is
    /// refused as a bad request, in one line naming it, never read as lines.
    pub fn discover(&self) -> Result<(Vec<TraceFile>, Vec<InputProblem>)> {
        let (files, problems) = match &self.cluster {
            None => ioscout_read::discover(&self.paths),
            Some(cluster) => {
                let found = (cluster.rank() == 0).then(|| Ok(ioscout_read::discover(&self.paths)));
                ioscout_read::cluster::share_from_root(cluster.as_ref(), found).unwrap_or_else(|error| {
                    (
                        Vec::new(),
                        vec![InputProblem { path: PathBuf::from("(rank 0)"), detail: error.to_string() }],
                    )
                })
            }
        };
        refuse_darshan_logs(&problems)?;
        Ok((files, problems))
    }

    /// Whether this process prints: the only process, or rank 0 of a job.
    pub fn prints(&self) -> bool {
        self.cluster.as_ref().is_none_or(|cluster| cluster.rank() == 0)
    }

    /// A scanner with this input's options.
    pub fn scanner(&self) -> Scanner {
        Scanner::new(self.scan.clone())
    }

    /// The paths, for messages.
    pub fn describe(&self) -> String {
        self.paths.iter().map(|path| text::display_path(path)).collect::<Vec<_>>().join(", ")
    }

    /// The error when discovery found no trace file: the inputs, and why each one gave none.
    pub fn no_traces(&self, problems: &[InputProblem]) -> ServiceError {
        let why: Vec<String> = problems
            .iter()
            .map(|problem| format!("{}: {}", problem.path.display(), problem.detail))
            .collect();
        ServiceError::NoInput(format!(
            "no trace files under {}{}",
            self.describe(),
            if why.is_empty() { String::new() } else { format!(" ({})", why.join("; ")) }
        ))
    }
}

impl Input {
    /// The error when the trace files hold no event at all (empty files, or only bad lines): an
    /// analysis of nothing is refused as an empty directory is, rather than printed as a table
    /// of zeros.
    pub fn no_events(&self, files: usize, report: &ScanReport) -> ServiceError {
        let empty = |problem: &&ioscout_read::Problem| problem.kind == ioscout_read::ProblemKind::EmptyFile;
        let empty_files = report.problems().filter(empty).count();
        let bad = report.problems().filter(|problem| !empty(problem)).count();
        let mut why = Vec::new();
        if empty_files > 0 {
            why.push(format!("{} empty", text::count_of(empty_files as u64, "file", "files")));
        }
        if bad > 0 {
            why.push(format!(
                "{} and nothing else (`ioscout count` lists them)",
                text::count_of(bad as u64, "bad line", "bad lines")
            ));
        }
        ServiceError::NoInput(format!(
            "no events in {} ({}{}{})",
            self.describe(),
            text::count_of(files as u64, "trace file", "trace files"),
            if why.is_empty() { "" } else { ": " },
            why.join(", ")
        ))
    }
}

/// What an operation produced.
#[derive(Debug)]
pub struct Outcome {
    /// The structured result.
    pub value: serde_json::Value,
    /// The text rendering of the same result.
    pub text: String,
    /// The scan's report when traces were read (for warnings about bad input and exit codes).
    pub report: Option<ScanReport>,
    /// Whether the result is a failure the caller asked to be told about (findings at or above
    /// `fail_on`, problems found by a validation): exit code 1 on the command line.
    pub flagged: bool,
    /// Things the caller should be told that are not part of the result (a damaged log read
    /// partially, unreadable knowledge-base lines, how a query was planned): stderr on the
    /// command line, a `warnings` list for MCP clients.
    pub warnings: Vec<String>,
}

impl Outcome {
    /// An outcome whose structured result is `result`'s serialisation (without a scan report).
    pub fn typed(result: &impl serde::Serialize, text: String) -> Outcome {
        Outcome::new(to_json(result), text)
    }

    /// An outcome without a scan report.
    pub fn new(value: serde_json::Value, text: String) -> Outcome {
        Outcome { value, text, report: None, flagged: false, warnings: Vec::new() }
    }

    /// The structured result as every front end gives it: when traces were read, with the scan
    /// report under `scan` ([`scan_json`]), so no script or agent takes a partial answer for a
    /// whole one. A result that is not an object is left as it is.
    pub fn value_with_scan(&self) -> serde_json::Value {
        let mut value = self.value.clone();
        if let (Some(report), serde_json::Value::Object(object)) = (&self.report, &mut value) {
            object.entry("scan").or_insert_with(|| scan_json(report));
        }
        value
    }
}

/// What a scan read and what it could not, as every `--json` output and MCP result carries it:
/// [`scan::ScanSection`] as JSON.
pub fn scan_json(report: &ScanReport) -> serde_json::Value {
    to_json(&scan::ScanSection::of(report))
}

/// The `coverage` of a scan's JSON: [`scan::CoverageSection`] as JSON.
pub fn coverage_json(coverage: &ioscout_read::Coverage) -> serde_json::Value {
    to_json(&scan::CoverageSection::of(coverage))
}

/// A typed result as JSON. The result types hold strings, numbers, lists and maps keyed by
/// strings, which always serialise; `null` would stand for one that did not.
pub(crate) fn to_json(value: &impl serde::Serialize) -> serde_json::Value {
    serde_json::to_value(value).unwrap_or_default()
}

/// What the text of a partial coverage adds after its file count, when the pass read the
/// events: `; 3 of 8 processes still being written; every event before 12.500 s of 20.000 s is
/// in` (empty otherwise).
pub fn coverage_detail(coverage: &ioscout_read::Coverage) -> String {
    use std::fmt::Write as _;
    let mut detail = String::new();
    if let Some(processes) = &coverage.processes {
        let all = processes.complete.len() + processes.growing.len();
        let _ = write!(
            detail,
            "; {} of {all} {} still being written",
            processes.growing.len(),
            if all == 1 { "process" } else { "processes" }
        );
    }
    if let Some(span) = coverage.span {
        let _ = write!(
            detail,
            "; every event before {:.3} s of {:.3} s is in",
            (span.complete_until - span.start) as f64 / 1e6,
            (span.end - span.start) as f64 / 1e6
        );
    }
    detail
}

/// Whether `path` is to be read as a Darshan log: a file whose first bytes are one
/// ([`ioscout_read::input::InputKind`], the one decision every command uses), or a path named
/// `*.darshan` that is neither a trace by its content (gzip or text) nor a readable file, so
/// that the log reader names what is wrong with it ("bad magic number") rather than the trace
/// reader calling it binary.
pub fn is_darshan_log(path: &std::path::Path) -> bool {
    use ioscout_read::input::InputKind;
    let named = path.extension().is_some_and(|extension| extension == "darshan");
    match InputKind::of_file(path) {
        Ok(InputKind::DarshanLog) => true,
        Ok(InputKind::Binary) | Err(_) => named,
        Ok(InputKind::Gzip | InputKind::Text) => false,
    }
}

/// The commands that read Darshan logs, for the message refusing a log elsewhere.
const COMMANDS_READING_LOGS: &str = "`ioscout info`, `analyze`, `report`, `count`, `view`, `query`, `export`, `darshan summary`, `darshan dump`, `diagnose`, `advise` and `compare` read logs";

/// Refuses the Darshan logs among the paths discovery could not use as traces: a log file, or a
/// directory holding logs and no trace.
fn refuse_darshan_logs(problems: &[InputProblem]) -> Result<()> {
    for problem in problems {
        let path = &problem.path;
        let what = if path.is_dir() {
            let (logs, has_traces) = darshan_logs_under(path);
            (!logs.is_empty() && !has_traces).then(|| {
                format!(
                    "holds {} and no DFTracer trace",
                    text::count_of(logs.len() as u64, "Darshan log", "Darshan logs")
                )
            })
        } else {
            (ioscout_read::input::InputKind::of_file(path).ok()
                == Some(ioscout_read::input::InputKind::DarshanLog))
            .then(|| "is a Darshan log, not a DFTracer trace".to_string())
        };
        if let Some(what) = what {
            return Err(ServiceError::BadRequest(format!(
                "{} {what}: this command reads traces; {COMMANDS_READING_LOGS}",
                text::display_path(path)
            )));
        }
    }
    Ok(())
}

/// When every path is a Darshan log (by extension or by its header) or a directory holding
/// Darshan logs (`*.darshan`, searched recursively) and no trace, those logs, sorted within
/// each directory; `None` when no path is; an error when logs and traces are mixed (they are
/// read apart).
pub fn darshan_inputs(paths: &[PathBuf]) -> Result<Option<Vec<PathBuf>>> {
    let mut darshan = Vec::new();
    let mut traces = 0;
    for path in paths {
        if path.is_dir() {
            let (logs, has_traces) = darshan_logs_under(path);
            if logs.is_empty() || has_traces {
                traces += 1;
            } else {
                darshan.extend(logs);
            }
        } else if is_darshan_log(path) {
            darshan.push(path.clone());
        } else {
            traces += 1;
        }
    }
    if darshan.is_empty() {
        return Ok(None);
    }
    if traces > 0 {
        return Err(ServiceError::BadRequest(
            "Darshan logs and DFTracer traces are read separately: give only one kind of input".into(),
        ));
    }
    Ok(Some(darshan))
}

/// The `*.darshan` files under `directory` (sorted), and whether it also holds a trace file.
fn darshan_logs_under(directory: &std::path::Path) -> (Vec<PathBuf>, bool) {
    let mut logs = Vec::new();
    let mut has_traces = false;
    for entry in walkdir::WalkDir::new(directory).follow_links(true).into_iter().flatten() {
        if !entry.file_type().is_file() {
            continue;
        }
        if entry.path().extension().is_some_and(|extension| extension == "darshan") {
            logs.push(entry.into_path());
        } else if ioscout_read::input::is_trace_name(entry.path()) {
            has_traces = true;
        }
    }
    logs.sort();
    (logs, has_traces)
}

#[cfg(test)]
mod input_kind_tests {
    /// The read crate's content check and the Darshan reader agree on Darshan's magic number.
    #[test]
    fn darshan_magic_is_the_readers() {
        assert_eq!(ioscout_read::input::DARSHAN_MAGIC, ioscout_darshan::header::MAGIC);
    }
}
