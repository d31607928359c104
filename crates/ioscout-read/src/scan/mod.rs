//! The parallel scan: split trace files into units, decode units on all cores, stitch and verify
//! them in order, and hand each unit's fold to the caller.
//!
//! # Overview
//!
//! [`Scanner::scan`] is the reader's main entry point. It plans [`Unit`]s: runs of gzip members of
//! about [`ScanOptions::unit_bytes`] compressed bytes (found from header candidates, see
//! [`crate::gzip`]), line-aligned byte ranges of plain files, and a single unit for a one-member gzip
//! file. Units are decoded in parallel (rayon), a bounded number ahead of the merge, so memory stays
//! bounded whatever the trace size: each worker streams its range through a 256 KiB inflate buffer and a line splitter
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
//!
//! # Parts
//!
//! - `fold`: the [`Fold`] trait a scan fills;
//! - `options`: [`ScanOptions`];
//! - `report`: [`Problem`], [`FileSummary`], [`ScanReport`];
//! - `plan`: files cut into units, units into windows; [`UnitSpan`], [`Chunk`];
//! - `lines`: the line splitter and the line processor;
//! - `split`: one large unit inflated on one thread, parsed on all;
//! - `merge`: the ordered merge (verify, stitch, hand over);
//! - this module: the [`Scanner`] and its drivers ([`Scanner::scan`], [`Scanner::scan_chunks`]).

mod fold;
mod lines;
mod merge;
mod options;
mod plan;
mod report;
mod split;

use std::fs::File;
use std::ops::ControlFlow;
use std::sync::Arc;

use rayon::prelude::*;

use crate::gzip::{self, InflateProblem};
use crate::input::{Compression, InputProblem, TraceFile};

pub use fold::{Both, Decode, Fold, LinePosition, NoFold, Phases};
pub use options::{Cancel, Progress, ScanOptions, max_threads};
pub use plan::{Chunk, UnitSpan};
pub use report::{
    Coverage, Extent, FileSummary, GrowingFile, Growth, Problem, ProblemKind, ProcessCoverage, ProcessKey,
    SETTLE, ScanReport, Span, printable,
};

use lines::{LineProcessor, Splitter};
use merge::{FileMerge, UnitResult, merge_chunk};
use plan::{OpenFile, Unit, windows};

/// How a unit of a window is decoded: by one worker (its result, ready to merge), or, alone in
/// its window, by [`Scanner::decode_split`] on the pool as it is merged.
enum Decoded<'pool, F> {
    Whole(Box<UnitResult<F>>),
    Split(&'pool rayon::ThreadPool),
}

/// What the merge of a window works on: the scan's worker threads, the files' merges and
/// summaries, and the file being merged.
struct WindowMerge<'a, F> {
    threads: usize,
    merges: &'a mut [FileMerge<F>],
    files: &'a mut [FileSummary],
    current: &'a mut Option<usize>,
    open_files: &'a [OpenFile],
}

/// Reads trace files in parallel. See the module documentation.
#[derive(Clone, Debug, Default)]
pub struct Scanner {
    options: ScanOptions,
    /// The worker pool, built at the first scan and reused by the later ones (and by clones).
    pool: std::sync::Arc<std::sync::OnceLock<Option<rayon::ThreadPool>>>,
    /// The gzip member candidates of each file planned, for the later scans of the same files
    /// (an analysis scans each file twice; finding them reads the whole file).
    candidates: std::sync::Arc<std::sync::Mutex<CandidateCache>>,
}

/// Member candidates found by [`Scanner`]'s plans, by file path, the size planned and the
/// file's modification time then.
type CandidateCache = std::collections::HashMap<
    (std::path::PathBuf, u64, Option<std::time::SystemTime>),
    std::sync::Arc<Vec<u64>>,
>;

