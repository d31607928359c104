//! `ioscout analyze`: DFAnalyzer's summary and layer breakdown and its JSON schema (the work is
//! `ioscout_service::analyze`), and per-view detail tables as CSV or Parquet.

use std::process::ExitCode;

use ioscout_service::analyze::AnalyzeRequest;

use crate::cli::{AnalyzeArguments, Compatibility, DetailFormat};
use crate::common;

pub(crate) fn run(arguments: &AnalyzeArguments) -> anyhow::Result<ExitCode> {
    let request = AnalyzeRequest {
        preset: arguments.preset,
        views: vec![arguments.view.clone()],
        time_granularity_s: arguments.time_granularity,
        overlap: arguments.overlap,
        dfanalyzer_compat: arguments.compat == Some(Compatibility::Dfanalyzer),
    };
    let (input, bar) = common::service_input_with_progress(&arguments.input, "analyze");
    let (outcome, analysis) = ioscout_service::analyze::analyze_keeping(&input, &request)?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    // Under MPI every rank holds the analysis; rank 0 alone writes the tables.
    if let Some(directory) =
        arguments.out.as_ref().filter(|_| crate::job::current().is_none_or(|job| job.rank() == 0))
    {
        let format = match arguments.out_format {
            DetailFormat::Csv => ioscout_service::analyze::DetailFormat::Csv,
            DetailFormat::Parquet => ioscout_service::analyze::DetailFormat::Parquet,
        };
        ioscout_service::analyze::write_details(&analysis, directory, format)?;
    }
    common::print(&outcome, arguments.json, arguments.input.quiet)?;
    Ok(common::exit_code(&outcome, &arguments.input))
}
