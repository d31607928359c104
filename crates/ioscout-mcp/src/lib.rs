//! ioscout's MCP server: the pipeline as typed tools for LLM agents.
//!
//! This crate sits beside the command line, at the top of the flow: it serves the operations of
//! `ioscout-service` (the same calls the command line makes) over the Model Context Protocol,
//! through the official Rust SDK (`rmcp`), on stdio or on streamable HTTP. [`tools`] holds the
//! tool surface (names as the optimisation pipeline and dftracer-agents call them, typed
//! parameters with JSON Schemas); [`roots`] confines every path to the `--root` directories.
//!
//! Safety: a path outside the roots, a malformed argument or an unknown tool is a JSON-RPC
//! invalid-params error with a message; a tool that fails returns a tool-level error result
//! (`{"status": "error", "message": ...}`); each call has a time limit, and results larger than
//! the cap are trimmed (longest arrays first) with a note saying so. The server keeps serving
//! after any of these.

pub mod roots;
pub mod tools;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

pub use crate::roots::Roots;

/// Why a tool call did not produce a result.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The caller's arguments are wrong (a JSON-RPC invalid-params error).
    #[error("{0}")]
    InvalidParams(String),
    /// The tool ran and failed (a tool-level error result the caller reads).
    #[error("{0}")]
    Failed(String),
}

impl From<ioscout_service::ServiceError> for ToolError {
    fn from(error: ioscout_service::ServiceError) -> Self {
        if error.is_bad_request() {
            ToolError::InvalidParams(error.to_string())
        } else {
            ToolError::Failed(error.to_string())
        }
    }
}

/// Why the server could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The roots or the listening address are unusable.
    #[error("{0}")]
    Setup(#[from] std::io::Error),
    /// The protocol layer failed.
    #[error("MCP: {0}")]
    Protocol(String),
}

/// How the server runs.
#[derive(Clone, Debug)]
pub struct ServerOptions {
    /// Directories tools may read and write under.
    pub roots: Vec<PathBuf>,
    /// The knowledge base (default `<first root>/_memory/optimization_kb.jsonl`).
    pub kb: Option<PathBuf>,
    /// Largest result, in bytes of JSON (and of text), before trimming.
    pub max_result_bytes: usize,
    /// Longest a call may run.
    pub time_limit: Duration,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            roots: Vec::new(),
            kb: None,
            max_result_bytes: 1 << 20,
            time_limit: Duration::from_mins(5),
        }
    }
}

/// What every tool call sees.
#[derive(Debug)]
pub struct Context {
    /// The allowed roots.
    pub roots: Roots,
    /// The knowledge base.
    pub kb: PathBuf,
    /// What `session_analyze_traces` with `follow` keeps between calls.
    pub follows: ioscout_service::session::Follows,
}

type Handler = Box<dyn Fn(&Context, Value) -> Result<ioscout_service::Outcome, ToolError> + Send + Sync>;

struct Entry {
    tool: Tool,
    call: Handler,
}

fn entry<P, F>(name: &'static str, description: &'static str, read_only: bool, handler: F) -> Entry
where
    P: DeserializeOwned + schemars::JsonSchema + 'static,
    F: Fn(&Context, P) -> Result<ioscout_service::Outcome, ToolError> + Send + Sync + 'static,
{
    let schema = rmcp::handler::server::common::schema_for_type::<P>();
    // Parameters flattened from a service request lose serde's list of expected fields in the
    // unknown-field message: it names them from the schema instead.
    let accepted: Vec<String> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| properties.keys().map(|key| format!("`{key}`")).collect())
        .unwrap_or_default();
    let mut tool = Tool::new(name, description, schema);
    let mut annotations = ToolAnnotations::new();
    annotations.read_only_hint = Some(read_only);
    annotations.open_world_hint = Some(false);
    tool.annotations = Some(annotations);
    let call: Handler = Box::new(move |context: &Context, arguments: Value| {
        let params: P = serde_json::from_value(arguments).map_err(|error| {
            let message = error.to_string();
            if message.starts_with("unknown field") && !message.contains("expected") {
                ToolError::InvalidParams(format!(
                    "{name}: {message}, expected one of {}",
                    accepted.join(", ")
                ))
            } else {
                ToolError::InvalidParams(format!("{name}: {message}"))
            }
        })?;
        handler(context, params)
    });
    Entry { tool, call }
}

