//! Views: the folded cells grouped by one key (time bin, process, file, ...) with every metric of
//! the specification (`shared/research/analysis-semantics.md` §3.5).
//!
//! # Overview
//!
//! [`compute_view`] expands each (key, process, class) cell into the layer slots of its class,
//! groups by (key, slot) and derives, per row: sums; per-process statistics (the bottleneck
//! process's time `time_proc_max`, min, mean, sample standard deviation); per-call statistics;
//! bandwidth, operations per second and intensity; fractions of the view's total; `ops_slope`
//! (time share over operation share) and its percentile rank; the fraction of the parent layer
//! and of the boundary layer in the same row; and the unoverlapped time of asynchronous layers,
//! binned (DFAnalyzer: the row's bottleneck I/O time minus its bottleneck compute time) or exact
//! (the most-stalled process's I/O time not covered by compute).
//!
//! [`summarize`] reduces a view to one line per layer, as DFAnalyzer's summary does: over time
//! bins and files the layer time is the sum of the rows' bottleneck-process times; over
//! processes it is the largest process time.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;
use serde::Serialize;

use crate::fold::Cell;
use crate::preset::{Preset, Slot};

/// Trace units per second (DFTracer timestamps are microseconds).
pub const TIME_RESOLUTION: f64 = 1e6;

/// A kind of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ViewType {
    /// Time bins.
    TimeRange,
    /// Processes (`app#host#pid#tid`).
    ProcName,
    /// Hosts.
    HostName,
    /// Files.
    FileName,
    /// Directories of files.
    FileDir,
    /// File names with digits generalised (`img_[0-9][0-9].npz`).
    FilePattern,
    /// Epochs.
    Epoch,
    /// Steps.
    Step,
}

/// Every view type.
pub const VIEW_TYPES: [ViewType; 8] = [
    ViewType::TimeRange,
    ViewType::ProcName,
    ViewType::HostName,
    ViewType::FileName,
    ViewType::FileDir,
    ViewType::FilePattern,
    ViewType::Epoch,
    ViewType::Step,
];

impl ViewType {
    /// The name used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            ViewType::TimeRange => "time_range",
            ViewType::ProcName => "proc_name",
            ViewType::HostName => "host_name",
            ViewType::FileName => "file_name",
            ViewType::FileDir => "file_dir",
            ViewType::FilePattern => "file_pattern",
            ViewType::Epoch => "epoch",
            ViewType::Step => "step",
        }
    }

    /// The name for people (`Time Period`).
    pub fn label(self) -> &'static str {
        match self {
            ViewType::TimeRange => "Time Period",
            ViewType::ProcName => "Process",
            ViewType::HostName => "Host",
            ViewType::FileName => "File",
            ViewType::FileDir => "Directory",
            ViewType::FilePattern => "File Pattern",
            ViewType::Epoch => "Epoch",
            ViewType::Step => "Step",
        }
    }

    /// The view type named `name`.
    pub fn parse(name: &str) -> Option<ViewType> {
        VIEW_TYPES.into_iter().find(|view| view.name() == name)
    }

    /// Whether rows are processes (the per-process statistics are the row itself).
    pub fn is_process(self) -> bool {
        self == ViewType::ProcName
    }
}

/// How unoverlapped time is measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum OverlapMode {
    /// Interval unions per process tree, per row.
    Exact,
    /// DFAnalyzer's approximation: per view row, bottleneck I/O time minus bottleneck compute
    /// time.
    Binned,
}

