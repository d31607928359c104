//! Plumbing shared by the commands: input discovery, the scanner, problem reporting on stderr,
//! exit codes and JSON helpers.

use std::io::{IsTerminal, Write};

use indicatif::{ProgressBar, ProgressStyle};
use std::process::ExitCode;

use ioscout_read::{InputProblem, ScanOptions, ScanReport, TraceFile};

use crate::cli::InputArguments;
use ioscout_service::text::count_of;

/// Expands the input paths.
/// In a job of several ranks, rank 0's discovery for every rank; a Darshan log is refused.
pub(crate) fn discover(
    input: &InputArguments,
) -> ioscout_service::Result<(Vec<TraceFile>, Vec<InputProblem>)> {
    ioscout_service::Input {
        paths: input.paths.clone(),
        cluster: crate::job::current(),
        ..Default::default()
    }
    .discover()
}

/// Scan options from the command line, reporting to `bar` if given.
pub(crate) fn scan_options(input: &InputArguments, bar: Option<&ProgressBar>) -> ScanOptions {
    let limit = ioscout_read::scan::max_threads();
    if input.threads > limit {
        static WARNED: std::sync::Once = std::sync::Once::new();
        WARNED.call_once(|| {
            if !input.quiet {
                let _ = writeln!(
                    std::io::stderr(),
                    "ioscout: warning: --threads {} is more than 4 per core: using {limit}",
                    input.threads
                );
            }
        });
    }
    ScanOptions {
        // The scan itself holds the thread count to `max_threads`; this only says so.
        threads: if input.threads == 0 { crate::job::default_threads() } else { input.threads },
        max_reported_problems: input.max_problems,
        progress: bar.map(|bar| {
            let bar = bar.clone();
            let message = bar.message();
            let pass = std::sync::atomic::AtomicU64::new(1);
            ioscout_read::Progress(std::sync::Arc::new(move |bytes| {
                let (position, next_pass) = progress_step(bar.position(), bar.length().unwrap_or(0), bytes);
                if next_pass {
                    let pass = pass.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                    bar.set_message(format!("{message} {pass}"));
                }
                bar.set_position(position);
            }))
        }),
        ..ScanOptions::default()
    }
}

/// Whether progress bars are drawn: stderr is a terminal, `--quiet` is off, and this is not an
/// MPI job (the launcher's pseudo-terminal is not the user's).
fn shows_progress(input: &InputArguments) -> bool {
    !input.quiet && std::io::stderr().is_terminal() && crate::job::current().is_none()
}

/// Where a progress bar over `length` stored bytes stands after `bytes` more, and whether a new
/// pass began: a scan pass reads every stored byte once and an analysis reads the trace in two
/// passes, so a pass that has reached the length starts the next from zero; the bar never runs
/// past its length ("1.05 MiB/536.76 KiB" was two passes counted as one).
fn progress_step(position: u64, length: u64, bytes: u64) -> (u64, bool) {
    if length > 0 && position >= length {
        (bytes.min(length), true)
    } else {
        (position.saturating_add(bytes).min(length), false)
    }
}

