//! Query planning: which bytes a query must read. Sits between the index ([`ioscout_index`]) and
//! the scan ([`ioscout_read::Scanner::scan_chunks`]); the service's `query` (one process or rank 0
//! of an MPI job) runs what it decides.
//!
//! # Flow
//!
//! 1. [`Planner::open`] groups the inputs by directory ([`by_directory`]), opens each directory's
//!    index and keeps the records whose fingerprint still matches the file (a changed or new file
//!    is read whole, with a note); the index's hash tables are taken over.
//! 2. [`Planner::finish`] gathers the hash tables of the files read whole from their metadata
//!    events, answers a group-by from the index statistics when it can ([`Groups::from_statistics`]),
//!    and otherwise keeps the chunks the predicate cannot rule out ([`surviving_chunks`]).
//!
//! The [`Plan`] serialises, so rank 0 of a distributed query can hand it to every rank.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use ioscout_index::{FileIndex, Fingerprint, TraceIndex, store};
use ioscout_model::HashTables;
use ioscout_read::{Chunk, Scanner, TraceFile};

use crate::Predicate;
use crate::aggregate::{GroupSpec, Groups};

/// The trace files grouped by directory (one index per directory), in path order.
pub fn by_directory(files: &[TraceFile]) -> BTreeMap<PathBuf, Vec<TraceFile>> {
    let mut groups: BTreeMap<PathBuf, Vec<TraceFile>> = BTreeMap::new();
    for file in files {
        let directory = file.path.parent().map(Path::to_path_buf).unwrap_or_default();
        let directory = if directory.as_os_str().is_empty() { PathBuf::from(".") } else { directory };
        groups.entry(directory).or_default().push(file.clone());
    }
    groups
}

/// What the index offers for one file.
pub enum Source {
    /// Chunks from a fresh record, and where the record came from (for its checkpoint windows).
    Indexed(Box<FileIndex>, Origin),
    /// No usable record: the file is read whole.
    Whole,
}

/// Where an index record came from: the index file and the file's key in it.
pub struct Origin {
    index: PathBuf,
    key: String,
}

/// What a query reads, as decided once (by rank 0 of a distributed query) and followed by every
/// reader.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Plan {
    /// The hash tables: the indexes' and those of the files read whole.
    pub tables: HashTables,
    /// The chunks to read, in file order.
    pub chunks: Vec<Chunk>,
    /// How it was planned (index use, stale files, chunks read), for the user.
    pub notes: Vec<String>,
    /// Groups answered from the index statistics (nothing to read).
    pub answered: Option<Groups>,
}

/// The first half of planning: each file's [`Source`], the tables of the indexes found, and what
/// was noted on the way.
pub struct Planner {
    sources: Vec<Source>,
    tables: HashTables,
    notes: Vec<String>,
}

impl Planner {
    /// Opens the indexes of `files` (beside them, or under `index_dir`); with `no_index` none.
    /// When no file has a usable record (and indexes were not refused) a note says a full scan
    /// follows.
    pub fn open(files: &[TraceFile], index_dir: Option<&Path>, no_index: bool) -> Planner {
        let mut notes = Vec::new();
        let mut tables = HashTables::default();
        let sources = if no_index {
            files.iter().map(|_| Source::Whole).collect()
        } else {
            sources(files, index_dir, &mut tables, &mut notes)
        };
        let mut planner = Planner { sources, tables, notes };
        if planner.indexed() == 0 && !no_index {
            planner
                .notes
                .push("no usable index: full scan (`ioscout index PATH` makes such queries faster)".into());
        }
        planner
    }

    /// How many files have a usable index record.
    pub fn indexed(&self) -> usize {
        self.sources.iter().filter(|source| matches!(source, Source::Indexed(..))).count()
    }

    /// What was noted so far (for a caller that scans in full instead of finishing the plan).
    pub fn into_notes(self) -> Vec<String> {
        self.notes
    }

    /// The plan: tables completed from the metadata of the files read whole (through `scanner`),
    /// a group-by answered from the index statistics when every file is indexed and the
    /// statistics suffice, else the chunks `predicate` cannot rule out.
    pub fn finish(
        self,
        scanner: &Scanner,
        files: &[TraceFile],
        predicate: Option<&Predicate>,
        spec: Option<&GroupSpec>,
    ) -> Plan {
        let indexed = self.indexed();
        let Planner { sources, mut tables, mut notes } = self;
        let whole: Vec<TraceFile> = files
            .iter()
            .zip(&sources)
            .filter(|(_, source)| matches!(source, Source::Whole))
            .map(|(file, _)| file.clone())
            .collect();
        if !whole.is_empty() {
            tables.merge(scanner.metadata(&whole).tables);
        }
        if let Some(spec) = spec
            && whole.is_empty()
        {
            let statistics = sources.iter().filter_map(|source| match source {
                Source::Indexed(record, _) => Some(record.chunks.iter().map(|chunk| &chunk.stats)),
                Source::Whole => None,
            });
            if let Some(groups) = Groups::from_statistics(spec, predicate, statistics.flatten(), &tables) {
                notes.push("answered from the index statistics (no trace bytes read)".into());
                return Plan { tables, chunks: Vec::new(), notes, answered: Some(groups) };
            }
        }
        let (chunks, total_chunks) = surviving_chunks(files, &sources, predicate, &tables, &mut notes);
        if indexed > 0 {
            notes.push(format!(
                "reading {} of {} chunks ({} of {} files from the index)",
                chunks.len(),
                total_chunks,
                indexed,
                files.len()
            ));
        }
        Plan { tables, chunks, notes, answered: None }
    }
}