impl Entry {
    /// Publishes the tool's output schema: the result type `R`'s, with what every result may
    /// add around it (the `scan` section of [`ioscout_service::scan::ScanSection`], `status`,
    /// `warnings`, `truncated`, `truncation_note`).
    fn returns<R: schemars::JsonSchema + 'static>(mut self) -> Entry {
        self.tool.output_schema = Some(Arc::new(output_schema::<R>()));
        self
    }

    /// Publishes the output schema of a tool whose result has one of several shapes (a trace's or
    /// a log's): any of `shapes`, each an [`output_schema`].
    fn returns_any(mut self, shapes: Vec<serde_json::Map<String, Value>>) -> Entry {
        self.tool.output_schema = Some(Arc::new(any_of(shapes)));
        self
    }
}

/// A result that is a list, as the tools return it: `{"items": [...]}` (see
/// [`success_result`]). Only its schema is used.
#[derive(schemars::JsonSchema)]
#[expect(dead_code, reason = "only its schema is used: the list is wrapped as JSON")]
struct Items<T> {
    /// The results, one per input.
    items: Vec<T>,
}

/// One schema that any of `shapes` satisfies: their definitions gathered at the top (the first
/// of a name kept: the shapes come from one workspace's types, and
/// `union_shapes_agree_on_their_definitions` holds that they agree), the shapes under `anyOf`.
fn any_of(shapes: Vec<serde_json::Map<String, Value>>) -> serde_json::Map<String, Value> {
    let mut out = serde_json::Map::new();
    let mut definitions = serde_json::Map::new();
    let mut branches = Vec::new();
    for mut shape in shapes {
        if let Some(Value::Object(found)) = shape.remove("$defs") {
            for (name, definition) in found {
                definitions.entry(name).or_insert(definition);
            }
        }
        if let Some(dialect) = shape.remove("$schema") {
            out.entry("$schema").or_insert(dialect);
        }
        branches.push(Value::Object(shape));
    }
    out.insert("type".into(), json!("object"));
    out.insert("anyOf".into(), Value::Array(branches));
    out.insert("$defs".into(), Value::Object(definitions));
    out
}

/// The shapes of the tools whose result is a trace's or a log's, by tool.
fn union_shapes(tool: &str) -> Vec<serde_json::Map<String, Value>> {
    use ioscout_service::envelope::{Envelope, LogContext, LogFact, TraceContext, TraceFact};
    type SummaryResult = ioscout_service::darshan::SummaryResult;
    match tool {
        "event_count" => vec![
            output_schema::<ioscout_service::count::CountResult>(),
            output_schema::<ioscout_service::segments::SegmentCount>(),
        ],
        "reader" => vec![
            output_schema::<ioscout_service::info::InfoOutput<'static>>(),
            output_schema::<SummaryResult>(),
            output_schema::<Items<SummaryResult>>(),
        ],
        "analyze" => vec![
            output_schema::<ioscout_service::analyze::AnalyzeResult>(),
            output_schema::<ioscout_service::darshan::LogsBreakdown>(),
        ],
        "diagnose" => vec![
            output_schema::<Envelope<TraceContext, TraceFact>>(),
            output_schema::<Envelope<LogContext, LogFact>>(),
            output_schema::<Items<Envelope<LogContext, LogFact>>>(),
        ],
        "explain_rule" => vec![
            output_schema::<ioscout_service::diagnose::RuleEntry>(),
            output_schema::<Items<ioscout_service::diagnose::RuleEntry>>(),
            output_schema::<ioscout_service::detect::CardResult>(),
        ],
        "darshan_summary" => vec![
            output_schema::<SummaryResult>(),
            output_schema::<Items<SummaryResult>>(),
            output_schema::<ioscout_service::darshan::ManyLogsResult<'static>>(),
        ],
        _ => Vec::new(),
    }
}

