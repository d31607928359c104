//! `ioscout darshan summary|dump|files|jobs`: the native Darshan reader's outputs, of a Darshan
//! log or of the records derived from a DFTracer trace, and statistics per file and per job over
//! many logs.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;

use crate::cli::{
    DarshanCommand, DarshanDumpArguments, DarshanStatsArguments, DarshanSummaryArguments, StatsModule,
    StatsOrder,
};

/// Runs a `darshan` subcommand.
pub(crate) fn run(command: &DarshanCommand) -> anyhow::Result<ExitCode> {
    match command {
        DarshanCommand::Summary(arguments) => summary(arguments),
        DarshanCommand::Dump(arguments) => dump(arguments),
        DarshanCommand::Files(arguments) => stats(arguments, true),
        DarshanCommand::Jobs(arguments) => stats(arguments, false),
    }
}

/// `darshan files` (`files`) or `darshan jobs`.
fn stats(arguments: &DarshanStatsArguments, files: bool) -> anyhow::Result<ExitCode> {
    use ioscout_service::darshan_stats::{Module, OrderBy, StatsRequest};
    let request = StatsRequest {
        logs: arguments.logs.clone(),
        module: match arguments.module {
            StatsModule::Posix => Module::Posix,
            StatsModule::MpiIo => Module::MpiIo,
            StatsModule::Stdio => Module::Stdio,
        },
        order_by: match arguments.order_by {
            StatsOrder::TotalBytes => OrderBy::TotalBytes,
            StatsOrder::BytesRead => OrderBy::BytesRead,
            StatsOrder::BytesWritten => OrderBy::BytesWritten,
            StatsOrder::Reads => OrderBy::Reads,
            StatsOrder::Writes => OrderBy::Writes,
            StatsOrder::Jobs => OrderBy::Jobs,
            StatsOrder::TimeBySlowest => OrderBy::TimeBySlowest,
            StatsOrder::Bandwidth => OrderBy::Bandwidth,
        },
        limit: arguments.limit,
        include: arguments.include.clone(),
        exclude: arguments.exclude.clone(),
        partial: arguments.partial,
    };
    if arguments.csv {
        let (csv, warnings) = if files {
            ioscout_service::darshan_stats::files_csv(&request)?
        } else {
            ioscout_service::darshan_stats::jobs_csv(&request)?
        };
        let mut stderr = std::io::stderr().lock();
        for warning in &warnings {
            let _ = writeln!(stderr, "ioscout: warning: {warning}");
        }
        drop(stderr);
        std::io::stdout().lock().write_all(csv.as_bytes())?;
        return Ok(ExitCode::SUCCESS);
    }
    let outcome = if files {
        ioscout_service::darshan_stats::files_outcome(&request)?
    } else {
        ioscout_service::darshan_stats::jobs_outcome(&request)?
    };
    crate::common::print(&outcome, arguments.json, false)?;
    Ok(ExitCode::SUCCESS)
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
