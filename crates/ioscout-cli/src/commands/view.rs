//! `ioscout view`: matching events with resolved host and file names, as JSON lines, CSV or
//! Parquet (the work is `ioscout_service::view`); of a Darshan log, its DXT segments as events
//! (`ioscout_service::segments`).

use std::process::ExitCode;

use ioscout_service::view::{Output, ViewFormat};

use crate::cli::{ViewArguments, ViewFormat as FormatArgument};
use crate::common;

/// The service's format for the command line's.
pub(crate) fn format_of(format: FormatArgument) -> ViewFormat {
    match format {
        FormatArgument::Jsonl => ViewFormat::Jsonl,
        FormatArgument::Csv => ViewFormat::Csv,
        FormatArgument::Parquet => ViewFormat::Parquet,
    }
}

/// Stdout as an event sink; Parquet to a terminal is refused (it is binary).
pub(crate) fn stdout_sink(format: Option<ViewFormat>) -> anyhow::Result<ioscout_service::view::Sink> {
    use std::io::IsTerminal;
    // Under MPI every rank's stdout is the launcher's pseudo-terminal, whatever the user's is.
    if format == Some(ViewFormat::Parquet)
        && std::io::stdout().is_terminal()
        && crate::job::current().is_none()
    {
        anyhow::bail!(
            "Parquet output is binary: redirect stdout to a file (… --format parquet > events.parquet)"
        );
    }
    Ok(Box::new(std::io::stdout()))
}

pub(crate) fn run(arguments: &ViewArguments) -> anyhow::Result<ExitCode> {
    let format = format_of(arguments.format);
    let output = Output::new(format, arguments.select.as_deref())?;
    if let Some(logs) = ioscout_service::darshan_inputs(&arguments.input.paths)? {
        let predicate = arguments.filter.as_deref().map(ioscout_query::Predicate::parse).transpose()?;
        let (report, _) = ioscout_service::segments::view(
            &logs,
            !arguments.input.strict,
            predicate.as_ref(),
            arguments.limit,
            &output,
            stdout_sink(Some(format))?,
        )?;
        return Ok(common::finish_segments(&report, arguments.input.quiet));
    }
    let input = common::service_input(&arguments.input, None);
    let report = ioscout_service::view::view(
        &input,
        arguments.filter.as_deref(),
        arguments.limit,
        &output,
        stdout_sink(Some(format))?,
    )?;
    Ok(common::finish(&report, &arguments.input))
}
