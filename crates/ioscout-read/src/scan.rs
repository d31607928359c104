//! The parallel scan: split trace files into units, decode units on all cores, stitch and verify
//! them in order, and hand each unit's fold to the caller.
//!
//! # Overview
//!
//! [`Scanner::scan`] is the reader's main entry point. It plans [`Unit`]s: runs of gzip members of
//! about [`ScanOptions::unit_bytes`] compressed bytes (found from header candidates, see
//! [`crate::gzip`]), line-aligned byte ranges of plain files, and a single unit for a one-member gzip
//! file. Units are decoded in parallel (rayon) in windows, so memory stays bounded whatever the
//! trace size: each worker streams its range through a 256 KiB inflate buffer and a line splitter
//! and feeds every event to a fresh [`Fold`].
//!
//! Results are merged in file order on the calling thread:
//! - a gzip unit's start offset is only a candidate; its output is accepted when the previous
//!   unit really ended there, otherwise the range is decoded again from the true end;
//! - a line cut by a unit boundary is stitched (the previous unit's unfinished tail plus the next
//!   unit's first line) and decoded once;
//! - line numbers and uncompressed offsets of problems are made absolute.
//!
//! Bad input never stops the scan: every [`Problem`] is counted (as `invalid`) and the first
//! [`ScanOptions::max_reported_problems`] per file are kept with file, line and byte offset.

use std::fs::File;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::Arc;

use ioscout_model::{Event, GenerationEvidence, Phase, PhaseCounts};
use rayon::prelude::*;

use crate::event::{Args, Line, LineError, LinePhase, decode_line, decode_phase, hash_evidence};
use crate::fields::{EventFields, decode_fields};
use crate::gzip::{self, InflateProblem, Resume};
use crate::input::{Compression, InputProblem, TraceFile};

/// Receives the events of one unit. One fold is made per unit, filled by one worker, then handed
/// to the caller in file order.
pub trait Fold: Send {
    /// Called for every valid event, in the order of the unit's lines.
    fn event(&mut self, event: &Event<'_>);

    /// Whether this fold looks at events at all. When it does not, lines are only validated
    /// and counted by phase ([`crate::event::decode_phase`]), which is much cheaper, and the
    /// generation evidence of [`FileSummary`] comes from top-level fields only.
    fn needs_events(&self) -> bool {
        true
    }

    /// Whether this fold looks at events of `phase`. Lines of other phases are only validated
    /// and counted (as with [`Fold::needs_events`] false), which is much cheaper: a fold that
    /// reads metadata only skips building the millions of complete events.
    fn wants(&self, phase: Phase) -> bool {
        let _ = phase;
        true
    }

    /// Whether this fold can work from [`EventFields`] alone. When it can, common lines are
    /// decoded by [`crate::fields::decode_fields`] and given to [`Fold::fields`]; the others still
    /// go to [`Fold::event`].
    fn wants_fields(&self) -> bool {
        false
    }

    /// Called instead of [`Fold::event`] for lines decoded by the fields path.
    fn fields(&mut self, fields: &EventFields<'_>) {
        let _ = fields;
    }

    /// Whether this fold skims raw lines instead of decoded events. A skimming fold gets every
    /// line's bytes in [`Fold::skim`] and decodes what it needs itself; the scanner neither
    /// decodes nor validates nor counts those lines (the unit's phase counts stay zero), so a
    /// skim is only for a pre-pass whose report is not shown.
    fn skims(&self) -> bool {
        false
    }

    /// Called with the bytes of each line (without its newline) when [`Fold::skims`].
    fn skim(&mut self, line: &[u8]) {
        let _ = line;
    }
}

/// A fold that ignores events (for counting, which [`FileSummary`] already does).
#[derive(Debug, Default)]
pub struct NoFold;

impl Fold for NoFold {
    fn event(&mut self, _event: &Event<'_>) {}

    fn needs_events(&self) -> bool {
        false
    }
}

/// Settings of a scan.
#[derive(Clone, Debug)]
pub struct ScanOptions {
    /// Worker threads (0: all cores).
    pub threads: usize,
    /// Target compressed bytes per unit of work.
    pub unit_bytes: u64,
    /// Lines longer than this are invalid and not buffered.
    pub max_line_bytes: usize,
    /// Problems kept per file with full detail (all are counted).
    pub max_reported_problems: usize,
    /// Told the stored bytes of every unit or chunk as it is merged (for progress bars).
    pub progress: Option<Progress>,
    /// A gzip file that is one unit (one member, or few large ones) and at least
    /// `part_bytes / 16` bytes long is inflated by one thread while the other workers parse its
    /// output in parts of about this many decompressed bytes (0: never).
    pub part_bytes: usize,
}

/// The most worker threads a scan starts: four per core. More only adds switching (10,000
/// threads took 101 s on a 24k-event trace that 16 read in 0.02 s).
pub fn max_threads() -> usize {
    4 * std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}

impl ScanOptions {
    /// The worker threads this scan uses: [`ScanOptions::threads`] (0: all cores), at most
    /// [`max_threads`].
    pub fn worker_threads(&self) -> usize {
        if self.threads == 0 { rayon::current_num_threads() } else { self.threads.min(max_threads()) }
    }
}

/// A progress callback: receives stored (compressed) bytes done.
#[derive(Clone)]
pub struct Progress(pub std::sync::Arc<dyn Fn(u64) + Send + Sync>);

impl std::fmt::Debug for Progress {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("Progress")
    }
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            threads: 0,
            unit_bytes: 4 << 20,
            max_line_bytes: 1 << 20,
            max_reported_problems: 20,
            progress: None,
            part_bytes: 4 << 20,
        }
    }
}

