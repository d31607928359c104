//! The HTML report (`ioscout report`): the analysis, the derived records, the diagnosis and the
//! advice of the inputs, with the per-process timeline, the bytes by directory and the
//! drill-down gathered by a fold that rides on the analysis' second pass (a pass of its own in a
//! job of several ranks); the page itself is drawn by [`ioscout_render::html`].

use std::collections::{BTreeMap, HashMap};
use std::ops::ControlFlow;

use ioscout_analysis::prepass::host_token;
use ioscout_analysis::row::PairMemo;
use ioscout_analysis::{Analysis, AnalysisOptions, OverlapMode, ViewType};
use ioscout_model::{Event, HashTables, Phase, RawValue};
use ioscout_read::fields::{EventFields, KeyArgs};
use ioscout_read::{Decode, Fold, Phases, ProcessKey};
use ioscout_render::darshan_page::DetectedPatterns;
use ioscout_render::drill::Bins;
use ioscout_render::html::{Activity, Page};
use rustc_hash::FxHashMap;

use crate::{Input, Result};

/// What to report on. Also the parameters of the MCP `report` tool (beside its paths).
#[derive(Clone, Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct ReportRequest {
    /// Layer preset: auto, posix, dlio, dlio-prev, generic.
    pub preset: ioscout_analysis::PresetName,
    /// Most processes shown in the timeline and the heatmap.
    pub max_processes: usize,
}

impl Default for ReportRequest {
    fn default() -> Self {
        ReportRequest { preset: ioscout_analysis::PresetName::Auto, max_processes: 32 }
    }
}

/// A report.
#[derive(Debug)]
pub struct HtmlReport {
    /// The page.
    pub html: String,
    /// Charts drawn.
    pub charts: usize,
    /// Findings listed.
    pub findings: usize,
    /// The scan's report.
    pub scan: ioscout_read::ScanReport,
}

/// Bins of the timeline at most (wider bins beyond).
const TIMELINE_BINS: usize = 200;

/// Bins of the drill-down's time charts over the job.
const DRILL_BINS: usize = 600;

/// Calls of the offsets view kept uniformly, and the slowest kept besides.
const SAMPLE_UNIFORM: usize = 30_000;
/// See [`SAMPLE_UNIFORM`].
const SAMPLE_SLOWEST: usize = 10_000;

/// Per process and time bin, compute and I/O seconds; per directory and process, bytes; per
/// process the drill-down's finer bins; the events of the call tree.
struct ReportFold<'t> {
    tables: &'t HashTables,
    first_ts: i64,
    bin_us: f64,
    bins: usize,
    /// The number of each process (host number, pid) met, and the last one found (a unit's
    /// events come in runs of one process).
    processes: FxHashMap<(u32, i64), u32>,
    last_process: Option<((u32, i64), u32)>,
    /// Compute and I/O seconds per time bin, by process number.
    busy: Vec<Vec<(f64, f64)>>,
    /// Bytes by (directory, process), the directories numbered by `directories`.
    bytes: FxHashMap<(u32, (u32, i64)), u64>,
    directories: Directories,
    drill_bin_us: f64,
    /// The drill-down's bins, by process number.
    drill: Vec<Bins>,
    /// Host tokens met, numbered in the keys above.
    hosts: Vec<String>,
    last_host: Option<u32>,
    /// Every complete event by thread, for the call tree (when `nest`: a Darshan log's segments
    /// do not nest).
    nested: ioscout_analysis::calltree::UnitEvents,
    nest: bool,
    /// What the page makes of each (category, name) pair met, found once per pair.
    facts: PairMemo<RowFacts>,
}

/// What the page makes of the rows of one (category, name) pair.
#[derive(Clone, Copy, Debug)]
struct RowFacts {
    /// The name's number in the call tree, when the fold nests rows and the row is not
    /// DFTracer's own.
    nested_name: Option<u32>,
    /// A POSIX or STDIO call.
    io: bool,
    /// Compute ([`is_compute`]).
    compute: bool,
    /// The call's kind, for the evidence's modules.
    kind: Option<ioscout_evidence::op::OpKind>,
    /// A read or a write by name (its size counts in the bytes by directory).
    sized: bool,
}

/// The directories of the files a unit's reads and writes name, numbered, each file's found once.
#[derive(Debug, Default)]
struct Directories {
    /// The directories, by number.
    names: Vec<String>,
    numbers: FxHashMap<String, u32>,
    /// Directory numbers by inline `fname`, and by `fhash` token.
    by_name: FxHashMap<Box<str>, u32>,
    by_hash: FxHashMap<Box<str>, u32>,
    /// The directory of events that name no file.
    unknown: Option<u32>,
    /// The file named last (inline or not, its text) and its directory's number: a process's
    /// reads and writes come in runs on one file.
    last: Option<(bool, String, u32)>,
}

