//! Findings ranked by severity (`ioscout diagnose`, the MCP tool `diagnose`) on traces and on
//! Darshan logs, the rule list (`ioscout rules`) and one rule's documentation
//! (`ioscout explain`, the MCP tool `explain_rule`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use ioscout_analysis::{AnalysisOptions, OverlapMode, ViewType};
use ioscout_diagnose::darshan::{DarshanContext, DarshanFacts, DrishtiThresholds};
use ioscout_diagnose::detector::Detection;
pub use ioscout_diagnose::detector::Detector;
use ioscout_diagnose::{
    Context, Family, Finding, Label, Parameters, Recurrence, RuleDoc, choose_metric, diagnose_trace,
    recurrence, rules,
};
use rayon::prelude::*;
use serde::Serialize;

use crate::envelope::{
    Envelope, Evidence, LogContext, LogFact, Severity, TraceContext, TraceFact, TraceScope, Window,
};
use crate::text::display_path;
use crate::{Input, Outcome, Result, ServiceError};

/// What to diagnose and how to filter. Also the parameters of the MCP `diagnose` tool (beside its
/// `trace_path`; the tool resolves the two paths under its roots).
#[derive(Clone, Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct DiagnoseRequest {
    /// Layer preset for traces: auto, posix, dlio, dlio-prev, generic.
    pub preset: ioscout_analysis::PresetName,
    /// Rule families (a list, or one comma-separated string): wisio, dfanalyzer, drishti,
    /// iosage, pipeline, detector; none given runs them all.
    #[serde(deserialize_with = "families")]
    #[schemars(with = "Option<FamilyList>")]
    pub rules: Option<Vec<Family>>,
    /// Hide findings below this severity: none, low, medium, high, critical (default low; none
    /// for Drishti alone on Darshan logs).
    pub min_severity: Option<Label>,
    /// Flag the outcome when a finding at or above this severity exists.
    pub fail_on: Option<Label>,
    /// Read bandwidth one process can get from the file system, bytes per second.
    #[serde(rename = "bandwidth_ceiling", alias = "bandwidth_ceiling_bps")]
    pub bandwidth_ceiling_bps: Option<f64>,
    /// Time bins per window for prevalence and persistence.
    pub window_bins: Option<u64>,
    /// Drishti's threshold JSON, for Darshan logs.
    pub drishti_config: Option<PathBuf>,
    /// Which decides the patterns: model, rules or both (default both: the learned model
    /// decides, the rules explain; a rule finding the model rejects is marked not confirmed).
    pub detector: Detector,
    /// A detector model file (default: the model that ships with ioscout).
    pub model: Option<PathBuf>,
    /// Show in the text the rule findings the learned detector does not confirm, one by one
    /// (otherwise they are folded into one line; the JSON always has them).
    pub all: bool,
}

/// Rule families as a request may give them: a list, or one comma-separated string.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum FamilyList {
    /// `["wisio", "drishti"]`.
    List(Vec<Family>),
    /// `"wisio,drishti"`.
    Text(String),
}

fn families<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> std::result::Result<Option<Vec<Family>>, D::Error> {
    match <Option<FamilyList> as serde::Deserialize>::deserialize(deserializer)? {
        None => Ok(None),
        Some(FamilyList::List(list)) => Ok(Some(list)),
        Some(FamilyList::Text(text)) => parse_families(&text).map(Some).map_err(serde::de::Error::custom),
    }
}

impl Default for DiagnoseRequest {
    fn default() -> Self {
        DiagnoseRequest {
            preset: ioscout_analysis::PresetName::Auto,
            rules: None,
            min_severity: None,
            fail_on: None,
            bandwidth_ceiling_bps: None,
            window_bins: None,
            drishti_config: None,
            detector: Detector::Both,
            model: None,
            all: false,
        }
    }
}

/// The rule families of a comma-separated list (case-insensitive); an unknown family name is a
/// bad request naming the known ones.
pub fn parse_families(list: &str) -> Result<Vec<Family>> {
    list.split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(|name| {
            Family::parse(name).ok_or_else(|| {
                let known: Vec<&str> = Family::ALL.iter().map(|family| family.name()).collect();
                ServiceError::BadRequest(format!(
                    "unknown rule family {:?} (known: {})",
                    name.to_ascii_lowercase(),
                    known.join(", ")
                ))
            })
        })
        .collect()
}

/// The findings at or above `minimum` of the selected families.
pub fn select(findings: Vec<Finding>, minimum: Label, families: Option<&[Family]>) -> Vec<Finding> {
    findings
        .into_iter()
        .filter(|finding| finding.label >= minimum)
        .filter(|finding| families.is_none_or(|families| families.contains(&finding.family)))
        .collect()
}

