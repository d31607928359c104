//! What `ioscout info` says of trace files: per file and in total the format generation,
//! compression and gzip members, events by phase, time span, processes, hosts, files named and
//! categories, from one fold over their events ([`InfoFold`]) and their scan summaries.

use std::collections::{BTreeMap, BTreeSet};

use ioscout_model::{Event, GenerationEvidence, Phase, PhaseCounts};
use serde::Serialize;

use crate::event::Args;
use crate::{FileSummary, Fold, TraceMetadata};

/// What `info` gathers from events: categories of complete events, processes, the first start
/// and last end, complete events without `args`, and the metadata tables (hosts, files).
#[derive(Debug, Default)]
pub struct InfoFold {
    categories: BTreeMap<String, u64>,
    pids: BTreeSet<i64>,
    first_ts: Option<i64>,
    last_end: Option<i64>,
    without_args: u64,
    metadata: TraceMetadata,
}

impl Fold for InfoFold {
    fn event(&mut self, event: &Event<'_>) {
        match event.phase {
            Some(Phase::Complete) => {
                if let Some(category) = &event.cat {
                    if let Some(count) = self.categories.get_mut(category.as_ref()) {
                        *count += 1;
                    } else {
                        self.categories.insert(category.to_string(), 1);
                    }
                }
                if let Some(pid) = event.pid {
                    self.pids.insert(pid);
                }
                if event.args.is_none() {
                    self.without_args += 1;
                }
                if let Some(ts) = event.ts {
                    self.first_ts = Some(self.first_ts.map_or(ts, |first| first.min(ts)));
                }
                if let Some(end) = event.end() {
                    self.last_end = Some(self.last_end.map_or(end, |last| last.max(end)));
                }
                if event.evidence.has(GenerationEvidence::STRING_NUMBERS)
                    && let Some(ioscout_model::RawValue::Str(host)) = Args::of(event).get("hostname")
                    && !self.metadata.inline_hosts.contains(host.as_ref())
                {
                    self.metadata.inline_hosts.insert(host.to_string());
                }
            }
            Some(Phase::Metadata) => self.metadata.observe(event),
            _ => {}
        }
    }
}

impl InfoFold {
    /// `other`'s events added to these.
    pub fn merge(&mut self, other: InfoFold) {
        for (category, count) in other.categories {
            *self.categories.entry(category).or_default() += count;
        }
        self.pids.extend(other.pids);
        self.without_args += other.without_args;
        self.first_ts = min_option(self.first_ts, other.first_ts);
        self.last_end = match (self.last_end, other.last_end) {
            (Some(left), Some(right)) => Some(left.max(right)),
            (left, right) => left.or(right),
        };
        self.metadata.merge(other.metadata);
    }
}

fn min_option(left: Option<i64>, right: Option<i64>) -> Option<i64> {
    match (left, right) {
        (Some(left), Some(right)) => Some(left.min(right)),
        (left, right) => left.or(right),
    }
}

/// What `info` says of one trace file, or of all of them (the total).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct InfoRecord {
    /// The file (absent from the total).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The format generation detected (a file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generation: Option<&'static str>,
    /// Files per format generation (the total).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generations: Option<BTreeMap<&'static str, u64>>,
    /// How the file is stored (a file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compression: Option<crate::Compression>,
    /// Files described.
    pub files: u64,
    /// Gzip members.
    pub gzip_members: u64,
    /// Bytes on disk.
    pub size_bytes: u64,
    /// Bytes decompressed.
    pub uncompressed_bytes: u64,
    /// Events by phase.
    pub events: PhaseCounts,
    /// The unit of the timestamps.
    pub time_unit: String,
    /// The first complete event's timestamp.
    pub first_ts: Option<i64>,
    /// The last complete event's end.
    pub last_end_ts: Option<i64>,
    /// Seconds from the first start to the last end.
    pub span_seconds: Option<f64>,
    /// Processes.
    pub processes: usize,
    /// Their ids.
    pub pids: Vec<i64>,
    /// Hosts named.
    pub hosts: Vec<String>,
    /// Files named in the metadata.
    pub files_named: usize,
    /// Events per category.
    pub categories: BTreeMap<String, u64>,
    /// Complete events without `args`: traced without `DFTRACER_INC_METADATA=1`, so their sizes,
    /// files and hosts are unknown.
    pub complete_without_args: u64,
    /// Problems counted.
    pub problem_count: u64,
}

fn unit_per_second(unit: &str) -> f64 {
    match unit.to_ascii_uppercase().as_str() {
        "NS" => 1e9,
        "MS" => 1e3,
        "SEC" | "S" => 1.0,
        _ => 1e6,
    }
}

impl InfoRecord {
    /// The record of the files of `summaries` whose events `fold` gathered; `path` names a single
    /// file (`None` for the total).
    pub fn of(fold: &InfoFold, summaries: &[&FileSummary], path: Option<String>) -> InfoRecord {
        let mut events = PhaseCounts::default();
        let mut generations = BTreeMap::new();
        for summary in summaries {
            events.merge(&summary.counts);
            *generations.entry(summary.evidence.generation().label()).or_insert(0u64) += 1;
        }
        let time_unit = fold.metadata.time_metric.clone().unwrap_or_else(|| "US".to_string());
        let span_seconds = match (fold.first_ts, fold.last_end) {
            (Some(first), Some(last)) => Some((last - first) as f64 / unit_per_second(&time_unit)),
            _ => None,
        };
        let mut hosts: BTreeSet<String> = fold.metadata.tables.hosts.values().cloned().collect();
        hosts.extend(fold.metadata.inline_hosts.iter().cloned());
        let single = summaries.len() == 1 && path.is_some();
        InfoRecord {
            generation: single.then(|| summaries[0].evidence.generation().label()),
            generations: (!single).then_some(generations),
            compression: single.then(|| summaries[0].compression),
            path,
            files: summaries.len() as u64,
            gzip_members: summaries.iter().map(|summary| summary.members).sum(),
            size_bytes: summaries.iter().map(|summary| summary.size).sum(),
            uncompressed_bytes: summaries.iter().map(|summary| summary.uncompressed_bytes).sum(),
            events,
            time_unit,
            first_ts: fold.first_ts,
            last_end_ts: fold.last_end,
            span_seconds,
            processes: fold.pids.len(),
            pids: fold.pids.iter().copied().collect(),
            hosts: hosts.into_iter().collect(),
            files_named: fold.metadata.tables.files.len(),
            categories: fold.categories.clone(),
            complete_without_args: fold.without_args,
            problem_count: summaries.iter().map(|summary| summary.problem_count).sum(),
        }
    }
}