/// The chunks to read: those of indexed files that the predicate cannot rule out, and every
/// unindexed file whole; with the number of chunks there are in all. A chunk that starts inside a
/// gzip member gets its checkpoint window from the index; when a window cannot be read the file
/// is read whole, with a note.
pub fn surviving_chunks(
    files: &[TraceFile],
    sources: &[Source],
    predicate: Option<&Predicate>,
    tables: &HashTables,
    notes: &mut Vec<String>,
) -> (Vec<Chunk>, usize) {
    let mut chunks = Vec::new();
    let mut total_chunks = 0;
    for (index, (file, source)) in files.iter().zip(sources).enumerate() {
        let whole =
            Chunk { file: index, start: 0, end: file.size, line_base: 0, offset_base: 0, resume: None };
        match source {
            Source::Indexed(record, origin) => {
                total_chunks += record.chunks.len();
                let kept: Vec<usize> = (0..record.chunks.len())
                    .filter(|&number| {
                        predicate.is_none_or(|predicate| {
                            predicate.chunk_may_match(&record.chunks[number].stats, tables)
                        })
                    })
                    .collect();
                match record.scan_chunks(index, &origin.index, &origin.key, &kept) {
                    Ok(found) => chunks.extend(found),
                    Err(error) => {
                        notes.push(format!("{error}; reading {} whole", file.path.display()));
                        chunks.push(whole);
                    }
                }
            }
            Source::Whole => {
                total_chunks += 1;
                chunks.push(whole);
            }
        }
    }
    (chunks, total_chunks)
}

/// For each file, its fresh index record, or `Whole` with a note saying why; the indexes' hash
/// tables are merged into `tables`.
pub fn sources(
    files: &[TraceFile],
    index_dir: Option<&Path>,
    tables: &mut HashTables,
    notes: &mut Vec<String>,
) -> Vec<Source> {
    let mut sources: Vec<Source> = files.iter().map(|_| Source::Whole).collect();
    let position: HashMap<&Path, usize> =
        files.iter().enumerate().map(|(index, file)| (file.path.as_path(), index)).collect();
    for (directory, group) in by_directory(files) {
        let mut index = None;
        for path in store::candidate_paths(&directory, index_dir) {
            match TraceIndex::read(&path) {
                Ok(Some(found)) => {
                    index = Some(found);
                    break;
                }
                Ok(None) => {}
                Err(error) => notes.push(format!("{error}; scanning {} without it", directory.display())),
            }
        }
        let Some(mut index) = index else { continue };
        tables.merge(std::mem::take(&mut index.tables));
        let mut stale = 0;
        for file in &group {
            let key = ioscout_index::build::file_key(&directory, &file.path);
            let fresh = match (index.files.remove(&key), Fingerprint::of(&file.path)) {
                (Some(record), Ok(fingerprint)) if record.fingerprint == fingerprint => Some(record),
                _ => None,
            };
            match (fresh, position.get(file.path.as_path())) {
                (Some(record), Some(&slot)) => {
                    sources[slot] =
                        Source::Indexed(Box::new(record), Origin { index: index.path.clone(), key });
                }
                _ => stale += 1,
            }
        }
        if stale > 0 {
            notes.push(format!(
                "index {} does not cover {stale} of {} files of {} (new or changed since indexing): they are scanned whole; run `ioscout index {}`",
                index.path.display(),
                group.len(),
                directory.display(),
                directory.display()
            ));
        }
    }
    sources
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use ioscout_read::{Compression, TraceFile};

    use super::by_directory;

    fn file(path: &str) -> TraceFile {
        TraceFile { path: PathBuf::from(path), size: 1, compression: Compression::Gzip }
    }

    #[test]
    fn files_group_by_their_directory_and_a_bare_name_is_in_the_current_one() {
        let groups =
            by_directory(&[file("b/2.pfw.gz"), file("a/1.pfw.gz"), file("x.pfw"), file("b/1.pfw.gz")]);
        let named: Vec<(String, Vec<String>)> = groups
            .iter()
            .map(|(directory, files)| {
                (
                    directory.display().to_string(),
                    files.iter().map(|file| file.path.display().to_string()).collect(),
                )
            })
            .collect();
        assert_eq!(
            named,
            vec![
                (".".to_string(), vec!["x.pfw".to_string()]),
                ("a".to_string(), vec!["a/1.pfw.gz".to_string()]),
                ("b".to_string(), vec!["b/2.pfw.gz".to_string(), "b/1.pfw.gz".to_string()]),
            ]
        );
    }
}
