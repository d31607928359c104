//! The pre-pass cache: what the first pass learned about each trace file, kept beside the file's
//! sidecar index so that analysing an indexed trace again reads it once, not twice.
//!
//! # Overview
//!
//! For every directory that has an ioscout index (`ioscout index`), [`PrepassCache`] keeps one
//! file next to it (`index.redb` → `index.prepass`) with, per trace file, its
//! [`Fingerprint`] and the [`PrepassPartial`] of that file (process metadata, time span,
//! categories, parents, and the compute and epoch intervals of every preset that has them), and
//! once for the directory the hash tables (content-derived, so shared by all files); all
//! deflated. A file whose
//! fingerprint changed is scanned again and its entry replaced; a cache of another version or
//! one that does not decode is ignored (and rewritten). Nothing is written where there is no
//! index, so `analyze` never creates files the user did not ask for. Writes go to a temporary file
//! renamed over the old one.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use ioscout_index::Fingerprint;
use ioscout_model::{HashToken, MetadataKind};
use ioscout_read::input::map_ordered;
use ioscout_read::{Extent, ProcessKey};
use serde::{Deserialize, Serialize};

use crate::prepass::PrepassFold;

/// Version of the cache layout; another version is ignored.
const CACHE_VERSION: u32 = 3;

/// Intervals of one process: host token, pid, intervals.
type ProcessIntervals = Vec<(String, i64, Vec<(i64, i64)>)>;

/// Hash tables (content-derived, so one per directory serves every file).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub(crate) struct Tables {
    files: BTreeMap<String, String>,
    hosts: BTreeMap<String, String>,
    strings: BTreeMap<String, String>,
}

impl Tables {
    /// The serialisable form of `tables`.
    pub(crate) fn of(tables: &ioscout_model::HashTables) -> Tables {
        let texts = |table: &ioscout_model::HashTable| -> BTreeMap<String, String> {
            table.iter().map(|(token, text)| (token.0.clone(), text.clone())).collect()
        };
        Tables { files: texts(&tables.files), hosts: texts(&tables.hosts), strings: texts(&tables.strings) }
    }

    /// Adds the mappings of `other` that are not here yet.
    fn merge(&mut self, other: &Tables) {
        for (target, source) in [
            (&mut self.files, &other.files),
            (&mut self.hosts, &other.hosts),
            (&mut self.strings, &other.strings),
        ] {
            for (token, text) in source {
                target.entry(token.clone()).or_insert_with(|| text.clone());
            }
        }
    }

    /// Adds these mappings to `tables`.
    pub(crate) fn add_to(&self, tables: &mut ioscout_model::HashTables) {
        for (kind, entries) in [
            (MetadataKind::FileHash, &self.files),
            (MetadataKind::HostHash, &self.hosts),
            (MetadataKind::StringHash, &self.strings),
        ] {
            for (token, text) in entries {
                tables.insert(kind, HashToken(token.clone()), text.clone());
            }
        }
    }
}

/// What the first pass learned from one file besides its hash tables, in a serialisable form.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct PrepassPartial {
    processes: Vec<(i64, Option<String>, Option<String>)>,
    time_metric: Option<String>,
    inline_hosts: Vec<String>,
    first_ts: Option<i64>,
    last_end: Option<i64>,
    categories: Vec<String>,
    parents: Vec<(String, i64, i64)>,
    /// The (host token, pid) of the file's complete events, sorted.
    processes_seen: Vec<(String, i64)>,
    /// Per candidate preset name: compute and epoch intervals.
    intervals: Vec<(String, ProcessIntervals, ProcessIntervals)>,
}

fn flatten(map: &crate::prepass::IntervalsByProcess) -> ProcessIntervals {
    let mut out: ProcessIntervals = map
        .iter()
        .flat_map(|(host, by_pid)| {
            by_pid.iter().map(move |(pid, intervals)| (host.to_string(), *pid, intervals.clone()))
        })
        .collect();
    out.sort();
    out
}

