//! The vocabulary of ioscout: trace events, their phases, format generations and the metadata
//! tables that turn opaque hashes into file paths and host names.
//!
//! # Overview
//!
//! This crate holds types only and performs no I/O. The reader (`ioscout-read`) produces
//! [`Event`]s borrowed from decoded trace lines; every later stage (index, query, analysis,
//! diagnosis) consumes them. An event keeps its `args` object as raw JSON text ([`RawValue::Object`])
//! and exposes typed accessors, so a scan that needs only `ph` never pays for parsing `args`.
//!
//! Hashes (`hhash`, `fhash`, FH/HH/SH values) are kept as [`HashToken`]s: the exact text of the JSON
//! value, whether it was an unsigned integer above 2^63 (DFTracer v1) or a 16-hex-digit string
//! (DFTracer 2.x). They are never re-computed or converted to a lossy number.
//!
//! # Example
//!
//! ```
//! use ioscout_model::{Phase, RawValue};
//! assert_eq!(Phase::from_raw(&RawValue::Number("4")), Some(Phase::Metadata));
//! assert_eq!(Phase::from_raw(&RawValue::Str("X".into())), Some(Phase::Complete));
//! ```

use std::borrow::Cow;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};

/// The phase of an event (`ph`), normalised across format generations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// `"X"` or `1`: a call with a start time and a duration.
    Complete,
    /// `"M"` or `4`: metadata (FH, HH, SH, PR, CM, `thread_name`, `process_name`).
    Metadata,
    /// `"C"` or `2` without `dft_cnt`: a telemetry counter sample.
    Counter,
    /// `3`, or DFTracer 2.0's `"C"` carrying `dft_cnt`: calls folded per interval.
    Aggregated,
    /// Any other phase value (for example Chrome's `"B"`/`"E"`/`"i"`): kept and counted, not analysed.
    Other,
}

impl Phase {
    /// All phases, in the order used by counters.
    pub const ALL: [Phase; 5] =
        [Phase::Complete, Phase::Metadata, Phase::Counter, Phase::Aggregated, Phase::Other];

    /// Decodes `ph` from its letter or integer form. `C` maps to [`Phase::Counter`]; the reader
    /// refines it to [`Phase::Aggregated`] when the event carries `dft_cnt`. Returns `None` when the
    /// value is neither a string nor a number.
    pub fn from_raw(value: &RawValue<'_>) -> Option<Phase> {
        match value {
            RawValue::Str(text) => Some(match text.as_ref() {
                "X" => Phase::Complete,
                "M" => Phase::Metadata,
                "C" => Phase::Counter,
                "A" => Phase::Aggregated,
                _ => Phase::Other,
            }),
            RawValue::Number(text) => Some(match *text {
                "1" => Phase::Complete,
                "2" => Phase::Counter,
                "3" => Phase::Aggregated,
                "4" => Phase::Metadata,
                _ => Phase::Other,
            }),
            _ => None,
        }
    }

    /// Index of this phase in [`Phase::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The Chrome trace letter of this phase (`?` for [`Phase::Other`]).
    pub fn letter(self) -> &'static str {
        match self {
            Phase::Complete => "X",
            Phase::Metadata => "M",
            Phase::Counter => "C",
            Phase::Aggregated => "A",
            Phase::Other => "?",
        }
    }

    /// The lower-case name used in JSON output (`complete`, `metadata`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Phase::Complete => "complete",
            Phase::Metadata => "metadata",
            Phase::Counter => "counter",
            Phase::Aggregated => "aggregated",
            Phase::Other => "other",
        }
    }
}