impl Directories {
    /// The number of the directory of the file `args` name (`fname`, else `fhash` named by
    /// `tables`, else `(unknown file)`).
    fn of(&mut self, args: &KeyArgs<'_>, tables: &HashTables) -> u32 {
        let (text, inline) = match (&args.fname, &args.fhash) {
            (Some(RawValue::Str(name)), _) => (Some(name.as_ref()), true),
            (_, Some(RawValue::Str(token))) => (Some(token.as_ref()), false),
            (_, Some(RawValue::Number(token))) => (Some(*token), false),
            _ => (None, false),
        };
        if let (Some(text), Some((last_inline, last_text, number))) = (text, &self.last)
            && *last_inline == inline
            && last_text == text
        {
            return *number;
        }
        let known = match text {
            Some(text) if inline => self.by_name.get(text),
            Some(text) => self.by_hash.get(text),
            None => self.unknown.as_ref(),
        };
        if let Some(&number) = known {
            self.remember(text, inline, number);
            return number;
        }
        let file = ioscout_read::resolve_file_of_keys(args, tables)
            .map_or_else(|| "(unknown file)".into(), std::borrow::Cow::into_owned);
        let directory = std::path::Path::new(&file)
            .parent()
            .map_or_else(|| file.clone(), |parent| parent.display().to_string());
        let next = self.names.len() as u32;
        let number = *self.numbers.entry(directory).or_insert_with_key(|directory| {
            self.names.push(directory.clone());
            next
        });
        match text {
            Some(text) if inline => self.by_name.insert(text.into(), number),
            Some(text) => self.by_hash.insert(text.into(), number),
            None => self.unknown.replace(number),
        };
        self.remember(text, inline, number);
        number
    }

    /// Keeps `text`'s directory at hand for the next call (events that name no file are not
    /// kept: they are looked up).
    fn remember(&mut self, text: Option<&str>, inline: bool, number: u32) {
        let Some(text) = text else { return };
        let (last_inline, last_text, last_number) =
            self.last.get_or_insert_with(|| (inline, String::new(), 0));
        *last_inline = inline;
        last_text.clear();
        last_text.push_str(text);
        *last_number = number;
    }
}

fn is_io(category: &str) -> bool {
    let head = category.as_bytes().get(..5).unwrap_or_default();
    head.eq_ignore_ascii_case(b"posix") || head.eq_ignore_ascii_case(b"stdio")
}

fn is_compute(category: &str, name: &str) -> bool {
    category.eq_ignore_ascii_case("compute") || name.ends_with(".compute") || name == "compute"
}

/// Spreads the `duration` µs from `start` µs (from the origin) over bins of `bin_us`, calling
/// `add(bin, seconds)` for each part.
fn spread(start: f64, duration: f64, bin_us: f64, bins: usize, mut add: impl FnMut(usize, f64)) {
    let mut start = start.max(0.0);
    let end = start + duration.max(0.0);
    while start < end {
        let bin = ((start / bin_us) as usize).min(bins - 1);
        let bin_end = ((bin + 1) as f64 * bin_us).max(start + 1.0);
        add(bin, (end.min(bin_end) - start) / 1e6);
        if bin == bins - 1 {
            break;
        }
        start = bin_end;
    }
}

impl ReportFold<'_> {
    /// The number of `token` among the hosts met.
    fn host(&mut self, token: &str) -> u32 {
        if let Some(last) = self.last_host
            && self.hosts[last as usize] == token
        {
            return last;
        }
        let number = self.hosts.iter().position(|host| host == token).unwrap_or_else(|| {
            self.hosts.push(token.to_string());
            self.hosts.len() - 1
        }) as u32;
        self.last_host = Some(number);
        number
    }

    /// The number of `process`, its time bins and drill-down bins made when it is new.
    fn process(&mut self, process: (u32, i64)) -> u32 {
        if let Some((last, number)) = self.last_process
            && last == process
        {
            return number;
        }
        let next = self.busy.len() as u32;
        let number = *self.processes.entry(process).or_insert(next);
        if number == next {
            self.busy.push(vec![(0.0, 0.0); self.bins]);
            self.drill.push(Bins::new(DRILL_BINS));
        }
        self.last_process = Some((process, number));
        number
    }
}

impl Fold for ReportFold<'_> {
    fn event(&mut self, event: &Event<'_>) {
        if let Some(fields) = EventFields::from_event(event) {
            self.complete(&fields);
        }
    }

    fn decode(&self) -> Decode {
        Decode::Fields(Phases::of(&[Phase::Complete]))
    }

    fn fields(&mut self, fields: &EventFields<'_>) {
        self.complete(fields);
    }
}

impl ReportFold<'_> {
    /// Adds what one complete event says (any other is left out).
    fn complete(&mut self, event: &EventFields<'_>) {
        if event.phase != Phase::Complete {
            return;
        }
        let (Some(pid), Some(ts), Some(dur)) = (event.pid, event.ts, event.dur) else { return };
        let category = event.cat.unwrap_or("");
        let name = event.name.unwrap_or("");
        let facts = if let Some(entry) = self.facts.find(category.as_bytes(), name.as_bytes()) {
            *self.facts.value_mut(entry)
        } else {
            let facts = RowFacts {
                nested_name: (self.nest && !category.eq_ignore_ascii_case("dftracer"))
                    .then(|| self.nested.names.number(name)),
                io: is_io(category),
                compute: is_compute(category, name),
                kind: ioscout_evidence::op::OpKind::of(category, name),
                sized: name.contains("read") || name.contains("write"),
            };
            self.facts.add(category.as_bytes(), name.as_bytes(), facts);
            facts
        };
        if let Some(name) = facts.nested_name {
            self.nested.add(pid, event.tid.unwrap_or(0), ts, dur, name);
        }
        let io = facts.io;
        if !io && !facts.compute {
            return;
        }
        let offset = (ts - self.first_ts).max(0) as f64;
        let process = (self.host(host_token(&event.args).unwrap_or_default()), pid);
        let number = self.process(process) as usize;
        let cells = &mut self.busy[number];
        spread(offset, dur as f64, self.bin_us, self.bins, |bin, seconds| {
            if io {
                cells[bin].1 += seconds;
            } else {
                cells[bin].0 += seconds;
            }
        });
        let fine = &mut self.drill[number];
        spread(offset, dur as f64, self.drill_bin_us, DRILL_BINS, |bin, seconds| {
            if io {
                fine.io_s[bin] += seconds;
            } else {
                fine.compute_s[bin] += seconds;
            }
        });
        if !io {
            return;
        }
        let kind = facts.kind;
        let is_posix = kind.is_some_and(|kind| !kind.is_stdio());
        let bin = ((offset / self.drill_bin_us) as usize).min(DRILL_BINS - 1);
        let size = if facts.sized {
            let args = &event.args;
            let size = [&args.ret, &args.size, &args.size_sum]
                .into_iter()
                .find_map(|value| value.as_ref().and_then(RawValue::as_i64))
                .filter(|size| *size > 0);
            if let Some(size) = size {
                let directory = self.directories.of(args, self.tables);
                *self.bytes.entry((directory, process)).or_default() += size as u64;
            }
            size
        } else {
            None
        };
        if is_posix {
            match kind {
                Some(ioscout_evidence::op::OpKind::PosixRead) => {
                    fine.read_ops[bin] += 1.0;
                    fine.read_bytes[bin] += size.unwrap_or(0) as f64;
                }
                Some(ioscout_evidence::op::OpKind::PosixWrite) => {
                    fine.write_ops[bin] += 1.0;
                    fine.write_bytes[bin] += size.unwrap_or(0) as f64;
                }
                _ => fine.metadata_ops[bin] += 1.0,
            }
        }
    }
}

