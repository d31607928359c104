//! Advice (`ioscout advise`, the MCP tools `advise` and `opt_proposal_table`; runs are compared
//! in [`crate::compare`]), the knowledge base (`ioscout kb`, `opt_kb_record`,
//! `opt_kb_lookup`, `opt_kb_render`) and the run-directory layout (`ioscout runs`,
//! `session_validate_structure`, `session_reorganize_structure`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use ioscout_advise::proposal_table::{self, ProposedRow};
use ioscout_advise::{Advice, Catalog, FsType, Measurements, artifacts, kb};
use ioscout_analysis::{AnalysisOptions, OverlapMode, ViewType};
use ioscout_darshan::DarshanLog;
use serde::{Deserialize, Serialize};

use crate::text::display_path;
use crate::{Input, Outcome, Result, ServiceError};

/// A run to advise on or compare: a trace analysis or a Darshan log.
pub enum Run {
    /// A trace, analysed, with the Darshan records derived from it.
    Trace(Box<ioscout_analysis::Analysis>, Box<ioscout_evidence::Derived>),
    /// A Darshan log.
    Darshan(Box<DarshanLog>),
}

/// Reads one run: a Darshan log, or the traces of `input` analysed with `preset`.
pub fn load(
    input: &Input,
    preset: ioscout_analysis::PresetName,
) -> Result<(Run, Option<ioscout_read::ScanReport>)> {
    if let Some(logs) = crate::darshan_inputs(&input.paths)? {
        if logs.len() != 1 {
            return Err(ServiceError::BadRequest(format!(
                "give one Darshan log (a run) at a time; got {}",
                logs.len()
            )));
        }
        let log = crate::darshan::read(&logs[0], !input.strict)?;
        return Ok((Run::Darshan(Box::new(log)), None));
    }
    let options = AnalysisOptions {
        preset,
        views: vec![ViewType::TimeRange],
        file_totals: true,
        overlap: OverlapMode::Exact,
        ..AnalysisOptions::default()
    };
    let (analysis, report, _, derived) = crate::analyze::run_with_records(input, &options)?;
    Ok((Run::Trace(Box::new(analysis), Box::new(derived)), Some(report)))
}

/// What to advise on. Also the parameters of the MCP `advise` tool (beside its `trace_path`; the
/// tool resolves the paths under its roots and uses its own knowledge base).
#[derive(Clone, Debug, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct AdviseRequest {
    /// Layer preset for traces: auto, posix, dlio, dlio-prev, generic.
    pub preset: ioscout_analysis::PresetName,
    /// File system, overriding detection: lustre, gpfs, beegfs, nfs, vast, daos, xfs, ext4,
    /// tmpfs, other.
    pub fs_type: Option<String>,
    /// Write the opt<n>/ artifacts under this run directory.
    pub run_dir: Option<PathBuf>,
    /// Knowledge base to mark measured dimensions from.
    #[serde(skip)]
    pub kb: Option<PathBuf>,
    /// System name for the knowledge-base lookup.
    pub system: Option<String>,
    /// Workload name for the knowledge-base lookup.
    pub workload: Option<String>,
    /// Which decides the run's patterns (`both`: proposals answer only what the learned
    /// detector confirms or finds).
    pub detector: crate::diagnose::Detector,
    /// The detector's model file (`None`: the built-in).
    pub model: Option<PathBuf>,
}

fn warnings_of(path: &Path, skipped: &[(usize, String)]) -> Vec<String> {
    skipped
        .iter()
        .map(|(line, reason)| format!("{}:{line}: skipped an unreadable entry ({reason})", path.display()))
        .collect()
}

/// The typed advice for one run, the metric to optimise, the scan's report and warnings: what
/// [`advise`] renders and `optimize` measures.
pub struct Computed {
    /// The advice.
    pub advice: Advice,
    /// The metric to optimise.
    pub metric: ioscout_diagnose::Dimension,
    /// The scan's report when traces were read.
    pub report: Option<ioscout_read::ScanReport>,
    /// Unreadable knowledge-base entries.
    pub warnings: Vec<String>,
}