/// The metrics of one (key, layer slot) row. Times in seconds, sizes in bytes.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RowMetrics {
    /// Sum of row times.
    pub time_sum: f64,
    /// Rows.
    pub count_sum: u64,
    /// Sum of sizes (`None` when no row had one).
    pub size_sum: Option<u64>,
    /// Rows with a size.
    pub sized_count: u64,
    /// Processes with rows.
    pub process_count: u64,
    /// Largest per-process time (the bottleneck process).
    pub time_proc_max: f64,
    /// Smallest per-process time.
    pub time_proc_min: f64,
    /// Mean per-process time.
    pub time_proc_mean: f64,
    /// Sample standard deviation of per-process times (`None` for one process).
    pub time_proc_std: Option<f64>,
    /// Shortest call.
    pub time_call_min: f64,
    /// Longest call.
    pub time_call_max: f64,
    /// Mean call time.
    pub time_call_mean: f64,
    /// Standard deviation of call times.
    pub time_call_std: f64,
    /// Smallest size.
    pub size_call_min: Option<u64>,
    /// Largest size.
    pub size_call_max: Option<u64>,
    /// Mean size over rows with a size.
    pub size_call_mean: Option<f64>,
    /// Standard deviation of sizes.
    pub size_call_std: Option<f64>,
    /// Bytes per second of the bottleneck-process time.
    pub bandwidth: Option<f64>,
    /// Operations per second of the bottleneck-process time.
    pub ops_per_s: Option<f64>,
    /// Operations per byte.
    pub intensity: Option<f64>,
    /// Share of the view's operations in this slot.
    pub count_frac_total: f64,
    /// Share of the view's bottleneck-process time in this slot.
    pub time_proc_frac_total: f64,
    /// Share of the view's summed time in this slot.
    pub time_call_frac_total: f64,
    /// Share of the view's bytes in this slot.
    pub size_frac_total: Option<f64>,
    /// Time share over operation share (above 1: slower than average).
    pub ops_slope: Option<f64>,
    /// Percentile rank of `ops_slope` among the slot's rows.
    pub ops_percentile: Option<f64>,
    /// Bottleneck-process time over the parent layer's in the same row.
    pub time_proc_frac_parent: Option<f64>,
    /// Bottleneck-process time over the boundary layer's in the same row.
    pub time_proc_frac_boundary: Option<f64>,
    /// Unoverlapped time (asynchronous layers with a compute layer only).
    pub u_time: Option<f64>,
    /// Rows counted as unoverlapped.
    pub u_count: Option<u64>,
    /// Bytes of those rows.
    pub u_size: Option<u64>,
}

/// One row of a view.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ViewRow {
    /// The key (`12` for a time bin, a path for a file, `app#host#pid#tid` for a process).
    pub key: String,
    /// Numeric key for bins, epochs and steps (for ordering).
    #[serde(skip)]
    pub order: u64,
    /// Slot index ([`Preset::slots`]).
    #[serde(skip)]
    pub slot: usize,
    /// Layer name.
    pub layer: String,
    /// Derived metric, when the row is one.
    pub derived: Option<&'static str>,
    /// Metrics.
    pub metrics: RowMetrics,
}

impl ViewRow {
    /// The slot's column prefix, as [`Slot::name`] gives it: `posix` or `posix_read`.
    pub fn slot_name(&self) -> String {
        match self.derived {
            Some(derived) => format!("{}_{derived}", self.layer),
            None => self.layer.clone(),
        }
    }
}

/// The summary of one layer over a view.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LayerSummary {
    /// Layer name.
    pub layer: String,
    /// Name for people.
    pub label: String,
    /// Parent layer.
    pub parent: Option<String>,
    /// Time, in seconds.
    pub time_s: f64,
    /// Rows.
    pub count: u64,
    /// Bytes (layers that carry bytes only).
    pub size_bytes: Option<f64>,
    /// Rows with a size (the operations that moved bytes).
    pub sized_count: u64,
    /// Operations per second.
    pub ops_per_s: Option<f64>,
    /// Bytes per second.
    pub bandwidth_bps: Option<f64>,
    /// Files the layer touched.
    pub num_files: u64,
    /// Processes with rows in the layer.
    pub num_processes: u64,
    /// Unoverlapped time (asynchronous layers, with a compute layer).
    pub u_time_s: Option<f64>,
    /// Unoverlapped rows.
    pub u_count: Option<u64>,
    /// Unoverlapped bytes.
    pub u_size_bytes: Option<f64>,
    /// Time not accounted for by child layers (layers with children).
    pub overhead_time_s: Option<f64>,
    /// Time over the parent layer's time.
    pub time_frac_parent: Option<f64>,
    /// Time over the boundary (first) layer's time.
    pub time_frac_boundary: Option<f64>,
}

impl LayerSummary {
    /// Hidden share of the layer's time, `1 - u_time/time`, when measured.
    pub fn overlap_time(&self) -> Option<f64> {
        overlap(self.u_time_s?, self.time_s)
    }

    /// Hidden share of the layer's operations.
    pub fn overlap_count(&self) -> Option<f64> {
        overlap(self.u_count? as f64, self.count as f64)
    }

    /// Hidden share of the layer's bytes.
    pub fn overlap_size(&self) -> Option<f64> {
        overlap(self.u_size_bytes?, self.size_bytes?)
    }
}

fn overlap(unoverlapped: f64, total: f64) -> Option<f64> {
    (total > 0.0).then(|| (1.0 - unoverlapped / total).max(0.0))
}

