//! The tools: their names (as the optimisation pipeline and dftracer-agents call them), typed
//! parameters (their JSON Schemas are what `tools/list` shows) and the one service call behind
//! each. No tool computes anything itself: it checks paths against the roots, turns its
//! parameters into the service's request and returns the service's outcome.

// The doc comments of the parameter structs are the descriptions agents read in the JSON
// Schemas, written as plain text.
#![allow(clippy::doc_markdown)]
// Every handler takes its parameters by value: one signature for the registry.
#![allow(clippy::needless_pass_by_value)]

use std::path::PathBuf;

use ioscout_service::vocabulary::PresetName;
use ioscout_service::{Input, Outcome};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{Context, ToolError};

fn default_dot() -> String {
    ".".into()
}

fn default_baseline() -> String {
    "baseline".into()
}

fn default_summary() -> String {
    "summary".into()
}

fn default_true() -> bool {
    true
}

fn default_five() -> usize {
    5
}

/// `event_count`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EventCountParams {
    /// Trace file, directory (searched recursively for .pfw and .pfw.gz) or glob, under a root
    /// (alias `trace_path`).
    #[serde(default = "default_dot", alias = "trace_path")]
    pub directory: String,
}

/// `reader`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReaderParams {
    /// Trace file or directory (or a Darshan log), under a root (alias `trace_path`).
    #[serde(alias = "trace_path")]
    pub file: String,
}

/// `analyze`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AnalyzeParams {
    /// Trace file or directory, under a root.
    pub trace_path: String,
    /// How to analyse.
    #[serde(flatten)]
    pub request: ioscout_service::analyze::AnalyzeRequest,
}

/// `diagnose`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiagnoseParams {
    /// Trace file or directory, or Darshan logs, under a root (`checkpoint_dir` is accepted as
    /// an alias).
    #[serde(alias = "checkpoint_dir")]
    pub trace_path: String,
    /// What to diagnose and how to filter (drishti_config and model are files under a root).
    #[serde(flatten)]
    pub request: ioscout_service::diagnose::DiagnoseRequest,
}

/// `query`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QueryParams {
    /// Trace file or directory, under a root.
    pub trace_path: String,
    /// What to match or aggregate.
    #[serde(flatten)]
    pub request: ioscout_service::query::QueryRequest,
}

/// `advise`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AdviseParams {
    /// Trace file or directory, or one Darshan log, under a root.
    pub trace_path: String,
    /// What to advise on (run_dir and model under a root).
    #[serde(flatten)]
    pub request: ioscout_service::advise::AdviseRequest,
}

/// `report`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReportParams {
    /// Trace file or directory, or a Darshan log, under a root.
    pub trace_path: String,
    /// Where to write the HTML file (under a root).
    pub output: String,
    /// Of a Darshan log: the records of this one file only (its path as the log names it).
    #[serde(default)]
    pub file: Option<String>,
    /// What to report.
    #[serde(flatten)]
    pub request: ioscout_service::report::ReportRequest,
}

/// `comparator`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ComparatorParams {
    /// The run the others are compared with: a trace directory or a Darshan log, under a root.
    pub baseline: String,
    /// The run after the change.
    #[serde(default)]
    pub variant: Option<String>,
    /// More runs compared with the baseline (a campaign: a sweep, the same job on two systems).
    #[serde(default)]
    pub variants: Vec<String>,
    /// Labels for the baseline, then the variant, then the variants, in that order (default:
    /// the shortest suffix of each path that tells the runs apart, as `ioscout compare` does).
    #[serde(default)]
    pub labels: Vec<String>,
    /// How to order the runs and read traces.
    #[serde(flatten)]
    pub options: ioscout_service::compare::CompareOptions,
}

/// `explain_rule`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExplainParams {
    /// Rule code (e.g. PIPE-OVERLAP-1, P08, WIS-SMALL-READ), or one of IOSage's patterns
    /// (`access_granularity`, `metadata_intensity`, ...) for its card; empty lists every rule.
    #[serde(default)]
    pub code: String,
}