/// The checklist verdicts and the ranked, cited proposals for one run.
pub fn advise(input: &Input, request: &AdviseRequest) -> Result<Outcome> {
    let Computed { advice, metric, report, warnings } = compute(input, request)?;
    let written = match &request.run_dir {
        Some(directory) => Some(
            artifacts::write(directory, &advice, metric)
                .map_err(|error| ServiceError::io(directory, error))?,
        ),
        None => None,
    };
    let mut text = ioscout_render::advice::text(&advice, metric);
    if let Some(directory) = &written {
        let _ = writeln!(text, "Artifacts: {}", display_path(directory));
    }
    let result =
        AdviseResult { advice, metric_to_optimise: metric, artifacts: written.as_deref().map(display_path) };
    Ok(Outcome { report, warnings, ..Outcome::typed(&result, text) })
}

/// The advice for one run as `advise --json` writes it and the MCP `advise` tool returns it.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct AdviseResult {
    /// The checklist verdicts and the ranked, cited proposals.
    #[serde(flatten)]
    pub advice: Advice,
    /// The metric the proposals are ranked by.
    pub metric_to_optimise: ioscout_diagnose::Dimension,
    /// The run directory the artifacts were written to (absent when none was asked for).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub artifacts: Option<String>,
}

/// The advice for one run, typed (see [`advise`]).
pub fn compute(input: &Input, request: &AdviseRequest) -> Result<Computed> {
    let catalog = Catalog::bundled()?;
    let user_fs = match &request.fs_type {
        Some(name) => Some(FsType::parse(name).ok_or_else(|| {
            ServiceError::BadRequest(format!(
                "unknown file-system type {name:?} (known: lustre, gpfs, beegfs, nfs, vast, daos, xfs, ext4, tmpfs, other)"
            ))
        })?),
        None => None,
    };
    let (run, report) = load(input, request.preset)?;
    let mut measurements = match run {
        Run::Trace(analysis, derived) => {
            Measurements::from_analysis(&analysis, ioscout_diagnose::Parameters::default(), Some(&derived))
        }
        Run::Darshan(log) => {
            Measurements::from_darshan(&log, ioscout_diagnose::darshan::DrishtiThresholds::default())
        }
    };
    if request.detector.uses_model() {
        measurements.detect(&crate::detect::load(request.model.as_deref())?);
    }
    let filesystem = ioscout_advise::filesystem::detect(&measurements.file_weights, user_fs);
    let mut measured = ioscout_advise::Measured::new();
    let mut warnings = Vec::new();
    if let Some(path) = &request.kb {
        let (entries, skipped) = kb::read(path)?;
        warnings.extend(warnings_of(path, &skipped));
        for found in kb::lookup(&entries, request.system.as_deref(), request.workload.as_deref(), None) {
            if let Some(strategy) = &found.entry.input.strategy {
                measured.entry(strategy.clone()).or_insert(ioscout_advise::Prior {
                    outcome: found.entry.verdict.into(),
                    delta_pct: found.entry.delta_pct,
                    citation: found.entry.input.citation.clone(),
                });
            }
        }
    }
    let metric = ioscout_diagnose::choose_metric(&measurements.findings).metric;
    let advice = ioscout_advise::advise(&catalog, measurements, filesystem, &measured);
    Ok(Computed { advice, metric, report, warnings })
}

