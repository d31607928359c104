//! Machine-readable output: DFAnalyzer's `output=json` schema, with ioscout's additions in keys
//! of their own.
//!
//! # Overview
//!
//! [`dfanalyzer`] writes `schema_version` "1", `raw_stats` and, per view,
//! `summary.layers.<layer>.{time_s, count, size_bytes, ops_per_s, bandwidth_bps, num_files,
//! num_processes, u_time_s, u_count, u_size_bytes}` exactly as DFAnalyzer 0.0.9 names them, so
//! scripts written for it keep working. Additions never change those keys' meaning: per layer
//! `label`, `parent`, `overhead_time_s`, `time_frac_parent`, `overlap` (hidden shares of time,
//! count and size); at the top `ioscout` (preset, overlap mode, counts of ignored rows, the
//! transfer-size histograms). `COMPATIBILITY.md` lists where the values differ from DFAnalyzer's
//! on purpose.

use serde::Serialize;

use crate::views::{LayerSummary, View};
use crate::{Analysis, OverlapMode, PresetName, SIZE_BINS};

/// Entries serialised as a JSON object in their order (views by name, layers by name, size bins
/// by name): the order DFAnalyzer writes and scripts may rely on.
#[derive(Clone, Debug, PartialEq)]
pub struct Ordered<V>(pub Vec<(String, V)>);

impl<V: Serialize> Serialize for Ordered<V> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, value) in &self.0 {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

#[cfg(feature = "schemars")]
impl<V: schemars::JsonSchema> schemars::JsonSchema for Ordered<V> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("Ordered_{}", V::schema_name()).into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "additionalProperties": generator.subschema_for::<V>(),
        })
    }
}

/// An analysis in DFAnalyzer's `output=json` schema, with ioscout's additions (the module
/// documentation says which keys are whose).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct DfanalyzerOutput {
    /// Always `1`.
    pub schema_version: &'static str,
    /// The job's statistics.
    pub raw_stats: RawStatsOutput,
    /// Each view by name.
    pub views: Ordered<ViewOutput>,
    /// What ioscout adds.
    pub ioscout: IoscoutSection,
}

/// DFAnalyzer's `raw_stats`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct RawStatsOutput {
    /// Job time, seconds.
    pub job_time_s: f64,
    /// Width of a time bin, seconds.
    pub time_granularity_s: f64,
    /// Always 1,000,000 (timestamps are microseconds).
    pub time_resolution_ns: u64,
    /// Events read.
    pub total_event_count: u64,
    /// Distinct files.
    pub unique_file_count: u64,
    /// Distinct hosts.
    pub unique_host_count: u64,
    /// Distinct processes.
    pub unique_process_count: u64,
}

/// One view: its summary (the raw statistics and its layers) and DFAnalyzer's (empty)
/// `additional_metrics`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct ViewOutput {
    /// The view's summary.
    pub summary: ViewSummaryOutput,
    /// Always empty.
    pub additional_metrics: Empty,
}

/// An empty JSON object.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Empty {}

/// A view's summary.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct ViewSummaryOutput {
    /// The job's statistics, as in `raw_stats`.
    #[serde(flatten)]
    pub raw: RawStatsOutput,
    /// Each layer by name.
    pub layers: Ordered<LayerOutput>,
}

/// One layer of a view: DFAnalyzer's keys, then ioscout's.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct LayerOutput {
    /// Time, seconds.
    pub time_s: f64,
    /// Rows.
    pub count: u64,
    /// Bytes (layers that carry bytes).
    pub size_bytes: Option<f64>,
    /// Operations per second.
    pub ops_per_s: Option<f64>,
    /// Bytes per second.
    pub bandwidth_bps: Option<f64>,
    /// Files touched.
    pub num_files: u64,
    /// Processes with rows.
    pub num_processes: u64,
    /// Time not hidden behind computation, seconds.
    pub u_time_s: Option<f64>,
    /// Rows not hidden.
    pub u_count: Option<u64>,
    /// Bytes not hidden.
    pub u_size_bytes: Option<f64>,
    /// Name for people.
    pub label: String,
    /// Parent layer.
    pub parent: Option<String>,
    /// Time not accounted for by child layers.
    pub overhead_time_s: Option<f64>,
    /// Time over the parent layer's.
    pub time_frac_parent: Option<f64>,
    /// Hidden shares.
    pub overlap: OverlapShares,
}

