//! Lossless trace clustering (`ioscout organize`, `ioscout reconstruct`): the events of a trace
//! rewritten into one multi-member `.pfw.gz` file per group (I/O calls, metadata, the rest by
//! default; or the user's `NAME:EXPR` groups, first match wins), indexed, so that a query reads
//! only the groups its predicate can touch; and the way back.
//!
//! Every source line goes to exactly one group file, in source order, with its bytes unchanged;
//! lines that are not events (the `[` wrapper, blank or invalid lines) go to `_rest`. The
//! provenance file (`provenance.json`) lists the groups and, per source file (in the order
//! organized), its name, size, line count, CRC-32 of its decompressed bytes, whether its last
//! line ends with a newline, and its runs: `[group, count, group, count, ...]`, consecutive
//! source lines that went to the same group. A run's source line range starts where the
//! previous run of the source ended; its range in the group file starts where the group's
//! previous run ended: the line ranges are prefix sums of the counts. `reconstruct` replays the
//! runs and checks each file's size and CRC-32.
//!
//! Sits after the query stage (its groups are `--where` predicates) and the index (the output is
//! indexed); the service finds the input files and maps the errors.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use flate2::Compression;
use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use ioscout_query::Predicate;
use serde::{Deserialize, Serialize};

use ioscout_read::{InputProblem, ScanOptions, TraceFile};

pub use crate::error::OrganizeError;

mod error;

/// The result of organizing or reconstructing.
pub type Result<T, E = OrganizeError> = std::result::Result<T, E>;

/// Format of the provenance file.
pub const FORMAT: &str = "ioscout-organize/1";
/// The provenance file's name.
pub const PROVENANCE: &str = "provenance.json";
/// The group of lines that are not events.
pub const REST: &str = "_rest";
/// Uncompressed bytes per gzip member of a group file.
const MEMBER_BYTES: u64 = 4 << 20;

/// The default groups: I/O calls, metadata records, everything else.
pub const DEFAULT_GROUPS: [(&str, &str); 3] = [
    ("io", r#"cat ~ "(?i)^(posix|stdio)""#),
    ("metadata", "ph == M"),
    ("app", r#"name ~ "" or not name ~ """#),
];

/// One group of the output.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Group {
    /// Its name.
    pub name: String,
    /// Its predicate (empty for `_rest`).
    pub expression: String,
    /// Its file, relative to the output directory.
    pub file: String,
    /// Lines in it.
    pub lines: u64,
}

/// One source file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Source {
    /// Its name, relative to the input it was found under.
    pub name: String,
    /// Whether it was gzip-compressed (reconstructed as gzip).
    pub compressed: bool,
    /// Lines.
    pub lines: u64,
    /// Decompressed bytes.
    pub bytes: u64,
    /// CRC-32 of the decompressed bytes.
    pub crc32: u32,
    /// Whether the last line ends with a newline.
    pub trailing_newline: bool,
    /// `[group, count, ...]`.
    pub runs: Vec<u64>,
}

/// The provenance file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Provenance {
    /// [`FORMAT`].
    pub format: String,
    /// The groups, in matching order (`_rest` last).
    pub groups: Vec<Group>,
    /// The sources, in the order organized.
    pub sources: Vec<Source>,
    /// What could not be read: paths that could not be used, files whose gzip data end early or
    /// break (organized up to the damage). Empty when everything was read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
}

struct GroupWriter {
    path: PathBuf,
    encoder: Option<GzEncoder<BufWriter<File>>>,
    member: u64,
    lines: u64,
}

impl GroupWriter {
    fn create(path: PathBuf) -> Result<GroupWriter> {
        let file = File::create(&path).map_err(|error| OrganizeError::io(&path, error))?;
        Ok(GroupWriter {
            encoder: Some(GzEncoder::new(BufWriter::new(file), Compression::new(3))),
            path,
            member: 0,
            lines: 0,
        })
    }

    fn write(&mut self, line: &[u8]) -> Result<()> {
        let io = |error| OrganizeError::io(&self.path, error);
        if self.member >= MEMBER_BYTES
            && let Some(encoder) = self.encoder.take()
        {
            let inner = encoder.finish().map_err(io)?;
            self.encoder = Some(GzEncoder::new(inner, Compression::new(3)));
            self.member = 0;
        }
        let Some(encoder) = self.encoder.as_mut() else { return Ok(()) };
        encoder.write_all(line).map_err(io)?;
        if !line.ends_with(b"\n") {
            encoder.write_all(b"\n").map_err(io)?;
        }
        self.member += line.len() as u64 + 1;
        self.lines += 1;
        Ok(())
    }