impl Scanner {
    /// A scanner with `options`.
    pub fn new(options: ScanOptions) -> Scanner {
        Scanner { options, pool: std::sync::Arc::default(), candidates: std::sync::Arc::default() }
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
        let windows = windows(&units, threads, self.options.unit_bytes, self.options.window_units_per_thread);
        let mut merges: Vec<FileMerge<F>> = (0..open_files.len()).map(|_| FileMerge::default()).collect();
        let mut current: Option<usize> = None;
        if let Some(pool) = pool
            && pool.current_thread_index().is_none()
        {
            let mut window = WindowMerge {
                threads,
                merges: &mut merges,
                files: &mut report.files[first_file..],
                current: &mut current,
                open_files: &open_files,
            };
            if self.stream(&windows, pool, &mut window, make, consume).is_break() {
                report.stopped = true;
            }
        } else {
            self.scan_windows(
                &windows,
                &open_files,
                &mut merges,
                &mut current,
                &mut report,
                first_file,
                make,
                consume,
                threads,
                pool,
            );
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

    /// Decodes and merges the units of `windows` in order, with workers that decode units as they
    /// are merged: at most [`ScanOptions::window_units_per_thread`] units per worker (and at least
    /// two) are decoded ahead of the merge, so memory stays bounded, and no worker waits for the
    /// slowest unit of a window (nor the merge for a whole window). A unit alone in its window
    /// that can be split ([`Scanner::splittable`]) is split as it is merged, as by
    /// [`Scanner::scan_windows`]. `pool` must not be the calling thread's pool (this thread waits
    /// for its workers without working).
    fn stream<F, M, C>(
        &self,
        windows: &[&[Unit]],
        pool: &rayon::ThreadPool,
        window: &mut WindowMerge<'_, F>,
        make: &M,
        consume: &mut C,
    ) -> ControlFlow<()>
    where
        F: Fold,
        M: Fn(usize) -> F + Sync,
        C: FnMut(usize, F, UnitSpan) -> ControlFlow<()>,
    {
        let threads = window.threads;
        let open_files = window.open_files;
        // Each unit in order, and whether it is split as it is merged.
        let order: Vec<(&Unit, bool)> = windows
            .iter()
            .flat_map(|batch| {
                let split = matches!(batch, [unit] if self.splittable(&open_files[unit.file], unit, threads));
                batch.iter().map(move |unit| (unit, split))
            })
            .collect();
        let ahead = (self.options.window_units_per_thread.max(2) as usize).saturating_mul(threads.max(1));
        // A unit's result, or the panic of its worker (re-raised here: a lost result would leave
        // this thread waiting forever).
        let (sender, receiver) = std::sync::mpsc::channel::<(usize, std::thread::Result<UnitResult<F>>)>();
        pool.in_place_scope(|scope| {
            let spawn = |position: usize| {
                let Some(&(unit, false)) = order.get(position) else { return };
                let sender = sender.clone();
                scope.spawn(move |_| {
                    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        self.decode_unit(&open_files[unit.file], unit, unit.start != 0, make(unit.file))
                    }));
                    let _ = sender.send((position, result));
                });
            };
            (0..ahead.min(order.len())).for_each(spawn);
            let mut ready: std::collections::BTreeMap<usize, UnitResult<F>> =
                std::collections::BTreeMap::new();
            for (position, &(unit, split)) in order.iter().enumerate() {
                let decoded = if split {
                    Decoded::Split(pool)
                } else {
                    loop {
                        if let Some(result) = ready.remove(&position) {
                            break Decoded::Whole(Box::new(result));
                        }
                        match receiver.recv() {
                            Ok((at, Ok(result))) => {
                                ready.insert(at, result);
                            }
                            Ok((_, Err(panic))) => std::panic::resume_unwind(panic),
                            // Not reached: this thread holds a sender.
                            Err(_) => return ControlFlow::Break(()),
                        }
                    }
                };
                spawn(position + ahead);
                self.merge_one(unit, decoded, window, make, consume)?;
            }
            ControlFlow::Continue(())
        })
    }

    /// Decodes `windows` one after the other (the next on the pool while this thread merges one)
    /// and merges them in order.
    #[allow(clippy::too_many_arguments)]
    fn scan_windows<F, M, C>(
        &self,
        windows: &[&[Unit]],
        open_files: &[OpenFile],
        merges: &mut [FileMerge<F>],
        current: &mut Option<usize>,
        report: &mut ScanReport,
        first_file: usize,
        make: &M,
        consume: &mut C,
        threads: usize,
        pool: Option<&rayon::ThreadPool>,
    ) where
        F: Fold,
        M: Fn(usize) -> F + Sync,
        C: FnMut(usize, F, UnitSpan) -> ControlFlow<()>,
    {
        let decode = |batch: &[Unit]| self.decode_window(batch, open_files, threads, pool, make);
        let mut next = windows.first().map(|batch| decode(batch));
        for (index, batch) in windows.iter().enumerate() {
            let decoded = next.take().unwrap_or_default();
            let following = windows.get(index + 1);
            let mut window =
                WindowMerge { threads, merges, files: &mut report.files[first_file..], current, open_files };
            // The next window is decoded on the pool while this one is merged on this thread, so
            // the workers do not wait for the merge (nor the merge for them).
            let mut prefetched = None;
            let flow = match (pool, following) {
                (Some(pool), Some(following)) => pool.in_place_scope(|scope| {
                    scope.spawn(|_| prefetched = Some(decode(following)));
                    self.merge_window(batch, decoded, &mut window, make, consume)
                }),
                _ => self.merge_window(batch, decoded, &mut window, make, consume),
            };
            if flow.is_break() {
                report.stopped = true;
                break;
            }
            next = prefetched.or_else(|| following.map(|batch| decode(batch)));
        }
    }

    /// Decodes the units of one window in parallel (or leaves a lone splittable unit to be split
    /// as it is merged).
    fn decode_window<'pool, F, M>(
        &self,
        batch: &[Unit],
        open_files: &[OpenFile],
        threads: usize,
        pool: Option<&'pool rayon::ThreadPool>,
        make: &M,
    ) -> Vec<Decoded<'pool, F>>
    where
        F: Fold,
        M: Fn(usize) -> F + Sync,
    {
        match (batch, pool) {
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
        }
    }

    /// Merges one decoded window in file order, handing each file's folds to `consume`.
    fn merge_window<F, M, C>(
        &self,
        batch: &[Unit],
        decoded: Vec<Decoded<'_, F>>,
        window: &mut WindowMerge<'_, F>,
        make: &M,
        consume: &mut C,
    ) -> ControlFlow<()>
    where
        F: Fold,
        M: Fn(usize) -> F + Sync,
        C: FnMut(usize, F, UnitSpan) -> ControlFlow<()>,
    {
        for (unit, decoded) in batch.iter().zip(decoded) {
            self.merge_one(unit, decoded, window, make, consume)?;
        }
        ControlFlow::Continue(())
    }

    /// Merges one decoded unit: finishes the previous file when the unit starts another, and
    /// merges (or splits and merges) the unit.
    fn merge_one<F, M, C>(
        &self,
        unit: &Unit,
        decoded: Decoded<'_, F>,
        window: &mut WindowMerge<'_, F>,
        make: &M,
        consume: &mut C,
    ) -> ControlFlow<()>
    where
        F: Fold,
        M: Fn(usize) -> F + Sync,
        C: FnMut(usize, F, UnitSpan) -> ControlFlow<()>,
    {
        if self.options.cancelled() {
            return ControlFlow::Break(());
        }
        if *window.current != Some(unit.file) {
            if let Some(previous) = *window.current {
                self.finish_file(previous, window.merges, &mut window.files[previous], consume)?;
            }
            *window.current = Some(unit.file);
        }
        let summary = &mut window.files[unit.file];
        let open = &window.open_files[unit.file];
        let merge = &mut window.merges[unit.file];
        let flow = match decoded {
            Decoded::Whole(result) => self.merge_unit(open, unit, *result, merge, summary, make, consume),
            Decoded::Split(pool) => {
                self.decode_split(open, unit, pool, window.threads, merge, summary, make, consume)
            }
        };
        if let Some(progress) = &self.options.progress {
            (progress.0)(unit.end - unit.start);
        }
        flow
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
                inflate_whole: false,
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
        'windows: for batch in
            windows(&units, threads, self.options.unit_bytes, self.options.window_units_per_thread)
        {
            let results: Vec<UnitResult<F>> = in_pool(pool, || {
                batch
                    .par_iter()
                    .map(|unit| self.decode_unit(&open_files[unit.file], unit, false, make(unit.file)))
                    .collect()
            });
            for result in results {
                if self.options.cancelled() {
                    report.stopped = true;
                    break 'windows;
                }
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
}

impl Scanner {
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
        if !open.readable || self.options.cancelled() {
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
            Compression::Gzip if open.inflate_whole && unit.start == 0 && unit.end == open.trace.size => {
                let outcome = gzip::inflate_whole_file(handle, open.trace.size, |block| {
                    splitter.feed(block, &mut processor);
                });
                let members = outcome.members;
                splitter.finish(processor, outcome.end, members, outcome.problems)
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
