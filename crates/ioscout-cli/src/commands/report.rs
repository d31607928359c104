//! `ioscout report`: the HTML report (`ioscout_service::report`) written to a file.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context as _;
use ioscout_service::report::ReportRequest;

use crate::cli::ReportArguments;
use crate::common;

pub(crate) fn run(arguments: &ReportArguments) -> anyhow::Result<ExitCode> {
    if let Some(logs) = ioscout_service::darshan_inputs(&arguments.input.paths)? {
        return darshan_log(arguments, &logs);
    }
    if arguments.file.is_some() {
        return Err(ioscout_service::ServiceError::BadRequest(
            "--file applies to a Darshan log; of traces, `ioscout query --where 'file == \"PATH\"'` lists one file's events".into(),
        )
        .into());
    }
    let request = ReportRequest { preset: arguments.preset, ..ReportRequest::default() };
    let (input, bar) = common::service_input_with_progress(&arguments.input, "report");
    let report = ioscout_service::report::report(&input, &request)?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    std::fs::write(&arguments.output, &report.html)
        .with_context(|| format!("writing {}", arguments.output.display()))?;
    if !arguments.input.quiet {
        wrote(arguments, report.charts, report.findings, report.html.len());
    }
    Ok(common::finish(&report.scan, &arguments.input))
}

/// The job-summary page of one Darshan log.
fn darshan_log(arguments: &ReportArguments, logs: &[std::path::PathBuf]) -> anyhow::Result<ExitCode> {
    let [log] = logs else {
        return Err(ioscout_service::ServiceError::BadRequest(format!(
            "give one Darshan log at a time; got {}",
            logs.len()
        ))
        .into());
    };
    let report =
        ioscout_service::report::darshan_report(log, !arguments.input.strict, arguments.file.as_deref())?;
    std::fs::write(&arguments.output, &report.html)
        .with_context(|| format!("writing {}", arguments.output.display()))?;
    if !arguments.input.quiet {
        let mut stderr = std::io::stderr().lock();
        for problem in &report.problems {
            let _ = writeln!(stderr, "ioscout: warning: {problem}");
        }
        drop(stderr);
        wrote(arguments, report.charts, report.findings, report.html.len());
    }
    Ok(ExitCode::SUCCESS)
}

/// Says on stderr what was written.
fn wrote(arguments: &ReportArguments, charts: usize, findings: usize, bytes: usize) {
    let _ = writeln!(
        std::io::stderr().lock(),
        "ioscout: wrote {} ({charts} charts, {findings} findings, {} KiB)",
        arguments.output.display(),
        bytes / 1024
    );
}
