//! `ioscout diagnose`, `ioscout rules` and `ioscout explain`: findings ranked by severity, the
//! rule list, and one rule's full documentation (the work is `ioscout_service::diagnose`).

use std::process::ExitCode;

use ioscout_service::diagnose::DiagnoseRequest;

use crate::cli::{DiagnoseArguments, ExplainArguments, RulesArguments};
use crate::common;

pub(crate) fn run(arguments: &DiagnoseArguments) -> anyhow::Result<ExitCode> {
    let request = DiagnoseRequest {
        preset: arguments.preset.clone(),
        rules: arguments.rules.clone(),
        min_severity: arguments.min_severity.clone(),
        fail_on: arguments.fail_on.clone(),
        bandwidth_ceiling_bps: arguments.bandwidth_ceiling,
        window_bins: arguments.window_bins,
        drishti_config: arguments.drishti_config.clone(),
    };
    let (input, bar) = common::service_input_with_progress(&arguments.input, "diagnose");
    let outcome = ioscout_service::diagnose::diagnose(&input, &request)?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    common::print(&outcome, arguments.json, arguments.input.quiet)?;
    Ok(common::exit_code(&outcome, &arguments.input))
}

pub(crate) fn list(arguments: &RulesArguments) -> anyhow::Result<ExitCode> {
    common::print(&ioscout_service::diagnose::list_rules(), arguments.json, false)?;
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn explain(arguments: &ExplainArguments) -> anyhow::Result<ExitCode> {
    common::print(&ioscout_service::diagnose::explain(&arguments.code)?, false, false)?;
    Ok(ExitCode::SUCCESS)
}