/// `darshan_summary`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DarshanParams {
    /// A Darshan log, or a DFTracer trace file or directory (its derived records), under a root.
    /// With `group_by`, `top` or `by`: a log or a directory searched for `*.darshan` files.
    #[serde(alias = "trace_path")]
    pub log: String,
    /// More logs or directories, summarised together with `log` (grouped; the top jobs and files).
    #[serde(default)]
    pub logs: Vec<String>,
    /// Summarise the logs together, grouped by program, user id, processes or job id.
    #[serde(default)]
    pub group_by: Option<ioscout_service::vocabulary::GroupBy>,
    /// How many jobs and files to list, most first (summarises the logs together; default 10).
    #[serde(default)]
    pub top: Option<usize>,
    /// What groups, jobs and files are ranked by (summarises the logs together).
    #[serde(default)]
    pub by: Option<ioscout_service::vocabulary::RankBy>,
}

/// `session_analyze_traces`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionAnalyzeParams {
    /// The run directory (under a root).
    pub run_id: String,
    /// The run inside it whose traces to analyse.
    #[serde(default = "default_baseline")]
    pub run_name: String,
    /// summary, detailed or timeline_overlap.
    #[serde(default = "default_summary")]
    pub query_type: String,
    /// Below traces/compact.
    #[serde(default)]
    pub subpath: String,
    /// Layer preset.
    #[serde(default)]
    pub preset: PresetName,
    /// For a run still being written: wait until its trace files have not changed for this
    /// many seconds (at most four minutes in all) before analysing. Every trace's `coverage`
    /// says which files were still being written either way.
    #[serde(default)]
    pub wait_to_settle_s: Option<f64>,
    /// Follow a run still being written: the first call with follow analyses each trace and
    /// keeps what it read in this server; each later one reads only what was appended since,
    /// keeps an existing index current, and says what changed under each trace's `follow`
    /// (look, events_added, job_time_added_s, files extended/unchanged/read whole, bytes read).
    #[serde(default)]
    pub follow: bool,
}

/// `session_validate_structure`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunParams {
    /// The run directory (under a root).
    pub run_id: String,
}

/// `session_reorganize_structure`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReorganizeParams {
    /// The run directory (under a root).
    pub run_id: String,
    /// Only say what would move.
    #[serde(default = "default_true")]
    pub dry_run: bool,
}

/// `session_search_optimization_context`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContextParams {
    /// The run directory (under a root); its baseline traces are analysed.
    pub run_id: String,
    /// System name.
    #[serde(default)]
    pub system: String,
    /// Workload name.
    #[serde(default)]
    pub workload: String,
    /// app, system, or empty for both.
    #[serde(default)]
    pub metric_scope: String,
    /// Accepted for compatibility; nothing remote is fetched.
    #[serde(default)]
    pub max_remote_per_query: Option<u32>,
}

/// `rag_search`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RagParams {
    /// What to look for.
    pub query: String,
    /// A bottleneck (rule code or words) to add.
    #[serde(default)]
    pub bottleneck: String,
    /// The system (file system, machine) to add.
    #[serde(default)]
    pub system_config: String,
    /// Results wanted (1 to 50).
    #[serde(default = "default_five")]
    pub top_k: usize,
    /// paper, strategy, rule, or empty for all.
    #[serde(default)]
    pub resource_type: String,
}

/// `opt_kb_render`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KbRenderParams {
    /// Write SKILL.md, system.md, software.md and workload.md here (under a root).
    #[serde(default)]
    pub skill_dir: Option<String>,
}

/// `opt_proposal_table`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposalTableParams {
    /// The rows: a JSON array (or its text) of {level, bottleneck, change, expected_delta,
    /// citation, status?, skip_reason?, app_impact_pct?, system_impact_pct?,
    /// actual_app_impact_pct?, actual_system_impact_pct?}.
    pub proposals_json: serde_json::Value,
    /// System name.
    #[serde(default)]
    pub system: String,
    /// Workload name.
    #[serde(default)]
    pub workload: String,
    /// Software, comma-separated.
    #[serde(default)]
    pub software: String,
}

/// `export`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExportParams {
    /// Trace file or directory, under a root.
    pub trace_path: String,
    /// parquet or chrome-json.
    pub format: String,
    /// Where to write the file (under a root).
    pub output: String,
    /// Only events matching this expression.
    #[serde(default, rename = "where")]
    pub filter: Option<String>,
}

