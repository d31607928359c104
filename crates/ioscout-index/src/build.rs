//! Building or refreshing the index of one trace directory.
//!
//! # Overview
//!
//! [`build`] fingerprints every file, keeps the records of unchanged files, scans the changed and
//! new ones once with a [`StatsFold`] per unit, cuts chunks where the scanner reports that no
//! line crosses a unit boundary ([`UnitSpan::clean_end`]), and writes the whole result in one
//! transaction.
//!
//! A file that only grew since it was indexed (DFTracer appends gzip members while a job runs)
//! is not read again: when its record says it ended cleanly ([`FileIndex::clean_end`]) and its
//! indexed bytes are unchanged ([`Fingerprint::still_prefix_of`]: the CRC of their first and
//! last 64 KiB), only the appended bytes are scanned, from the old end, and added to its record
//! as a chunk. `analyze --follow` keeps an existing index current this way at every look.

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use ioscout_read::{Chunk, Compression, ScanOptions, ScanReport, Scanner, TraceFile, UnitSpan};

use crate::error::{Error, Result};
use crate::fingerprint::Fingerprint;
use crate::stats::StatsFold;
use crate::store::{self, ChunkEntry, FORMAT_VERSION, FileIndex, ResumePoint, TraceIndex};

/// How to build.
#[derive(Clone, Debug, Default)]
pub struct BuildOptions {
    /// Worker threads (0: all cores).
    pub threads: usize,
    /// Target compressed bytes per chunk (0: the default, 1 MiB).
    pub chunk_bytes: u64,
    /// Where to put indexes instead of `<dir>/.ioscout/`.
    pub index_dir: Option<PathBuf>,
    /// Rebuild every file, even unchanged ones.
    pub force: bool,
    /// Told the stored bytes of each unit as it is indexed.
    pub progress: Option<ioscout_read::Progress>,
}

/// What a build did.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct BuildReport {
    /// The index file written.
    pub index_path: PathBuf,
    /// Files scanned now, whole.
    pub indexed: usize,
    /// Files that grew since they were indexed, of which only the appended bytes were scanned.
    #[serde(default)]
    pub extended: usize,
    /// Files kept from the previous index.
    pub unchanged: usize,
    /// Records dropped because their file is gone.
    pub removed: usize,
    /// Notes for the user (relocation to the cache, rebuild of an old or damaged index).
    pub messages: Vec<String>,
    /// The scan of the indexed files (counts and problems).
    pub scan: ScanReport,
    /// Size of the index file.
    pub index_bytes: u64,
    /// Total size of the directory's trace files.
    pub trace_bytes: u64,
    /// Chunks in the index.
    pub chunks: usize,
}

/// The key of `file` in the index of `directory`.
pub fn file_key(directory: &Path, file: &Path) -> String {
    file.strip_prefix(directory).unwrap_or(file).to_string_lossy().into_owned()
}

/// Whether `directory` accepts new files (for `.ioscout/`). `.ioscout/` is made when it can be
/// (the index goes there then) and never removed again: another build of the same directory may
/// be putting its lock in it at this moment.
fn writable(directory: &Path) -> bool {
    let probe = directory.join(".ioscout");
    let _ = std::fs::create_dir(&probe);
    if !probe.is_dir() {
        return false;
    }
    let test = probe.join(format!(".write-test-{}", std::process::id()));
    let ok = std::fs::write(&test, b"").is_ok();
    let _ = std::fs::remove_file(&test);
    ok
}

/// What a build decided before scanning: where the index goes, what it keeps, what to scan.
struct Planned {
    /// Held until the last write: no second builder of this index runs meanwhile.
    lock: store::BuildLock,
    index_path: PathBuf,
    messages: Vec<String>,
    fresh: bool,
    tables: ioscout_model::HashTables,
    keep: BTreeMap<String, FileIndex>,
    others: BTreeMap<String, FileIndex>,
    removed: Vec<String>,
    stale: Vec<TraceFile>,
    fingerprints: Vec<Fingerprint>,
    grown: Vec<Grown>,
}

