//! Chunk statistics: what the index knows about every event of a chunk without reading it.
//!
//! # Overview
//!
//! [`StatsFold`] is the [`Fold`] the index builder runs over every unit of a trace; it fills a
//! [`ChunkStats`] and the file's metadata ([`TraceMetadata`]: FH/HH/SH tables). Statistics are
//! mergeable ([`ChunkStats::merge`]), so units merge into chunks, chunks into a file roll-up and
//! files into a directory roll-up, and partial results from different cores or nodes combine.
//!
//! The statistics are chosen to decide, for a `--where` predicate, that no event of a chunk can
//! match (see `ioscout-query`): exact per-(category, name) counts with duration moments, exact
//! pid counts, value ranges of every numeric field with the number of events that carry it, the
//! exact set of host tokens, and bloom filters over thread ids and file tokens. Counts by phase
//! and bytes moved per I/O class serve aggregate queries.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use ioscout_model::{Event, Phase, PhaseCounts, RawValue};
use ioscout_read::fields::{EventFields, KeyArgs};
use ioscout_read::{Decode, Fold, Phases, TraceMetadata};
use serde::{Deserialize, Serialize};

use crate::bloom::Bloom;

/// Above this many distinct values, exact sets give up (marked `overflow`) and predicates on the
/// field no longer prune.
pub const EXACT_LIMIT: usize = 4096;

/// Range and presence of one numeric field.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Range {
    /// Events carrying the field.
    pub present: u64,
    /// Smallest value.
    pub min: i64,
    /// Largest value.
    pub max: i64,
}

impl Range {
    /// Adds one value.
    pub fn add(&mut self, value: Option<i64>) {
        let Some(value) = value else { return };
        if self.present == 0 {
            self.min = value;
            self.max = value;
        } else {
            self.min = self.min.min(value);
            self.max = self.max.max(value);
        }
        self.present += 1;
    }

    /// Adds another range.
    pub fn merge(&mut self, other: &Range) {
        if other.present == 0 {
            return;
        }
        if self.present == 0 {
            *self = *other;
            return;
        }
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.present += other.present;
    }
}

/// Count and duration moments of one (category, name) pair.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallStats {
    /// Events.
    pub count: u64,
    /// Events carrying `dur`.
    pub with_duration: u64,
    /// Sum of `dur`.
    pub duration_sum: i128,
    /// Smallest `dur` (of the events that carry one).
    pub duration_min: Option<i64>,
    /// Largest `dur`.
    pub duration_max: Option<i64>,
    /// Bytes moved (read/write family; see [`ioscout_model::io_class`]).
    pub bytes: u64,
}

impl CallStats {
    /// Adds one event.
    pub fn add(&mut self, duration: Option<i64>, bytes: u64) {
        self.count += 1;
        self.bytes += bytes;
        if let Some(duration) = duration {
            self.with_duration += 1;
            self.duration_sum += i128::from(duration);
            self.duration_min = Some(self.duration_min.map_or(duration, |min| min.min(duration)));
            self.duration_max = Some(self.duration_max.map_or(duration, |max| max.max(duration)));
        }
    }

    /// Adds another pair's statistics.
    pub fn merge(&mut self, other: &CallStats) {
        self.count += other.count;
        self.with_duration += other.with_duration;
        self.bytes += other.bytes;
        self.duration_sum += other.duration_sum;
        self.duration_min = match (self.duration_min, other.duration_min) {
            (Some(left), Some(right)) => Some(left.min(right)),
            (left, right) => left.or(right),
        };
        self.duration_max = match (self.duration_max, other.duration_max) {
            (Some(left), Some(right)) => Some(left.max(right)),
            (left, right) => left.or(right),
        };
    }
}

/// Bytes and operations per I/O class, over POSIX and STDIO calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoTotals {
    /// Read calls.
    pub read_operations: u64,
    /// Bytes read.
    pub read_bytes: u64,
    /// Write calls.
    pub write_operations: u64,
    /// Bytes written.
    pub write_bytes: u64,
    /// Metadata calls (open, close, stat, seek, ...).
    pub metadata_operations: u64,
}

