//! Run directories as the optimisation pipeline lays them out (`<run>/<name>/traces/...`):
//! analyse every trace directory of a run (`session_analyze_traces`), and gather the
//! optimisation context for the layers a run shows (`session_search_optimization_context`:
//! the knowledge base and the citation catalog, searched locally).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use ioscout_analysis::{Analysis, AnalysisOptions, OverlapMode, ViewType};
use serde::Serialize;

use crate::table::Table;
use crate::text::display_path;
use crate::{Input, Outcome, Result, ServiceError};

/// Where a run's traces are: the first of `<run>/<name>/traces/compact[/subpath]`,
/// `<run>/<name>/traces`, `<run>/<name>` and `<run>` that exists.
pub fn trace_root(run_dir: &Path, run_name: &str, subpath: &str) -> PathBuf {
    let named = run_dir.join(run_name);
    let mut compact = named.join("traces").join("compact");
    if !subpath.is_empty() {
        compact = compact.join(subpath);
    }
    [compact, named.join("traces"), named]
        .into_iter()
        .find(|candidate| candidate.is_dir())
        .unwrap_or_else(|| run_dir.to_path_buf())
}

/// The directories under `root` that hold trace files, in order.
pub fn trace_directories(root: &Path) -> Vec<PathBuf> {
    let (files, _) = ioscout_read::discover(&[root]);
    ioscout_query::plan::by_directory(&files).into_keys().collect()
}

/// How much `session_analyze_traces` returns per trace directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    /// Job time, events and the layer breakdown.
    Summary,
    /// DFAnalyzer's whole JSON.
    Detailed,
    /// The share of each layer's time hidden under other work (compute/I-O overlap).
    TimelineOverlap,
}

impl Detail {
    /// Parses `summary`, `detailed` or `timeline_overlap`.
    pub fn parse(name: &str) -> Result<Detail> {
        match name {
            "" | "summary" => Ok(Detail::Summary),
            "detailed" => Ok(Detail::Detailed),
            "timeline_overlap" | "overlap" => Ok(Detail::TimelineOverlap),
            other => Err(ServiceError::BadRequest(format!(
                "unknown query_type {other:?} (known: summary, detailed, timeline_overlap)"
            ))),
        }
    }
}

/// One layer of a trace's busiest view, as [`TraceEntry::layers`] lists it.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct LayerLine {
    /// The layer's name.
    pub layer: String,
    /// Its label.
    pub label: String,
    /// Its time, in seconds.
    pub time_s: f64,
    /// Its calls.
    pub count: u64,
    /// Its bytes, when it moves data.
    pub size_bytes: Option<f64>,
    /// Its bandwidth, bytes per second.
    pub bandwidth_bps: Option<f64>,
    /// Its time not overlapped by compute, in seconds.
    pub unoverlapped_time_s: Option<f64>,
    /// The share of its time hidden behind compute.
    pub overlap_fraction: Option<f64>,
}

/// The layers with calls of the analysis's first view.
fn layers(analysis: &Analysis) -> Vec<LayerLine> {
    let Some(view) = analysis.views.first() else { return Vec::new() };
    view.summary
        .iter()
        .filter(|line| line.count > 0)
        .map(|line| LayerLine {
            layer: line.layer.clone(),
            label: line.label.clone(),
            time_s: line.time_s,
            count: line.count,
            size_bytes: line.size_bytes,
            bandwidth_bps: line.bandwidth_bps,
            unoverlapped_time_s: line.u_time_s,
            overlap_fraction: line.overlap_time(),
        })
        .collect()
}

/// The result of [`analyze_traces`] (the MCP tool `session_analyze_traces`).
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct TracesResult {
    /// `ok`.
    pub status: String,
    /// What was analysed.
    pub message: String,
    /// The run directory.
    pub run_dir: String,
    /// Where its traces were found.
    pub trace_root: String,
    /// One entry per trace directory.
    pub traces: Vec<TraceEntry>,
    /// How long the call waited for the traces to settle (when asked to).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waited_s: Option<f64>,
    /// Whether they settled before the wait's limit (when asked to wait).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub settled: Option<bool>,
}