/// A progress bar over `total` stored bytes on stderr, only when stderr is a terminal and
/// `--quiet` is off; `None` otherwise (pipes and CI logs stay clean).
pub(crate) fn progress_bar(input: &InputArguments, total: u64, message: &str) -> Option<ProgressBar> {
    if !shows_progress(input) {
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

/// Reports bad input on stderr and decides the exit code: 2 when `--strict` and anything was bad,
/// or when no input could be read at all; 0 otherwise.
pub(crate) fn finish(report: &ScanReport, input: &InputArguments) -> ExitCode {
    let mut stderr = std::io::stderr().lock();
    let duplicates = ioscout_read::input::duplicates(&input.paths);
    if !duplicates.is_empty() && !input.quiet {
        let (duplicate, original) = &duplicates[0];
        let _ = writeln!(
            stderr,
            "ioscout: note: {} the same file as one read (a link or a path given twice), so read once: {} is {}{}",
            if duplicates.len() == 1 {
                "1 path is".to_string()
            } else {
                format!("{} paths are", duplicates.len())
            },
            display_path(duplicate),
            display_path(original),
            if duplicates.len() > 1 { ", ..." } else { "" }
        );
    }
    // A gzip member still being written is not bad input: the file is growing (a note says so,
    // the JSON's `coverage` lists it), and it is no problem here, --strict included.
    let coverage = report.coverage(std::time::SystemTime::now(), ioscout_read::SETTLE);
    let problem_count = report.bad_input_count(&coverage);
    if !input.quiet {
        for file in &report.files {
            for (index, problem) in file.problems.iter().enumerate() {
                if coverage.still_being_written(file, index) {
                    let _ = writeln!(
                        stderr,
                        "ioscout: note: {}: still being written: {}",
                        file.path.display(),
                        if problem.kind == ioscout_read::ProblemKind::TruncatedMember {
                            "its last gzip member is not finished (what comes before it is read)"
                        } else {
                            "its last line is cut where the unfinished member ends"
                        }
                    );
                    continue;
                }
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
        if !coverage.growing.is_empty() {
            let _ = writeln!(
                stderr,
                "ioscout: note: {} of {} still being written (changed in the last {} s or while read): the results cover what they held when read{}",
                coverage.growing.len(),
                count_of(coverage.files as u64, "file", "files"),
                ioscout_read::SETTLE.as_secs(),
                ioscout_service::coverage_detail(&coverage)
            );
        }
        if problem_count > 0 && !input.strict {
            let files = report.files_with_bad_input(&coverage);
            let _ = writeln!(
                stderr,
                "ioscout: {} in {} {} counted as invalid and skipped (--strict makes them an error)",
                count_of(problem_count, "problem", "problems"),
                count_of(files as u64, "file", "files"),
                if problem_count == 1 { "was" } else { "were" }
            );
        }
    }
    if !report.read_anything() {
        let _ = writeln!(stderr, "ioscout: error: no trace file could be read");
        return ExitCode::from(2);
    }
    if input.strict && problem_count > 0 {
        let _ = writeln!(
            stderr,
            "ioscout: error: {} in the input (--strict)",
            count_of(problem_count, "problem", "problems")
        );
        return ExitCode::from(2);
    }
    // ripgrep's rule: the rest is read, then a path the user named that could not be read (a
    // typo, no permission, a glob that matched nothing) makes the exit code 2. A file found by
    // walking a directory that fails is a counted problem, as above.
    let named: Vec<&std::path::Path> = report.unreadable_named(&input.paths);
    if !named.is_empty() {
        let listed: Vec<String> = named.iter().map(|path| path.display().to_string()).collect();
        let _ = writeln!(
            stderr,
            "ioscout: error: {} could not be read: {}",
            count_of(named.len() as u64, "named input", "named inputs"),
            listed.join(", ")
        );
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}

/// Prints an error and its causes, each once: a cause whose text an outer message already
/// carries (`{path}: {source}` errors, transparent wrappers) is not printed again.
pub(crate) fn report_error(error: &anyhow::Error) {
    let mut stderr = std::io::stderr().lock();
    let mut printed = error.to_string();
    let _ = writeln!(stderr, "ioscout: error: {printed}");
    for cause in error.chain().skip(1) {
        let text = cause.to_string();
        if printed.contains(&text) {
            continue;
        }
        let _ = writeln!(stderr, "  caused by: {text}");
        printed.push('\n');
        printed.push_str(&text);
    }
}

/// The service input of the command line's input options, with `bar` told of progress.
pub(crate) fn service_input(input: &InputArguments, bar: Option<&ProgressBar>) -> ioscout_service::Input {
    ioscout_service::Input {
        paths: input.paths.clone(),
        strict: input.strict,
        scan: scan_options(input, bar),
        cluster: crate::job::current(),
    }
}

/// The service input with a progress bar over the trace files' stored bytes (see
/// [`progress_bar`]).
pub(crate) fn service_input_with_progress(
    input: &InputArguments,
    message: &str,
) -> (ioscout_service::Input, Option<ProgressBar>) {
    // Sizing the bar walks the inputs; do it only when a bar is drawn.
    let bar = if shows_progress(input) {
        let stored = discover(input).map_or(0, |(files, _)| files.iter().map(|file| file.size).sum());
        progress_bar(input, stored, message)
    } else {
        None
    };
    (service_input(input, bar.as_ref()), bar)
}

/// Prints an outcome: its JSON with `json`, else its text; its warnings on stderr unless quiet.
pub(crate) fn print(outcome: &ioscout_service::Outcome, json: bool, quiet: bool) -> anyhow::Result<()> {
    if !quiet {
        let mut stderr = std::io::stderr().lock();
        for warning in &outcome.warnings {
            let _ = writeln!(stderr, "ioscout: warning: {warning}");
        }
    }
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    if json {
        serde_json::to_writer_pretty(&mut stdout, &outcome.value_with_scan())?;
        writeln!(stdout)?;
    } else {
        stdout.write_all(ioscout_service::text::fit(&outcome.text).as_bytes())?;
    }
    stdout.flush()?;
    Ok(())
}

/// The exit code of an outcome over traces: [`finish`]'s, then 1 when flagged.
pub(crate) fn exit_code(outcome: &ioscout_service::Outcome, input: &InputArguments) -> ExitCode {
    let code = outcome.report.as_ref().map_or(ExitCode::SUCCESS, |report| finish(report, input));
    if code == ExitCode::SUCCESS && outcome.flagged { ExitCode::from(1) } else { code }
}

pub(crate) use ioscout_service::text::display_path;

/// The end of a command that read Darshan logs' DXT segments: its notes and the logs' problems
/// on stderr (unless quiet); exit 0 (a damaged log is read as far as it goes, its problems
/// said; `--strict` refuses it before this).
pub(crate) fn finish_segments(report: &ioscout_service::segments::SegmentReport, quiet: bool) -> ExitCode {
    if !quiet {
        let mut stderr = std::io::stderr().lock();
        for note in &report.notes {
            let _ = writeln!(stderr, "ioscout: {note}");
        }
        for problem in report.problems() {
            let _ = writeln!(stderr, "ioscout: warning: {problem}");
        }
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::progress_step;

    /// Two passes over 536 KiB in units: the bar restarts for the second pass and never shows
    /// more than its length.
    #[test]
    fn progress_never_runs_past_its_length() {
        let length = 536 * 1024;
        let (mut position, mut passes) = (0, 1);
        for _ in 0..2 {
            for unit in [200 * 1024, 200 * 1024, 136 * 1024] {
                let (next, next_pass) = progress_step(position, length, unit);
                passes += u64::from(next_pass);
                position = next;
                assert!(position <= length, "{position} past {length}");
            }
        }
        assert_eq!((position, passes), (length, 2));
    }
}