/// A computed view.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct View {
    /// Kind.
    pub view: ViewType,
    /// Rows, by key then slot.
    pub rows: Vec<ViewRow>,
    /// One line per layer.
    pub summary: Vec<LayerSummary>,
}

/// The grouping of a view: the key of each source key, and the key texts.
pub struct Grouping<'g> {
    /// Key id of a (source key, process) pair.
    pub key_of: &'g (dyn Fn(u32, u32) -> u32 + Sync),
    /// Text of a key id.
    pub text_of: &'g (dyn Fn(u32) -> String + Sync),
    /// Numeric order of a key id.
    pub order_of: &'g (dyn Fn(u32) -> u64 + Sync),
}

/// Inputs of a view computation.
pub struct ViewInput<'v> {
    /// The preset.
    pub preset: &'v Preset,
    /// Slots of each class.
    pub class_slots: &'v [Box<[u16]>],
    /// Overlap mode.
    pub overlap: OverlapMode,
    /// Files and processes of each layer.
    pub layer_reach: &'v [(u64, u64)],
}

fn seconds(units: u64) -> f64 {
    units as f64 / TIME_RESOLUTION
}

fn ratio(numerator: f64, denominator: f64) -> Option<f64> {
    (denominator > 0.0 && numerator.is_finite()).then(|| numerator / denominator)
}

/// A (key, slot) row before its cross-layer metrics: its metrics, the largest uncovered time of
/// one of its processes, and the uncovered count and size of all its rows.
type GroupedRow = (u32, usize, RowMetrics, u64, (u64, u64));

/// From this many cells on, a view's rows are grouped on two threads, each taking the keys of
/// one parity (a file view has a cell per file, process and class; on a trace with many files,
/// grouping them was most of the analysis's finish, which otherwise runs on one core after the
/// scan).
const CELLS_SPLIT: usize = 1 << 16;

/// Computes view `view` from `cells` grouped by `grouping`.
pub fn compute_view<'c, I>(view: ViewType, cells: I, grouping: &Grouping<'_>, input: &ViewInput<'_>) -> View
where
    I: Iterator<Item = (&'c (u32, u32, u32), &'c Cell)> + Clone + Send,
{
    let split = cells.size_hint().0 >= CELLS_SPLIT;
    compute_view_split(view, cells, grouping, input, split)
}