/// A JSON value as it appears in a trace line, without building a tree.
///
/// Numbers keep their exact source text so integers above 2^63 and hash tokens stay exact.
/// Objects and arrays keep their raw text and are parsed only when asked.
#[derive(Clone, Debug, PartialEq)]
pub enum RawValue<'a> {
    /// A string, unescaped (borrowed when it had no escapes).
    Str(Cow<'a, str>),
    /// A number, as its exact JSON text.
    Number(&'a str),
    /// `true` or `false`.
    Bool(bool),
    /// `null`.
    Null,
    /// An object, as its raw JSON text including the braces.
    Object(&'a str),
    /// An array, as its raw JSON text including the brackets.
    Array(&'a str),
}

impl RawValue<'_> {
    /// The value as a signed integer, leniently: numbers and strings holding a number both count
    /// (2023 traces write `"pid":"123"`). Fractions are truncated toward zero.
    pub fn as_i64(&self) -> Option<i64> {
        let text = match self {
            RawValue::Number(text) => *text,
            RawValue::Str(text) => text.trim(),
            _ => return None,
        };
        if let Some(value) = small_digits(text) {
            return Some(value);
        }
        if let Ok(value) = text.parse::<i64>() {
            return Some(value);
        }
        let value = text.parse::<f64>().ok()?;
        if value.is_finite() && value.abs() < 9.2e18 { Some(value.trunc() as i64) } else { None }
    }

    /// The value as an unsigned integer, leniently (see [`RawValue::as_i64`]).
    pub fn as_u64(&self) -> Option<u64> {
        let text = match self {
            RawValue::Number(text) => *text,
            RawValue::Str(text) => text.trim(),
            _ => return None,
        };
        if let Ok(value) = text.parse::<u64>() {
            return Some(value);
        }
        self.as_i64().and_then(|value| u64::try_from(value).ok())
    }

    /// The value as a float, leniently.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            RawValue::Number(text) => text.parse().ok(),
            RawValue::Str(text) => text.trim().parse().ok(),
            _ => None,
        }
    }

    /// The value as text: strings unescaped, numbers and raw objects as written, booleans and null
    /// spelled out.
    pub fn as_text(&self) -> Cow<'_, str> {
        match self {
            RawValue::Str(text) => Cow::Borrowed(text.as_ref()),
            RawValue::Number(text) | RawValue::Object(text) | RawValue::Array(text) => Cow::Borrowed(text),
            RawValue::Bool(true) => Cow::Borrowed("true"),
            RawValue::Bool(false) => Cow::Borrowed("false"),
            RawValue::Null => Cow::Borrowed("null"),
        }
    }

    /// The canonical hash token of this value (strings and numbers only).
    pub fn as_hash_token(&self) -> Option<HashToken> {
        match self {
            RawValue::Str(text) => Some(HashToken(text.to_string())),
            RawValue::Number(text) => Some(HashToken((*text).to_string())),
            _ => None,
        }
    }

    /// Whether the value is a string.
    pub fn is_str(&self) -> bool {
        matches!(self, RawValue::Str(_))
    }
}

/// Fast path for the common case: up to 18 ASCII digits, no sign.
#[inline]
fn small_digits(text: &str) -> Option<i64> {
    let bytes = text.as_bytes();
    if bytes.is_empty() || bytes.len() > 18 {
        return None;
    }
    let mut value: i64 = 0;
    for &byte in bytes {
        let digit = byte.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        value = value * 10 + i64::from(digit);
    }
    Some(value)
}

/// An opaque hash, as the exact text of its JSON value (`"17868160079272185648"`, `"2a702c695247d487"`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct HashToken(pub String);

/// A token is looked up by its text (its hash and equality are its text's), so that a table keyed
/// by tokens is asked without making one.
impl std::borrow::Borrow<str> for HashToken {
    fn borrow(&self) -> &str {
        &self.0
    }
}

/// DFTracer trace format generations (see `shared/research/dftracer-format.md` §1.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Generation {
    /// 2023 (dlio-profiler): string-typed numbers, inline `hostname`/`fname`.
    #[serde(rename = "2023")]
    Legacy2023,
    /// v1.0.x: JSON numbers, integer hashes (may exceed 2^63), `[` ... `]`.
    #[serde(rename = "v1")]
    V1,
    /// 2025 (1.0.1x-2.0): 16-hex-digit string hashes, `C` aggregated events, multi-member gzip.
    #[serde(rename = "2025")]
    Hex2025,
    /// 2.2: newline-delimited JSON, integer `ph` and `type`.
    #[serde(rename = "2.2")]
    V2_2,
    /// Not enough evidence to tell (for example a file without events).
    #[serde(rename = "unknown")]
    Unknown,
}

impl Generation {
    /// The label used in output.
    pub fn label(self) -> &'static str {
        match self {
            Generation::Legacy2023 => "2023",
            Generation::V1 => "v1",
            Generation::Hex2025 => "2025",
            Generation::V2_2 => "2.2",
            Generation::Unknown => "unknown",
        }
    }
}

/// Bits of evidence about the format generation, gathered per event and OR-ed per file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GenerationEvidence(pub u8);

impl GenerationEvidence {
    /// Top-level numeric fields written as strings (`"pid":"1"`).
    pub const STRING_NUMBERS: u8 = 1;
    /// Inline `args.hostname` or `args.fname`.
    pub const INLINE_NAMES: u8 = 2;
    /// `ph` written as an integer.
    pub const INTEGER_PHASE: u8 = 4;
    /// `hhash` written as an integer.
    pub const INTEGER_HASH: u8 = 8;
    /// `hhash` written as a string.
    pub const STRING_HASH: u8 = 16;

