//! `ioscout count`: events per file and in total, by phase; of Darshan logs, the DXT segments
//! per module (`ioscout_service::segments::count`).

use std::process::ExitCode;

use crate::cli::CountArguments;
use crate::common;

pub(crate) fn run(arguments: &CountArguments) -> anyhow::Result<ExitCode> {
    if let Some(logs) = ioscout_service::darshan_inputs(&arguments.input.paths)? {
        let outcome = ioscout_service::segments::count(&logs, !arguments.input.strict)?;
        common::print(&outcome, arguments.json, arguments.input.quiet)?;
        return Ok(ExitCode::SUCCESS);
    }
    let (input, bar) = common::service_input_with_progress(&arguments.input, "counting");
    let outcome = ioscout_service::count::count(&input)?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    common::print(&outcome, arguments.json, arguments.input.quiet)?;
    Ok(common::exit_code(&outcome, &arguments.input))
}