/// What a page lists of a run's `measurements`: the findings at low or above (the learned
/// detector's included; the measurements carry the diagnosis, so the rules run once) and the
/// advice.
fn findings_and_advice(
    mut measurements: ioscout_advise::Measurements,
) -> Result<(Vec<ioscout_diagnose::Finding>, ioscout_advise::Advice, Option<DetectedPatterns>)> {
    let catalog = ioscout_advise::Catalog::bundled()?;
    let model = crate::detect::load(None)?;
    measurements.detect(&model);
    // Only Darshan counters (a log's) give the detector something to read.
    let patterns = measurements.detection.as_ref().map(|detection| DetectedPatterns {
        model: detection.model.clone(),
        decisions: detection.decisions.clone(),
        features: detection.features.clone(),
        cards: detection
            .detected()
            .map(|decision| ioscout_detect::Card::of(decision.pattern, &model))
            .collect(),
    });
    let findings = crate::diagnose::select(measurements.findings.clone(), ioscout_diagnose::Label::Low, None);
    let filesystem = ioscout_advise::filesystem::detect(&measurements.file_weights, None);
    let advice = ioscout_advise::advise(&catalog, measurements, filesystem, &ioscout_advise::Measured::new());
    Ok((findings, advice, patterns))
}

/// Builds the report of `input`.
pub fn report(input: &Input, request: &ReportRequest) -> Result<HtmlReport> {
    let options = AnalysisOptions {
        preset: request.preset,
        views: vec![ViewType::TimeRange],
        file_totals: true,
        overlap: OverlapMode::Exact,
        ..AnalysisOptions::default()
    };
    let replay = ioscout_evidence::Replay::sampling(SAMPLE_UNIFORM, SAMPLE_SLOWEST);
    let Passes { analysis, scan, file_count, derived, activity, fine } = if input.cluster.is_some() {
        // A job of several ranks analyses apart from the page's pass.
        let (analysis, scan, file_count, derived) = crate::analyze::run_with_replay(input, &options, replay)?;
        let (activity, fine) = activity(input, &analysis)?;
        Passes { analysis, scan, file_count, derived, activity, fine }
    } else {
        one_pass(input, &options, replay)?
    };
    let (processes, rank_zero) = drill_processes(&fine, &derived, request.max_processes);
    let rank_zero_absent = rank_zero.is_none().then(|| rank_zero_absence(&fine, &derived));
    let mut total = Bins::new(DRILL_BINS);
    for bins in fine.by_process.values() {
        total.add(bins);
    }
    let mut drill = ioscout_render::drill::Drill {
        job_s: (analysis.raw.last_end - analysis.raw.first_ts).max(1) as f64 / 1e6,
        origin: "the first event",
        by_rank: false,
        bin_s: fine.bin_us / 1e6,
        first_ts_us: analysis.raw.first_ts,
        total,
        process_count: fine.by_process.len(),
        processes,
        rank_zero,
        rank_zero_absent,
        accesses: derived.accesses.as_ref(),
        tree: &fine.tree,
        data: None,
    };
    // The drill-down's data, the page's largest part, is written while the findings are made.
    let (found, data) = std::thread::scope(|scope| {
        let writer = scope.spawn(|| ioscout_render::drill::data_json(&drill));
        let found = findings_and_advice(ioscout_advise::Measurements::from_analysis(
            &analysis,
            ioscout_diagnose::Parameters::default(),
            Some(&derived),
        ));
        (found, writer.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    });
    drill.data = Some(data);
    let (findings, advice, _) = found?;
    let metric = ioscout_diagnose::choose_metric(&findings);

    // A run still being written says so at the top of the page.
    let coverage = scan.coverage(std::time::SystemTime::now(), ioscout_read::SETTLE);
    let still_written = (!coverage.growing.is_empty()).then(|| {
        format!(
            "{} of {} files were still being written when read (changed in the last {} s, grown, or ending in an unfinished gzip member): this report covers what they held then{}.",
            coverage.growing.len(),
            coverage.files,
            ioscout_read::SETTLE.as_secs(),
            crate::coverage_detail(&coverage)
        )
    });
    let (html, charts) = ioscout_render::html::page(Page {
        described: &input.describe(),
        still_written: still_written.as_deref(),
        file_count,
        analysis: &analysis,
        derived: &derived,
        findings: &findings,
        metric: &metric,
        advice: &advice,
        activity,
        max_processes: request.max_processes,
        drill: Some(drill),
    });
    Ok(HtmlReport { html, charts, findings: findings.len(), scan })
}

/// What the passes over a trace give the page.
struct Passes {
    analysis: Analysis,
    scan: ioscout_read::ScanReport,
    file_count: usize,
    derived: ioscout_evidence::Derived,
    activity: Activity,
    fine: Fine,
}

/// The analysis, the derived records and the page's timeline, heatmap and drill-down, from one
/// second pass: the page's fold rides on the analysis' pass, built from what its first pass
/// learnt (the time origin and end, the hash tables).
fn one_pass(input: &Input, options: &AnalysisOptions, replay: ioscout_evidence::Replay) -> Result<Passes> {
    let (files, problems) = input.discover()?;
    if files.is_empty() {
        return Err(input.no_traces(&problems));
    }
    let scanner = crate::evidence::scanner(input);
    let planned = ioscout_analysis::plan(&scanner, &files, options)?;
    let prepared = planned.prepared();
    let shape = Shape::of(prepared.first_ts, prepared.last_end);
    let mut gather = Gather::new(shape.bins);
    let (analysis, scan, derived) = crate::analyze::second_pass_with_replay(
        input,
        &scanner,
        (&files, &problems),
        &planned,
        replay,
        |_| shape.fold(&prepared.tables),
        |file, fold, _| gather.absorb(file, fold, &prepared.tables),
    );
    if analysis.raw.total_event_count == 0 {
        return Err(input.no_events(files.len(), &scan));
    }
    let (activity, fine) = gather.finish(&shape);
    Ok(Passes { analysis, scan, file_count: files.len(), derived, activity, fine })
}

/// What the drill-down's pass adds to the timeline and heatmap data.
struct Fine {
    bin_us: f64,
    /// In key order: sums over the processes add them in the same order every run.
    by_process: BTreeMap<ProcessKey, Bins>,
    tree: ioscout_analysis::calltree::CallTree,
}

/// The time origin and the bins of the page's charts of a trace.
struct Shape {
    first_ts: i64,
    bins: usize,
    bin_us: f64,
    drill_bin_us: f64,
}

impl Shape {
    /// The charts of a trace whose events start at `first_ts` and end by `last_end` (µs).
    fn of(first_ts: i64, last_end: i64) -> Shape {
        Shape::spanning(first_ts, (last_end - first_ts).max(1) as f64)
    }

    /// The charts of a job of `job_us` µs (at least 1) from `first_ts`.
    fn spanning(first_ts: i64, job_us: f64) -> Shape {
        // The timeline's bins are its own (not the analysis' time granularity, which leaves a
        // job of a few seconds with a few bins), at least a microsecond wide.
        let bins = TIMELINE_BINS.min(job_us.ceil() as usize).max(1);
        Shape { first_ts, bins, bin_us: job_us / bins as f64, drill_bin_us: job_us / DRILL_BINS as f64 }
    }

    /// An empty fold of one unit, naming files by `tables`.
    fn fold<'t>(&self, tables: &'t HashTables) -> ReportFold<'t> {
        ReportFold {
            tables,
            first_ts: self.first_ts,
            bin_us: self.bin_us,
            bins: self.bins,
            processes: FxHashMap::default(),
            last_process: None,
            busy: Vec::new(),
            bytes: FxHashMap::default(),
            directories: Directories::default(),
            drill_bin_us: self.drill_bin_us,
            drill: Vec::new(),
            hosts: Vec::new(),
            last_host: None,
            nested: ioscout_analysis::calltree::UnitEvents::default(),
            nest: true,
            facts: PairMemo::default(),
        }
    }
}

