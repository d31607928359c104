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
//!   deflated (names and categories repeat, so records shrink several-fold);
//! - `hashes`: `F:`/`H:`/`S:` plus a hash token → the path, host name or string it stands for,
//!   for the whole directory (every rank names the same files: stored once, not per file).
//!   Hashes are content-derived, so mappings are never wrong and are only added.
//!
//! Every write is one redb transaction: a crash leaves the previous index or none, never half
//! of one. An index of an older format is rebuilt; one of a newer format is refused with a
//! message, never misread.

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
pub const FORMAT_VERSION: u32 = 2;

const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");
const FILES: TableDefinition<&str, &[u8]> = TableDefinition::new("files");
const HASHES: TableDefinition<&str, &str> = TableDefinition::new("hashes");

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

fn corrupt(path: &Path, detail: impl std::fmt::Display) -> Error {
    Error::Corrupt { path: path.to_path_buf(), detail: detail.to_string() }
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
    postcard::from_bytes(&raw).map_err(|error| error.to_string())
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
        let database = Database::open(path).map_err(|error| corrupt(path, error))?;
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

    /// The format version of the index at `path`, if it can be read.
    pub fn format_of(path: &Path) -> Option<u32> {
        let database = Database::open(path).ok()?;
        let transaction = database.begin_read().ok()?;
        let meta = transaction.open_table(META).ok()?;
        let value = meta.get("format").ok()??;
        <[u8; 4]>::try_from(value.value()).ok().map(u32::from_le_bytes)
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
        std::fs::rename(&temporary, path).map_err(io)?;
    } else {
        write_into(path, records, removed, tables)?;
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
        for name in removed {
            files.remove(name.as_str()).map_err(|error| corrupt(path, error))?;
        }
        for (name, record) in records {
            let bytes = encode(record).map_err(|error| corrupt(path, error))?;
            files.insert(name.as_str(), bytes.as_slice()).map_err(|error| corrupt(path, error))?;
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