/// A file that grew since it was indexed, its indexed bytes unchanged: only what was appended is
/// scanned, and its record extended.
struct Grown {
    file: TraceFile,
    /// The file as it is now.
    fingerprint: Fingerprint,
    /// Its record in the previous index.
    record: FileIndex,
}

/// The most bytes appended to a file that are scanned as one chunk, in chunks: a file that grew
/// by more is scanned whole again, so that its chunks keep their size (a query decodes a chunk
/// on one thread).
const MOST_APPENDED_CHUNKS: u64 = 4;

/// The target compressed bytes per chunk.
fn chunk_bytes(options: &BuildOptions) -> u64 {
    if options.chunk_bytes == 0 { 1 << 20 } else { options.chunk_bytes }
}

/// Indexes `files` (all in `directory`).
pub fn build(directory: &Path, files: &[TraceFile], options: &BuildOptions) -> Result<BuildReport> {
    let planned = plan(directory, files, options, true)?;
    let (built, scan) = scan_files(&planned.stale, &planned.fingerprints, options);
    let (appended, appended_scan) = scan_appended(&planned.grown, options);
    let mut summaries = scan.files;
    summaries.extend(appended_scan.files);
    let scan = ScanReport::assemble(&[], MAX_REPORTED_PROBLEMS, summaries);
    finish(directory, files, planned, built, appended, scan)
}

/// Whether `file`, indexed as `record` and now fingerprinted `now`, only grew since and can be
/// extended from its old end (see the module's overview).
fn only_grew(file: &TraceFile, record: &FileIndex, now: &Fingerprint, options: &BuildOptions) -> bool {
    let old = &record.fingerprint;
    record.clean_end
        && now.size > old.size
        && record.chunks.last().map_or(old.size == 0, |chunk| chunk.end == old.size)
        && now.size - old.size <= MOST_APPENDED_CHUNKS * chunk_bytes(options)
        && old.still_prefix_of(&file.path).unwrap_or(false)
}

/// Reads the previous index and decides what to keep, what to scan whole and (when `extend` is
/// set) which grown files to extend.
fn plan(directory: &Path, files: &[TraceFile], options: &BuildOptions, extend: bool) -> Result<Planned> {
    let mut messages = Vec::new();
    let candidates = store::candidate_paths(directory, options.index_dir.as_deref());
    let index_path = if options.index_dir.is_some() || writable(directory) {
        candidates[0].clone()
    } else {
        let path = candidates.last().cloned().unwrap_or_else(|| candidates[0].clone());
        messages.push(format!(
            "{} is not writable: the index goes to {} (set --index-dir to choose)",
            directory.display(),
            path.display()
        ));
        path
    };
    let lock = store::BuildLock::acquire(&index_path, store::LOCK_WAIT)?;
    if let Some(waited) = lock.waited {
        messages.push(format!(
            "waited {:.1} s for another `ioscout index` of {} to finish (it held {})",
            waited.as_secs_f64(),
            directory.display(),
            store::lock_path(&index_path).display()
        ));
    }
    let mut fresh = options.force;
    let mut tables = ioscout_model::HashTables::default();
    let previous = match TraceIndex::read(&index_path) {
        Ok(Some(index)) => {
            tables = index.tables;
            index.files
        }
        Ok(None) => {
            if let Some(format) = TraceIndex::format_of(&index_path).filter(|&format| format < FORMAT_VERSION)
            {
                messages.push(format!(
                    "index {} has the older format {format}: rebuilding it in format {FORMAT_VERSION}",
                    index_path.display()
                ));
                fresh = true;
            }
            BTreeMap::new()
        }
        Err(Error::NewerFormat { .. }) if !options.force => {
            return Err(Error::NewerFormat {
                path: index_path,
                found: TraceIndex::format_of(&candidates[0]).unwrap_or(0),
                supported: FORMAT_VERSION,
            });
        }
        Err(error) => {
            messages.push(format!("{error}: rebuilding it"));
            fresh = true;
            BTreeMap::new()
        }
    };
    let mut keep = BTreeMap::new();
    let mut stale = Vec::new();
    let mut fingerprints = Vec::new();
    let mut grown = Vec::new();
    for file in files {
        let key = file_key(directory, &file.path);
        let fingerprint = Fingerprint::of(&file.path)
            .map_err(|error| Error::Io { path: file.path.clone(), detail: error.to_string() })?;
        match previous.get(&key) {
            Some(record) if !options.force && record.fingerprint == fingerprint => {
                keep.insert(key, record.clone());
            }
            Some(record) if !options.force && extend && only_grew(file, record, &fingerprint, options) => {
                grown.push(Grown { file: file.clone(), fingerprint, record: record.clone() });
            }
            _ => {
                stale.push(file.clone());
                fingerprints.push(fingerprint);
            }
        }
    }
    // Records of files not given this time stay while their file exists (indexing a subset,
    // `ioscout index dir/trace-0*`, must not drop the rest); those of vanished files go.
    let present: std::collections::BTreeSet<String> =
        files.iter().map(|file| file_key(directory, &file.path)).collect();
    let (absent, others): (Vec<_>, Vec<_>) = previous
        .iter()
        .filter(|(key, _)| !present.contains(*key))
        .partition(|(key, _)| !directory.join(key.as_str()).is_file());
    let removed: Vec<String> = absent.into_iter().map(|(key, _)| key.clone()).collect();
    let others: BTreeMap<String, FileIndex> =
        others.into_iter().map(|(key, record)| (key.clone(), record.clone())).collect();
    Ok(Planned {
        lock,
        index_path,
        messages,
        fresh,
        tables,
        keep,
        others,
        removed,
        stale,
        fingerprints,
        grown,
    })
}

