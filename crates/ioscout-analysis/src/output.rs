//! Machine-readable output: DFAnalyzer's `output=json` schema, with ioscout's additions in keys
//! of their own.
//!
//! # Overview
//!
//! [`dfanalyzer_json`] writes `schema_version` "1", `raw_stats` and, per view,
//! `summary.layers.<layer>.{time_s, count, size_bytes, ops_per_s, bandwidth_bps, num_files,
//! num_processes, u_time_s, u_count, u_size_bytes}` exactly as DFAnalyzer 0.0.9 names them, so
//! scripts written for it keep working. Additions never change those keys' meaning: per layer
//! `label`, `parent`, `overhead_time_s`, `time_frac_parent`, `overlap` (hidden shares of time,
//! count and size); at the top `ioscout` (preset, overlap mode, counts of ignored rows, the
//! transfer-size histograms). `COMPATIBILITY.md` lists where the values differ from DFAnalyzer's
//! on purpose.

use serde_json::{Map, Value, json};

use crate::views::{LayerSummary, View};
use crate::{Analysis, SIZE_BINS};

fn number(value: f64) -> Value {
    serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number)
}

fn optional(value: Option<f64>) -> Value {
    value.map_or(Value::Null, number)
}

fn layer_json(line: &LayerSummary) -> Value {
    json!({
        "time_s": number(line.time_s),
        "count": line.count,
        "size_bytes": optional(line.size_bytes),
        "ops_per_s": optional(line.ops_per_s),
        "bandwidth_bps": optional(line.bandwidth_bps),
        "num_files": line.num_files,
        "num_processes": line.num_processes,
        "u_time_s": optional(line.u_time_s),
        "u_count": line.u_count,
        "u_size_bytes": optional(line.u_size_bytes),
        "label": line.label,
        "parent": line.parent,
        "overhead_time_s": optional(line.overhead_time_s),
        "time_frac_parent": optional(line.time_frac_parent),
        "overlap": {
            "time": optional(line.overlap_time()),
            "count": optional(line.overlap_count()),
            "size": optional(line.overlap_size()),
        },
    })
}

fn raw_stats(analysis: &Analysis) -> Map<String, Value> {
    let raw = &analysis.raw;
    let mut map = Map::new();
    map.insert("job_time_s".into(), number(raw.job_time_s));
    map.insert("time_granularity_s".into(), number(raw.time_granularity_s));
    map.insert("time_resolution_ns".into(), json!(1_000_000));
    map.insert("total_event_count".into(), json!(raw.total_event_count));
    map.insert("unique_file_count".into(), json!(raw.unique_file_count));
    map.insert("unique_host_count".into(), json!(raw.unique_host_count));
    map.insert("unique_process_count".into(), json!(raw.unique_process_count));
    map
}

fn view_json(analysis: &Analysis, view: &View) -> Value {
    let mut summary = raw_stats(analysis);
    let layers: Map<String, Value> =
        view.summary.iter().map(|line| (line.layer.clone(), layer_json(line))).collect();
    summary.insert("layers".into(), Value::Object(layers));
    json!({ "summary": summary, "additional_metrics": {} })
}

/// The analysis in DFAnalyzer's JSON schema (see the module documentation).
pub fn dfanalyzer_json(analysis: &Analysis) -> Value {
    let views: Map<String, Value> =
        analysis.views.iter().map(|view| (view.view.name().to_string(), view_json(analysis, view))).collect();
    let sizes: Map<String, Value> = analysis
        .sizes
        .iter()
        .map(|histogram| {
            let bins: Map<String, Value> = SIZE_BINS
                .iter()
                .zip(histogram.counts)
                .map(|((name, _), count)| ((*name).to_string(), json!(count)))
                .collect();
            (histogram.slot.clone(), Value::Object(bins))
        })
        .collect();
    json!({
        "schema_version": "1",
        "raw_stats": raw_stats(analysis),
        "views": views,
        "ioscout": {
            "preset": analysis.preset.name,
            "overlap": analysis.options.overlap,
            "first_ts": analysis.raw.first_ts,
            "last_end_ts": analysis.raw.last_end,
            "trace_event_count": analysis.raw.trace_event_count,
            "profile_event_count": analysis.raw.profile_event_count,
            "ignored_rows": analysis.raw.ignored_rows,
            "rows_without_time": analysis.raw.rows_without_time,
            "size_histograms": sizes,
        },
    })
}
