//! One module per subcommand; [`run`] dispatches on the parsed command.

mod advise;
mod analyze;
mod count;
mod darshan;
pub(crate) mod diagnose;
mod export;
mod index;
mod info;
mod mcp;
mod organize;
mod query;
mod report;
mod tune;
mod view;

use std::process::ExitCode;

use crate::cli::{Arguments, Command};

/// Runs the command and returns its exit code.
pub(crate) fn run(arguments: &Arguments) -> anyhow::Result<ExitCode> {
    if let Some(cluster) = crate::job::current()
        && cluster.size() > 1
        && !matches!(
            arguments.command,
            Command::Index(_) | Command::Query(_) | Command::Analyze(_) | Command::Diagnose(_)
        )
    {
        // Every rank refuses alike, before any collective step.
        return Err(ioscout_service::ServiceError::BadRequest(
            "under MPI ioscout runs index, query, analyze and diagnose; start this command as one process, without the launcher".into(),
        )
        .into());
    }
    match &arguments.command {
        Command::Count(count) => count::run(count),
        Command::Info(info) => info::run(info),
        Command::View(view) => view::run(view),
        Command::Index(index) => index::run(index),
        Command::Query(query) => query::run(query),
        Command::Analyze(analyze) => analyze::run(analyze),
        Command::Diagnose(arguments) => diagnose::run(arguments),
        Command::Rules(arguments) => diagnose::list(arguments),
        Command::Explain(arguments) => diagnose::explain(arguments),
        Command::Detect(command) => diagnose::detect(command),
        Command::Darshan(command) => darshan::run(command),
        Command::Advise(arguments) => advise::run(arguments),
        Command::Compare(arguments) => advise::compare(arguments),
        Command::Kb(command) => advise::kb(command),
        Command::Runs(command) => advise::runs(command),
        Command::Mcp(arguments) => mcp::run(arguments),
        Command::Tune(arguments) => tune::run(arguments),
        Command::Optimize(arguments) => tune::optimize(arguments),
        Command::Report(arguments) => report::run(arguments),
        Command::Export(arguments) => export::run(arguments),
        Command::Organize(arguments) => organize::run(arguments),
        Command::Reconstruct(arguments) => organize::reconstruct(arguments),
    }
}
