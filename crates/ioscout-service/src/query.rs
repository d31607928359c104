//! Matching events and aggregates (`ioscout query`, the MCP tool `query`), reading only the
//! chunks the index cannot rule out.
//!
//! The plan comes from [`ioscout_query::plan`] (indexes opened, stale files read whole, chunks
//! pruned by the predicate); with no usable index the files are scanned in full. The surviving
//! chunks are decoded in parallel and printed in file order.

use std::path::PathBuf;

use ioscout_query::Predicate;
use ioscout_query::aggregate::{GroupFold, GroupSpec, Groups};
use ioscout_query::plan::{Plan, Planner};
use ioscout_read::TraceFile;

use crate::view::{Emitter, Output, Sink, ViewFold, ViewFormat, scan_and_print};
use crate::{Input, Result, ServiceError};

/// A query as a user writes it. Also the parameters of the MCP `query` tool (beside its
/// `trace_path`; the tool returns rows as values, so it sets the format itself).
#[derive(Clone, Debug, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(default)]
#[expect(clippy::doc_markdown, reason = "the field docs are the MCP tool's descriptions, in plain text")]
pub struct QueryRequest {
    /// Filter expression, e.g. `cat == "POSIX" and dur > 1000` (fields name cat pid tid ts dur
    /// id type ph host file args.<key>; == != < <= > >= in ~ !~; and or not).
    #[serde(rename = "where", alias = "filter")]
    pub filter: Option<String>,
    /// Stop after this many matching events (the MCP tool: 1 to 10000, default 100).
    pub limit: Option<u64>,
    /// Only these columns, comma-separated.
    pub select: Option<String>,
    /// Output format; `None` is JSON lines for events and an aligned table for groups.
    #[serde(skip)]
    pub format: Option<ViewFormat>,
    /// Ignore the sidecar index.
    pub no_index: bool,
    /// Aggregate instead: group by these keys, comma-separated (name, cat, pid, tid, ph, host,
    /// file, args.<key>).
    pub group_by: Option<String>,
    /// Reducers for group_by: count, sum:F, mean:F, min:F, max:F, pNN:F with F = dur or size
    /// (default count).
    #[serde(rename = "agg", alias = "aggregate", default = "count")]
    pub aggregate: String,
    /// Where indexes were put by `ioscout index --index-dir`.
    #[serde(skip)]
    pub index_dir: Option<PathBuf>,
    /// Where the record batches of [`ViewFormat::Arrow`] go (the Python package).
    #[serde(skip)]
    pub batches: Option<ioscout_render::rows::Batches>,
}

fn count() -> String {
    "count".into()
}

/// What a query did besides writing rows.
#[derive(Debug)]
pub struct QueryReport {
    /// The scan's report.
    pub scan: ioscout_read::ScanReport,
    /// How it was planned: index use, stale files, chunks read.
    pub notes: Vec<String>,
    /// The matching events as values, for [`ViewFormat::Values`] (empty otherwise).
    pub rows: Vec<serde_json::Value>,
}