    /// Adds the bits of `other`.
    pub fn add(&mut self, other: GenerationEvidence) {
        self.0 |= other.0;
    }

    /// Whether `bit` is set.
    pub fn has(self, bit: u8) -> bool {
        self.0 & bit != 0
    }

    /// Decides the generation from the evidence.
    pub fn generation(self) -> Generation {
        if self.has(Self::INTEGER_PHASE) {
            Generation::V2_2
        } else if self.has(Self::STRING_HASH) {
            Generation::Hex2025
        } else if self.has(Self::INTEGER_HASH) {
            Generation::V1
        } else if self.has(Self::STRING_NUMBERS) || self.has(Self::INLINE_NAMES) {
            Generation::Legacy2023
        } else {
            Generation::Unknown
        }
    }
}

/// One trace event, borrowed from its decoded line.
///
/// Fields absent from the line are `None`. `args` stays raw JSON text; use the reader's argument
/// accessors to look into it.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Event<'a> {
    /// The normalised phase.
    pub phase: Option<Phase>,
    /// `id`: per-process record index.
    pub id: Option<i64>,
    /// `name`: function or region name, or the metadata kind for metadata events.
    pub name: Option<Cow<'a, str>>,
    /// `cat`: category as written (not lower-cased).
    pub cat: Option<Cow<'a, str>>,
    /// `type`: the 2.2 layer enum.
    pub kind: Option<i64>,
    /// `pid`.
    pub pid: Option<i64>,
    /// `tid`.
    pub tid: Option<i64>,
    /// `ts`: start time in the trace's time unit (microseconds by default).
    pub ts: Option<i64>,
    /// `dur`: duration in the trace's time unit.
    pub dur: Option<i64>,
    /// The raw `args` object (its JSON text, braces included), when present.
    pub args: Option<&'a str>,
    /// Top-level keys this model does not know, kept in order so nothing is dropped.
    pub extra: Vec<(Cow<'a, str>, RawValue<'a>)>,
    /// Evidence about the format generation gathered from this event.
    pub evidence: GenerationEvidence,
}

impl Event<'_> {
    /// The event's end time (`ts + dur`), when both are known.
    pub fn end(&self) -> Option<i64> {
        Some(self.ts?.saturating_add(self.dur.unwrap_or(0)))
    }
}

/// The I/O class of a POSIX or STDIO call, by exact function name (DFAnalyzer's `io_cat`,
/// `shared/research/analysis-semantics.md` §3; sync calls count as metadata here).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IoClass {
    /// Moves bytes in.
    Read,
    /// Moves bytes out.
    Write,
    /// Opens, closes, seeks, stats, syncs, directory and namespace operations.
    Metadata,
    /// Anything else.
    Other,
}

/// The [`IoClass`] of a POSIX/STDIO function name (sync calls count as metadata, process
/// control and IPC as other).
pub fn io_class(name: &str) -> IoClass {
    match io_category(name) {
        IoCategory::Read => IoClass::Read,
        IoCategory::Write => IoClass::Write,
        IoCategory::Metadata | IoCategory::Sync => IoClass::Metadata,
        IoCategory::ProcessControl | IoCategory::Ipc | IoCategory::Other => IoClass::Other,
    }
}

/// DFAnalyzer's `io_cat` of a POSIX or STDIO call, by exact function name, with its numeric
/// codes (`shared/research/analysis-semantics.md` §3.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IoCategory {
    /// 1: moves bytes in.
    Read = 1,
    /// 2: moves bytes out.
    Write = 2,
    /// 3: opens, closes, seeks, stats, directory and namespace operations.
    Metadata = 3,
    /// 4: `exec`, `exit`, `fork`, `kill`, `pipe`, `wait`.
    ProcessControl = 4,
    /// 5: `msg*`, `sem*`, `shm*`.
    Ipc = 5,
    /// 6: everything else (`openat`, `mmap`, `statvfs`, `dup`, ...).
    Other = 6,
    /// 7: `fsync`, `fdatasync`, `msync`, `sync`.
    Sync = 7,
}