impl IoTotals {
    fn merge(&mut self, other: &IoTotals) {
        self.read_operations += other.read_operations;
        self.read_bytes += other.read_bytes;
        self.write_operations += other.write_operations;
        self.write_bytes += other.write_bytes;
        self.metadata_operations += other.metadata_operations;
    }
}

/// An exact set of strings, or the knowledge that there were too many to keep.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExactSet {
    /// The values (empty and meaningless when `overflow`).
    pub values: BTreeSet<String>,
    /// More than [`EXACT_LIMIT`] distinct values were seen.
    pub overflow: bool,
}

impl ExactSet {
    fn insert(&mut self, value: &str) {
        if self.overflow || self.values.contains(value) {
            return;
        }
        if self.values.len() >= EXACT_LIMIT {
            self.overflow = true;
            self.values.clear();
        } else {
            self.values.insert(value.to_string());
        }
    }

    fn merge(&mut self, other: &ExactSet) {
        if other.overflow {
            self.overflow = true;
            self.values.clear();
            return;
        }
        for value in &other.values {
            self.insert(value);
        }
    }
}

/// Everything the index knows about the events of one chunk (or a roll-up of chunks).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ChunkStats {
    /// Events by phase, and invalid lines.
    pub counts: PhaseCounts,
    /// Per (category, name): count, duration moments, bytes. Events without `cat` or `name` are
    /// keyed by an empty string.
    pub calls: BTreeMap<String, BTreeMap<String, CallStats>>,
    /// Number of (category, name) pairs in `calls`.
    pub call_pairs: usize,
    /// `calls` overflowed [`EXACT_LIMIT`]: it is incomplete and must not be used.
    pub calls_overflow: bool,
    /// Events carrying `name`; events carrying `cat`.
    pub with_name: u64,
    /// Events carrying `cat`.
    pub with_cat: u64,
    /// Events per pid.
    pub pids: BTreeMap<i64, u64>,
    /// `pids` overflowed.
    pub pids_overflow: bool,
    /// Ranges of `pid`, `tid`, `ts`, `dur`, `id`, `type`, and of `ts + dur`.
    pub pid: Range,
    /// `tid`.
    pub tid: Range,
    /// `ts`.
    pub ts: Range,
    /// `dur`.
    pub dur: Range,
    /// `id`.
    pub id: Range,
    /// `type`.
    pub kind: Range,
    /// `ts + dur` (the event's end).
    pub end: Range,
    /// Host values: `hhash` tokens and inline 2023 host names.
    pub hosts: ExactSet,
    /// Events carrying a host value.
    pub with_host: u64,
    /// Events carrying a file value (`fhash` or inline `fname`).
    pub with_file: u64,
    /// Events carrying `args`.
    pub with_args: u64,
    /// Bytes and operations per I/O class.
    pub io: IoTotals,
    /// Bloom filter over thread ids (decimal text); absent in roll-ups.
    pub tid_bloom: Option<Bloom>,
    /// Bloom filter over file values; absent in roll-ups.
    pub file_bloom: Option<Bloom>,
    /// File values of the chunk that the file's own FH table does not name (set when the file's
    /// index record is finished). `file ~ regex` prunes through the bloom filter only when this
    /// is 0: every token then resolves to a path the query's tables know.
    pub files_unresolved: u64,
    /// Inline file names (2023 traces), which a bloom filter cannot match against a regex.
    pub files_inline: u64,
}