/// What kind of bad input a [`Problem`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
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
        }
    }

    /// Adds a decoded unit's counters and its problems, located from the unit's first line and
    /// decompressed offset (its lines are added by the caller: stitching decides them).
    fn absorb<F>(
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
    }

    fn add_problem(&mut self, problem: Problem, keep: usize) {
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

impl ScanReport {
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

    /// All problems, counted.
    pub fn problem_count(&self) -> u64 {
        self.files.iter().map(|file| file.problem_count).sum()
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
    fn add_input_problems(&mut self, input_problems: &[InputProblem], keep: usize) {
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

/// The part of a file one fold covers: where its decoding started and stopped (compressed
/// offsets for gzip, byte offsets for plain files), how many lines and decompressed bytes come
/// before it, and whether a chunk of an index may end at `end` (no line crosses it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct UnitSpan {
    /// First byte decoded (a gzip member start, or a line start of a plain file).
    pub start: u64,
    /// First byte not decoded.
    pub end: u64,
    /// Lines of the file before this span.
    pub line_base: u64,
    /// Decompressed bytes of the file before this span.
    pub offset_base: u64,
    /// No line crosses `end`.
    pub clean_end: bool,
}

/// A piece of a file that decodes on its own, as an index records it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Chunk {
    /// Index of the file in the list given to [`Scanner::scan_chunks`].
    pub file: usize,
    /// First byte (a line start; for gzip also a member start).
    pub start: u64,
    /// First byte after the chunk (a line and member start, or the end of the file).
    pub end: u64,
    /// Lines of the file before the chunk.
    pub line_base: u64,
    /// Decompressed bytes of the file before the chunk.
    pub offset_base: u64,
    /// For a chunk inside one gzip member: the checkpoint it decodes from (then `start` and `end`
    /// are the compressed bytes it covers, for weighing work only).
    pub resume: Option<Box<Resume>>,
}

/// How a unit of a window is decoded: by one worker (its result, ready to merge), or, alone in
/// its window, by [`Scanner::decode_split`] on the pool as it is merged.
enum Decoded<'pool, F> {
    Whole(Box<UnitResult<F>>),
    Split(&'pool rayon::ThreadPool),
}

/// One unit of work: a byte range of one file.
#[derive(Clone, Debug)]
struct Unit {
    file: usize,
    start: u64,
    end: u64,
    resume: Option<Box<Resume>>,
}

struct OpenFile {
    trace: TraceFile,
    /// The file could be opened when the scan was planned. Handles are opened per unit, not
    /// held for the whole scan: a trace of tens of thousands of per-process files must not run
    /// out of file descriptors.
    readable: bool,
    candidates: Arc<Vec<u64>>,
}

/// Reads trace files in parallel. See the module documentation.
#[derive(Clone, Debug, Default)]
pub struct Scanner {
    options: ScanOptions,
    /// The worker pool, built at the first scan and reused by the later ones (and by clones).
    pool: std::sync::Arc<std::sync::OnceLock<Option<rayon::ThreadPool>>>,
}

impl Scanner {
    /// A scanner with `options`.
    pub fn new(options: ScanOptions) -> Scanner {
        Scanner { options, pool: std::sync::Arc::default() }
    }

    /// The worker pool of [`ScanOptions::worker_threads`] threads (`None` if it cannot be
    /// built: the scan then runs on rayon's global pool).
    fn pool(&self) -> Option<&rayon::ThreadPool> {
        self.pool
            .get_or_init(|| {
                rayon::ThreadPoolBuilder::new().num_threads(self.options.worker_threads()).build().ok()
            })
            .as_ref()
    }

    /// The options in force.
    pub fn options(&self) -> &ScanOptions {
        &self.options
    }

    /// Scans `files`. `make` builds a fold for a unit of file `index`; `consume` receives every
    /// filled fold in file order, with the [`UnitSpan`] it covers, and may stop the scan. `input_problems` are reported as
    /// unreadable files at the front of the report.
    pub fn scan<F, M, C>(
        &self,
        files: &[TraceFile],
        input_problems: &[InputProblem],
        make: M,
        mut consume: C,
    ) -> ScanReport
    where
        F: Fold,
        M: Fn(usize) -> F + Sync,
        C: FnMut(usize, F, UnitSpan) -> ControlFlow<()>,
    {
        let threads = self.options.worker_threads();
        self.scan_in_pool(files, input_problems, &make, &mut consume, threads, self.pool())
    }

    fn scan_in_pool<F, M, C>(
        &self,
        files: &[TraceFile],
        input_problems: &[InputProblem],
        make: &M,
        consume: &mut C,
        threads: usize,
        pool: Option<&rayon::ThreadPool>,
    ) -> ScanReport
    where
        F: Fold,
        M: Fn(usize) -> F + Sync,
        C: FnMut(usize, F, UnitSpan) -> ControlFlow<()>,
    {
        let keep = self.options.max_reported_problems;
        let mut report = ScanReport { files: Vec::new(), stopped: false };
        report.add_input_problems(input_problems, keep);
        let first_file = report.files.len();
        let opened: Vec<(OpenFile, Vec<Unit>, Option<Problem>)> = in_pool(pool, || {
            files.par_iter().enumerate().map(|(index, file)| self.plan(index, file)).collect()
        });
        let mut units = Vec::new();
        let mut open_files = Vec::new();
        for (open, file_units, problem) in opened {
            let mut summary = FileSummary::new(&open.trace);
            if let Some(problem) = problem {
                summary.add_problem(problem, keep);
            }
            report.files.push(summary);
            units.extend(file_units);
            open_files.push(open);
        }
        let windows = windows(&units, threads, self.options.unit_bytes);
        let mut merges: Vec<FileMerge<F>> = (0..open_files.len()).map(|_| FileMerge::default()).collect();
        let mut current: Option<usize> = None;
        'windows: for batch in windows {
            let decoded: Vec<Decoded<'_, F>> = match (batch, pool) {
                ([unit], Some(pool)) if self.splittable(&open_files[unit.file], unit, threads) => {
                    vec![Decoded::Split(pool)]
                }
                _ => in_pool(pool, || {
                    batch
                        .par_iter()
                        .map(|unit| {
                            self.decode_unit(&open_files[unit.file], unit, unit.start != 0, make(unit.file))
                        })
                        .collect::<Vec<_>>()
                })
                .into_iter()
                .map(|result| Decoded::Whole(Box::new(result)))
                .collect(),
            };
            for (unit, decoded) in batch.iter().zip(decoded) {
                if current != Some(unit.file) {
                    if let Some(previous) = current
                        && self
                            .finish_file(
                                previous,
                                &mut merges,
                                &mut report.files[first_file + previous],
                                consume,
                            )
                            .is_break()
                    {
                        report.stopped = true;
                        break 'windows;
                    }
                    current = Some(unit.file);
                }
                let summary = &mut report.files[first_file + unit.file];
                let open = &open_files[unit.file];
                let merge = &mut merges[unit.file];
                let flow = match decoded {
                    Decoded::Whole(result) => {
                        self.merge_unit(open, unit, *result, merge, summary, make, consume)
                    }
                    Decoded::Split(pool) => {
                        self.decode_split(open, unit, pool, threads, merge, summary, make, consume)
                    }
                };
                if let Some(progress) = &self.options.progress {
                    (progress.0)(unit.end - unit.start);
                }
                if flow.is_break() {
                    report.stopped = true;
                    break 'windows;
                }
            }
        }
        if !report.stopped
            && let Some(previous) = current
            && self
                .finish_file(previous, &mut merges, &mut report.files[first_file + previous], consume)
                .is_break()
        {
            report.stopped = true;
        }
        report
    }

    /// Decodes only `chunks` (as an index records them) of `files`, in parallel, and hands each
    /// chunk's fold to `consume` in the order given. A chunk starts at a line start (and a gzip
    /// member start) and ends at one or at the end of its file, so chunks decode on their own,
    /// without stitching. The report's summaries count only what the chunks hold.
    pub fn scan_chunks<F, M, C>(
        &self,
        files: &[TraceFile],
        input_problems: &[InputProblem],
        chunks: &[Chunk],
        make: M,
        mut consume: C,
    ) -> ScanReport
    where
        F: Fold,
        M: Fn(usize) -> F + Sync,
        C: FnMut(usize, F) -> ControlFlow<()>,
    {
        let threads = self.options.worker_threads();
        let pool = self.pool();
        let keep = self.options.max_reported_problems;
        let mut report = ScanReport { files: Vec::new(), stopped: false };
        report.add_input_problems(input_problems, keep);
        let first_file = report.files.len();
        report.files.extend(files.iter().map(FileSummary::new));
        let open_files: Vec<OpenFile> = files
            .iter()
            .map(|trace| OpenFile {
                trace: trace.clone(),
                readable: File::open(&trace.path).is_ok(),
                candidates: Arc::default(),
            })
            .collect();
        for (index, (open, summary)) in
            open_files.iter().zip(report.files[first_file..].iter_mut()).enumerate()
        {
            if !open.readable && chunks.iter().any(|chunk| chunk.file == index) {
                summary.add_problem(
                    Problem {
                        path: open.trace.path.clone(),
                        kind: ProblemKind::Unreadable,
                        line: None,
                        offset: None,
                        compressed_offset: None,
                        detail: "cannot open the file".into(),
                    },
                    keep,
                );
            }
        }
        let units: Vec<Unit> = chunks
            .iter()
            .filter(|chunk| chunk.file < open_files.len())
            .map(|chunk| Unit {
                file: chunk.file,
                start: chunk.start,
                end: chunk.end,
                resume: chunk.resume.clone(),
            })
            .collect();
        let bases: Vec<&Chunk> = chunks.iter().filter(|chunk| chunk.file < open_files.len()).collect();
        let mut position = 0;
        'windows: for batch in windows(&units, threads, self.options.unit_bytes) {
            let results: Vec<UnitResult<F>> = in_pool(pool, || {
                batch
                    .par_iter()
                    .map(|unit| self.decode_unit(&open_files[unit.file], unit, false, make(unit.file)))
                    .collect()
            });
            for result in results {
                let chunk = bases[position];
                position += 1;
                let summary = &mut report.files[first_file + chunk.file];
                let fold = merge_chunk(&open_files[chunk.file].trace.path, chunk, result, summary, keep);
                if let Some(progress) = &self.options.progress {
                    (progress.0)(chunk.end - chunk.start);
                }
                if consume(chunk.file, fold).is_break() {
                    report.stopped = true;
                    break 'windows;
                }
            }
        }
        for summary in &mut report.files {
            summary.problems.sort_by_key(|problem| (problem.offset, problem.line));
        }
        report
    }

    /// Opens a file and cuts it into units.
    fn plan(&self, index: usize, trace: &TraceFile) -> (OpenFile, Vec<Unit>, Option<Problem>) {
        let problem = |kind, detail: String| Problem {
            path: trace.path.clone(),
            kind,
            line: None,
            offset: None,
            compressed_offset: None,
            detail,
        };
        let handle = match File::open(&trace.path) {
            Ok(handle) => handle,
            Err(error) => {
                let open = OpenFile { trace: trace.clone(), readable: false, candidates: Arc::default() };
                return (open, Vec::new(), Some(problem(ProblemKind::Unreadable, error.to_string())));
            }
        };
        if trace.size == 0 {
            let open = OpenFile { trace: trace.clone(), readable: true, candidates: Arc::default() };
            return (open, Vec::new(), Some(problem(ProblemKind::EmptyFile, "empty file: no events".into())));
        }
        let unit_bytes = self.options.unit_bytes.max(1);
        let mut starts = vec![0u64];
        let mut candidates = Vec::new();
        let mut failure = None;
        match trace.compression {
            Compression::Gzip if trace.size > 2 * unit_bytes => {
                match gzip::member_candidates(&handle, trace.size) {
                    Ok(found) => {
                        for &candidate in &found {
                            if candidate >= starts[starts.len() - 1] + unit_bytes && candidate < trace.size {
                                starts.push(candidate);
                            }
                        }
                        candidates = found;
                    }
                    Err(error) => failure = Some(problem(ProblemKind::Unreadable, error.to_string())),
                }
            }
            Compression::None if trace.size > 2 * unit_bytes => {
                let mut nominal = unit_bytes;
                while nominal < trace.size {
                    match next_line_start(&handle, nominal, trace.size) {
                        Ok(Some(start)) if start < trace.size => {
                            if start > starts[starts.len() - 1] {
                                starts.push(start);
                            }
                            nominal = start + unit_bytes;
                        }
                        Ok(_) => break,
                        Err(error) => {
                            failure = Some(problem(ProblemKind::Unreadable, error.to_string()));
                            break;
                        }
                    }
                }
            }
            _ => {}
        }
        let units = starts
            .iter()
            .enumerate()
            .map(|(position, &start)| Unit {
                file: index,
                start,
                end: starts.get(position + 1).copied().unwrap_or(trace.size),
                resume: None,
            })
            .collect();
        let open = OpenFile { trace: trace.clone(), readable: true, candidates: Arc::new(candidates) };
        (open, units, failure)
    }

    /// Decodes one unit into a fresh fold.
    fn decode_unit<F: Fold>(
        &self,
        open: &OpenFile,
        unit: &Unit,
        defer_first: bool,
        fold: F,
    ) -> UnitResult<F> {
        let mut processor = LineProcessor::new(fold);
        let mut splitter = Splitter::new(defer_first, self.options.max_line_bytes);
        if !open.readable {
            return splitter.finish(processor, unit.end, 0, Vec::new());
        }
        let handle = match File::open(&open.trace.path) {
            Ok(handle) => handle,
            Err(error) => {
                let problem = InflateProblem::Io { offset: unit.start, detail: error.to_string() };
                return splitter.finish(processor, unit.end, 0, vec![problem]);
            }
        };
        let handle = &handle;
        match open.trace.compression {
            Compression::Gzip if let Some(resume) = &unit.resume => {
                let outcome = gzip::inflate_resumed(handle, open.trace.size, resume, |block| {
                    splitter.feed(block, &mut processor);
                });
                splitter.finish(processor, outcome.end, 0, outcome.problems)
            }
            Compression::Gzip => {
                let outcome = gzip::inflate_range(
                    handle,
                    open.trace.size,
                    unit.start,
                    unit.end,
                    &open.candidates,
                    |block| splitter.feed(block, &mut processor),
                );
                let members = outcome.members;
                splitter.finish(processor, outcome.end, members, outcome.problems)
            }
            Compression::None => {
                let mut buffer = vec![0u8; 1 << 20];
                let mut position = unit.start;
                let mut problems = Vec::new();
                while position < unit.end {
                    let wanted = usize::try_from((unit.end - position).min(buffer.len() as u64)).unwrap_or(0);
                    match gzip::read_fully_at(handle, &mut buffer[..wanted], position) {
                        Ok(0) => break,
                        Ok(read) => {
                            splitter.feed(&buffer[..read], &mut processor);
                            position += read as u64;
                        }
                        Err(error) => {
                            problems.push(InflateProblem::Io { offset: position, detail: error.to_string() });
                            break;
                        }
                    }
                }
                splitter.finish(processor, unit.end, 0, problems)
            }
        }
    }

    /// Whether `unit` is decoded by one inflater and parsed on all cores ([`Scanner::decode_split`]):
    /// a whole gzip file large enough, alone in its window, with more than one worker.
    fn splittable(&self, open: &OpenFile, unit: &Unit, threads: usize) -> bool {
        threads > 1
            && open.readable
            && open.trace.compression == Compression::Gzip
            && unit.resume.is_none()
            && unit.start == 0
            && unit.end == open.trace.size
            && self.options.part_bytes > 0
            && open.trace.size >= (self.options.part_bytes / 16) as u64
    }

    /// Decodes a whole-file gzip unit that no member boundary splits (a single-member file, or
    /// few large members): this thread inflates and cuts the output after a newline every
    /// [`ScanOptions::part_bytes`], the pool's workers parse the parts, and the parts are merged here in order
    /// as they complete. At most `2 * threads` parts are in flight, so memory stays bounded
    /// whatever the file size. Parts are merged like units whose ends are not clean (no index
    /// chunk may end there: they are not compressed positions).
    #[expect(clippy::too_many_arguments, reason = "internal plumbing between scan loop and merge state")]
    fn decode_split<F, M, C>(
        &self,
        open: &OpenFile,
        unit: &Unit,
        pool: &rayon::ThreadPool,
        threads: usize,
        merge: &mut FileMerge<F>,
        summary: &mut FileSummary,
        make: &M,
        consume: &mut C,
    ) -> ControlFlow<()>
    where
        F: Fold,
        M: Fn(usize) -> F + Sync,
        C: FnMut(usize, F, UnitSpan) -> ControlFlow<()>,
    {
        let handle = match File::open(&open.trace.path) {
            Ok(handle) => handle,
            Err(error) => {
                let problem = InflateProblem::Io { offset: unit.start, detail: error.to_string() };
                let result = Splitter::new(false, self.options.max_line_bytes).finish(
                    LineProcessor::new(make(unit.file)),
                    unit.end,
                    0,
                    vec![problem],
                );
                return self.merge_unit(open, unit, result, merge, summary, make, consume);
            }
        };
        let max_line_bytes = self.options.max_line_bytes;
        let intermediate = Unit { file: unit.file, start: unit.start, end: unit.start, resume: None };
        let limit = 2 * threads;
        // A part's result, or the panic of its worker (re-raised here: a lost result would leave
        // this thread waiting forever).
        let (sender, receiver) = std::sync::mpsc::channel::<(usize, std::thread::Result<UnitResult<F>>)>();
        let mut flow = ControlFlow::Continue(());
        pool.in_place_scope(|scope| {
            let mut submitted = 0usize;
            let mut merged = 0usize;
            let mut ready: std::collections::BTreeMap<usize, UnitResult<F>> =
                std::collections::BTreeMap::new();
            // Merges the parts that are next in order; waits for results while more than
            // `keep_in_flight` parts are out.
            let mut drain = |submitted: usize, keep_in_flight: usize, flow: &mut ControlFlow<()>| {
                loop {
                    while let Some(result) = ready.remove(&merged) {
                        merged += 1;
                        let part = if result.clean_end { unit } else { &intermediate };
                        if flow.is_continue() {
                            *flow = self.merge_unit(open, part, result, merge, summary, make, consume);
                        }
                    }
                    if submitted - merged <= keep_in_flight {
                        return;
                    }
                    match receiver.recv() {
                        Ok((index, Ok(result))) => {
                            ready.insert(index, result);
                        }
                        Ok((_, Err(panic))) => std::panic::resume_unwind(panic),
                        Err(_) => return,
                    }
                }
            };
            let parse = |bytes: Vec<u8>, index: usize, tail: Option<gzip::InflateOutcome>| {
                let sender = sender.clone();
                let fold = make(unit.file);
                scope.spawn(move |_| {
                    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        let mut processor = LineProcessor::new(fold);
                        let mut splitter = Splitter::new(false, max_line_bytes);
                        splitter.feed(&bytes, &mut processor);
                        if let Some(outcome) = tail {
                            splitter.finish(processor, outcome.end, outcome.members, outcome.problems)
                        } else {
                            let mut result = splitter.finish(processor, intermediate.end, 0, Vec::new());
                            result.clean_end = false;
                            result
                        }
                    }));
                    let _ = sender.send((index, result));
                });
            };
            let part_bytes = self.options.part_bytes;
            let mut buffer: Vec<u8> = Vec::with_capacity(part_bytes + (256 << 10));
            let outcome = gzip::inflate_range(
                &handle,
                open.trace.size,
                unit.start,
                unit.end,
                &open.candidates,
                |block| {
                    if flow.is_break() {
                        return;
                    }
                    buffer.extend_from_slice(block);
                    // Cut after the first newline at or past `part_bytes`.
                    while flow.is_continue()
                        && buffer.len() >= part_bytes
                        && let Some(found) = memchr::memchr(b'\n', &buffer[part_bytes - 1..])
                    {
                        let cut = part_bytes + found;
                        let rest = buffer[cut..].to_vec();
                        buffer.truncate(cut);
                        let part = std::mem::replace(&mut buffer, rest);
                        parse(part, submitted, None);
                        submitted += 1;
                        drain(submitted, limit, &mut flow);
                    }
                },
            );
            if flow.is_continue() {
                parse(buffer, submitted, Some(outcome));
                submitted += 1;
            }
            drain(submitted, 0, &mut flow);
        });
        flow
    }

    /// Verifies, stitches and hands over one unit's result.
    #[expect(clippy::too_many_arguments, reason = "internal plumbing between scan loop and merge state")]
    fn merge_unit<F, M, C>(
        &self,
        open: &OpenFile,
        unit: &Unit,
        mut result: UnitResult<F>,
        merge: &mut FileMerge<F>,
        summary: &mut FileSummary,
        make: &M,
        consume: &mut C,
    ) -> ControlFlow<()>
    where
        F: Fold,
        M: Fn(usize) -> F + Sync,
        C: FnMut(usize, F, UnitSpan) -> ControlFlow<()>,
    {
        let mut decoded_start = unit.start;
        if open.trace.compression == Compression::Gzip && unit.start != merge.expected_start {
            if unit.end <= merge.expected_start {
                // The previous unit's last member covered this whole range: the start was a false
                // header candidate inside it.
                return ControlFlow::Continue(());
            }
            let redo = Unit { file: unit.file, start: merge.expected_start, end: unit.end, resume: None };
            result = self.decode_unit(open, &redo, true, make(unit.file));
            decoded_start = redo.start;
        }
        let span = UnitSpan {
            start: decoded_start,
            end: result.end,
            line_base: merge.line_base,
            offset_base: merge.offset_base,
            clean_end: result.clean_end,
        };
        merge.expected_start = result.end;
        let keep = self.options.max_reported_problems;
        let path = &open.trace.path;
        summary.absorb(&mut result, path, merge.line_base, merge.offset_base, keep);
        if !result.saw_newline {
            // The whole unit is the middle of one line.
            if merge.tail.is_empty() && !merge.tail_oversize {
                merge.tail_offset = merge.offset_base;
            }
            merge.append_tail(&result.tail, result.tail_oversize, self.options.max_line_bytes);
            merge.offset_base += result.bytes;
            match merge.held.as_mut() {
                Some((_, span)) => span.end = result.end,
                None => merge.held = Some((result.processor, span)),
            }
            return ControlFlow::Continue(());
        }
        let mut flow = ControlFlow::Continue(());
        if let Some(first) = result.first_line.take() {
            let continued = !merge.tail.is_empty() || merge.tail_oversize;
            let offset = if continued { merge.tail_offset } else { merge.offset_base };
            let mut line = std::mem::take(&mut merge.tail);
            let oversize = std::mem::take(&mut merge.tail_oversize)
                || result.first_oversize
                || line.len() + first.len() > self.options.max_line_bytes;
            line.extend_from_slice(&first);
            let located = LineLocation { line: merge.line_base + 1, offset };
            match merge.held.as_mut() {
                Some((held, held_span)) => {
                    // The stitched line crosses the boundary: no chunk may end there.
                    held_span.clean_end = !continued;
                    process_whole_line(&line, oversize, located, held, summary, path, keep);
                }
                None => {
                    process_whole_line(&line, oversize, located, &mut result.processor, summary, path, keep);
                }
            }
        } else if !merge.tail.is_empty() || merge.tail_oversize {
            // A unit that starts a line cannot follow an unfinished one; decode the tail alone.
            let line = std::mem::take(&mut merge.tail);
            let oversize = std::mem::take(&mut merge.tail_oversize);
            merge.line_base += 1;
            summary.lines += 1;
            let located = LineLocation { line: merge.line_base, offset: merge.tail_offset };
            match merge.held.as_mut() {
                Some((held, _)) => process_whole_line(&line, oversize, located, held, summary, path, keep),
                None => {
                    process_whole_line(&line, oversize, located, &mut result.processor, summary, path, keep);
                }
            }
        }
        if let Some((held, held_span)) = merge.held.take() {
            flow = consume(unit.file, held.fold, held_span);
        }
        summary.lines += result.lines;
        merge.tail_offset = merge.offset_base + result.tail_offset;
        merge.tail = std::mem::take(&mut result.tail);
        merge.tail_oversize = result.tail_oversize;
        merge.line_base += result.lines;
        merge.offset_base += result.bytes;
        merge.held = Some((result.processor, span));
        flow
    }

    /// Decodes a file's unfinished last line and hands over its last fold.
    fn finish_file<F: Fold, C: FnMut(usize, F, UnitSpan) -> ControlFlow<()>>(
        &self,
        file: usize,
        merges: &mut [FileMerge<F>],
        summary: &mut FileSummary,
        consume: &mut C,
    ) -> ControlFlow<()> {
        let merge = &mut merges[file];
        let keep = self.options.max_reported_problems;
        if !merge.tail.is_empty() || merge.tail_oversize {
            let line = std::mem::take(&mut merge.tail);
            let located = LineLocation { line: merge.line_base + 1, offset: merge.tail_offset };
            summary.lines += 1;
            let path = summary.path.clone();
            match merge.held.as_mut() {
                Some((held, _)) => {
                    process_whole_line(&line, merge.tail_oversize, located, held, summary, &path, keep);
                }
                None => {
                    summary.add_problem(
                        Problem {
                            path,
                            kind: ProblemKind::InvalidJson,
                            line: Some(located.line),
                            offset: Some(located.offset),
                            compressed_offset: None,
                            detail: "unterminated line".into(),
                        },
                        keep,
                    );
                }
            }
        }
        // Stitched lines are decoded after the unit that holds them: restore file order.
        summary.problems.sort_by_key(|problem| (problem.offset, problem.line));
        match merge.held.take() {
            Some((held, span)) => consume(file, held.fold, span),
            None => ControlFlow::Continue(()),
        }
    }
}

