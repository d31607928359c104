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
    Context, Finding, Label, Parameters, Recurrence, RuleDoc, choose_metric, diagnose_trace, recurrence,
    rules,
};
use rayon::prelude::*;
use serde_json::json;

use crate::table::Table;
use crate::text::display_path;
use crate::{Input, Outcome, Result, ServiceError};

/// The rule families `rules` may name.
pub const FAMILIES: [&str; 6] = ["wisio", "dfanalyzer", "drishti", "iosage", "pipeline", "detector"];

/// What to diagnose and how to filter.
#[derive(Clone, Debug)]
pub struct DiagnoseRequest {
    /// Layer preset for traces.
    pub preset: String,
    /// Rule families, comma-separated; `None` for all.
    pub rules: Option<String>,
    /// Hide findings below this label (default low; none for Drishti-only on Darshan logs).
    pub min_severity: Option<String>,
    /// Flag the outcome when a finding at or above this label exists.
    pub fail_on: Option<String>,
    /// Read bandwidth one process can get, bytes per second.
    pub bandwidth_ceiling_bps: Option<f64>,
    /// Time bins per window for prevalence and persistence.
    pub window_bins: Option<u64>,
    /// Drishti's threshold JSON, for Darshan logs.
    pub drishti_config: Option<PathBuf>,
    /// Which decides the patterns: the learned model, the rules, or both.
    pub detector: Detector,
    /// The model file (`None`: the one that ships with ioscout).
    pub model: Option<PathBuf>,
}

impl Default for DiagnoseRequest {
    fn default() -> Self {
        DiagnoseRequest {
            preset: "auto".into(),
            rules: None,
            min_severity: None,
            fail_on: None,
            bandwidth_ceiling_bps: None,
            window_bins: None,
            drishti_config: None,
            detector: Detector::Both,
            model: None,
        }
    }
}

/// The rule families of a comma-separated list (case-insensitive), or `None` for all; an unknown
/// family name is a bad request.
pub fn parse_families(rules: Option<&str>) -> Result<Option<Vec<String>>> {
    let Some(list) = rules else { return Ok(None) };
    let families: Vec<String> = list
        .split(',')
        .map(|name| name.trim().to_ascii_lowercase())
        .filter(|name| !name.is_empty())
        .collect();
    if let Some(unknown) = families.iter().find(|family| !FAMILIES.contains(&family.as_str())) {
        return Err(ServiceError::BadRequest(format!(
            "unknown rule family {unknown:?} (known: {})",
            FAMILIES.join(", ")
        )));
    }
    Ok(Some(families))
}

/// A severity label by name.
pub fn parse_label(name: &str) -> Result<Label> {
    Label::parse(&name.to_ascii_lowercase()).ok_or_else(|| {
        ServiceError::BadRequest(format!(
            "unknown severity {name:?} (known: none, low, medium, high, critical)"
        ))
    })
}

/// The findings at or above `minimum` of the selected families.
pub fn select(findings: Vec<Finding>, minimum: Label, families: Option<&[String]>) -> Vec<Finding> {
    findings
        .into_iter()
        .filter(|finding| finding.label >= minimum)
        .filter(|finding| {
            families.is_none_or(|families| families.iter().any(|family| family == finding.family.name()))
        })
        .collect()
}