/// Records one measured change in the knowledge base at `path`.
pub fn kb_record(path: &Path, input: kb::EntryInput) -> Result<Outcome> {
    let ts = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    let entry = kb::evaluate(input, ts).map_err(|error| match error {
        kb::KbError::Refused(reason) => ServiceError::BadRequest(format!("refused: {reason}")),
        other @ kb::KbError::Io { .. } => ServiceError::KnowledgeBase(other),
    })?;
    kb::append(path, &entry)?;
    let delta = entry.delta_pct.map_or_else(|| "-".to_string(), |delta| format!("{delta:+.1} %"));
    let guard =
        if entry.guard_triggered { " (non-degradation guard: the application regressed)" } else { "" };
    let text = format!("recorded: {} {delta}{guard}\n", entry.verdict);
    let result = KbRecordResult {
        status: "ok",
        message: text.trim_end().to_string(),
        guard_triggered: entry.guard_triggered,
        entry,
        kb: display_path(path),
    };
    Ok(Outcome::typed(&result, text))
}

/// A change recorded in the knowledge base.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct KbRecordResult {
    /// Always `ok`.
    pub status: &'static str,
    /// What was recorded, in one line.
    pub message: String,
    /// The entry as recorded, with its verdict.
    pub entry: kb::Entry,
    /// Whether the non-degradation guard turned the verdict (the application regressed).
    pub guard_triggered: bool,
    /// The knowledge base written to.
    pub kb: String,
}

/// The entries of the knowledge base that apply.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct KbLookupResult {
    /// Always `ok`.
    pub status: &'static str,
    /// Entries found.
    pub count: usize,
    /// The entries, most relevant first, with why each matched.
    pub rows: Vec<kb::Match>,
    /// The entries as a Markdown table.
    pub markdown: String,
}

/// The knowledge base rendered as Markdown (and written as skill files).
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct KbRenderResult {
    /// Always `ok`.
    pub status: &'static str,
    /// Entries in the knowledge base.
    pub count: usize,
    /// Entries by scope.
    pub counts: ScopeCounts,
    /// Where the skill files were written (`null` when they were not).
    pub skill_dir: Option<String>,
    /// The files written.
    pub written: Vec<String>,
    /// Every entry as a Markdown table.
    pub markdown: String,
}

/// Knowledge-base entries by scope.
#[derive(Clone, Copy, Debug, Default, Serialize, schemars::JsonSchema)]
pub struct ScopeCounts {
    /// System-level changes (L3).
    pub system: usize,
    /// Software changes (L2).
    pub software: usize,
    /// Workload changes (L1).
    pub workload: usize,
}

/// An agent's proposals checked against the knowledge base.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ProposalTableResult {
    /// The rows accepted and rejected, and the table.
    #[serde(flatten)]
    pub table: proposal_table::ProposalTable,
    /// Always `ok`.
    pub status: &'static str,
}

/// A run directory's `opt<n>/` layout checked.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ValidateResult {
    /// Always `ok` (a layout with problems is still a result).
    pub status: &'static str,
    /// Whether nothing is wrong.
    pub clean: bool,
    /// What is wrong.
    pub problems: Vec<String>,
    /// The run directory.
    pub run_dir: String,
}

/// A run directory's stray artifacts moved (or the moves planned).
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ReorganizeResult {
    /// Always `ok`.
    pub status: &'static str,
    /// Whether the moves were only planned.
    pub dry_run: bool,
    /// Each move.
    pub actions: Vec<Move>,
}

/// One artifact moved into the newest `opt<n>/`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Move {
    /// Where it was.
    pub path: String,
    /// Where it goes.
    pub dest: String,
    /// `moved`, or `planned_move` in a dry run.
    pub action: &'static str,
}