/// The output schema of a tool whose structured result is `R`, with the envelope every result
/// may carry (see [`success_result`]).
fn output_schema<R: schemars::JsonSchema + 'static>() -> serde_json::Map<String, Value> {
    let mut schema = Arc::unwrap_or_clone(rmcp::handler::server::common::schema_for_output::<R>());
    let mut scan = Arc::unwrap_or_clone(rmcp::handler::server::common::schema_for_output::<
        ioscout_service::scan::ScanSection,
    >());
    let scan_definitions = scan.remove("$defs");
    scan.remove("$schema");
    if let Some(Value::Object(scan_definitions)) = scan_definitions {
        let definitions = schema.entry("$defs").or_insert_with(|| json!({}));
        if let Value::Object(definitions) = definitions {
            definitions.extend(scan_definitions);
        }
    }
    let envelope = json!({
        "scan": Value::Object(scan),
        "status": {"type": "string", "description": "`ok` (an error result says `error` and why)."},
        "warnings": {"type": "array", "items": {"type": "string"}, "description": "What the caller should be told that is not part of the result."},
        "truncated": {"type": "boolean", "description": "Whether the longest lists were shortened to fit the result cap."},
        "truncation_note": {"type": "string", "description": "How much was cut, and how to ask for less."},
    });
    if let (Some(Value::Object(properties)), Value::Object(envelope)) =
        (schema.get_mut("properties"), envelope)
    {
        for (key, value) in envelope {
            properties.entry(key).or_insert(value);
        }
    }
    schema
}

/// The input schema of tool `name`, as `tools/list` shows it (`None` for an unknown tool).
pub fn tool_schema(name: &str) -> Option<Value> {
    registry()
        .into_iter()
        .find(|entry| entry.tool.name == name)
        .map(|entry| Value::Object(entry.tool.input_schema.as_ref().clone()))
}