/// `index`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IndexParams {
    /// Trace file or directory, under a root.
    pub trace_path: String,
    /// Re-read every file, even unchanged ones.
    #[serde(default)]
    pub force: bool,
    /// Compressed KiB per chunk (default 1024): smaller chunks prune finer.
    #[serde(default)]
    pub chunk_kib: Option<u64>,
}

/// `tune`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TuneParams {
    /// The TOML tuning spec, under a root (its command runs with the spec's directory as the
    /// working directory; `objective.source = "mock"` evaluates a synthetic surface).
    pub spec: String,
    /// ofat (default), grid, random or tpe.
    #[serde(default = "default_ofat")]
    pub strategy: String,
    /// Evaluations the search may spend, the baseline included (0: the strategy's own end).
    #[serde(default)]
    pub budget: usize,
    /// Seed for random and TPE.
    #[serde(default)]
    pub seed: u64,
    /// Skip subset selection (tune at full size).
    #[serde(default)]
    pub no_subset: bool,
    /// Skip the full-size validation of the best configuration.
    #[serde(default)]
    pub no_validate: bool,
}

/// `optimize`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OptimizeParams {
    /// The TOML spec with an `[optimize]` section, under a root (its commands run in the spec's
    /// runs directory; `objective.source = "mock"` evaluates a synthetic surface).
    pub spec: String,
    /// Pairs of runs per variant, overriding the spec's (at least 5).
    #[serde(default)]
    pub pairs: Option<u32>,
    /// File system, overriding detection.
    #[serde(default)]
    pub fs_type: Option<String>,
    /// DFTracer's preload library, under a root: trace the baseline once here instead of using
    /// the spec's `traces` (the report then says what tracing added).
    #[serde(default)]
    pub preload: Option<String>,
}

fn default_ofat() -> String {
    "ofat".into()
}

/// The network search tools of dftracer-agents, answered offline.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OfflineParams {
    /// What would have been searched.
    #[serde(default)]
    pub query: String,
}

fn some(text: &str) -> Option<String> {
    let text = text.trim();
    if text.is_empty() { None } else { Some(text.to_string()) }
}

fn input(context: &Context, path: &str) -> Result<Input, ToolError> {
    let path = context.roots.resolve(path, true)?;
    Ok(Input { paths: vec![path], ..Input::default() })
}

fn kb_path(context: &Context) -> Result<PathBuf, ToolError> {
    let path = context.kb.clone();
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|error| ToolError::Failed(format!("creating {}: {error}", parent.display())))?;
    }
    Ok(path)
}

/// `event_count`.
pub fn event_count(context: &Context, params: EventCountParams) -> Result<Outcome, ToolError> {
    let input = input(context, &params.directory)?;
    if let Some(logs) = ioscout_service::darshan_inputs(&input.paths)? {
        return Ok(ioscout_service::segments::count(&logs, true)?);
    }
    Ok(ioscout_service::count::count(&input)?)
}

/// `reader`.
pub fn reader(context: &Context, params: ReaderParams) -> Result<Outcome, ToolError> {
    Ok(ioscout_service::info::info(&input(context, &params.file)?)?)
}

/// `analyze`.
pub fn analyze(context: &Context, params: AnalyzeParams) -> Result<Outcome, ToolError> {
    Ok(ioscout_service::analyze::analyze(&input(context, &params.trace_path)?, &params.request)?)
}

/// `diagnose`.
pub fn diagnose(context: &Context, params: DiagnoseParams) -> Result<Outcome, ToolError> {
    let mut request = params.request;
    request.drishti_config = resolved(context, request.drishti_config.take(), true)?;
    request.model = resolved(context, request.model.take(), true)?;
    Ok(ioscout_service::diagnose::diagnose(&input(context, &params.trace_path)?, &request)?)
}

/// A path parameter resolved under the roots (`None`, or an empty path, stays `None`).
fn resolved(
    context: &Context,
    path: Option<PathBuf>,
    must_exist: bool,
) -> Result<Option<PathBuf>, ToolError> {
    match path.as_deref().map(|path| path.to_string_lossy().into_owned()).as_deref().and_then(some) {
        Some(path) => Ok(Some(context.roots.resolve(&path, must_exist)?)),
        None => Ok(None),
    }
}