/// Writes the records of the scanned files, of the extended ones (`appended`: what their
/// appended bytes hold, in the order of [`Planned::grown`]) and of those kept, in one
/// transaction.
fn finish(
    directory: &Path,
    files: &[TraceFile],
    planned: Planned,
    built: Vec<Built>,
    appended: Vec<Built>,
    scan: ScanReport,
) -> Result<BuildReport> {
    let Planned {
        lock: _lock,
        index_path,
        messages,
        fresh,
        mut tables,
        keep,
        others,
        removed,
        stale,
        grown,
        ..
    } = planned;
    for (_, _, metadata) in built.iter().chain(&appended) {
        tables.merge(metadata.tables.clone());
    }
    let mut written = BTreeMap::new();
    for (file, (mut record, file_values, _)) in stale.iter().zip(built) {
        count_unresolved(&mut record, &file_values, &tables);
        written.insert(file_key(directory, &file.path), record);
    }
    let extended = grown.len();
    for (grown, (mut added, file_values, _)) in grown.into_iter().zip(appended) {
        count_unresolved(&mut added, &file_values, &tables);
        let key = file_key(directory, &grown.file.path);
        let mut record = grown.record;
        // The record is written again: its windows go with it.
        let numbers = record.window_numbers();
        if !numbers.is_empty() {
            let windows = TraceIndex::windows(&index_path, &key, &numbers)?;
            record.windows = numbers.into_iter().zip(windows).collect();
        }
        written.insert(key, extend_record(record, added));
    }
    let chunks = written.values().chain(keep.values()).map(|record| record.chunks.len()).sum();
    let all = if fresh {
        let mut all = keep.clone();
        all.extend(others);
        // Records carried into a new index file bring their windows from the old one.
        for (key, record) in &mut all {
            let numbers = record.window_numbers();
            if !numbers.is_empty() {
                let windows = TraceIndex::windows(&index_path, key, &numbers)?;
                record.windows = numbers.into_iter().zip(windows).collect();
            }
        }
        all.extend(written.clone());
        all
    } else {
        written.clone()
    };
    let index_bytes = store::write(&index_path, &all, &removed, &tables, fresh)?;
    Ok(BuildReport {
        index_path,
        indexed: stale.len(),
        extended,
        unchanged: keep.len(),
        removed: removed.len(),
        messages,
        scan,
        index_bytes,
        trace_bytes: files.iter().map(|file| file.size).sum(),
        chunks,
    })
}

