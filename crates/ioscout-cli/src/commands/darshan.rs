//! `ioscout darshan summary|dump`: the native Darshan reader's outputs.

use std::fmt::Write as _;
use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use ioscout_darshan::{DarshanLog, ReadOptions};

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
    let mut summaries = Vec::with_capacity(arguments.logs.len());
    for path in &arguments.logs {
        let log = read(path, arguments.partial)?;
        let mut value = ioscout_darshan::summary::summary(&log);
        if let Some(object) = value.as_object_mut() {
            object.insert("log".into(), serde_json::json!(crate::common::display_path(path)));
        }
        summaries.push(value);
    }
    let mut out = std::io::stdout().lock();
    if arguments.json {
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
            if let Some(count) = get(&format!("{prefix}_{counter}")) {
                let _ = write!(line, ", {count} {label}");
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
