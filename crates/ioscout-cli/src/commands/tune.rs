//! `ioscout tune`: autotuning with the mock surface or local processes (the work is
//! `ioscout_service::tune`); `ioscout optimize`: advice measured (`ioscout_service::optimize`).

use std::process::ExitCode;

use ioscout_service::tune::TuneRequest;
use ioscout_tune::TuneOptions;

use crate::cli::{OptimizeArguments, TuneArguments};
use crate::common;

pub(crate) fn run(arguments: &TuneArguments) -> anyhow::Result<ExitCode> {
    let request = TuneRequest {
        spec: arguments.spec.clone(),
        options: TuneOptions {
            strategy: arguments.strategy.clone(),
            budget: arguments.budget,
            seed: arguments.seed,
            subset: !arguments.no_subset,
            validate: !arguments.no_validate,
            kb: None,
        },
        kb: arguments.kb.clone(),
        no_kb: arguments.no_kb,
    };
    let outcome = ioscout_service::tune::tune(&request)?;
    common::print(&outcome, arguments.json, false)?;
    Ok(if outcome.flagged { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

pub(crate) fn optimize(arguments: &OptimizeArguments) -> anyhow::Result<ExitCode> {
    let request = ioscout_service::optimize::OptimizeRequest {
        spec: arguments.spec.clone(),
        kb: arguments.kb.clone(),
        no_kb: arguments.no_kb,
        pairs: arguments.pairs,
        fs_type: arguments.fs_type.clone(),
        preload: arguments.preload.clone(),
    };
    let outcome = ioscout_service::optimize::optimize(&request)?;
    common::print(&outcome, arguments.json, false)?;
    Ok(if outcome.flagged { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