/// The hidden shares of a layer's time, rows and bytes.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct OverlapShares {
    /// Of the time.
    pub time: Option<f64>,
    /// Of the rows.
    pub count: Option<f64>,
    /// Of the bytes.
    pub size: Option<f64>,
}

/// What ioscout adds at the top.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct IoscoutSection {
    /// The preset.
    pub preset: PresetName,
    /// How overlap was measured.
    pub overlap: OverlapMode,
    /// First timestamp, microseconds.
    pub first_ts: i64,
    /// Last end, microseconds.
    pub last_end_ts: i64,
    /// Trace events.
    pub trace_event_count: u64,
    /// Profile events.
    pub profile_event_count: u64,
    /// Rows ignored (system paths, set-up functions).
    pub ignored_rows: u64,
    /// Rows without a time.
    pub rows_without_time: u64,
    /// The transfer-size histograms, by slot, each bin by name.
    pub size_histograms: Ordered<Ordered<u64>>,
}

fn layer(line: &LayerSummary) -> LayerOutput {
    LayerOutput {
        time_s: line.time_s,
        count: line.count,
        size_bytes: line.size_bytes,
        ops_per_s: line.ops_per_s,
        bandwidth_bps: line.bandwidth_bps,
        num_files: line.num_files,
        num_processes: line.num_processes,
        u_time_s: line.u_time_s,
        u_count: line.u_count,
        u_size_bytes: line.u_size_bytes,
        label: line.label.clone(),
        parent: line.parent.clone(),
        overhead_time_s: line.overhead_time_s,
        time_frac_parent: line.time_frac_parent,
        overlap: OverlapShares {
            time: line.overlap_time(),
            count: line.overlap_count(),
            size: line.overlap_size(),
        },
    }
}

fn raw_stats(analysis: &Analysis) -> RawStatsOutput {
    let raw = &analysis.raw;
    RawStatsOutput {
        job_time_s: raw.job_time_s,
        time_granularity_s: raw.time_granularity_s,
        time_resolution_ns: 1_000_000,
        total_event_count: raw.total_event_count,
        unique_file_count: raw.unique_file_count,
        unique_host_count: raw.unique_host_count,
        unique_process_count: raw.unique_process_count,
    }
}

fn view(analysis: &Analysis, view: &View) -> ViewOutput {
    let layers = view.summary.iter().map(|line| (line.layer.clone(), layer(line))).collect();
    ViewOutput {
        summary: ViewSummaryOutput { raw: raw_stats(analysis), layers: Ordered(layers) },
        additional_metrics: Empty {},
    }
}

/// The analysis in DFAnalyzer's JSON schema (see the module documentation).
pub fn dfanalyzer(analysis: &Analysis) -> DfanalyzerOutput {
    let views =
        analysis.views.iter().map(|each| (each.view.name().to_string(), view(analysis, each))).collect();
    let sizes = analysis
        .sizes
        .iter()
        .map(|histogram| {
            let bins =
                SIZE_BINS.iter().zip(histogram.counts).map(|((name, _), count)| ((*name).to_string(), count));
            (histogram.slot.clone(), Ordered(bins.collect()))
        })
        .collect();
    DfanalyzerOutput {
        schema_version: "1",
        raw_stats: raw_stats(analysis),
        views: Ordered(views),
        ioscout: IoscoutSection {
            preset: analysis.preset.name,
            overlap: analysis.options.overlap,
            first_ts: analysis.raw.first_ts,
            last_end_ts: analysis.raw.last_end,
            trace_event_count: analysis.raw.trace_event_count,
            profile_event_count: analysis.raw.profile_event_count,
            ignored_rows: analysis.raw.ignored_rows,
            rows_without_time: analysis.raw.rows_without_time,
            size_histograms: Ordered(sizes),
        },
    }
}

/// [`dfanalyzer`] as a JSON value.
pub fn dfanalyzer_json(analysis: &Analysis) -> serde_json::Value {
    serde_json::to_value(dfanalyzer(analysis)).unwrap_or_default()
}