/// A measured change to record in the knowledge base: the one schema `ioscout kb record` reads
/// (a file or stdin) and the MCP tool `opt_kb_record` takes, printed by `ioscout kb schema` and
/// `ioscout kb record --help`. dftracer-agents' names (`scope` as `workload`/`software`/
/// `system`, `lower_is_better`, `notes`) with ioscout's stored names as aliases (`layer`,
/// `caveats`; `higher_is_better` and `app_higher_is_better` win over the `lower_is_better`
/// pair when given). Unknown fields are refused. (The field docs are the parameter descriptions
/// agents read in the tool's JSON Schema.)
#[derive(Clone, Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentEntry {
    /// `workload`/`software`/`system` or `L1`/`L2`/`L3` (alias `layer`).
    #[serde(alias = "layer")]
    pub scope: String,
    /// The change made.
    pub change: String,
    /// The metric.
    pub metric: String,
    /// Its value before.
    pub before: f64,
    /// Its value after.
    pub after: f64,
    /// Where the technique is documented (`session:<id>` for a measurement of this session).
    pub citation: String,
    /// System name.
    #[serde(default)]
    pub system: String,
    /// Workload name.
    #[serde(default)]
    pub workload: String,
    /// Software (comma-separated).
    #[serde(default)]
    pub software: String,
    /// The bottleneck addressed.
    #[serde(default)]
    pub bottleneck: String,
    /// Whether a smaller value is better (default true: times).
    #[serde(default = "yes")]
    pub lower_is_better: bool,
    /// Whether a larger value is better (the inverse of `lower_is_better`; wins when given).
    #[serde(default)]
    pub higher_is_better: Option<bool>,
    /// The run.
    #[serde(default)]
    pub run_id: String,
    /// Notes and caveats (alias `caveats`).
    #[serde(default, alias = "caveats")]
    pub notes: String,
    /// `app` or `system`.
    #[serde(default = "app_scope")]
    pub metric_scope: String,
    /// Paired application metric (required for `system` metric scope).
    #[serde(default)]
    pub app_metric: Option<String>,
    /// Its value before.
    #[serde(default)]
    pub app_before: Option<f64>,
    /// Its value after.
    #[serde(default)]
    pub app_after: Option<f64>,
    /// Whether a smaller application value is better.
    #[serde(default = "yes")]
    pub app_lower_is_better: bool,
    /// Whether a larger application value is better (wins over `app_lower_is_better`).
    #[serde(default)]
    pub app_higher_is_better: Option<bool>,
    /// The catalog strategy applied, when one.
    #[serde(default)]
    pub strategy: Option<String>,
}

fn yes() -> bool {
    true
}

fn app_scope() -> String {
    "app".into()
}

impl AgentEntry {
    /// The knowledge-base entry, or a bad request for what dftracer-agents refuses too.
    pub fn into_entry(self) -> Result<kb::EntryInput> {
        let Some(layer) = layer_of_scope(&self.scope) else {
            return Err(ServiceError::BadRequest(format!(
                "scope {:?} is not workload, software or system (or L1, L2, L3)",
                self.scope.to_ascii_lowercase()
            )));
        };
        if self.citation.trim().is_empty() {
            return Err(ServiceError::BadRequest(
                "a citation is required (a paper, documentation, or session:<id>)".into(),
            ));
        }
        if layer == kb::Layer::L3 && self.system.trim().is_empty() {
            return Err(ServiceError::BadRequest("a system-scoped entry needs `system`".into()));
        }
        if layer == kb::Layer::L1 && self.workload.trim().is_empty() {
            return Err(ServiceError::BadRequest("a workload-scoped entry needs `workload`".into()));
        }
        // As the knowledge base refuses it (`refused: metric_scope "x" is not app or system`).
        let metric_scope = self
            .metric_scope
            .parse::<kb::MetricScope>()
            .map_err(|error| ServiceError::BadRequest(error.to_string()))?;
        Ok(kb::EntryInput {
            system: self.system,
            workload: self.workload,
            software: self.software,
            layer,
            metric_scope,
            metric: self.metric,
            before: self.before,
            after: self.after,
            higher_is_better: self.higher_is_better.unwrap_or(!self.lower_is_better),
            app_higher_is_better: self
                .app_metric
                .as_ref()
                .map(|_| self.app_higher_is_better.unwrap_or(!self.app_lower_is_better)),
            app_metric: self.app_metric,
            app_before: self.app_before,
            app_after: self.app_after,
            change: self.change,
            citation: self.citation,
            caveats: self.notes,
            strategy: self.strategy,
            bottleneck: self.bottleneck,
            run_id: self.run_id,
        })
    }
}

