//! What a scan found: [`Problem`]s (located bad input, of a [`ProblemKind`]), one
//! [`FileSummary`] per file and the [`ScanReport`] of the whole scan. Filled by the merge
//! ([`super::merge`]), read by every output (counts, `scan` in the JSON, warnings).

use super::inflate_problem;
use super::merge::UnitResult;

use std::path::PathBuf;

use ioscout_model::{GenerationEvidence, PhaseCounts};

use crate::input::{Compression, InputProblem, TraceFile};

/// What kind of bad input a [`Problem`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum ProblemKind {
    /// The path could not be opened or read.
    Unreadable,
    /// The file has no bytes.
    EmptyFile,
    /// A line is not valid UTF-8.
    InvalidUtf8,
    /// A line is not valid JSON.
    InvalidJson,
    /// A line is JSON but not an event.
    NotAnEvent,
    /// A line exceeds the line length limit.
    LineTooLong,
    /// The file ends inside a gzip member.
    TruncatedMember,
    /// A gzip member is corrupt (bad deflate data or checksum).
    CorruptMember,
    /// Bytes after the last gzip member that are not gzip.
    TrailingGarbage,
}

/// One piece of bad input, located.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Problem {
    /// The file.
    pub path: PathBuf,
    /// What is wrong.
    pub kind: ProblemKind,
    /// 1-based line number in the decompressed text, when known.
    pub line: Option<u64>,
    /// Byte offset in the decompressed text, when known.
    pub offset: Option<u64>,
    /// Byte offset in the compressed file, for gzip problems.
    pub compressed_offset: Option<u64>,
    /// Details.
    pub detail: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "{}", self.path.display())?;
        if let Some(line) = self.line {
            write!(formatter, ":{line}")?;
        }
        if let Some(offset) = self.offset {
            write!(formatter, " (byte {offset})")?;
        }
        if let Some(offset) = self.compressed_offset {
            write!(formatter, " (compressed byte {offset})")?;
        }
        write!(formatter, ": {}", printable(&self.detail))
    }
}

/// `text` with control characters (terminal escapes, NUL, bytes of binary junk decoded as text)
/// written as `\u{..}` escapes, so no problem message can drive the user's terminal.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for character in text.chars() {
        if character.is_control() {
            out.extend(character.escape_unicode());
        } else {
            out.push(character);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// What a scan found in one file.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct FileSummary {
    /// The file.
    pub path: PathBuf,
    /// How it is stored.
    pub compression: Compression,
    /// Size on disk.
    pub size: u64,
    /// gzip members decoded.
    pub members: u64,
    /// Decompressed bytes.
    pub uncompressed_bytes: u64,
    /// Lines read.
    pub lines: u64,
    /// `[`/`]` wrapper lines.
    pub wrapper_lines: u64,
    /// Blank lines.
    pub blank_lines: u64,
    /// Events by phase, and invalid lines.
    pub counts: PhaseCounts,
    /// Format generation evidence (bits of [`ioscout_model::GenerationEvidence`]).
    pub evidence: GenerationEvidence,
    /// All problems met (including those not kept in `problems`).
    pub problem_count: u64,
    /// The first problems, located.
    pub problems: Vec<Problem>,
    /// What the file's events cover, when a pass that reads them said (the analysis does; a
    /// plain count does not).
    #[serde(default)]
    pub extent: Option<Extent>,
}

/// A process of a trace: its host and its pid (pids repeat across the hosts of a job, so a pid
/// alone does not name a process).
#[derive(
    Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct ProcessKey {
    /// The host: its name from the trace's HH records, else its host token as written (`hhash`
    /// or inline `hostname`), `unknown` when the events name none.
    pub host: String,
    /// The pid.
    pub pid: i64,
}

/// What one file's complete events cover: their processes and their time span.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Extent {
    /// Processes of the file's complete events, sorted.
    pub processes: Vec<ProcessKey>,
    /// Earliest start and latest end of its complete events (trace µs), when it has any.
    pub span: Option<(i64, i64)>,
}

impl Extent {
    /// Adds what `other` covers.
    pub fn merge(&mut self, other: &Extent) {
        self.processes.extend_from_slice(&other.processes);
        self.processes.sort_unstable();
        self.processes.dedup();
        self.span = match (self.span, other.span) {
            (Some(mine), Some(theirs)) => Some((mine.0.min(theirs.0), mine.1.max(theirs.1))),
            (mine, theirs) => mine.or(theirs),
        };
    }
}

