//! `ioscout analyze`: DFAnalyzer's summary and layer breakdown and its JSON schema (the work is
//! `ioscout_service::analyze`), and per-view detail tables as CSV or Parquet; `--follow`
//! re-analyses a trace still being written as it grows.

use std::io::Write as _;
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
    let (outcome, analysis) = if arguments.follow {
        follow(arguments, &request)?
    } else {
        let (input, bar) = common::service_input_with_progress(&arguments.input, "analyze");
        let analysed = ioscout_service::analyze::analyze_keeping(&input, &request)?;
        if let Some(bar) = bar {
            bar.finish_and_clear();
        }
        analysed
    };
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

/// The figures one line of `--follow` reports: events, job time, files still being written.
fn figures(outcome: &ioscout_service::Outcome) -> (u64, f64, usize) {
    let value = outcome.value_with_scan();
    (
        value["raw_stats"]["total_event_count"].as_u64().unwrap_or(0),
        value["raw_stats"]["job_time_s"].as_f64().unwrap_or(0.0),
        value["scan"]["coverage"]["files_growing"].as_array().map_or(0, Vec::len),
    )
}

/// `--follow`: analyses, then waits for the files to change and analyses again, until nothing
/// has changed for `--settle` seconds and no member is unfinished. Each analysis is a whole
/// one of what is on disk then, so the last equals a cold analysis of the finished trace.
fn follow(
    arguments: &AnalyzeArguments,
    request: &AnalyzeRequest,
) -> anyhow::Result<(ioscout_service::Outcome, ioscout_analysis::Analysis)> {
    let interval = std::time::Duration::from_secs_f64(arguments.interval.clamp(0.05, 3600.0));
    let settle = std::time::Duration::from_secs_f64(arguments.settle.clamp(0.0, 86_400.0));
    let mut stderr = std::io::stderr();
    let mut previous: Option<(u64, f64, usize)> = None;
    loop {
        let before = ioscout_read::snapshot(&arguments.input.paths);
        let input = common::service_input(&arguments.input, None);
        let (outcome, analysis) = ioscout_service::analyze::analyze_keeping(&input, request)?;
        let (events, job, growing) = figures(&outcome);
        if !arguments.input.quiet {
            let change = previous.map_or(String::new(), |(old_events, old_job, _)| {
                format!(" ({:+} events, job {:+.3} s)", events as i64 - old_events as i64, job - old_job)
            });
            let state = if growing > 0 {
                format!("{growing} {} still being written", if growing == 1 { "file" } else { "files" })
            } else {
                "no file being written".to_string()
            };
            let _ = writeln!(stderr, "ioscout: follow: {events} events, job {job:.3} s{change}; {state}");
        }
        previous = Some((events, job, growing));
        // Wait for a change, or for the trace to settle.
        let unchanged_since = std::time::Instant::now();
        loop {
            std::thread::sleep(interval);
            if ioscout_read::snapshot(&arguments.input.paths) != before {
                // Let a burst of appends land before reading again.
                std::thread::sleep(interval);
                break;
            }
            let unfinished = outcome
                .report
                .as_ref()
                .map(|report| report.coverage(std::time::SystemTime::now(), settle))
                .is_some_and(|coverage| {
                    coverage
                        .growing
                        .iter()
                        .any(|file| file.growth.contains(&ioscout_read::Growth::UnfinishedMember))
                });
            if unchanged_since.elapsed() >= settle && !unfinished {
                return Ok((outcome, analysis));
            }
        }
    }
}
