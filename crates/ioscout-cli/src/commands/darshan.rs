//! `ioscout darshan summary|dump`: the native Darshan reader's outputs.

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
    let outcome = ioscout_service::darshan::summaries(&arguments.logs, arguments.partial)?;
    crate::common::print(&outcome, arguments.json, false)?;
    Ok(ExitCode::SUCCESS)
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