impl FileSummary {
    /// The summary of `file` before anything is read from it.
    pub fn new(file: &TraceFile) -> FileSummary {
        FileSummary {
            path: file.path.clone(),
            compression: file.compression,
            size: file.size,
            members: 0,
            uncompressed_bytes: 0,
            lines: 0,
            wrapper_lines: 0,
            blank_lines: 0,
            counts: PhaseCounts::default(),
            evidence: GenerationEvidence::default(),
            problem_count: 0,
            problems: Vec::new(),
            extent: None,
        }
    }

    /// Adds a decoded unit's counters and its problems, located from the unit's first line and
    /// decompressed offset (its lines are added by the caller: stitching decides them).
    pub(super) fn absorb<F>(
        &mut self,
        result: &mut UnitResult<F>,
        path: &std::path::Path,
        line_base: u64,
        offset_base: u64,
        keep: usize,
    ) {
        self.members += result.members;
        self.uncompressed_bytes += result.bytes;
        self.wrapper_lines += result.wrapper_lines;
        self.blank_lines += result.blank_lines;
        self.counts.merge(&result.counts);
        self.evidence.add(result.evidence);
        self.problem_count += result.problem_count;
        for local in result.problems.drain(..) {
            if self.problems.len() < keep {
                self.problems.push(local.locate(path, line_base, offset_base));
            }
        }
        for problem in result.inflate_problems.drain(..) {
            self.add_problem(inflate_problem(path, problem, offset_base + result.bytes), keep);
        }
    }

    /// Whether the scan of `trace` ended cleanly at its size, so that bytes appended later read
    /// on their own from there: no cut, corrupt or unreadable gzip data, no line too long, no
    /// problem left unrecorded (it might be one of those), and a plain file's last byte a
    /// newline. How `analyze --follow` and the index tell where a growing file may be read on
    /// from.
    pub fn ended_cleanly(&self, trace: &TraceFile) -> bool {
        use super::ProblemKind;
        let damaged = self.problems.iter().any(|problem| {
            matches!(
                problem.kind,
                ProblemKind::TruncatedMember
                    | ProblemKind::CorruptMember
                    | ProblemKind::TrailingGarbage
                    | ProblemKind::Unreadable
                    | ProblemKind::LineTooLong
            )
        });
        // An empty file is read whole once it has bytes: its "empty file" problem must not stay.
        if damaged || self.problem_count > self.problems.len() as u64 || trace.size == 0 {
            return false;
        }
        match trace.compression {
            Compression::Gzip => true,
            Compression::None => {
                let mut last = [0_u8];
                std::fs::File::open(&trace.path).ok().is_some_and(|handle| {
                    crate::gzip::read_fully_at(&handle, &mut last, trace.size - 1).ok() == Some(1)
                        && last == *b"\n"
                })
            }
        }
    }

    /// Adds what another scan of other parts of the same file found (the chunks of one file
    /// read by several ranks): counters add, problems are kept in file order up to `keep`.
    pub fn merge(&mut self, other: FileSummary, keep: usize) {
        self.members += other.members;
        self.uncompressed_bytes += other.uncompressed_bytes;
        self.lines += other.lines;
        self.wrapper_lines += other.wrapper_lines;
        self.blank_lines += other.blank_lines;
        self.counts.merge(&other.counts);
        self.evidence.add(other.evidence);
        self.problem_count += other.problem_count;
        self.problems.extend(other.problems);
        self.problems.sort_by_key(|problem| (problem.offset, problem.line));
        self.problems.dedup();
        self.problems.truncate(keep);
        self.extent = match (self.extent.take(), other.extent) {
            (Some(mut mine), Some(theirs)) => {
                mine.merge(&theirs);
                Some(mine)
            }
            (mine, theirs) => mine.or(theirs),
        };
    }

    pub(super) fn add_problem(&mut self, problem: Problem, keep: usize) {
        self.problem_count += 1;
        self.counts.invalid += 1;
        if self.problems.len() < keep {
            self.problems.push(problem);
        }
    }
}

/// The outcome of a scan.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ScanReport {
    /// One summary per file, in input order (files that could not be opened included).
    pub files: Vec<FileSummary>,
    /// Whether the caller stopped the scan early.
    pub stopped: bool,
}

/// How long after its last change a file still counts as being written.
pub const SETTLE: std::time::Duration = std::time::Duration::from_secs(10);

/// Why a file looks like it is still being written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum Growth {
    /// Modified less than [`SETTLE`] before the coverage was taken (given only with one of the
    /// others: a recent change alone is not taken as writing).
    ModifiedRecently,
    /// Larger on disk than when it was found: appended to while it was read.
    GrewSinceRead,
    /// It ends inside a gzip member, and one of the others holds: the member is being written
    /// (a file that stopped changing with an unfinished member is damaged instead, and its
    /// truncated member stays a problem).
    UnfinishedMember,
}