/// What every rank of a distributed build is told by rank 0.
#[derive(serde::Serialize, serde::Deserialize)]
struct SharedPlan {
    index_path: PathBuf,
    stale: Vec<TraceFile>,
    fingerprints: Vec<Fingerprint>,
}

/// One scanned file in a rank's partial index: its position among the files to scan, its
/// record, its checkpoint windows (not part of the encoded record), the distinct file values of each chunk, its hash tables, and its scan summary.
type PartialRecord = (
    usize,
    FileIndex,
    BTreeMap<u32, Vec<u8>>,
    Vec<Vec<String>>,
    ioscout_model::HashTables,
    ioscout_read::FileSummary,
);

/// The partial index of `rank` beside the index (`index.redb.part-3`).
fn partial_path(index_path: &Path, rank: usize) -> PathBuf {
    store::beside(index_path, &format!(".part-{rank}"))
}

fn write_partial(path: &Path, records: &[PartialRecord]) -> std::result::Result<(), String> {
    use std::io::Write as _;
    let bytes = postcard::to_stdvec(records).map_err(|error| error.to_string())?;
    let mut encoder = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(&bytes).map_err(|error| error.to_string())?;
    let deflated = encoder.finish().map_err(|error| error.to_string())?;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|error| format!("{}: {error}", parent.display()))?;
    }
    std::fs::write(path, deflated)
        .map_err(|error| format!("writing partial index {}: {error}", path.display()))
}

fn read_partial(path: &Path) -> std::result::Result<Vec<PartialRecord>, String> {
    use std::io::Read as _;
    let deflated = std::fs::read(path).map_err(|error| {
        format!(
            "reading partial index {}: {error} (the index directory must be shared by every rank)",
            path.display()
        )
    })?;
    let mut bytes = Vec::new();
    flate2::read::DeflateDecoder::new(deflated.as_slice())
        .read_to_end(&mut bytes)
        .map_err(|error| format!("partial index {}: {error}", path.display()))?;
    // Contained like the index itself: a damaged partial is an error naming it, never a panic.
    store::contain(path, || Ok(postcard::from_bytes::<Vec<PartialRecord>>(&bytes)))
        .map_err(|error| error.to_string())?
        .map_err(|error| format!("partial index {}: {error}", path.display()))
}