impl PrepassPartial {
    /// The serialisable form of a first-pass fold whose candidates are `names`.
    pub fn of(fold: &PrepassFold<'_>, names: &[&str]) -> PrepassPartial {
        let metadata = &fold.metadata;
        let mut categories: Vec<String> = fold.categories.iter().map(ToString::to_string).collect();
        categories.sort();
        let mut parents: Vec<(String, i64, i64)> =
            fold.parents.iter().map(|((host, pid), parent)| (host.to_string(), *pid, *parent)).collect();
        parents.sort();
        let (compute, epochs) = fold.intervals();
        let mut processes_seen: Vec<(String, i64)> =
            fold.processes.iter().map(|(host, pid)| (host.to_string(), *pid)).collect();
        processes_seen.sort_unstable();
        PrepassPartial {
            processes: metadata
                .processes
                .iter()
                .map(|(pid, info)| (*pid, info.rank.clone(), info.name.clone()))
                .collect(),
            time_metric: metadata.time_metric.clone(),
            inline_hosts: metadata.inline_hosts.iter().cloned().collect(),
            first_ts: fold.first_ts,
            last_end: fold.last_end,
            categories,
            parents,
            processes_seen,
            intervals: names
                .iter()
                .zip(compute.iter().zip(epochs))
                .map(|(name, (compute, epochs))| ((*name).to_string(), flatten(compute), flatten(epochs)))
                .collect(),
        }
    }

    /// What the file holds for the coverage of a trace being written: the processes of its
    /// complete events (host tokens not yet resolved) and its time span (earliest start, latest
    /// end, µs).
    pub fn extent(&self) -> Extent {
        Extent {
            processes: self
                .processes_seen
                .iter()
                .map(|(host, pid)| ProcessKey { host: host.clone(), pid: *pid })
                .collect(),
            span: self.first_ts.zip(self.last_end),
        }
    }

    /// Adds this partial to a first-pass fold whose candidates are `names`.
    pub fn add_to(&self, fold: &mut PrepassFold<'_>, names: &[&str]) {
        let mut other = PrepassFold::default();
        for (pid, rank, name) in &self.processes {
            let info = other.metadata.processes.entry(*pid).or_default();
            info.rank.clone_from(rank);
            info.name.clone_from(name);
        }
        other.metadata.time_metric.clone_from(&self.time_metric);
        other.metadata.inline_hosts.extend(self.inline_hosts.iter().cloned());
        other.first_ts = self.first_ts;
        other.last_end = self.last_end;
        other.categories.extend(self.categories.iter().map(|category| Box::from(category.as_str())));
        other.parents.extend(
            self.parents.iter().map(|(host, pid, parent)| ((Box::from(host.as_str()), *pid), *parent)),
        );
        other
            .processes
            .extend(self.processes_seen.iter().map(|(host, pid)| (Box::from(host.as_str()), *pid)));
        let (compute, epochs) = other.intervals_mut(names.len());
        for (index, name) in names.iter().enumerate() {
            let Some((_, cached_compute, cached_epochs)) =
                self.intervals.iter().find(|(cached, _, _)| cached == name)
            else {
                continue;
            };
            for (target, source) in
                [(&mut compute[index], cached_compute), (&mut epochs[index], cached_epochs)]
            {
                for (host, pid, intervals) in source {
                    target
                        .entry(Box::from(host.as_str()))
                        .or_default()
                        .entry(*pid)
                        .or_default()
                        .extend(intervals);
                }
            }
        }
        fold.merge(other);
    }
}

/// One cached file.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Entry {
    fingerprint: Fingerprint,
    partial: PrepassPartial,
}

/// The cache file of one directory.
#[derive(Debug, Default, Serialize, Deserialize)]
struct CacheFile {
    version: u32,
    tables: Tables,
    entries: BTreeMap<String, Entry>,
}

fn encode(file: &CacheFile) -> Option<Vec<u8>> {
    use std::io::Write;
    let bytes = postcard::to_stdvec(file).ok()?;
    let mut encoder = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(6));
    encoder.write_all(&bytes).ok()?;
    encoder.finish().ok()
}

fn decode(bytes: &[u8]) -> Option<CacheFile> {
    use std::io::Read;
    let mut raw = Vec::new();
    flate2::read::DeflateDecoder::new(bytes).read_to_end(&mut raw).ok()?;
    postcard::from_bytes(&raw).ok()
}

/// The cache file at `location`, or an empty one when it is missing, damaged or of another
/// version (a damaged cache is ignored and rewritten, whatever its bytes: the decode runs
/// contained, as the index's store does).
fn read_cache(location: &Path) -> CacheFile {
    std::fs::read(location)
        .ok()
        .and_then(|bytes| ioscout_index::store::contain(location, || Ok(decode(&bytes))).ok().flatten())
        .filter(|file| file.version == CACHE_VERSION)
        .unwrap_or(CacheFile { version: CACHE_VERSION, ..CacheFile::default() })
}

/// The pre-pass caches of the directories of a set of trace files.
#[derive(Debug, Default)]
pub struct PrepassCache {
    /// Cache file path → its content, for directories that have an index.
    files: BTreeMap<PathBuf, CacheFile>,
    /// Trace file path → (cache file path, fingerprint now).
    traces: BTreeMap<PathBuf, (PathBuf, Fingerprint)>,
    changed: bool,
}

