//! Run comparison (`ioscout compare`, the MCP tool `comparator`, `ioscout.compare`): two or more
//! runs (trace directories or Darshan logs, given as paths, globs or a manifest with labels)
//! against one baseline, layer by layer, with the doing-less guard per run, sorted by a metric;
//! as text, JSON, CSV, or an HTML page of small multiples. The comparing itself is
//! `ioscout_advise::compare::compare_runs`; this module reads the runs and renders the result.

use std::path::{Path, PathBuf};

use ioscout_advise::compare::{Campaign, RunSummary, SortMetric};
use ioscout_analysis::PresetName;
use serde::Deserialize;

use crate::advise::{Run, load};
use crate::text::display_path;
use crate::{Input, Outcome, Result, ServiceError};

/// One run to compare: where it is and what to call it.
#[derive(Clone, Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunSpec {
    /// The run's label in every output (default: the shortest suffix of its path that no other
    /// run's path ends with; a repeated label gets ` (2)`, ` (3)`, ...).
    #[serde(default)]
    pub label: Option<String>,
    /// A trace directory or file, or a Darshan log.
    pub path: PathBuf,
}

/// A comparison of two or more runs.
#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
pub struct CompareRequest {
    /// The runs, two or more, all traces or all Darshan logs.
    pub runs: Vec<RunSpec>,
    /// The label of the run the others are compared with (default: the first).
    #[serde(default)]
    pub baseline: Option<String>,
    /// How to order the runs and read traces.
    #[serde(flatten)]
    pub options: CompareOptions,
}

/// How compared runs are ordered and traces read (the MCP tool `comparator` takes these beside
/// its paths).
#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
pub struct CompareOptions {
    /// What the runs are sorted by, best first (default: the order given).
    #[serde(default)]
    pub sort: SortMetric,
    /// The layer `time`, `operations`, `bytes` and `bandwidth` are taken from (default: the
    /// baseline's first layer).
    #[serde(default)]
    pub sort_layer: Option<String>,
    /// Reverse the order (worst first).
    #[serde(default)]
    pub reverse: bool,
    /// Layer preset for traces.
    #[serde(default)]
    pub preset: PresetName,
}

/// A manifest of runs (TOML): an optional `baseline` label and `[[run]]` tables with `path`
/// (relative to the manifest's folder) and an optional `label`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    #[serde(default)]
    baseline: Option<String>,
    #[serde(default)]
    run: Vec<RunSpec>,
}

/// The runs and baseline a manifest file lists.
pub fn manifest(path: &Path) -> Result<(Vec<RunSpec>, Option<String>)> {
    let text = std::fs::read_to_string(path).map_err(|error| ServiceError::io(path, error))?;
    let parsed: Manifest = toml::from_str(&text).map_err(|error| {
        ServiceError::BadRequest(format!(
            "{}: not a manifest of runs ({}); write `[[run]]` tables with `path` and `label`",
            display_path(path),
            error.to_string().trim_end()
        ))
    })?;
    let folder = path.parent().unwrap_or(Path::new("."));
    let runs = parsed
        .run
        .into_iter()
        .map(|run| RunSpec {
            path: if run.path.is_absolute() { run.path } else { folder.join(&run.path) },
            ..run
        })
        .collect();
    Ok((runs, parsed.baseline))
}

/// The runs named on a command line: each an existing path, or a glob (`runs/opt*`) expanded to
/// its matches in sorted order. A glob that matches nothing is an error.
pub fn runs_of_arguments(arguments: &[String]) -> Result<Vec<RunSpec>> {
    let mut runs = Vec::new();
    for argument in arguments {
        let path = PathBuf::from(argument);
        if path.exists() || !argument.contains(['*', '?', '[']) {
            runs.push(RunSpec { label: None, path });
            continue;
        }
        let pattern = glob::glob(argument)
            .map_err(|error| ServiceError::BadRequest(format!("{argument}: not a glob pattern ({error})")))?;
        let mut matched: Vec<PathBuf> = pattern.filter_map(std::result::Result::ok).collect();
        matched.sort();
        if matched.is_empty() {
            return Err(ServiceError::BadRequest(format!("{argument}: no run matches this pattern")));
        }
        runs.extend(matched.into_iter().map(|path| RunSpec { label: None, path }));
    }
    Ok(runs)
}