/// A file that looks like it is still being written.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GrowingFile {
    /// The file.
    pub path: PathBuf,
    /// Why.
    pub growth: Vec<Growth>,
    /// Its size when it was found (what the scan read from).
    pub size_read: u64,
    /// Its size when the coverage was taken.
    pub size_now: u64,
    /// The latest end of an event it held when read (trace µs), when known.
    pub written_until: Option<i64>,
}

/// Which processes a scan saw complete and which still being written.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ProcessCoverage {
    /// Processes whose events are only in complete files.
    pub complete: Vec<ProcessKey>,
    /// Processes with events in a file still being written.
    pub growing: Vec<ProcessKey>,
}

/// The time a scan covered (trace µs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Span {
    /// Earliest start of an event read.
    pub start: i64,
    /// Latest end of an event read.
    pub end: i64,
    /// Up to when every file is known to be read: the earliest of the latest ends of the files
    /// still being written (`end` when none is), so events before it are all in.
    pub complete_until: i64,
}

/// Which files of a scan were complete and which were still being written.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Coverage {
    /// Files read.
    pub files: usize,
    /// Those still being written.
    pub growing: Vec<GrowingFile>,
    /// Processes complete and still being written, when the pass read them (`None` for passes
    /// that do not, as a plain count).
    pub processes: Option<ProcessCoverage>,
    /// The time covered, when the pass read it.
    pub span: Option<Span>,
}

impl Coverage {
    /// Whether `path` ends inside a gzip member that is being written.
    pub fn unfinished(&self, path: &std::path::Path) -> bool {
        self.growing.iter().any(|file| file.path == path && file.growth.contains(&Growth::UnfinishedMember))
    }

    /// Whether the `index`th problem kept for `file` is the unfinished end of a file still being
    /// written, not bad input: its last gzip member, cut because it is being written, or the line
    /// that member's end cuts (a line problem just before it). The one rule for what a growing
    /// file's problems mean: the command line's notes, `--strict`, the JSON's `scan.complete` and
    /// the Python package's `strict` all ask it.
    pub fn still_being_written(&self, file: &FileSummary, index: usize) -> bool {
        let Some(problem) = file.problems.get(index) else { return false };
        if !self.unfinished(&file.path) {
            return false;
        }
        let next = file.problems.get(index + 1);
        problem.kind == ProblemKind::TruncatedMember
            || next.is_some_and(|next| next.kind == ProblemKind::TruncatedMember)
                && matches!(
                    problem.kind,
                    ProblemKind::InvalidJson
                        | ProblemKind::InvalidUtf8
                        | ProblemKind::NotAnEvent
                        | ProblemKind::LineTooLong
                )
    }
}

impl ScanReport {
    /// Which files look still being written as of `now`: larger on disk than when found, or
    /// ending inside a gzip member while modified within `settle` of it (a complete file that
    /// merely changed recently, as a fresh copy, is not). Files that
    /// could not be opened are left out.
    pub fn coverage(&self, now: std::time::SystemTime, settle: std::time::Duration) -> Coverage {
        let mut coverage = Coverage::default();
        let readable: Vec<&FileSummary> = self
            .files
            .iter()
            .filter(|file| {
                file.problems.first().is_none_or(|problem| problem.kind != ProblemKind::Unreadable)
            })
            .collect();
        // One look at each file (thousands of per-process files are looked at together).
        let looked = crate::input::map_ordered(&readable, |file| std::fs::metadata(&file.path).ok());
        for (file, metadata) in readable.into_iter().zip(looked) {
            coverage.files += 1;
            let Some(metadata) = metadata else { continue };
            let mut growth = Vec::new();
            let recent = metadata
                .modified()
                .ok()
                .and_then(|modified| now.duration_since(modified).ok().or(Some(std::time::Duration::ZERO)))
                .is_some_and(|age| age < settle);
            let grew = metadata.len() > file.size;
            let truncated = file.problems.iter().any(|problem| problem.kind == ProblemKind::TruncatedMember);
            // A recent change alone is no sign of writing: a complete file copied a moment ago
            // is as fresh as one being appended to. It counts with growth or a cut member.
            if recent && (grew || truncated) {
                growth.push(Growth::ModifiedRecently);
            }
            if grew {
                growth.push(Growth::GrewSinceRead);
            }
            if (recent || grew) && truncated {
                growth.push(Growth::UnfinishedMember);
            }
            if !growth.is_empty() {
                coverage.growing.push(GrowingFile {
                    path: file.path.clone(),
                    growth,
                    size_read: file.size,
                    size_now: metadata.len(),
                    written_until: file.extent.as_ref().and_then(|extent| extent.span).map(|span| span.1),
                });
            }
        }
        self.cover_processes_and_time(&mut coverage);
        coverage
    }