/// The [`IoCategory`] of a POSIX/STDIO function name.
pub fn io_category(name: &str) -> IoCategory {
    match name {
        "fread" | "pread" | "pread64" | "preadv" | "preadv64" | "preadv2" | "read" | "readv" => {
            IoCategory::Read
        }
        "fwrite" | "pwrite" | "pwrite64" | "pwritev" | "pwritev64" | "pwritev2" | "write" | "writev" => {
            IoCategory::Write
        }
        "__fxstat" | "__fxstat64" | "__lxstat" | "__lxstat64" | "__xstat" | "__xstat64" | "access"
        | "close" | "closedir" | "fclose" | "fcntl" | "fopen" | "fopen64" | "fseek" | "fseeko"
        | "fseeko64" | "fstat" | "fstat64" | "fstatat" | "fstatat64" | "ftell" | "ftello" | "ftello64"
        | "ftruncate" | "ftruncate64" | "link" | "lseek" | "lseek64" | "mkdir" | "open" | "open64"
        | "opendir" | "readdir" | "readdir64" | "readlink" | "remove" | "rename" | "rmdir" | "seek"
        | "stat" | "stat64" | "unlink" => IoCategory::Metadata,
        "fsync" | "fdatasync" | "msync" | "sync" => IoCategory::Sync,
        "exec" | "exit" | "fork" | "kill" | "pipe" | "wait" => IoCategory::ProcessControl,
        _ if name.starts_with("msg") || name.starts_with("sem") || name.starts_with("shm") => IoCategory::Ipc,
        _ => IoCategory::Other,
    }
}

/// The metadata kind named by a metadata event's `name`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MetadataKind {
    /// `FH`: file path to hash.
    FileHash,
    /// `HH`: host name to hash.
    HostHash,
    /// `SH`: string (command line, executable) to hash.
    StringHash,
    /// `PR`: process metadata (`rank`, `core_affinity`, ...).
    Process,
    /// `CM`: custom metadata (`time_metric`, user metadata).
    Custom,
    /// `thread_name`.
    ThreadName,
    /// `process_name`.
    ProcessName,
}

impl MetadataKind {
    /// Decodes a metadata event's `name`.
    pub fn from_name(name: &str) -> Option<MetadataKind> {
        Some(match name {
            "FH" => MetadataKind::FileHash,
            "HH" => MetadataKind::HostHash,
            "SH" => MetadataKind::StringHash,
            "PR" => MetadataKind::Process,
            "CM" => MetadataKind::Custom,
            "thread_name" => MetadataKind::ThreadName,
            "process_name" => MetadataKind::ProcessName,
            _ => return None,
        })
    }
}

/// Hash tables built from FH/HH/SH metadata events of every file of a trace.
///
/// Hashes are content-derived, so one table serves all processes and nodes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HashTables {
    /// File hash to file path.
    pub files: HashTable,
    /// Host hash to host name.
    pub hosts: HashTable,
    /// String hash to string (command lines, executable names).
    pub strings: HashTable,
}

impl HashTables {
    /// Records one mapping of the given kind; kinds other than FH/HH/SH are ignored.
    pub fn insert(&mut self, kind: MetadataKind, token: HashToken, text: String) {
        if let Some(table) = self.table_mut(kind) {
            table.entry(token).or_insert(text);
        }
    }

    /// [`HashTables::insert`] from borrowed text, which is copied only when the token is new (a
    /// trace names the same file again in each process that opens it).
    pub fn insert_new(&mut self, kind: MetadataKind, token: &str, text: &str) {
        if let Some(table) = self.table_mut(kind)
            && !table.contains_key(token)
        {
            table.insert(HashToken(token.to_string()), text.to_string());
        }
    }

    /// The table of a kind of mapping (FH, HH, SH); `None` for the other kinds.
    fn table_mut(&mut self, kind: MetadataKind) -> Option<&mut HashTable> {
        match kind {
            MetadataKind::FileHash => Some(&mut self.files),
            MetadataKind::HostHash => Some(&mut self.hosts),
            MetadataKind::StringHash => Some(&mut self.strings),
            _ => None,
        }
    }

    /// Adds every mapping of `other` not yet known.
    pub fn merge(&mut self, other: HashTables) {
        merge_table(&mut self.files, other.files);
        merge_table(&mut self.hosts, other.hosts);
        merge_table(&mut self.strings, other.strings);
    }

    /// Whether no mapping is known.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.hosts.is_empty() && self.strings.is_empty()
    }
}

/// One table of [`HashTables`]: a token to its text. Tokens are short and many (a file table of
/// some thousand paths, met once per process), so the hash is `rustc_hash`'s, not the standard
/// `SipHash`.
pub type HashTable = HashMap<HashToken, String, rustc_hash::FxBuildHasher>;