/// Groups units into windows decoded in parallel between two ordered merges: enough work per
/// window that no core waits long at the barrier, bounded so that memory stays bounded (each
/// window holds at most about `threads * 8` units' worth of folds).
fn windows(units: &[Unit], threads: usize, unit_bytes: u64) -> Vec<&[Unit]> {
    let budget = unit_bytes.max(1) * 8 * threads as u64;
    let mut windows = Vec::new();
    let mut start = 0;
    let mut bytes = 0u64;
    for (index, unit) in units.iter().enumerate() {
        bytes += unit.end - unit.start;
        if bytes >= budget || index + 1 - start >= 1024 {
            windows.push(&units[start..=index]);
            start = index + 1;
            bytes = 0;
        }
    }
    if start < units.len() {
        windows.push(&units[start..]);
    }
    windows
}

/// Adds one independently decoded chunk to its file's summary and returns its fold.
fn merge_chunk<F: Fold>(
    path: &std::path::Path,
    chunk: &Chunk,
    mut result: UnitResult<F>,
    summary: &mut FileSummary,
    keep: usize,
) -> F {
    summary.absorb(&mut result, path, chunk.line_base, chunk.offset_base, keep);
    summary.lines += result.lines;
    if !result.tail.is_empty() || result.tail_oversize {
        // The unterminated last line of the file.
        summary.lines += 1;
        let located = LineLocation {
            line: chunk.line_base + result.lines + 1,
            offset: chunk.offset_base + result.tail_offset,
        };
        let tail = std::mem::take(&mut result.tail);
        process_whole_line(&tail, result.tail_oversize, located, &mut result.processor, summary, path, keep);
    }
    result.processor.fold
}