/// The JSON Schema of a knowledge-base entry ([`AgentEntry`]).
pub fn kb_entry_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(AgentEntry)).unwrap_or_default()
}

/// The entry's fields as `--help` lists them, from the schema: name, type, required or not,
/// and the description.
pub fn kb_entry_help() -> String {
    let schema = kb_entry_schema();
    let required: Vec<&str> =
        schema["required"].as_array().into_iter().flatten().filter_map(|name| name.as_str()).collect();
    let mut text = String::from(
        "The entry (JSON object; `ioscout kb schema` prints its JSON Schema, the one MCP's opt_kb_record takes):\n",
    );
    if let Some(properties) = schema["properties"].as_object() {
        let mut names: Vec<&String> = properties.keys().collect();
        names.sort_by_key(|name| (!required.contains(&name.as_str()), name.as_str()));
        for name in names {
            let property = &properties[name.as_str()];
            let kind = match &property["type"] {
                serde_json::Value::String(kind) => kind.clone(),
                serde_json::Value::Array(kinds) => kinds
                    .iter()
                    .filter_map(|kind| kind.as_str())
                    .filter(|kind| *kind != "null")
                    .collect::<Vec<_>>()
                    .join("|"),
                _ => "any".into(),
            };
            let need = if required.contains(&name.as_str()) { "required" } else { "optional" };
            let about = property["description"].as_str().unwrap_or_default().replace('\n', " ");
            let _ = writeln!(text, "  {name} ({kind}, {need}): {about}");
        }
    }
    text
}

/// What a knowledge-base lookup asks for; also the parameters of the MCP `opt_kb_lookup` tool.
/// Empty strings count as not given.
#[derive(Clone, Debug, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KbLookupRequest {
    /// System name (system findings stay on their system).
    #[serde(default)]
    pub system: Option<String>,
    /// Workload name (workload findings stay with their workload).
    #[serde(default)]
    pub workload: Option<String>,
    /// Software, comma-separated (software findings travel).
    #[serde(default)]
    pub software: Option<String>,
    /// Only this scope: workload, software or system (or L1, L2, L3).
    #[serde(default)]
    pub scope: Option<String>,
    /// Only entries whose bottleneck or change mentions this (case-insensitive).
    #[serde(default)]
    pub bottleneck: Option<String>,
    /// Only this metric scope: app or system.
    #[serde(default)]
    pub metric_scope: Option<String>,
    /// At most this many rows (0: all; the MCP tool's default 20).
    #[serde(default = "twenty")]
    pub limit: usize,
}

fn twenty() -> usize {
    20
}

/// The layer a scope names: `workload`, `software` or `system`, or `L1`, `L2`, `L3` (any case).
fn layer_of_scope(scope: &str) -> Option<kb::Layer> {
    let scope = scope.to_ascii_lowercase();
    kb::Layer::ALL
        .into_iter()
        .find(|layer| layer.scope() == scope || layer.name().eq_ignore_ascii_case(&scope))
}