impl ChunkStats {
    /// Merges another chunk's statistics into these (a roll-up: bloom filters are dropped).
    pub fn merge(&mut self, other: &ChunkStats) {
        self.counts.merge(&other.counts);
        if !self.calls_overflow {
            for (cat, names) in &other.calls {
                let mine = self.calls.entry(cat.clone()).or_default();
                for (name, stats) in names {
                    if let Some(existing) = mine.get_mut(name) {
                        existing.merge(stats);
                    } else {
                        mine.insert(name.clone(), *stats);
                        self.call_pairs += 1;
                    }
                }
            }
            if self.call_pairs > EXACT_LIMIT || other.calls_overflow {
                self.calls_overflow = true;
                self.calls.clear();
                self.call_pairs = 0;
            }
        }
        self.with_name += other.with_name;
        self.with_cat += other.with_cat;
        if !self.pids_overflow {
            for (pid, count) in &other.pids {
                *self.pids.entry(*pid).or_default() += count;
            }
            if self.pids.len() > EXACT_LIMIT || other.pids_overflow {
                self.pids_overflow = true;
                self.pids.clear();
            }
        }
        self.pid.merge(&other.pid);
        self.tid.merge(&other.tid);
        self.ts.merge(&other.ts);
        self.dur.merge(&other.dur);
        self.id.merge(&other.id);
        self.kind.merge(&other.kind);
        self.end.merge(&other.end);
        self.hosts.merge(&other.hosts);
        self.with_host += other.with_host;
        self.with_file += other.with_file;
        self.with_args += other.with_args;
        self.io.merge(&other.io);
        self.files_unresolved += other.files_unresolved;
        self.files_inline += other.files_inline;
        self.tid_bloom = None;
        self.file_bloom = None;
    }

    /// Number of valid events.
    pub fn events(&self) -> u64 {
        self.counts.events()
    }
}

/// The value of an argument as a non-negative byte count.
fn byte_count(value: Option<&RawValue<'_>>) -> Option<u64> {
    value.and_then(RawValue::as_i64).and_then(|value| u64::try_from(value).ok())
}

/// Fills [`ChunkStats`] (plus the thread and file values for the bloom filters, and the trace
/// metadata) from the events of one unit.
#[derive(Debug, Default)]
pub struct StatsFold {
    /// The statistics so far (bloom filters are built by [`StatsFold::finish`]).
    pub stats: ChunkStats,
    /// FH/HH/SH tables and process metadata seen in the unit.
    pub metadata: TraceMetadata,
    tids: BTreeSet<i64>,
    file_values: BTreeSet<String>,
}

impl StatsFold {
    /// Merges the fold of the next unit of the same chunk.
    pub fn merge(&mut self, other: StatsFold) {
        self.stats.merge(&other.stats);
        self.metadata.merge(other.metadata);
        self.tids.extend(other.tids);
        self.file_values.extend(other.file_values);
    }

    /// The chunk's statistics with their bloom filters, and its distinct file values (to count
    /// those the file's FH table leaves unresolved, once the whole file is read).
    pub fn finish(self) -> (ChunkStats, TraceMetadata, Vec<String>) {
        let mut stats = self.stats;
        let tids: Vec<String> = self.tids.iter().map(ToString::to_string).collect();
        stats.tid_bloom = Some(Bloom::from_values(tids.iter().map(String::as_bytes)));
        stats.file_bloom = Some(Bloom::from_values(self.file_values.iter().map(String::as_bytes)));
        (stats, self.metadata, self.file_values.into_iter().collect())
    }
}

impl Fold for StatsFold {
    fn event(&mut self, event: &Event<'_>) {
        if let Some(fields) = EventFields::from_event(event) {
            self.add(&fields);
        }
        if event.phase == Some(Phase::Metadata) {
            self.metadata.observe(event);
        }
    }

    fn decode(&self) -> Decode {
        Decode::Fields(Phases::ALL)
    }

    fn fields(&mut self, fields: &EventFields<'_>) {
        self.add(fields);
    }
}