/// [`compute_view`], its rows grouped on two threads when `split`.
fn compute_view_split<'c, I>(
    view: ViewType,
    cells: I,
    grouping: &Grouping<'_>,
    input: &ViewInput<'_>,
    split: bool,
) -> View
where
    I: Iterator<Item = (&'c (u32, u32, u32), &'c Cell)> + Clone + Send,
{
    let slots = input.preset.slots();
    let mut rows = if split {
        std::thread::scope(|scope| {
            let odd = cells.clone();
            let odd = scope.spawn(move || grouped_rows(view, odd, grouping, input, (1, 2)));
            let even = grouped_rows(view, cells, grouping, input, (0, 2));
            match odd.join() {
                Ok(odd) => merge_by_key(even, odd),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        })
    } else {
        grouped_rows(view, cells, grouping, input, (0, 1))
    };
    let position: FxHashMap<(u32, usize), usize> =
        rows.iter().enumerate().map(|(index, (key, slot, ..))| ((*key, *slot), index)).collect();
    let layer_slot: Vec<usize> = (0..input.preset.layers.len())
        .map(|layer| slots.iter().position(|slot| slot.layer == layer && slot.derived.is_none()).unwrap_or(0))
        .collect();
    // Cross-layer metrics within each row key.
    let compute_slot = input.preset.compute.map(|layer| layer_slot[layer]);
    let snapshot: Vec<f64> = rows.iter().map(|(_, _, metrics, ..)| metrics.time_proc_max).collect();
    for (key, slot, metrics, stalled, _) in &mut rows {
        let layer = &input.preset.layers[slots[*slot].layer];
        let same_key = |other_slot: usize| position.get(&(*key, other_slot)).map(|index| snapshot[*index]);
        let parent_time = match slots[*slot].derived {
            Some(_) => same_key(layer_slot[slots[*slot].layer]),
            None => layer.parent.and_then(|parent| same_key(layer_slot[parent])),
        };
        metrics.time_proc_frac_parent = parent_time.and_then(|parent| ratio(metrics.time_proc_max, parent));
        metrics.time_proc_frac_boundary =
            same_key(layer_slot[0]).and_then(|boundary| ratio(metrics.time_proc_max, boundary));
        if layer.asynchronous && slots[*slot].derived.is_none() && compute_slot.is_some() {
            let unoverlapped = match input.overlap {
                OverlapMode::Binned => {
                    let compute = compute_slot.and_then(same_key).unwrap_or(0.0);
                    (metrics.time_proc_max - compute).max(0.0)
                }
                OverlapMode::Exact => seconds(*stalled),
            };
            metrics.u_time = Some(unoverlapped);
        }
    }
    // Unoverlapped counts and sizes.
    for (_, slot, metrics, ..) in &mut rows {
        let Some(unoverlapped) = metrics.u_time else { continue };
        let keeps_size = input.preset.layers[slots[*slot].layer].keeps_size;
        match input.overlap {
            OverlapMode::Binned => {
                let counted = unoverlapped > 0.0;
                metrics.u_count = Some(if counted { metrics.count_sum } else { 0 });
                metrics.u_size = keeps_size.then(|| if counted { metrics.size_sum.unwrap_or(0) } else { 0 });
            }
            OverlapMode::Exact => {}
        }
    }
    if input.overlap == OverlapMode::Exact {
        // Exact counts come from the cells, summed per row when the slot is measured.
        for (_, slot, metrics, _, (count, size)) in &mut rows {
            if metrics.u_time.is_some() {
                let (count, size) = (*count, *size);
                metrics.u_count = Some(count);
                metrics.u_size = input.preset.layers[slots[*slot].layer].keeps_size.then_some(size);
            }
        }
    }
    view_fractions(&mut rows);
    let summary = summarize(view, &rows, input);
    View { view, rows: ordered_rows(rows, grouping, input), summary }
}

/// The rows as the view shows them: by the key's order, then its text, then slot. Each key's
/// text and order are made once (the rows come in runs of one key), the keys are ranked by
/// them, and the rows sorted by (rank, slot): the order a sort of the rows by (order, text,
/// slot) gives, with a text compared once per key pair instead of once per row pair.
fn ordered_rows(rows: Vec<GroupedRow>, grouping: &Grouping<'_>, input: &ViewInput<'_>) -> Vec<ViewRow> {
    let slots = input.preset.slots();
    // Each distinct key with its order and text, and the index of its entry for every row.
    let mut keys: Vec<(u64, String)> = Vec::new();
    let mut key_of_row: Vec<usize> = Vec::with_capacity(rows.len());
    let mut last: Option<u32> = None;
    for (key, ..) in &rows {
        if last != Some(*key) {
            keys.push(((grouping.order_of)(*key), (grouping.text_of)(*key)));
            last = Some(*key);
        }
        key_of_row.push(keys.len() - 1);
    }
    // Keys equal in order and text share a rank, so that their rows interleave by slot as a
    // sort of the rows would interleave them.
    let mut by_rank: Vec<usize> = (0..keys.len()).collect();
    by_rank.sort_by(|a, b| keys[*a].cmp(&keys[*b]));
    let mut rank = vec![0usize; keys.len()];
    for (position, pair) in by_rank.iter().enumerate() {
        rank[*pair] = match position.checked_sub(1).map(|before| by_rank[before]) {
            Some(before) if keys[before] == keys[*pair] => rank[before],
            _ => position,
        };
    }
    // Stable: rows equal in rank and slot keep their order, as they did in the sort by text.
    // The row indices are sorted, not the rows (a row is a few hundred bytes), and each row is
    // moved once, to its place.
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by_key(|&index| (rank[key_of_row[index]], rows[index].1));
    let mut rows: Vec<Option<GroupedRow>> = rows.into_iter().map(Some).collect();
    let mut view_rows = Vec::with_capacity(rows.len());
    for index in order {
        let Some((_, slot, metrics, ..)) = rows.get_mut(index).and_then(Option::take) else { continue };
        let (order, text) = &keys[key_of_row[index]];
        view_rows.push(ViewRow {
            key: text.clone(),
            order: *order,
            slot,
            layer: input.preset.layers[slots[slot].layer].name.clone(),
            derived: slots[slot].derived.map(|derived| derived.name),
            metrics,
        });
    }
    view_rows
}

/// The rows of the keys in `part` (those whose key leaves remainder `part.0` when divided by
/// `part.1`), in (key, slot) order: each (key, slot)'s cells summed, and its time per process.
fn grouped_rows<'c>(
    view: ViewType,
    cells: impl Iterator<Item = (&'c (u32, u32, u32), &'c Cell)>,
    grouping: &Grouping<'_>,
    input: &ViewInput<'_>,
    part: (u32, u32),
) -> Vec<GroupedRow> {
    let slots = input.preset.slots();
    // One entry per (cell, slot), sorted by (key, slot, process): each (key, slot) is then a
    // run, and each of its processes a run within it. (Two hash tables, of the (key, slot) sums
    // and of the per-process times, cost a random access each per entry, and the per-process
    // table was sorted all the same.)
    let mut entries: Vec<((u32, u16, u32), &Cell)> =
        Vec::with_capacity(cells.size_hint().0 / part.1 as usize);
    for ((source, process, class), cell) in cells {
        let key = (grouping.key_of)(*source, *process);
        if key % part.1 != part.0 {
            continue;
        }
        let Some(class_slots) = input.class_slots.get(*class as usize) else { continue };
        for slot in class_slots {
            entries.push(((key, *slot, *process), cell));
        }
    }
    entries.sort_unstable_by_key(|(key, _)| *key);
    let mut rows: Vec<GroupedRow> = Vec::new();
    let mut process_times: Vec<f64> = Vec::new();
    let mut index = 0;
    while let Some(&((key, slot, _), _)) = entries.get(index) {
        let mut total = Cell::default();
        let mut stalled = 0;
        process_times.clear();
        while let Some(&((_, _, process), _)) =
            entries.get(index).filter(|((k, s, _), _)| (*k, *s) == (key, slot))
        {
            // Only what per-process statistics need: the process's time and uncovered time.
            let (mut time, mut uncovered) = (0u64, 0u64);
            while let Some((_, cell)) = entries.get(index).filter(|(entry, _)| *entry == (key, slot, process))
            {
                total.merge(cell);
                time += cell.time;
                uncovered += cell.uncovered;
                index += 1;
            }
            process_times.push(seconds(time));
            stalled = stalled.max(uncovered);
        }
        let metrics = row_metrics(view, &total, &process_times, slots[slot as usize], input.preset);
        rows.push((key, slot as usize, metrics, stalled, (total.uncovered_count, total.uncovered_size)));
    }
    rows
}

