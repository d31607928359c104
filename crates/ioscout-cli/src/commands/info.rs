//! `ioscout info`: per file the detected generation, compression, events, time span, processes,
//! hosts, files named and categories, and the totals for the whole input.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::ops::ControlFlow;
use std::process::ExitCode;

use ioscout_model::{Event, GenerationEvidence, Phase, PhaseCounts};
use ioscout_read::event::Args;
use ioscout_read::{FileSummary, Fold, TraceMetadata};
use serde::Serialize;

use crate::cli::InfoArguments;
use crate::common::{self, display_path, thousands};

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

#[derive(Serialize)]
struct InfoRecord {
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    generation: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    generations: Option<BTreeMap<&'static str, u64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    compression: Option<ioscout_read::Compression>,
    files: u64,
    gzip_members: u64,
    size_bytes: u64,
    uncompressed_bytes: u64,
    events: PhaseCounts,
    time_unit: String,
    first_ts: Option<i64>,
    last_end_ts: Option<i64>,
    span_seconds: Option<f64>,
    processes: usize,
    pids: Vec<i64>,
    hosts: Vec<String>,
    files_named: usize,
    categories: BTreeMap<String, u64>,
    /// Complete events without `args`: traced without `DFTRACER_INC_METADATA=1`, so their sizes,
    /// files and hosts are unknown.
    complete_without_args: u64,
    problem_count: u64,
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

#[derive(Serialize)]
struct InfoOutput<'a> {
    files: Vec<InfoRecord>,
    total: InfoRecord,
    problems: Vec<&'a ioscout_read::Problem>,
}

pub(crate) fn run(arguments: &InfoArguments) -> anyhow::Result<ExitCode> {
    if let Some(logs) = common::darshan_inputs(&arguments.input.paths)? {
        return crate::commands::darshan::describe(&logs, arguments.json, !arguments.input.strict);
    }
    let (files, input_problems) = common::discover(&arguments.input);
    let (scanner, bar) = common::scanner_with_progress(&arguments.input, &files, "reading");
    let mut per_file: Vec<InfoFold> = (0..files.len()).map(|_| InfoFold::default()).collect();
    let report = scanner.scan(
        &files,
        &input_problems,
        |_| InfoFold::default(),
        |index, fold, _| {
            per_file[index].merge(fold);
            ControlFlow::Continue(())
        },
    );
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
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
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    if arguments.json {
        let output = InfoOutput { files: records, total, problems: report.problems().collect() };
        serde_json::to_writer_pretty(&mut stdout, &output)?;
        writeln!(stdout)?;
    } else {
        for record in &records {
            write_record(&mut stdout, record)?;
        }
        write_record(&mut stdout, &total)?;
    }
    stdout.flush()?;
    drop(stdout);
    Ok(common::finish(&report, &arguments.input))
}

fn bytes(value: u64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut size = value as f64;
    let mut unit = 0;
    while size >= 1024.0 && unit + 1 < units.len() {
        size /= 1024.0;
        unit += 1;
    }
    if unit == 0 { format!("{value} B") } else { format!("{size:.1} {}", units[unit]) }
}

fn list(items: &[String], limit: usize) -> String {
    let mut text = items.iter().take(limit).cloned().collect::<Vec<_>>().join(", ");
    if items.len() > limit {
        text = format!("{text}, ... ({} more)", items.len() - limit);
    }
    text
}

fn write_record(out: &mut impl Write, record: &InfoRecord) -> std::io::Result<()> {
    match &record.path {
        Some(path) => writeln!(out, "{path}")?,
        None => writeln!(out, "total ({} files)", record.files)?,
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
        _ if record.gzip_members > 0 => format!("gzip, {} members", record.gzip_members),
        _ => "plain".to_string(),
    };
    writeln!(
        out,
        "  format      {format} ({storage}, {} on disk, {} decompressed)",
        bytes(record.size_bytes),
        bytes(record.uncompressed_bytes)
    )?;
    let events = &record.events;
    writeln!(
        out,
        "  events      {} complete, {} metadata, {} counter, {} aggregated, {} other, {} invalid",
        thousands(events.complete),
        thousands(events.metadata),
        thousands(events.counter),
        thousands(events.aggregated),
        thousands(events.other),
        thousands(events.invalid)
    )?;
    match (record.first_ts, record.span_seconds) {
        (Some(first), Some(span)) => {
            writeln!(out, "  time        {span:.6} s from ts {first} (unit {})", record.time_unit)?;
        }
        _ => writeln!(out, "  time        no complete events")?,
    }
    let pids: Vec<String> = record.pids.iter().map(ToString::to_string).collect();
    writeln!(out, "  processes   {} ({})", record.processes, list(&pids, 8))?;
    writeln!(out, "  hosts       {} ({})", record.hosts.len(), list(&record.hosts, 8))?;
    writeln!(out, "  files named {}", record.files_named)?;
    let mut categories: Vec<(&String, &u64)> = record.categories.iter().collect();
    categories.sort_by(|left, right| right.1.cmp(left.1).then(left.0.cmp(right.0)));
    let categories: Vec<String> =
        categories.iter().map(|(name, count)| format!("{name} {}", thousands(**count))).collect();
    writeln!(out, "  categories  {}", list(&categories, 12))?;
    if record.complete_without_args > 0 {
        writeln!(
            out,
            "  note        {} complete events carry no args (traced without DFTRACER_INC_METADATA=1): their sizes, files and hosts are unknown",
            thousands(record.complete_without_args)
        )?;
    }
    writeln!(out)
}
