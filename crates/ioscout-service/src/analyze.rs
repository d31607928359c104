//! DFAnalyzer-compatible analysis (`ioscout analyze`, the MCP tool `analyze`): runs it and hands
//! the result to DFAnalyzer's `output=json` schema and to the render crate's tables.

pub use ioscout_render::details::{DetailFormat, write as write_details};

use ioscout_analysis::{Analysis, AnalysisOptions, Binning, OverlapMode, ViewType};

use crate::{Input, Outcome, Result, ServiceError};

/// What to analyse and how, as a user names it. Also the parameters of the MCP `analyze` tool
/// (beside its `trace_path`), under the names dftracer-agents use.
#[derive(Clone, Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(default)]
#[expect(clippy::doc_markdown, reason = "the field docs are the MCP tool's descriptions, in plain text")]
pub struct AnalyzeRequest {
    /// Layer preset: auto (chosen from the trace's categories), posix, dlio, dlio-prev, generic.
    #[serde(rename = "analyzer_preset", alias = "preset")]
    pub preset: ioscout_analysis::PresetName,
    /// Views (time_range, proc_name, file_name, host_name, file_dir, file_pattern, epoch, step);
    /// the first one's summary is the main one; empty means time_range.
    #[serde(rename = "view_types", alias = "views")]
    pub views: Vec<String>,
    /// Width of time bins in seconds.
    #[serde(rename = "analyzer_time_granularity", alias = "time_granularity")]
    pub time_granularity_s: f64,
    /// Overlap measurement: exact (default) or binned (the default under DFAnalyzer
    /// compatibility).
    pub overlap: Option<OverlapMode>,
    /// Reproduce DFAnalyzer's choices (binned overlap, its binning, operation counts).
    pub dfanalyzer_compat: bool,
}

impl Default for AnalyzeRequest {
    fn default() -> Self {
        AnalyzeRequest {
            preset: ioscout_analysis::PresetName::Auto,
            views: Vec::new(),
            time_granularity_s: 1.0,
            overlap: None,
            dfanalyzer_compat: false,
        }
    }
}

impl AnalyzeRequest {
    /// The analysis options, or a bad-request error naming what is unknown.
    pub fn options(&self) -> Result<AnalysisOptions> {
        let mut views = Vec::new();
        for name in self.views.iter().flat_map(|names| names.split(',')).map(str::trim) {
            if name.is_empty() {
                continue;
            }
            let view = ViewType::parse(name).ok_or_else(|| {
                let known: Vec<&str> =
                    ioscout_analysis::views::VIEW_TYPES.iter().map(|view| view.name()).collect();
                ServiceError::BadRequest(format!("unknown view {name:?} (known: {})", known.join(", ")))
            })?;
            if !views.contains(&view) {
                views.push(view);
            }
        }
        if views.is_empty() {
            views.push(ViewType::TimeRange);
        }
        let overlap = match self.overlap {
            Some(mode) => mode,
            None if self.dfanalyzer_compat => OverlapMode::Binned,
            None => OverlapMode::Exact,
        };
        Ok(AnalysisOptions {
            preset: self.preset,
            views,
            time_granularity_s: self.time_granularity_s,
            overlap,
            binning: if self.dfanalyzer_compat { Binning::Dfanalyzer009 } else { Binning::Relative },
            file_totals: false,
        })
    }
}

/// Runs the analysis of `input`, returning it with the scan's report.
pub fn run(input: &Input, options: &AnalysisOptions) -> Result<(Analysis, ioscout_read::ScanReport, usize)> {
    let (files, input_problems) = input.discover()?;
    if files.is_empty() {
        return Err(input.no_traces(&input_problems));
    }
    let (analysis, report) = match &input.cluster {
        Some(cluster) => ioscout_analysis::analyze_distributed(
            &input.scanner(),
            &files,
            &input_problems,
            options,
            cluster.as_ref(),
        )?,
        None => ioscout_analysis::analyze(&input.scanner(), &files, &input_problems, options)?,
    };
    if analysis.raw.total_event_count == 0 {
        return Err(input.no_events(files.len(), &report));
    }
    Ok((analysis, report, files.len()))
}

/// [`run`], and the Darshan records derived from the same traces in the same pass (in a job of
/// several ranks, derived apart on each rank).
pub fn run_with_records(
    input: &Input,
    options: &AnalysisOptions,
) -> Result<(Analysis, ioscout_read::ScanReport, usize, ioscout_evidence::Derived)> {
    run_with_replay(input, options, ioscout_evidence::Replay::default())
}

/// How many filled units wait for the replay at most: the scan's merge waits when the replay is
/// this far behind, so that units waiting (each holding its packed calls) do not pile up in memory.
const REPLAY_QUEUE: usize = 8;

/// [`run_with_records`] with the records replayed by `replay` (one that keeps a sample of the
/// calls, [`ioscout_evidence::Replay::sampling`], for the report; not kept in a job of several
/// ranks).
///
/// The replay runs on a thread of its own: the scan's merge hands it each filled unit, in file
/// order, through a bounded queue ([`REPLAY_QUEUE`]), and it finishes the records
/// ([`ioscout_evidence::finish`]) while the analysis computes its views. The records are the
/// same as those of a replay on the calling thread (the same units in the same order).
pub fn run_with_replay(
    input: &Input,
    options: &AnalysisOptions,
    replay: ioscout_evidence::Replay,
) -> Result<(Analysis, ioscout_read::ScanReport, usize, ioscout_evidence::Derived)> {
    if input.cluster.is_some() {
        let (analysis, report, count) = run(input, options)?;
        let (derived, _) = crate::evidence::derive(input)?;
        return Ok((analysis, report, count, derived));
    }
    let (files, input_problems) = input.discover()?;
    if files.is_empty() {
        return Err(input.no_traces(&input_problems));
    }
    let scanner = crate::evidence::scanner(input);
    let planned = ioscout_analysis::plan(&scanner, &files, options)?;
    let (analysis, report, derived) = second_pass_with_replay(
        input,
        &scanner,
        (&files, &input_problems),
        &planned,
        replay,
        |_| ioscout_read::NoFold,
        |_, _, _| {},
    );
    if analysis.raw.total_event_count == 0 {
        return Err(input.no_events(files.len(), &report));
    }
    Ok((analysis, report, files.len(), derived))
}