    fn finish(mut self) -> Result<u64> {
        if let Some(encoder) = self.encoder.take() {
            let mut inner = encoder.finish().map_err(|error| OrganizeError::io(&self.path, error))?;
            inner.flush().map_err(|error| OrganizeError::io(&self.path, error))?;
        }
        Ok(self.lines)
    }
}

fn open_lines(path: &Path) -> Result<Box<dyn BufRead>> {
    let file = File::open(path).map_err(|error| OrganizeError::io(path, error))?;
    let gz = path.extension().is_some_and(|extension| extension == "gz");
    Ok(if gz {
        Box::new(BufReader::with_capacity(1 << 20, MultiGzDecoder::new(file)))
    } else {
        Box::new(BufReader::with_capacity(1 << 20, file))
    })
}

/// The name of `file` relative to the input path it was found under.
fn source_name(file: &Path, inputs: &[PathBuf]) -> String {
    for input in inputs {
        if input.is_dir()
            && let Ok(relative) = file.strip_prefix(input)
        {
            return relative.display().to_string();
        }
    }
    file.file_name().map_or_else(|| file.display().to_string(), |name| name.to_string_lossy().into_owned())
}

/// Parses `NAME:EXPR` group definitions (or the defaults when there are none).
pub fn parse_groups(definitions: &[String]) -> Result<Vec<(String, String, Predicate)>> {
    let pairs: Vec<(String, String)> = if definitions.is_empty() {
        DEFAULT_GROUPS
            .iter()
            .map(|(name, expression)| ((*name).to_string(), (*expression).to_string()))
            .collect()
    } else {
        definitions
            .iter()
            .map(|definition| {
                definition
                    .split_once(':')
                    .map(|(name, expression)| (name.trim().to_string(), expression.trim().to_string()))
                    .ok_or_else(|| OrganizeError::Refused(format!("group {definition:?} is not NAME:EXPR")))
            })
            .collect::<Result<_>>()?
    };
    let mut groups = Vec::new();
    for (name, expression) in pairs {
        if name.is_empty()
            || name == REST
            || !name.chars().all(|character| character.is_ascii_alphanumeric() || "-_".contains(character))
        {
            return Err(OrganizeError::Refused(format!(
                "group name {name:?}: letters, digits, - and _ only (and not {REST})"
            )));
        }
        if groups.iter().any(|(existing, _, _): &(String, String, Predicate)| *existing == name) {
            return Err(OrganizeError::Refused(format!("group {name:?} is defined twice")));
        }
        let predicate = Predicate::parse(&expression)?;
        groups.push((name, expression, predicate));
    }
    Ok(groups)
}

/// What is organized: the paths as given (a source file is named relative to the directory it
/// was found under), the trace files found there, the paths that could not be used (listed in
/// the provenance's problems), and how to scan.
#[derive(Clone, Copy)]
pub struct Sources<'a> {
    /// The paths as given.
    pub inputs: &'a [PathBuf],
    /// The trace files found under them.
    pub files: &'a [TraceFile],
    /// The paths that could not be used.
    pub problems: &'a [InputProblem],
    /// How to scan (threads, progress).
    pub scan: &'a ScanOptions,
}

