//! The index file: where it lives, its format, and reading and writing it atomically.
//!
//! # Format
//!
//! One redb database per trace directory, `<dir>/.ioscout/index.redb` by default, or, when that
//! directory is read-only or `--index-dir` is given, `<cache>/<hash of the directory>.redb` under
//! `--index-dir`, `$XDG_CACHE_HOME/ioscout/indexes` or `~/.cache/ioscout/indexes`. Tables:
//!
//! - `meta`: `format` → [`FORMAT_VERSION`] (u32, little-endian), `tool` → the writer's version;
//! - `files`: file name relative to the directory → a [`FileIndex`], postcard-encoded then
//!   deflated (names and categories repeat, so records shrink several-fold); a record written
//!   before [`FileIndex::clean_end`] was added ends before that field and reads as `false`;
//! - `windows`: (file name, chunk number) → the raw-deflated 32 KiB window of a chunk that
//!   resumes inside a gzip member ([`ResumePoint`]); kept apart from the records so a query
//!   loads only the windows of the chunks it reads;
//! - `hashes`: `F:`/`H:`/`S:` plus a hash token → the path, host name or string it stands for,
//!   for the whole directory (every rank names the same files: stored once, not per file).
//!   Hashes are content-derived, so mappings are never wrong and are only added.
//!
//! Every write is one redb transaction: a crash leaves the previous index or none, never half
//! of one. An index of an older format is rebuilt; one of a newer format is refused with a
//! message, never misread.
//!
//! # Trust
//!
//! redb trusts its file: a changed byte can make it panic deep in its B-tree code. So every
//! write also leaves `index.redb.sum` (CRC-32 and length of the whole file), [`TraceIndex::read`]
//! verifies it before opening the database, and every read of the store runs inside
//! [`contain`], which turns a panic of the store into [`Error::Corrupt`] (an index without its
//! `.sum` (from an older ioscout, or edited by hand) is never opened: arbitrary bytes can make
//! the store allocate gigabytes before any check of its own; it is rebuilt).
//! Builders take `index.redb.lock` ([`BuildLock`]) for the whole build, so a second
//! `ioscout index` of the same directory waits for the first; a reader that meets a build in
//! progress gets [`Error::Locked`], never "unreadable".

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use serde::{Deserialize, Serialize};

use crate::bloom::stable_hash;
use crate::error::{Error, Result};
use crate::fingerprint::Fingerprint;
use crate::stats::ChunkStats;

/// Version of the index format this build reads and writes.
pub const FORMAT_VERSION: u32 = 3;

const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");
const FILES: TableDefinition<&str, &[u8]> = TableDefinition::new("files");
const HASHES: TableDefinition<&str, &str> = TableDefinition::new("hashes");
const WINDOWS: TableDefinition<(&str, u32), &[u8]> = TableDefinition::new("windows");

/// Where a chunk inside a single gzip member starts: a deflate block boundary found while
/// indexing (zran-style). Its window is in the `windows` table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResumePoint {
    /// Compressed position of the block, in bits.
    pub bit_offset: u64,
    /// Decompressed offset of the block's first byte (the chunk's lines start at the first
    /// line start at or after it, `offset_base`).
    pub output_start: u64,
}

/// One chunk of a trace file: a piece that decodes on its own, and its statistics.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChunkEntry {
    /// First byte (a line start; for gzip also a member start).
    pub start: u64,
    /// First byte after the chunk.
    pub end: u64,
    /// Lines of the file before the chunk.
    pub line_base: u64,
    /// Decompressed bytes of the file before the chunk.
    pub offset_base: u64,
    /// Set when the chunk starts inside a gzip member (else it starts at a member start).
    pub resume: Option<ResumePoint>,
    /// What the chunk holds.
    pub stats: ChunkStats,
}