/// Diagnoses `input`: traces, or Darshan logs when every path is one. The value is DFDiagnoser's
/// fact envelope (an array of envelopes for several logs) with `severity_counts`.
pub fn diagnose(input: &Input, request: &DiagnoseRequest) -> Result<Outcome> {
    if let Some(logs) = crate::darshan_inputs(&input.paths)? {
        return diagnose_darshan(&logs, !input.strict, request);
    }
    let minimum = request.min_severity.unwrap_or(Label::Low);
    let fail_on = request.fail_on;
    let families = request.rules.clone();
    let model = model_of(request)?;
    let options = AnalysisOptions {
        preset: request.preset,
        views: vec![ViewType::TimeRange],
        overlap: OverlapMode::Exact,
        ..AnalysisOptions::default()
    };
    let (analysis, report, _, derived) = crate::analyze::run_with_records(input, &options)?;
    let parameters = Parameters { bandwidth_ceiling_bps: request.bandwidth_ceiling_bps };
    let bins = (analysis.raw.job_time_s / analysis.raw.time_granularity_s).ceil().max(1.0) as u64;
    let window_bins = request.window_bins.unwrap_or_else(|| bins.div_ceil(10)).max(1);
    let recurrences = recurrence(&analysis, &parameters, window_bins);
    let context = Context::new(&analysis, parameters);
    let thresholds = thresholds(request)?;
    let facts = ioscout_diagnose::trace_facts(&context, &derived);
    let io_share = DarshanContext::new(&facts, thresholds.clone()).io_share();
    let detection = model.as_ref().map(|model| Detection::of(model, &facts));
    let all = diagnose_trace(&context, &derived, &facts, thresholds);
    let all = ioscout_diagnose::detector::join(all, detection.as_ref(), request.detector, io_share);
    let metric = choose_metric(&all);
    let findings = select(all, minimum, families.as_deref());
    let context = TraceContext {
        run_id: None,
        layers: analysis.preset.layers.iter().map(|layer| layer.name.clone()).collect(),
        view_types: ["time_range", "proc_name"],
        time_granularity: analysis.raw.time_granularity_s,
        preset: analysis.preset.name,
        job_time_s: analysis.raw.job_time_s,
        detector: crate::detect::DetectorSection::of(detection.as_ref(), request.detector),
        metric_to_optimise: metric.clone(),
        metadata_operations: derived.operations.iter().take(10).cloned().collect(),
        data_shapes: derived.shapes.clone(),
        derived_records: crate::evidence::Derivation::of(&derived),
    };
    let facts = trace_facts(&analysis, &findings, &recurrences);
    let value = serde_json::to_value(Envelope::new(context, &findings, facts)).unwrap_or_default();
    let mut text = ioscout_render::findings::text(
        &findings,
        &format!("preset {}", analysis.preset.name),
        Some(&recurrences),
        request.all,
    );
    text.push_str(&ioscout_render::detector::detection_text(detection.as_ref()));
    let _ = writeln!(text, "Metric to optimise: {} ({})", metric.metric, metric.reason);
    let flagged = fail_on.is_some_and(|level| findings.iter().any(|finding| finding.label >= level));
    Ok(Outcome { value, text, report: Some(report), flagged, warnings: Vec::new() })
}

/// The facts of a trace's findings (the whole trace is their window).
fn trace_facts(
    analysis: &ioscout_analysis::Analysis,
    findings: &[Finding],
    recurrences: &BTreeMap<&'static str, Recurrence>,
) -> Vec<TraceFact> {
    findings
        .iter()
        .enumerate()
        .map(|(index, finding)| TraceFact {
            fact_type: finding.code,
            window: Window {
                view_type: "time_range",
                epoch: None,
                step: None,
                time_bucket: None,
                t0_ns: analysis.raw.first_ts.saturating_mul(1000),
                t1_ns: analysis.raw.last_end.saturating_mul(1000),
            },
            scope: TraceScope {
                workload: analysis.preset.name.to_string(),
                layer: finding.scope.clone(),
                entity: None,
                rank_set: None,
                node: None,
            },
            evidence: Evidence::of(finding),
            severity: Severity::of(finding),
            confidence: 1.0,
            pattern: finding.pattern,
            model: finding.model,
            opportunity_tags: Vec::new(),
            suppresses_tags: Vec::new(),
            fact_id: format!("{}-{index}", finding.code),
            family: finding.family.name(),
            title: finding.title,
            recurrence: recurrences.get(finding.code).cloned(),
        })
        .collect()
}

