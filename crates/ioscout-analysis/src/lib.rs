//! DFAnalyzer-compatible analysis of DFTracer traces: layers, views, metrics and compute/I-O
//! overlap, in two streaming passes.
//!
//! # Overview
//!
//! [`analyze`] runs the pipeline stage between the reader and diagnosis:
//!
//! 1. a first pass ([`prepass::PrepassFold`]) gathers what rows need before they can be binned:
//!    the hash tables, the time origin, the processes and their parents, the compute and epoch
//!    intervals;
//! 2. a second pass ([`fold::AnalysisFold`]) turns events into rows ([`row`]) and folds them
//!    into mergeable cells keyed by (time bin | file | epoch | step, process, class);
//! 3. [`views::compute_view`] expands the cells into the layers of the [`preset::Preset`] and
//!    derives every metric; each view is reduced to a per-layer summary.
//!
//! Memory grows with bins × processes × classes and with files × processes, never with the
//! number of events. [`output`] renders DFAnalyzer's JSON schema.
//!
//! # Example
//!
//! ```no_run
//! use ioscout_analysis::{AnalysisOptions, analyze};
//! let (files, problems) = ioscout_read::discover(&[std::path::PathBuf::from("trace-dir")]);
//! let scanner = ioscout_read::Scanner::new(ioscout_read::ScanOptions::default());
//! let (analysis, _report) = analyze(&scanner, &files, &problems, &AnalysisOptions::default())?;
//! for layer in analysis.summary() {
//!     println!("{} {:.3} s", layer.layer, layer.time_s);
//! }
//! # Ok::<(), ioscout_analysis::AnalysisError>(())
//! ```

pub mod cache;
pub mod calltree;
pub mod fold;
pub mod follow;
pub mod output;
pub mod overlap;
pub mod prepass;
pub mod preset;
pub mod row;
pub mod views;

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use ioscout_read::{Extent, InputProblem, ProcessKey, ScanReport, Scanner, TraceFile};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

pub use crate::fold::{AnalysisFold, AnalysisPartial, Binning, Keep, SIZE_BIN_COUNT, SIZE_BINS};
pub use crate::prepass::{Prepared, PrepassFold};
pub use crate::preset::{PRESET_NAMES, Preset, PresetName};
pub use crate::views::{LayerSummary, OverlapMode, RowMetrics, TIME_RESOLUTION, View, ViewRow, ViewType};

/// Errors of the analysis.
#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    /// A time granularity that is not a positive number of seconds.
    #[error("time granularity must be a positive number of seconds, not {0}")]
    Granularity(f64),
    /// A rank of a distributed analysis failed ([`analyze_distributed`]).
    #[error(transparent)]
    Cluster(#[from] ioscout_read::cluster::ClusterError),
}

/// What to analyse and how.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AnalysisOptions {
    /// The layer preset (or `auto`, to choose from the trace's categories).
    pub preset: PresetName,
    /// Views to compute; `proc_name` is always added, and the first view's summary is the main
    /// one.
    pub views: Vec<ViewType>,
    /// Time bin width in seconds.
    pub time_granularity_s: f64,
    /// How unoverlapped time is measured.
    pub overlap: OverlapMode,
    /// How rows are assigned to time bins.
    pub binning: Binning,
    /// Keep each file's time and bytes over every process ([`Analysis::file_totals`]) when the
    /// `file_name` view is not asked for: what weighing a trace's files needs, without that
    /// view's cell per file, process and class (millions on a trace of many files and ranks).
    pub file_totals: bool,
}

impl Default for AnalysisOptions {
    fn default() -> AnalysisOptions {
        AnalysisOptions {
            preset: PresetName::Auto,
            views: vec![ViewType::TimeRange],
            time_granularity_s: 1.0,
            overlap: OverlapMode::Exact,
            binning: Binning::Relative,
            file_totals: false,
        }
    }
}

/// Trace-wide counts, taken before the ignore filters.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RawStats {
    /// Last end minus first start, in seconds.
    pub job_time_s: f64,
    /// First start (trace units).
    pub first_ts: i64,
    /// Last end (trace units).
    pub last_end: i64,
    /// Time bin width in seconds.
    pub time_granularity_s: f64,
    /// Complete events.
    pub trace_event_count: u64,
    /// Aggregated (profile) events.
    pub profile_event_count: u64,
    /// Both.
    pub total_event_count: u64,
    /// Files named by complete events.
    pub unique_file_count: u64,
    /// Hosts.
    pub unique_host_count: u64,
    /// Processes (host, pid).
    pub unique_process_count: u64,
    /// Rows dropped by the ignore filters.
    pub ignored_rows: u64,
    /// Complete events without a timestamp.
    pub rows_without_time: u64,
}