/// Every tool: its name, description, parameter type and handler, one entry each.
#[allow(clippy::too_many_lines, reason = "a data table: one entry per tool")]
fn registry() -> Vec<Entry> {
    use tools::{
        advise, analyze, comparator, darshan_summary, diagnose, event_count, explain_rule, export, index,
        offline, opt_kb_lookup, opt_kb_record, opt_kb_render, opt_proposal_table, optimize, query,
        rag_search, reader, report, session_analyze_traces, session_reorganize_structure,
        session_search_optimization_context, session_validate_structure, tune,
    };
    vec![
        entry(
            "event_count",
            "Count the events of DFTracer traces (.pfw, .pfw.gz; files, directories or globs) by phase: complete, metadata, counter, aggregated, other, invalid; per file and in total. Of Darshan logs: per log and DXT module the records, read and write segments and their bytes.",
            true,
            event_count,
        )
        .returns_any(union_shapes("event_count")),
        entry(
            "reader",
            "Trace metadata: per file the format generation, compression and gzip members, events, time span, processes, hosts, files named and categories, and the totals (Darshan logs: their summary).",
            true,
            reader,
        )
        .returns_any(union_shapes("reader")),
        entry(
            "analyze",
            "DFAnalyzer-compatible analysis of a trace: summary and layer breakdown with exact compute/I-O overlap; the structured result is DFAnalyzer's output=json schema (views.<view>.summary.layers.<layer>.{time_s,count,size_bytes,ops_per_s,bandwidth_bps,u_time_s,...}). Of Darshan logs: each log's module breakdown ({kind: \"darshan\", logs: [{log, version, nprocs, run_time_s, modules: [{module, files, reads, writes, opens, stats, seeks, syncs, bytes_read, bytes_written, read_time_summed_s, write_time_summed_s, meta_time_summed_s, io_time_summed_s, io_time_slowest_rank_s, bandwidth_bytes_per_s, share_of_run_time_pct}], striping, unread_modules, damaged_modules, problems}]}).",
            true,
            analyze,
        )
        .returns_any(union_shapes("analyze")),
        entry(
            "diagnose",
            "Bottleneck findings on a trace or Darshan logs, ranked by severity (0-1; low, medium >= 0.3, high >= 0.6, critical >= 0.85) with evidence and why, in DFDiagnoser's fact envelope with severity_counts. Families: wisio, dfanalyzer, drishti, iosage, pipeline.",
            true,
            diagnose,
        )
        .returns_any(union_shapes("diagnose")),
        entry(
            "comparator",
            "Compare two or more runs (trace directories or Darshan logs: a baseline, a variant and more variants) per layer: time, operations, bytes, bandwidth, overlap, the change and speedup against the baseline, and the doing-less guard per run (a run that moved 5 % fewer bytes or operations is not credited); sorted by a metric.",
            true,
            comparator,
        )
        .returns::<ioscout_service::compare::CompareResult<'static>>(),
        entry(
            "query",
            "Matching events of a trace as JSON objects (host and file names resolved), reading only the chunks the sidecar index cannot rule out; or aggregates with group_by. Of a Darshan log: its DXT segments as events (name read/write, cat POSIX/MPIIO, pid the rank, ts/dur in microseconds since the job started, args.offset, args.ret the bytes; where also takes rank, op, module, start, end, offset, length).",
            true,
            query,
        )
        .returns::<tools::QueryResult>(),
        entry(
            "explain_rule",
            "One diagnosis rule's documentation: what it detects, why it hurts I/O, evidence, thresholds, change, when the change does not apply, references. Without a code: every rule.",
            true,
            explain_rule,
        )
        .returns_any(union_shapes("explain_rule")),
        entry(
            "advise",
            "The optimisation checklist (12 dimensions, a verdict and reason each) and ranked, cited L1/L2/L3 proposals for one run, gated by the file system and the job's software; doing-less changes rejected.",
            false,
            advise,
        )
        .returns::<ioscout_service::advise::AdviseResult>(),
        entry(
            "darshan_summary",
            "A Darshan log's version, processes, run time, modules and per-module counter totals under Darshan's counter names; given a DFTracer trace (file or directory), the same for the Darshan records derived from it, with a `derived` section (ranks, approximated counters). With logs, group_by, top or by: many logs (directories searched for *.darshan) summarised together, per program, user, processes or job id (logs, processes, run time, bytes, I/O and metadata time), and the top jobs and files.",
            true,
            darshan_summary,
        )
        .returns_any(union_shapes("darshan_summary")),
        entry(
            "session_analyze_traces",
            "Analyse every trace directory of a run directory (<run>/<run_name>/traces/compact[/subpath], else traces/, else the run): query_type summary (layers), detailed (DFAnalyzer JSON) or timeline_overlap (hidden share of each layer). Each trace's coverage names the files still being written; wait_to_settle_s waits for a running job's traces to stop changing first; follow re-analyses a running job incrementally from the previous follow call, reading only what was appended, and says what changed.",
            true,
            session_analyze_traces,
        )
        .returns::<ioscout_service::session::TracesResult>(),
        entry(
            "session_validate_structure",
            "Check a run directory's opt<n>/ layout (read-only): clean, and the problems found.",
            true,
            session_validate_structure,
        )
        .returns::<ioscout_service::advise::ValidateResult>(),
        entry(
            "session_reorganize_structure",
            "Move a run directory's stray artifacts into its newest opt<n>/ (dry_run, the default, only lists the moves).",
            false,
            session_reorganize_structure,
        )
        .returns::<ioscout_service::advise::ReorganizeResult>(),
        entry(
            "session_search_optimization_context",
            "Local optimisation context for a run: the catalog techniques (with citations) that answer the findings of its baseline traces, and the knowledge base's measured results for this system and workload; writes <run>/context_opportunities.json. Nothing remote.",
            false,
            session_search_optimization_context,
        )
        .returns::<ioscout_service::session::ContextResult>(),
        entry(
            "rag_search",
            "Lexical (BM25) search over ioscout's bundled references, optimisation techniques and rule documentation.",
            true,
            rag_search,
        )
        .returns::<ioscout_service::search::SearchResult<'static>>(),
        entry(
            "opt_kb_record",
            "Record one measured change in the knowledge base: verdict win at +5 %, regression at -5 %; a system-scoped metric needs its paired application metric, and an application regression over 2 % makes the entry a regression (guard_triggered).",
            false,
            opt_kb_record,
        )
        .returns::<ioscout_service::advise::KbRecordResult>(),
        entry(
            "opt_kb_lookup",
            "Prior measured changes that apply: system findings only on their system, workload findings only with their workload, software findings travel; most relevant first, with a Markdown table.",
            true,
            opt_kb_lookup,
        )
        .returns::<ioscout_service::advise::KbLookupResult>(),
        entry(
            "opt_kb_render",
            "The whole knowledge base as Markdown; with skill_dir, written as SKILL.md, system.md, software.md and workload.md.",
            false,
            opt_kb_render,
        )
        .returns::<ioscout_service::advise::KbRenderResult>(),
        entry(
            "opt_proposal_table",
            "Check and rank proposals: uncited rows rejected, each row's citation classified and its prior result here looked up in the knowledge base, sorted by 0.5 x app + 0.5 x system potential impact.",
            true,
            opt_proposal_table,
        )
        .returns::<ioscout_service::advise::ProposalTableResult>(),
        entry(
            "report",
            "Write the self-contained HTML report of a trace (layer breakdown, per-process compute/I-O timeline, bandwidth and operations over time, bytes by directory and process, transfer sizes, findings, proposals) to a file under a root. Of a Darshan log: its job summary (I/O cost per module, operations, access sizes, files, striping, DXT heatmaps and drill-down, findings, proposals); file restricts it to one file's records.",
            false,
            report,
        )
        .returns::<tools::PageWritten>(),
        entry(
            "export",
            "Write a trace's events, or a Darshan log's DXT segments (optionally filtered with a where expression), to a Parquet file or a Chrome trace-event JSON for Perfetto, under a root.",
            false,
            export,
        )
        .returns::<tools::Exported>(),
        entry(
            "index",
            "Build or refresh the sidecar index of a trace directory under a root (chunk table, statistics, bloom filters), so later queries read only the chunks they need. Returns the directories indexed and the scan report.",
            false,
            index,
        )
        .returns::<ioscout_service::index::IndexResult>(),
        entry(
            "tune",
            "Run a TOML tuning spec that lies under a root: search its parameter space (ofat, grid, random or tpe) within the budget, validate the best configuration, record every evaluation in the knowledge base. Returns the best parameters, every evaluation and the history.",
            false,
            tune,
        )
        .returns::<ioscout_tune::Report>(),
        entry(
            "optimize",
            "Run the optimisation loop of a TOML spec with an [optimize] section that lies under a root: diagnose and advise the baseline (from its traces, or one run under DFTracer's preload library), measure every proposal the spec expresses as a variant against the baseline in at least 5 alternated pairs, keep as wins only those whose interval of pair speedups lies above 1 plus the noise margin, record every measurement in the knowledge base. Returns the advice, every measurement, the proposals ranked by what was measured, and the fixes the advice missed.",
            false,
            optimize,
        )
        .returns::<ioscout_tune::optimize::OptimizeReport>(),
        entry(
            "search_arxiv",
            "Not available: ioscout is offline. Use session_search_optimization_context or rag_search.",
            true,
            offline,
        ),
        entry(
            "search_semantic_scholar",
            "Not available: ioscout is offline. Use session_search_optimization_context or rag_search.",
            true,
            offline,
        ),
        entry(
            "search_openalex",
            "Not available: ioscout is offline. Use session_search_optimization_context or rag_search.",
            true,
            offline,
        ),
        entry(
            "search_crossref",
            "Not available: ioscout is offline. Use session_search_optimization_context or rag_search.",
            true,
            offline,
        ),
        entry(
            "search_web",
            "Not available: ioscout is offline. Use session_search_optimization_context or rag_search.",
            true,
            offline,
        ),
        entry(
            "fetch_webpage_article",
            "Not available: ioscout is offline. Use session_search_optimization_context or rag_search.",
            true,
            offline,
        ),
    ]
}