/// One trace directory of [`TracesResult`].
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct TraceEntry {
    /// The directory.
    pub directory: String,
    /// Trace files read.
    pub files: usize,
    /// The layer preset used.
    pub preset: ioscout_analysis::PresetName,
    /// The job's time, in seconds.
    pub job_time_s: f64,
    /// Events read.
    pub events: u64,
    /// Problems counted.
    pub problems: u64,
    /// The files still being written.
    pub coverage: crate::scan::CoverageSection,
    /// What a followed look read and changed (`follow: true`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub follow: Option<FollowLook>,
    /// The layers (`query_type` summary).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layers: Option<Vec<LayerLine>>,
    /// DFAnalyzer's JSON of the analysis (`query_type` detailed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub analysis: Option<ioscout_analysis::output::DfanalyzerOutput>,
    /// Each layer's share of time hidden behind compute (`query_type` `timeline_overlap`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overlap_fraction: Option<serde_json::Map<String, serde_json::Value>>,
}

/// What one look at a followed trace directory read and changed.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct FollowLook {
    /// The look's number, from 1.
    pub look: u64,
    /// Events added since the last look.
    pub events_added: i64,
    /// Job time added since the last look, in seconds.
    pub job_time_added_s: f64,
    /// What the look read (files unchanged, extended, read whole and folded again; bytes).
    #[serde(flatten)]
    pub reading: ioscout_analysis::follow::Reading,
    /// What the index refresh did.
    pub index: Vec<String>,
}

/// What [`analyze_traces`] analyses and how.
#[derive(Clone, Copy, Debug)]
pub struct TracesRequest<'a> {
    /// The run inside the run directory whose traces to analyse.
    pub run_name: &'a str,
    /// Below `traces/compact`.
    pub subpath: &'a str,
    /// What each trace's entry holds.
    pub detail: Detail,
    /// Layer preset.
    pub preset: ioscout_analysis::PresetName,
    /// How to read.
    pub scan: &'a ioscout_read::ScanOptions,
    /// Wait until the trace files have not changed for this long first.
    pub settle: Option<std::time::Duration>,
    /// Follow the run: analyse each trace from what an earlier call with the same [`Follows`]
    /// read of it, reading only what changed since, and say what changed (`follow`).
    pub follows: Option<&'a Follows>,
}

/// What the calls of [`analyze_traces`] that follow a run still being written keep between
/// them: one [`ioscout_analysis::follow::Follower`] per trace directory and preset (per-file
/// partial results, never events), the [`Follows::MOST`] most recently used.
#[derive(Debug, Default)]
pub struct Follows {
    followed: std::sync::Mutex<BTreeMap<(PathBuf, String), Followed>>,
}

/// One followed trace directory.
#[derive(Debug)]
struct Followed {
    follower: ioscout_analysis::follow::Follower,
    /// Looks so far, and the events and job time of the last.
    looks: u64,
    events: u64,
    job_time_s: f64,
    used: std::time::Instant,
}

impl Follows {
    /// Trace directories followed at most; the least recently used is forgotten past it (the
    /// next call on it reads it whole).
    pub const MOST: usize = 32;

    /// Takes the follower of `key` out (a call on another trace runs meanwhile), or a new one.
    fn take(&self, key: &(PathBuf, String), options: &AnalysisOptions) -> Result<Followed> {
        let kept = self.followed.lock().ok().and_then(|mut followed| followed.remove(key));
        match kept {
            Some(followed) => Ok(followed),
            None => Ok(Followed {
                follower: ioscout_analysis::follow::Follower::new(options)?,
                looks: 0,
                events: 0,
                job_time_s: 0.0,
                used: std::time::Instant::now(),
            }),
        }
    }

    fn put(&self, key: (PathBuf, String), followed: Followed) {
        if let Ok(mut map) = self.followed.lock() {
            map.insert(key, followed);
            while map.len() > Self::MOST {
                let oldest = map.iter().min_by_key(|(_, followed)| followed.used).map(|(key, _)| key.clone());
                match oldest {
                    Some(oldest) => map.remove(&oldest),
                    None => break,
                };
            }
        }
    }
}

