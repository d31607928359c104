//! `ioscout analyze`: DFAnalyzer's summary and layer breakdown and its JSON schema (the work is
//! `ioscout_service::analyze`), and per-view detail tables as CSV or Parquet; `--follow`
//! re-analyses a trace still being written as it grows.

use std::io::Write as _;
use std::process::ExitCode;

use ioscout_service::analyze::AnalyzeRequest;

use crate::cli::{AnalyzeArguments, Compatibility, DetailFormat};
use crate::common;

pub(crate) fn run(arguments: &AnalyzeArguments) -> anyhow::Result<ExitCode> {
    if let Some(logs) = ioscout_service::darshan_inputs(&arguments.input.paths)? {
        return darshan_logs(arguments, &logs);
    }
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

/// `--follow`: analyses, then waits for the files to change and analyses again, until nothing
/// has changed for `--settle` seconds and no member is unfinished. Each look reads only what
/// changed where the earlier result still holds ([`ioscout_analysis::follow::Follower`]) and
/// prints one line: events, job time and what changed, the busiest layers' change, what is still
/// being written and what was read. An index that exists for the trace is kept current at every
/// look: the files that ended cleanly are handed to the index build, which extends a grown file
/// from its indexed end ([`ioscout_service::index::refresh`]). The result printed at the end is a
/// cold analysis of the finished trace (with the evidence, which a look does not replay).
fn follow(
    arguments: &AnalyzeArguments,
    request: &AnalyzeRequest,
) -> anyhow::Result<(ioscout_service::Outcome, ioscout_analysis::Analysis)> {
    let interval = std::time::Duration::from_secs_f64(arguments.interval.clamp(0.05, 3600.0));
    let settle = std::time::Duration::from_secs_f64(arguments.settle.clamp(0.0, 86_400.0));
    let mut stderr = std::io::stderr();
    let mut follower = ioscout_analysis::follow::Follower::new(&request.options()?)?;
    let mut previous: Option<ioscout_analysis::Analysis> = None;
    loop {
        let before = ioscout_read::snapshot(&arguments.input.paths);
        let input = common::service_input(&arguments.input, None);
        let (files, input_problems) = input.discover()?;
        let step = follower.step(&input.scanner(), &files, &input_problems)?;
        let coverage = step.report.coverage(std::time::SystemTime::now(), settle);
        let index_lines =
            ioscout_service::index::refresh_after(&files, &step.report, None, arguments.input.threads);
        if !arguments.input.quiet {
            let mut line = look_line(&step, previous.as_ref(), &coverage);
            for index_line in &index_lines {
                line.push_str("; ");
                line.push_str(index_line);
            }
            let _ = writeln!(stderr, "ioscout: follow: {line}");
        }
        previous = Some(step.analysis);
        let unfinished =
            coverage.growing.iter().any(|file| file.growth.contains(&ioscout_read::Growth::UnfinishedMember));
        // Wait for a change, or for the trace to settle.
        let watch = ioscout_read::Watch { settle, poll: interval, may_settle: !unfinished, deadline: None };
        let changed = matches!(
            ioscout_read::wait_for_change(&arguments.input.paths, &before, watch),
            ioscout_read::Waited::Changed(_)
        );
        if changed {
            // Let a burst of appends land before reading again.
            std::thread::sleep(interval);
        }
        if !changed {
            let input = common::service_input(&arguments.input, None);
            return Ok(ioscout_service::analyze::analyze_keeping(&input, request)?);
        }
    }
}

/// The line of one look: `1200 events, job 3.210 s (+40 events, job +0.400 s); POSIX read
/// +0.120 s, compute +0.300 s; 1 file still being written, 1 of 2 processes, every event before
/// 2.900 s is in; read 12.0 KiB of 80.0 KiB (1 file extended, 3 unchanged, 0 read whole)`.
fn look_line(
    step: &ioscout_analysis::follow::Step,
    previous: Option<&ioscout_analysis::Analysis>,
    coverage: &ioscout_read::Coverage,
) -> String {
    use std::fmt::Write as _;
    let raw = &step.analysis.raw;
    let mut line = format!("{} events, job {:.3} s", raw.total_event_count, raw.job_time_s);
    if let Some(previous) = previous {
        let _ = write!(
            line,
            " ({:+} events, job {:+.3} s)",
            raw.total_event_count as i64 - previous.raw.total_event_count as i64,
            raw.job_time_s - previous.raw.job_time_s
        );
        let mut changes: Vec<(f64, &str)> = step
            .analysis
            .summary()
            .iter()
            .map(|layer| {
                let before = previous
                    .summary()
                    .iter()
                    .find(|old| old.layer == layer.layer)
                    .map_or(0.0, |old| old.time_s);
                (layer.time_s - before, layer.label.as_str())
            })
            .filter(|(change, _)| change.abs() >= 0.0005)
            .collect();
        changes.sort_by(|a, b| b.0.abs().total_cmp(&a.0.abs()));
        if !changes.is_empty() {
            let shown: Vec<String> =
                changes.iter().take(3).map(|(change, label)| format!("{label} {change:+.3} s")).collect();
            let _ = write!(line, "; {}", shown.join(", "));
        }
    }
    let growing = coverage.growing.len();
    if growing > 0 {
        let _ =
            write!(line, "; {growing} {} still being written", if growing == 1 { "file" } else { "files" });
        line.push_str(&ioscout_service::coverage_detail(coverage).replacen(';', ",", 2));
    } else {
        line.push_str("; no file being written");
    }
    let reading = &step.reading;
    let _ = write!(
        line,
        "; read {} of {} ({} extended, {} unchanged, {} read whole{})",
        ioscout_service::text::bytes(reading.bytes_read),
        ioscout_service::text::bytes(reading.bytes_total),
        reading.files_extended,
        reading.files_unchanged,
        reading.files_read_whole,
        if reading.files_folded_again > 0 {
            format!(", {} folded again: an earlier result no longer held", reading.files_folded_again)
        } else {
            String::new()
        }
    );
    line
}

/// `analyze LOG...`: the module breakdown of each log; the options that shape a trace's
/// analysis are refused rather than ignored.
fn darshan_logs(arguments: &AnalyzeArguments, logs: &[std::path::PathBuf]) -> anyhow::Result<ExitCode> {
    let trace_only = [
        ("--follow", arguments.follow),
        ("--out", arguments.out.is_some()),
        ("--compat", arguments.compat.is_some()),
    ];
    if let Some((option, _)) = trace_only.iter().find(|(_, given)| *given) {
        return Err(ioscout_service::ServiceError::BadRequest(format!(
            "{option} applies to DFTracer traces; `analyze` gives a Darshan log's module breakdown"
        ))
        .into());
    }
    let outcome = ioscout_service::darshan::analyze_logs(logs, !arguments.input.strict)?;
    common::print(&outcome, arguments.json, arguments.input.quiet)?;
    Ok(ExitCode::SUCCESS)
}