fn in_pool<R: Send>(pool: Option<&rayon::ThreadPool>, work: impl FnOnce() -> R + Send) -> R {
    match pool {
        Some(pool) => pool.install(work),
        None => work(),
    }
}

fn inflate_problem(path: &std::path::Path, problem: InflateProblem, offset: u64) -> Problem {
    let (kind, compressed_offset, detail) = match problem {
        InflateProblem::NotGzip { offset } => (
            ProblemKind::TrailingGarbage,
            offset,
            "bytes that are not a gzip member; skipped to the end of the file".into(),
        ),
        InflateProblem::Truncated { member_offset } => {
            (ProblemKind::TruncatedMember, member_offset, "the file ends inside this gzip member".into())
        }
        InflateProblem::Corrupt { member_offset, detail, resume } => (
            ProblemKind::CorruptMember,
            member_offset,
            format!("corrupt gzip member: {detail}; resumed at compressed byte {resume}"),
        ),
        InflateProblem::Io { offset, detail } => {
            (ProblemKind::Unreadable, offset, format!("read failed: {detail}"))
        }
    };
    Problem {
        path: path.to_path_buf(),
        kind,
        line: None,
        offset: Some(offset),
        compressed_offset: Some(compressed_offset),
        detail,
    }
}

/// Finds the first line start at or after `offset` (the byte after a newline), or `None` at EOF.
fn next_line_start(file: &File, offset: u64, length: u64) -> std::io::Result<Option<u64>> {
    let mut buffer = vec![0u8; 64 << 10];
    let mut position = offset - 1;
    while position < length {
        let read = gzip::read_fully_at(file, &mut buffer, position)?;
        if read == 0 {
            return Ok(None);
        }
        if let Some(found) = memchr::memchr(b'\n', &buffer[..read]) {
            return Ok(Some(position + found as u64 + 1));
        }
        position += read as u64;
    }
    Ok(None)
}

