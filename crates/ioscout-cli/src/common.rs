//! Plumbing shared by the commands: input discovery, the scanner, problem reporting on stderr,
//! exit codes and JSON helpers.

use std::io::{IsTerminal, Write};

use indicatif::{ProgressBar, ProgressStyle};
use std::process::ExitCode;

use ioscout_read::{InputProblem, ScanOptions, ScanReport, Scanner, TraceFile};

use crate::cli::InputArguments;

/// Expands the input paths.
pub(crate) fn discover(input: &InputArguments) -> (Vec<TraceFile>, Vec<InputProblem>) {
    ioscout_read::discover(&input.paths)
}

/// A scanner configured from the command line.
pub(crate) fn scanner(input: &InputArguments) -> Scanner {
    Scanner::new(scan_options(input, None))
}

/// Scan options from the command line, reporting to `bar` if given.
pub(crate) fn scan_options(input: &InputArguments, bar: Option<&ProgressBar>) -> ScanOptions {
    ScanOptions {
        threads: input.threads,
        max_reported_problems: input.max_problems,
        progress: bar.map(|bar| {
            let bar = bar.clone();
            ioscout_read::Progress(std::sync::Arc::new(move |bytes| bar.inc(bytes)))
        }),
        ..ScanOptions::default()
    }
}

/// A progress bar over `total` stored bytes on stderr, only when stderr is a terminal and
/// `--quiet` is off; `None` otherwise (pipes and CI logs stay clean).
pub(crate) fn progress_bar(input: &InputArguments, total: u64, message: &str) -> Option<ProgressBar> {
    if input.quiet || !std::io::stderr().is_terminal() {
        return None;
    }
    let style =
        ProgressStyle::with_template("{msg:>10} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}")
            .ok()?
            .progress_chars("=> ");
    let bar = ProgressBar::new(total).with_style(style);
    bar.set_message(message.to_string());
    Some(bar)
}

/// A scanner with a progress bar over `files` (see [`progress_bar`]).
pub(crate) fn scanner_with_progress(
    input: &InputArguments,
    files: &[TraceFile],
    message: &str,
) -> (Scanner, Option<ProgressBar>) {
    let bar = progress_bar(input, files.iter().map(|file| file.size).sum(), message);
    (Scanner::new(scan_options(input, bar.as_ref())), bar)
}

/// Reports bad input on stderr and decides the exit code: 2 when `--strict` and anything was bad,
/// or when no input could be read at all; 0 otherwise.
pub(crate) fn finish(report: &ScanReport, input: &InputArguments) -> ExitCode {
    let mut stderr = std::io::stderr().lock();
    let problem_count = report.problem_count();
    if !input.quiet {
        for file in &report.files {
            for problem in &file.problems {
                let _ = writeln!(stderr, "ioscout: warning: {problem}");
            }
            let hidden = file.problem_count.saturating_sub(file.problems.len() as u64);
            if hidden > 0 {
                let _ = writeln!(
                    stderr,
                    "ioscout: warning: {}: {hidden} more problems not shown (--max-problems)",
                    file.path.display()
                );
            }
        }
        if problem_count > 0 && !input.strict {
            let files = report.files.iter().filter(|file| file.problem_count > 0).count();
            let _ = writeln!(
                stderr,
                "ioscout: {problem_count} problems in {files} files were counted as invalid and skipped (--strict makes them an error)"
            );
        }
    }
    let readable = report.files.iter().any(|file| {
        file.problems.first().is_none_or(|problem| problem.kind != ioscout_read::ProblemKind::Unreadable)
    });
    if !readable {
        let _ = writeln!(stderr, "ioscout: error: no trace file could be read");
        return ExitCode::from(2);
    }
    if input.strict && problem_count > 0 {
        let _ = writeln!(stderr, "ioscout: error: {problem_count} problems in the input (--strict)");
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}

/// Prints an error and its causes.
pub(crate) fn report_error(error: &anyhow::Error) {
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "ioscout: error: {error}");
    for cause in error.chain().skip(1) {
        let _ = writeln!(stderr, "  caused by: {cause}");
    }
}

/// The display form of a path.
pub(crate) fn display_path(path: &std::path::Path) -> String {
    path.display().to_string()
}

/// Formats a count with thousands separators.
pub(crate) fn thousands(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::new();
    for (index, character) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(character);
    }
    out
}

/// When every input path is a Darshan log (by extension or by its header), those paths; `None`
/// when none is; an error when Darshan logs and traces are mixed (they are diagnosed apart).
pub(crate) fn darshan_inputs(
    paths: &[std::path::PathBuf],
) -> anyhow::Result<Option<Vec<std::path::PathBuf>>> {
    let is_darshan = |path: &std::path::Path| {
        if path.extension().is_some_and(|extension| extension == "darshan") {
            return true;
        }
        if !path.is_file() {
            return false;
        }
        let mut head = [0_u8; 16];
        std::fs::File::open(path)
            .and_then(|mut file| std::io::Read::read_exact(&mut file, &mut head))
            .is_ok_and(|()| ioscout_darshan::looks_like_darshan(&head))
    };
    let darshan: Vec<std::path::PathBuf> = paths.iter().filter(|path| is_darshan(path)).cloned().collect();
    if darshan.is_empty() {
        return Ok(None);
    }
    if darshan.len() != paths.len() {
        anyhow::bail!(
            "Darshan logs and DFTracer traces are diagnosed separately: give only one kind of input"
        );
    }
    Ok(Some(darshan))
}