/// Runs `request` over `input`, writing rows (or groups) to `out`.
pub fn query(input: &Input, request: &QueryRequest, mut out: Sink) -> Result<QueryReport> {
    let arguments = request;
    let predicate = arguments.filter.as_deref().map(Predicate::parse).transpose()?;
    let spec = arguments
        .group_by
        .as_deref()
        .map(|keys| GroupSpec::parse(keys, &arguments.aggregate))
        .transpose()
        .map_err(|error| ServiceError::BadRequest(error.to_string()))?;
    if spec.is_some() && arguments.format == Some(ViewFormat::Parquet) {
        return Err(ServiceError::BadRequest(
            "--group-by prints a table, JSON lines or CSV; not Parquet".into(),
        ));
    }
    let (files, input_problems) = input.discover()?;
    let mut output = Output::new(arguments.format.unwrap_or(ViewFormat::Jsonl), arguments.select.as_deref())?;
    output.batches.clone_from(&arguments.batches);
    if let Some(cluster) = &input.cluster {
        let query = crate::distributed_query::Query {
            input,
            request: arguments,
            predicate: predicate.as_ref(),
            spec: spec.as_ref(),
            output: &output,
            files: &files,
            input_problems: &input_problems,
        };
        return query.run(cluster.as_ref(), out);
    }
    let planner = Planner::open(&files, arguments.index_dir.as_deref(), arguments.no_index);
    if planner.indexed() == 0 {
        let mut notes = planner.into_notes();
        let (scan, more, rows) =
            full_scan(input, arguments, &files, &input_problems, predicate.as_ref(), spec.as_ref(), out)?;
        notes.extend(more);
        return Ok(QueryReport { scan, notes, rows });
    }
    let scanner = input.scanner();
    let Plan { tables, chunks, mut notes, answered } =
        planner.finish(&scanner, &files, predicate.as_ref(), spec.as_ref());
    if let (Some(groups), Some(spec)) = (&answered, &spec) {
        let rows = print_groups(spec, groups, arguments.format, &mut out, &mut notes)?;
        let report = scanner.scan_chunks(
            &files,
            &input_problems,
            &[],
            |_| ioscout_read::NoFold,
            |_, _| std::ops::ControlFlow::Continue(()),
        );
        return Ok(QueryReport { scan: report, notes, rows });
    }
    if let Some(spec) = &spec {
        let mut groups = Groups::default();
        let report = scanner.scan_chunks(
            &files,
            &input_problems,
            &chunks,
            |_| GroupFold::new(spec, predicate.as_ref(), &tables),
            |_, fold| {
                groups.merge(fold.groups);
                std::ops::ControlFlow::Continue(())
            },
        );
        let rows = print_groups(spec, &groups, arguments.format, &mut out, &mut notes)?;
        return Ok(QueryReport { scan: report, notes, rows });
    }
    let mut emitter = Emitter::new(&output, arguments.limit, out)?;
    let limit = emitter.limit;
    let report = scanner.scan_chunks(
        &files,
        &input_problems,
        if limit == 0 { &[] } else { &chunks },
        |_| ViewFold::new(predicate.as_ref(), &tables, &output, limit),
        |_, fold| emitter.take(&fold),
    );
    let rows = emitter.finish()?;
    Ok(QueryReport { scan: report, notes, rows })
}

/// The query without the index: a parallel scan of every file.
fn full_scan(
    input: &Input,
    arguments: &QueryRequest,
    files: &[TraceFile],
    input_problems: &[ioscout_read::InputProblem],
    predicate: Option<&Predicate>,
    spec: Option<&GroupSpec>,
    mut out: Sink,
) -> Result<(ioscout_read::ScanReport, Vec<String>, Vec<serde_json::Value>)> {
    let Some(spec) = spec else {
        let mut output =
            Output::new(arguments.format.unwrap_or(ViewFormat::Jsonl), arguments.select.as_deref())?;
        output.batches.clone_from(&arguments.batches);
        let (report, rows) =
            scan_and_print(files, input_problems, input, predicate, arguments.limit, &output, out)?;
        return Ok((report, Vec::new(), rows));
    };
    let scanner = input.scanner();
    let tables = scanner.metadata(files).tables;
    let mut groups = Groups::default();
    let report = scanner.scan(
        files,
        input_problems,
        |_| GroupFold::new(spec, predicate, &tables),
        |_, fold, _| {
            groups.merge(fold.groups);
            std::ops::ControlFlow::Continue(())
        },
    );
    let mut notes = Vec::new();
    let rows = print_groups(spec, &groups, arguments.format, &mut out, &mut notes)?;
    Ok((report, notes, rows))
}

/// Writes aggregate rows: an aligned table by default, else JSON lines or CSV, or returns them
/// as objects ([`ViewFormat::Values`]); `notes` gets what the percentiles are (exact, or how many
/// groups are approximate and by how much).
pub(crate) fn print_groups(
    spec: &GroupSpec,
    groups: &Groups,
    format: Option<ViewFormat>,
    out: &mut Sink,
    notes: &mut Vec<String>,
) -> Result<Vec<serde_json::Value>> {
    notes.extend(groups.percentile_note(spec));
    if matches!(format, Some(ViewFormat::Values | ViewFormat::Arrow)) {
        let columns = spec.columns();
        return Ok(groups
            .rows(spec)
            .into_iter()
            .map(|row| serde_json::Value::Object(columns.iter().cloned().zip(row).collect()))
            .collect());
    }
    ioscout_render::groups::write(&spec.columns(), &groups.rows(spec), spec.keys.len(), format, out)
        .map_err(|error| ServiceError::write("groups", error))?;
    Ok(Vec::new())
}