/// The server: the registry, the context and the limits, shared by every session.
#[derive(Clone)]
pub struct Server {
    inner: Arc<Inner>,
}

struct Inner {
    context: Arc<Context>,
    entries: Vec<Entry>,
    max_result_bytes: usize,
    time_limit: Duration,
    /// Tool calls running at once: each scan already uses every core, so more would only add
    /// threads and memory; the rest wait their turn (within their time limit).
    running: Arc<tokio::sync::Semaphore>,
}

/// Tool calls that run at once.
fn concurrent_calls() -> usize {
    std::thread::available_parallelism().map_or(2, std::num::NonZero::get).clamp(2, 8)
}

impl Server {
    /// A server over `options`; the roots must exist.
    pub fn new(options: &ServerOptions) -> Result<Server, ServeError> {
        let roots = Roots::new(&options.roots)?;
        let kb =
            options.kb.clone().unwrap_or_else(|| roots.first().join("_memory").join("optimization_kb.jsonl"));
        Ok(Server {
            inner: Arc::new(Inner {
                context: Arc::new(Context {
                    roots,
                    kb,
                    follows: ioscout_service::session::Follows::default(),
                }),
                entries: registry(),
                max_result_bytes: options.max_result_bytes.max(1024),
                time_limit: options.time_limit,
                running: Arc::new(tokio::sync::Semaphore::new(concurrent_calls())),
            }),
        })
    }

    /// The tools, as `tools/list` shows them.
    pub fn tools(&self) -> Vec<Tool> {
        self.inner.entries.iter().map(|entry| entry.tool.clone()).collect()
    }