/// Two runs of rows in (key, slot) order, with no key in both, as one run in that order.
fn merge_by_key(first: Vec<GroupedRow>, second: Vec<GroupedRow>) -> Vec<GroupedRow> {
    let mut merged = Vec::with_capacity(first.len() + second.len());
    let mut first = first.into_iter().peekable();
    let mut second = second.into_iter().peekable();
    loop {
        let take_first = match (first.peek(), second.peek()) {
            (Some(one), Some(other)) => (one.0, one.1) < (other.0, other.1),
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => return merged,
        };
        merged.extend(if take_first { first.next() } else { second.next() });
    }
}

/// Metrics of one (key, slot) from the sum of its rows and its per-process times (seconds).
fn row_metrics(
    view: ViewType,
    total: &Cell,
    process_times: &[f64],
    slot: Slot,
    preset: &Preset,
) -> RowMetrics {
    let processes = process_times.len() as f64;
    let time_sum = seconds(total.time);
    let (proc_max, proc_min, proc_mean, proc_std) = if view.is_process() {
        (time_sum, time_sum, time_sum, None)
    } else {
        let max = process_times.iter().copied().fold(0.0, f64::max);
        let min = process_times.iter().copied().fold(f64::INFINITY, f64::min);
        let mean = time_sum / processes.max(1.0);
        let std = (processes > 1.0).then(|| {
            let variance =
                process_times.iter().map(|time| (time - mean).powi(2)).sum::<f64>() / (processes - 1.0);
            variance.sqrt()
        });
        (max, if min.is_finite() { min } else { 0.0 }, mean, std)
    };
    let count = total.count as f64;
    let call_mean = time_sum / count.max(1.0);
    let call_variance = (total.time_squares as f64 / count.max(1.0)) / (TIME_RESOLUTION * TIME_RESOLUTION)
        - call_mean * call_mean;
    let sized = total.sized as f64;
    let keeps_size = preset.layers[slot.layer].keeps_size
        || slot.derived.is_some_and(|_| preset.layers[slot.layer].keeps_size);
    let size_sum = (total.sized > 0).then_some(total.size);
    let size_mean = (total.sized > 0).then(|| total.size as f64 / sized);
    RowMetrics {
        time_sum,
        count_sum: total.count,
        size_sum,
        sized_count: total.sized,
        process_count: process_times.len() as u64,
        time_proc_max: proc_max,
        time_proc_min: proc_min,
        time_proc_mean: proc_mean,
        time_proc_std: proc_std,
        time_call_min: if total.count > 0 { seconds(total.time_min) } else { 0.0 },
        time_call_max: seconds(total.time_max),
        time_call_mean: call_mean,
        time_call_std: call_variance.max(0.0).sqrt(),
        size_call_min: (total.sized > 0).then_some(total.size_min),
        size_call_max: (total.sized > 0).then_some(total.size_max),
        size_call_mean: size_mean,
        size_call_std: size_mean
            .map(|mean| (total.size_squares as f64 / sized - mean * mean).max(0.0).sqrt()),
        bandwidth: if keeps_size { size_sum.and_then(|size| ratio(size as f64, proc_max)) } else { None },
        ops_per_s: ratio(count, proc_max),
        intensity: size_sum.and_then(|size| ratio(count, size as f64)),
        ..RowMetrics::default()
    }
}