/// The transfer-size histogram of one slot.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SizeHistogram {
    /// Slot name (`posix_read`).
    pub slot: String,
    /// Counts per [`SIZE_BINS`] bin.
    pub counts: [u64; SIZE_BIN_COUNT],
}

/// The result of an analysis.
#[derive(Clone, Debug, Serialize)]
pub struct Analysis {
    /// Options used.
    pub options: AnalysisOptions,
    /// The preset (with `generic`'s layers resolved).
    #[serde(skip)]
    pub preset: Preset,
    /// Trace-wide counts.
    pub raw: RawStats,
    /// Views, in the order asked (then `proc_name` if not asked).
    pub views: Vec<View>,
    /// Transfer-size histograms of the slots that carry bytes.
    pub sizes: Vec<SizeHistogram>,
    /// Totals per lower-cased category, over the rows that count in some layer of the preset
    /// (after the ignore filters).
    pub categories: BTreeMap<String, CategoryTotals>,
    /// The time and bytes of each (file, layer) row over every process, in the `file_name`
    /// view's order: from that view when it was computed, else from the file totals
    /// ([`AnalysisOptions::file_totals`]); empty without either.
    #[serde(skip)]
    pub file_totals: Vec<FileTotal>,
}

/// One (file, layer) row's sums over every process (the `file_name` view's `time_sum` and
/// `size_sum`, without its per-process statistics).
#[derive(Clone, Debug, PartialEq)]
pub struct FileTotal {
    /// The file's path.
    pub path: String,
    /// The row's layer (or derived slot) name.
    pub layer: String,
    /// Summed time, in seconds.
    pub time_s: f64,
    /// Bytes moved, when some row of it has a size.
    pub size: Option<u64>,
}

impl FileTotal {
    /// The totals of `view`'s rows (a `file_name` view), in its order.
    fn of_view(view: &View) -> Vec<FileTotal> {
        view.rows
            .iter()
            .map(|row| FileTotal {
                path: row.key.clone(),
                layer: row.slot_name(),
                time_s: row.metrics.time_sum,
                size: row.metrics.size_sum,
            })
            .collect()
    }
}

/// Rows of one category.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CategoryTotals {
    /// Rows.
    pub count: u64,
    /// Summed time, in seconds.
    pub time_s: f64,
    /// Bytes moved.
    pub size: u64,
}

impl Analysis {
    /// The view of type `view`, if computed.
    pub fn view(&self, view: ViewType) -> Option<&View> {
        self.views.iter().find(|candidate| candidate.view == view)
    }

    /// The main summary (of the first view).
    pub fn summary(&self) -> &[LayerSummary] {
        self.views.first().map_or(&[], |view| view.summary.as_slice())
    }
}

/// The presets with compute or epoch layers: the first pass collects their intervals (all of
/// them, so that its cached result serves any preset).
const INTERVAL_PRESETS: [&str; 2] = ["dlio", "dlio-prev"];

/// Checks options and returns the candidate presets whose compute and epoch intervals the first
/// pass collects.
fn check_options(options: &AnalysisOptions) -> Result<Vec<Preset>, AnalysisError> {
    if !(options.time_granularity_s.is_finite() && options.time_granularity_s > 0.0) {
        return Err(AnalysisError::Granularity(options.time_granularity_s));
    }
    let empty = std::collections::BTreeSet::new();
    Ok(INTERVAL_PRESETS
        .iter()
        .filter_map(|name| PresetName::parse(name))
        .filter_map(|name| Preset::named(name, &empty))
        .collect())
}

/// The extent of `partial` (its processes and time span), for the coverage of the scan; host
/// tokens are named by [`name_hosts`].
fn extent_of(partial: &cache::PrepassPartial) -> Extent {
    partial.extent()
}

/// The extent of a first-pass fold of one file.
fn extent_of_fold(fold: &PrepassFold<'_>) -> Extent {
    let mut processes: Vec<ProcessKey> =
        fold.processes.iter().map(|(host, pid)| ProcessKey { host: host.to_string(), pid: *pid }).collect();
    processes.sort_unstable();
    Extent { processes, span: fold.first_ts.zip(fold.last_end) }
}

/// Names the hosts of `extents` by the trace's host table (the tokens each file's pass saw).
fn name_hosts(
    mut extents: Vec<(std::path::PathBuf, Extent)>,
    prepared: &Prepared,
) -> Vec<(std::path::PathBuf, Extent)> {
    for (_, extent) in &mut extents {
        for process in &mut extent.processes {
            process.host = prepared.host_name(&process.host);
        }
        extent.processes.sort_unstable();
        extent.processes.dedup();
    }
    extents
}