/// `comparator`.
pub fn comparator(context: &Context, params: ComparatorParams) -> Result<Outcome, ToolError> {
    let given: Vec<String> =
        std::iter::once(params.baseline).chain(params.variant).chain(params.variants).collect();
    if !params.labels.is_empty() && params.labels.len() != given.len() {
        return Err(ToolError::InvalidParams(format!(
            "labels gives {} labels for {} runs (the baseline, the variant, then the variants)",
            params.labels.len(),
            given.len()
        )));
    }
    let mut runs = Vec::with_capacity(given.len());
    for (index, path) in given.iter().enumerate() {
        runs.push(ioscout_service::compare::RunSpec {
            // Without labels, the service names each run as `ioscout compare` does (the shortest
            // suffix of its path that tells it apart).
            label: params.labels.get(index).cloned(),
            path: context.roots.resolve(path, true)?,
        });
    }
    let request = ioscout_service::compare::CompareRequest { runs, baseline: None, options: params.options };
    Ok(ioscout_service::compare::compare_runs(&request)?.outcome)
}

/// `query`: rows as JSON objects (the values `ioscout query` prints as JSON lines).
pub fn query(context: &Context, params: QueryParams) -> Result<Outcome, ToolError> {
    let mut request = params.request;
    let limit = request.limit.unwrap_or(100);
    if limit == 0 || limit > 10_000 {
        return Err(ToolError::InvalidParams(format!("limit must be 1 to 10000, not {limit}")));
    }
    request.limit = Some(limit);
    request.format = Some(ioscout_service::vocabulary::ViewFormat::Values);
    request.index_dir = None;
    let input = input(context, &params.trace_path)?;
    if let Some(logs) = ioscout_service::darshan_inputs(&input.paths)? {
        let (report, rows) =
            ioscout_service::segments::query(&logs, true, &request, Box::new(std::io::sink()))?;
        return Ok(segment_rows(report, rows, limit));
    }
    let report = ioscout_service::query::query(&input, &request, Box::new(std::io::sink()))?;
    let mut text = String::new();
    for row in &report.rows {
        text.push_str(&row.to_string());
        text.push('\n');
    }
    let result = QueryResult {
        status: "ok",
        count: report.rows.len(),
        limit_reached: report.rows.len() as u64 >= limit,
        problem_count: report.scan.problem_count(),
        rows: report.rows,
        notes: report.notes,
        problems: None,
    };
    Ok(Outcome::typed(&result, text))
}

/// What `query` returns: the matching rows (or groups), and what was not read.
#[derive(Debug, serde::Serialize, JsonSchema)]
pub struct QueryResult {
    /// Always `ok`.
    pub status: &'static str,
    /// Rows returned.
    pub count: usize,
    /// Whether the limit was reached (more rows may match).
    pub limit_reached: bool,
    /// The rows: events as JSON objects (host and file names resolved), or one object per group
    /// with its aggregates.
    pub rows: Vec<serde_json::Value>,
    /// What the caller should know about how the rows were read (indexes used, files read whole).
    pub notes: Vec<String>,
    /// Problems counted (lines not decoded, files or regions not read).
    pub problem_count: u64,
    /// A Darshan log's problems, each with its log (absent for traces, whose problems are in
    /// `scan`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problems: Option<Vec<String>>,
}

/// The answer of `query` over a Darshan log's DXT segments: the rows, and the logs' problems.
fn segment_rows(
    report: ioscout_service::segments::SegmentReport,
    rows: Vec<serde_json::Value>,
    limit: u64,
) -> Outcome {
    let mut text = String::new();
    for row in &rows {
        text.push_str(&row.to_string());
        text.push('\n');
    }
    let problems: Vec<String> = report.problems().collect();
    let result = QueryResult {
        status: "ok",
        count: rows.len(),
        limit_reached: rows.len() as u64 >= limit,
        rows,
        notes: report.notes,
        problem_count: problems.len() as u64,
        problems: Some(problems),
    };
    Outcome::typed(&result, text)
}

