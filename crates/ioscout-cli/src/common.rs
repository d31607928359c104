//! Plumbing shared by the commands: input discovery, the scanner, problem reporting on stderr,
//! exit codes and JSON helpers.

use std::io::Write;
use std::process::ExitCode;

use ioscout_read::{InputProblem, ScanOptions, ScanReport, Scanner, TraceFile};

use crate::cli::InputArguments;

/// Expands the input paths.
pub(crate) fn discover(input: &InputArguments) -> (Vec<TraceFile>, Vec<InputProblem>) {
    ioscout_read::discover(&input.paths)
}

/// A scanner configured from the command line.
pub(crate) fn scanner(input: &InputArguments) -> Scanner {
    Scanner::new(ScanOptions {
        threads: input.threads,
        max_reported_problems: input.max_problems,
        ..ScanOptions::default()
    })
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