/// The entries of the knowledge base at `path` that apply, most relevant first.
pub fn kb_lookup(path: &Path, request: &KbLookupRequest) -> Result<Outcome> {
    let (entries, skipped) = kb::read(path)?;
    let layer = match request.scope.as_deref().filter(|scope| !scope.is_empty()) {
        Some(scope) => Some(layer_of_scope(scope).ok_or_else(|| {
            ServiceError::BadRequest(format!("scope {scope:?} is not workload, software or system"))
        })?),
        None => None,
    };
    let needle = request.bottleneck.as_deref().map(str::to_ascii_lowercase).filter(|text| !text.is_empty());
    // A scope given but not `app` or `system` matches no entry.
    let metric_scope = request
        .metric_scope
        .as_deref()
        .filter(|scope| !scope.is_empty())
        .map(|scope| scope.parse::<kb::MetricScope>().ok());
    let mut found: Vec<kb::Match> = kb::lookup(
        &entries,
        request.system.as_deref().filter(|text| !text.is_empty()),
        request.workload.as_deref().filter(|text| !text.is_empty()),
        request.software.as_deref().filter(|text| !text.is_empty()),
    )
    .into_iter()
    .filter(|found| layer.is_none_or(|layer| found.entry.input.layer == layer))
    .filter(|found| metric_scope.is_none_or(|scope| scope == Some(found.entry.input.metric_scope)))
    .filter(|found| {
        needle.as_ref().is_none_or(|needle| {
            found.entry.input.bottleneck.to_ascii_lowercase().contains(needle)
                || found.entry.input.change.to_ascii_lowercase().contains(needle)
        })
    })
    .collect();
    if request.limit > 0 {
        found.truncate(request.limit);
    }
    let shown: Vec<kb::Entry> = found.iter().map(|found| found.entry.clone()).collect();
    let markdown = kb::render(&shown);
    let result = KbLookupResult { status: "ok", count: found.len(), rows: found, markdown: markdown.clone() };
    let mut outcome = Outcome::typed(&result, markdown);
    outcome.warnings = warnings_of(path, &skipped);
    Ok(outcome)
}

/// The whole knowledge base as Markdown; with `skill_dir`, also written there as `SKILL.md`
/// (every entry) and `system.md`, `software.md`, `workload.md` (by scope, best gain first).
pub fn kb_render(path: &Path, skill_dir: Option<&Path>) -> Result<Outcome> {
    let (entries, skipped) = kb::read(path)?;
    let markdown = kb::render(&entries);
    let mut counts = ScopeCounts::default();
    let mut written = Vec::new();
    for layer in [kb::Layer::L3, kb::Layer::L2, kb::Layer::L1] {
        let name = layer.scope();
        let mut scoped: Vec<kb::Entry> =
            entries.iter().filter(|entry| entry.input.layer == layer).cloned().collect();
        scoped.sort_by(|a, b| b.delta_pct.unwrap_or(f64::MIN).total_cmp(&a.delta_pct.unwrap_or(f64::MIN)));
        match layer {
            kb::Layer::L3 => counts.system = scoped.len(),
            kb::Layer::L2 => counts.software = scoped.len(),
            kb::Layer::L1 => counts.workload = scoped.len(),
        }
        if let Some(directory) = skill_dir {
            let file = directory.join(format!("{name}.md"));
            let text = format!("# Measured {name} optimisations\n\n{}", kb::render(&scoped));
            write_file(&file, &text)?;
            written.push(display_path(&file));
        }
    }
    if let Some(directory) = skill_dir {
        let file = directory.join("SKILL.md");
        let text = format!(
            "---\nname: ioscout-optimization-kb\ndescription: Measured I/O optimisations (before/after, verdict, citation) recorded by ioscout.\n---\n\n# Optimisation knowledge base\n\n{} entries; by scope in system.md, software.md, workload.md.\n\n{markdown}",
            entries.len()
        );
        write_file(&file, &text)?;
        written.push(display_path(&file));
    }
    let result = KbRenderResult {
        status: "ok",
        count: entries.len(),
        counts,
        skill_dir: skill_dir.map(display_path),
        written,
        markdown: markdown.clone(),
    };
    let mut outcome = Outcome::typed(&result, markdown);
    outcome.warnings = warnings_of(path, &skipped);
    Ok(outcome)
}

fn write_file(path: &Path, text: &str) -> Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|error| ServiceError::io(parent, error))?;
    }
    std::fs::write(path, text).map_err(|error| ServiceError::io(path, error))
}