impl StatsFold {
    /// Adds one event's fields to the statistics.
    fn add(&mut self, event: &EventFields<'_>) {
        let stats = &mut self.stats;
        stats.counts.add(event.phase);
        let name = event.name.unwrap_or_default();
        let cat = event.cat.unwrap_or_default();
        stats.with_name += u64::from(event.name.is_some());
        stats.with_cat += u64::from(event.cat.is_some());
        let bytes = event_bytes(event);
        if event.phase == Phase::Complete && matches!(cat, "POSIX" | "STDIO") {
            match ioscout_model::io_class(name) {
                ioscout_model::IoClass::Read => {
                    stats.io.read_operations += 1;
                    stats.io.read_bytes += bytes;
                }
                ioscout_model::IoClass::Write => {
                    stats.io.write_operations += 1;
                    stats.io.write_bytes += bytes;
                }
                ioscout_model::IoClass::Metadata => stats.io.metadata_operations += 1,
                ioscout_model::IoClass::Other => {}
            }
        }
        if !stats.calls_overflow {
            // Borrowed lookups: no allocation once a (category, name) pair is known.
            if let Some(call) = stats.calls.get_mut(cat).and_then(|names| names.get_mut(name)) {
                call.add(event.dur, bytes);
            } else if stats.call_pairs >= EXACT_LIMIT {
                stats.calls_overflow = true;
                stats.calls.clear();
                stats.call_pairs = 0;
            } else {
                stats
                    .calls
                    .entry(cat.to_string())
                    .or_default()
                    .entry(name.to_string())
                    .or_default()
                    .add(event.dur, bytes);
                stats.call_pairs += 1;
            }
        }
        if let Some(pid) = event.pid
            && !stats.pids_overflow
        {
            *stats.pids.entry(pid).or_default() += 1;
            if stats.pids.len() > EXACT_LIMIT {
                stats.pids_overflow = true;
                stats.pids.clear();
            }
        }
        stats.pid.add(event.pid);
        stats.tid.add(event.tid);
        stats.ts.add(event.ts);
        stats.dur.add(event.dur);
        stats.id.add(event.id);
        stats.kind.add(event.kind);
        stats.end.add(event.end());
        if let Some(tid) = event.tid {
            self.tids.insert(tid);
        }
        stats.with_args += u64::from(event.has_args);
        if let Some(host) = host_value(&event.args) {
            stats.with_host += 1;
            stats.hosts.insert(&host);
        }
        if let Some(file) = file_value(&event.args) {
            stats.with_file += 1;
            if !self.file_values.contains(file.as_ref()) {
                self.file_values.insert(file.into_owned());
            }
        }
    }
}

/// Bytes an event moved: for a POSIX/STDIO read or write call, `size_sum` (aggregated events)
/// if present, else the returned byte count; 0 for anything else. The index's statistics and
/// scanned aggregates (`sum:size`) both use this rule.
pub fn event_bytes(event: &EventFields<'_>) -> u64 {
    let cat = event.cat.unwrap_or_default();
    if !matches!(event.phase, Phase::Complete | Phase::Aggregated) || !matches!(cat, "POSIX" | "STDIO") {
        return 0;
    }
    match ioscout_model::io_class(event.name.unwrap_or_default()) {
        ioscout_model::IoClass::Read | ioscout_model::IoClass::Write => {
            byte_count(event.args.size_sum.as_ref())
                .or_else(|| byte_count(event.args.ret.as_ref()))
                .unwrap_or(0)
        }
        _ => 0,
    }
}

/// The raw host value of an event, as [`ioscout_read::resolve_host`] starts from it: the inline
/// `hostname` of 2023 traces, else the `hhash` token.
pub fn host_value<'a>(args: &'a KeyArgs<'_>) -> Option<Cow<'a, str>> {
    if let Some(RawValue::Str(name)) = &args.hostname {
        return Some(Cow::Owned(format!("={name}")));
    }
    token(args.hhash.as_ref()?)
}

/// The text of a hash token, borrowed when possible.
fn token<'a>(value: &'a RawValue<'_>) -> Option<Cow<'a, str>> {
    match value {
        RawValue::Str(text) => Some(Cow::Borrowed(text.as_ref())),
        RawValue::Number(text) => Some(Cow::Borrowed(text)),
        _ => None,
    }
}

/// The raw file value of an event: the inline `fname`, else the `fhash` token.
pub fn file_value<'a>(args: &'a KeyArgs<'_>) -> Option<Cow<'a, str>> {
    if let Some(RawValue::Str(name)) = &args.fname {
        return Some(Cow::Owned(format!("={name}")));
    }
    token(args.fhash.as_ref()?)
}
