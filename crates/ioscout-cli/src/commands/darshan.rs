//! `ioscout darshan summary|dump`: the native Darshan reader's outputs, of a Darshan log or of the
//! records derived from a DFTracer trace.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;

use crate::cli::{DarshanCommand, DarshanDumpArguments, DarshanSummaryArguments};

/// Runs a `darshan` subcommand.
pub(crate) fn run(command: &DarshanCommand) -> anyhow::Result<ExitCode> {
    match command {
        DarshanCommand::Summary(arguments) => summary(arguments),
        DarshanCommand::Dump(arguments) => dump(arguments),
    }
}

fn summary(arguments: &DarshanSummaryArguments) -> anyhow::Result<ExitCode> {
    if arguments.group_by.is_some() || arguments.top.is_some() || arguments.by.is_some() {
        let request = ioscout_service::darshan::ManyLogsRequest {
            logs: arguments.logs.clone(),
            group_by: arguments.group_by.unwrap_or_default(),
            top: arguments.top.unwrap_or(10),
            by: arguments.by.unwrap_or_default(),
            partial: arguments.partial,
        };
        let outcome = ioscout_service::darshan::summary_over(&request)?;
        crate::common::print(&outcome, arguments.json, false)?;
        return Ok(ExitCode::SUCCESS);
    }
    let outcome = ioscout_service::darshan::summaries(&arguments.logs, arguments.partial)?;
    crate::common::print(&outcome, arguments.json, false)?;
    Ok(ExitCode::SUCCESS)
}

fn dump(arguments: &DarshanDumpArguments) -> anyhow::Result<ExitCode> {
    let options = ioscout_darshan::dump::DumpOptions {
        total: arguments.total || arguments.all,
        file: arguments.file || arguments.all,
        perf: arguments.perf || arguments.all,
    };
    let outcome = ioscout_service::darshan::dump(&arguments.log, arguments.partial, options, arguments.dxt)
        .with_context(|| format!("reading {}", crate::common::display_path(&arguments.log)))?;
    for warning in &outcome.warnings {
        #[allow(clippy::print_stderr)]
        {
            eprintln!("warning: {warning}");
        }
    }
    let mut out = std::io::stdout().lock();
    out.write_all(outcome.text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}