/// Organizes the traces of `sources` into `output` by `groups` ([`parse_groups`]) (which must be absent or empty), indexing the
/// result when `index` is set. It reads what the reader reads: a line that is not an event goes
/// to `_rest`, and a file whose gzip data end early or break is organized up to the damage, with
/// the damage listed in [`Provenance::problems`] (its reconstruction is what could be read).
/// Nothing is left half-written: the work happens in a temporary directory beside `output`,
/// renamed into place at the end and removed on failure.
pub fn organize(
    sources: &Sources<'_>,
    output: &Path,
    groups: &[(String, String, Predicate)],
    index: bool,
) -> Result<Provenance> {
    let problems = sources.problems;
    if output.exists()
        && std::fs::read_dir(output).map_err(|error| OrganizeError::io(output, error))?.next().is_some()
    {
        return Err(OrganizeError::Refused(format!("{} is not empty", output.display())));
    }
    let name =
        output.file_name().map_or_else(|| "organized".into(), |name| name.to_string_lossy().into_owned());
    let temporary = output.with_file_name(format!(".{name}.partial-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&temporary);
    std::fs::create_dir_all(&temporary).map_err(|error| OrganizeError::io(&temporary, error))?;
    let organized = organize_into(sources, &temporary, groups).and_then(|mut provenance| {
        provenance
            .problems
            .extend(problems.iter().map(|problem| format!("{}: {}", problem.path.display(), problem.detail)));
        let path = temporary.join(PROVENANCE);
        let text =
            serde_json::to_string(&provenance).map_err(|error| OrganizeError::output("provenance", error))?;
        std::fs::write(&path, text).map_err(|error| OrganizeError::io(&path, error))?;
        if output.exists() {
            std::fs::remove_dir(output).map_err(|error| OrganizeError::io(output, error))?;
        }
        std::fs::rename(&temporary, output).map_err(|error| OrganizeError::io(output, error))?;
        Ok(provenance)
    });
    let provenance = match organized {
        Ok(provenance) => provenance,
        Err(error) => {
            let _ = std::fs::remove_dir_all(&temporary);
            return Err(error);
        }
    };
    if index {
        let (organized, _) = ioscout_read::discover(&[output]);
        let options = ioscout_index::build::BuildOptions {
            threads: sources.scan.threads,
            chunk_bytes: 0,
            index_dir: None,
            force: true,
            progress: None,
        };
        ioscout_index::build::build(output, &organized, &options)
            .map_err(|error| OrganizeError::output("the index", error))?;
    }
    Ok(provenance)
}

/// The group files and the provenance of `files`, written under `directory`.
fn organize_into(
    sources: &Sources<'_>,
    directory: &Path,
    groups: &[(String, String, Predicate)],
) -> Result<Provenance> {
    let Sources { inputs, files, scan, .. } = *sources;
    let quiet = ioscout_read::Scanner::new(ScanOptions { progress: None, ..scan.clone() });
    let metadata = quiet.metadata(files);
    let mut writers: Vec<GroupWriter> = Vec::new();
    for (name, _, _) in groups {
        writers.push(GroupWriter::create(directory.join(format!("{name}.pfw.gz")))?);
    }
    writers.push(GroupWriter::create(directory.join(format!("{REST}.pfw.gz")))?);
    let mut sources = Vec::with_capacity(files.len());
    let mut problems = Vec::new();
    let mut names = BTreeMap::new();
    for file in files {
        let name = source_name(&file.path, inputs);
        if let Some(previous) = names.insert(name.clone(), file.path.clone()) {
            return Err(OrganizeError::Refused(format!(
                "{} and {} would both be {name}",
                previous.display(),
                file.path.display()
            )));
        }
        let (source, problem) = organize_source(file, name, groups, &metadata.tables, &mut writers)?;
        problems.extend(problem);
        sources.push(source);
        if let Some(progress) = &scan.progress {
            (progress.0)(file.size);
        }
    }
    let mut group_records: Vec<Group> = groups
        .iter()
        .map(|(name, expression, _)| Group {
            file: format!("{name}.pfw.gz"),
            name: name.clone(),
            expression: expression.clone(),
            lines: 0,
        })
        .collect();
    group_records.push(Group {
        name: REST.into(),
        expression: String::new(),
        file: format!("{REST}.pfw.gz"),
        lines: 0,
    });
    for (record, writer) in group_records.iter_mut().zip(writers) {
        record.lines = writer.finish()?;
    }
    Ok(Provenance { format: FORMAT.into(), groups: group_records, sources, problems })
}

/// Sends every line of `file` to its group's writer (the first group whose predicate matches
/// the event, else `_rest`) and returns the file's provenance, and the damage that ended the
/// read early, if any (the lines before it are kept).
fn organize_source(
    file: &TraceFile,
    name: String,
    groups: &[(String, String, Predicate)],
    tables: &ioscout_model::HashTables,
    writers: &mut [GroupWriter],
) -> Result<(Source, Option<String>)> {
    let rest = groups.len() as u64;
    let mut reader = open_lines(&file.path)?;
    let mut line = Vec::with_capacity(4096);
    let mut crc = crc32fast::Hasher::new();
    let (mut lines, mut bytes, mut trailing_newline) = (0_u64, 0_u64, true);
    let mut runs: Vec<u64> = Vec::new();
    let mut damage = None;
    loop {
        line.clear();
        let read = match reader.read_until(b'\n', &mut line) {
            Ok(read) => read,
            // The bytes before the damage are in `line` (read_until keeps them): kept as the
            // file's last line, and the rest of the file is lost.
            Err(error) => {
                damage = Some(format!(
                    "{}: {error} after {} decompressed bytes: organized up to there, the rest is not readable",
                    file.path.display(),
                    bytes + line.len() as u64
                ));
                line.len()
            }
        };
        if read == 0 {
            break;
        }
        crc.update(&line);
        bytes += read as u64;
        lines += 1;
        trailing_newline = line.ends_with(b"\n");
        let body = line.strip_suffix(b"\n").unwrap_or(&line);
        let body = body.strip_suffix(b"\r").unwrap_or(body);
        let group = match ioscout_read::event::decode_line(body) {
            Ok(ioscout_read::event::Line::Event(event)) => groups
                .iter()
                .position(|(_, _, predicate)| predicate.matches(&event, tables))
                .map_or(rest, |index| index as u64),
            _ => rest,
        };
        writers[group as usize].write(&line)?;
        match runs.len() {
            length if length >= 2 && runs[length - 2] == group => runs[length - 1] += 1,
            _ => runs.extend([group, 1]),
        }
        if damage.is_some() {
            break;
        }
    }
    let source = Source {
        name,
        compressed: file.path.extension().is_some_and(|extension| extension == "gz"),
        lines,
        bytes,
        crc32: crc.finalize(),
        trailing_newline,
        runs,
    };
    Ok((source, damage))
}

/// Rebuilds the original files of an organized directory under `output`.
pub fn reconstruct(organized: &Path, output: &Path) -> Result<Vec<PathBuf>> {
    let path = organized.join(PROVENANCE);
    let text = std::fs::read_to_string(&path).map_err(|error| OrganizeError::io(&path, error))?;
    let provenance: Provenance = serde_json::from_str(&text).map_err(|error| {
        OrganizeError::Refused(format!("{}: not a provenance file ({error})", path.display()))
    })?;
    if provenance.format != FORMAT {
        return Err(OrganizeError::Refused(format!(
            "{}: format {:?}, this ioscout reads {FORMAT}",
            path.display(),
            provenance.format
        )));
    }
    let mut readers: Vec<(PathBuf, Box<dyn BufRead>)> = Vec::new();
    for group in &provenance.groups {
        if group.file.contains("..") || group.file.contains('/') {
            return Err(OrganizeError::Refused(format!("group file {:?} is not a plain name", group.file)));
        }
        let file = organized.join(&group.file);
        readers.push((file.clone(), open_lines(&file)?));
    }
    let mut written = Vec::new();
    let mut line = Vec::with_capacity(4096);
    for source in &provenance.sources {
        let relative = Path::new(&source.name);
        if relative.is_absolute()
            || relative.components().any(|component| matches!(component, std::path::Component::ParentDir))
        {
            return Err(OrganizeError::Refused(format!(
                "source name {:?} leaves the output directory",
                source.name
            )));
        }
        let target = output.join(relative);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|error| OrganizeError::io(parent, error))?;
        }
        let file = File::create(&target).map_err(|error| OrganizeError::io(&target, error))?;
        let mut sink: Box<dyn Write> = if source.compressed {
            Box::new(GzEncoder::new(BufWriter::new(file), Compression::new(6)))
        } else {
            Box::new(BufWriter::new(file))
        };
        let mut crc = crc32fast::Hasher::new();
        let (mut lines, mut bytes) = (0_u64, 0_u64);
        for pair in source.runs.chunks(2) {
            let (group, count) = (pair[0] as usize, pair.get(1).copied().unwrap_or(0));
            let Some((group_path, reader)) = readers.get_mut(group) else {
                return Err(OrganizeError::Refused(format!("{}: run of unknown group {group}", source.name)));
            };
            for _ in 0..count {
                line.clear();
                let read = reader
                    .read_until(b'\n', &mut line)
                    .map_err(|error| OrganizeError::io(&*group_path, error))?;
                if read == 0 {
                    return Err(OrganizeError::Refused(format!(
                        "{} ended before {} was rebuilt",
                        group_path.display(),
                        source.name
                    )));
                }
                lines += 1;
                if lines == source.lines && !source.trailing_newline && line.ends_with(b"\n") {
                    line.pop();
                }
                crc.update(&line);
                bytes += line.len() as u64;
                sink.write_all(&line).map_err(|error| OrganizeError::io(&target, error))?;
            }
        }
        sink.flush().map_err(|error| OrganizeError::io(&target, error))?;
        drop(sink);
        if lines != source.lines || bytes != source.bytes || crc.finalize() != source.crc32 {
            return Err(OrganizeError::Refused(format!(
                "{}: rebuilt {lines} lines and {bytes} bytes that do not match the provenance ({} lines, {} bytes, CRC-32 {:08x})",
                source.name, source.lines, source.bytes, source.crc32
            )));
        }
        written.push(target);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ioscout_testkit::Random;

    fn decompressed(path: &Path) -> Vec<u8> {
        let mut bytes = Vec::new();
        if let Ok(mut reader) = open_lines(path) {
            let _ = std::io::Read::read_to_end(&mut reader, &mut bytes);
        }
        bytes
    }

    fn trace(random: &mut Random) -> Vec<u8> {
        let mut text = Vec::new();
        if random.next_value().is_multiple_of(2) {
            text.extend_from_slice(b"[\n");
        }
        let lines = random.next_value() % 200;
        for index in 0..lines {
            let line = match random.next_value() % 7 {
                0 => format!(r#"{{"id":{index},"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":{index},"dur":3,"ph":"X","args":{{"ret":4096}}}}"#),
                1 => format!(r#"{{"id":{index},"name":"compute","cat":"ai_framework","pid":2,"tid":2,"ts":{index},"dur":9,"ph":"X"}}"#),
                2 => r#"{"id":0,"name":"FH","cat":"dftracer","pid":1,"tid":1,"ph":"M","args":{"name":"/d/f","value":"1"}}"#.to_string(),
                3 => "not json at all".to_string(),
                4 => String::new(),
                5 => format!(r#"{{"id":{index},"name":"fwrite","cat":"STDIO","pid":3,"tid":3,"ts":{index},"dur":1,"ph":"X"}}  "#),
                _ => format!(r#"{{"id":{index},"name":"open64","cat":"POSIX","pid":1,"tid":1,"ts":{index},"dur":2,"ph":"X"}}"#),
            };
            text.extend_from_slice(line.as_bytes());
            if index + 1 < lines || !random.next_value().is_multiple_of(3) {
                text.extend_from_slice(if random.next_value().is_multiple_of(10) { b"\r\n" } else { b"\n" });
            }
        }
        text
    }

    #[test]
    fn reconstruct_of_organize_is_the_identity_on_generated_traces() {
        let mut random = Random(0x9e37_79b9_7f4a_7c15);
        for case in 0..24 {
            let root = std::env::temp_dir().join(format!("ioscout-organize-{}-{case}", std::process::id()));
            let _ = std::fs::remove_dir_all(&root);
            let traces = root.join("traces/sub");
            std::fs::create_dir_all(&traces).unwrap_or_else(|error| panic!("{error}"));
            let mut originals = Vec::new();
            for file in 0..=(random.next_value() % 3) {
                let bytes = trace(&mut random);
                let (name, stored) = if file % 2 == 0 {
                    let mut encoder = GzEncoder::new(Vec::new(), Compression::fast());
                    let _ = encoder.write_all(&bytes);
                    (format!("t{file}.pfw.gz"), encoder.finish().unwrap_or_default())
                } else {
                    (format!("t{file}.pfw"), bytes.clone())
                };
                std::fs::write(traces.join(&name), stored).unwrap_or_else(|error| panic!("{error}"));
                originals.push((format!("sub/{name}"), bytes));
            }
            let inputs = vec![root.join("traces")];
            let (files, problems) = ioscout_read::discover(&inputs);
            let scan = ScanOptions::default();
            let sources = Sources { inputs: &inputs, files: &files, problems: &problems, scan: &scan };
            let organized = root.join("organized");
            let groups = parse_groups(&[]).unwrap_or_else(|error| panic!("{error}"));
            let provenance = organize(&sources, &organized, &groups, case % 4 == 0)
                .unwrap_or_else(|error| panic!("case {case}: {error}"));
            assert_eq!(provenance.sources.len(), originals.len());
            let rebuilt = root.join("rebuilt");
            reconstruct(&organized, &rebuilt).unwrap_or_else(|error| panic!("case {case}: {error}"));
            for (name, bytes) in &originals {
                assert_eq!(&decompressed(&rebuilt.join(name)), bytes, "case {case}: {name}");
            }
            let _ = std::fs::remove_dir_all(&root);
        }
    }

    #[test]
    fn group_definitions_are_checked() {
        assert!(parse_groups(&["io:cat == POSIX".into(), "io:cat == STDIO".into()]).is_err());
        assert!(parse_groups(&["no colon".into()]).is_err());
        assert!(parse_groups(&["_rest:cat == x".into()]).is_err());
        assert!(parse_groups(&["bad:cat ==".into()]).is_err());
        assert_eq!(parse_groups(&[]).map(|groups| groups.len()).ok(), Some(3));
    }
}