/// Diagnoses `input`: traces, or Darshan logs when every path is one. The value is DFDiagnoser's
/// fact envelope (an array of envelopes for several logs) with `severity_counts`.
pub fn diagnose(input: &Input, request: &DiagnoseRequest) -> Result<Outcome> {
    if let Some(logs) = crate::darshan_inputs(&input.paths)? {
        return diagnose_darshan(&logs, !input.strict, request);
    }
    let minimum = parse_label(request.min_severity.as_deref().unwrap_or("low"))?;
    let fail_on = request.fail_on.as_deref().map(parse_label).transpose()?;
    let families = parse_families(request.rules.as_deref())?;
    let model = model_of(request)?;
    let options = AnalysisOptions {
        preset: request.preset.clone(),
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
    let mut value = envelope(&analysis, &findings, &recurrences);
    value["context"]["detector"] = crate::detect::detection_json(detection.as_ref(), request.detector);
    value["context"]["metric_to_optimise"] = serde_json::to_value(&metric).unwrap_or_default();
    value["context"]["metadata_operations"] = crate::evidence::operations_json(&derived, 10);
    value["context"]["data_shapes"] = serde_json::to_value(&derived.shapes).unwrap_or_default();
    value["context"]["derived_records"] = crate::evidence::derivation_json(&derived);
    let mut text = render(&findings, &format!("preset {}", analysis.preset.name), Some(&recurrences));
    text.push_str(&crate::detect::detection_text(detection.as_ref()));
    let _ = writeln!(text, "Metric to optimise: {} ({})", metric.metric, metric.reason);
    let flagged = fail_on.is_some_and(|level| findings.iter().any(|finding| finding.label >= level));
    Ok(Outcome { value, text, report: Some(report), flagged, warnings: Vec::new() })
}

/// The model the request asks for (`None` with `--detector rules`).
fn model_of(request: &DiagnoseRequest) -> Result<Option<ioscout_detect::Model>> {
    if request.detector.uses_model() {
        crate::detect::load(request.model.as_deref()).map(Some)
    } else {
        Ok(None)
    }
}

/// How a finding's severity was decided: by a rule, by the model, or by a rule the model does
/// not confirm.
fn method_of(finding: &Finding) -> &'static str {
    match finding.model {
        _ if finding.family == ioscout_diagnose::Family::Detector => "model",
        Some(check) if !check.confirmed => "rule, not confirmed by the model",
        Some(_) => "rule, confirmed by the model",
        None => "rule",
    }
}

/// How many findings of each label.
fn severity_counts(findings: &[Finding]) -> serde_json::Value {
    let mut counts: BTreeMap<&'static str, u64> =
        ["none", "low", "medium", "high", "critical"].iter().map(|label| (*label, 0)).collect();
    for finding in findings {
        *counts.entry(finding.label.name()).or_default() += 1;
    }
    json!(counts)
}

fn metrics_of(finding: &Finding) -> serde_json::Map<String, serde_json::Value> {
    finding.evidence.iter().map(|evidence| (evidence.metric.clone(), json!(evidence.value))).collect()
}