/// Everything the index keeps about one raw trace file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FileIndex {
    /// The file as it was indexed.
    pub fingerprint: Fingerprint,
    /// gzip (else plain text).
    pub gzip: bool,
    /// gzip members.
    pub members: u64,
    /// Lines.
    pub lines: u64,
    /// Decompressed bytes.
    pub uncompressed_bytes: u64,
    /// Bad input met while indexing.
    pub problem_count: u64,
    /// Invalid lines and regions (file-level problems included, counted once).
    pub invalid: u64,
    /// The chunks, in file order; they tile the file.
    pub chunks: Vec<ChunkEntry>,
    /// The file's `CM time_metric`, if any.
    pub time_metric: Option<String>,
    /// The file ended cleanly when it was indexed (no cut gzip member, no unfinished last line,
    /// no problem left unrecorded): when it grows and its indexed bytes are unchanged, only the
    /// appended bytes are read and added as chunks.
    pub clean_end: bool,
    /// The windows of resumed chunks, by chunk number, until they are written (never part of
    /// the encoded record).
    #[serde(skip)]
    pub windows: BTreeMap<u32, Vec<u8>>,
}

impl FileIndex {
    /// The file-level roll-up of the chunk statistics (computed, not stored: for a file of one
    /// chunk it would double the record).
    pub fn rollup(&self) -> ChunkStats {
        let mut rollup = ChunkStats::default();
        for chunk in &self.chunks {
            rollup.merge(&chunk.stats);
        }
        rollup.counts.invalid = self.invalid;
        rollup
    }
}

impl ChunkEntry {
    /// Whether the chunk has a window in the `windows` table: it starts inside a gzip member,
    /// after the member's first block.
    pub fn has_window(&self) -> bool {
        self.resume.is_some_and(|resume| resume.output_start > 0)
    }
}

impl FileIndex {
    /// Numbers of the chunks that have a window ([`ChunkEntry::has_window`]).
    pub fn window_numbers(&self) -> Vec<u32> {
        (0..self.chunks.len())
            .filter(|&number| self.chunks[number].has_window())
            .filter_map(|number| u32::try_from(number).ok())
            .collect()
    }

    /// The chunks `numbers` of this record as the scanner reads them (file `file` of its list),
    /// with the windows of those that start inside a gzip member read from the index at
    /// `index_path`, where this record is stored under `key`.
    pub fn scan_chunks(
        &self,
        file: usize,
        index_path: &Path,
        key: &str,
        numbers: &[usize],
    ) -> Result<Vec<ioscout_read::Chunk>> {
        let needing: Vec<u32> = numbers
            .iter()
            .filter(|&&number| self.chunks.get(number).is_some_and(ChunkEntry::has_window))
            .filter_map(|&number| u32::try_from(number).ok())
            .collect();
        let mut windows: BTreeMap<u32, Vec<u8>> = if needing.is_empty() {
            BTreeMap::new()
        } else {
            let found = TraceIndex::windows(index_path, key, &needing)?;
            needing.into_iter().zip(found).collect()
        };
        Ok(numbers
            .iter()
            .filter_map(|&number| {
                let entry = self.chunks.get(number)?;
                let resume = entry.resume.map(|point| {
                    let window =
                        u32::try_from(number).ok().and_then(|key| windows.remove(&key)).unwrap_or_default();
                    Box::new(ioscout_read::Resume {
                        bit_offset: point.bit_offset,
                        output_start: point.output_start,
                        line_start: entry.offset_base,
                        line_end: self.chunks.get(number + 1).map(|next| next.offset_base),
                        window,
                    })
                });
                Some(ioscout_read::Chunk {
                    file,
                    start: entry.start,
                    end: entry.end,
                    line_base: entry.line_base,
                    offset_base: entry.offset_base,
                    resume,
                })
            })
            .collect())
    }
}