/// Fractions of the view's totals, `ops_slope` and its percentile, per slot.
fn view_fractions(rows: &mut [GroupedRow]) {
    let mut totals: BTreeMap<usize, (f64, f64, f64, f64)> = BTreeMap::new();
    for (_, slot, metrics, ..) in rows.iter() {
        let total = totals.entry(*slot).or_default();
        total.0 += metrics.count_sum as f64;
        total.1 += metrics.time_proc_max;
        total.2 += metrics.time_sum;
        total.3 += metrics.size_sum.unwrap_or(0) as f64;
    }
    for (_, slot, metrics, ..) in rows.iter_mut() {
        let (count, proc_time, time, size) = totals[slot];
        metrics.count_frac_total = ratio(metrics.count_sum as f64, count).unwrap_or(0.0);
        metrics.time_proc_frac_total = ratio(metrics.time_proc_max, proc_time).unwrap_or(0.0);
        metrics.time_call_frac_total = ratio(metrics.time_sum, time).unwrap_or(0.0);
        metrics.size_frac_total = metrics.size_sum.and_then(|value| ratio(value as f64, size));
        metrics.ops_slope = ratio(metrics.time_proc_frac_total, metrics.count_frac_total);
    }
    // Percentile rank (average rank of ties, over rows with a slope), per slot.
    let mut by_slot: BTreeMap<usize, Vec<(f64, usize)>> = BTreeMap::new();
    for (index, (_, slot, metrics, ..)) in rows.iter().enumerate() {
        if let Some(slope) = metrics.ops_slope {
            by_slot.entry(*slot).or_default().push((slope, index));
        }
    }
    for values in by_slot.values_mut() {
        values.sort_by(|a, b| a.0.total_cmp(&b.0));
        let total = values.len() as f64;
        let mut start = 0;
        while start < values.len() {
            let end = values[start..]
                .iter()
                .position(|(slope, _)| slope.total_cmp(&values[start].0).is_ne())
                .map_or(values.len(), |offset| start + offset);
            let rank = (start + 1 + end) as f64 / 2.0;
            for (_, index) in &values[start..end] {
                rows[*index].2.ops_percentile = Some(rank / total);
            }
            start = end;
        }
    }
}