    /// Calls a tool by name with JSON arguments, with the time limit and the result cap.
    pub async fn call(&self, name: &str, arguments: Value) -> Result<CallToolResult, ErrorData> {
        let Some(index) = self.inner.entries.iter().position(|entry| entry.tool.name == name) else {
            return Err(ErrorData::invalid_params(format!("unknown tool {name:?}"), None));
        };
        let inner = self.inner.clone();
        let run = async move {
            // The permit goes with the work: a call that timed out still holds it until it ends.
            let permit = inner.running.clone().acquire_owned().await.ok();
            let worker = inner.clone();
            tokio::task::spawn_blocking(move || {
                let _permit = permit;
                let entry = &worker.entries[index];
                (entry.call)(&worker.context, arguments)
            })
            .await
        };
        let limit = self.inner.time_limit;
        let outcome = match tokio::time::timeout(limit, run).await {
            Err(_) => {
                return Ok(error_result(&format!(
                    "{name}: no result within the time limit of {} s (the server goes on serving)",
                    limit.as_secs()
                )));
            }
            Ok(Err(join)) => {
                return Ok(error_result(&format!("{name}: the tool stopped unexpectedly: {join}")));
            }
            Ok(Ok(Err(ToolError::InvalidParams(message)))) => {
                return Err(ErrorData::invalid_params(message, None));
            }
            Ok(Ok(Err(ToolError::Failed(message)))) => return Ok(error_result(&message)),
            Ok(Ok(Ok(outcome))) => outcome,
        };
        Ok(success_result(outcome, self.inner.max_result_bytes))
    }
}

fn error_result(message: &str) -> CallToolResult {
    CallToolResult::structured_error(json!({"status": "error", "message": message}))
}

/// The structured result (an object: arrays are wrapped in `items`, `status` added), its
/// warnings, trimmed under the cap; and the text rendering, cut at the cap.
fn success_result(outcome: ioscout_service::Outcome, cap: usize) -> CallToolResult {
    let mut value = match outcome.value_with_scan() {
        Value::Object(object) => Value::Object(object),
        other => json!({"items": other}),
    };
    if let Value::Object(object) = &mut value {
        object.entry("status").or_insert_with(|| json!("ok"));
        if !outcome.warnings.is_empty() {
            object.insert("warnings".into(), json!(outcome.warnings));
        }
    }
    let full = serde_json::to_string(&value).map_or(0, |text| text.len());
    if full > cap {
        trim(&mut value, cap);
        if let Value::Object(object) = &mut value {
            object.insert("truncated".into(), json!(true));
            object.insert(
                "truncation_note".into(),
                json!(format!("the result had {full} bytes of JSON, over the cap of {cap}: the longest lists were shortened; narrow the request (a limit, a filter, fewer views) for everything")),
            );
        }
    }
    let mut text = outcome.text;
    if text.len() > cap {
        let mut end = cap;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let total = text.len();
        text.truncate(end);
        let _ = write!(text, "\n... truncated ({total} bytes in all)\n");
    }
    let mut result = CallToolResult::structured(value);
    result.content = vec![ContentBlock::text(text)];
    result
}

/// Halves the longest array in `value` until its JSON fits in `cap` bytes (or nothing is left
/// to shorten).
fn trim(value: &mut Value, cap: usize) {
    /// A step from a value to one inside it.
    enum Step {
        Key(String),
        Index(usize),
    }
    /// The length of the longest array (with more than one item) and the way to it.
    fn longest(value: &Value) -> Option<(usize, Vec<Step>)> {
        let mut best: Option<(usize, Vec<Step>)> = None;
        let mut consider = |found: Option<(usize, Vec<Step>)>, step: Step| {
            if let Some((length, mut path)) = found
                && best.as_ref().is_none_or(|(best, _)| length > *best)
            {
                path.insert(0, step);
                best = Some((length, path));
            }
        };
        match value {
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    consider(longest(item), Step::Index(index));
                }
                if items.len() > 1 && best.as_ref().is_none_or(|(length, _)| items.len() >= *length) {
                    return Some((items.len(), Vec::new()));
                }
            }
            Value::Object(object) => {
                for (key, item) in object {
                    consider(longest(item), Step::Key(key.clone()));
                }
            }
            _ => {}
        }
        best
    }
    for _ in 0..256 {
        if serde_json::to_string(value).map_or(0, |text| text.len()) <= cap {
            return;
        }
        let Some((length, path)) = longest(value) else { break };
        let mut target = &mut *value;
        for step in &path {
            target = match (step, target) {
                (Step::Key(key), Value::Object(object)) => match object.get_mut(key) {
                    Some(inner) => inner,
                    None => return,
                },
                (Step::Index(index), Value::Array(items)) => match items.get_mut(*index) {
                    Some(inner) => inner,
                    None => return,
                },
                _ => return,
            };
        }
        if let Value::Array(items) = target {
            items.truncate(length / 2);
        }
    }
    if serde_json::to_string(value).map_or(0, |text| text.len()) > cap {
        *value = json!({"status": "ok"});
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("ioscout", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "ioscout finds out why HPC and deep-learning jobs wait on I/O and what to change. Start with reader or event_count on a trace directory, then analyze and diagnose; advise gives cited proposals; opt_kb_lookup before changing anything and opt_kb_record after measuring. Paths are relative to the first root.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.inner.entries.iter().find(|entry| entry.tool.name == name).map(|entry| entry.tool.clone())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.map_or_else(|| json!({}), Value::Object);
        self.call(&request.name, arguments).await.map(CallToolResponse::from)
    }
}

