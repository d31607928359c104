//! Trace metadata (`ioscout info`, the MCP tool `reader`): per file the detected generation, compression, events, time span, processes,
//! hosts, files named and categories, and the totals for the whole input.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::ops::ControlFlow;

use ioscout_model::{Event, GenerationEvidence, Phase, PhaseCounts};
use ioscout_read::event::Args;
use ioscout_read::{FileSummary, Fold, TraceMetadata};
use serde::Serialize;

use crate::text::{bytes, display_path, thousands};
use crate::{Input, Outcome, Result};

/// What `info` gathers from events.
#[derive(Debug, Default)]
struct InfoFold {
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
    fn merge(&mut self, other: InfoFold) {
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
#[derive(Serialize, schemars::JsonSchema)]
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
    pub compression: Option<ioscout_read::Compression>,
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

fn record(fold: &InfoFold, summaries: &[&FileSummary], path: Option<String>) -> InfoRecord {
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

/// What `info` says of a set of traces (`{"files": [...], "total": {...}, "problems": [...]}`).
#[derive(Serialize, schemars::JsonSchema)]
pub struct InfoOutput<'a> {
    /// Each file.
    pub files: Vec<InfoRecord>,
    /// All of them.
    pub total: InfoRecord,
    /// The problems kept (file, line, byte offset).
    pub problems: Vec<&'a ioscout_read::Problem>,
}

/// Describes each trace file of `input` and the whole (`{"files": [...], "total": {...},
/// "problems": [...]}`); Darshan logs get their summaries ([`crate::darshan::summaries`]).
pub fn info(input: &Input) -> Result<Outcome> {
    if let Some(logs) = crate::darshan_inputs(&input.paths)? {
        return crate::darshan::summaries(&logs, !input.strict);
    }
    let (files, input_problems) = input.discover()?;
    let mut per_file: Vec<InfoFold> = (0..files.len()).map(|_| InfoFold::default()).collect();
    let report = input.scanner().scan(
        &files,
        &input_problems,
        |_| InfoFold::default(),
        |index, fold, _| {
            per_file[index].merge(fold);
            ControlFlow::Continue(())
        },
    );
    let skipped = input_problems.len();
    let mut records = Vec::new();
    let mut total = InfoFold::default();
    let mut all = Vec::new();
    for (index, fold) in per_file.into_iter().enumerate() {
        let summary = &report.files[skipped + index];
        records.push(record(&fold, &[summary], Some(display_path(&summary.path))));
        total.merge(fold);
        all.push(summary);
    }
    let total = record(&total, &all, None);
    let mut text = String::new();
    for record in &records {
        write_record(&mut text, record);
    }
    write_record(&mut text, &total);
    let result = InfoOutput { files: records, total, problems: report.problems().collect() };
    let outcome = Outcome::typed(&result, text);
    Ok(Outcome { report: Some(report), ..outcome })
}

fn list(items: &[String], limit: usize) -> String {
    let mut text = items.iter().take(limit).cloned().collect::<Vec<_>>().join(", ");
    if items.len() > limit {
        text = format!("{text}, ... ({} more)", items.len() - limit);
    }
    text
}

fn write_record(out: &mut String, record: &InfoRecord) {
    match &record.path {
        Some(path) => {
            let _ = writeln!(out, "{path}");
        }
        None => {
            let _ = writeln!(out, "total ({})", crate::text::count_of(record.files, "file", "files"));
        }
    }
    let format = match (&record.generation, &record.generations) {
        (Some(generation), _) => (*generation).to_string(),
        (None, Some(generations)) => {
            generations.iter().map(|(name, count)| format!("{name} x{count}")).collect::<Vec<_>>().join(", ")
        }
        _ => "unknown".to_string(),
    };
    let storage = match record.compression {
        Some(ioscout_read::Compression::None) => "plain".to_string(),
        _ if record.gzip_members > 0 => {
            format!("gzip, {}", crate::text::count_of(record.gzip_members, "member", "members"))
        }
        _ => "plain".to_string(),
    };
    let _ = writeln!(
        out,
        "  format      {format} ({storage}, {} on disk, {} decompressed)",
        bytes(record.size_bytes),
        bytes(record.uncompressed_bytes)
    );
    let events = &record.events;
    let _ = writeln!(
        out,
        "  events      {} complete, {} metadata, {} counter, {} aggregated, {} other, {} invalid",
        thousands(events.complete),
        thousands(events.metadata),
        thousands(events.counter),
        thousands(events.aggregated),
        thousands(events.other),
        thousands(events.invalid)
    );
    match (record.first_ts, record.span_seconds) {
        (Some(first), Some(span)) => {
            let _ = writeln!(out, "  time        {span:.6} s from ts {first} (unit {})", record.time_unit);
        }
        _ => {
            let _ = writeln!(out, "  time        no complete events");
        }
    }
    let pids: Vec<String> = record.pids.iter().map(ToString::to_string).collect();
    let _ = writeln!(out, "  processes   {} ({})", record.processes, list(&pids, 8));
    let _ = writeln!(out, "  hosts       {} ({})", record.hosts.len(), list(&record.hosts, 8));
    let _ = writeln!(out, "  files named {}", record.files_named);
    let mut categories: Vec<(&String, &u64)> = record.categories.iter().collect();
    categories.sort_by(|left, right| right.1.cmp(left.1).then(left.0.cmp(right.0)));
    let categories: Vec<String> =
        categories.iter().map(|(name, count)| format!("{name} {}", thousands(**count))).collect();
    let _ = writeln!(out, "  categories  {}", list(&categories, 12));
    if record.complete_without_args > 0 {
        let _ = writeln!(
            out,
            "  note        {} complete events carry no args (traced without DFTRACER_INC_METADATA=1): their sizes, files and hosts are unknown",
            thousands(record.complete_without_args)
        );
    }
    out.push('\n');
}