/// The first pass over `files`, reusing what the pre-pass cache holds for unchanged files and
/// recording what it learns about the others (see [`cache`]); with each file's extent.
fn first_pass<'p>(
    scanner: &Scanner,
    files: &[TraceFile],
    candidates: &'p [Preset],
) -> (PrepassFold<'p>, Vec<(std::path::PathBuf, Extent)>) {
    let paths: Vec<std::path::PathBuf> = files.iter().map(|file| file.path.clone()).collect();
    let mut cache = cache::PrepassCache::open(&paths);
    let mut total = PrepassFold::new(candidates);
    let mut extents = Vec::with_capacity(files.len());
    cache.add_tables_to(&mut total);
    let mut to_scan = Vec::new();
    for file in files {
        match cache.get(&file.path) {
            Some(partial) => {
                partial.add_to(&mut total, &INTERVAL_PRESETS);
                extents.push((file.path.clone(), extent_of(partial)));
            }
            None => to_scan.push(file.clone()),
        }
    }
    if to_scan.is_empty() {
        return (total, extents);
    }
    // Each file is taken in as soon as its last unit is in, in file order, while the scan goes
    // on: the taking in overlaps the scan instead of following it on one thread, and no file's
    // fold waits for the end of the scan.
    fold_each_file(
        scanner,
        &to_scan,
        || PrepassFold::new(candidates),
        PrepassFold::merge,
        |index, fold| {
            let Some(file) = to_scan.get(index) else { return };
            cache.put(&file.path, &fold, &INTERVAL_PRESETS);
            extents.push((file.path.clone(), extent_of_fold(&fold)));
            total.merge(fold);
        },
    );
    cache.save();
    (total, extents)
}

/// The preset `auto` stands for, from the trace's lower-cased categories: `dlio` when DLIO's
/// AI-logging categories are present, `dlio-prev` for DLIO's older categories, `posix` when every
/// category is POSIX or STDIO (besides DFTracer's own), `generic` otherwise.
pub fn detect_preset(categories: &std::collections::BTreeSet<String>) -> PresetName {
    let has = |name: &str| categories.contains(name);
    if has("pipeline") || has("ai_root") {
        PresetName::Dlio
    } else if has("ai_framework") || (has("data_loader") && has("reader")) {
        PresetName::DlioPrev
    } else if categories.iter().all(|category| category == "dftracer" || row::is_posix_category(category)) {
        PresetName::Posix
    } else {
        PresetName::Generic
    }
}

/// What the second pass needs, decided from the first pass: the preset, the first pass's
/// context, which per-key cells to keep and how to bin.
#[derive(Debug)]
struct Plan {
    preset: Preset,
    prepared: Prepared,
    keep: Keep,
    bins: fold::Bins,
}

impl Plan {
    fn new(options: &AnalysisOptions, candidates: &[Preset], prepass: PrepassFold<'_>) -> Plan {
        let categories: std::collections::BTreeSet<String> =
            prepass.categories.iter().map(ToString::to_string).collect();
        let name =
            if options.preset == PresetName::Auto { detect_preset(&categories) } else { options.preset };
        let chosen = candidates.iter().position(|candidate| candidate.name == name);
        let preset = match chosen {
            Some(index) => candidates[index].clone(),
            None => Preset::named(name, &categories).unwrap_or_else(|| Preset::generic(&categories)),
        };
        let prepared = Prepared::new(prepass, chosen);
        let keep = Keep {
            files: keeps_file_cells(options),
            file_totals: options.file_totals,
            epochs: options.views.contains(&ViewType::Epoch),
            steps: options.views.contains(&ViewType::Step),
        };
        let bins = fold::Bins {
            width: (options.time_granularity_s * TIME_RESOLUTION).round().max(1.0) as i64,
            binning: options.binning,
            exact: options.overlap == OverlapMode::Exact,
        };
        Plan { preset, prepared, keep, bins }
    }

    fn fold(&self) -> AnalysisFold<'_> {
        AnalysisFold::new(&self.prepared, &self.preset, self.bins, self.keep)
    }

    /// The analysis from the merged second pass.
    fn finish(&self, options: &AnalysisOptions, total: Option<AnalysisFold<'_>>) -> Analysis {
        let mut total = total.unwrap_or_else(|| self.fold());
        if options.binning == Binning::Dfanalyzer009 {
            total.by_time = rebin_by_first_start(
                std::mem::take(&mut total.by_time),
                self.prepared.first_ts,
                self.bins.width,
            );
        }
        finish(options, &self.preset, &self.prepared, &total)
    }
}