/// [`build`] as one rank of a job of several processes (MPI). Rank 0 reads the previous index
/// and decides what to scan; the files to scan are shared among the ranks by size (longest
/// first); each rank writes what it found to its own partial index beside the index
/// (`index.redb.part-N`: no two processes ever write one file); rank 0 merges the partials into
/// the one index, in one transaction, and removes them. Every rank returns rank 0's report. A
/// file a rank cannot read fails the build on every rank, naming the rank and the file; the
/// previous index is left as it was.
pub fn build_distributed(
    directory: &Path,
    files: &[TraceFile],
    options: &BuildOptions,
    collective: &dyn ioscout_read::cluster::Collective,
) -> Result<BuildReport> {
    use ioscout_read::cluster;
    let rank = collective.rank();
    // Grown files are scanned whole here: the ranks share whole files.
    let planned = if rank == 0 { Some(plan(directory, files, options, false)) } else { None };
    let shared = planned.as_ref().map(|planned| match planned {
        Ok(planned) => Ok(SharedPlan {
            index_path: planned.index_path.clone(),
            stale: planned.stale.clone(),
            fingerprints: planned.fingerprints.clone(),
        }),
        Err(error) => Err(error.to_string()),
    });
    let shared: SharedPlan = cluster::share_from_root(collective, shared)?;
    let weights: Vec<u64> = shared.stale.iter().map(|file| file.size).collect();
    let mine = cluster::my_share(&weights, collective);
    let my_files: Vec<TraceFile> = mine.iter().map(|index| shared.stale[*index].clone()).collect();
    let my_fingerprints: Vec<Fingerprint> = mine.iter().map(|index| shared.fingerprints[*index]).collect();
    let (built, scan) = scan_files(&my_files, &my_fingerprints, options);
    let own_partial = partial_path(&shared.index_path, rank);
    let result = if let Some(message) = cluster::unreadable(&scan.files) {
        Err(message)
    } else {
        let records: Vec<PartialRecord> = mine
            .iter()
            .zip(built)
            .zip(scan.files)
            .map(|((index, (mut record, values, metadata)), summary)| {
                let windows = std::mem::take(&mut record.windows);
                (*index, record, windows, values, metadata.tables, summary)
            })
            .collect();
        write_partial(&own_partial, &records)
    };
    let written = cluster::exchange(collective, &result);
    let Some(Ok(planned)) = planned else {
        // Not rank 0: rank 0 merges, then tells every rank how it went.
        if let Err(error) = written {
            let _ = std::fs::remove_file(&own_partial);
            return Err(error.into());
        }
        return Ok(cluster::share_from_root::<BuildReport>(collective, None)?);
    };
    if let Err(error) = written {
        for part in 0..collective.size() {
            let _ = std::fs::remove_file(partial_path(&shared.index_path, part));
        }
        return Err(error.into());
    }
    let mut merged: std::result::Result<Vec<PartialRecord>, String> = Ok(Vec::new());
    for part in 0..collective.size() {
        let path = partial_path(&shared.index_path, part);
        if let Ok(records) = merged.as_mut() {
            match read_partial(&path) {
                Ok(found) => records.extend(found),
                Err(message) => merged = Err(message),
            }
        }
        let _ = std::fs::remove_file(&path);
    }
    let report = merged.and_then(|mut records| {
        records.sort_by_key(|record| record.0);
        let mut built = Vec::with_capacity(records.len());
        let mut summaries = Vec::with_capacity(records.len());
        for (_, mut record, windows, values, tables, summary) in records {
            record.windows = windows;
            let metadata = ioscout_read::TraceMetadata { tables, ..ioscout_read::TraceMetadata::default() };
            built.push((record, values, metadata));
            summaries.push(summary);
        }
        let scan = ScanReport::assemble(&[], MAX_REPORTED_PROBLEMS, summaries);
        finish(directory, files, planned, built, Vec::new(), scan).map_err(|error| error.to_string())
    });
    Ok(cluster::share_from_root(collective, Some(report))?)
}

/// Problems kept per file in a build's report.
const MAX_REPORTED_PROBLEMS: usize = 20;

/// Counts, per chunk, the file values (distinct) that are inline names or that no FH record of
/// the directory names: `file ~ regex` cannot be pruned through the bloom filter for those.
fn count_unresolved(record: &mut FileIndex, file_values: &[Vec<String>], tables: &ioscout_model::HashTables) {
    for (chunk, values) in record.chunks.iter_mut().zip(file_values) {
        for value in values {
            if value.starts_with('=') {
                chunk.stats.files_inline += 1;
            } else if !tables.files.contains_key(&ioscout_model::HashToken(value.clone())) {
                chunk.stats.files_unresolved += 1;
            }
        }
    }
}

/// What scanning one file gives: its record, the distinct file values of each chunk, its
/// metadata.
type Built = (FileIndex, Vec<Vec<String>>, ioscout_read::TraceMetadata);

