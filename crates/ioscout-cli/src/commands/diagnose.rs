//! `ioscout diagnose`, `ioscout rules`, `ioscout explain` and `ioscout detect`: findings ranked by
//! severity, the rule list, one rule's documentation or a pattern's card, and the detector's
//! feature vectors (the work is `ioscout_service::diagnose` and `ioscout_service::detect`).

use std::process::ExitCode;

use ioscout_service::diagnose::DiagnoseRequest;

use crate::cli::{
    DetectCommand, DetectFeaturesArguments, DiagnoseArguments, ExplainArguments, RulesArguments,
};
use crate::common;

pub(crate) fn run(arguments: &DiagnoseArguments) -> anyhow::Result<ExitCode> {
    let request = DiagnoseRequest {
        preset: arguments.preset,
        rules: arguments.rules.clone(),
        min_severity: arguments.min_severity,
        fail_on: arguments.fail_on,
        bandwidth_ceiling_bps: arguments.bandwidth_ceiling,
        window_bins: arguments.window_bins,
        drishti_config: arguments.drishti_config.clone(),
        detector: arguments.detector,
        model: arguments.model.clone(),
        all: arguments.all,
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
    let outcome = ioscout_service::diagnose::explain(&arguments.code, arguments.model.as_deref())?;
    common::print(&outcome, arguments.json, false)?;
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn detect(command: &DetectCommand) -> anyhow::Result<ExitCode> {
    match command {
        DetectCommand::Features(arguments) => features(arguments),
    }
}

fn features(arguments: &DetectFeaturesArguments) -> anyhow::Result<ExitCode> {
    if arguments.list {
        common::print(&ioscout_service::detect::feature_list(), arguments.json, false)?;
        return Ok(ExitCode::SUCCESS);
    }
    let input = ioscout_service::Input {
        paths: arguments.paths.clone(),
        strict: arguments.strict,
        ..ioscout_service::Input::default()
    };
    common::print(&ioscout_service::detect::features(&input)?, arguments.json, false)?;
    Ok(ExitCode::SUCCESS)
}