/// Runs both passes over `files` and computes the views. The returned report is the second
/// pass's (every problem of the input, counted once).
pub fn analyze(
    scanner: &Scanner,
    files: &[TraceFile],
    input_problems: &[InputProblem],
    options: &AnalysisOptions,
) -> Result<(Analysis, ScanReport), AnalysisError> {
    analyze_with(scanner, files, input_problems, options, |_| ioscout_read::NoFold, |_, _, _| {})
}

/// [`analyze`] with another fold filled by the same second pass: `make` builds one per unit of
/// file `index` and `consume` receives each, filled, in file order, with the number of the file's
/// lines before its unit ([`ioscout_read::UnitSpan::line_base`]). A later stage (the Darshan
/// records derived from the trace) so costs no pass of its own. `consume` is dropped as soon as
/// the scan ends, before the views are computed: a consumer that hands the folds to a thread of
/// its own learns there that no more will come, and finishes while the views are computed.
///
/// A fold that needs what the first pass learns (the time origin and end, the hash tables) is
/// built from [`plan`]'s [`Planned::prepared`] and filled by [`Planned::second_pass`].
pub fn analyze_with<R, M, C>(
    scanner: &Scanner,
    files: &[TraceFile],
    input_problems: &[InputProblem],
    options: &AnalysisOptions,
    make: M,
    consume: C,
) -> Result<(Analysis, ScanReport), AnalysisError>
where
    R: ioscout_read::Fold,
    M: Fn(usize) -> R + Sync,
    C: FnMut(usize, R, u64),
{
    Ok(plan(scanner, files, options)?.second_pass(scanner, files, input_problems, make, consume))
}

/// An analysis whose first pass is done: what the second pass reads ([`Planned::prepared`]: the
/// hash tables, the time origin and the end of the last event) is known before the second pass
/// starts, so a later stage can build folds that need it and have them filled by the second pass
/// ([`Planned::second_pass`]) instead of a pass of its own.
#[derive(Debug)]
pub struct Planned {
    plan: Plan,
    options: AnalysisOptions,
    extents: Vec<(std::path::PathBuf, Extent)>,
}

/// The first pass of [`analyze`] over `files`, and the plan of the second.
pub fn plan(
    scanner: &Scanner,
    files: &[TraceFile],
    options: &AnalysisOptions,
) -> Result<Planned, AnalysisError> {
    let candidates = check_options(options)?;
    let (prepass, extents) = first_pass(scanner, files, &candidates);
    let plan = Plan::new(options, &candidates, prepass);
    Ok(Planned { plan, options: options.clone(), extents })
}

impl Planned {
    /// What the first pass learnt, as the second pass reads it.
    pub fn prepared(&self) -> &Prepared {
        &self.plan.prepared
    }

    /// The second pass over `files` (the files [`plan`] was given) and the views, with another
    /// fold filled by the same pass, as [`analyze_with`] says. The report is the second pass's.
    pub fn second_pass<R, M, C>(
        &self,
        scanner: &Scanner,
        files: &[TraceFile],
        input_problems: &[InputProblem],
        make: M,
        mut consume: C,
    ) -> (Analysis, ScanReport)
    where
        R: ioscout_read::Fold,
        M: Fn(usize) -> R + Sync,
        C: FnMut(usize, R, u64),
    {
        let plan = &self.plan;
        let mut total: Option<AnalysisFold<'_>> = None;
        let mut report = scanner.scan(
            files,
            input_problems,
            |index| ioscout_read::Both { first: plan.fold(), second: make(index) },
            |index, both, span| {
                let ioscout_read::Both { first: fold, second: rider } = both;
                match total.as_mut() {
                    Some(total) => total.merge(fold),
                    None => total = Some(fold),
                }
                consume(index, rider, span.line_base);
                ControlFlow::Continue(())
            },
        );
        drop(consume);
        report.set_extents(name_hosts(self.extents.clone(), &plan.prepared));
        (plan.finish(&self.options, total), report)
    }
}

/// What one rank sends after its first pass: per scanned file, its index, partial and tables.
type FirstPart = (usize, cache::PrepassPartial, cache::Tables);

/// What one rank sends after its second pass: per file of its share, its index, the file's
/// partial (none when it holds no events) and its scan summary.
type SecondPart = (usize, Option<AnalysisPartial>, ioscout_read::FileSummary);