fn runtime() -> Result<tokio::runtime::Runtime, ServeError> {
    let threads = concurrent_calls();
    Ok(tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .max_blocking_threads(threads * 2)
        .enable_all()
        .build()?)
}

/// Serves over stdio until the client closes it. Every line from the client is checked before
/// the protocol sees it: a line that is not JSON gets JSON-RPC's parse error (-32700), and JSON
/// that is not a JSON-RPC 2.0 message gets invalid request (-32600), answered on stdout, instead
/// of silence (or the end of the session).
pub fn serve_stdio(options: &ServerOptions) -> Result<(), ServeError> {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let server = Server::new(options)?;
    runtime()?.block_on(async move {
        let (ours, theirs) = tokio::io::duplex(1 << 20);
        let (from_server, mut to_server) = tokio::io::split(ours);
        let (lines_out, mut lines) = tokio::sync::mpsc::unbounded_channel::<String>();
        let writer = tokio::spawn(async move {
            let mut stdout = tokio::io::stdout();
            while let Some(line) = lines.recv().await {
                if stdout.write_all(line.as_bytes()).await.is_err() || stdout.flush().await.is_err() {
                    break;
                }
            }
        });
        let replies = lines_out.clone();
        let forward_out = tokio::spawn(async move {
            let mut reader = tokio::io::BufReader::new(from_server).lines();
            while let Ok(Some(line)) = reader.next_line().await {
                if replies.send(line + "\n").is_err() {
                    break;
                }
            }
        });
        let errors = lines_out;
        let forward_in = tokio::spawn(async move {
            let mut reader = tokio::io::BufReader::new(tokio::io::stdin()).lines();
            while let Ok(Some(line)) = reader.next_line().await {
                if line.trim().is_empty() {
                    continue;
                }
                match stdio_line_error(&line) {
                    Some(reply) => {
                        if errors.send(reply + "\n").is_err() {
                            break;
                        }
                    }
                    None => {
                        if to_server.write_all(format!("{line}\n").as_bytes()).await.is_err() {
                            break;
                        }
                    }
                }
            }
            let _ = to_server.shutdown().await;
        });
        let running = server
            .serve(tokio::io::split(theirs))
            .await
            .map_err(|error| ServeError::Protocol(error.to_string()))?;
        running.waiting().await.map_err(|error| ServeError::Protocol(error.to_string()))?;
        forward_in.abort();
        let _ = forward_out.await;
        let _ = writer.await;
        Ok(())
    })
}

/// The JSON-RPC error reply to a client line that the protocol must not see: not JSON
/// (-32700), or JSON that is not a 2.0 request, notification or response (-32600). `None` for a
/// well-formed message (batches are arrays of them).
pub fn stdio_line_error(line: &str) -> Option<String> {
    let reply = |id: Value, code: i64, message: String| {
        Some(json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string())
    };
    let value: Value = match serde_json::from_str(line) {
        Ok(value) => value,
        Err(error) => return reply(Value::Null, -32700, format!("Parse error: {error}")),
    };
    let well_formed = |message: &Value| {
        message.get("jsonrpc").and_then(Value::as_str) == Some("2.0")
            && (message.get("method").is_some_and(Value::is_string)
                || message.get("id").is_some()
                    && (message.get("result").is_some() || message.get("error").is_some()))
    };
    let fine = match &value {
        Value::Array(messages) => !messages.is_empty() && messages.iter().all(well_formed),
        message => well_formed(message),
    };
    if fine {
        return None;
    }
    let id = value.get("id").cloned().unwrap_or(Value::Null);
    reply(id, -32600, "Invalid Request: not a JSON-RPC 2.0 message (jsonrpc \"2.0\" and a method)".into())
}

