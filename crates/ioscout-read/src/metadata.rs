//! Metadata events: the hash tables (FH, HH, SH), process metadata (PR, `process_name`) and custom
//! metadata (CM `time_metric`), and the resolution of an event's host and file.
//!
//! # Overview
//!
//! [`MetadataFold`] is a [`Fold`] that gathers a [`TraceMetadata`] from the metadata events of a
//! unit; partial results [`TraceMetadata::merge`] into one for the whole trace (hashes are
//! content-derived, so one table serves every process and node). [`resolve_host`] and
//! [`resolve_file`] name an event's host and file: through the tables for `hhash`/`fhash`, from the
//! inline `hostname`/`fname` of 2023 traces, or as the raw hash token when no table names it.

use std::borrow::Cow;
use std::collections::BTreeMap;

use ioscout_model::{Event, HashTables, MetadataKind, Phase, RawValue};

use crate::event::{Args, metadata_entry};
use crate::fields::KeyArgs;
use crate::scan::{Decode, Fold, Phases};

/// What process metadata says about one process.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ProcessInfo {
    /// `PR rank`.
    pub rank: Option<String>,
    /// `process_name`.
    pub name: Option<String>,
}

/// Metadata gathered from a trace.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceMetadata {
    /// FH/HH/SH tables.
    pub tables: HashTables,
    /// Process metadata by pid.
    pub processes: BTreeMap<i64, ProcessInfo>,
    /// The `CM time_metric` value (`US` when absent).
    pub time_metric: Option<String>,
    /// Inline host names of 2023 traces (`args.hostname`).
    pub inline_hosts: std::collections::BTreeSet<String>,
}

impl TraceMetadata {
    /// Adds what one event says.
    pub fn observe(&mut self, event: &Event<'_>) {
        if event.phase != Some(Phase::Metadata) {
            return;
        }
        let args = Args::of(event);
        let Some(entry) = metadata_entry(event, &args) else { return };
        self.take(entry.kind, &entry.name, &entry.value.0, event.pid);
    }

    /// [`TraceMetadata::observe`] of a metadata line laid out as DFTracer writes it, read straight
    /// from its bytes: `{"id":I,"name":"FH","cat":"dftracer","pid":P,"tid":T,"ph":"M","args":{"name":"S","value":V}}`
    /// (the keys before `ph` as [`crate::json::Ordered::plain_head`] reads them; `ph` also the
    /// integer 4; `V` a string or a plain integer). Returns whether it was such a line; any other
    /// (another layout, an escape, a control character, text that is not UTF-8) is left to the
    /// full decoder and [`TraceMetadata::observe`]. On a line it takes, the effect is the one
    /// `observe` has of the decoded line, without building the event (a test holds it to that on
    /// every line of the corpus). A trace names each file its process opens in one such line: a
    /// job that reads thousands of files has as many.
    pub fn observe_line(&mut self, line: &[u8]) -> bool {
        let Some((kind, name, value, pid)) = ordered_metadata(line) else { return false };
        self.take(kind, name, value, pid);
        true
    }

    /// Adds one metadata record: its kind, `args.name`, `args.value` (as its hash token's text)
    /// and the event's process.
    fn take(&mut self, kind: MetadataKind, name: &str, value: &str, pid: Option<i64>) {
        match kind {
            MetadataKind::FileHash | MetadataKind::HostHash | MetadataKind::StringHash => {
                self.tables.insert_new(kind, value, name);
            }
            MetadataKind::Custom if name == "time_metric" => {
                self.time_metric.get_or_insert_with(|| value.to_string());
            }
            MetadataKind::Process if name == "rank" => {
                if let Some(pid) = pid {
                    self.processes.entry(pid).or_default().rank.get_or_insert_with(|| value.to_string());
                }
            }
            MetadataKind::ProcessName => {
                if let Some(pid) = pid {
                    self.processes.entry(pid).or_default().name.get_or_insert_with(|| name.to_string());
                }
            }
            _ => {}
        }
    }

    /// Adds everything `other` knows that this does not.
    pub fn merge(&mut self, other: TraceMetadata) {
        self.tables.merge(other.tables);
        for (pid, info) in other.processes {
            let mine = self.processes.entry(pid).or_default();
            if mine.rank.is_none() {
                mine.rank = info.rank;
            }
            if mine.name.is_none() {
                mine.name = info.name;
            }
        }
        if self.time_metric.is_none() {
            self.time_metric = other.time_metric;
        }
        self.inline_hosts.extend(other.inline_hosts);
    }
}