/// One look at a followed trace directory: its analysis and scan report (as a cold analysis of
/// the same bytes gives them), its file count, and what the look read and changed (`follow`).
fn follow_look(
    follows: &Follows,
    input: &Input,
    options: &AnalysisOptions,
) -> Result<(Analysis, ioscout_read::ScanReport, usize, FollowLook)> {
    let (files, input_problems) = input.discover()?;
    if files.is_empty() {
        return Err(input.no_traces(&input_problems));
    }
    let directory = input.paths.first().cloned().unwrap_or_default();
    let key = (directory, format!("{:?}", options.preset));
    let mut followed = follows.take(&key, options)?;
    let step = followed.follower.step(&input.scanner(), &files, &input_problems)?;
    let index = crate::index::refresh_after(&files, &step.report, None, input.scan.threads);
    let raw = &step.analysis.raw;
    let reading = step.reading;
    let value = FollowLook {
        look: followed.looks + 1,
        events_added: raw.trace_event_count as i64 - followed.events as i64,
        job_time_added_s: if followed.looks == 0 {
            raw.job_time_s
        } else {
            raw.job_time_s - followed.job_time_s
        },
        reading,
        index,
    };
    followed.looks += 1;
    followed.events = raw.trace_event_count;
    followed.job_time_s = raw.job_time_s;
    followed.used = std::time::Instant::now();
    follows.put(key, followed);
    Ok((step.analysis, step.report, files.len(), value))
}

/// Analyses every trace directory of a run.
pub fn analyze_traces(run_dir: &Path, request: &TracesRequest<'_>) -> Result<Outcome> {
    let TracesRequest { run_name, subpath, detail, preset, scan, settle, follows } = *request;
    if !run_dir.is_dir() {
        return Err(ServiceError::NoInput(format!("{} is not a directory", run_dir.display())));
    }
    let root = trace_root(run_dir, run_name, subpath);
    let directories = trace_directories(&root);
    if directories.is_empty() {
        return Err(ServiceError::NoInput(format!("no trace files under {}", root.display())));
    }
    let options = AnalysisOptions {
        preset,
        views: vec![ViewType::TimeRange],
        overlap: OverlapMode::Exact,
        ..AnalysisOptions::default()
    };
    let mut traces = Vec::new();
    let mut table = Table::new(
        &format!("Traces of {} ({})", display_path(run_dir), directories.len()),
        &["Directory", "Preset", "Job (s)", "Events", "Busiest layer", "Time (s)", "Hidden"],
        &[false, false, true, true, false, true, true],
    );
    let mut warnings = Vec::new();
    let waited = settle.map(|settle| wait_to_settle(&directories, settle));
    for directory in &directories {
        let input =
            Input { paths: vec![directory.clone()], strict: false, scan: scan.clone(), cluster: None };
        let (analysis, report, files, look) = if let Some(follows) = follows {
            let (analysis, report, files, look) = follow_look(follows, &input, &options)?;
            (analysis, report, files, Some(look))
        } else {
            let (analysis, report, files) = crate::analyze::run(&input, &options)?;
            (analysis, report, files, None)
        };
        let coverage = report.coverage(std::time::SystemTime::now(), ioscout_read::SETTLE);
        let bad_input = report.bad_input_count(&coverage);
        if bad_input > 0 {
            warnings.push(format!(
                "{}: {} skipped",
                display_path(directory),
                crate::text::count_of(bad_input, "problem", "problems")
            ));
        }
        table.row(trace_row(directory, &analysis));
        traces.push(trace_entry(directory, files, &analysis, &report, &coverage, look, detail));
    }
    let result = TracesResult {
        status: "ok".into(),
        message: format!("analysed {} trace directories under {}", directories.len(), display_path(&root)),
        run_dir: display_path(run_dir),
        trace_root: display_path(&root),
        traces,
        waited_s: waited.map(|(waited, _)| waited.as_secs_f64()),
        settled: waited.map(|(_, settled)| settled),
    };
    let mut outcome = Outcome::typed(&result, table.render());
    outcome.warnings = warnings;
    Ok(outcome)
}