/// Serves streamable HTTP at `http://ADDRESS/mcp` until interrupted (Ctrl-C or SIGTERM);
/// `ready` is told the bound address (port 0 picks a free one).
pub fn serve_http(
    options: &ServerOptions,
    address: std::net::SocketAddr,
    ready: impl FnOnce(std::net::SocketAddr),
) -> Result<(), ServeError> {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
    let server = Server::new(options)?;
    runtime()?.block_on(async move {
        let cancel = tokio_util::sync::CancellationToken::new();
        let mut config = StreamableHttpServerConfig::default();
        config.cancellation_token = cancel.clone();
        let service: StreamableHttpService<Server, LocalSessionManager> =
            StreamableHttpService::new(move || Ok(server.clone()), Arc::default(), config);
        let router = axum::Router::new().nest_service("/mcp", service);
        let listener = tokio::net::TcpListener::bind(address).await?;
        ready(listener.local_addr()?);
        let shutdown = async move {
            let terminate = async {
                match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                    Ok(mut signal) => {
                        signal.recv().await;
                    }
                    Err(_) => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                () = terminate => {}
            }
            cancel.cancel();
        };
        axum::serve(listener, router).with_graceful_shutdown(shutdown).await?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shapes of a union are gathered under one `$defs`, the first of a name kept: a name
    /// two shapes define differently would make one of them check against the other's type.
    #[test]
    fn union_shapes_agree_on_their_definitions() {
        for tool in ["event_count", "reader", "analyze", "diagnose", "explain_rule", "darshan_summary"] {
            let shapes = union_shapes(tool);
            assert!(shapes.len() >= 2, "{tool}");
            let mut seen: serde_json::Map<String, Value> = serde_json::Map::new();
            for shape in &shapes {
                for (name, definition) in shape.get("$defs").and_then(Value::as_object).into_iter().flatten()
                {
                    if let Some(earlier) = seen.get(name) {
                        assert_eq!(earlier, definition, "{tool}: {name} is defined twice, differently");
                    }
                    seen.insert(name.clone(), definition.clone());
                }
            }
        }
    }

    #[test]
    fn trimming_shortens_the_longest_list_first() {
        let mut value = json!({"rows": (0..1000).collect::<Vec<_>>(), "note": "kept"});
        trim(&mut value, 500);
        let length = serde_json::to_string(&value).map_or(usize::MAX, |text| text.len());
        assert!(length <= 500, "{length}");
        assert_eq!(value["note"], "kept");
        assert!(value["rows"].as_array().is_some_and(|rows| !rows.is_empty() && rows.len() < 1000));
    }

    #[test]
    fn every_tool_has_an_object_schema_and_a_unique_name() {
        let entries = registry();
        let mut names: Vec<&str> = entries.iter().map(|entry| entry.tool.name.as_ref()).collect();
        for entry in &entries {
            assert_eq!(
                entry.tool.input_schema.get("type").and_then(Value::as_str),
                Some("object"),
                "{}",
                entry.tool.name
            );
        }
        names.sort_unstable();
        let count = names.len();
        names.dedup();
        assert_eq!(names.len(), count);
        for required in [
            "analyze",
            "diagnose",
            "comparator",
            "event_count",
            "reader",
            "session_analyze_traces",
            "opt_kb_record",
            "opt_kb_lookup",
            "opt_kb_render",
            "opt_proposal_table",
            "session_validate_structure",
            "session_reorganize_structure",
            "session_search_optimization_context",
            "rag_search",
            "query",
            "explain_rule",
            "advise",
            "darshan_summary",
            "search_arxiv",
        ] {
            assert!(names.contains(&required), "{required}");
        }
    }
}

#[cfg(test)]
mod stdio_tests {
    use super::stdio_line_error;

    #[test]
    fn lines_are_json_rpc_messages_or_errors() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":7,"result":{}}"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
        ] {
            assert_eq!(stdio_line_error(line), None, "{line}");
        }
        for (line, code) in [
            ("garbage", -32700),
            ("{\"a\":", -32700),
            ("42", -32600),
            ("[]", -32600),
            (r#"{"id":3,"method":"x"}"#, -32600),
        ] {
            let reply = stdio_line_error(line).unwrap_or_default();
            assert!(reply.contains(&format!("\"code\":{code}")), "{line}: {reply}");
        }
    }
}
