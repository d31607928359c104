//! `ioscout diagnose`, `ioscout rules` and `ioscout explain`: findings ranked by severity, the
//! rule list, and one rule's full documentation.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context as _;
use ioscout_analysis::{AnalysisOptions, OverlapMode, ViewType};
use ioscout_diagnose::{
    Context, Finding, Label, Parameters, Recurrence, choose_metric, diagnose, recurrence, rules,
};
use serde_json::json;

use crate::cli::{DiagnoseArguments, ExplainArguments, RulesArguments};
use crate::common;
use crate::table::Table;

pub(crate) fn run(arguments: &DiagnoseArguments) -> anyhow::Result<ExitCode> {
    if let Some(logs) = common::darshan_inputs(&arguments.input.paths)? {
        return crate::commands::darshan::diagnose(arguments, &logs);
    }
    let minimum = parse_label(arguments.min_severity.as_deref().unwrap_or("low"))?;
    let fail_on = arguments.fail_on.as_deref().map(parse_label).transpose()?;
    let families = parse_families(arguments.rules.as_deref())?;
    let options = AnalysisOptions {
        preset: arguments.preset.clone(),
        views: vec![ViewType::TimeRange],
        overlap: OverlapMode::Exact,
        ..AnalysisOptions::default()
    };
    let (files, input_problems) = common::discover(&arguments.input);
    let (scanner, bar) = common::scanner_with_progress(&arguments.input, &files, "diagnose");
    let (analysis, report) = ioscout_analysis::analyze(&scanner, &files, &input_problems, &options)?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let parameters = Parameters { bandwidth_ceiling_bps: arguments.bandwidth_ceiling };
    let bins = (analysis.raw.job_time_s / analysis.raw.time_granularity_s).ceil().max(1.0) as u64;
    let window_bins = arguments.window_bins.unwrap_or_else(|| bins.div_ceil(10)).max(1);
    let recurrences = recurrence(&analysis, &parameters, window_bins);
    let context = Context::new(&analysis, parameters);
    let all = diagnose(&context);
    let metric = choose_metric(&all);
    let findings = select(all, minimum, families.as_deref());
    let mut stdout = std::io::stdout().lock();
    if arguments.json {
        let mut value = envelope(&analysis, &findings, &recurrences);
        value["context"]["metric_to_optimise"] = serde_json::to_value(&metric)?;
        serde_json::to_writer_pretty(&mut stdout, &value)?;
        writeln!(stdout)?;
    } else {
        write!(
            stdout,
            "{}",
            render(&findings, &format!("preset {}", analysis.preset.name), Some(&recurrences))
        )?;
        writeln!(stdout, "Metric to optimise: {} ({})", metric.metric, metric.reason)?;
    }
    stdout.flush()?;
    let code = common::finish(&report, &arguments.input);
    if code == ExitCode::SUCCESS
        && fail_on.is_some_and(|level| findings.iter().any(|finding| finding.label >= level))
    {
        return Ok(ExitCode::from(1));
    }
    Ok(code)
}

/// The rule families of `--rules` (comma-separated, case-insensitive), or `None` for all;
/// an unknown family name is an error.
pub(crate) fn parse_families(rules: Option<&str>) -> anyhow::Result<Option<Vec<String>>> {
    let Some(list) = rules else { return Ok(None) };
    let families: Vec<String> = list
        .split(',')
        .map(|name| name.trim().to_ascii_lowercase())
        .filter(|name| !name.is_empty())
        .collect();
    let known = ["wisio", "dfanalyzer", "drishti", "iosage", "pipeline"];
    if let Some(unknown) = families.iter().find(|family| !known.contains(&family.as_str())) {
        anyhow::bail!("unknown rule family {unknown:?} (known: {})", known.join(", "));
    }
    Ok(Some(families))
}

/// The findings at or above `minimum` of the selected families.
pub(crate) fn select(findings: Vec<Finding>, minimum: Label, families: Option<&[String]>) -> Vec<Finding> {
    findings
        .into_iter()
        .filter(|finding| finding.label >= minimum)
        .filter(|finding| {
            families.is_none_or(|families| families.iter().any(|family| family == finding.family.name()))
        })
        .collect()
}

pub(crate) fn parse_label(name: &str) -> anyhow::Result<Label> {
    Label::parse(&name.to_ascii_lowercase())
        .with_context(|| format!("unknown severity {name:?} (known: none, low, medium, high, critical)"))
}

