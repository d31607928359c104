//! Matching events and aggregates (`ioscout query`, the MCP tool `query`), reading only the
//! chunks the index cannot rule out.
//!
//! Plan: group the inputs by directory, open each directory's index, keep the records whose
//! fingerprint still matches the file (a changed file is scanned whole, with a message), take the
//! hash tables from the index (scanning the metadata of unindexed files), prune chunks with the
//! predicate, decode the surviving chunks in parallel, print in file order.

use std::io::Write;
use std::path::PathBuf;

use ioscout_index::{Fingerprint, TraceIndex, store};
use ioscout_model::HashTables;
use ioscout_query::Predicate;
use ioscout_query::aggregate::{GroupFold, GroupSpec, Groups};
use ioscout_read::{Chunk, TraceFile};

use crate::view::{Emitter, Output, Sink, ViewFold, ViewFormat, gather_metadata, scan_and_print};
use crate::{Input, Result, ServiceError};

/// A query as a user writes it.
#[derive(Clone, Debug, Default)]
pub struct QueryRequest {
    /// The `--where` expression.
    pub filter: Option<String>,
    /// Stop after this many matching events.
    pub limit: Option<u64>,
    /// Only these columns, comma-separated.
    pub select: Option<String>,
    /// Output format; `None` is JSON lines for events and an aligned table for groups.
    pub format: Option<ViewFormat>,
    /// Ignore any index.
    pub no_index: bool,
    /// Group by these keys, comma-separated.
    pub group_by: Option<String>,
    /// Reducers for the groups.
    pub aggregate: String,
    /// Where indexes were put by `ioscout index --index-dir`.
    pub index_dir: Option<PathBuf>,
}

/// What a query did besides writing rows.
#[derive(Debug)]
pub struct QueryReport {
    /// The scan's report.
    pub scan: ioscout_read::ScanReport,
    /// How it was planned: index use, stale files, chunks read.
    pub notes: Vec<String>,
}

/// The trace files grouped by directory (one index per directory).
pub fn by_directory(files: &[TraceFile]) -> std::collections::BTreeMap<PathBuf, Vec<TraceFile>> {
    let mut groups: std::collections::BTreeMap<PathBuf, Vec<TraceFile>> = std::collections::BTreeMap::new();
    for file in files {
        let directory = file.path.parent().map(std::path::Path::to_path_buf).unwrap_or_default();
        let directory = if directory.as_os_str().is_empty() { PathBuf::from(".") } else { directory };
        groups.entry(directory).or_default().push(file.clone());
    }
    groups
}

/// What the index offers for one file.
pub(crate) enum Source {
    /// Chunks from a fresh record, and where the record came from (for its checkpoint windows).
    Indexed(Box<ioscout_index::FileIndex>, Origin),
    /// No usable record: the file is read whole.
    Whole,
}

/// Where an index record came from: the index file and the file's key in it.
pub(crate) struct Origin {
    index: PathBuf,
    key: String,
}