#[derive(Clone, Copy)]
struct LineLocation {
    line: u64,
    offset: u64,
}

/// A problem with a position relative to its unit.
struct LocalProblem {
    kind: ProblemKind,
    line_index: u64,
    offset: u64,
    detail: String,
}

impl LocalProblem {
    fn locate(self, path: &std::path::Path, line_base: u64, offset_base: u64) -> Problem {
        Problem {
            path: path.to_path_buf(),
            kind: self.kind,
            line: Some(line_base + self.line_index + 1),
            offset: Some(offset_base + self.offset),
            compressed_offset: None,
            detail: self.detail,
        }
    }
}

/// Decodes lines and feeds events to a fold, keeping the unit's counters.
struct LineProcessor<F> {
    fold: F,
    /// The fold skims raw lines ([`Fold::skims`]).
    skims: bool,
    /// The fold takes [`EventFields`].
    wants_fields: bool,
    /// Whether every phase goes through the full decode.
    wants_all: bool,
    /// Per phase ([`Phase::index`]), whether the fold wants its events.
    wanted: [bool; 5],
    counts: PhaseCounts,
    wrapper_lines: u64,
    blank_lines: u64,
    evidence: GenerationEvidence,
    evidence_samples: u32,
    problems: Vec<LocalProblem>,
    problem_count: u64,
}