/// Scans `files` once and returns one record per file. Single-member gzip files larger than two
/// chunks are cut at checkpoints first ([`crate::checkpoint`]) and their chunks decoded in
/// parallel; the others are scanned by units, cut where no line crosses a unit boundary.
fn scan_files(
    files: &[TraceFile],
    fingerprints: &[Fingerprint],
    options: &BuildOptions,
) -> (Vec<Built>, ScanReport) {
    let chunk_bytes = chunk_bytes(options);
    let scanner = scanner(options);
    let threads = scanner.options().worker_threads();
    let mut resumable_files = Vec::new();
    let mut resumable_chunks = Vec::new();
    let mut plain_files = Vec::new();
    let mut resumed: Vec<bool> = Vec::with_capacity(files.len());
    for file in files {
        if let Some(chunks) = crate::checkpoint::plan(resumable_files.len(), file, chunk_bytes, threads) {
            resumable_files.push(file.clone());
            resumable_chunks.extend(chunks);
            resumed.push(true);
        } else {
            plain_files.push(file.clone());
            resumed.push(false);
        }
    }
    let mut plain_builders: Vec<FileBuilder> = plain_files.iter().map(|_| FileBuilder::default()).collect();
    let plain_report = scanner.scan(
        &plain_files,
        &[],
        |_| StatsFold::default(),
        |index, fold, span| {
            plain_builders[index].add(fold, span);
            ControlFlow::Continue(())
        },
    );
    let mut resumed_builders: Vec<FileBuilder> =
        resumable_files.iter().map(|_| FileBuilder::default()).collect();
    let mut next_chunk = resumable_chunks.iter();
    let mut resumed_report = scanner.scan_chunks(
        &resumable_files,
        &[],
        &resumable_chunks,
        |_| StatsFold::default(),
        |index, fold| {
            if let Some(chunk) = next_chunk.next() {
                resumed_builders[index].add_resumed(fold, chunk);
            }
            ControlFlow::Continue(())
        },
    );
    for summary in &mut resumed_report.files {
        summary.members = 1;
    }
    let mut plain = plain_builders.into_iter().zip(plain_report.files);
    let mut resumable = resumed_builders.into_iter().zip(resumed_report.files);
    let mut records = Vec::with_capacity(files.len());
    let mut summaries = Vec::with_capacity(files.len());
    for ((file, fingerprint), was_resumed) in files.iter().zip(fingerprints).zip(resumed) {
        let next = if was_resumed { resumable.next() } else { plain.next() };
        let (builder, summary) =
            next.unwrap_or_else(|| (FileBuilder::default(), ioscout_read::FileSummary::new(file)));
        records.push(builder.finish(file, *fingerprint, &summary));
        summaries.push(summary);
    }
    (records, ScanReport::assemble(&[], MAX_REPORTED_PROBLEMS, summaries))
}

/// The scanner of a build.
fn scanner(options: &BuildOptions) -> Scanner {
    Scanner::new(ScanOptions {
        threads: options.threads,
        unit_bytes: chunk_bytes(options),
        max_reported_problems: MAX_REPORTED_PROBLEMS,
        progress: options.progress.clone(),
        ..ScanOptions::default()
    })
}

/// Scans the bytes appended to each grown file, as one chunk from its old end, and returns one
/// record per file of what they hold alone (lines and offsets counted on from the old record),
/// with the scan's report.
fn scan_appended(grown: &[Grown], options: &BuildOptions) -> (Vec<Built>, ScanReport) {
    if grown.is_empty() {
        return (Vec::new(), ScanReport::assemble(&[], MAX_REPORTED_PROBLEMS, Vec::new()));
    }
    let files: Vec<TraceFile> = grown.iter().map(|grown| grown.file.clone()).collect();
    let chunks: Vec<Chunk> = grown
        .iter()
        .enumerate()
        .map(|(index, grown)| Chunk {
            file: index,
            start: grown.record.fingerprint.size,
            end: grown.file.size,
            line_base: grown.record.lines,
            offset_base: grown.record.uncompressed_bytes,
            resume: None,
        })
        .collect();
    let mut builders: Vec<FileBuilder> = grown.iter().map(|_| FileBuilder::default()).collect();
    let report = scanner(options).scan_chunks(
        &files,
        &[],
        &chunks,
        |_| StatsFold::default(),
        |index, fold| {
            if let (Some(builder), Some(chunk)) = (builders.get_mut(index), chunks.get(index)) {
                builder.add_resumed(fold, chunk);
            }
            ControlFlow::Continue(())
        },
    );
    let records = grown
        .iter()
        .zip(builders)
        .zip(&report.files)
        .map(|((grown, builder), summary)| builder.finish(&grown.file, grown.fingerprint, summary))
        .collect();
    (records, report)
}

