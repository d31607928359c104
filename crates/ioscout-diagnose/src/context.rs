//! What rules read: the analysis, totals per layer slot, per-process times, and the parameters
//! of the system the trace ran on.
//!
//! # Overview
//!
//! [`Context::new`] sums the `proc_name` view (always computed) into [`SlotTotals`] per layer
//! slot (`posix`, `posix_read`, `reader_posix_metadata`, ...): total call time, operations, bytes,
//! operations that moved bytes, the shortest and longest call, and each process's time. Rules ask
//! by slot name and get `None` when the preset has no such slot.

use std::collections::BTreeMap;

use ioscout_analysis::{Analysis, LayerSummary, ViewType};

/// System facts that thresholds depend on.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Parameters {
    /// Read bandwidth the file system can give one process, in bytes per second, when known
    /// (DFAnalyzer's `dlio.yaml` hard-codes 171e6 for its Lustre; here it is a fact of the
    /// system the user supplies, and rules that need it stay silent without it).
    pub bandwidth_ceiling_bps: Option<f64>,
}

/// Totals of one layer slot over the whole trace.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SlotTotals {
    /// Sum of call times, in seconds.
    pub time_s: f64,
    /// Operations.
    pub count: u64,
    /// Bytes moved.
    pub size: u64,
    /// Operations that moved bytes.
    pub sized: u64,
    /// Shortest call, in seconds.
    pub call_min_s: f64,
    /// Longest call, in seconds.
    pub call_max_s: f64,
    /// Time of each process with calls in the slot, in seconds, by `app#host#pid` (its threads
    /// summed).
    pub process_times: BTreeMap<String, f64>,
}

impl SlotTotals {
    /// Mean bytes per operation that moved bytes.
    pub fn mean_size(&self) -> Option<f64> {
        (self.sized > 0).then(|| self.size as f64 / self.sized as f64)
    }

    /// The largest per-process time, in seconds (the bottleneck process).
    pub fn max_process_time_s(&self) -> f64 {
        self.process_times.values().copied().fold(0.0, f64::max)
    }

    /// Mean call time, in seconds.
    pub fn mean_call_s(&self) -> Option<f64> {
        (self.count > 0).then(|| self.time_s / self.count as f64)
    }
}

/// The input of every rule.
#[derive(Debug)]
pub struct Context<'a> {
    /// The analysis.
    pub analysis: &'a Analysis,
    /// System facts.
    pub parameters: Parameters,
    slots: BTreeMap<String, SlotTotals>,
    /// For a time window: its layer summaries and its length in seconds.
    window: Option<(Vec<LayerSummary>, f64)>,
}

/// Adds one view row to the totals of its slot, and returns them.
fn add_row<'s>(
    slots: &'s mut BTreeMap<String, SlotTotals>,
    row: &ioscout_analysis::ViewRow,
) -> &'s mut SlotTotals {
    let metrics = &row.metrics;
    let totals = slots
        .entry(row.slot_name())
        .or_insert_with(|| SlotTotals { call_min_s: f64::INFINITY, ..SlotTotals::default() });
    totals.time_s += metrics.time_sum;
    totals.count += metrics.count_sum;
    totals.size += metrics.size_sum.unwrap_or(0);
    totals.sized += metrics.sized_count;
    totals.call_min_s = totals.call_min_s.min(metrics.time_call_min);
    totals.call_max_s = totals.call_max_s.max(metrics.time_call_max);
    totals
}

/// Gives slots without calls a shortest call of 0 instead of infinity.
fn finish_slots(slots: &mut BTreeMap<String, SlotTotals>) {
    for totals in slots.values_mut() {
        if !totals.call_min_s.is_finite() {
            totals.call_min_s = 0.0;
        }
    }
}