/// Where the index of `directory` lives: the first candidate is where it is written by default.
pub fn candidate_paths(directory: &Path, index_dir: Option<&Path>) -> Vec<PathBuf> {
    let canonical = std::fs::canonicalize(directory).unwrap_or_else(|_| directory.to_path_buf());
    let name = format!("{:016x}.redb", stable_hash(canonical.to_string_lossy().as_bytes()));
    if let Some(index_dir) = index_dir {
        return vec![index_dir.join(name)];
    }
    let mut paths = vec![directory.join(".ioscout").join("index.redb")];
    paths.push(cache_root().join(name));
    paths
}

/// The user's cache directory for indexes of read-only trace directories.
pub fn cache_root() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|path| path.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("ioscout").join("indexes")
}

/// Opens an index to read it: a shared lock, so any number of queries (threads or processes)
/// read one index at once; only a writer excludes them (then [`Error::Locked`]).
fn open_for_reading(path: &Path) -> Result<redb::ReadOnlyDatabase> {
    Database::builder().open_read_only(path).map_err(|error| match error {
        redb::DatabaseError::DatabaseAlreadyOpen => locked(path),
        other => corrupt(path, other),
    })
}

fn corrupt(path: &Path, detail: impl std::fmt::Display) -> Error {
    Error::Corrupt { path: path.to_path_buf(), detail: detail.to_string() }
}

fn locked(path: &Path) -> Error {
    Error::Locked { path: path.to_path_buf() }
}

thread_local! {
    /// Set while this thread runs inside [`contain`]: its panics are caught and reported as
    /// errors, so the panic hook stays quiet for them.
    static CONTAINED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `read` (which reads the store at `path`) so that a panic inside it (redb trusts its
/// file, and a damaged one can make it panic) becomes [`Error::Corrupt`] naming the file,
/// instead of ending the process. The panic hook in force is kept for every other panic.
pub fn contain<T>(path: &Path, read: impl FnOnce() -> Result<T>) -> Result<T> {
    static QUIET_HOOK: std::sync::Once = std::sync::Once::new();
    QUIET_HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !CONTAINED.with(std::cell::Cell::get) {
                previous(info);
            }
        }));
    });
    let outer = CONTAINED.with(|flag| flag.replace(true));
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(read));
    CONTAINED.with(|flag| flag.set(outer));
    outcome.unwrap_or_else(|panic| {
        let message = panic
            .downcast_ref::<&str>()
            .map(|text| (*text).to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".into());
        Err(corrupt(path, format!("the store failed inside its own code: {message}")))
    })
}

/// A file beside the index at `path`, named after it: `index.redb` + `.sum`, `.lock`, `.part-3`.
pub(crate) fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().map(std::ffi::OsStr::to_os_string).unwrap_or_default();
    name.push(suffix);
    path.with_file_name(name)
}

/// The checksum file written beside an index (`index.redb` → `index.redb.sum`).
pub fn checksum_path(path: &Path) -> PathBuf {
    beside(path, ".sum")
}

/// The lock file builders of one index take (`index.redb` → `index.redb.lock`).
pub fn lock_path(path: &Path) -> PathBuf {
    beside(path, ".lock")
}

fn checksum_line(bytes: &[u8]) -> String {
    format!("crc32 {:08x} length {}\n", crc32fast::hash(bytes), bytes.len())
}

/// Writes the checksum of the file `written` as the checksum of the index at `path` (the same
/// file, or the new index about to be renamed over it).
fn seal(written: &Path, path: &Path) -> Result<()> {
    let io = |error: std::io::Error| Error::Io { path: path.to_path_buf(), detail: error.to_string() };
    let bytes = std::fs::read(written).map_err(io)?;
    let sum = checksum_path(path);
    let temporary = sum.with_extension("sum.tmp");
    std::fs::write(&temporary, checksum_line(&bytes)).map_err(io)?;
    std::fs::rename(&temporary, &sum).map_err(io)
}

