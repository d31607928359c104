//! Building or refreshing the index of one trace directory.
//!
//! # Overview
//!
//! [`build`] fingerprints every file, keeps the records of unchanged files, scans the changed and
//! new ones once with a [`StatsFold`] per unit, cuts chunks where the scanner reports that no
//! line crosses a unit boundary ([`UnitSpan::clean_end`]), and writes the whole result in one
//! transaction.

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use ioscout_read::{Compression, ScanOptions, ScanReport, Scanner, TraceFile, UnitSpan};

use crate::error::{Error, Result};
use crate::fingerprint::Fingerprint;
use crate::stats::StatsFold;
use crate::store::{self, ChunkEntry, FORMAT_VERSION, FileIndex, TraceIndex};

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
#[derive(Debug)]
pub struct BuildReport {
    /// The index file written.
    pub index_path: PathBuf,
    /// Files scanned now.
    pub indexed: usize,
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

/// Whether `directory` accepts new files (for `.ioscout/`).
fn writable(directory: &Path) -> bool {
    let probe = directory.join(".ioscout");
    if probe.is_dir() {
        let test = probe.join(".write-test");
        let ok = std::fs::write(&test, b"").is_ok();
        let _ = std::fs::remove_file(&test);
        return ok;
    }
    let ok = std::fs::create_dir(&probe).is_ok();
    if ok {
        let _ = std::fs::remove_dir(&probe);
    }
    ok
}

/// Indexes `files` (all in `directory`).
pub fn build(directory: &Path, files: &[TraceFile], options: &BuildOptions) -> Result<BuildReport> {
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
    for file in files {
        let key = file_key(directory, &file.path);
        let fingerprint = Fingerprint::of(&file.path)
            .map_err(|error| Error::Io { path: file.path.clone(), detail: error.to_string() })?;
        match previous.get(&key) {
            Some(record) if !options.force && record.fingerprint == fingerprint => {
                keep.insert(key, record.clone());
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
    let (built, scan) = scan_files(&stale, &fingerprints, options);
    for (_, _, metadata) in &built {
        tables.merge(metadata.tables.clone());
    }
    let mut written = BTreeMap::new();
    for (file, (mut record, file_values, _)) in stale.iter().zip(built) {
        count_unresolved(&mut record, &file_values, &tables);
        written.insert(file_key(directory, &file.path), record);
    }
    let chunks = written.values().chain(keep.values()).map(|record| record.chunks.len()).sum();
    let all = if fresh {
        let mut all = keep.clone();
        all.extend(others);
        all.extend(written.clone());
        all
    } else {
        written.clone()
    };
    let index_bytes = store::write(&index_path, &all, &removed, &tables, fresh)?;
    Ok(BuildReport {
        index_path,
        indexed: stale.len(),
        unchanged: keep.len(),
        removed: removed.len(),
        messages,
        scan,
        index_bytes,
        trace_bytes: files.iter().map(|file| file.size).sum(),
        chunks,
    })
}

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

/// Scans `files` once and returns one record per file.
fn scan_files(
    files: &[TraceFile],
    fingerprints: &[Fingerprint],
    options: &BuildOptions,
) -> (Vec<Built>, ScanReport) {
    let scanner = Scanner::new(ScanOptions {
        threads: options.threads,
        unit_bytes: if options.chunk_bytes == 0 { 1 << 20 } else { options.chunk_bytes },
        max_reported_problems: 20,
        progress: options.progress.clone(),
        ..ScanOptions::default()
    });
    let mut builders: Vec<FileBuilder> = files.iter().map(|_| FileBuilder::default()).collect();
    let report = scanner.scan(
        files,
        &[],
        |_| StatsFold::default(),
        |index, fold, span| {
            builders[index].add(fold, span);
            ControlFlow::Continue(())
        },
    );
    let records = builders
        .into_iter()
        .zip(files)
        .zip(fingerprints)
        .zip(&report.files)
        .map(|(((builder, file), fingerprint), summary)| builder.finish(file, *fingerprint, summary))
        .collect();
    (records, report)
}

/// Collects a file's unit folds into chunks.
#[derive(Default)]
struct FileBuilder {
    chunks: Vec<ChunkEntry>,
    open: Option<(UnitSpan, StatsFold)>,
    metadata: ioscout_read::TraceMetadata,
    /// Distinct file values per finished chunk, until the file's FH table is complete.
    file_values: Vec<Vec<String>>,
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
                stats,
            });
        } else {
            chunk_span.clean_end = false;
            self.open = Some((chunk_span, chunk_fold));
        }
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
        };
        (record, self.file_values, self.metadata)
    }
}
