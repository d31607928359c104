//! `ioscout query`: matching events or aggregates, reading only the chunks the index cannot rule
//! out (the planning and the scan are `ioscout_service::query`).

use std::io::Write;
use std::process::ExitCode;

use ioscout_service::query::QueryRequest;

use crate::cli::QueryArguments;
use crate::common;

pub(crate) fn run(arguments: &QueryArguments) -> anyhow::Result<ExitCode> {
    let format = arguments.format.map(super::view::format_of);
    let request = QueryRequest {
        filter: arguments.filter.clone(),
        limit: arguments.limit,
        select: arguments.select.clone(),
        format,
        no_index: arguments.no_index,
        group_by: arguments.group_by.clone(),
        aggregate: arguments.agg.clone(),
        index_dir: arguments.index_dir.clone(),
        batches: None,
    };
    let (input, bar) = common::service_input_with_progress(&arguments.input, "querying");
    let report = ioscout_service::query::query(&input, &request, super::view::stdout_sink(format)?)?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if !arguments.input.quiet {
        let mut stderr = std::io::stderr().lock();
        for note in &report.notes {
            let _ = writeln!(stderr, "ioscout: {note}");
        }
    }
    Ok(common::finish(&report.scan, &arguments.input))
}