const EVIDENCE_SAMPLES: u32 = 64;
const KEPT_PER_UNIT: usize = 64;

impl<F: Fold> LineProcessor<F> {
    fn new(fold: F) -> Self {
        let needs_events = fold.needs_events();
        let wanted = Phase::ALL.map(|phase| needs_events && fold.wants(phase));
        LineProcessor {
            skims: fold.skims(),
            wants_fields: fold.wants_fields(),
            wants_all: wanted.iter().all(|&wanted| wanted),
            wanted,
            fold,
            counts: PhaseCounts::default(),
            wrapper_lines: 0,
            blank_lines: 0,
            evidence: GenerationEvidence::default(),
            evidence_samples: 0,
            problems: Vec::new(),
            problem_count: 0,
        }
    }

    /// Decodes one line; `Err` carries the problem for the caller to locate.
    fn line(&mut self, bytes: &[u8]) -> Result<(), (ProblemKind, String)> {
        if self.skims {
            self.fold.skim(bytes);
            return Ok(());
        }
        if self.wants_fields
            && let Some(fields) = decode_fields(bytes)
        {
            self.counts.add(fields.phase);
            if self.evidence_samples < EVIDENCE_SAMPLES {
                self.evidence_samples += 1;
                self.evidence.add(fields_evidence(&fields));
            } else if fields.integer_phase {
                self.evidence.add(GenerationEvidence(GenerationEvidence::INTEGER_PHASE));
            }
            self.fold.fields(&fields);
            return Ok(());
        }
        if !self.wants_all {
            return match decode_phase(bytes) {
                Ok(LinePhase::Event(phase, _)) if self.wanted[phase.index()] => self.event_line(bytes),
                Ok(LinePhase::Event(phase, evidence)) => {
                    self.counts.add(phase);
                    self.evidence.add(evidence);
                    Ok(())
                }
                Ok(LinePhase::Wrapper) => {
                    self.wrapper_lines += 1;
                    Ok(())
                }
                Ok(LinePhase::Blank) => {
                    self.blank_lines += 1;
                    Ok(())
                }
                Err(error) => Err(self.invalid(bytes, &error)),
            };
        }
        self.event_line(bytes)
    }