impl<'a> Context<'a> {
    /// The context of `analysis`.
    pub fn new(analysis: &'a Analysis, parameters: Parameters) -> Context<'a> {
        let mut slots: BTreeMap<String, SlotTotals> = BTreeMap::new();
        for row in analysis.view(ViewType::ProcName).map_or(&[][..], |view| view.rows.as_slice()) {
            let totals = add_row(&mut slots, row);
            let process = row.key.rsplit_once('#').map_or(row.key.as_str(), |(process, _)| process);
            *totals.process_times.entry(process.to_string()).or_default() += row.metrics.time_sum;
        }
        finish_slots(&mut slots);
        Context { analysis, parameters, slots, window: None }
    }

    /// The context of the time bins `first..=last` of the `time_range` view only (for
    /// prevalence and persistence over windows). Per-process times and transfer-size
    /// histograms are whole-run facts, so rules that need them do not fire on a window.
    pub fn window(analysis: &'a Analysis, parameters: Parameters, first: u64, last: u64) -> Context<'a> {
        let mut slots: BTreeMap<String, SlotTotals> = BTreeMap::new();
        let mut layers: Vec<LayerSummary> = analysis
            .summary()
            .iter()
            .map(|line| LayerSummary {
                time_s: 0.0,
                count: 0,
                size_bytes: line.size_bytes.map(|_| 0.0),
                sized_count: 0,
                ops_per_s: None,
                bandwidth_bps: None,
                num_files: 0,
                num_processes: 0,
                u_time_s: line.u_time_s.map(|_| 0.0),
                u_count: line.u_count.map(|_| 0),
                u_size_bytes: line.u_size_bytes.map(|_| 0.0),
                overhead_time_s: None,
                time_frac_parent: None,
                time_frac_boundary: None,
                ..line.clone()
            })
            .collect();
        if let Some(view) = analysis.view(ViewType::TimeRange) {
            for row in view.rows.iter().filter(|row| (first..=last).contains(&row.order)) {
                let metrics = &row.metrics;
                add_row(&mut slots, row);
                if row.derived.is_none()
                    && let Some(line) = layers.iter_mut().find(|line| line.layer == row.layer)
                {
                    line.time_s += metrics.time_proc_max;
                    line.count += metrics.count_sum;
                    line.sized_count += metrics.sized_count;
                    if let Some(size) = line.size_bytes.as_mut() {
                        *size += metrics.size_sum.unwrap_or(0) as f64;
                    }
                    if let Some(unoverlapped) = metrics.u_time {
                        *line.u_time_s.get_or_insert(0.0) += unoverlapped.max(0.0);
                        *line.u_count.get_or_insert(0) += metrics.u_count.unwrap_or(0);
                    }
                }
            }
        }
        finish_slots(&mut slots);
        let length = (last + 1 - first) as f64 * analysis.raw.time_granularity_s;
        Context { analysis, parameters, slots, window: Some((layers, length)) }
    }

    /// Totals of slot `name`, when the preset has it and it has calls.
    pub fn slot(&self, name: &str) -> Option<&SlotTotals> {
        self.slots.get(name).filter(|totals| totals.count > 0)
    }

    /// The summary line of layer `name` (over the main view), when it has calls.
    pub fn layer(&self, name: &str) -> Option<&LayerSummary> {
        let lines = match &self.window {
            Some((lines, _)) => lines.as_slice(),
            None => self.analysis.summary(),
        };
        lines.iter().find(|line| line.layer == name && line.count > 0)
    }

    /// Job time in seconds (the window's length for a window).
    pub fn job_time_s(&self) -> f64 {
        match &self.window {
            Some((_, length)) => *length,
            None => self.analysis.raw.job_time_s,
        }
    }

    /// Calls of slot `name` that moved bytes, by transfer-size bin (`ioscout_analysis::SIZE_BINS`);
    /// `None` for a window.
    pub fn size_histogram(&self, name: &str) -> Option<&[u64; ioscout_analysis::SIZE_BIN_COUNT]> {
        if self.window.is_some() {
            return None;
        }
        self.analysis.sizes.iter().find(|histogram| histogram.slot == name).map(|histogram| &histogram.counts)
    }

    /// Calls of slot `name` that moved less than 1 MiB (bins up to `256kib_1mib`), and all calls
    /// that moved bytes.
    pub fn small_calls(&self, name: &str) -> Option<(u64, u64)> {
        let counts = self.size_histogram(name)?;
        let small = counts.iter().take(5).sum();
        Some((small, counts.iter().sum()))
    }
}