/// `explain_rule`.
pub fn explain_rule(_context: &Context, params: ExplainParams) -> Result<Outcome, ToolError> {
    if params.code.trim().is_empty() {
        return Ok(ioscout_service::diagnose::list_rules());
    }
    Ok(ioscout_service::diagnose::explain(params.code.trim(), None)?)
}

/// `advise`.
pub fn advise(context: &Context, params: AdviseParams) -> Result<Outcome, ToolError> {
    let mut request = params.request;
    request.run_dir = resolved(context, request.run_dir.take(), false)?;
    request.model = resolved(context, request.model.take(), true)?;
    request.kb = Some(context.kb.clone());
    Ok(ioscout_service::advise::advise(&input(context, &params.trace_path)?, &request)?)
}

/// `darshan_summary`.
pub fn darshan_summary(context: &Context, params: DarshanParams) -> Result<Outcome, ToolError> {
    let path = context.roots.resolve(&params.log, true)?;
    if params.group_by.is_none() && params.top.is_none() && params.by.is_none() && params.logs.is_empty() {
        return Ok(ioscout_service::darshan::summaries(&[path], true)?);
    }
    let mut logs = vec![path];
    for log in &params.logs {
        logs.push(context.roots.resolve(log, true)?);
    }
    let request = ioscout_service::darshan::ManyLogsRequest {
        logs,
        group_by: params.group_by.unwrap_or_default(),
        top: params.top.unwrap_or(10),
        by: params.by.unwrap_or_default(),
        partial: true,
    };
    Ok(ioscout_service::darshan::summary_over(&request)?)
}

/// `session_analyze_traces`.
pub fn session_analyze_traces(context: &Context, params: SessionAnalyzeParams) -> Result<Outcome, ToolError> {
    let run_dir = context.roots.resolve(&params.run_id, true)?;
    if params.subpath.split('/').any(|part| part == "..") || params.run_name.contains("..") {
        return Err(ToolError::InvalidParams("run_name and subpath may not contain ..".into()));
    }
    let detail = ioscout_service::session::Detail::parse(&params.query_type)?;
    let scan = ioscout_read::ScanOptions::default();
    Ok(ioscout_service::session::analyze_traces(
        &run_dir,
        &ioscout_service::session::TracesRequest {
            run_name: &params.run_name,
            subpath: &params.subpath,
            detail,
            preset: params.preset,
            scan: &scan,
            settle: params
                .wait_to_settle_s
                .map(|seconds| std::time::Duration::from_secs_f64(seconds.clamp(0.0, 240.0))),
            follows: params.follow.then_some(&context.follows),
        },
    )?)
}

/// `session_validate_structure`.
pub fn session_validate_structure(context: &Context, params: RunParams) -> Result<Outcome, ToolError> {
    let run_dir = context.roots.resolve(&params.run_id, true)?;
    let mut outcome = ioscout_service::advise::runs_validate(&run_dir);
    // A layout problem is the answer, not a failure of the tool.
    outcome.flagged = false;
    Ok(outcome)
}

/// `session_reorganize_structure`.
pub fn session_reorganize_structure(
    context: &Context,
    params: ReorganizeParams,
) -> Result<Outcome, ToolError> {
    let run_dir = context.roots.resolve(&params.run_id, true)?;
    Ok(ioscout_service::advise::runs_reorganize(&run_dir, params.dry_run)?)
}

/// `session_search_optimization_context`.
pub fn session_search_optimization_context(
    context: &Context,
    params: ContextParams,
) -> Result<Outcome, ToolError> {
    let run_dir = context.roots.resolve(&params.run_id, true)?;
    let kb = context.kb.clone();
    Ok(ioscout_service::session::search_context(
        &run_dir,
        Some(&kb),
        &params.system,
        &params.workload,
        &params.metric_scope,
        true,
    )?)
}

/// `rag_search`.
pub fn rag_search(_context: &Context, params: RagParams) -> Result<Outcome, ToolError> {
    Ok(ioscout_service::search::search(&ioscout_service::search::SearchRequest {
        query: params.query,
        bottleneck: params.bottleneck,
        system_config: params.system_config,
        top_k: params.top_k,
        resource_type: params.resource_type,
    })?)
}