    /// Decodes a line fully and hands its event to the fold.
    fn event_line(&mut self, bytes: &[u8]) -> Result<(), (ProblemKind, String)> {
        match decode_line(bytes) {
            Ok(Line::Event(event)) => {
                if let Some(phase) = event.phase {
                    self.counts.add(phase);
                }
                self.evidence.add(event.evidence);
                if self.evidence_samples < EVIDENCE_SAMPLES && event.args.is_some() {
                    self.evidence_samples += 1;
                    self.evidence.add(hash_evidence(&Args::of(&event)));
                }
                self.fold.event(&event);
                Ok(())
            }
            Ok(Line::Wrapper) => {
                self.wrapper_lines += 1;
                Ok(())
            }
            Ok(Line::Blank) => {
                self.blank_lines += 1;
                Ok(())
            }
            Err(error) => Err(self.invalid(bytes, &error)),
        }
    }

    fn invalid(&mut self, bytes: &[u8], error: &LineError) -> (ProblemKind, String) {
        self.counts.invalid += 1;
        let kind = match error {
            LineError::InvalidUtf8 => ProblemKind::InvalidUtf8,
            LineError::InvalidJson(_) => ProblemKind::InvalidJson,
            LineError::NotAnEvent(_) => ProblemKind::NotAnEvent,
        };
        (kind, format!("{error}; line starts {}", preview(bytes)))
    }

    fn local_line(&mut self, bytes: &[u8], line_index: u64, offset: u64) {
        if let Err((kind, detail)) = self.line(bytes) {
            self.push_problem(LocalProblem { kind, line_index, offset, detail });
        }
    }

    fn oversize(&mut self, length: u64, line_index: u64, offset: u64) {
        self.counts.invalid += 1;
        self.push_problem(LocalProblem {
            kind: ProblemKind::LineTooLong,
            line_index,
            offset,
            detail: format!("line of {length} bytes exceeds the line length limit; skipped"),
        });
    }

    fn push_problem(&mut self, problem: LocalProblem) {
        self.problem_count += 1;
        if self.problems.len() < KEPT_PER_UNIT {
            self.problems.push(problem);
        }
    }
}

/// Generation evidence of a line decoded by the fields path: integer `ph`, the type of `hhash`,
/// inline names.
fn fields_evidence(fields: &EventFields<'_>) -> GenerationEvidence {
    let mut evidence = GenerationEvidence::default();
    if fields.integer_phase {
        evidence.add(GenerationEvidence(GenerationEvidence::INTEGER_PHASE));
    }
    match fields.args.hhash {
        Some(ioscout_model::RawValue::Number(_)) => {
            evidence.add(GenerationEvidence(GenerationEvidence::INTEGER_HASH));
        }
        Some(ioscout_model::RawValue::Str(_)) => {
            evidence.add(GenerationEvidence(GenerationEvidence::STRING_HASH));
        }
        _ => {}
    }
    if fields.args.hostname.is_some() || fields.args.fname.is_some() {
        evidence.add(GenerationEvidence(GenerationEvidence::INLINE_NAMES));
    }
    evidence
}

/// Decodes a line stitched on the merge thread and records its problem with absolute position.
fn process_whole_line<F: Fold>(
    line: &[u8],
    oversize: bool,
    location: LineLocation,
    processor: &mut LineProcessor<F>,
    summary: &mut FileSummary,
    path: &std::path::Path,
    keep: usize,
) {
    let before = processor.counts;
    let result = if oversize {
        Err((ProblemKind::LineTooLong, "line exceeds the line length limit; skipped".to_string()))
    } else {
        processor.line(line)
    };
    // Counts of the stitched line go to the summary directly: the processor's counts were
    // already merged.
    let mut delta = processor.counts;
    subtract(&mut delta, &before);
    processor.counts = before;
    summary.counts.merge(&delta);
    if let Err((kind, detail)) = result {
        if oversize {
            summary.counts.invalid += 1;
        }
        summary.problem_count += 1;
        if summary.problems.len() < keep {
            summary.problems.push(Problem {
                path: path.to_path_buf(),
                kind,
                line: Some(location.line),
                offset: Some(location.offset),
                compressed_offset: None,
                detail,
            });
        }
    }
}

fn subtract(counts: &mut PhaseCounts, before: &PhaseCounts) {
    counts.complete -= before.complete;
    counts.metadata -= before.metadata;
    counts.counter -= before.counter;
    counts.aggregated -= before.aggregated;
    counts.other -= before.other;
    counts.invalid -= before.invalid;
}

fn preview(bytes: &[u8]) -> String {
    let cut = &bytes[..bytes.len().min(60)];
    let text = String::from_utf8_lossy(cut);
    let text: String =
        text.chars().map(|character| if character.is_control() { ' ' } else { character }).collect();
    if bytes.len() > 60 { format!("{text:?}...") } else { format!("{text:?}") }
}