/// One run as read: its label, path, kind, summary and (for traces) what the scan read.
struct ReadRun {
    label: String,
    path: PathBuf,
    darshan: bool,
    summary: RunSummary,
    scan: Option<ioscout_read::ScanReport>,
}

/// Reads one run; a run with nothing readable (an empty file, a trace of garbage, a log without
/// a module read) is an error, never an empty run that compares as "same".
fn read_run(label: String, path: &Path, preset: PresetName) -> Result<ReadRun> {
    let nothing = |what: &str| ServiceError::BadRequest(format!("{}: {what}", display_path(path)));
    let (run, scan) = load(&Input::of(vec![path.to_path_buf()]), preset)?;
    let (darshan, summary) = match run {
        Run::Trace(analysis, _) => {
            if let Some(scan) = &scan
                && scan.totals().events() == 0
            {
                return Err(nothing(&format!(
                    "no event could be read ({} problems): nothing to compare",
                    scan.problem_count()
                )));
            }
            (false, RunSummary::from_analysis(&analysis))
        }
        Run::Darshan(log) => {
            if log.modules.iter().all(|module| !module.has_data()) {
                return Err(nothing("no module of the Darshan log could be read: nothing to compare"));
            }
            (true, RunSummary::from_darshan(&log))
        }
    };
    Ok(ReadRun { label, path: path.to_path_buf(), darshan, summary, scan })
}

/// What each run is called before numbering: its own label, or the shortest suffix of its path
/// (in whole components) that no other run's path ends with (`threads_4` for
/// `sweep/threads_4`); the same path given twice keeps its last component.
fn wanted_labels(runs: &[RunSpec]) -> Vec<String> {
    let paths: Vec<String> = runs.iter().map(|run| display_path(&run.path)).collect();
    let parts = |path: &str| -> Vec<String> {
        path.split('/').filter(|part| !part.is_empty() && *part != ".").map(str::to_string).collect()
    };
    let split: Vec<Vec<String>> = paths.iter().map(|path| parts(path)).collect();
    runs.iter()
        .enumerate()
        .map(|(index, run)| {
            if let Some(label) = &run.label {
                return label.clone();
            }
            let own = &split[index];
            for length in 1..=own.len() {
                let suffix = &own[own.len() - length..];
                let clash = split.iter().enumerate().any(|(other, theirs)| {
                    other != index
                        && paths[other] != paths[index]
                        && theirs.len() >= length
                        && theirs[theirs.len() - length..] == *suffix
                });
                if !clash {
                    return suffix.join("/");
                }
            }
            paths[index].clone()
        })
        .collect()
}

/// Labels for the runs: [`wanted_labels`], a repeated one numbered.
fn labels(runs: &[RunSpec]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(runs.len());
    for wanted in wanted_labels(runs) {
        let mut label = wanted.clone();
        let mut number = 1;
        while out.contains(&label) {
            number += 1;
            label = format!("{wanted} ({number})");
        }
        out.push(label);
    }
    out
}

/// A comparison as every output needs it.
pub struct Compared {
    /// The comparison (text and JSON; warnings from the scans).
    pub outcome: Outcome,
    /// The campaign itself, for the CSV and HTML renderings.
    pub campaign: Campaign,
    /// Each run's label, path as shown, and kind (`trace` or `darshan`), in the order given.
    pub names: Vec<(String, String, &'static str)>,
}

impl Compared {
    /// The path and kind of the run labelled `label`.
    /// Each run's label, path and kind, as the render crate names them.
    fn run_names(&self) -> Vec<ioscout_render::campaign::RunName<'_>> {
        self.names
            .iter()
            .map(|(label, path, kind)| ioscout_render::campaign::RunName { label, path, kind })
            .collect()
    }
}