/// `record` with what its file's appended bytes hold (`added`, a record of those bytes alone).
fn extend_record(record: FileIndex, added: FileIndex) -> FileIndex {
    let mut chunks = record.chunks;
    let first_added = chunks.len();
    chunks.extend(added.chunks);
    let mut windows = record.windows;
    for (number, window) in added.windows {
        let number = u32::try_from(first_added).ok().and_then(|first| first.checked_add(number));
        windows.insert(number.unwrap_or(u32::MAX), window);
    }
    FileIndex {
        fingerprint: added.fingerprint,
        gzip: record.gzip,
        members: record.members + added.members,
        lines: record.lines + added.lines,
        uncompressed_bytes: record.uncompressed_bytes + added.uncompressed_bytes,
        problem_count: record.problem_count + added.problem_count,
        invalid: record.invalid + added.invalid,
        chunks,
        time_metric: record.time_metric.or(added.time_metric),
        clean_end: added.clean_end,
        windows,
    }
}

/// Collects a file's unit folds into chunks.
#[derive(Default)]
struct FileBuilder {
    chunks: Vec<ChunkEntry>,
    open: Option<(UnitSpan, StatsFold)>,
    metadata: ioscout_read::TraceMetadata,
    /// Distinct file values per finished chunk, until the file's FH table is complete.
    file_values: Vec<Vec<String>>,
    /// Windows of chunks cut at checkpoints, by chunk number.
    windows: BTreeMap<u32, Vec<u8>>,
}

impl FileBuilder {
    fn add(&mut self, fold: StatsFold, span: UnitSpan) {
        let (mut chunk_span, mut chunk_fold) = match self.open.take() {
            Some((open_span, mut open_fold)) => {
                open_fold.merge(fold);
                (UnitSpan { end: span.end, clean_end: span.clean_end, ..open_span }, open_fold)
            }
            None => (span, fold),
        };
        if chunk_span.clean_end {
            let (stats, metadata, file_values) = std::mem::take(&mut chunk_fold).finish();
            self.metadata.merge(metadata);
            self.file_values.push(file_values);
            self.chunks.push(ChunkEntry {
                start: chunk_span.start,
                end: chunk_span.end,
                line_base: chunk_span.line_base,
                offset_base: chunk_span.offset_base,
                resume: None,
                stats,
            });
        } else {
            chunk_span.clean_end = false;
            self.open = Some((chunk_span, chunk_fold));
        }
    }

    /// Adds the fold of a chunk cut at a checkpoint (a whole chunk: no line crosses its ends).
    fn add_resumed(&mut self, fold: StatsFold, chunk: &ioscout_read::Chunk) {
        let (stats, metadata, file_values) = fold.finish();
        self.metadata.merge(metadata);
        self.file_values.push(file_values);
        let entry = ChunkEntry {
            start: chunk.start,
            end: chunk.end,
            line_base: chunk.line_base,
            offset_base: chunk.offset_base,
            resume: chunk.resume.as_deref().map(|resume| ResumePoint {
                bit_offset: resume.bit_offset,
                output_start: resume.output_start,
            }),
            stats,
        };
        if entry.has_window()
            && let Some(resume) = chunk.resume.as_deref()
        {
            let number = u32::try_from(self.chunks.len()).unwrap_or(u32::MAX);
            self.windows.insert(number, resume.window.clone());
        }
        self.chunks.push(entry);
    }

    fn finish(
        mut self,
        file: &TraceFile,
        fingerprint: Fingerprint,
        summary: &ioscout_read::FileSummary,
    ) -> Built {
        if let Some((span, fold)) = self.open.take() {
            // The last span of a file is always clean; this is only for safety.
            self.add(fold, UnitSpan { clean_end: true, ..span });
        }
        let record = FileIndex {
            fingerprint,
            gzip: file.compression == Compression::Gzip,
            members: summary.members,
            lines: summary.lines,
            uncompressed_bytes: summary.uncompressed_bytes,
            problem_count: summary.problem_count,
            invalid: summary.counts.invalid,
            chunks: self.chunks,
            time_metric: self.metadata.time_metric.clone(),
            clean_end: summary.ended_cleanly(file),
            windows: self.windows,
        };
        (record, self.file_values, self.metadata)
    }
}