/// Runs `request` over `input`, writing rows (or groups) to `out`.
pub fn query(input: &Input, request: &QueryRequest, mut out: Sink) -> Result<QueryReport> {
    let arguments = request;
    let predicate = arguments.filter.as_deref().map(Predicate::parse).transpose()?;
    let spec = arguments
        .group_by
        .as_deref()
        .map(|keys| GroupSpec::parse(keys, &arguments.aggregate))
        .transpose()
        .map_err(|error| ServiceError::BadRequest(error.to_string()))?;
    if spec.is_some() && arguments.format == Some(ViewFormat::Parquet) {
        return Err(ServiceError::BadRequest(
            "--group-by prints a table, JSON lines or CSV; not Parquet".into(),
        ));
    }
    let (files, input_problems) = input.discover();
    let output = Output::new(arguments.format.unwrap_or(ViewFormat::Jsonl), arguments.select.as_deref())?;
    if let Some(cluster) = &input.cluster {
        let query = crate::distributed_query::Query {
            input,
            request: arguments,
            predicate: predicate.as_ref(),
            spec: spec.as_ref(),
            output: &output,
            files: &files,
            input_problems: &input_problems,
        };
        return query.run(cluster.as_ref(), out);
    }
    let mut notes = Vec::new();
    if arguments.no_index {
        let (scan, more) =
            full_scan(input, arguments, &files, &input_problems, predicate.as_ref(), spec.as_ref(), out)?;
        notes.extend(more);
        return Ok(QueryReport { scan, notes });
    }
    let mut tables = HashTables::default();
    let sources = sources(&files, arguments.index_dir.as_deref(), &mut tables, &mut notes);
    let indexed = sources.iter().filter(|source| matches!(source, Source::Indexed(..))).count();
    if indexed == 0 {
        notes.push("no usable index: full scan (`ioscout index PATH` makes such queries faster)".into());
        let (scan, more) =
            full_scan(input, arguments, &files, &input_problems, predicate.as_ref(), spec.as_ref(), out)?;
        notes.extend(more);
        return Ok(QueryReport { scan, notes });
    }
    let scanner = input.scanner();
    let mut whole = Vec::new();
    for (file, source) in files.iter().zip(&sources) {
        match source {
            Source::Indexed(..) => {}
            Source::Whole => whole.push(file.clone()),
        }
    }
    if !whole.is_empty() {
        tables.merge(gather_metadata(&scanner, &whole).tables);
    }
    if let Some(spec) = &spec
        && whole.is_empty()
    {
        let statistics = sources.iter().filter_map(|source| match source {
            Source::Indexed(record, _) => Some(record.chunks.iter().map(|chunk| &chunk.stats)),
            Source::Whole => None,
        });
        if let Some(groups) = Groups::from_statistics(spec, predicate.as_ref(), statistics.flatten(), &tables)
        {
            notes.push("answered from the index statistics (no trace bytes read)".into());
            print_groups(spec, &groups, arguments.format, &mut out, &mut notes)?;
            let report = scanner.scan_chunks(
                &files,
                &input_problems,
                &[],
                |_| ioscout_read::NoFold,
                |_, _| std::ops::ControlFlow::Continue(()),
            );
            return Ok(QueryReport { scan: report, notes });
        }
    }
    let (chunks, total_chunks) = surviving_chunks(&files, &sources, predicate.as_ref(), &tables, &mut notes);
    let outcome = format!(
        "reading {} of {} chunks ({} of {} files from the index)",
        chunks.len(),
        total_chunks,
        indexed,
        files.len()
    );
    notes.push(outcome);
    if let Some(spec) = &spec {
        let mut groups = Groups::default();
        let report = scanner.scan_chunks(
            &files,
            &input_problems,
            &chunks,
            |_| GroupFold::new(spec, predicate.as_ref(), &tables),
            |_, fold| {
                groups.merge(fold.groups);
                std::ops::ControlFlow::Continue(())
            },
        );
        print_groups(spec, &groups, arguments.format, &mut out, &mut notes)?;
        return Ok(QueryReport { scan: report, notes });
    }
    let mut emitter = Emitter::new(&output, arguments.limit, out)?;
    let limit = emitter.limit;
    let report = scanner.scan_chunks(
        &files,
        &input_problems,
        if limit == 0 { &[] } else { &chunks },
        |_| ViewFold::new(predicate.as_ref(), &tables, &output, limit),
        |_, fold| emitter.take(&fold),
    );
    emitter.finish()?;
    Ok(QueryReport { scan: report, notes })
}

/// The query without the index: a parallel scan of every file.
fn full_scan(
    input: &Input,
    arguments: &QueryRequest,
    files: &[TraceFile],
    input_problems: &[ioscout_read::InputProblem],
    predicate: Option<&Predicate>,
    spec: Option<&GroupSpec>,
    mut out: Sink,
) -> Result<(ioscout_read::ScanReport, Vec<String>)> {
    let Some(spec) = spec else {
        let output = Output::new(arguments.format.unwrap_or(ViewFormat::Jsonl), arguments.select.as_deref())?;
        let report = scan_and_print(files, input_problems, input, predicate, arguments.limit, &output, out)?;
        return Ok((report, Vec::new()));
    };
    let scanner = input.scanner();
    let tables = gather_metadata(&scanner, files).tables;
    let mut groups = Groups::default();
    let report = scanner.scan(
        files,
        input_problems,
        |_| GroupFold::new(spec, predicate, &tables),
        |_, fold, _| {
            groups.merge(fold.groups);
            std::ops::ControlFlow::Continue(())
        },
    );
    let mut notes = Vec::new();
    print_groups(spec, &groups, arguments.format, &mut out, &mut notes)?;
    Ok((report, notes))
}