/// A trace directory's row of the text table: its job, events, busiest layer and how much of
/// that layer's time is hidden behind compute.
fn trace_row(directory: &Path, analysis: &ioscout_analysis::Analysis) -> Vec<String> {
    let busiest = analysis.views.first().and_then(|view| {
        view.summary.iter().filter(|line| line.count > 0).max_by(|a, b| a.time_s.total_cmp(&b.time_s))
    });
    vec![
        display_path(directory),
        analysis.preset.name.to_string(),
        format!("{:.3}", analysis.raw.job_time_s),
        crate::text::thousands(analysis.raw.trace_event_count),
        busiest.map_or_else(|| "-".into(), |line| line.label.clone()),
        busiest.map_or_else(|| "-".into(), |line| format!("{:.3}", line.time_s)),
        busiest
            .and_then(ioscout_analysis::LayerSummary::overlap_time)
            .map_or_else(|| "-".into(), |share| format!("{:.0} %", share * 100.0)),
    ]
}

/// A trace directory's entry, with the layers as `detail` asks.
fn trace_entry(
    directory: &Path,
    files: usize,
    analysis: &ioscout_analysis::Analysis,
    report: &ioscout_read::ScanReport,
    coverage: &ioscout_read::Coverage,
    follow: Option<FollowLook>,
    detail: Detail,
) -> TraceEntry {
    let mut entry = TraceEntry {
        directory: display_path(directory),
        files,
        preset: analysis.preset.name,
        job_time_s: analysis.raw.job_time_s,
        events: analysis.raw.trace_event_count,
        problems: report.problem_count(),
        coverage: crate::scan::CoverageSection::of(coverage),
        follow,
        layers: None,
        analysis: None,
        overlap_fraction: None,
    };
    match detail {
        Detail::Summary => entry.layers = Some(layers(analysis)),
        Detail::Detailed => entry.analysis = Some(ioscout_analysis::output::dfanalyzer(analysis)),
        Detail::TimelineOverlap => {
            entry.overlap_fraction = Some(
                layers(analysis)
                    .into_iter()
                    // A share that is not a number is null in the layers and left out here.
                    .filter_map(|layer| {
                        let share = layer.overlap_fraction.filter(|share| share.is_finite())?;
                        Some((layer.layer, serde_json::Value::from(share)))
                    })
                    .collect(),
            );
        }
    }
    entry
}

/// The catalog's techniques that answer one of the findings `codes`, scored by the strongest
/// finding they answer.
fn catalog_opportunities(
    catalog: &ioscout_advise::Catalog,
    measurements: &ioscout_advise::Measurements,
    codes: &BTreeSet<&str>,
) -> Vec<Opportunity> {
    let mut opportunities = Vec::new();
    for strategy in &catalog.strategies {
        let answered: Vec<&String> =
            strategy.answers.iter().filter(|code| codes.contains(code.as_str())).collect();
        if answered.is_empty() {
            continue;
        }
        let citation = catalog.citation(strategy);
        let finding_score = measurements
            .findings
            .iter()
            .filter(|finding| answered.iter().any(|code| *code == finding.code))
            .map(|finding| finding.score)
            .fold(0.0_f64, f64::max);
        opportunities.push(Opportunity {
            component: strategy.layer.clone(),
            answers: answered.into_iter().cloned().collect(),
            metric_scope: if strategy.layer == "L3" { "system" } else { "app" },
            query_class: "opportunity",
            source: "catalog",
            id: strategy.id.clone(),
            title: strategy.name.clone(),
            url: citation.and_then(ioscout_advise::Citation::link),
            score: finding_score,
            snippet: strategy.change.clone(),
            citation: citation.map(|citation| {
                format!(
                    "{}, \"{}\", {} {}",
                    citation.authors,
                    citation.title,
                    citation.venue.clone().unwrap_or_default(),
                    citation.year.map(|year| year.to_string()).unwrap_or_default()
                )
            }),
        });
    }
    opportunities
}