/// The record of a metadata line in DFTracer's layout (see [`TraceMetadata::observe_line`]):
/// its kind, `args.name`, `args.value` and `pid`; `None` for any other line.
fn ordered_metadata(line: &[u8]) -> Option<(MetadataKind, &str, &str, Option<i64>)> {
    if line.first() != Some(&b'{') {
        return None;
    }
    let mut cursor = crate::json::Ordered::new(line);
    let head = cursor.plain_head()?;
    let metadata = if cursor.step_over(b'"') {
        cursor.rest_of_plain_string()? == b"M"
    } else {
        let start = cursor.position();
        cursor.integer()?;
        &line[start..cursor.position()] == b"4"
    };
    if !metadata {
        return None;
    }
    // DFTracer 1.x writes `name` first; 2.x puts the host's hash before it.
    if cursor.key(b"\"args\":{\"hhash\":") {
        scalar(line, &mut cursor)?;
        if !cursor.key(b"\"name\":\"") {
            return None;
        }
    } else if !cursor.key(b"\"args\":{\"name\":\"") {
        return None;
    }
    let name = cursor.rest_of_plain_string()?;
    if !cursor.key(b"\"value\":") {
        return None;
    }
    let value = scalar(line, &mut cursor)?;
    if !cursor.step_over(b'}') || !cursor.at_last_brace() {
        return None;
    }
    // The full decoder reads the whole line as UTF-8 (the host's hash, skipped above, included)
    // and refuses a control character in a string (and anywhere else, as this layout has no room
    // for whitespace).
    if line.iter().any(|&byte| byte < 0x20) {
        return None;
    }
    let text = std::str::from_utf8(line).ok()?;
    // The parts lie between ASCII quotes or are numbers: the same range of `text` is their text.
    let part = |part: &[u8]| {
        let start = part.as_ptr() as usize - line.as_ptr() as usize;
        text.get(start..start + part.len())
    };
    let kind = MetadataKind::from_name(part(head.name?)?)?;
    Some((kind, part(name)?, part(value)?, head.pid))
}

/// Whether [`TraceMetadata::observe_line`] agrees with the full decoder on `line`: when it takes
/// the line, the full decoder reads it too, and [`TraceMetadata::observe`] of the decoded event
/// gives the same metadata. Returns whether it took the line (for the differential tests, which
/// also require it to take most metadata lines of the corpus).
pub fn metadata_paths_agree(line: &[u8]) -> Result<bool, String> {
    let mut fast = TraceMetadata::default();
    if !fast.observe_line(line) {
        return Ok(false);
    }
    let shown = || String::from_utf8_lossy(line).into_owned();
    let Ok(crate::event::Line::Event(event)) = crate::event::decode_line(line) else {
        return Err(format!("the metadata path took a line the full decoder refuses: {:?}", shown()));
    };
    let mut full = TraceMetadata::default();
    full.observe(&event);
    if fast != full {
        return Err(format!("the metadata paths disagree on {:?}: {fast:?} / {full:?}", shown()));
    }
    Ok(true)
}

/// A string without escapes (its content) or a number (its text, as a hash token keeps it) at
/// the cursor, which steps over it.
fn scalar<'a>(line: &'a [u8], cursor: &mut crate::json::Ordered<'a>) -> Option<&'a [u8]> {
    if cursor.step_over(b'"') {
        return cursor.rest_of_plain_string();
    }
    let start = cursor.position();
    cursor.at = crate::json::scan_number(line, start)?;
    Some(&line[start..cursor.at])
}

/// A [`Fold`] gathering [`TraceMetadata`].
#[derive(Debug, Default)]
pub struct MetadataFold {
    /// What was gathered.
    pub metadata: TraceMetadata,
}

impl Fold for MetadataFold {
    fn event(&mut self, event: &Event<'_>) {
        self.metadata.observe(event);
    }

    fn decode(&self) -> Decode {
        Decode::Events(Phases::of(&[Phase::Metadata]))
    }
}

impl crate::Scanner {
    /// The metadata of `files` (hash tables, processes), from a scan that decodes metadata events
    /// only. Problems in the files are not reported here: the scan that reads their events does.
    pub fn metadata(&self, files: &[crate::TraceFile]) -> TraceMetadata {
        let mut metadata = TraceMetadata::default();
        self.scan(
            files,
            &[],
            |_| MetadataFold::default(),
            |_, fold, _| {
                metadata.merge(fold.metadata);
                std::ops::ControlFlow::Continue(())
            },
        );
        metadata
    }
}

