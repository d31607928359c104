//! `ioscout info`: per file the detected generation, compression, events, time span, processes,
//! hosts, files named and categories, and the totals; Darshan logs get their summaries.

use std::process::ExitCode;

use crate::cli::InfoArguments;
use crate::common;

pub(crate) fn run(arguments: &InfoArguments) -> anyhow::Result<ExitCode> {
    let (input, bar) = common::service_input_with_progress(&arguments.input, "reading");
    let outcome = ioscout_service::info::info(&input)?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    common::print(&outcome, arguments.json, arguments.input.quiet)?;
    Ok(common::exit_code(&outcome, &arguments.input))
}
