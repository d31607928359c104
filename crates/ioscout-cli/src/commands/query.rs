//! `ioscout query`: matching events or aggregates, reading only the chunks the index cannot rule
//! out (the planning and the scan are `ioscout_service::query`); of a Darshan log, over its DXT
//! segments (`ioscout_service::segments`).

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
    if let Some(logs) = ioscout_service::darshan_inputs(&arguments.input.paths)? {
        let (report, _) = ioscout_service::segments::query(
            &logs,
            !arguments.input.strict,
            &request,
            super::view::stdout_sink(format)?,
        )?;
        return Ok(common::finish_segments(&report, arguments.input.quiet));
    }
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
