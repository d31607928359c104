//! The package's operations over the service layer, each the call the command line makes for
//! the same subcommand: `count`, `info`, `analyze`, `diagnose`, `advise`, `compare`, `report`,
//! `query`, `scan_batches` and `index`, and the rule documentation (`rules`, `explain`).
//!
//! Requests arrive as JSON in the service's own request types (the names the MCP tools take),
//! so the Python keywords, the MCP parameters and the command line's flags are one vocabulary.
//! Results go back as the JSON `--json` prints (with its `scan` section saying what was not
//! read), plus warnings; tables go back as Arrow batches.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use ioscout_service::{Outcome, ServiceError};
use pyo3::prelude::*;

use crate::arrow::{ArrowBatch, ArrowStream, BatchStream, Item};
use crate::call::{Hooks, Scan, run};
use crate::errors::{Failure, Kind, strict_problems};

/// The JSON text and the warnings of an outcome.
type Answer = (String, Vec<String>);

/// An analysis: its JSON, warnings, and each view's detail table.
type Analyzed = (String, Vec<String>, Vec<(String, ArrowBatch)>);

/// A query: the events as a stream (or the groups as JSON: their columns and rows), the
/// planning notes, the warnings about input skipped, and the scan's summary as JSON.
type Queried = (Option<ArrowStream>, Option<String>, Vec<String>, Vec<String>, String);

/// A request of type `T` from its JSON (the Python wrapper's keywords).
fn request<T: serde::de::DeserializeOwned>(json: &str) -> Result<T, Failure> {
    serde_json::from_str(json).map_err(|error| Failure::new(Kind::Request, error.to_string()))
}

/// The outcome as `--json` prints it, and its warnings; under `strict` the first bad line is an
/// error, and an input none of whose files could be read is an error either way.
fn answer(outcome: &Outcome, scan: &Scan) -> Result<Answer, Failure> {
    let mut warnings = outcome.warnings.clone();
    if let Some(report) = &outcome.report {
        checked(report, scan, &mut warnings)?;
    }
    let text = serde_json::to_string_pretty(&outcome.value_with_scan())
        .map_err(|error| Failure::new(Kind::Other, error.to_string()))?;
    Ok((text + "\n", warnings))
}

/// What the command line's exit code decides from a scan's report, as an error or warnings.
fn checked(
    report: &ioscout_read::ScanReport,
    scan: &Scan,
    warnings: &mut Vec<String>,
) -> Result<(), Failure> {
    if !report.read_anything() {
        let first = report.problems().next();
        return Err(Failure {
            path: first.map(|problem| problem.path.clone()),
            ..Failure::new(
                Kind::Trace,
                match first {
                    Some(problem) => format!("no trace file could be read: {problem}"),
                    None => "no trace file could be read".into(),
                },
            )
        });
    }
    // The command line's rule (after ripgrep's): a path the caller named that could not be
    // read (a typo, no permission, a glob that matched nothing) is an error; a file found by
    // walking a directory that fails is a counted problem.
    let named: Vec<String> =
        report.unreadable_named(&scan.paths).iter().map(|path| path.display().to_string()).collect();
    if let Some(first) = named.first() {
        return Err(Failure {
            path: Some(PathBuf::from(first)),
            ..Failure::new(Kind::Trace, format!("could not be read: {}", named.join(", ")))
        });
    }
    if scan.strict {
        return strict_problems(report);
    }
    for problem in report.problems() {
        warnings.push(problem.to_string());
    }
    let count = report.problem_count();
    let kept = report.problems().count() as u64;
    if count > kept {
        warnings.push(format!("{} more problems not shown", count - kept));
    }
    Ok(())
}

fn scan_of(paths: Vec<PathBuf>, strict: bool, threads: usize) -> Scan {
    Scan { paths, strict, threads }
}

/// Runs `operation` on the input of `scan` with progress, Ctrl-C and the interpreter released.
fn traced<T, O>(py: Python<'_>, scan: Scan, progress: Option<&Bound<'_, PyAny>>, operation: O) -> PyResult<T>
where
    T: Send + 'static,
    O: FnOnce(&ioscout_service::Input, &Scan) -> Result<T, Failure> + Send + 'static,
{
    let paths = scan.paths.clone();
    run(py, progress, &paths, move |hooks: &Hooks| operation(&hooks.input(&scan), &scan))
}