/// Checks the index file against its `.sum`, when there is one. A mismatch while a build holds
/// the lock is that build's write in progress ([`Error::Locked`]); otherwise the file changed
/// after ioscout wrote it ([`Error::Corrupt`]).
fn verify(path: &Path) -> Result<()> {
    let Ok(expected) = std::fs::read_to_string(checksum_path(path)) else {
        if BuildLock::held_elsewhere(path) {
            return Err(locked(path));
        }
        // Arbitrary bytes can make the store allocate gigabytes before any check of its own: a
        // file ioscout cannot vouch for is never opened.
        return Err(corrupt(
            path,
            format!(
                "no checksum beside it ({} is missing: written by an older ioscout, or changed by hand); not trusted",
                checksum_path(path).display()
            ),
        ));
    };
    let bytes = std::fs::read(path).map_err(|error| corrupt(path, error))?;
    if checksum_line(&bytes) == expected {
        return Ok(());
    }
    if BuildLock::held_elsewhere(path) {
        return Err(locked(path));
    }
    Err(corrupt(
        path,
        format!(
            "its checksum does not match {} ({} now, {} when written)",
            checksum_path(path).display(),
            checksum_line(&bytes).trim_end(),
            expected.trim_end()
        ),
    ))
}

/// The exclusive lock of an index's builder, held from planning to the last write; dropped, it
/// is released (also when the process dies: it is an OS file lock).
#[derive(Debug)]
pub struct BuildLock {
    _file: std::fs::File,
    path: PathBuf,
    /// How long this builder waited for another one, if it did.
    pub waited: Option<std::time::Duration>,
}

impl Drop for BuildLock {
    fn drop(&mut self) {
        if let Ok(mut held) = held_here().lock() {
            held.remove(&self.path);
        }
    }
}

/// The lock files this process's builds hold.
fn held_here() -> &'static std::sync::Mutex<std::collections::BTreeSet<PathBuf>> {
    static HELD: std::sync::OnceLock<std::sync::Mutex<std::collections::BTreeSet<PathBuf>>> =
        std::sync::OnceLock::new();
    HELD.get_or_init(std::sync::Mutex::default)
}

/// How long a builder waits for another build of the same index before giving up.
pub const LOCK_WAIT: std::time::Duration = std::time::Duration::from_mins(10);

impl BuildLock {
    /// Takes the build lock of the index at `path`, waiting up to `wait` for a build in
    /// progress; [`Error::Locked`] when it is still held then.
    pub fn acquire(path: &Path, wait: std::time::Duration) -> Result<BuildLock> {
        let io = |error: std::io::Error| Error::Io { path: lock_path(path), detail: error.to_string() };
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io)?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(lock_path(path))
            .map_err(io)?;
        let started = std::time::Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => {
                    let elapsed = started.elapsed();
                    let waited = (elapsed >= std::time::Duration::from_millis(50)).then_some(elapsed);
                    if let Ok(mut held) = held_here().lock() {
                        held.insert(lock_path(path));
                    }
                    return Ok(BuildLock { _file: file, path: lock_path(path), waited });
                }
                Err(std::fs::TryLockError::WouldBlock) if started.elapsed() < wait => {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
                Err(std::fs::TryLockError::WouldBlock) => return Err(locked(path)),
                Err(std::fs::TryLockError::Error(error)) => return Err(io(error)),
            }
        }
    }

    /// Whether another build (another process, or another thread of this one) holds the build
    /// lock now; this process's own build is not "elsewhere".
    fn held_elsewhere(path: &Path) -> bool {
        if held_here().lock().is_ok_and(|held| held.contains(&lock_path(path))) {
            return false;
        }
        let Ok(file) = std::fs::OpenOptions::new().read(true).open(lock_path(path)) else { return false };
        matches!(file.try_lock_shared(), Err(std::fs::TryLockError::WouldBlock))
    }
}

