//! `ioscout query`: matching events, reading only the chunks the index cannot rule out.
//!
//! Plan: group the inputs by directory, open each directory's index, keep the records whose
//! fingerprint still matches the file (a changed file is scanned whole, with a message), take the
//! hash tables from the index (scanning the metadata of unindexed files), prune chunks with the
//! predicate, decode the surviving chunks in parallel, print in file order.

use std::io::Write;
use std::process::ExitCode;

use ioscout_index::{Fingerprint, TraceIndex, store};
use ioscout_model::HashTables;
use ioscout_query::Predicate;
use ioscout_read::{Chunk, TraceFile};

use super::index::by_directory;
use super::view::{Emitter, ViewFold, gather_metadata, scan_and_print};
use crate::cli::QueryArguments;
use crate::common;

/// What the index offers for one file.
enum Source {
    /// Chunks from a fresh record.
    Indexed(ioscout_index::FileIndex),
    /// No usable record: the file is read whole.
    Whole,
}

pub(crate) fn run(arguments: &QueryArguments) -> anyhow::Result<ExitCode> {
    let predicate = arguments.filter.as_deref().map(Predicate::parse).transpose()?;
    let (files, input_problems) = common::discover(&arguments.input);
    let input = &arguments.input;
    if arguments.no_index {
        let report = scan_and_print(
            &files,
            &input_problems,
            input,
            predicate.as_ref(),
            arguments.limit,
            arguments.format,
        )?;
        return Ok(common::finish(&report, input));
    }
    let mut notes = Vec::new();
    let mut tables = HashTables::default();
    let sources = sources(&files, arguments.index_dir.as_deref(), &mut tables, &mut notes);
    let indexed = sources.iter().filter(|source| matches!(source, Source::Indexed(_))).count();
    if indexed == 0 {
        if !input.quiet {
            let mut stderr = std::io::stderr().lock();
            for note in &notes {
                writeln!(stderr, "ioscout: {note}")?;
            }
            writeln!(
                stderr,
                "ioscout: no usable index: full scan (`ioscout index PATH` makes such queries faster)"
            )?;
        }
        let report = scan_and_print(
            &files,
            &input_problems,
            input,
            predicate.as_ref(),
            arguments.limit,
            arguments.format,
        )?;
        return Ok(common::finish(&report, input));
    }
    let scanner = common::scanner(input);
    let mut whole = Vec::new();
    for (file, source) in files.iter().zip(&sources) {
        match source {
            Source::Indexed(_) => {}
            Source::Whole => whole.push(file.clone()),
        }
    }
    if !whole.is_empty() {
        tables.merge(gather_metadata(&scanner, &whole).tables);
    }
    let mut chunks = Vec::new();
    let mut total_chunks = 0;
    for (index, (file, source)) in files.iter().zip(&sources).enumerate() {
        match source {
            Source::Indexed(record) => {
                total_chunks += record.chunks.len();
                for entry in &record.chunks {
                    if predicate
                        .as_ref()
                        .is_none_or(|predicate| predicate.chunk_may_match(&entry.stats, &tables))
                    {
                        chunks.push(Chunk {
                            file: index,
                            start: entry.start,
                            end: entry.end,
                            line_base: entry.line_base,
                            offset_base: entry.offset_base,
                        });
                    }
                }
            }
            Source::Whole => {
                total_chunks += 1;
                chunks.push(Chunk { file: index, start: 0, end: file.size, line_base: 0, offset_base: 0 });
            }
        }
    }
    if !input.quiet {
        let mut stderr = std::io::stderr().lock();
        for note in &notes {
            writeln!(stderr, "ioscout: {note}")?;
        }
        writeln!(
            stderr,
            "ioscout: reading {} of {} chunks ({} of {} files from the index)",
            chunks.len(),
            total_chunks,
            indexed,
            files.len()
        )?;
    }
    let mut emitter = Emitter::new(arguments.format, arguments.limit)?;
    let limit = emitter.limit;
    let report = scanner.scan_chunks(
        &files,
        &input_problems,
        if limit == 0 { &[] } else { &chunks },
        |_| ViewFold::new(predicate.as_ref(), &tables, arguments.format, limit),
        |_, fold| emitter.take(&fold),
    );
    emitter.finish()?;
    Ok(common::finish(&report, input))
}

/// For each file, its fresh index record, or `Whole` with a note saying why.
fn sources(
    files: &[TraceFile],
    index_dir: Option<&std::path::Path>,
    tables: &mut HashTables,
    notes: &mut Vec<String>,
) -> Vec<Source> {
    let mut sources: Vec<Source> = files.iter().map(|_| Source::Whole).collect();
    let position: std::collections::HashMap<&std::path::Path, usize> =
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
                (Some(record), Some(&slot)) => sources[slot] = Source::Indexed(record),
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