/// Writes aggregate rows: an aligned table by default, else JSON lines or CSV; `notes` gets what
/// the percentiles are (exact, or how many groups are approximate and by how much).
pub(crate) fn print_groups(
    spec: &GroupSpec,
    groups: &Groups,
    format: Option<ViewFormat>,
    out: &mut Sink,
    notes: &mut Vec<String>,
) -> Result<()> {
    notes.extend(groups.percentile_note(spec));
    write_groups(spec, groups, format, out).map_err(|error| ServiceError::write("groups", error))
}

fn write_groups(
    spec: &GroupSpec,
    groups: &Groups,
    format: Option<ViewFormat>,
    out: &mut Sink,
) -> std::io::Result<()> {
    let columns = spec.columns();
    let rows = groups.rows(spec);
    let mut stdout = std::io::BufWriter::new(out);
    let cell = |value: &serde_json::Value| match value {
        serde_json::Value::String(text) => text.clone(),
        serde_json::Value::Null => String::new(),
        serde_json::Value::Number(number) => match number.as_f64() {
            Some(float) if number.is_f64() => format!("{float:.3}"),
            _ => number.to_string(),
        },
        other => other.to_string(),
    };
    match format {
        Some(ViewFormat::Jsonl) => {
            for row in &rows {
                let object: serde_json::Map<String, serde_json::Value> =
                    columns.iter().cloned().zip(row.iter().cloned()).collect();
                serde_json::to_writer(&mut stdout, &object).map_err(std::io::Error::other)?;
                writeln!(stdout)?;
            }
        }
        Some(ViewFormat::Parquet | ViewFormat::Chrome) => {
            return Err(std::io::Error::other("--group-by prints a table, JSON lines or CSV; not Parquet"));
        }
        Some(ViewFormat::Csv) => {
            writeln!(stdout, "{}", columns.join(","))?;
            for row in &rows {
                let cells: Vec<String> = row
                    .iter()
                    .map(|value| {
                        let text = cell(value);
                        if text.contains([',', '"', '\n']) {
                            format!("\"{}\"", text.replace('"', "\"\""))
                        } else {
                            text
                        }
                    })
                    .collect();
                writeln!(stdout, "{}", cells.join(","))?;
            }
        }
        None => {
            let cells: Vec<Vec<String>> = rows.iter().map(|row| row.iter().map(cell).collect()).collect();
            let widths: Vec<usize> = columns
                .iter()
                .enumerate()
                .map(|(index, column)| {
                    cells.iter().map(|row| row[index].len()).chain([column.len()]).max().unwrap_or(0)
                })
                .collect();
            let keys = spec.keys.len();
            let line = |out: &mut dyn Write, values: &[String]| -> std::io::Result<()> {
                for (index, value) in values.iter().enumerate() {
                    let width = widths[index];
                    if index > 0 {
                        write!(out, "  ")?;
                    }
                    if index < keys {
                        write!(out, "{value:<width$}")?;
                    } else {
                        write!(out, "{value:>width$}")?;
                    }
                }
                writeln!(out)
            };
            line(&mut stdout, &columns)?;
            for row in &cells {
                line(&mut stdout, row)?;
            }
        }
    }
    stdout.flush()?;
    Ok(())
}

/// The chunks to read: those of indexed files that the predicate cannot rule out, and every
/// unindexed file whole; with the number of chunks there are in all. A chunk that starts inside a
/// gzip member gets its checkpoint window from the index; when a window cannot be read the file
/// is read whole, with a note.
pub(crate) fn surviving_chunks(
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

/// For each file, its fresh index record, or `Whole` with a note saying why.
pub(crate) fn sources(
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