/// The model the request asks for (`None` with `--detector rules`).
fn model_of(request: &DiagnoseRequest) -> Result<Option<ioscout_detect::Model>> {
    if request.detector.uses_model() {
        crate::detect::load(request.model.as_deref()).map(Some)
    } else {
        Ok(None)
    }
}

/// Drishti's thresholds: from `--drishti-config` when given, else Drishti's defaults.
fn thresholds(request: &DiagnoseRequest) -> Result<DrishtiThresholds> {
    Ok(match &request.drishti_config {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|error| ServiceError::io(path, error))?;
            DrishtiThresholds::from_drishti_json(&text)
                .map_err(|error| ServiceError::BadRequest(format!("{}: {error}", path.display())))?
        }
        None => DrishtiThresholds::default(),
    })
}

/// Diagnoses Darshan logs: every rule on Darshan counters, per log.
fn diagnose_darshan(logs: &[PathBuf], partial: bool, request: &DiagnoseRequest) -> Result<Outcome> {
    let families = request.rules.clone();
    let drishti_only =
        families.as_ref().is_some_and(|families| families.iter().all(|family| *family == Family::Drishti));
    let minimum = request.min_severity.unwrap_or(if drishti_only { Label::None } else { Label::Low });
    let fail_on = request.fail_on;
    let thresholds = thresholds(request)?;
    let model = model_of(request)?;
    let decoded: Vec<Result<(ioscout_darshan::DarshanLog, DarshanFacts)>> = logs
        .par_iter()
        .map(|path| {
            let log = crate::darshan::read(path, partial)?;
            let facts = DarshanFacts::from_log(&log);
            Ok((log, facts))
        })
        .collect();
    let mut reports = Vec::new();
    let mut text = String::new();
    let mut flagged = false;
    let mut warnings = Vec::new();
    for (path, decoded) in logs.iter().zip(decoded) {
        let (log, facts) = decoded?;
        warnings.extend(log.problems.iter().map(|problem| format!("{}: {problem}", display_path(path))));
        let context = DarshanContext::new(&facts, thresholds.clone());
        let detection = model.as_ref().map(|model| Detection::of(model, &facts));
        let all = ioscout_diagnose::detector::join(
            ioscout_diagnose::darshan::diagnose(&context),
            detection.as_ref(),
            request.detector,
            context.io_share(),
        );
        let findings = select(all, minimum, families.as_deref());
        flagged |= fail_on.is_some_and(|level| findings.iter().any(|finding| finding.label >= level));
        let metric = choose_metric(&findings);
        let log_context = LogContext {
            log: display_path(path),
            source: "darshan",
            darshan_version: log.header.version.clone(),
            nprocs: log.job.nprocs,
            run_time_s: log.run_time(),
            job_estimated: log.job_estimated,
            modules: facts.modules.iter().cloned().collect(),
            unread_modules: log.unread_modules(),
            damaged_modules: log.damaged_modules(),
            io_share: context.io_share(),
            metric_to_optimise: metric.clone(),
            problems: log.problems.clone(),
            detector: crate::detect::DetectorSection::of(detection.as_ref(), request.detector),
        };
        let log_facts =
            findings.iter().enumerate().map(|(index, finding)| LogFact::of(index, finding)).collect();
        reports
            .push(serde_json::to_value(Envelope::new(log_context, &findings, log_facts)).unwrap_or_default());
        let at_least = if log.job_estimated { "at least " } else { "" };
        let _ = writeln!(
            text,
            "{}: Darshan {}, {at_least}{}, {at_least}{} s, I/O on the critical path {}{:.1} % of the run time",
            display_path(path),
            log.header.version,
            ioscout_render::text::count_of(log.job.nprocs.max(0) as u64, "process", "processes"),
            ioscout_render::text::seconds(log.run_time(), 1),
            if log.job_estimated { "at most " } else { "" },
            context.io_share() * 100.0
        );
        if log.job_estimated {
            let _ = writeln!(
                text,
                "  the job record is unreadable: processes and run time are lower bounds from the records (the highest rank + 1, the latest end timestamp), so the shares of the run are upper bounds"
            );
        }
        let unread = log.unread_modules();
        if !unread.is_empty() {
            let _ =
                writeln!(text, "  not read (damaged region, no rule reasons on it): {}", unread.join(", "));
        }
        let damaged = log.damaged_modules();
        if !damaged.is_empty() {
            let _ = writeln!(text, "  read in part (damaged region): {}", damaged.join(", "));
        }
        text.push_str(&ioscout_render::findings::text(&findings, "Darshan counters", None, request.all));
        text.push_str(&ioscout_render::detector::detection_text(detection.as_ref()));
        let _ = writeln!(text, "Metric to optimise: {} ({})\n", metric.metric, metric.reason);
    }
    let value = if reports.len() == 1 { reports.remove(0) } else { serde_json::Value::Array(reports) };
    Ok(Outcome { value, text, report: None, flagged, warnings })
}

