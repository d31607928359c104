//! `ioscout darshan summary|dump`: the native Darshan reader's outputs.

use std::fmt::Write as _;
use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use ioscout_darshan::{DarshanLog, ReadOptions};
use rayon::prelude::*;

use crate::cli::{DarshanCommand, DarshanDumpArguments, DarshanSummaryArguments};

/// Runs a `darshan` subcommand.
pub(crate) fn run(command: &DarshanCommand) -> anyhow::Result<ExitCode> {
    match command {
        DarshanCommand::Summary(arguments) => summary(arguments),
        DarshanCommand::Dump(arguments) => dump(arguments),
    }
}

fn read(path: &std::path::Path, partial: bool) -> anyhow::Result<DarshanLog> {
    let log = DarshanLog::open(path, ReadOptions { partial })?;
    for problem in &log.problems {
        #[allow(clippy::print_stderr)]
        {
            eprintln!("warning: {}: {problem}", crate::common::display_path(path));
        }
    }
    Ok(log)
}

fn summary(arguments: &DarshanSummaryArguments) -> anyhow::Result<ExitCode> {
    describe(&arguments.logs, arguments.json, arguments.partial)
}

/// The summaries of `logs`, as text or JSON (`darshan summary`, and `info` on Darshan logs).
pub(crate) fn describe(logs: &[std::path::PathBuf], json: bool, partial: bool) -> anyhow::Result<ExitCode> {
    // Logs are independent: read them in parallel, report in the order given.
    let results: Vec<anyhow::Result<serde_json::Value>> = logs
        .par_iter()
        .map(|path| {
            let log = read(path, partial)?;
            let mut value = ioscout_darshan::summary::summary(&log);
            if let Some(object) = value.as_object_mut() {
                object.insert("log".into(), serde_json::json!(crate::common::display_path(path)));
            }
            Ok(value)
        })
        .collect();
    let mut summaries = Vec::with_capacity(logs.len());
    for result in results {
        summaries.push(result?);
    }
    let mut out = std::io::stdout().lock();
    if json {
        let value =
            if summaries.len() == 1 { summaries.remove(0) } else { serde_json::Value::Array(summaries) };
        serde_json::to_writer_pretty(&mut out, &value)?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    for value in &summaries {
        write_summary(&mut out, value)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn write_summary(out: &mut impl Write, value: &serde_json::Value) -> anyhow::Result<()> {
    let text = |key: &str| {
        value.get(key).map(|field| field.to_string().trim_matches('"').to_string()).unwrap_or_default()
    };
    writeln!(out, "{}", text("log"))?;
    writeln!(
        out,
        "  format {}, {} processes, run time {} s, {} name records",
        text("version"),
        text("nprocs"),
        value
            .get("run_time")
            .and_then(serde_json::Value::as_f64)
            .map_or(String::new(), |seconds| format!("{seconds:.4}")),
        text("name_records")
    )?;
    writeln!(out, "  exe: {}", text("exe"))?;
    let modules: Vec<String> = value
        .get("modules")
        .and_then(serde_json::Value::as_array)
        .map(|modules| modules.iter().filter_map(|module| module.as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    for module in &modules {
        let Some(entry) = value.get(module) else { continue };
        let get = |key: &str| entry.get(key).and_then(serde_json::Value::as_i64);
        let prefix = match module.as_str() {
            "MPI-IO" => "MPIIO",
            other => other,
        };
        let mut line = format!("  {module:<13} {:>8} records", get("records").unwrap_or(0));
        for (label, counter) in [("opens", "OPENS"), ("reads", "READS"), ("writes", "WRITES")] {
            // MPI-IO counts its calls by kind (independent, collective, split, non-blocking).
            let kinds: Vec<i64> = ["", "INDEP_", "COLL_", "SPLIT_", "NB_"]
                .iter()
                .filter_map(|kind| get(&format!("{prefix}_{kind}{counter}")))
                .collect();
            if !kinds.is_empty() {
                let _ = write!(line, ", {} {label}", kinds.iter().filter(|count| **count > 0).sum::<i64>());
            }
        }
        for (label, counter) in [("read", "BYTES_READ"), ("written", "BYTES_WRITTEN")] {
            if let Some(bytes) = get(&format!("{prefix}_{counter}")) {
                let _ = write!(line, ", {bytes} B {label}");
            }
        }
        writeln!(out, "{line}")?;
    }
    Ok(())
}

fn dump(arguments: &DarshanDumpArguments) -> anyhow::Result<ExitCode> {
    let log = read(&arguments.log, arguments.partial)
        .with_context(|| format!("reading {}", crate::common::display_path(&arguments.log)))?;
    let text = if arguments.dxt {
        ioscout_darshan::dump::dxt(&log)
    } else {
        ioscout_darshan::dump::dump(
            &log,
            ioscout_darshan::dump::DumpOptions {
                total: arguments.total || arguments.all,
                file: arguments.file || arguments.all,
                perf: arguments.perf || arguments.all,
            },
        )
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// `ioscout diagnose` on Darshan logs: every rule on Darshan counters, per log.
pub(crate) fn diagnose(
    arguments: &crate::cli::DiagnoseArguments,
    logs: &[std::path::PathBuf],
) -> anyhow::Result<ExitCode> {
    use ioscout_diagnose::darshan::{DarshanContext, DarshanFacts, DrishtiThresholds};

    let families = crate::commands::diagnose::parse_families(arguments.rules.as_deref())?;
    let drishti_only =
        families.as_ref().is_some_and(|families| families.iter().all(|family| family == "drishti"));
    let minimum = crate::commands::diagnose::parse_label(
        arguments.min_severity.as_deref().unwrap_or(if drishti_only { "none" } else { "low" }),
    )?;
    let fail_on = arguments.fail_on.as_deref().map(crate::commands::diagnose::parse_label).transpose()?;
    let thresholds = match &arguments.drishti_config {
        Some(path) => {
            let text =
                std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
            DrishtiThresholds::from_drishti_json(&text)
                .map_err(|error| anyhow::anyhow!("{}: {error}", path.display()))?
        }
        None => DrishtiThresholds::default(),
    };
    let mut stdout = std::io::stdout().lock();
    let mut reports = Vec::new();
    let mut failed = false;
    let decoded: Vec<anyhow::Result<(DarshanLog, DarshanFacts)>> = logs
        .par_iter()
        .map(|path| {
            let log = read(path, !arguments.input.strict)?;
            let facts = DarshanFacts::from_log(&log);
            Ok((log, facts))
        })
        .collect();
    for (path, decoded) in logs.iter().zip(decoded) {
        let (log, facts) = decoded?;
        let context = DarshanContext::new(&facts, thresholds.clone());
        let findings = crate::commands::diagnose::select(
            ioscout_diagnose::darshan::diagnose(&context),
            minimum,
            families.as_deref(),
        );
        failed |= fail_on.is_some_and(|level| findings.iter().any(|finding| finding.label >= level));
        let metric = ioscout_diagnose::choose_metric(&findings);
        if arguments.json {
            reports.push(serde_json::json!({
                "schema_version": "analyzer.fact-envelope.v1",
                "context": {
                    "log": crate::common::display_path(path),
                    "source": "darshan",
                    "darshan_version": log.header.version,
                    "nprocs": log.job.nprocs,
                    "run_time_s": log.run_time(),
                    "modules": facts.modules,
                    "io_share": context.io_share(),
                    "metric_to_optimise": metric,
                    "problems": log.problems,
                },
                "facts": findings.iter().enumerate().map(|(index, finding)| serde_json::json!({
                    "fact_type": finding.code,
                    "fact_id": format!("{}-{index}", finding.code),
                    "family": finding.family.name(),
                    "title": finding.title,
                    "scope": {"layer": finding.scope},
                    "evidence": {
                        "metrics": finding.evidence.iter().map(|evidence| (evidence.metric.clone(), serde_json::json!(evidence.value))).collect::<serde_json::Map<String, serde_json::Value>>(),
                        "crossed": finding.crossed,
                        "why": finding.why,
                    },
                    "severity": {"score": finding.score, "label": finding.label.name(), "method": "rule"},
                    "confidence": 1.0,
                })).collect::<Vec<_>>(),
            }));
        } else {
            writeln!(
                stdout,
                "{}: Darshan {}, {} processes, {:.1} s, I/O on the critical path {:.1} % of the run time",
                crate::common::display_path(path),
                log.header.version,
                log.job.nprocs,
                log.run_time(),
                context.io_share() * 100.0
            )?;
            write!(stdout, "{}", crate::commands::diagnose::render(&findings, "Darshan counters", None))?;
            writeln!(stdout, "Metric to optimise: {} ({})\n", metric.metric, metric.reason)?;
        }
    }
    if arguments.json {
        let value = if reports.len() == 1 { reports.remove(0) } else { serde_json::Value::Array(reports) };
        serde_json::to_writer_pretty(&mut stdout, &value)?;
        writeln!(stdout)?;
    }
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
