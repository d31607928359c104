//! One module per subcommand; [`run`] dispatches on the parsed command.

mod count;
mod info;
mod view;

use std::process::ExitCode;

use crate::cli::{Arguments, Command};

/// Runs the command and returns its exit code.
pub(crate) fn run(arguments: &Arguments) -> anyhow::Result<ExitCode> {
    match &arguments.command {
        Command::Count(count) => count::run(count),
        Command::Info(info) => info::run(info),
        Command::View(view) => view::run(view),
    }
}