fn encode(record: &FileIndex) -> Result<Vec<u8>, String> {
    let bytes = postcard::to_stdvec(record).map_err(|error| error.to_string())?;
    let mut encoder = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(6));
    encoder.write_all(&bytes).map_err(|error| error.to_string())?;
    encoder.finish().map_err(|error| error.to_string())
}

fn decode(bytes: &[u8]) -> Result<FileIndex, String> {
    let mut raw = Vec::new();
    flate2::read::DeflateDecoder::new(bytes).read_to_end(&mut raw).map_err(|error| error.to_string())?;
    postcard::from_bytes(&raw).or_else(|error| {
        // A record written before `clean_end` was added ends before it (and an older ioscout
        // reads a newer record, ignoring the bytes after its last field): read as not ending
        // cleanly, so a grown file is read whole once.
        postcard::from_bytes::<RecordBeforeCleanEnd>(&raw).map(FileIndex::from).map_err(|_| error.to_string())
    })
}

/// A [`FileIndex`] as written before its last field, [`FileIndex::clean_end`], existed.
#[derive(Deserialize)]
struct RecordBeforeCleanEnd {
    fingerprint: Fingerprint,
    gzip: bool,
    members: u64,
    lines: u64,
    uncompressed_bytes: u64,
    problem_count: u64,
    invalid: u64,
    chunks: Vec<ChunkEntry>,
    time_metric: Option<String>,
}

impl From<RecordBeforeCleanEnd> for FileIndex {
    fn from(record: RecordBeforeCleanEnd) -> FileIndex {
        FileIndex {
            fingerprint: record.fingerprint,
            gzip: record.gzip,
            members: record.members,
            lines: record.lines,
            uncompressed_bytes: record.uncompressed_bytes,
            problem_count: record.problem_count,
            invalid: record.invalid,
            chunks: record.chunks,
            time_metric: record.time_metric,
            clean_end: false,
            windows: BTreeMap::new(),
        }
    }
}

/// An opened index: the records of every file it holds.
#[derive(Debug)]
pub struct TraceIndex {
    /// The index file.
    pub path: PathBuf,
    /// Records by file name (relative to the trace directory).
    pub files: BTreeMap<String, FileIndex>,
    /// FH/HH/SH tables of the whole directory.
    pub tables: ioscout_model::HashTables,
}

impl TraceIndex {
    /// Reads the index at `path`. `Ok(None)` when there is none; an index of an older format
    /// also gives `Ok(None)` (it is rebuilt); a newer format or a damaged file is an error.
    pub fn read(path: &Path) -> Result<Option<TraceIndex>> {
        if !path.exists() {
            return Ok(None);
        }
        verify(path)?;
        contain(path, || Self::read_verified(path))
    }

    fn read_verified(path: &Path) -> Result<Option<TraceIndex>> {
        let database = open_for_reading(path)?;
        let transaction = database.begin_read().map_err(|error| corrupt(path, error))?;
        let meta = transaction.open_table(META).map_err(|error| corrupt(path, error))?;
        let format = meta
            .get("format")
            .map_err(|error| corrupt(path, error))?
            .and_then(|value| <[u8; 4]>::try_from(value.value()).ok())
            .map(u32::from_le_bytes)
            .ok_or_else(|| corrupt(path, "no format version"))?;
        if format > FORMAT_VERSION {
            return Err(Error::NewerFormat {
                path: path.to_path_buf(),
                found: format,
                supported: FORMAT_VERSION,
            });
        }
        if format < FORMAT_VERSION {
            return Ok(None);
        }
        let table = transaction.open_table(FILES).map_err(|error| corrupt(path, error))?;
        let mut files = BTreeMap::new();
        for entry in table.iter().map_err(|error| corrupt(path, error))? {
            let (name, record) = entry.map_err(|error| corrupt(path, error))?;
            let record = decode(record.value())
                .map_err(|error| corrupt(path, format!("record {}: {error}", name.value())))?;
            files.insert(name.value().to_string(), record);
        }
        let mut tables = ioscout_model::HashTables::default();
        let hashes = transaction.open_table(HASHES).map_err(|error| corrupt(path, error))?;
        for entry in hashes.iter().map_err(|error| corrupt(path, error))? {
            let (key, text) = entry.map_err(|error| corrupt(path, error))?;
            let key = key.value();
            let kind = match key.get(..2) {
                Some("F:") => ioscout_model::MetadataKind::FileHash,
                Some("H:") => ioscout_model::MetadataKind::HostHash,
                Some("S:") => ioscout_model::MetadataKind::StringHash,
                _ => return Err(corrupt(path, format!("bad hash key {key:?}"))),
            };
            tables.insert(kind, ioscout_model::HashToken(key[2..].to_string()), text.value().to_string());
        }
        Ok(Some(TraceIndex { path: path.to_path_buf(), files, tables }))
    }