/// What the knowledge base at `path` measured for this system and workload (and metric scope,
/// when given).
fn knowledge_base_targets(
    path: &Path,
    system: &str,
    workload: &str,
    metric_scope: &str,
) -> Result<Vec<Target>> {
    let (entries, _) = ioscout_advise::kb::read(path)?;
    let mut targets = Vec::new();
    for found in ioscout_advise::kb::lookup(
        &entries,
        Some(system).filter(|text| !text.is_empty()),
        Some(workload).filter(|text| !text.is_empty()),
        None,
    ) {
        if !metric_scope.is_empty() && found.entry.input.metric_scope.name() != metric_scope {
            continue;
        }
        targets.push(Target {
            source: "knowledge_base",
            query_class: "target",
            change: found.entry.input.change,
            metric: found.entry.input.metric,
            delta_pct: found.entry.delta_pct,
            verdict: found.entry.verdict,
            citation: found.entry.input.citation,
            relevance: found.relevance,
        });
    }
    Ok(targets)
}

/// The optimisation context of a run: for each layer its traces show and each finding raised,
/// the knowledge-base entries and catalog techniques (with their citations) that apply; written
/// to `<run>/context_opportunities.json` unless `write` is false.
pub fn search_context(
    run_dir: &Path,
    kb_path: Option<&Path>,
    system: &str,
    workload: &str,
    metric_scope: &str,
    write: bool,
) -> Result<Outcome> {
    if !run_dir.is_dir() {
        return Err(ServiceError::NoInput(format!("{} is not a directory", run_dir.display())));
    }
    let root = trace_root(run_dir, "baseline", "");
    let input = Input::of(vec![root.clone()]);
    let (analysis, _, _, derived) = crate::analyze::run_with_records(
        &input,
        &AnalysisOptions {
            views: vec![ViewType::TimeRange],
            file_totals: true,
            overlap: OverlapMode::Exact,
            ..AnalysisOptions::default()
        },
    )?;
    let mut measurements = ioscout_advise::Measurements::from_analysis(
        &analysis,
        ioscout_diagnose::Parameters::default(),
        Some(&derived),
    );
    measurements.detect(&crate::detect::load(None)?);
    let components: Vec<String> = analysis
        .views
        .first()
        .map(|view| {
            view.summary.iter().filter(|line| line.count > 0).map(|line| line.layer.clone()).collect()
        })
        .unwrap_or_default();
    let codes: BTreeSet<&str> = measurements.findings.iter().map(|finding| finding.code).collect();
    let catalog = ioscout_advise::Catalog::bundled()?;
    let mut opportunities = catalog_opportunities(&catalog, &measurements, &codes);
    let mut benchmark_targets = match kb_path {
        Some(path) => knowledge_base_targets(path, system, workload, metric_scope)?,
        None => Vec::new(),
    };
    opportunities.sort_by(|a, b| b.score.total_cmp(&a.score));
    opportunities.truncate(30);
    benchmark_targets.truncate(15);
    let mut text = format!(
        "{} layers, {} findings, {} catalog opportunities, {} measured results in the knowledge base\n",
        components.len(),
        codes.len(),
        opportunities.len(),
        benchmark_targets.len()
    );
    for opportunity in &opportunities {
        let _ = writeln!(
            text,
            "  [{}] {} (answers {})",
            opportunity.component,
            opportunity.title,
            crate::to_json(&opportunity.answers)
        );
    }
    let result = ContextResult {
        status: "ok",
        run_dir: display_path(run_dir),
        components_searched: components,
        findings: codes.into_iter().map(str::to_string).collect(),
        remote_fetched_for: Vec::new(),
        opportunities,
        benchmark_targets,
    };
    if write {
        let path = run_dir.join("context_opportunities.json");
        let body =
            serde_json::to_string_pretty(&result).map_err(|error| ServiceError::output("context", error))?;
        std::fs::write(&path, body).map_err(|error| ServiceError::io(&path, error))?;
    }
    Ok(Outcome::typed(&result, text))
}