/// Compares the runs of `request` (two or more, of one kind) with its baseline.
pub fn compare_runs(request: &CompareRequest) -> Result<Compared> {
    if request.runs.len() < 2 {
        return Err(ServiceError::BadRequest(format!(
            "compare needs two or more runs; got {} (name them, give a glob, or a manifest)",
            request.runs.len()
        )));
    }
    let labels = labels(&request.runs);
    let baseline = match &request.baseline {
        None => 0,
        // A run's path as given names it too.
        Some(wanted) => labels
            .iter()
            .zip(&request.runs)
            .position(|(label, run)| label == wanted || display_path(&run.path) == *wanted)
            .ok_or_else(|| {
                ServiceError::BadRequest(format!(
                    "no run is labelled {wanted:?}; the labels are {}",
                    labels.join(", ")
                ))
            })?,
    };
    let mut runs = Vec::with_capacity(request.runs.len());
    for (spec, label) in request.runs.iter().zip(&labels) {
        runs.push(read_run(label.clone(), &spec.path, request.options.preset)?);
    }
    let kind = |darshan: bool| if darshan { "a Darshan log" } else { "a DFTracer trace" };
    if let Some(odd) = runs.iter().find(|run| run.darshan != runs[0].darshan) {
        return Err(ServiceError::BadRequest(format!(
            "{} is {} and {} is {}: trace layers and Darshan modules do not line up; compare traces with traces and logs with logs",
            display_path(&runs[0].path),
            kind(runs[0].darshan),
            display_path(&odd.path),
            kind(odd.darshan)
        )));
    }
    let summaries: Vec<(String, RunSummary)> =
        runs.iter().map(|run| (run.label.clone(), run.summary.clone())).collect();
    let campaign = ioscout_advise::compare::compare_runs(
        &summaries,
        baseline,
        request.options.sort,
        request.options.sort_layer.as_deref(),
        request.options.reverse,
    );
    if let Some(layer) = &request.options.sort_layer
        && !campaign.layers.contains(layer)
    {
        return Err(ServiceError::BadRequest(format!(
            "no run has a layer {layer:?}; the layers are {}",
            campaign.layers.join(", ")
        )));
    }
    let (run_results, warnings) = run_results(&campaign, &runs);
    let mut result = CompareResult {
        baseline: &campaign.baseline,
        sort: campaign.sort,
        sort_layer: campaign.sort_layer.as_deref(),
        reverse: campaign.reverse,
        layers: &campaign.layers,
        runs: run_results,
        doing_less: &campaign.doing_less,
        replicates: None,
    };
    let mut text = ioscout_render::campaign::text(&campaign);
    if runs[0].darshan {
        text.push_str(
            "Darshan modules: Time is the slowest rank's I/O time (Darshan's agg_time_by_slowest), not the sum over processes; Bandwidth is the bytes over it; Ops are reads and writes\n",
        );
    }
    // Runs given the same label are replicates of one configuration: medians and their spread.
    let mut groups: Vec<(String, Vec<f64>)> = Vec::new();
    let wanted_of = wanted_labels(&request.runs);
    for (wanted, run) in wanted_of.iter().cloned().zip(&runs) {
        match groups.iter_mut().find(|(label, _)| *label == wanted) {
            Some((_, times)) => times.push(run.summary.job_time_s),
            None => groups.push((wanted, vec![run.summary.job_time_s])),
        }
    }
    if groups.iter().any(|(_, times)| times.len() > 1) {
        let baseline_label = wanted_of[baseline].clone();
        let found = ioscout_advise::compare::replicates(&groups, &baseline_label, REPLICATE_MARGIN);
        text.push_str(&ioscout_render::campaign::replicates_text(&found, !runs[0].darshan));
        result.replicates = Some(found);
    }
    let value = crate::to_json(&result);
    let names = runs
        .iter()
        .map(|run| {
            (run.label.clone(), display_path(&run.path), if run.darshan { "darshan" } else { "trace" })
        })
        .collect();
    Ok(Compared { outcome: Outcome { warnings, ..Outcome::new(value, text) }, campaign, names })
}

/// Each run of `campaign` with the path, kind and scan of the run read under its label, and
/// the scans' problems as warnings.
fn run_results<'a>(campaign: &'a Campaign, runs: &[ReadRun]) -> (Vec<RunResult<'a>>, Vec<String>) {
    let mut warnings = Vec::new();
    let mut run_results = Vec::with_capacity(campaign.runs.len());
    for line in &campaign.runs {
        let read = runs.iter().find(|run| run.label == line.label);
        if let Some(run) = read
            && let Some(scan) = &run.scan
        {
            warnings.extend(scan.problems().map(|problem| format!("{}: {problem}", display_path(&run.path))));
        }
        run_results.push(RunResult {
            run: line,
            path: read.map(|run| display_path(&run.path)),
            kind: read.map(|run| if run.darshan { "darshan" } else { "trace" }),
            scan: read.and_then(|run| run.scan.as_ref()).map(crate::scan::ScanSection::of),
        });
    }
    (run_results, warnings)
}