/// Scans `files` (all of them, or a rank's share), merging the folds of each file's units with
/// `merge`, and hands each file's fold to `done` once its last unit is in: in file order, as the
/// scan goes (the scan gives units in file order); a file without units is not handed.
fn fold_each_file<F: ioscout_read::Fold>(
    scanner: &Scanner,
    files: &[TraceFile],
    make: impl Fn() -> F + Sync,
    merge: impl Fn(&mut F, F),
    mut done: impl FnMut(usize, F),
) -> ScanReport {
    // The file whose units are coming in, with its fold so far (the scan hands units over in
    // file order, so a unit of a later file means this one is complete).
    let mut current: Option<(usize, F)> = None;
    let report = scanner.scan(
        files,
        &[],
        |_| make(),
        |index, fold, _| {
            match current.as_mut() {
                Some((file, partial)) if *file == index => merge(partial, fold),
                _ => {
                    if let Some((file, complete)) = current.replace((index, fold)) {
                        done(file, complete);
                    }
                }
            }
            ControlFlow::Continue(())
        },
    );
    if let Some((file, complete)) = current {
        done(file, complete);
    }
    report
}

/// Scans `files` into one fold per file ([`fold_each_file`], the folds kept), with the report.
fn fold_per_file<F: ioscout_read::Fold>(
    scanner: &Scanner,
    files: &[TraceFile],
    make: impl Fn() -> F + Sync,
    merge: impl Fn(&mut F, F),
) -> (Vec<Option<F>>, ScanReport) {
    let mut per_file: Vec<Option<F>> = (0..files.len()).map(|_| None).collect();
    let report = fold_each_file(scanner, files, make, &merge, |index, fold| match per_file.get_mut(index) {
        Some(Some(partial)) => merge(partial, fold),
        Some(slot) => *slot = Some(fold),
        None => {}
    });
    (per_file, report)
}

/// [`analyze`] as one rank of a job ([`ioscout_read::cluster`]): the files are shared among the
/// ranks by size (longest first), each rank runs both passes over its share, and the per-file
/// partial results are exchanged and merged by every rank in input order, so every rank returns
/// what one process would (the same bytes). A file a rank cannot read ends the analysis on every
/// rank with an error naming the rank and the file.
pub fn analyze_distributed(
    scanner: &Scanner,
    files: &[TraceFile],
    input_problems: &[InputProblem],
    options: &AnalysisOptions,
    collective: &dyn ioscout_read::cluster::Collective,
) -> Result<(Analysis, ScanReport), AnalysisError> {
    use ioscout_read::cluster;
    let candidates = check_options(options)?;
    let weights: Vec<u64> = files.iter().map(|file| file.size).collect();
    let mine = cluster::my_share(&weights, collective);

    // First pass: the cache answers for unchanged indexed files; the rest are scanned by their
    // owner and their partials exchanged.
    let paths: Vec<std::path::PathBuf> = files.iter().map(|file| file.path.clone()).collect();
    let mut cache = cache::PrepassCache::open(&paths);
    let to_scan: Vec<usize> =
        mine.iter().copied().filter(|index| cache.get(&files[*index].path).is_none()).collect();
    let scan_list: Vec<TraceFile> = to_scan.iter().map(|index| files[*index].clone()).collect();
    let (folds, report) =
        fold_per_file(scanner, &scan_list, || PrepassFold::new(&candidates), PrepassFold::merge);
    let first: Result<Vec<FirstPart>, String> = match cluster::unreadable(&report.files) {
        Some(message) => Err(message),
        None => Ok(to_scan
            .iter()
            .zip(folds)
            .filter_map(|(index, fold)| {
                let fold = fold?;
                Some((
                    *index,
                    cache::PrepassPartial::of(&fold, &INTERVAL_PRESETS),
                    cache::Tables::of(&fold.metadata.tables),
                ))
            })
            .collect()),
    };
    let mut parts: Vec<FirstPart> = cluster::exchange(collective, &first)?.into_iter().flatten().collect();
    parts.sort_by_key(|(index, _, _)| *index);
    let mut prepass = PrepassFold::new(&candidates);
    let mut extents = Vec::with_capacity(files.len());
    cache.add_tables_to(&mut prepass);
    for file in files {
        if let Some(partial) = cache.get(&file.path) {
            partial.add_to(&mut prepass, &INTERVAL_PRESETS);
            extents.push((file.path.clone(), extent_of(partial)));
        }
    }
    for (index, partial, tables) in &parts {
        tables.add_to(&mut prepass.metadata.tables);
        partial.add_to(&mut prepass, &INTERVAL_PRESETS);
        extents.push((files[*index].path.clone(), extent_of(partial)));
    }
    if collective.rank() == 0 {
        for (index, partial, tables) in parts {
            cache.put_partial(&files[index].path, partial, &tables);
        }
        cache.save();
    }
    let plan = Plan::new(options, &candidates, prepass);

    // Second pass over the share, one partial per file, merged in input order everywhere.
    let my_files: Vec<TraceFile> = mine.iter().map(|index| files[*index].clone()).collect();
    let (folds, report) = fold_per_file(scanner, &my_files, || plan.fold(), AnalysisFold::merge);
    let second: Result<Vec<SecondPart>, String> = match cluster::unreadable(&report.files) {
        Some(message) => Err(message),
        None => Ok(mine
            .iter()
            .zip(folds)
            .zip(report.files)
            .map(|((index, fold), summary)| (*index, fold.as_ref().map(AnalysisPartial::of), summary))
            .collect()),
    };
    let mut parts: Vec<SecondPart> = cluster::exchange(collective, &second)?.into_iter().flatten().collect();
    parts.sort_by_key(|(index, _, _)| *index);
    let mut total: Option<AnalysisFold<'_>> = None;
    let mut summaries = Vec::with_capacity(parts.len());
    for (_, partial, summary) in parts {
        summaries.push(summary);
        let Some(partial) = partial else { continue };
        let fold = partial.into_fold(&plan.prepared, &plan.preset, plan.bins, plan.keep);
        match total.as_mut() {
            Some(total) => total.merge(fold),
            None => total = Some(fold),
        }
    }
    let mut report = ScanReport::assemble(input_problems, scanner.options().max_reported_problems, summaries);
    report.set_extents(name_hosts(extents, &plan.prepared));
    Ok((plan.finish(options, total), report))
}