pub use ioscout_render::text::why_of;

/// Every rule's documentation, with the input it reads (`trace` or `darshan`).
fn all_docs() -> Vec<(&'static str, &'static RuleDoc)> {
    let mut docs: Vec<(&'static str, &'static RuleDoc)> =
        rules::all().iter().map(|rule| ("trace", rule.doc())).collect();
    docs.extend(ioscout_diagnose::darshan::rules::all().iter().map(|rule| ("darshan", rule.doc())));
    docs.extend(ioscout_diagnose::detector::MODEL_DOCS.iter().map(|doc| ("model", doc)));
    docs
}

/// A rule's documentation, with what it reads and the pattern it decides.
#[derive(Clone, Copy, Debug, Serialize, schemars::JsonSchema)]
pub struct RuleEntry {
    /// The documentation.
    #[serde(flatten)]
    pub doc: &'static RuleDoc,
    /// What the rule reads: `trace`, `darshan` or `model`.
    pub input: &'static str,
    /// IOSage's pattern the rule decides, if any (absent from one rule's explanation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<Option<ioscout_detect::Pattern>>,
}

/// The rule list: every field of every rule's documentation, and a table.
pub fn list_rules() -> Outcome {
    let docs = all_docs();
    let entries: Vec<RuleEntry> = docs
        .iter()
        .map(|&(input, doc)| RuleEntry {
            doc,
            input,
            pattern: Some(ioscout_diagnose::detector::pattern_of(doc.code)),
        })
        .collect();
    Outcome::typed(&entries, ioscout_render::findings::rules_text(&docs))
}

/// One rule's documentation (both forms when a pattern is decided from traces and from Darshan
/// counters), or the card of one of IOSage's patterns (`access_pattern`, with the typical values
/// of `model`'s training runs); an unknown code is a bad request listing the known ones.
pub fn explain(code: &str, model: Option<&std::path::Path>) -> Result<Outcome> {
    if let Some(card) = crate::detect::card(code, model)? {
        return Ok(card);
    }
    let entry = |doc: &'static RuleDoc, input: &'static str| RuleEntry { doc, input, pattern: None };
    if let Some(doc) = ioscout_diagnose::detector::MODEL_DOCS.iter().find(|doc| doc.code == code) {
        return Ok(Outcome::typed(&entry(doc, "model"), doc.render()));
    }
    let trace = rules::find(code).map(ioscout_diagnose::Rule::doc);
    let darshan =
        ioscout_diagnose::darshan::rules::find(code).map(ioscout_diagnose::darshan::DarshanRule::doc);
    match (trace, darshan) {
        (Some(trace), Some(darshan)) => Ok(Outcome::typed(
            &[entry(trace, "trace"), entry(darshan, "darshan")],
            format!("On DFTracer traces:\n\n{}\nOn Darshan logs:\n\n{}", trace.render(), darshan.render()),
        )),
        (Some(doc), None) => Ok(Outcome::typed(&entry(doc, "trace"), doc.render())),
        (None, Some(doc)) => Ok(Outcome::typed(&entry(doc, "darshan"), doc.render())),
        (None, None) => {
            let codes: Vec<&str> = all_docs().iter().map(|(_, doc)| doc.code).collect();
            let patterns: Vec<&str> =
                ioscout_detect::Pattern::ALL.iter().map(|pattern| pattern.name()).collect();
            Err(ServiceError::BadRequest(format!(
                "no rule or pattern {code:?} (rules: {}; patterns: {})",
                codes.join(", "),
                patterns.join(", ")
            )))
        }
    }
}

#[cfg(test)]
mod doc_tests {
    /// `explain P21` cited `shared/research/diagnosis.md`, a path users do not have: every rule's
    /// documentation cites papers, peers' sources or the project's own documents.
    #[test]
    fn no_rule_documentation_cites_a_path_users_do_not_have() {
        for (_, doc) in super::all_docs() {
            let value = serde_json::to_value(doc).unwrap_or_default();
            let text = value.to_string();
            assert!(!text.contains("shared/"), "{}: {text}", doc.code);
            assert!(!text.contains("seeds/"), "{}: {text}", doc.code);
        }
    }
}