/// Splits a unit's decompressed stream into lines.
struct Splitter {
    carry: Vec<u8>,
    carry_offset: u64,
    oversize: bool,
    oversize_length: u64,
    next_offset: u64,
    line_index: u64,
    defer_first: bool,
    first_line: Option<Vec<u8>>,
    first_oversize: bool,
    saw_newline: bool,
    max_line_bytes: usize,
}

impl Splitter {
    fn new(defer_first: bool, max_line_bytes: usize) -> Splitter {
        Splitter {
            carry: Vec::new(),
            carry_offset: 0,
            oversize: false,
            oversize_length: 0,
            next_offset: 0,
            line_index: 0,
            defer_first,
            first_line: None,
            first_oversize: false,
            saw_newline: false,
            max_line_bytes,
        }
    }

    fn feed<F: Fold>(&mut self, block: &[u8], processor: &mut LineProcessor<F>) {
        let mut start = 0;
        for newline in memchr::memchr_iter(b'\n', block) {
            let piece = &block[start..newline];
            let continued = !self.carry.is_empty() || self.oversize;
            let offset = if continued { self.carry_offset } else { self.next_offset + start as u64 };
            if self.oversize {
                let length = self.oversize_length + piece.len() as u64;
                self.complete_oversize(length, offset, processor);
            } else if continued {
                let mut line = std::mem::take(&mut self.carry);
                line.extend_from_slice(piece);
                if line.len() > self.max_line_bytes {
                    self.complete_oversize(line.len() as u64, offset, processor);
                } else {
                    self.complete(&line, offset, processor);
                }
                line.clear();
                self.carry = line;
            } else if piece.len() > self.max_line_bytes {
                self.complete_oversize(piece.len() as u64, offset, processor);
            } else {
                self.complete(piece, offset, processor);
            }
            self.oversize = false;
            self.oversize_length = 0;
            start = newline + 1;
        }
        let rest = &block[start..];
        if !rest.is_empty() {
            if self.carry.is_empty() && !self.oversize {
                self.carry_offset = self.next_offset + start as u64;
            }
            if self.oversize {
                self.oversize_length += rest.len() as u64;
            } else if self.carry.len() + rest.len() > self.max_line_bytes {
                self.oversize = true;
                self.oversize_length = (self.carry.len() + rest.len()) as u64;
                self.carry = Vec::new();
            } else {
                self.carry.extend_from_slice(rest);
            }
        }
        self.next_offset += block.len() as u64;
    }

    fn complete<F: Fold>(&mut self, line: &[u8], offset: u64, processor: &mut LineProcessor<F>) {
        if self.defer_first && !self.saw_newline {
            self.first_line = Some(line.to_vec());
        } else {
            processor.local_line(line, self.line_index, offset);
        }
        self.saw_newline = true;
        self.line_index += 1;
    }

    fn complete_oversize<F: Fold>(&mut self, length: u64, offset: u64, processor: &mut LineProcessor<F>) {
        if self.defer_first && !self.saw_newline {
            // The first line may continue the previous unit's tail: the merge reports it.
            self.first_line = Some(Vec::new());
            self.first_oversize = true;
        } else {
            processor.oversize(length, self.line_index, offset);
        }
        self.saw_newline = true;
        self.line_index += 1;
    }

    fn finish<F: Fold>(
        self,
        mut processor: LineProcessor<F>,
        end: u64,
        members: u64,
        inflate_problems: Vec<InflateProblem>,
    ) -> UnitResult<F> {
        let problems = std::mem::take(&mut processor.problems);
        let counts = std::mem::take(&mut processor.counts);
        let problem_count = std::mem::take(&mut processor.problem_count);
        UnitResult {
            counts,
            wrapper_lines: processor.wrapper_lines,
            blank_lines: processor.blank_lines,
            evidence: processor.evidence,
            problem_count,
            problems,
            processor,
            lines: self.line_index,
            bytes: self.next_offset,
            members,
            end,
            first_line: self.first_line,
            first_oversize: self.first_oversize,
            saw_newline: self.saw_newline,
            tail_offset: self.carry_offset,
            tail: self.carry,
            tail_oversize: self.oversize,
            inflate_problems,
            clean_end: true,
        }
    }
}

/// A decoded unit, waiting to be merged.
struct UnitResult<F> {
    processor: LineProcessor<F>,
    counts: PhaseCounts,
    wrapper_lines: u64,
    blank_lines: u64,
    evidence: GenerationEvidence,
    problem_count: u64,
    problems: Vec<LocalProblem>,
    lines: u64,
    bytes: u64,
    members: u64,
    end: u64,
    first_line: Option<Vec<u8>>,
    first_oversize: bool,
    saw_newline: bool,
    tail: Vec<u8>,
    tail_offset: u64,
    tail_oversize: bool,
    inflate_problems: Vec<InflateProblem>,
    /// No line crosses the end (false for a part of a unit cut in its decompressed stream,
    /// whose end is not a compressed position a chunk could start at).
    clean_end: bool,
}

/// Per-file merge state.
struct FileMerge<F> {
    expected_start: u64,
    line_base: u64,
    offset_base: u64,
    tail: Vec<u8>,
    tail_offset: u64,
    tail_oversize: bool,
    held: Option<(LineProcessor<F>, UnitSpan)>,
}

impl<F> Default for FileMerge<F> {
    fn default() -> Self {
        FileMerge {
            expected_start: 0,
            line_base: 0,
            offset_base: 0,
            tail: Vec::new(),
            tail_offset: 0,
            tail_oversize: false,
            held: None,
        }
    }
}

impl<F> FileMerge<F> {
    fn append_tail(&mut self, bytes: &[u8], oversize: bool, limit: usize) {
        if oversize || self.tail.len() + bytes.len() > limit {
            self.tail_oversize = true;
            self.tail = Vec::new();
        } else if !self.tail_oversize {
            self.tail.extend_from_slice(bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_escapes_control_characters_only() {
        assert_eq!(printable("plain text, ünïcode"), "plain text, ünïcode");
        assert_eq!(printable("a\u{1b}[2Jb\u{9b}c\u{0}"), "a\\u{1b}[2Jb\\u{9b}c\\u{0}");
    }
}