/// The cache file beside the index of `directory`, if it has an index.
fn cache_path(directory: &Path) -> Option<PathBuf> {
    ioscout_index::store::candidate_paths(directory, None)
        .into_iter()
        .find(|path| path.is_file())
        .map(|path| path.with_extension("prepass"))
}

impl PrepassCache {
    /// Opens the caches of the directories of `paths` (only those with an index).
    pub fn open(paths: &[PathBuf]) -> PrepassCache {
        let mut cache = PrepassCache::default();
        let mut locations: BTreeMap<PathBuf, Option<PathBuf>> = BTreeMap::new();
        // The traces whose directory has an index, with their cache file.
        let mut indexed: Vec<(&PathBuf, PathBuf)> = Vec::new();
        for path in paths {
            let directory = path.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf);
            let location =
                locations.entry(directory.clone()).or_insert_with(|| cache_path(&directory)).clone();
            if let Some(location) = location {
                indexed.push((path, location));
            }
        }
        let wanted: BTreeSet<&PathBuf> = indexed.iter().map(|(_, location)| location).collect();
        // The cache files are read and decoded while the traces are fingerprinted (each
        // fingerprint reads up to 128 KiB of its file: thousands of files take a while).
        let (files, fingerprints) = std::thread::scope(|scope| {
            let reading = scope.spawn(|| {
                wanted.into_iter().map(|location| (location.clone(), read_cache(location))).collect()
            });
            let fingerprints = map_ordered(&indexed, |(path, _)| Fingerprint::of(path).ok());
            match reading.join() {
                Ok(files) => (files, fingerprints),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        });
        cache.files = files;
        for ((path, location), fingerprint) in indexed.into_iter().zip(fingerprints) {
            if let Some(fingerprint) = fingerprint {
                cache.traces.insert(path.clone(), (location, fingerprint));
            }
        }
        // A directory none of whose traces could be fingerprinted keeps no cache file.
        let used: BTreeSet<&PathBuf> = cache.traces.values().map(|(location, _)| location).collect();
        let unused: Vec<PathBuf> =
            cache.files.keys().filter(|location| !used.contains(location)).cloned().collect();
        for location in unused {
            cache.files.remove(&location);
        }
        cache
    }

    /// Adds the hash tables of every cache to `fold` (once per directory).
    pub fn add_tables_to(&self, fold: &mut PrepassFold<'_>) {
        for file in self.files.values() {
            file.tables.add_to(&mut fold.metadata.tables);
        }
    }

    /// The cached partial of `path`, when its fingerprint is unchanged.
    pub fn get(&self, path: &Path) -> Option<&PrepassPartial> {
        let (location, fingerprint) = self.traces.get(path)?;
        let entry = self.files.get(location)?.entries.get(&path.to_string_lossy().into_owned())?;
        (entry.fingerprint == *fingerprint).then_some(&entry.partial)
    }

    /// Records the partial of `path` and the hash tables `fold` learned from it (ignored when its
    /// directory has no index).
    pub fn put(&mut self, path: &Path, fold: &PrepassFold<'_>, names: &[&str]) {
        // Checked before the partial and the tables are copied: most traces have no index.
        if !self.traces.contains_key(path) {
            return;
        }
        self.put_partial(path, PrepassPartial::of(fold, names), &Tables::of(&fold.metadata.tables));
    }

    /// Records the partial of `path` and its hash tables (ignored when its directory has no
    /// index).
    pub(crate) fn put_partial(&mut self, path: &Path, partial: PrepassPartial, tables: &Tables) {
        let Some((location, fingerprint)) = self.traces.get(path) else { return };
        let Some(file) = self.files.get_mut(location) else { return };
        file.tables.merge(tables);
        file.entries
            .insert(path.to_string_lossy().into_owned(), Entry { fingerprint: *fingerprint, partial });
        self.changed = true;
    }

    /// Writes the caches that changed, dropping entries of files that no longer exist. Failures
    /// are not errors: the cache is an optimisation.
    pub fn save(self) {
        if !self.changed {
            return;
        }
        for (location, mut file) in self.files {
            file.entries.retain(|path, _| Path::new(path).is_file());
            let Some(bytes) = encode(&file) else { continue };
            let temporary = location.with_extension("prepass.tmp");
            if std::fs::write(&temporary, bytes).is_ok() && std::fs::rename(&temporary, &location).is_err() {
                let _ = std::fs::remove_file(&temporary);
            }
        }
    }
}