    /// The windows of chunks `numbers` of file `name` (relative to the trace directory), in the
    /// order asked. A missing window is an error: the index is damaged.
    pub fn windows(path: &Path, name: &str, numbers: &[u32]) -> Result<Vec<Vec<u8>>> {
        contain(path, || Self::windows_contained(path, name, numbers))
    }

    fn windows_contained(path: &Path, name: &str, numbers: &[u32]) -> Result<Vec<Vec<u8>>> {
        let database = open_for_reading(path)?;
        let transaction = database.begin_read().map_err(|error| corrupt(path, error))?;
        let table = transaction.open_table(WINDOWS).map_err(|error| corrupt(path, error))?;
        numbers
            .iter()
            .map(|&number| {
                table
                    .get((name, number))
                    .map_err(|error| corrupt(path, error))?
                    .map(|value| value.value().to_vec())
                    .ok_or_else(|| corrupt(path, format!("no window for chunk {number} of {name}")))
            })
            .collect()
    }

    /// The format version of the index at `path`, if it can be read.
    pub fn format_of(path: &Path) -> Option<u32> {
        verify(path).ok()?;
        contain(path, || {
            let database = open_for_reading(path)?;
            let transaction = database.begin_read().map_err(|error| corrupt(path, error))?;
            let meta = transaction.open_table(META).map_err(|error| corrupt(path, error))?;
            let value = meta.get("format").map_err(|error| corrupt(path, error))?;
            let format =
                value.and_then(|value| <[u8; 4]>::try_from(value.value()).ok().map(u32::from_le_bytes));
            format.ok_or_else(|| corrupt(path, "no format version"))
        })
        .ok()
    }
}

/// Writes `records` (replacing those files) and removes `removed`, in one transaction. When
/// `fresh` is set the index file is recreated first (older format, damaged file, `--force`).
pub fn write(
    path: &Path,
    records: &BTreeMap<String, FileIndex>,
    removed: &[String],
    tables: &ioscout_model::HashTables,
    fresh: bool,
) -> Result<u64> {
    let io = |error: std::io::Error| Error::Io { path: path.to_path_buf(), detail: error.to_string() };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io)?;
    }
    if fresh && path.exists() {
        // Build the new index beside the old one and rename it over: never a moment without a
        // complete index.
        let temporary = path.with_extension("redb.tmp");
        let _ = std::fs::remove_file(&temporary);
        write_into(&temporary, records, &[], tables)?;
        // The checksum first: a reader between the two sees a mismatch while the lock is held
        // (a build in progress), never an index without its checksum.
        seal(&temporary, path)?;
        std::fs::rename(&temporary, path).map_err(io)?;
    } else {
        // The previous file was verified (or found unreadable and rebuilt fresh) before this
        // write; redb's own code is contained for the update in place.
        contain(path, || write_into(path, records, removed, tables))?;
        seal(path, path)?;
    }
    Ok(std::fs::metadata(path).map_err(io)?.len())
}