/// The findings in DFDiagnoser's fact-envelope schema (`analyzer.fact-envelope.v1`).
fn envelope(
    analysis: &ioscout_analysis::Analysis,
    findings: &[Finding],
    recurrences: &std::collections::BTreeMap<&'static str, Recurrence>,
) -> serde_json::Value {
    let facts: Vec<serde_json::Value> = findings
        .iter()
        .enumerate()
        .map(|(index, finding)| {
            let metrics: serde_json::Map<String, serde_json::Value> =
                finding.evidence.iter().map(|evidence| (evidence.metric.clone(), json!(evidence.value))).collect();
            json!({
                "fact_type": finding.code,
                "window": {"view_type": "time_range", "epoch": null, "step": null, "time_bucket": null,
                           "t0_ns": analysis.raw.first_ts.saturating_mul(1000), "t1_ns": analysis.raw.last_end.saturating_mul(1000)},
                "scope": {"workload": analysis.preset.name, "layer": finding.scope, "entity": null, "rank_set": null, "node": null},
                "evidence": {"metrics": metrics, "crossed": finding.crossed, "why": finding.why},
                "severity": {"score": finding.score, "label": finding.label.name(), "method": "rule"},
                "confidence": 1.0,
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
        "facts": facts,
    })
}

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
pub(crate) fn render(
    findings: &[Finding],
    preset: &str,
    recurrences: Option<&std::collections::BTreeMap<&'static str, Recurrence>>,
) -> String {
    if findings.is_empty() {
        return format!("No findings ({preset}).\n");
    }
    let mut groups: Vec<(&'static str, Vec<&Finding>)> = Vec::new();
    for finding in findings {
        let key = cause(finding);
        match groups.iter_mut().find(|(cause, _)| *cause == key) {
            Some((_, members)) => members.push(finding),
            None => groups.push((key, vec![finding])),
        }
    }
    let mut table = if recurrences.is_some() {
        Table::new(
            &format!("Findings ({}, {preset}), grouped by root cause", findings.len()),
            &["Cause", "Severity", "Score", "Code", "Windows", "Scope", "Why"],
            &[false, false, true, false, true, false, false],
        )
    } else {
        Table::new(
            &format!("Findings ({}, {preset}), grouped by root cause", findings.len()),
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
            row.push(finding.why.clone());
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

pub(crate) fn list(arguments: &RulesArguments) -> anyhow::Result<ExitCode> {
    let mut stdout = std::io::stdout().lock();
    let mut docs: Vec<(&'static str, &ioscout_diagnose::RuleDoc)> =
        rules::all().iter().map(|rule| ("trace", rule.doc())).collect();
    docs.extend(ioscout_diagnose::darshan::rules::all().iter().map(|rule| ("darshan", rule.doc())));
    if arguments.json {
        let values: Vec<serde_json::Value> = docs
            .iter()
            .map(|(input, doc)| {
                let mut value = serde_json::to_value(doc).unwrap_or_default();
                value["input"] = json!(input);
                value
            })
            .collect();
        serde_json::to_writer_pretty(&mut stdout, &values)?;
        writeln!(stdout)?;
    } else {
        let mut table = Table::new(
            &format!("Rules ({})", docs.len()),
            &["Code", "Family", "Input", "Title"],
            &[false, false, false, false],
        );
        for (input, doc) in docs {
            table.row(vec![
                doc.code.to_string(),
                doc.family.name().to_string(),
                input.to_string(),
                doc.title.to_string(),
            ]);
        }
        write!(stdout, "{}", table.render())?;
    }
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn explain(arguments: &ExplainArguments) -> anyhow::Result<ExitCode> {
    let trace = rules::find(&arguments.code).map(ioscout_diagnose::Rule::doc);
    let darshan = ioscout_diagnose::darshan::rules::find(&arguments.code)
        .map(ioscout_diagnose::darshan::DarshanRule::doc);
    if let (Some(trace), Some(darshan)) = (trace, darshan) {
        // The same pattern decided from traces and from Darshan counters.
        let mut stdout = std::io::stdout().lock();
        write!(
            stdout,
            "On DFTracer traces:\n\n{}\nOn Darshan logs:\n\n{}",
            trace.render(),
            darshan.render()
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    let doc = trace.or(darshan).with_context(|| {
        let mut codes: Vec<&str> = rules::all().iter().map(|rule| rule.doc().code).collect();
        codes.extend(ioscout_diagnose::darshan::rules::all().iter().map(|rule| rule.doc().code));
        format!("no rule {:?} (known: {})", arguments.code, codes.join(", "))
    })?;
    let mut stdout = std::io::stdout().lock();
    write!(stdout, "{}", doc.render())?;
    Ok(ExitCode::SUCCESS)
}