/// `opt_kb_record`: the dftracer-agents entry.
pub fn opt_kb_record(
    context: &Context,
    params: ioscout_service::advise::AgentEntry,
) -> Result<Outcome, ToolError> {
    Ok(ioscout_service::advise::kb_record(&kb_path(context)?, params.into_entry()?)?)
}

/// `opt_kb_lookup`.
pub fn opt_kb_lookup(
    context: &Context,
    request: ioscout_service::advise::KbLookupRequest,
) -> Result<Outcome, ToolError> {
    Ok(ioscout_service::advise::kb_lookup(&context.kb, &request)?)
}

/// `opt_kb_render`.
pub fn opt_kb_render(context: &Context, params: KbRenderParams) -> Result<Outcome, ToolError> {
    let skill_dir = match params.skill_dir.as_deref().and_then(some) {
        Some(path) => Some(context.roots.resolve(&path, false)?),
        None => None,
    };
    Ok(ioscout_service::advise::kb_render(&context.kb, skill_dir.as_deref())?)
}

/// `opt_proposal_table`.
pub fn opt_proposal_table(context: &Context, params: ProposalTableParams) -> Result<Outcome, ToolError> {
    let rows = match params.proposals_json {
        serde_json::Value::String(text) => serde_json::from_str(&text),
        other => serde_json::from_value(other),
    }
    .map_err(|error| ToolError::InvalidParams(format!("proposals_json: {error}")))?;
    Ok(ioscout_service::advise::proposal_table(
        rows,
        Some(&context.kb),
        some(&params.system).as_deref(),
        some(&params.workload).as_deref(),
        some(&params.software).as_deref(),
    )?)
}

/// `report`: the HTML report written to a file under a root.
pub fn report(context: &Context, params: ReportParams) -> Result<Outcome, ToolError> {
    let output = context.roots.resolve(&params.output, false)?;
    let input = input(context, &params.trace_path)?;
    if let Some(logs) = ioscout_service::darshan_inputs(&input.paths)? {
        let [log] = logs.as_slice() else {
            return Err(ToolError::InvalidParams(format!(
                "give one Darshan log at a time; got {}",
                logs.len()
            )));
        };
        let report = ioscout_service::report::darshan_report(log, true, params.file.as_deref())?;
        return wrote_page(&output, &report.html, report.charts, report.findings, &report.problems);
    }
    if params.file.is_some() {
        return Err(ToolError::InvalidParams("file applies to a Darshan log".into()));
    }
    let report = ioscout_service::report::report(&input, &params.request)?;
    wrote_page(&output, &report.html, report.charts, report.findings, &[])
}

/// Writes a report page to `output` and says what it holds (a log's problems included).
fn wrote_page(
    output: &std::path::Path,
    html: &str,
    charts: usize,
    findings: usize,
    problems: &[String],
) -> Result<Outcome, ToolError> {
    std::fs::write(output, html)
        .map_err(|error| ToolError::Failed(format!("{}: {error}", output.display())))?;
    let result = PageWritten {
        status: "ok",
        report: output.display().to_string(),
        charts,
        findings,
        bytes: html.len(),
        problems: problems.to_vec(),
    };
    let text = format!("wrote {} ({charts} charts, {findings} findings)", output.display());
    Ok(Outcome::typed(&result, text))
}

/// What `report` returns: where the page went and what it holds.
#[derive(Debug, serde::Serialize, JsonSchema)]
pub struct PageWritten {
    /// Always `ok`.
    pub status: &'static str,
    /// The page written.
    pub report: String,
    /// Charts drawn.
    pub charts: usize,
    /// Findings shown.
    pub findings: usize,
    /// The page's size in bytes.
    pub bytes: usize,
    /// What could not be read of a Darshan log (absent when everything was).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
}

/// What `export` returns: the file written and what was not read.
#[derive(Debug, serde::Serialize, JsonSchema)]
pub struct Exported {
    /// Always `ok`.
    pub status: &'static str,
    /// The file written.
    pub file: String,
    /// How the events were read (indexes used, files read whole).
    pub notes: Vec<String>,
    /// Problems counted.
    pub problem_count: u64,
    /// A Darshan log's problems, each with its log (absent for traces, whose problems are in
    /// `scan`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problems: Option<Vec<String>>,
}