/// The page's sums over the units, taken in file order.
struct Gather {
    bins: usize,
    busy: HashMap<ProcessKey, Vec<(f64, f64)>>,
    bytes: HashMap<(String, ProcessKey), u64>,
    by_process: BTreeMap<ProcessKey, Bins>,
    tree: ioscout_analysis::calltree::CallTreeBuilder,
    last_file: Option<usize>,
}

impl Gather {
    fn new(bins: usize) -> Gather {
        Gather {
            bins,
            busy: HashMap::new(),
            bytes: HashMap::new(),
            by_process: BTreeMap::new(),
            tree: ioscout_analysis::calltree::CallTreeBuilder::default(),
            last_file: None,
        }
    }

    /// Adds the fold of a unit of file `file`, its hosts named by `tables`.
    fn absorb(&mut self, file: usize, mut fold: ReportFold<'_>, tables: &HashTables) {
        let nested = std::mem::take(&mut fold.nested);
        absorb(&fold, tables, self.bins, &mut self.busy, &mut self.bytes, &mut self.by_process);
        // Units come in file order: a file's threads are walked once its last unit is in.
        if self.last_file.is_some_and(|last| last != file) {
            self.tree.flush();
        }
        self.last_file = Some(file);
        self.tree.absorb(nested);
    }

    fn finish(self, shape: &Shape) -> (Activity, Fine) {
        let activity = Activity {
            busy: self.busy,
            bytes: self.bytes,
            bin_us: shape.bin_us,
            origin: "the first event",
            by_rank: false,
        };
        (activity, Fine { bin_us: shape.drill_bin_us, by_process: self.by_process, tree: self.tree.finish() })
    }
}