/// The findings in DFDiagnoser's fact-envelope schema (`analyzer.fact-envelope.v1`).
fn envelope(
    analysis: &ioscout_analysis::Analysis,
    findings: &[Finding],
    recurrences: &BTreeMap<&'static str, Recurrence>,
) -> serde_json::Value {
    let facts: Vec<serde_json::Value> = findings
        .iter()
        .enumerate()
        .map(|(index, finding)| {
            json!({
                "fact_type": finding.code,
                "window": {"view_type": "time_range", "epoch": null, "step": null, "time_bucket": null,
                           "t0_ns": analysis.raw.first_ts.saturating_mul(1000), "t1_ns": analysis.raw.last_end.saturating_mul(1000)},
                "scope": {"workload": analysis.preset.name, "layer": finding.scope, "entity": null, "rank_set": null, "node": null},
                "evidence": {"metrics": metrics_of(finding), "crossed": finding.crossed, "why": finding.why},
                "severity": {"score": finding.score, "label": finding.label.name(), "method": method_of(finding)},
                "confidence": 1.0,
                "pattern": finding.pattern,
                "model": finding.model,
                "opportunity_tags": [],
                "suppresses_tags": [],
                "fact_id": format!("{}-{index}", finding.code),
                "family": finding.family.name(),
                "title": finding.title,
                "recurrence": recurrences.get(finding.code),
            })
        })
        .collect();
    json!({
        "schema_version": "analyzer.fact-envelope.v1",
        "context": {
            "run_id": null,
            "layers": analysis.preset.layers.iter().map(|layer| layer.name.clone()).collect::<Vec<_>>(),
            "view_types": ["time_range", "proc_name"],
            "time_granularity": analysis.raw.time_granularity_s,
            "preset": analysis.preset.name,
            "job_time_s": analysis.raw.job_time_s,
        },
        "severity_counts": severity_counts(findings),
        "facts": facts,
    })
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
    let families = parse_families(request.rules.as_deref())?;
    let drishti_only =
        families.as_ref().is_some_and(|families| families.iter().all(|family| family == "drishti"));
    let minimum =
        parse_label(request.min_severity.as_deref().unwrap_or(if drishti_only { "none" } else { "low" }))?;
    let fail_on = request.fail_on.as_deref().map(parse_label).transpose()?;
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
        reports.push(json!({
            "schema_version": "analyzer.fact-envelope.v1",
            "context": {
                "log": display_path(path),
                "source": "darshan",
                "darshan_version": log.header.version,
                "nprocs": log.job.nprocs,
                "run_time_s": log.run_time(),
                "modules": facts.modules,
                "unread_modules": log.unread_modules(),
                "damaged_modules": log.damaged_modules(),
                "io_share": context.io_share(),
                "metric_to_optimise": metric,
                "problems": log.problems,
                "detector": crate::detect::detection_json(detection.as_ref(), request.detector),
            },
            "severity_counts": severity_counts(&findings),
            "facts": findings.iter().enumerate().map(|(index, finding)| json!({
                "fact_type": finding.code,
                "fact_id": format!("{}-{index}", finding.code),
                "family": finding.family.name(),
                "title": finding.title,
                "scope": {"layer": finding.scope},
                "evidence": {"metrics": metrics_of(finding), "crossed": finding.crossed, "why": finding.why},
                "severity": {"score": finding.score, "label": finding.label.name(), "method": method_of(finding)},
                "confidence": 1.0,
                "pattern": finding.pattern,
                "model": finding.model,
            })).collect::<Vec<_>>(),
        }));
        let _ = writeln!(
            text,
            "{}: Darshan {}, {} processes, {:.1} s, I/O on the critical path {:.1} % of the run time",
            display_path(path),
            log.header.version,
            log.job.nprocs,
            log.run_time(),
            context.io_share() * 100.0
        );
        let unread = log.unread_modules();
        if !unread.is_empty() {
            let _ =
                writeln!(text, "  not read (damaged region, no rule reasons on it): {}", unread.join(", "));
        }
        let damaged = log.damaged_modules();
        if !damaged.is_empty() {
            let _ = writeln!(text, "  read in part (damaged region): {}", damaged.join(", "));
        }
        text.push_str(&render(&findings, "Darshan counters", None));
        text.push_str(&crate::detect::detection_text(detection.as_ref()));
        let _ = writeln!(text, "Metric to optimise: {} ({})\n", metric.metric, metric.reason);
    }
    let value = if reports.len() == 1 { reports.remove(0) } else { serde_json::Value::Array(reports) };
    Ok(Outcome { value, text, report: None, flagged, warnings })
}

pub use ioscout_render::text::why_of;

/// The root cause a finding points at, for grouping: its bottleneck dimension.
fn cause(finding: &Finding) -> &'static str {
    match ioscout_diagnose::dimension(finding.code) {
        Some("metadata_ops") => "metadata",
        Some("iops") => "request size and pattern",
        Some("bandwidth") => "bandwidth",
        Some(_) => "time on the critical path",
        None => "context",
    }
}