/// The second pass of `planned` over `files` (with the problems met finding them), the records
/// replayed by `replay` on a thread of its own (see [`run_with_replay`]), and another fold filled
/// by the same pass: `make` builds one per unit of a file, `consume` receives each, filled, in
/// file order (as [`ioscout_analysis::analyze_with`] says).
pub(crate) fn second_pass_with_replay<R, M, C>(
    input: &Input,
    scanner: &ioscout_read::Scanner,
    (files, input_problems): (&[ioscout_read::TraceFile], &[ioscout_read::InputProblem]),
    planned: &ioscout_analysis::Planned,
    replay: ioscout_evidence::Replay,
    make: M,
    mut consume: C,
) -> (Analysis, ioscout_read::ScanReport, ioscout_evidence::Derived)
where
    R: ioscout_read::Fold,
    M: Fn(usize) -> R + Sync,
    C: FnMut(usize, R, u64),
{
    // The first pass read every metadata line of the same files: the second leaves them undecoded.
    let mut replay = replay.knowing(planned.prepared().metadata.clone());
    let buffers = replay.buffers();
    let source = crate::evidence::source_of(input);
    std::thread::scope(|scope| {
        let (sender, receiver) =
            std::sync::mpsc::sync_channel::<(usize, ioscout_evidence::EvidenceFold, u64)>(REPLAY_QUEUE);
        let source = &source;
        let replayer = scope.spawn(move || {
            for (index, fold, line_base) in receiver {
                let path = files.get(index).map_or(std::path::Path::new(""), |file| file.path.as_path());
                replay.consume(index, path, fold, line_base);
            }
            ioscout_evidence::finish(replay, files, source)
        });
        let (analysis, report) = planned.second_pass(
            scanner,
            files,
            input_problems,
            |index| ioscout_read::Both { first: buffers.fold(), second: make(index) },
            // A send fails only when the replay has stopped, which its join below reports.
            move |index, both, line_base| {
                let ioscout_read::Both { first: evidence, second: rider } = both;
                let _ = sender.send((index, evidence, line_base));
                consume(index, rider, line_base);
            },
        );
        let derived = replayer.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (analysis, report, derived)
    })
}

/// Analyses `input`: DFAnalyzer's JSON as the value, the summary and breakdown tables as text.
///
/// Unless DFAnalyzer's output is asked for (`dfanalyzer_compat`), the Darshan records derived in
/// the same pass add an `evidence` section (metadata time by operation, the shape of each data
/// class, the access pattern of the files) and its tables.
///
/// Darshan logs get their module breakdown instead ([`crate::darshan::analyze_logs`]).
pub fn analyze(input: &Input, request: &AnalyzeRequest) -> Result<Outcome> {
    if let Some(logs) = crate::darshan_inputs(&input.paths)? {
        return crate::darshan::analyze_logs(&logs, !input.strict);
    }
    Ok(analyze_keeping(input, request)?.0)
}

/// [`analyze`], also returning the analysis (for callers that write its detail tables).
pub fn analyze_keeping(input: &Input, request: &AnalyzeRequest) -> Result<(Outcome, Analysis)> {
    let options = request.options()?;
    if request.dfanalyzer_compat {
        let (analysis, report, file_count) = run(input, &options)?;
        let outcome = outcome(&analysis, report, file_count, true);
        return Ok((outcome, analysis));
    }
    let (analysis, report, file_count, derived) = run_with_records(input, &options)?;
    let by_file = options.views.iter().any(|view| matches!(view, ViewType::FileName));
    let result = AnalyzeResult {
        analysis: ioscout_analysis::output::dfanalyzer(&analysis),
        evidence: Some(crate::evidence::EvidenceSection::of(&derived, if by_file { 1000 } else { 20 })),
    };
    let mut text = ioscout_render::analysis::text(&analysis, false, file_count);
    text.push_str(&ioscout_render::evidence::evidence_text(&derived, if by_file { 20 } else { 0 }));
    Ok((Outcome { report: Some(report), ..Outcome::typed(&result, text) }, analysis))
}

/// An analysis as `analyze --json` writes it and the MCP `analyze` tool returns it:
/// DFAnalyzer's JSON, and what the Darshan records derived in the same pass add.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct AnalyzeResult {
    /// DFAnalyzer's JSON of the analysis (`schema_version`, `raw_stats`, `views`, and the
    /// `ioscout` section).
    #[serde(flatten)]
    pub analysis: ioscout_analysis::output::DfanalyzerOutput,
    /// The evidence of the derived records (absent with `--compat dfanalyzer`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<crate::evidence::EvidenceSection>,
}

/// The outcome of an analysis already run.
pub fn outcome(
    analysis: &Analysis,
    report: ioscout_read::ScanReport,
    file_count: usize,
    dfanalyzer_compat: bool,
) -> Outcome {
    let result = ioscout_analysis::output::dfanalyzer(analysis);
    let text = ioscout_render::analysis::text(analysis, dfanalyzer_compat, file_count);
    Outcome { report: Some(report), ..Outcome::typed(&result, text) }
}