/// Events by phase (`ioscout count --json`).
#[pyfunction]
#[pyo3(signature = (paths, strict=false, threads=0, progress=None))]
pub(crate) fn count(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    strict: bool,
    threads: usize,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<Answer> {
    traced(py, scan_of(paths, strict, threads), progress, |input, scan| {
        answer(&ioscout_service::count::count(input)?, scan)
    })
}

/// Trace metadata, or Darshan log summaries (`ioscout info --json`).
#[pyfunction]
#[pyo3(signature = (paths, strict=false, threads=0, progress=None))]
pub(crate) fn info(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    strict: bool,
    threads: usize,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<Answer> {
    traced(py, scan_of(paths, strict, threads), progress, |input, scan| {
        answer(&ioscout_service::info::info(input)?, scan)
    })
}

/// The analysis (`ioscout analyze --json`) and each view's detail table as an Arrow batch
/// (`analyze --out`); of Darshan logs, their module breakdown and no tables.
#[pyfunction]
#[pyo3(signature = (paths, request, strict=false, threads=0, progress=None))]
pub(crate) fn analyze(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    request: String,
    strict: bool,
    threads: usize,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<Analyzed> {
    traced(py, scan_of(paths, strict, threads), progress, move |input, scan| {
        let request: ioscout_service::analyze::AnalyzeRequest = self::request(&request)?;
        if let Some(logs) = ioscout_service::darshan_inputs(&input.paths)? {
            // A log's module breakdown has no per-view detail tables.
            let outcome = ioscout_service::darshan::analyze_logs(&logs, !input.strict)?;
            let (text, warnings) = answer(&outcome, scan)?;
            return Ok((text, warnings, Vec::new()));
        }
        let (outcome, analysis) = ioscout_service::analyze::analyze_keeping(input, &request)?;
        let (text, warnings) = answer(&outcome, scan)?;
        let mut tables = Vec::new();
        for view in &analysis.views {
            let batch = ioscout_render::details::record_batch(view).map_err(ServiceError::from)?;
            tables.push((view.view.name().to_string(), ArrowBatch::new(batch)));
        }
        Ok((text, warnings, tables))
    })
}

/// Findings on traces or Darshan logs (`ioscout diagnose --json`).
#[pyfunction]
#[pyo3(signature = (paths, request, strict=false, threads=0, progress=None))]
pub(crate) fn diagnose(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    request: String,
    strict: bool,
    threads: usize,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<Answer> {
    traced(py, scan_of(paths, strict, threads), progress, move |input, scan| {
        let request: ioscout_service::diagnose::DiagnoseRequest = self::request(&request)?;
        answer(&ioscout_service::diagnose::diagnose(input, &request)?, scan)
    })
}

/// The checklist and the ranked, cited proposals (`ioscout advise --json`).
#[pyfunction]
#[pyo3(signature = (paths, request, strict=false, threads=0, progress=None))]
pub(crate) fn advise(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    request: String,
    strict: bool,
    threads: usize,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<Answer> {
    traced(py, scan_of(paths, strict, threads), progress, move |input, scan| {
        let request: ioscout_service::advise::AdviseRequest = self::request(&request)?;
        answer(&ioscout_service::advise::advise(input, &request)?, scan)
    })
}

/// Two or more runs against a baseline, with the doing-less guard (`ioscout compare --json`);
/// `request` is the service's `CompareRequest` as JSON. The runs are read one after the other
/// off the interpreter.
#[pyfunction]
#[pyo3(signature = (request, html=None))]
pub(crate) fn compare(py: Python<'_>, request: String, html: Option<PathBuf>) -> PyResult<Answer> {
    let scan = scan_of(Vec::new(), false, 0);
    run(py, None, &[], move |_| {
        let request: ioscout_service::compare::CompareRequest = self::request(&request)?;
        let compared = ioscout_service::compare::compare_runs(&request)?;
        if let Some(path) = &html {
            ioscout_service::compare::write_html(&compared, path)?;
        }
        answer(&compared.outcome, &scan)
    })
}

/// What `report` returns to Python: the page written, its size, charts and findings, and the
/// scan.
#[derive(serde::Serialize)]
struct PageWritten {
    path: String,
    bytes: usize,
    charts: usize,
    findings: usize,
    scan: ioscout_service::scan::ScanSection,
}

/// The groups of a query with `group_by`: the columns and one row per group.
#[derive(serde::Serialize)]
struct Groups {
    columns: Vec<String>,
    rows: Vec<serde_json::Value>,
}

/// Writes the HTML report of `paths` to `out`; returns what it holds as JSON.
#[pyfunction]
#[pyo3(signature = (paths, out, request, strict=false, threads=0, progress=None))]
pub(crate) fn report(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    out: PathBuf,
    request: String,
    strict: bool,
    threads: usize,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<Answer> {
    traced(py, scan_of(paths, strict, threads), progress, move |input, scan| {
        let request: ioscout_service::report::ReportRequest = self::request(&request)?;
        let page = ioscout_service::report::report(input, &request)?;
        let mut warnings = Vec::new();
        checked(&page.scan, scan, &mut warnings)?;
        std::fs::write(&out, &page.html).map_err(|error| ServiceError::io(&out, error))?;
        let summary = PageWritten {
            path: out.display().to_string(),
            bytes: page.html.len(),
            charts: page.charts,
            findings: page.findings,
            scan: ioscout_service::scan::ScanSection::of(&page.scan),
        };
        let summary = serde_json::to_string(&summary)
            .map_err(|error| ServiceError::output("the report's summary", error))?;
        Ok((summary, warnings))
    })
}

/// Matching events as an Arrow table, or groups as JSON rows (`ioscout query`), the planning
/// notes and the scan's summary.
#[pyfunction]
#[pyo3(signature = (paths, request, strict=false, threads=0, progress=None))]
pub(crate) fn query(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    request: String,
    strict: bool,
    threads: usize,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<Queried> {
    traced(py, scan_of(paths, strict, threads), progress, move |input, scan| {
        let mut request: ioscout_service::query::QueryRequest = self::request(&request)?;
        let grouped = request.group_by.is_some();
        let collected: Arc<Mutex<Vec<arrow_array::RecordBatch>>> = Arc::default();
        if grouped {
            request.format = Some(ioscout_service::vocabulary::ViewFormat::Values);
        } else {
            request.format = Some(ioscout_service::vocabulary::ViewFormat::Arrow);
            let sink = collected.clone();
            request.batches = Some(ioscout_render::rows::Batches(Arc::new(move |batch| {
                sink.lock().map_err(|_| "the batch list is poisoned".to_string())?.push(batch);
                Ok(())
            })));
        }
        let schema = ioscout_render::rows::Output::new(
            ioscout_service::vocabulary::ViewFormat::Arrow,
            request.select.as_deref(),
        )
        .map_err(ServiceError::from)?
        .arrow_schema();
        let columns = match &request.group_by {
            Some(keys) => ioscout_query::aggregate::GroupSpec::parse(keys, &request.aggregate)
                .map(|spec| spec.columns())
                .map_err(|error| Failure::new(Kind::Query, error.to_string()))?,
            None => Vec::new(),
        };
        let report = ioscout_service::query::query(input, &request, Box::new(std::io::sink()))?;
        let notes = report.notes;
        let mut warnings = Vec::new();
        checked(&report.scan, scan, &mut warnings)?;
        let scan_json = ioscout_service::scan_json(&report.scan).to_string();
        if grouped {
            let groups = Groups { columns, rows: report.rows };
            let groups = serde_json::to_string(&groups)
                .map_err(|error| Failure::new(Kind::Other, format!("the groups: {error}")))?;
            return Ok((None, Some(groups), notes, warnings, scan_json));
        }
        let batches = std::mem::take(
            &mut *collected.lock().map_err(|_| Failure::new(Kind::Other, "the batch list is poisoned"))?,
        );
        Ok((Some(ArrowStream::new(schema, batches)), None, notes, warnings, scan_json))
    })
}

/// The matching events of `paths` as Arrow batches yielded while the scan runs.
#[pyfunction]
#[pyo3(signature = (paths, request, strict=false, threads=0))]
pub(crate) fn scan_batches(
    paths: Vec<PathBuf>,
    request: String,
    strict: bool,
    threads: usize,
) -> PyResult<BatchStream> {
    let hooks = Hooks::default();
    let (sender, receiver) = std::sync::mpsc::sync_channel::<Item>(2);
    let worker_hooks = hooks.clone();
    let scan = scan_of(paths, strict, threads);
    let spawned = std::thread::Builder::new().name("ioscout-batches".into()).spawn(move || {
        let end = sender.clone();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(
            || -> Result<crate::arrow::Ended, Failure> {
                let mut request: ioscout_service::query::QueryRequest = self::request(&request)?;
                if request.group_by.is_some() {
                    return Err(Failure::new(
                        Kind::Request,
                        "scan_batches yields events; use query(group_by=...) for groups",
                    ));
                }
                request.format = Some(ioscout_service::vocabulary::ViewFormat::Arrow);
                request.batches = Some(ioscout_render::rows::Batches(Arc::new(move |batch| {
                    sender.send(Item::Batch(batch)).map_err(|_| "the reader stopped".to_string())
                })));
                let input = worker_hooks.input(&scan);
                let report = ioscout_service::query::query(&input, &request, Box::new(std::io::sink()))?;
                let mut warnings = Vec::new();
                checked(&report.scan, &scan, &mut warnings)?;
                Ok(crate::arrow::Ended {
                    scan: ioscout_service::scan_json(&report.scan).to_string(),
                    notes: report.notes,
                    warnings,
                })
            },
        ))
        .unwrap_or_else(|_| {
            Err(Failure::new(Kind::Other, "internal error (please report it): the scan panicked"))
        });
        let _ = end.send(Item::End(result));
    });
    match spawned {
        Ok(_) => Ok(BatchStream::new(receiver, hooks.cancel)),
        Err(error) => Err(crate::errors::Error::new_err(format!("cannot start a worker thread: {error}"))),
    }
}

/// Builds or updates the sidecar index of every trace directory (`ioscout index --json`); a
/// directory whose index cannot be built is a `TraceIndexError` naming it.
#[pyfunction]
#[pyo3(signature = (paths, force=false, strict=false, threads=0, progress=None))]
pub(crate) fn index(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    force: bool,
    strict: bool,
    threads: usize,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<Answer> {
    traced(py, scan_of(paths, strict, threads), progress, move |input, scan| {
        let request = ioscout_service::index::IndexRequest { force, ..Default::default() };
        let outcome = ioscout_service::index::index(input, &request)?;
        let failed =
            outcome.value.get("failed").and_then(serde_json::Value::as_array).cloned().unwrap_or_default();
        if !failed.is_empty() {
            let text = |entry: &serde_json::Value, key: &str| {
                entry.get(key).and_then(serde_json::Value::as_str).unwrap_or_default().to_string()
            };
            let listed: Vec<String> = failed
                .iter()
                .map(|entry| format!("{}: {}", text(entry, "directory"), text(entry, "error")))
                .collect();
            let built = outcome.value.get("directories").map(ToString::to_string).unwrap_or_default();
            return Err(Failure {
                path: Some(PathBuf::from(text(&failed[0], "directory"))),
                ..Failure::new(Kind::Index, format!("cannot index {} (built: {built})", listed.join("; ")))
            });
        }
        answer(&outcome, scan)
    })
}

/// Every rule with its family, severity and pattern (`ioscout rules --json`).
#[pyfunction]
pub(crate) fn rules() -> String {
    ioscout_service::diagnose::list_rules().value.to_string()
}

/// A rule's documentation or a pattern's card (`ioscout explain`), as text.
#[pyfunction]
pub(crate) fn explain(py: Python<'_>, code: &str) -> PyResult<String> {
    ioscout_service::diagnose::explain(code, None)
        .map(|outcome| outcome.text)
        .map_err(|error| Failure::from(error).into_py_err(py))
}

/// Many Darshan logs summarised together (`ioscout darshan summary --group-by ... --json`);
/// `request` is the service's `ManyLogsRequest` as JSON. Read in parallel off the interpreter.
#[pyfunction]
pub(crate) fn darshan_summary(py: Python<'_>, request: String) -> PyResult<Answer> {
    let scan = scan_of(Vec::new(), false, 0);
    run(py, None, &[], move |_| {
        let request: ioscout_service::darshan::ManyLogsRequest = self::request(&request)?;
        answer(&ioscout_service::darshan::summary_over(&request)?, &scan)
    })
}

/// The functions, as the module exports them.
pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(count, module)?)?;
    module.add_function(wrap_pyfunction!(info, module)?)?;
    module.add_function(wrap_pyfunction!(analyze, module)?)?;
    module.add_function(wrap_pyfunction!(diagnose, module)?)?;
    module.add_function(wrap_pyfunction!(advise, module)?)?;
    module.add_function(wrap_pyfunction!(compare, module)?)?;
    module.add_function(wrap_pyfunction!(report, module)?)?;
    module.add_function(wrap_pyfunction!(query, module)?)?;
    module.add_function(wrap_pyfunction!(scan_batches, module)?)?;
    module.add_function(wrap_pyfunction!(index, module)?)?;
    module.add_function(wrap_pyfunction!(rules, module)?)?;
    module.add_function(wrap_pyfunction!(explain, module)?)?;
    module.add_function(wrap_pyfunction!(darshan_summary, module)?)?;
    module.add_function(wrap_pyfunction!(crate::darshan::read_darshan, module)?)?;
    Ok(())
}