/// Computes the views from the merged second pass.
pub fn finish(
    options: &AnalysisOptions,
    preset: &Preset,
    prepared: &Prepared,
    total: &AnalysisFold<'_>,
) -> Analysis {
    let slots = preset.slots();
    let class_slots: Vec<Box<[u16]>> =
        (0..total.classifier.len() as u32).map(|id| total.classifier.class(id).slots.clone()).collect();
    let layer_reach = layer_reach(preset, &class_slots, total);
    let input = views::ViewInput {
        preset,
        class_slots: &class_slots,
        overlap: options.overlap,
        layer_reach: &layer_reach,
    };
    let mut wanted = options.views.clone();
    if !wanted.contains(&ViewType::ProcName) {
        wanted.push(ViewType::ProcName);
    }
    let paths: Vec<String> = total.files.texts.iter().map(|token| prepared.file_path(token)).collect();
    let host_names: Vec<String> = total.hosts.texts.iter().map(|token| prepared.host_name(token)).collect();
    let directories = intern(paths.iter().map(|path| directory(path)));
    let patterns = intern(paths.iter().map(|path| pattern(path)));
    let mut computed = Vec::new();
    for view in wanted {
        let process_name = |process: u32| match total.processes.get(process as usize) {
            Some(key) => format!("app#{}#{}#{}", host_names[key.host as usize], key.pid, key.tid),
            None => "unknown".into(),
        };
        let host_of = |_: u32, process: u32| total.processes.get(process as usize).map_or(0, |key| key.host);
        let host_name = |host: u32| host_names.get(host as usize).cloned().unwrap_or_default();
        let file_name = |file: u32| paths.get(file as usize).cloned().unwrap_or_default();
        let number = |key: u32| key.to_string();
        let numeric = |key: u32| u64::from(key);
        let zero = |_: u32| 0u64;
        let first = |key: u32, _: u32| key;
        let second = |_: u32, process: u32| process;
        let directory_of = |file: u32, _: u32| directories.0.get(file as usize).copied().unwrap_or(0);
        let directory_text = |key: u32| directories.1.get(key as usize).cloned().unwrap_or_default();
        let pattern_of = |file: u32, _: u32| patterns.0.get(file as usize).copied().unwrap_or(0);
        let pattern_text = |key: u32| patterns.1.get(key as usize).cloned().unwrap_or_default();
        let (cells, grouping) = match view {
            ViewType::TimeRange => {
                (&total.by_time, views::Grouping { key_of: &first, text_of: &number, order_of: &numeric })
            }
            ViewType::ProcName => {
                (&total.by_time, views::Grouping { key_of: &second, text_of: &process_name, order_of: &zero })
            }
            ViewType::HostName => {
                (&total.by_time, views::Grouping { key_of: &host_of, text_of: &host_name, order_of: &zero })
            }
            ViewType::FileName => {
                (&total.by_file, views::Grouping { key_of: &first, text_of: &file_name, order_of: &zero })
            }
            ViewType::FileDir => (
                &total.by_file,
                views::Grouping { key_of: &directory_of, text_of: &directory_text, order_of: &zero },
            ),
            ViewType::FilePattern => (
                &total.by_file,
                views::Grouping { key_of: &pattern_of, text_of: &pattern_text, order_of: &zero },
            ),
            ViewType::Epoch => {
                (&total.by_epoch, views::Grouping { key_of: &first, text_of: &number, order_of: &numeric })
            }
            ViewType::Step => {
                (&total.by_step, views::Grouping { key_of: &first, text_of: &number, order_of: &numeric })
            }
        };
        computed.push(views::compute_view(view, cells.iter(), &grouping, &input));
    }
    let file_totals = file_totals(options, total, &paths, &computed, &input);
    let histograms = size_histograms(preset, &class_slots, total);
    let processes: FxHashSet<(u32, i64)> = total.processes.iter().map(|key| (key.host, key.pid)).collect();
    let raw = RawStats {
        job_time_s: (prepared.last_end - prepared.first_ts).max(0) as f64 / TIME_RESOLUTION,
        first_ts: prepared.first_ts,
        last_end: prepared.last_end,
        time_granularity_s: options.time_granularity_s,
        trace_event_count: total.complete_events,
        profile_event_count: total.profile_events,
        total_event_count: total.complete_events + total.profile_events,
        unique_file_count: total.files.len() as u64,
        unique_host_count: total.hosts.texts.iter().filter(|token| !token.is_empty()).count().max(1) as u64,
        unique_process_count: processes.len() as u64,
        ignored_rows: total.ignored_rows,
        rows_without_time: total.rows_without_time,
    };
    let categories = category_totals(total);
    Analysis {
        options: options.clone(),
        preset: preset.clone(),
        raw,
        categories,
        views: computed,
        file_totals,
        sizes: histograms
            .into_iter()
            .map(|(slot, counts)| SizeHistogram { slot: slots[usize::from(slot)].name(preset), counts })
            .collect(),
    }
}