    /// Fills the processes and the time span of `coverage` from the files' extents (left `None`
    /// when no file has one).
    fn cover_processes_and_time(&self, coverage: &mut Coverage) {
        let extents: Vec<(&FileSummary, &Extent)> =
            self.files.iter().filter_map(|file| file.extent.as_ref().map(|extent| (file, extent))).collect();
        if extents.is_empty() {
            return;
        }
        let growing_file =
            |file: &FileSummary| coverage.growing.iter().any(|growing| growing.path == file.path);
        let mut all = std::collections::BTreeSet::new();
        let mut growing = std::collections::BTreeSet::new();
        let mut span: Option<(i64, i64)> = None;
        let mut complete_until: Option<i64> = None;
        for (file, extent) in &extents {
            all.extend(extent.processes.iter().cloned());
            let is_growing = growing_file(file);
            if is_growing {
                growing.extend(extent.processes.iter().cloned());
            }
            if let Some((start, end)) = extent.span {
                span = Some(span.map_or((start, end), |(low, high)| (low.min(start), high.max(end))));
                if is_growing {
                    complete_until = Some(complete_until.map_or(end, |until: i64| until.min(end)));
                }
            }
        }
        coverage.processes = Some(ProcessCoverage {
            complete: all.difference(&growing).cloned().collect(),
            growing: growing.into_iter().collect(),
        });
        coverage.span = span.map(|(start, end)| Span {
            start,
            end,
            complete_until: complete_until.map_or(end, |until| until.max(start)),
        });
    }

    /// Records the extent of each file the analysis read (by path; files not named keep none).
    pub fn set_extents(&mut self, extents: impl IntoIterator<Item = (PathBuf, Extent)>) {
        let mut by_path: std::collections::HashMap<PathBuf, Extent> = extents.into_iter().collect();
        for file in &mut self.files {
            if let Some(extent) = by_path.remove(&file.path) {
                file.extent = Some(extent);
            }
        }
    }

    /// Totals over all files.
    pub fn totals(&self) -> PhaseCounts {
        let mut totals = PhaseCounts::default();
        for file in &self.files {
            totals.merge(&file.counts);
        }
        totals
    }

    /// Every kept problem, in file order.
    pub fn problems(&self) -> impl Iterator<Item = &Problem> {
        self.files.iter().flat_map(|file| file.problems.iter())
    }

    /// Whether the scan could read anything: some file's first problem is not that it could
    /// not be opened (a scan of no file at all, as an index whose files are all unchanged
    /// reports it, read nothing it failed on).
    pub fn read_anything(&self) -> bool {
        self.files.is_empty()
            || self.files.iter().any(|file| {
                file.problems.first().is_none_or(|problem| problem.kind != ProblemKind::Unreadable)
            })
    }