/// `export`: events to a Parquet or Chrome trace-event file under a root.
pub fn export(context: &Context, params: ExportParams) -> Result<Outcome, ToolError> {
    let format = match params.format.as_str() {
        "parquet" => ioscout_service::view::ViewFormat::Parquet,
        "chrome-json" | "chrome" => ioscout_service::view::ViewFormat::Chrome,
        other => {
            return Err(ToolError::InvalidParams(format!("format {other:?} is not parquet or chrome-json")));
        }
    };
    let output = context.roots.resolve(&params.output, false)?;
    let request = ioscout_service::query::QueryRequest {
        filter: params.filter,
        format: Some(format),
        aggregate: "count".into(),
        ..Default::default()
    };
    let input = input(context, &params.trace_path)?;
    let logs = ioscout_service::darshan_inputs(&input.paths)?;
    let file = std::fs::File::create(&output)
        .map_err(|error| ToolError::Failed(format!("{}: {error}", output.display())))?;
    if let Some(logs) = logs {
        let (report, _) = ioscout_service::segments::query(&logs, true, &request, Box::new(file))
            .inspect_err(|_| {
                let _ = std::fs::remove_file(&output);
            })?;
        let problems: Vec<String> = report.problems().collect();
        let result = Exported {
            status: "ok",
            file: output.display().to_string(),
            notes: report.notes,
            problem_count: problems.len() as u64,
            problems: Some(problems),
        };
        return Ok(Outcome::typed(&result, format!("wrote {}", output.display())));
    }
    let report = ioscout_service::query::query(&input, &request, Box::new(file))?;
    let result = Exported {
        status: "ok",
        file: output.display().to_string(),
        problem_count: report.scan.problem_count(),
        notes: report.notes,
        problems: None,
    };
    Ok(Outcome::typed(&result, format!("wrote {}", output.display())))
}

/// `index`: builds or refreshes the index of a trace directory under a root (written beside
/// the traces, in `.ioscout/`).
pub fn index(context: &Context, params: IndexParams) -> Result<Outcome, ToolError> {
    let request = ioscout_service::index::IndexRequest {
        index_dir: None,
        force: params.force,
        chunk_bytes: params.chunk_kib.unwrap_or(1024).clamp(1, 1 << 20) * 1024,
    };
    Ok(ioscout_service::index::index(&input(context, &params.trace_path)?, &request)?)
}

/// `tune`: runs a tuning spec that lies under a root, recording into the server's knowledge
/// base.
pub fn tune(context: &Context, params: TuneParams) -> Result<Outcome, ToolError> {
    let spec = context.roots.resolve(&params.spec, true)?;
    let request = ioscout_service::tune::TuneRequest {
        spec,
        options: ioscout_tune::TuneOptions {
            strategy: params.strategy,
            budget: params.budget,
            seed: params.seed,
            subset: !params.no_subset,
            validate: !params.no_validate,
            kb: None,
        },
        kb: Some(kb_path(context)?),
        no_kb: false,
    };
    Ok(ioscout_service::tune::tune(&request)?)
}

/// `optimize`: runs the optimisation loop of a spec that lies under a root, recording into the
/// server's knowledge base.
pub fn optimize(context: &Context, params: OptimizeParams) -> Result<Outcome, ToolError> {
    let spec = context.roots.resolve(&params.spec, true)?;
    let request = ioscout_service::optimize::OptimizeRequest {
        spec,
        kb: Some(kb_path(context)?),
        no_kb: false,
        pairs: params.pairs,
        fs_type: params.fs_type,
        preload: params.preload.map(|path| context.roots.resolve(&path, true)).transpose()?,
    };
    Ok(ioscout_service::optimize::optimize(&request)?)
}

/// The network tools: a clear refusal that names the local alternative.
pub fn offline(_context: &Context, _params: OfflineParams) -> Result<Outcome, ToolError> {
    Err(ToolError::Failed(
        "offline: ioscout searches nothing remote; use session_search_optimization_context (knowledge base and citation catalog) or rag_search (bundled references and rule documentation)".into(),
    ))
}