/// Whether the second pass keeps a cell per (file, process, class): a view by file, directory or
/// file pattern needs them.
fn keeps_file_cells(options: &AnalysisOptions) -> bool {
    options
        .views
        .iter()
        .any(|view| matches!(view, ViewType::FileName | ViewType::FileDir | ViewType::FilePattern))
}

/// The file totals of an analysis ([`Analysis::file_totals`]): the rows of its `file_name` view
/// when `computed` holds one; else, when asked for, the rows of that view computed from the
/// (file, process, class) cells when another view kept them, or from `total`'s file totals as if
/// every row were one process's: the same keys, order and sums.
fn file_totals(
    options: &AnalysisOptions,
    total: &AnalysisFold<'_>,
    paths: &[String],
    computed: &[View],
    input: &views::ViewInput<'_>,
) -> Vec<FileTotal> {
    if let Some(view) = computed.iter().find(|view| view.view == ViewType::FileName) {
        return FileTotal::of_view(view);
    }
    if !options.file_totals {
        return Vec::new();
    }
    let file_name = |file: u32| paths.get(file as usize).cloned().unwrap_or_default();
    let grouping =
        views::Grouping { key_of: &|file: u32, _: u32| file, text_of: &file_name, order_of: &|_: u32| 0 };
    let view = if keeps_file_cells(options) {
        views::compute_view(ViewType::FileName, total.by_file.iter(), &grouping, input)
    } else {
        let cells: Vec<(fold::CellKey, fold::Cell)> =
            total.file_totals.iter().map(|(&(file, class), cell)| ((file, 0, class), *cell)).collect();
        views::compute_view(ViewType::FileName, cells.iter().map(|(key, cell)| (key, cell)), &grouping, input)
    };
    FileTotal::of_view(&view)
}

/// Per layer, how many files and processes it reached.
fn layer_reach(preset: &Preset, class_slots: &[Box<[u16]>], total: &AnalysisFold<'_>) -> Vec<(u64, u64)> {
    let slots = preset.slots();
    let layer_of_slot = |slot: u16| {
        let slot = slots[usize::from(slot)];
        slot.derived.is_none().then_some(slot.layer)
    };
    let mut layer_files: Vec<FxHashSet<u32>> = vec![FxHashSet::default(); preset.layers.len()];
    let mut layer_processes: Vec<FxHashSet<u32>> = vec![FxHashSet::default(); preset.layers.len()];
    for (file, class) in &total.file_classes {
        for layer in class_slots[*class as usize].iter().filter_map(|slot| layer_of_slot(*slot)) {
            layer_files[layer].insert(*file);
        }
    }
    for (_, process, class) in total.by_time.keys() {
        for layer in class_slots[*class as usize].iter().filter_map(|slot| layer_of_slot(*slot)) {
            layer_processes[layer].insert(*process);
        }
    }
    layer_files
        .iter()
        .zip(&layer_processes)
        .map(|(files, processes)| (files.len() as u64, processes.len() as u64))
        .collect()
}