/// The timeline, heatmap and drill-down pass of its own (for a job of several ranks, whose
/// analysis is shared among them).
fn activity(input: &Input, analysis: &Analysis) -> Result<(Activity, Fine)> {
    let (files, problems) = input.discover()?;
    let scanner = input.scanner();
    let metadata = scanner.metadata(&files);
    let shape = Shape::of(analysis.raw.first_ts, analysis.raw.last_end);
    let mut gather = Gather::new(shape.bins);
    scanner.scan(
        &files,
        &problems,
        |_| shape.fold(&metadata.tables),
        |file, fold, _| {
            gather.absorb(file, fold, &metadata.tables);
            ControlFlow::Continue(())
        },
    );
    Ok(gather.finish(&shape))
}

/// Adds what one fold gathered to the page's per-process sums, its hosts named by `tables`.
fn absorb(
    fold: &ReportFold<'_>,
    tables: &HashTables,
    bins: usize,
    busy: &mut HashMap<ProcessKey, Vec<(f64, f64)>>,
    bytes: &mut HashMap<(String, ProcessKey), u64>,
    by_process: &mut BTreeMap<ProcessKey, Bins>,
) {
    let key =
        |(host, pid): (u32, i64)| ProcessKey { host: host_name(tables, &fold.hosts[host as usize]), pid };
    // In the order of the process table (the order a table of the cells, keyed the same way and
    // filled in the same order, would give).
    for (process, number) in &fold.processes {
        let cells = &fold.busy[*number as usize];
        let mine = busy.entry(key(*process)).or_insert_with(|| vec![(0.0, 0.0); bins]);
        for (target, (compute, io)) in mine.iter_mut().zip(cells) {
            target.0 += compute;
            target.1 += io;
        }
    }
    for ((directory, process), value) in &fold.bytes {
        let directory = fold.directories.names[*directory as usize].clone();
        *bytes.entry((directory, key(*process))).or_default() += value;
    }
    for (process, number) in &fold.processes {
        let fine = &fold.drill[*number as usize];
        by_process.entry(key(*process)).or_insert_with(|| Bins::new(DRILL_BINS)).add(fine);
    }
}

/// The drill-down of a Darshan log: its DXT POSIX segments as the trace report's events, the
/// time since the job started, `pid`s the ranks.
pub(crate) struct DxtViews {
    /// The timeline and bytes by directory.
    pub activity: Activity,
    fine: Fine,
    /// The offsets' sample.
    pub sample: ioscout_evidence::sample::AccessSample,
    /// The job's length, seconds (the run time, or the last segment's end when later).
    pub job_s: f64,
}

impl DxtViews {
    /// The views of `log`'s DXT POSIX segments; `None` without any.
    pub(crate) fn of(log: &ioscout_darshan::DarshanLog) -> Option<DxtViews> {
        let mut last_end_us = 0_i64;
        let mut segments = 0_u64;
        let posix = |module: &ioscout_darshan::Module| module.id == ioscout_darshan::id::DXT_POSIX;
        if log.modules.iter().any(posix) {
            // An error reading the records again is said by the page's segments' count.
            let _ = log.for_each_dxt_record(ioscout_darshan::id::DXT_POSIX, |record| {
                for end in record.segments.iter().filter_map(crate::segments::valid_end_us) {
                    last_end_us = last_end_us.max(end);
                    segments += 1;
                }
                std::ops::ControlFlow::Continue(())
            });
        }
        if segments == 0 {
            return None;
        }
        let run_us = log.run_time() * 1e6;
        let job_us =
            if run_us.is_finite() { run_us.max(last_end_us as f64) } else { last_end_us as f64 }.max(1.0);
        let shape = Shape::spanning(0, job_us);
        let tables = HashTables::default();
        // Segments do not nest: no call tree.
        let mut fold = ReportFold { nest: false, ..shape.fold(&tables) };
        let mut sample = crate::segments::PosixSample::new(log, SAMPLE_UNIFORM, SAMPLE_SLOWEST);
        let _ = crate::segments::for_each_event_of(
            log,
            Some(ioscout_darshan::id::DXT_POSIX),
            |event| {
                fold.event(event);
                std::ops::ControlFlow::Continue(())
            },
            |record| sample.record(record),
        );
        let (mut busy, mut bytes, mut by_process) = (HashMap::new(), HashMap::new(), BTreeMap::new());
        absorb(&fold, &tables, shape.bins, &mut busy, &mut bytes, &mut by_process);
        let sample = sample.finish();
        let activity =
            Activity { busy, bytes, bin_us: shape.bin_us, origin: "the job's start", by_rank: true };
        let fine = Fine {
            bin_us: shape.drill_bin_us,
            by_process,
            tree: ioscout_analysis::calltree::CallTree::default(),
        };
        Some(DxtViews { activity, fine, sample, job_s: job_us / 1e6 })
    }

    /// The drill-down over these views, showing the `most` busiest ranks and rank 0.
    pub(crate) fn drill(&self, most: usize) -> ioscout_render::drill::Drill<'_> {
        let rank_of: HashMap<i64, i64> = self.fine.by_process.keys().map(|key| (key.pid, key.pid)).collect();
        let (processes, rank_zero) = processes_and_rank_zero(&self.fine, &rank_of, most);
        let rank_zero_absent = rank_zero.is_none().then(|| {
            if self.fine.by_process.len() < 2 {
                "one rank recorded DXT segments, no other to compare rank 0 with".to_string()
            } else {
                "rank 0 recorded no DXT POSIX segment".to_string()
            }
        });
        let mut total = Bins::new(DRILL_BINS);
        for bins in self.fine.by_process.values() {
            total.add(bins);
        }
        ioscout_render::drill::Drill {
            job_s: self.job_s,
            origin: "the job's start",
            by_rank: true,
            bin_s: self.fine.bin_us / 1e6,
            first_ts_us: 0,
            total,
            process_count: self.fine.by_process.len(),
            processes,
            rank_zero,
            rank_zero_absent,
            accesses: Some(&self.sample),
            tree: &self.fine.tree,
            data: None,
        }
    }
}