/// The findings as a table grouped by root cause: groups in the order of their most severe
/// finding, findings by score within a group.
pub fn render(
    findings: &[Finding],
    label: &str,
    recurrences: Option<&BTreeMap<&'static str, Recurrence>>,
) -> String {
    if findings.is_empty() {
        return format!("No findings ({label}).\n");
    }
    let mut groups: Vec<(&'static str, Vec<&Finding>)> = Vec::new();
    for finding in findings {
        let key = cause(finding);
        match groups.iter_mut().find(|(cause, _)| *cause == key) {
            Some((_, members)) => members.push(finding),
            None => groups.push((key, vec![finding])),
        }
    }
    let title = format!("Findings ({}, {label}), grouped by root cause", findings.len());
    let mut table = if recurrences.is_some() {
        Table::new(
            &title,
            &["Cause", "Severity", "Score", "Code", "Windows", "Scope", "Why"],
            &[false, false, true, false, true, false, false],
        )
    } else {
        Table::new(
            &title,
            &["Cause", "Severity", "Score", "Code", "Scope", "Why"],
            &[false, false, true, false, false, false],
        )
    };
    for (cause, members) in &groups {
        for (index, finding) in members.iter().enumerate() {
            let mut row = vec![
                if index == 0 { (*cause).to_string() } else { String::new() },
                finding.label.name().to_string(),
                format!("{:.2}", finding.score),
                finding.code.to_string(),
            ];
            if let Some(recurrences) = recurrences {
                row.push(recurrences.get(finding.code).map_or_else(
                    || "-".to_string(),
                    |recurrence| {
                        format!("{}/{} run {}", recurrence.seen, recurrence.windows, recurrence.persistence)
                    },
                ));
            }
            row.push(finding.scope.clone());
            row.push(why_of(finding));
            table.row(row);
        }
    }
    let mut out = table.render();
    if recurrences.is_some() {
        out.push_str(
            "\nWindows: in how many time windows the rule fired on its own, and its longest run of consecutive windows.",
        );
    }
    out.push_str("\n`ioscout explain CODE` gives the rule's full documentation.\n");
    out
}

/// Every rule's documentation, with the input it reads (`trace` or `darshan`).
fn all_docs() -> Vec<(&'static str, &'static RuleDoc)> {
    let mut docs: Vec<(&'static str, &'static RuleDoc)> =
        rules::all().iter().map(|rule| ("trace", rule.doc())).collect();
    docs.extend(ioscout_diagnose::darshan::rules::all().iter().map(|rule| ("darshan", rule.doc())));
    docs.extend(ioscout_diagnose::detector::MODEL_DOCS.iter().map(|doc| ("model", doc)));
    docs
}

/// The rule list: every field of every rule's documentation, and a table.
pub fn list_rules() -> Outcome {
    let docs = all_docs();
    let values: Vec<serde_json::Value> = docs
        .iter()
        .map(|(input, doc)| {
            let mut value = serde_json::to_value(doc).unwrap_or_default();
            value["input"] = json!(input);
            value["pattern"] = json!(ioscout_diagnose::detector::pattern_of(doc.code));
            value
        })
        .collect();
    let mut table =
        Table::new(&format!("Rules ({})", docs.len()), &["Code", "Family", "Input", "Title"], &[false; 4]);
    for (input, doc) in &docs {
        table.row(vec![
            doc.code.to_string(),
            doc.family.name().to_string(),
            (*input).to_string(),
            doc.title.to_string(),
        ]);
    }
    Outcome::new(serde_json::Value::Array(values), table.render())
}

/// One rule's documentation (both forms when a pattern is decided from traces and from Darshan
/// counters), or the card of one of IOSage's patterns (`access_pattern`, with the typical values
/// of `model`'s training runs); an unknown code is a bad request listing the known ones.
pub fn explain(code: &str, model: Option<&std::path::Path>) -> Result<Outcome> {
    if let Some(card) = crate::detect::card(code, model)? {
        return Ok(card);
    }
    if let Some(doc) = ioscout_diagnose::detector::MODEL_DOCS.iter().find(|doc| doc.code == code) {
        return Ok(Outcome::new(
            {
                let mut value = serde_json::to_value(doc).unwrap_or_default();
                value["input"] = json!("model");
                value
            },
            doc.render(),
        ));
    }
    let trace = rules::find(code).map(ioscout_diagnose::Rule::doc);
    let darshan =
        ioscout_diagnose::darshan::rules::find(code).map(ioscout_diagnose::darshan::DarshanRule::doc);
    let with_input = |doc: &RuleDoc, input: &str| {
        let mut value = serde_json::to_value(doc).unwrap_or_default();
        value["input"] = json!(input);
        value
    };
    match (trace, darshan) {
        (Some(trace), Some(darshan)) => Ok(Outcome::new(
            json!([with_input(trace, "trace"), with_input(darshan, "darshan")]),
            format!("On DFTracer traces:\n\n{}\nOn Darshan logs:\n\n{}", trace.render(), darshan.render()),
        )),
        (Some(doc), None) => Ok(Outcome::new(with_input(doc, "trace"), doc.render())),
        (None, Some(doc)) => Ok(Outcome::new(with_input(doc, "darshan"), doc.render())),
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