/// The request-size histograms of the slots whose layer keeps sizes.
fn size_histograms(
    preset: &Preset,
    class_slots: &[Box<[u16]>],
    total: &AnalysisFold<'_>,
) -> BTreeMap<u16, [u64; SIZE_BIN_COUNT]> {
    let slots = preset.slots();
    let mut histograms: BTreeMap<u16, [u64; SIZE_BIN_COUNT]> = BTreeMap::new();
    for (class, counts) in &total.sizes {
        for slot in &class_slots[*class as usize] {
            if !preset.layers[slots[usize::from(*slot)].layer].keeps_size {
                continue;
            }
            let mine = histograms.entry(*slot).or_insert([0; SIZE_BIN_COUNT]);
            for (sum, count) in mine.iter_mut().zip(counts) {
                *sum += count;
            }
        }
    }
    histograms
}

/// Count, time and bytes per event category.
fn category_totals(total: &AnalysisFold<'_>) -> BTreeMap<String, CategoryTotals> {
    let mut categories: BTreeMap<String, CategoryTotals> = BTreeMap::new();
    // By class id, so the per-category float sums add in one order whatever the cells' layout.
    let mut by_class: BTreeMap<u32, fold::Cell> = BTreeMap::new();
    for ((_, _, class), cell) in &total.by_time {
        by_class.entry(*class).or_default().merge(cell);
    }
    for (class, cell) in by_class {
        let category = total.classifier.key(class).0.to_ascii_lowercase();
        let totals = categories.entry(category).or_default();
        totals.count += cell.count;
        totals.time_s += cell.time as f64 / TIME_RESOLUTION;
        totals.size += cell.size;
    }
    categories
}

/// Moves each (bin, process, class) cell to the bin of its earliest start (see
/// [`Binning::Dfanalyzer009`]).
fn rebin_by_first_start(cells: fold::Cells, first_ts: i64, width: i64) -> fold::Cells {
    let mut moved = fold::Cells::default();
    for ((_, process, class), cell) in cells {
        let bin = (cell.first_start.div_euclid(width) - first_ts.div_euclid(width)).max(0) as u32;
        moved.entry((bin, process, class)).or_default().merge(&cell);
    }
    moved
}

/// Interns `texts`: the id of each, and the distinct texts by id.
fn intern(texts: impl Iterator<Item = String>) -> (Vec<u32>, Vec<String>) {
    let mut ids: FxHashMap<String, u32> = FxHashMap::default();
    let mut distinct = Vec::new();
    let mut of = Vec::new();
    for text in texts {
        let id = *ids.entry(text.clone()).or_insert_with(|| {
            distinct.push(text);
            (distinct.len() - 1) as u32
        });
        of.push(id);
    }
    (of, distinct)
}

/// The directory of a path (`/a/b` for `/a/b/c.npz`; `.` when there is none).
pub fn directory(path: &str) -> String {
    match path.rfind('/') {
        Some(0) => "/".into(),
        Some(slash) => path[..slash].to_string(),
        None => ".".into(),
    }
}

/// The path with every digit replaced by `[0-9]` (DFAnalyzer's `file_pattern`).
pub fn pattern(path: &str) -> String {
    let mut text = String::with_capacity(path.len());
    for character in path.chars() {
        if character.is_ascii_digit() {
            text.push_str("[0-9]");
        } else {
            text.push(character);
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_and_patterns() {
        assert_eq!(directory("/data/train/img_12.npz"), "/data/train");
        assert_eq!(directory("/x"), "/");
        assert_eq!(directory("x"), ".");
        assert_eq!(pattern("/d/img_12.npz"), "/d/img_[0-9][0-9].npz");
    }

    #[test]
    fn auto_detects_dlio_generations() {
        let set = |names: &[&str]| names.iter().map(|name| (*name).to_string()).collect();
        assert_eq!(detect_preset(&set(&["pipeline", "posix", "ai_framework"])), PresetName::Dlio);
        assert_eq!(detect_preset(&set(&["ai_framework", "data_loader", "posix"])), PresetName::DlioPrev);
        assert_eq!(detect_preset(&set(&["posix", "stdio", "dftracer"])), PresetName::Posix);
        assert_eq!(detect_preset(&set(&["posix", "mpi"])), PresetName::Generic);
    }

    #[test]
    fn options_are_checked() {
        for name in PRESET_NAMES.iter().chain(&["auto"]) {
            assert_eq!(
                PresetName::parse(name).map(PresetName::name),
                Some(*name),
                "every preset has its name"
            );
        }
        assert_eq!(PresetName::parse("nope"), None);
        let bad = AnalysisOptions { time_granularity_s: 0.0, ..AnalysisOptions::default() };
        assert!(matches!(check_options(&bad), Err(AnalysisError::Granularity(_))));
    }
}