/// A run's optimisation context: what its traces show, the findings, and the catalog techniques
/// and measured results that apply (`session_search_optimization_context`).
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ContextResult {
    /// Always `ok`.
    pub status: &'static str,
    /// The run directory.
    pub run_dir: String,
    /// The layers with events in the baseline's traces.
    pub components_searched: Vec<String>,
    /// The codes of the findings raised, in order.
    pub findings: Vec<String>,
    /// Always empty: nothing is fetched from remote sources.
    pub remote_fetched_for: Vec<String>,
    /// The catalog's techniques that answer a finding, strongest finding first (at most 30).
    pub opportunities: Vec<Opportunity>,
    /// What the knowledge base measured for this system and workload (at most 15).
    pub benchmark_targets: Vec<Target>,
}

/// A catalog technique that answers some of a run's findings.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Opportunity {
    /// The layer it changes (`L1`, `L2`, `L3`).
    pub component: String,
    /// The findings it answers.
    pub answers: Vec<String>,
    /// `system` for a system-level change, else `app`.
    pub metric_scope: &'static str,
    /// Always `opportunity`.
    pub query_class: &'static str,
    /// Always `catalog`.
    pub source: &'static str,
    /// The strategy's id.
    pub id: String,
    /// The strategy's name.
    pub title: String,
    /// A link to its citation, when there is one.
    pub url: Option<String>,
    /// The score of the strongest finding it answers.
    pub score: f64,
    /// The change to make.
    pub snippet: String,
    /// Its citation in one line.
    pub citation: Option<String>,
}

/// A measured result of the knowledge base that applies to a run.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Target {
    /// Always `knowledge_base`.
    pub source: &'static str,
    /// Always `target`.
    pub query_class: &'static str,
    /// The change measured.
    pub change: String,
    /// The metric.
    pub metric: String,
    /// The change in the metric, in percent.
    pub delta_pct: Option<f64>,
    /// The verdict.
    pub verdict: ioscout_advise::kb::Verdict,
    /// Where the technique is documented.
    pub citation: String,
    /// How well the entry matches the system and workload.
    pub relevance: i64,
}

/// The longest [`wait_to_settle`] waits (the MCP tool's own time limit is five minutes).
const LONGEST_WAIT: std::time::Duration = std::time::Duration::from_mins(4);

/// Waits until the trace files under `directories` have not changed (size or modification time)
/// for `settle`, or [`LONGEST_WAIT`] has passed ([`ioscout_read::wait_for_change`], the loop
/// `analyze --follow` waits with); how long it waited, and whether they settled.
fn wait_to_settle(directories: &[PathBuf], settle: std::time::Duration) -> (std::time::Duration, bool) {
    let started = std::time::Instant::now();
    let watch = ioscout_read::Watch {
        settle,
        poll: (settle / 4).clamp(std::time::Duration::from_millis(50), std::time::Duration::from_secs(1)),
        may_settle: true,
        deadline: Some(started + LONGEST_WAIT),
    };
    let mut last = ioscout_read::snapshot(directories);
    loop {
        match ioscout_read::wait_for_change(directories, &last, watch) {
            ioscout_read::Waited::Changed(now) => last = now,
            ioscout_read::Waited::Settled => return (started.elapsed(), true),
            ioscout_read::Waited::TimedOut => return (started.elapsed(), false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trace_root_prefers_the_compact_traces_of_the_named_run() {
        let run = std::env::temp_dir().join(format!("ioscout-session-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&run);
        let _ = std::fs::create_dir_all(run.join("baseline/traces/compact/rank0"));
        assert_eq!(trace_root(&run, "baseline", ""), run.join("baseline/traces/compact"));
        assert_eq!(trace_root(&run, "baseline", "rank0"), run.join("baseline/traces/compact/rank0"));
        assert_eq!(trace_root(&run, "baseline", "missing"), run.join("baseline/traces"));
        assert_eq!(trace_root(&run, "opt1", ""), run);
        let _ = std::fs::remove_dir_all(&run);
    }

    #[test]
    fn query_types_parse_and_others_are_refused() {
        assert_eq!(Detail::parse("summary").ok(), Some(Detail::Summary));
        assert_eq!(Detail::parse("timeline_overlap").ok(), Some(Detail::TimelineOverlap));
        assert!(Detail::parse("everything").is_err());
    }
}