fn lookup<'a>(value: Option<&RawValue<'_>>, table: &'a ioscout_model::HashTable) -> Option<Cow<'a, str>> {
    let token = value?.as_hash_token()?;
    Some(match table.get(&token) {
        Some(name) => Cow::Borrowed(name.as_str()),
        None => Cow::Owned(token.0),
    })
}

/// The host of an event: its `hhash` resolved through HH, else the inline `hostname`, else the raw
/// hash token.
pub fn resolve_host<'a>(args: &Args<'a>, tables: &'a HashTables) -> Option<Cow<'a, str>> {
    if let Some(RawValue::Str(name)) = args.get("hostname") {
        return Some(Cow::Owned(name.to_string()));
    }
    lookup(args.get("hhash"), &tables.hosts)
}

/// The file of an event: its `fhash` resolved through FH, else the inline `fname`, else the raw
/// hash token.
pub fn resolve_file<'a>(args: &Args<'a>, tables: &'a HashTables) -> Option<Cow<'a, str>> {
    file_from(args.get("fname"), args.get("fhash"), tables)
}

/// [`resolve_file`] from the key arguments of decoded fields ([`KeyArgs`]).
pub fn resolve_file_of_keys<'a>(args: &KeyArgs<'_>, tables: &'a HashTables) -> Option<Cow<'a, str>> {
    file_from(args.fname.as_ref(), args.fhash.as_ref(), tables)
}

fn file_from<'a>(
    fname: Option<&RawValue<'_>>,
    fhash: Option<&RawValue<'_>>,
    tables: &'a HashTables,
) -> Option<Cow<'a, str>> {
    if let Some(RawValue::Str(name)) = fname {
        return Some(Cow::Owned(name.to_string()));
    }
    lookup(fhash, &tables.files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Line, decode_line};

    fn observe(metadata: &mut TraceMetadata, line: &str) {
        if let Ok(Line::Event(event)) = decode_line(line.as_bytes()) {
            metadata.observe(&event);
        }
    }

    #[test]
    fn tables_resolve_hosts_and_files_and_keep_unknown_tokens() {
        let mut metadata = TraceMetadata::default();
        observe(
            &mut metadata,
            r#"{"name":"HH","cat":"dftracer","pid":1,"tid":1,"ph":4,"args":{"hhash":"aa","name":"node1","value":"aa"}}"#,
        );
        observe(
            &mut metadata,
            r#"{"name":"FH","cat":"dftracer","pid":1,"tid":1,"ph":4,"args":{"hhash":"aa","name":"/data/x","value":"ff"}}"#,
        );
        observe(
            &mut metadata,
            r#"{"name":"CM","cat":"dftracer","pid":1,"tid":1,"ph":4,"args":{"hhash":"aa","name":"time_metric","value":"US"}}"#,
        );
        observe(
            &mut metadata,
            r#"{"name":"PR","cat":"dftracer","pid":1,"tid":1,"ph":4,"args":{"hhash":"aa","name":"rank","value":3}}"#,
        );
        assert_eq!(metadata.time_metric.as_deref(), Some("US"));
        assert_eq!(metadata.processes[&1].rank.as_deref(), Some("3"));
        let line = r#"{"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":1,"dur":1,"ph":1,"args":{"hhash":"aa","fhash":"ff"}}"#;
        let Ok(Line::Event(event)) = decode_line(line.as_bytes()) else { panic!("not an event") };
        let args = Args::of(&event);
        assert_eq!(resolve_host(&args, &metadata.tables).as_deref(), Some("node1"));
        assert_eq!(resolve_file(&args, &metadata.tables).as_deref(), Some("/data/x"));
        let line = r#"{"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":1,"dur":1,"ph":1,"args":{"hhash":"bb","fhash":"ee"}}"#;
        let Ok(Line::Event(event)) = decode_line(line.as_bytes()) else { panic!("not an event") };
        let args = Args::of(&event);
        assert_eq!(resolve_host(&args, &metadata.tables).as_deref(), Some("bb"));
        assert_eq!(resolve_file(&args, &metadata.tables).as_deref(), Some("ee"));
    }
}
