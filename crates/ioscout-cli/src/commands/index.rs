//! `ioscout index`: build or refresh the sidecar index of each trace directory.

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use ioscout_index::build::{BuildOptions, build, build_distributed};
use serde::Serialize;

use crate::cli::IndexArguments;
use crate::common;

#[derive(Serialize)]
struct DirectoryOutcome {
    directory: String,
    index: String,
    indexed_files: usize,
    unchanged_files: usize,
    removed_files: usize,
    chunks: usize,
    index_bytes: u64,
    trace_bytes: u64,
    index_share_of_trace: f64,
    seconds: f64,
    problem_count: u64,
    messages: Vec<String>,
}

/// `ioscout index`: one index per trace directory.
pub(crate) fn run(arguments: &IndexArguments) -> anyhow::Result<ExitCode> {
    let (files, input_problems) = common::discover(&arguments.input);
    let mut stderr = std::io::stderr().lock();
    for problem in &input_problems {
        writeln!(stderr, "ioscout: warning: {}: {}", problem.path.display(), problem.detail)?;
    }
    if files.is_empty() {
        writeln!(stderr, "ioscout: error: no trace file to index")?;
        return Ok(ExitCode::from(2));
    }
    let bar = common::progress_bar(&arguments.input, files.iter().map(|file| file.size).sum(), "indexing");
    let options = BuildOptions {
        threads: common::scan_options(&arguments.input, None).threads,
        chunk_bytes: arguments.chunk_kib * 1024,
        index_dir: arguments.index_dir.clone(),
        force: arguments.force,
        progress: common::scan_options(&arguments.input, bar.as_ref()).progress,
    };
    let mut outcomes = Vec::new();
    let mut failed = false;
    let mut problems = 0;
    let mut summaries = Vec::new();
    for (directory, group) in ioscout_service::query::by_directory(&files) {
        let started = Instant::now();
        let built = match crate::job::current() {
            Some(cluster) => build_distributed(&directory, &group, &options, cluster.as_ref()),
            None => build(&directory, &group, &options),
        };
        match built {
            Ok(report) => {
                if !arguments.input.quiet {
                    for message in &report.messages {
                        writeln!(stderr, "ioscout: {message}")?;
                    }
                    for problem in report.scan.problems() {
                        writeln!(stderr, "ioscout: warning: {problem}")?;
                    }
                }
                problems += report.scan.problem_count();
                summaries.extend(report.scan.files.iter().cloned());
                outcomes.push(DirectoryOutcome {
                    directory: directory.display().to_string(),
                    index: report.index_path.display().to_string(),
                    indexed_files: report.indexed,
                    unchanged_files: report.unchanged,
                    removed_files: report.removed,
                    chunks: report.chunks,
                    index_bytes: report.index_bytes,
                    trace_bytes: report.trace_bytes,
                    index_share_of_trace: report.index_bytes as f64 / report.trace_bytes.max(1) as f64,
                    seconds: started.elapsed().as_secs_f64(),
                    problem_count: report.scan.problem_count(),
                    messages: report.messages,
                });
            }
            Err(error) => {
                failed = true;
                writeln!(stderr, "ioscout: error: {}: {error}", directory.display())?;
            }
        }
    }
    drop(stderr);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    // What was read and what was not (named paths that could not be used included).
    let scan = ioscout_read::ScanReport::assemble(&input_problems, arguments.input.max_problems, summaries);
    if arguments.json {
        // The directories, and `scan`, as every `--json` output carries it.
        let value = serde_json::json!({
            "directories": outcomes,
            "scan": ioscout_service::scan_json(&scan),
        });
        serde_json::to_writer_pretty(&mut stdout, &value)?;
        writeln!(stdout)?;
    } else {
        for outcome in &outcomes {
            writeln!(
                stdout,
                "{}: {} indexed, {} unchanged, {} removed; {} chunks; {} ({:.0} KiB, {:.2}% of {:.1} MiB of trace) in {:.2} s",
                outcome.directory,
                ioscout_service::text::count_of(outcome.indexed_files as u64, "file", "files"),
                outcome.unchanged_files,
                outcome.removed_files,
                outcome.chunks,
                outcome.index,
                outcome.index_bytes as f64 / 1024.0,
                outcome.index_share_of_trace * 100.0,
                outcome.trace_bytes as f64 / (1024.0 * 1024.0),
                outcome.seconds
            )?;
        }
    }
    stdout.flush()?;
    if failed || (arguments.input.strict && (problems > 0 || !input_problems.is_empty())) {
        return Ok(ExitCode::from(2));
    }
    let named = common::unreadable_named_inputs(&scan, &arguments.input);
    if !named.is_empty() {
        let listed: Vec<String> = named.iter().map(|path| path.display().to_string()).collect();
        writeln!(
            std::io::stderr(),
            "ioscout: error: named inputs that could not be read: {}",
            listed.join(", ")
        )?;
        return Ok(ExitCode::from(2));
    }
    Ok(ExitCode::SUCCESS)
}