/// The name of a host token by the trace's HH records (the token itself when none names it,
/// `unknown` when empty), as the coverage names hosts.
fn host_name(tables: &HashTables, token: &str) -> String {
    match tables.hosts.get(&ioscout_model::HashToken(token.to_string())) {
        Some(name) => name.clone(),
        None if token.is_empty() => "unknown".into(),
        None => token.to_string(),
    }
}

/// Why the drill-down has no rank-0 chart (when [`drill_processes`] found none), for the page.
fn rank_zero_absence(fine: &Fine, derived: &ioscout_evidence::Derived) -> String {
    if fine.by_process.len() < 2 {
        return "one process traced, no other to compare rank 0 with".into();
    }
    let mut hosts_of_pid: HashMap<i64, usize> = HashMap::new();
    for key in fine.by_process.keys() {
        *hosts_of_pid.entry(key.pid).or_default() += 1;
    }
    let rank_zero_pid = derived.processes.iter().find(|process| process.rank == 0).map(|process| process.pid);
    match rank_zero_pid {
        Some(pid) if hosts_of_pid.get(&pid).is_some_and(|hosts| *hosts > 1) => format!(
            "pid {pid}, which the trace ranks 0, runs on {} hosts, and ranks are known by pid only",
            hosts_of_pid[&pid]
        ),
        _ => "the trace does not say which process is rank 0".into(),
    }
}