fn write_into(
    path: &Path,
    records: &BTreeMap<String, FileIndex>,
    removed: &[String],
    tables: &ioscout_model::HashTables,
) -> Result<()> {
    let database = Database::create(path).map_err(|error| corrupt(path, error))?;
    let transaction = database.begin_write().map_err(|error| corrupt(path, error))?;
    {
        let mut meta = transaction.open_table(META).map_err(|error| corrupt(path, error))?;
        meta.insert("format", FORMAT_VERSION.to_le_bytes().as_slice())
            .map_err(|error| corrupt(path, error))?;
        let tool = concat!("ioscout ", env!("CARGO_PKG_VERSION"));
        meta.insert("tool", tool.as_bytes()).map_err(|error| corrupt(path, error))?;
        let mut files = transaction.open_table(FILES).map_err(|error| corrupt(path, error))?;
        let mut windows = transaction.open_table(WINDOWS).map_err(|error| corrupt(path, error))?;
        for name in removed.iter().chain(records.keys()) {
            files.remove(name.as_str()).map_err(|error| corrupt(path, error))?;
            windows
                .retain_in((name.as_str(), 0)..=(name.as_str(), u32::MAX), |_, _| false)
                .map_err(|error| corrupt(path, error))?;
        }
        for (name, record) in records {
            let bytes = encode(record).map_err(|error| corrupt(path, error))?;
            files.insert(name.as_str(), bytes.as_slice()).map_err(|error| corrupt(path, error))?;
            for (number, window) in &record.windows {
                windows
                    .insert((name.as_str(), *number), window.as_slice())
                    .map_err(|error| corrupt(path, error))?;
            }
        }
        let mut hashes = transaction.open_table(HASHES).map_err(|error| corrupt(path, error))?;
        // In key order, so the same content always gives the same file.
        let mut entries: Vec<(String, &str)> = Vec::new();
        for (prefix, table) in [("F:", &tables.files), ("H:", &tables.hosts), ("S:", &tables.strings)] {
            entries.extend(table.iter().map(|(token, text)| (format!("{prefix}{}", token.0), text.as_str())));
        }
        entries.sort_unstable();
        for (key, text) in entries {
            hashes.insert(key.as_str(), text).map_err(|error| corrupt(path, error))?;
        }
    }
    transaction.commit().map_err(|error| corrupt(path, error))?;
    let mut database = database;
    // Reclaim the pages of replaced records, so incremental updates do not grow the file.
    database.compact().map_err(|error| corrupt(path, error))?;
    drop(database);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(clean_end: bool) -> FileIndex {
        FileIndex {
            fingerprint: Fingerprint { size: 120, modified_nanos: 7, head_tail_crc: 0xdead_beef },
            gzip: true,
            members: 2,
            lines: 30,
            uncompressed_bytes: 4000,
            problem_count: 0,
            invalid: 0,
            chunks: vec![ChunkEntry {
                start: 0,
                end: 120,
                line_base: 0,
                offset_base: 0,
                resume: None,
                stats: ChunkStats::default(),
            }],
            time_metric: Some("us".into()),
            clean_end,
            windows: BTreeMap::new(),
        }
    }

    fn deflate(raw: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(6));
        encoder.write_all(raw).unwrap_or_else(|error| panic!("{error}"));
        encoder.finish().unwrap_or_else(|error| panic!("{error}"))
    }

    #[test]
    fn a_record_round_trips_and_one_from_before_clean_end_reads_as_not_clean() {
        let clean = record(true);
        let encoded = encode(&clean).unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(decode(&encoded), Ok(clean.clone()));
        // The same record as written before the field existed: its encoding without the last
        // byte (postcard writes a bool as one byte).
        let mut raw = postcard::to_stdvec(&clean).unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(raw.pop(), Some(1));
        assert_eq!(decode(&deflate(&raw)), Ok(record(false)));
        // Anything else is still an error.
        raw.truncate(raw.len() - 3);
        assert!(decode(&deflate(&raw)).is_err());
    }
}