/// Adds the mappings of `theirs` that `mine` lacks: the smaller table goes into the larger one,
/// and where both have a token, `mine`'s text is kept.
fn merge_table(mine: &mut HashTable, mut theirs: HashTable) {
    if theirs.len() > mine.len() {
        std::mem::swap(mine, &mut theirs);
        for (token, text) in theirs {
            mine.insert(token, text);
        }
    } else {
        for (token, text) in theirs {
            mine.entry(token).or_insert(text);
        }
    }
}

/// Counts of events by phase, plus lines that could not be decoded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct PhaseCounts {
    /// Complete events.
    pub complete: u64,
    /// Metadata events.
    pub metadata: u64,
    /// Counter events.
    pub counter: u64,
    /// Aggregated events.
    pub aggregated: u64,
    /// Events with a phase ioscout does not analyse.
    pub other: u64,
    /// Lines (or undecodable regions) that are not valid events.
    pub invalid: u64,
}

impl PhaseCounts {
    /// Adds one event of `phase`.
    pub fn add(&mut self, phase: Phase) {
        match phase {
            Phase::Complete => self.complete += 1,
            Phase::Metadata => self.metadata += 1,
            Phase::Counter => self.counter += 1,
            Phase::Aggregated => self.aggregated += 1,
            Phase::Other => self.other += 1,
        }
    }

    /// Adds every count of `other`.
    pub fn merge(&mut self, other: &PhaseCounts) {
        self.complete += other.complete;
        self.metadata += other.metadata;
        self.counter += other.counter;
        self.aggregated += other.aggregated;
        self.other += other.other;
        self.invalid += other.invalid;
    }

    /// Number of valid events of every phase.
    pub fn events(&self) -> u64 {
        self.complete + self.metadata + self.counter + self.aggregated + self.other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lenient_numbers_accept_strings_and_keep_big_values() {
        assert_eq!(RawValue::Str("1338896".into()).as_i64(), Some(1_338_896));
        assert_eq!(RawValue::Number("17868160079272185648").as_u64(), Some(17_868_160_079_272_185_648));
        assert_eq!(RawValue::Number("17868160079272185648").as_i64(), None);
        assert_eq!(RawValue::Number("12.9").as_i64(), Some(12));
        assert_eq!(RawValue::Str("abc".into()).as_i64(), None);
        assert_eq!(RawValue::Bool(true).as_i64(), None);
    }

    #[test]
    fn phases_decode_from_letters_and_integers() {
        assert_eq!(Phase::from_raw(&RawValue::Number("1")), Some(Phase::Complete));
        assert_eq!(Phase::from_raw(&RawValue::Number("2")), Some(Phase::Counter));
        assert_eq!(Phase::from_raw(&RawValue::Number("3")), Some(Phase::Aggregated));
        assert_eq!(Phase::from_raw(&RawValue::Str("M".into())), Some(Phase::Metadata));
        assert_eq!(Phase::from_raw(&RawValue::Str("B".into())), Some(Phase::Other));
        assert_eq!(Phase::from_raw(&RawValue::Null), None);
    }

    #[test]
    fn generation_prefers_the_newest_evidence() {
        let mut evidence = GenerationEvidence::default();
        assert_eq!(evidence.generation(), Generation::Unknown);
        evidence.add(GenerationEvidence(GenerationEvidence::STRING_NUMBERS));
        assert_eq!(evidence.generation(), Generation::Legacy2023);
        evidence.add(GenerationEvidence(GenerationEvidence::INTEGER_HASH));
        assert_eq!(evidence.generation(), Generation::V1);
        evidence.add(GenerationEvidence(GenerationEvidence::STRING_HASH));
        assert_eq!(evidence.generation(), Generation::Hex2025);
        evidence.add(GenerationEvidence(GenerationEvidence::INTEGER_PHASE));
        assert_eq!(evidence.generation(), Generation::V2_2);
    }

    #[test]
    fn hash_tables_keep_the_first_mapping() {
        let mut tables = HashTables::default();
        tables.insert(MetadataKind::FileHash, HashToken("1".into()), "/a".into());
        tables.insert(MetadataKind::FileHash, HashToken("1".into()), "/b".into());
        tables.insert(MetadataKind::Process, HashToken("2".into()), "x".into());
        assert_eq!(tables.files.len(), 1);
        assert_eq!(tables.files[&HashToken("1".into())], "/a");
        assert!(tables.hosts.is_empty());
    }
}