/// A comparison of runs as `compare --json` writes it and the MCP `comparator` tool returns it:
/// the campaign, each run with its path, kind and scan report, and the replicates' medians.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct CompareResult<'a> {
    /// The baseline's label.
    pub baseline: &'a str,
    /// What the runs are sorted by.
    pub sort: ioscout_advise::compare::SortMetric,
    /// The layer sorted on, when one.
    pub sort_layer: Option<&'a str>,
    /// Whether the order is reversed.
    pub reverse: bool,
    /// Every layer of any run.
    pub layers: &'a [String],
    /// Each run against the baseline.
    pub runs: Vec<RunResult<'a>>,
    /// Runs that did less work than the baseline (their speedup is not credited).
    pub doing_less: &'a [String],
    /// Medians and spread of the runs given the same label (absent without replicates).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replicates: Option<Vec<ioscout_advise::compare::Replicates>>,
}

/// One run of a [`CompareResult`].
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct RunResult<'a> {
    /// The run against the baseline.
    #[serde(flatten)]
    pub run: &'a ioscout_advise::compare::CampaignRun,
    /// Its path as shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// `trace` or `darshan`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<&'static str>,
    /// What the scan of a trace read and could not (absent for a log).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scan: Option<crate::scan::ScanSection>,
}

/// Changes within this share of the baseline's median are noise for replicates.
const REPLICATE_MARGIN: f64 = 0.03;

/// The comparison as CSV: one row per run and layer (every layer of the campaign), in the
/// campaign's order.
pub fn csv(compared: &Compared) -> String {
    ioscout_render::campaign::csv(&compared.campaign, &compared.run_names())
}

/// Writes the comparison's HTML page of small multiples to `path`; returns the charts drawn.
pub fn write_html(compared: &Compared, path: &Path) -> Result<usize> {
    let (html, charts) = ioscout_render::campaign::page(&compared.campaign, &compared.run_names());
    std::fs::write(path, html).map_err(|error| ServiceError::io(path, error))?;
    Ok(charts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(path: &str, label: Option<&str>) -> RunSpec {
        RunSpec { label: label.map(str::to_string), path: PathBuf::from(path) }
    }

    /// Default labels are the shortest path suffix that tells a run apart; a given label wins;
    /// the same path twice is numbered.
    #[test]
    fn runs_are_labelled_by_their_shortest_distinct_path_suffix() {
        let runs = [
            spec("/scratch/sweep/a/run1/trace", None),
            spec("/scratch/sweep/b/run1/trace", None),
            spec("/scratch/sweep/threads_4", None),
            spec("/scratch/other", Some("mine")),
            spec("/scratch/sweep/threads_4", None),
        ];
        assert_eq!(labels(&runs), ["a/run1/trace", "b/run1/trace", "threads_4", "mine", "threads_4 (2)"]);
    }

    /// The result restates the campaign: every field the campaign serialises is in the JSON
    /// with the same value (runs aside, which gain a path, a kind and a scan), so a field added
    /// to the campaign and not to the result fails here.
    #[test]
    fn the_result_carries_every_field_of_the_campaign() {
        let repository = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
        let request = CompareRequest {
            runs: vec![
                RunSpec { label: None, path: repository.join("testdata/validation/dlio_read_threads_1") },
                RunSpec { label: None, path: repository.join("testdata/validation/dlio_read_threads_4") },
            ],
            baseline: None,
            options: CompareOptions::default(),
        };
        let compared = match compare_runs(&request) {
            Ok(compared) => compared,
            Err(error) => panic!("compare: {error}"),
        };
        let campaign = crate::to_json(&compared.campaign);
        let Some(fields) = campaign.as_object() else { panic!("{campaign}") };
        for (key, value) in fields {
            if key == "runs" {
                continue;
            }
            assert_eq!(compared.outcome.value.get(key), Some(value), "{key}");
        }
        let runs = compared.outcome.value["runs"].as_array().cloned().unwrap_or_default();
        assert_eq!(runs.len(), 2);
        for (line, run) in runs.iter().zip(&compared.campaign.runs) {
            for (key, value) in crate::to_json(run).as_object().into_iter().flatten() {
                assert_eq!(line.get(key), Some(value), "{key}");
            }
            assert_eq!(line["kind"], "trace");
            assert_eq!(line["scan"]["complete"], true);
        }
    }
}