/// One line per layer over the rows of a view.
fn summarize(view: ViewType, rows: &[GroupedRow], input: &ViewInput<'_>) -> Vec<LayerSummary> {
    let preset = input.preset;
    let slots = preset.slots();
    let mut lines: Vec<LayerSummary> = preset
        .layers
        .iter()
        .enumerate()
        .map(|(index, layer)| LayerSummary {
            layer: layer.name.clone(),
            label: layer.label.clone(),
            parent: layer.parent.map(|parent| preset.layers[parent].name.clone()),
            time_s: 0.0,
            count: 0,
            size_bytes: layer.keeps_size.then_some(0.0),
            sized_count: 0,
            ops_per_s: None,
            bandwidth_bps: None,
            num_files: input.layer_reach.get(index).map_or(0, |reach| reach.0),
            num_processes: input.layer_reach.get(index).map_or(0, |reach| reach.1),
            u_time_s: None,
            u_count: None,
            u_size_bytes: None,
            overhead_time_s: None,
            time_frac_parent: None,
            time_frac_boundary: None,
        })
        .collect();
    for (_, slot, metrics, ..) in rows {
        let slot = slots[*slot];
        if slot.derived.is_some() {
            continue;
        }
        let line = &mut lines[slot.layer];
        if view.is_process() {
            line.time_s = line.time_s.max(metrics.time_proc_max);
        } else {
            line.time_s += metrics.time_proc_max;
        }
        line.count += metrics.count_sum;
        line.sized_count += metrics.sized_count;
        if let Some(size) = line.size_bytes.as_mut() {
            *size += metrics.size_sum.unwrap_or(0) as f64;
        }
        if let Some(unoverlapped) = metrics.u_time {
            let time = line.u_time_s.get_or_insert(0.0);
            if view.is_process() {
                *time = time.max(unoverlapped);
            } else if unoverlapped > 0.0 {
                *time += unoverlapped;
            }
            *line.u_count.get_or_insert(0) += metrics.u_count.unwrap_or(0);
            if preset.layers[slot.layer].keeps_size {
                *line.u_size_bytes.get_or_insert(0.0) += metrics.u_size.unwrap_or(0) as f64;
            }
        }
    }
    let measured = preset.measures_overlap();
    for (index, line) in lines.iter_mut().enumerate() {
        let layer = &preset.layers[index];
        if measured && layer.asynchronous && line.u_time_s.is_none() {
            line.u_time_s = Some(0.0);
            line.u_count = Some(0);
            line.u_size_bytes = layer.keeps_size.then_some(0.0);
        }
        line.ops_per_s = (line.count > 0).then(|| ratio(line.count as f64, line.time_s)).flatten();
        line.bandwidth_bps =
            line.size_bytes.and_then(|size| if size > 0.0 { ratio(size, line.time_s) } else { None });
    }
    let times: Vec<f64> = lines.iter().map(|line| line.time_s).collect();
    for (index, line) in lines.iter_mut().enumerate() {
        let children: Vec<usize> = preset.children(index).collect();
        if !children.is_empty() {
            let children_time: f64 = children.iter().map(|child| times[*child]).sum();
            line.overhead_time_s = Some((times[index] - children_time).max(0.0));
        }
        line.time_frac_parent =
            preset.layers[index].parent.and_then(|parent| ratio(times[index], times[parent]));
        line.time_frac_boundary = ratio(times[index], times[0]);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preset::PresetName;

    /// The rows grouped the way they were before the sort: the (key, slot) sums and the
    /// per-process times in two hash tables, the second then sorted (the model the sorted
    /// grouping is held to).
    fn grouped_rows_by_tables<'c>(
        view: ViewType,
        cells: impl Iterator<Item = (&'c (u32, u32, u32), &'c Cell)>,
        grouping: &Grouping<'_>,
        input: &ViewInput<'_>,
    ) -> Vec<GroupedRow> {
        let slots = input.preset.slots();
        let mut totals: FxHashMap<(u32, u16), Cell> = FxHashMap::default();
        let mut per_process: FxHashMap<(u32, u16, u32), (u64, u64)> = FxHashMap::default();
        for ((source, process, class), cell) in cells {
            let key = (grouping.key_of)(*source, *process);
            let Some(class_slots) = input.class_slots.get(*class as usize) else { continue };
            for slot in class_slots {
                totals.entry((key, *slot)).or_default().merge(cell);
                let times = per_process.entry((key, *slot, *process)).or_default();
                times.0 += cell.time;
                times.1 += cell.uncovered;
            }
        }
        let mut entries: Vec<_> = per_process.into_iter().collect();
        entries.sort_unstable_by_key(|(key, _)| *key);
        let mut rows = Vec::new();
        for group in entries.chunk_by(|(one, _), (other, _)| (one.0, one.1) == (other.0, other.1)) {
            let (key, slot, _) = group[0].0;
            let total = totals.get(&(key, slot)).copied().unwrap_or_default();
            let process_times: Vec<f64> = group.iter().map(|(_, (time, _))| seconds(*time)).collect();
            let stalled = group.iter().map(|(_, (_, uncovered))| *uncovered).max().unwrap_or(0);
            let metrics = row_metrics(view, &total, &process_times, slots[slot as usize], input.preset);
            rows.push((key, slot as usize, metrics, stalled, (total.uncovered_count, total.uncovered_size)));
        }
        rows
    }

    /// The rows come out as the sort they replaced put them: by (order, text, slot), rows equal
    /// in all three in their first order, with texts shared by several keys, texts out of the
    /// keys' order, and orders that tie.
    #[test]
    fn rows_are_ordered_as_the_sort_by_order_text_and_slot_orders_them() {
        let Some(name) = PresetName::parse("posix") else { panic!("no posix preset") };
        let Some(preset) = Preset::named(name, &std::collections::BTreeSet::new()) else {
            panic!("no preset")
        };
        let slot_count = preset.slots().len();
        let class_slots: Vec<Box<[u16]>> = Vec::new();
        let layer_reach = vec![(3, 4); preset.layers.len()];
        let input = ViewInput {
            preset: &preset,
            class_slots: &class_slots,
            overlap: OverlapMode::Exact,
            layer_reach: &layer_reach,
        };
        // Rows in (key, slot) order, as grouping makes them; the count tells equal rows apart.
        let mut rows: Vec<GroupedRow> = Vec::new();
        for key in 0..60u32 {
            for slot in (0..slot_count).filter(|slot| !(key as usize + slot).is_multiple_of(3)) {
                let metrics =
                    RowMetrics { count_sum: u64::from(key) * 100 + slot as u64, ..RowMetrics::default() };
                rows.push((key, slot, metrics, 0, (0, 0)));
            }
        }
        let texts = |key: u32| format!("name {}", (key * 7) % 23);
        let orders = |key: u32| u64::from(key % 5);
        let zero = |_: u32| 0u64;
        let first = |key: u32, _: u32| key;
        for order_of in [&orders as &(dyn Fn(u32) -> u64 + Sync), &zero] {
            let grouping = Grouping { key_of: &first, text_of: &texts, order_of };
            let mut expected: Vec<(String, u64, usize, u64)> = rows
                .iter()
                .map(|(key, slot, metrics, ..)| (texts(*key), order_of(*key), *slot, metrics.count_sum))
                .collect();
            expected.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)).then(a.2.cmp(&b.2)));
            let found: Vec<(String, u64, usize, u64)> = ordered_rows(rows.clone(), &grouping, &input)
                .into_iter()
                .map(|row| (row.key, row.order, row.slot, row.metrics.count_sum))
                .collect();
            assert_eq!(found, expected);
        }
    }

    /// Sorted, the rows are those the two tables gave; grouped on two threads (keys split by
    /// parity, then merged), a view is the one grouped on one: the same rows in the same order
    /// with the same metrics, for every view type's key shape (many keys, few keys, keys of one
    /// parity only).
    #[test]
    fn a_view_split_in_two_is_the_view_whole() {
        let Some(name) = PresetName::parse("posix") else { panic!("no posix preset") };
        let Some(preset) = Preset::named(name, &std::collections::BTreeSet::new()) else {
            panic!("no preset")
        };
        let slot_count = preset.slots().len() as u16;
        let class_slots: Vec<Box<[u16]>> =
            (0..slot_count).map(|slot| (0..=slot).collect::<Vec<u16>>().into_boxed_slice()).collect();
        let layer_reach = vec![(3, 4); preset.layers.len()];
        let mut cells: crate::fold::Cells = crate::fold::Cells::default();
        let mut state = 12_345_u64;
        let mut next = |bound: u64| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) % bound
        };
        for _ in 0..5_000 {
            let key = (next(700) as u32, next(40) as u32, next(u64::from(slot_count)) as u32);
            let cell = cells.entry(key).or_default();
            let size = (next(3) > 0).then(|| next(1 << 20));
            let uncovered = (next(2) == 0).then(|| next(50));
            cell.add(next(1_000_000) as i64, next(10_000), size, uncovered);
        }
        for overlap in [OverlapMode::Exact, OverlapMode::Binned] {
            let input =
                ViewInput { preset: &preset, class_slots: &class_slots, overlap, layer_reach: &layer_reach };
            let names = |key: u32| format!("key {key}");
            let zero = |_: u32| 0u64;
            let numeric = |key: u32| u64::from(key);
            let first = |key: u32, _: u32| key;
            let second = |_: u32, process: u32| process;
            let even = |key: u32, _: u32| key * 2;
            let groupings: [(ViewType, Grouping<'_>); 3] = [
                (ViewType::FileName, Grouping { key_of: &first, text_of: &names, order_of: &zero }),
                (ViewType::ProcName, Grouping { key_of: &second, text_of: &names, order_of: &zero }),
                (ViewType::TimeRange, Grouping { key_of: &even, text_of: &names, order_of: &numeric }),
            ];
            for (view, grouping) in &groupings {
                assert_eq!(
                    grouped_rows(*view, cells.iter(), grouping, &input, (0, 1)),
                    grouped_rows_by_tables(*view, cells.iter(), grouping, &input),
                    "{view:?} {overlap:?}"
                );
                let whole = compute_view_split(*view, cells.iter(), grouping, &input, false);
                let split = compute_view_split(*view, cells.iter(), grouping, &input, true);
                assert!(whole.rows.len() > 30, "{view:?}: {} rows", whole.rows.len());
                assert_eq!(split, whole, "{view:?} {overlap:?}");
            }
        }
    }
}