/// A total of a process's bins, named.
type Measure = (&'static str, fn(&Bins) -> f64);

/// The processes the drill-down shows: the `most` busiest and rank 0, by (host, pid); and rank
/// 0 against the others. The derived records rank processes by pid: a pid on several hosts
/// gets no rank here.
fn drill_processes(
    fine: &Fine,
    derived: &ioscout_evidence::Derived,
    most: usize,
) -> (Vec<ioscout_render::drill::Process>, Option<ioscout_render::drill::RankZero>) {
    let mut hosts_of_pid: HashMap<i64, usize> = HashMap::new();
    for key in fine.by_process.keys() {
        *hosts_of_pid.entry(key.pid).or_default() += 1;
    }
    let rank_of: HashMap<i64, i64> = derived
        .processes
        .iter()
        .filter(|process| hosts_of_pid.get(&process.pid).is_some_and(|hosts| *hosts == 1))
        .map(|process| (process.pid, process.rank))
        .collect();
    processes_and_rank_zero(fine, &rank_of, most)
}

/// The processes shown (the `most` busiest and rank 0) and rank 0 against the others, ranks
/// by `rank_of` (`pid` to rank).
fn processes_and_rank_zero(
    fine: &Fine,
    rank_of: &HashMap<i64, i64>,
    most: usize,
) -> (Vec<ioscout_render::drill::Process>, Option<ioscout_render::drill::RankZero>) {
    let many_hosts = ioscout_render::html::hosts_of(fine.by_process.keys()) > 1;
    // The lowest pid of rank 0, and its first process in key order: the same every run.
    let rank_zero = rank_of
        .iter()
        .filter(|(_, rank)| **rank == 0)
        .map(|(pid, _)| *pid)
        .min()
        .and_then(|pid| fine.by_process.keys().find(|key| key.pid == pid))
        .cloned();
    let mut order: Vec<(&ProcessKey, f64)> = fine
        .by_process
        .iter()
        .map(|(key, bins)| (key, bins.io_total_s() + bins.compute_s.iter().sum::<f64>()))
        .collect();
    order.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    let mut shown: Vec<ProcessKey> = order.iter().take(most).map(|(key, _)| (*key).clone()).collect();
    if let Some(zero) = &rank_zero
        && !shown.contains(zero)
    {
        shown.push(zero.clone());
    }
    shown.sort_unstable();
    let processes = shown
        .iter()
        .filter_map(|key| {
            Some(ioscout_render::drill::Process {
                pid: key.pid,
                host: many_hosts.then(|| key.host.clone()),
                rank: rank_of.get(&key.pid).copied(),
                bins: fine.by_process.get(key)?.clone(),
            })
        })
        .collect();
    let against = rank_zero.and_then(|zero| {
        let mine = fine.by_process.get(&zero)?;
        let others: Vec<&Bins> =
            fine.by_process.iter().filter(|(key, _)| **key != zero).map(|(_, bins)| bins).collect();
        if others.is_empty() {
            return None;
        }
        // Seconds per bin, as every series of the drill-down: the script divides by the width
        // of what it draws (a bin, or bins joined to fit), once.
        let count = others.len() as f64;
        let mean: Vec<f64> = (0..DRILL_BINS)
            .map(|bin| others.iter().map(|bins| bins.io_s[bin]).sum::<f64>() / count)
            .collect();
        let most: Vec<f64> =
            (0..DRILL_BINS).map(|bin| others.iter().map(|bins| bins.io_s[bin]).fold(0.0, f64::max)).collect();
        let measures: [Measure; 3] = [
            ("I/O time (s)", |bins| bins.io_total_s()),
            ("bytes read and written", |bins| {
                bins.read_bytes.iter().sum::<f64>() + bins.write_bytes.iter().sum::<f64>()
            }),
            ("POSIX operations", |bins| {
                bins.read_ops.iter().sum::<f64>()
                    + bins.write_ops.iter().sum::<f64>()
                    + bins.metadata_ops.iter().sum::<f64>()
            }),
        ];
        let totals = measures
            .iter()
            .map(|(what, measure)| {
                let mut values: Vec<f64> = others.iter().map(|bins| measure(bins)).collect();
                values.sort_by(f64::total_cmp);
                let middle = values.len() / 2;
                let median = if values.len() % 2 == 1 {
                    values[middle]
                } else {
                    f64::midpoint(values[middle - 1], values[middle])
                };
                (*what, measure(mine), median, values.last().copied().unwrap_or(0.0))
            })
            .collect();
        Some(ioscout_render::drill::RankZero {
            pid: zero.pid,
            io_s: mine.io_s.clone(),
            others_mean_s: mean,
            others_most_s: most,
            others: others.len(),
            totals,
        })
    });
    (processes, against)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A log whose four ranks' DXT bins sum to values whose last printed digit depends on the
    /// order they are added in: the drill-down's totals and rank-0 comparison add them in the
    /// order of the ranks, so the page is the same bytes every time (it was not while they were
    /// added in a hash map's order).
    #[test]
    #[allow(clippy::print_stderr)] // a skipped test says why
    fn a_darshan_page_is_the_same_bytes_every_time() {
        let log = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/corpus/darshan-labelled/run-0110.darshan");
        if !log.is_file() {
            eprintln!("skipped: {} is absent (the shared corpus is not beside the project)", log.display());
            return;
        }
        let page = || darshan_report(&log, true, None).unwrap_or_else(|error| panic!("{error}")).html;
        let first = page();
        for _ in 0..4 {
            assert!(page() == first, "two reports of {} differ", log.display());
        }
    }

    #[test]
    fn the_sample_report_is_self_contained_with_every_chart() {
        let sample = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/sample");
        let report = report(&Input::of(vec![sample]), &ReportRequest::default())
            .unwrap_or_else(|error| panic!("{error}"));
        // The five server-side charts and the drill-down's three (offsets, rank 0, flame graph).
        assert_eq!(report.charts, 8);
        // The timeline drawn without the script has bins of its own: it had the analysis' 1-s
        // granularity, 3 bins of 0.753 s on this 2.26 s job.
        assert!(report.html.contains("(the 6 busiest processes; bins of 0.011 s)"), "timeline caption");
        for section in ["Access pattern and metadata", "Data shape", "Access pattern by file"] {
            assert!(report.html.contains(section), "{section}");
        }
        for id in ["chart-timeline", "chart-bandwidth", "chart-operations", "chart-heatmap", "chart-sizes"] {
            assert!(report.html.contains(&format!("id=\"{id}\"")), "{id}");
        }
        let without_namespace = report.html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
        assert!(
            !without_namespace.contains("http://") && !without_namespace.contains("https://")
                || without_namespace.contains("doi.org")
        );
        assert!(!report.html.contains("<script src") && !report.html.contains("<link"));
        assert!(report.html.contains("DFA-FETCH-PRESSURE"));
        // The drill-down: its views, its data and script inline, the call tree of the nested
        // events (DLIO's epoch block holds the fetches).
        for id in ["drill-controls", "chart-offsets", "chart-rank-zero", "chart-flame", "drill-data"] {
            assert!(report.html.contains(&format!("id=\"{id}\"")), "{id}");
        }
        let data =
            report.html.split("<script type=\"application/json\" id=\"drill-data\">").nth(1).unwrap_or("");
        let data = data.split("</script>").next().unwrap_or("");
        let data: serde_json::Value = serde_json::from_str(data).unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(data["bins"], 600);
        assert_eq!(data["process_count"], 6);
        assert_eq!(data["accesses"]["calls"], 800, "every POSIX read and write of the sample");
        let tree = &data["tree"];
        let names: Vec<&str> =
            tree["names"].as_array().into_iter().flatten().filter_map(|name| name.as_str()).collect();
        assert!(names.contains(&"epoch.block") && names.contains(&"fetch.iter"), "{names:?}");
        assert!(
            report.html.contains("<td>\u{a0}\u{a0}fetch.iter</td>"),
            "fetch.iter under epoch.block in the call tree"
        );
        assert!(report.html.ends_with("</html>\n"));
    }

    /// Rank 0's chart reached about 260 "I/O s per s" where its data peak at 1.0: its series
    /// were divided by the bin width here and again by the script. They are seconds per bin
    /// now: they sum to rank 0's I/O seconds, and no bin holds more than its width (each
    /// process of the sample runs one thread; 1 % for calls nested in calls and the six
    /// places the page keeps).
    #[test]
    fn rank_zero_series_are_seconds_per_bin() {
        let sample = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/sample");
        let report = report(&Input::of(vec![sample]), &ReportRequest::default())
            .unwrap_or_else(|error| panic!("{error}"));
        let data =
            report.html.split("<script type=\"application/json\" id=\"drill-data\">").nth(1).unwrap_or("");
        let data = data.split("</script>").next().unwrap_or("");
        let data: serde_json::Value = serde_json::from_str(data).unwrap_or_else(|error| panic!("{error}"));
        let bin_s = data["bin_s"].as_f64().unwrap_or(0.0);
        let series = |name: &str| -> Vec<f64> {
            data["rank_zero"][name]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(serde_json::Value::as_f64)
                .collect()
        };
        let io = series("io");
        assert_eq!(io.len(), 600);
        let total: f64 = io.iter().sum();
        // The page's table: rank 0's I/O time, 0.30 s (its checkpoint's POSIX calls; the series
        // are written to six places).
        assert!((total - 0.2993).abs() < 0.005, "rank 0's I/O seconds {total}");
        for name in ["io", "others_mean", "others_most"] {
            let most = series(name).into_iter().fold(0.0, f64::max);
            assert!(most > 0.0 && most <= bin_s * 1.01, "{name}: {most} in a bin of {bin_s} s");
        }
    }

    /// The drill-down of a log's DXT POSIX segments (the bundled 4-rank `mpi-io-test` of
    /// Darshan 3.1.3, one 16 MiB write and one 16 MiB read per rank): its sums hold every
    /// segment's bytes and calls, each rank is shown by rank, rank 0 is set against the other
    /// three, the offsets' sample holds all 8 calls; a log without DXT has none.
    #[test]
    fn a_logs_dxt_segments_make_the_drill_down() {
        let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/darshan");
        let log = crate::darshan::read(&root.join("mpi-io-test-x86_64-3.1.3.darshan"), true)
            .unwrap_or_else(|error| panic!("{error}"));
        let Some(views) = DxtViews::of(&log) else { panic!("no DXT views") };
        let drill = views.drill(DARSHAN_MAX_RANKS);
        // Bytes and calls are whole numbers, summed exactly.
        let sum = |values: &[f64]| values.iter().sum::<f64>().round() as u64;
        assert_eq!(sum(&drill.total.read_bytes), 64 * 1_048_576);
        assert_eq!(sum(&drill.total.write_bytes), 64 * 1_048_576);
        assert_eq!((sum(&drill.total.read_ops), sum(&drill.total.write_ops)), (4, 4));
        assert!(drill.total.compute_s.iter().all(|seconds| *seconds == 0.0), "no compute is known");
        // Each segment's time is spread over the bins it spans: the I/O seconds are the
        // segments' durations.
        let mut durations = 0.0;
        log.for_each_dxt_record(ioscout_darshan::id::DXT_POSIX, |record| {
            for segment in &record.segments {
                durations += (segment.end * 1e6).round() - (segment.start * 1e6).round();
            }
            std::ops::ControlFlow::Continue(())
        })
        .unwrap_or_else(|error| panic!("{error}"));
        durations /= 1e6;
        assert!(
            (drill.total.io_total_s() - durations).abs() < 1e-9,
            "{} against {durations}",
            drill.total.io_total_s()
        );
        let labels: Vec<String> =
            drill.processes.iter().map(|process| process.label(drill.by_rank)).collect();
        assert_eq!(labels, ["rank 0", "rank 1", "rank 2", "rank 3"]);
        let Some(zero) = &drill.rank_zero else { panic!("no rank 0 chart") };
        assert_eq!((zero.pid, zero.others), (0, 3));
        assert_eq!(drill.accesses.map(|sample| sample.calls), Some(8));
        assert!(drill.job_s >= 1.0, "the run time, 1 s");
        let plain = crate::darshan::read(&root.join("mpi-io-test-x86_64-3.5.0.darshan"), true)
            .unwrap_or_else(|error| panic!("{error}"));
        assert!(DxtViews::of(&plain).is_none());
    }
}

/// The job-summary page of one Darshan log.
#[derive(Debug)]
pub struct DarshanHtmlReport {
    /// The page.
    pub html: String,
    /// Charts drawn.
    pub charts: usize,
    /// Findings listed.
    pub findings: usize,
    /// What the reader could not read (damaged regions, dropped records), one line each.
    pub problems: Vec<String>,
}

/// Most ranks a Darshan page's timeline and drill-down show (the busiest, and rank 0).
const DARSHAN_MAX_RANKS: usize = 32;

/// Builds the job-summary page of the Darshan log at `path` (`partial`: keep going past a
/// damaged region, as every command reading logs does unless `--strict`), of its records of
/// `file` only when given (`--file`).
pub fn darshan_report(
    path: &std::path::Path,
    partial: bool,
    file: Option<&str>,
) -> Result<DarshanHtmlReport> {
    let log = crate::darshan::read(path, partial)?;
    let log = match file {
        None => log,
        Some(file) => log.only_file(file).ok_or_else(|| {
            let shown = crate::text::display_path(path);
            crate::ServiceError::BadRequest(format!(
                "{shown} names no file {file:?}: --file takes a path as the log names it (`ioscout darshan files {shown}` lists them)"
            ))
        })?,
    };
    let breakdown = ioscout_darshan::breakdown::Breakdown::of(&log);
    let summary = ioscout_darshan::job_summary::JobSummary::of(&log);
    let (findings, advice, patterns) = findings_and_advice(ioscout_advise::Measurements::from_darshan(
        &log,
        ioscout_diagnose::darshan::DrishtiThresholds::default(),
    ))?;
    let described = crate::text::display_path(path);
    let views = DxtViews::of(&log);
    let (html, charts) = ioscout_render::darshan_page::page(ioscout_render::darshan_page::DarshanPage {
        path: &described,
        version: &log.header.version,
        exe: &log.job.exe,
        job_id: log.job.jobid,
        start_time: log.job.start_time,
        breakdown: &breakdown,
        summary: &summary,
        findings: &findings,
        advice: &advice,
        file,
        dxt: views.as_ref().map(|views| ioscout_render::darshan_page::DxtDrill {
            activity: views.activity.clone(),
            drill: views.drill(DARSHAN_MAX_RANKS),
            max_processes: DARSHAN_MAX_RANKS,
        }),
        patterns: patterns.as_ref(),
    });
    Ok(DarshanHtmlReport { html, charts, findings: findings.len(), problems: log.problems.clone() })
}