    /// The paths among `named` (the inputs a caller gave) whose first problem is that they
    /// could not be used: a typo, no permission, a glob that matched nothing; an empty
    /// directory is only a warning. The command line exits 2 on them (ripgrep's rule) and the
    /// Python package raises; a file found by walking a directory that fails is a counted
    /// problem instead.
    pub fn unreadable_named<'r>(&'r self, named: &[std::path::PathBuf]) -> Vec<&'r std::path::Path> {
        self.files
            .iter()
            .filter(|file| named.contains(&file.path))
            .filter(|file| {
                file.problems.first().is_some_and(|problem| {
                    problem.kind == ProblemKind::Unreadable
                        && !problem.detail.starts_with("directory holds no")
                })
            })
            .map(|file| file.path.as_path())
            .collect()
    }

    /// All problems, counted.
    pub fn problem_count(&self) -> u64 {
        self.files.iter().map(|file| file.problem_count).sum()
    }

    /// The kept problems that are bad input under `coverage`: every one but the unfinished ends
    /// of files still being written ([`Coverage::still_being_written`]), in file order.
    pub fn bad_input<'r>(&'r self, coverage: &'r Coverage) -> impl Iterator<Item = &'r Problem> + 'r {
        self.files.iter().flat_map(move |file| {
            file.problems
                .iter()
                .enumerate()
                .filter(move |(index, _)| !coverage.still_being_written(file, *index))
                .map(|(_, problem)| problem)
        })
    }

    /// The problems counted that are bad input under `coverage`: all of them less the unfinished
    /// ends of files still being written. Zero means the scan read its input cleanly: `--strict`
    /// passes and the JSON's `scan.complete` holds (when not stopped early).
    pub fn bad_input_count(&self, coverage: &Coverage) -> u64 {
        let pending: u64 = self
            .files
            .iter()
            .map(|file| {
                (0..file.problems.len()).filter(|index| coverage.still_being_written(file, *index)).count()
                    as u64
            })
            .sum();
        self.problem_count().saturating_sub(pending)
    }

    /// How many files hold a problem that is bad input under `coverage`.
    pub fn files_with_bad_input(&self, coverage: &Coverage) -> usize {
        self.files
            .iter()
            .filter(|file| {
                file.problem_count > 0
                    && !(0..file.problems.len()).all(|index| coverage.still_being_written(file, index))
            })
            .count()
    }

    /// The report of a scan split across ranks ([`crate::cluster`]): the input problems first,
    /// then `files`, the summaries of every file in input order.
    pub fn assemble(input_problems: &[InputProblem], keep: usize, files: Vec<FileSummary>) -> ScanReport {
        let mut report = ScanReport { files: Vec::new(), stopped: false };
        report.add_input_problems(input_problems, keep);
        report.files.extend(files);
        report
    }

    /// Adds one summary per unusable input path, holding its problem.
    pub(super) fn add_input_problems(&mut self, input_problems: &[InputProblem], keep: usize) {
        for problem in input_problems {
            let mut summary = FileSummary::new(&TraceFile {
                path: problem.path.clone(),
                size: 0,
                compression: Compression::None,
            });
            summary.add_problem(
                Problem {
                    path: problem.path.clone(),
                    kind: ProblemKind::Unreadable,
                    line: None,
                    offset: None,
                    compressed_offset: None,
                    detail: problem.detail.clone(),
                },
                keep,
            );
            self.files.push(summary);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    pub(super) fn printable_escapes_control_characters_only() {
        assert_eq!(printable("plain text, ünïcode"), "plain text, ünïcode");
        assert_eq!(printable("a\u{1b}[2Jb\u{9b}c\u{0}"), "a\\u{1b}[2Jb\\u{9b}c\\u{0}");
    }

    /// A summary of `path` as found, with a truncated member when `cut`.
    fn summary_of(path: &std::path::Path, cut: bool) -> FileSummary {
        let mut summary = FileSummary::new(&TraceFile {
            path: path.to_path_buf(),
            size: std::fs::metadata(path).map_or(0, |metadata| metadata.len()),
            compression: Compression::Gzip,
        });
        if cut {
            summary.problems.push(Problem {
                path: path.to_path_buf(),
                kind: ProblemKind::TruncatedMember,
                line: None,
                offset: None,
                compressed_offset: Some(0),
                detail: String::new(),
            });
        }
        summary
    }

    #[test]
    fn a_fresh_complete_file_is_not_growing_but_a_fresh_cut_or_a_larger_one_is() -> std::io::Result<()> {
        let folder = std::env::temp_dir().join(format!("ioscout-coverage-{}", std::process::id()));
        std::fs::create_dir_all(&folder)?;
        let path = folder.join("a.pfw.gz");
        std::fs::write(&path, b"0123456789")?;
        let now = std::time::SystemTime::now();
        let of =
            |summary: FileSummary| ScanReport { files: vec![summary], stopped: false }.coverage(now, SETTLE);

        // Copied a moment ago and whole: complete (the MPI check's fresh copies).
        let coverage = of(summary_of(&path, false));
        assert_eq!(coverage.files, 1);
        assert!(coverage.growing.is_empty(), "{coverage:?}");

        // Fresh and ending inside a member: being written.
        let coverage = of(summary_of(&path, true));
        assert_eq!(coverage.growing[0].growth, vec![Growth::ModifiedRecently, Growth::UnfinishedMember]);

        // Larger than when found: being written, whatever its age.
        let mut summary = summary_of(&path, false);
        summary.size = 4;
        let coverage = ScanReport { files: vec![summary], stopped: false }
            .coverage(now + std::time::Duration::from_mins(1), SETTLE);
        assert_eq!(coverage.growing[0].growth, vec![Growth::GrewSinceRead]);
        assert_eq!((coverage.growing[0].size_read, coverage.growing[0].size_now), (4, 10));

        // Cut but settled: damage, not writing (the problem stays a problem).
        let coverage = ScanReport { files: vec![summary_of(&path, true)], stopped: false }
            .coverage(now + std::time::Duration::from_mins(1), SETTLE);
        assert!(coverage.growing.is_empty(), "{coverage:?}");
        std::fs::remove_dir_all(&folder)
    }
}