/// The proposal table of rows an agent proposes, checked against the knowledge base at `kb`.
pub fn proposal_table(
    rows: Vec<ProposedRow>,
    kb_path: Option<&Path>,
    system: Option<&str>,
    workload: Option<&str>,
    software: Option<&str>,
) -> Result<Outcome> {
    let (entries, skipped) = match kb_path {
        Some(path) => kb::read(path)?,
        None => (Vec::new(), Vec::new()),
    };
    let table = proposal_table::build(rows, &entries, system, workload, software);
    let text = table.markdown.clone();
    let mut outcome = Outcome::typed(&ProposalTableResult { table, status: "ok" }, text);
    if let Some(path) = kb_path {
        outcome.warnings = warnings_of(path, &skipped);
    }
    Ok(outcome)
}

/// Checks a run directory's `opt<n>/` layout; flagged when something is wrong.
pub fn runs_validate(directory: &Path) -> Outcome {
    let problems = artifacts::validate(directory);
    let text = if problems.is_empty() {
        format!("{}: clean\n", directory.display())
    } else {
        let mut text = String::new();
        for problem in &problems {
            let _ = writeln!(text, "{problem}");
        }
        text
    };
    let flagged = !problems.is_empty();
    let result = ValidateResult { status: "ok", clean: !flagged, problems, run_dir: display_path(directory) };
    Outcome { flagged, ..Outcome::typed(&result, text) }
}

/// Moves stray artifacts of a run directory into its newest `opt<n>/` (or says what it would).
pub fn runs_reorganize(directory: &Path, dry_run: bool) -> Result<Outcome> {
    let moves =
        artifacts::reorganize(directory, dry_run).map_err(|error| ServiceError::io(directory, error))?;
    let mut text = String::new();
    for (from, to) in &moves {
        let _ = writeln!(
            text,
            "{}{} -> {}",
            if dry_run { "would move " } else { "" },
            from.display(),
            to.display()
        );
    }
    if moves.is_empty() {
        text.push_str("nothing to move\n");
    }
    let actions = moves
        .iter()
        .map(|(from, to)| Move {
            path: display_path(from),
            dest: display_path(to),
            action: if dry_run { "planned_move" } else { "moved" },
        })
        .collect();
    Ok(Outcome::typed(&ReorganizeResult { status: "ok", dry_run, actions }, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(scope: &str) -> AgentEntry {
        AgentEntry {
            scope: scope.into(),
            change: "stripe count 1 -> 8".into(),
            metric: "read_bw".into(),
            before: 1.0,
            after: 2.0,
            citation: "https://doc.lustre.org".into(),
            system: String::new(),
            workload: String::new(),
            software: String::new(),
            bottleneck: String::new(),
            lower_is_better: false,
            higher_is_better: None,
            run_id: String::new(),
            notes: String::new(),
            metric_scope: "app".into(),
            app_metric: None,
            app_before: None,
            app_after: None,
            app_lower_is_better: true,
            app_higher_is_better: None,
            strategy: None,
        }
    }

    #[test]
    fn agent_entries_map_their_scope_and_are_refused_as_dftracer_agents_refuses_them() {
        let software = agent("software").into_entry();
        assert!(software.as_ref().is_ok_and(|entry| entry.layer == kb::Layer::L2 && entry.higher_is_better));
        assert!(matches!(agent("system").into_entry(), Err(ServiceError::BadRequest(_))));
        assert!(matches!(agent("workload").into_entry(), Err(ServiceError::BadRequest(_))));
        assert!(matches!(agent("galaxy").into_entry(), Err(ServiceError::BadRequest(_))));
        let uncited = AgentEntry { citation: " ".into(), ..agent("software") };
        assert!(matches!(uncited.into_entry(), Err(ServiceError::BadRequest(_))));
        let system = AgentEntry { system: "tuolumne".into(), ..agent("system") };
        assert!(system.into_entry().is_ok_and(|entry| entry.layer == kb::Layer::L3));
    }
}
