//! `ioscout analyze`: DFAnalyzer's summary and layer breakdown, its JSON schema, and per-view
//! detail tables as CSV or Parquet.

use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use ioscout_analysis::{Analysis, AnalysisOptions, LayerSummary, OverlapMode, View, ViewType};

use crate::cli::{AnalyzeArguments, Compatibility, DetailFormat, OverlapArgument};
use crate::common::{self, thousands};
use crate::table::Table;

const MIB: f64 = 1024.0 * 1024.0;

pub(crate) fn run(arguments: &AnalyzeArguments) -> anyhow::Result<ExitCode> {
    let options = options(arguments)?;
    let (files, input_problems) = common::discover(&arguments.input);
    let (scanner, bar) = common::scanner_with_progress(&arguments.input, &files, "analyze");
    let (analysis, report) = ioscout_analysis::analyze(&scanner, &files, &input_problems, &options)?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if let Some(directory) = &arguments.out {
        write_details(&analysis, directory, arguments.out_format)?;
    }
    let mut stdout = std::io::stdout().lock();
    if arguments.json {
        let value = ioscout_analysis::output::dfanalyzer_json(&analysis);
        serde_json::to_writer_pretty(&mut stdout, &value)?;
        writeln!(stdout)?;
    } else {
        let compat = arguments.compat == Some(Compatibility::Dfanalyzer);
        write!(stdout, "{}", render(&analysis, compat, files.len()))?;
    }
    stdout.flush()?;
    Ok(common::finish(&report, &arguments.input))
}

fn options(arguments: &AnalyzeArguments) -> anyhow::Result<AnalysisOptions> {
    let mut views = Vec::new();
    for name in arguments.view.split(',').map(str::trim).filter(|name| !name.is_empty()) {
        let view = ViewType::parse(name).with_context(|| {
            let known: Vec<&str> =
                ioscout_analysis::views::VIEW_TYPES.iter().map(|view| view.name()).collect();
            format!("unknown view {name:?} (known: {})", known.join(", "))
        })?;
        if !views.contains(&view) {
            views.push(view);
        }
    }
    if views.is_empty() {
        views.push(ViewType::TimeRange);
    }
    let overlap = match (arguments.overlap, arguments.compat) {
        (Some(OverlapArgument::Binned), _) | (None, Some(Compatibility::Dfanalyzer)) => OverlapMode::Binned,
        (Some(OverlapArgument::Exact), _) | (None, None) => OverlapMode::Exact,
    };
    Ok(AnalysisOptions {
        preset: arguments.preset.clone(),
        views,
        time_granularity_s: arguments.time_granularity,
        overlap,
        binning: if arguments.compat == Some(Compatibility::Dfanalyzer) {
            ioscout_analysis::Binning::Dfanalyzer009
        } else {
            ioscout_analysis::Binning::Relative
        },
    })
}

fn fixed(value: f64) -> String {
    format!("{value:.3}")
}

fn percent(share: Option<f64>) -> String {
    match share {
        Some(share) => format!("({:>3.0}%)", share * 100.0),
        None => "(----)".into(),
    }
}

/// The terminal report: summary and layer breakdown of the main view.
fn render(analysis: &Analysis, compat: bool, file_count: usize) -> String {
    let Some(view) = analysis.views.first() else { return String::new() };
    let mut out = String::new();
    out.push_str(&summary_table(analysis, view, compat).render());
    out.push('\n');
    out.push_str(&breakdown_table(analysis, view).render());
    let raw = &analysis.raw;
    let _ = writeln!(
        out,
        "\npreset {}, {} files, time bins of {} s, overlap {}{}",
        analysis.preset.name,
        thousands(file_count as u64),
        raw.time_granularity_s,
        match analysis.options.overlap {
            OverlapMode::Exact => "exact (interval unions per process tree)",
            OverlapMode::Binned => "binned (DFAnalyzer's per-bin approximation)",
        },
        if raw.ignored_rows > 0 {
            format!("; {} rows ignored (system paths, set-up functions)", thousands(raw.ignored_rows))
        } else {
            String::new()
        }
    );
    out
}

fn summary_table(analysis: &Analysis, view: &View, compat: bool) -> Table {
    let raw = &analysis.raw;
    let mut table = Table::new(
        &format!("{} Summary", view.view.label()),
        &["Metric", "Unit", "Value"],
        &[false, false, true],
    );
    let mut add =
        |metric: String, unit: &str, value: String| table.row(vec![metric, unit.to_string(), value]);
    add("Job Time".into(), "seconds", fixed(raw.job_time_s));
    add("Trace Count".into(), "count", thousands(raw.trace_event_count));
    add("Profile Count".into(), "count", thousands(raw.profile_event_count));
    add("Total Count".into(), "count", thousands(raw.total_event_count));
    add("Total Files".into(), "count", thousands(raw.unique_file_count));
    add("Total Nodes".into(), "count", thousands(raw.unique_host_count));
    add("Total Processes".into(), "count", thousands(raw.unique_process_count));
    for line in view.summary.iter().filter(|line| line.count > 0) {
        add(format!("{} Count", line.label), "count", thousands(line.count));
        if let Some(size) = line.size_bytes.filter(|size| *size > 0.0) {
            add(format!("{} Size", line.label), "MB", fixed(size / MIB));
            add(format!("{} Bandwidth", line.label), "MB/s", fixed(line.bandwidth_bps.unwrap_or(0.0) / MIB));
            let operations = if compat { line.count } else { line.sized_count };
            if operations > 0 {
                add(format!("{} Avg Transfer Size", line.label), "MB", fixed(size / operations as f64 / MIB));
            }
        }
    }
    table
}

fn breakdown_table(analysis: &Analysis, view: &View) -> Table {
    let mut table = Table::new(
        "Layer Breakdown (w/ overlap %)",
        &["Layer", "Time (s)", "Ops", "Ops/sec", "Size (MB)", "Bandwidth (MB/s)"],
        &[false, true, true, true, true, true],
    );
    let measured = analysis.preset.measures_overlap();
    for line in &view.summary {
        if line.count == 0 {
            continue;
        }
        let with_overlap = |value: String, share: Option<f64>, layer: &LayerSummary| {
            if measured && layer.u_time_s.is_some() { format!("{value} {}", percent(share)) } else { value }
        };
        table.row(vec![
            line.label.clone(),
            with_overlap(fixed(line.time_s), line.overlap_time(), line),
            with_overlap(thousands(line.count), line.overlap_count(), line),
            line.ops_per_s.map_or_else(|| "-".into(), fixed),
            line.size_bytes.filter(|size| *size > 0.0).map_or_else(|| "-".into(), |size| fixed(size / MIB)),
            line.bandwidth_bps.map_or_else(|| "-".into(), |bandwidth| fixed(bandwidth / MIB)),
        ]);
    }
    table
}

/// Writes one detail table per view under `directory`.
fn write_details(analysis: &Analysis, directory: &Path, format: DetailFormat) -> anyhow::Result<()> {
    std::fs::create_dir_all(directory).with_context(|| format!("creating {}", directory.display()))?;
    for view in &analysis.views {
        let (header, rows) = detail_rows(view);
        let extension = match format {
            DetailFormat::Csv => "csv",
            DetailFormat::Parquet => "parquet",
        };
        let path = directory.join(format!("{}.{extension}", view.view.name()));
        match format {
            DetailFormat::Csv => write_csv(&path, &header, &rows),
            DetailFormat::Parquet => write_parquet(&path, &header, &rows),
        }
        .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// One detail cell: text for the key columns, a number (or nothing) for metrics.
enum Value {
    Text(String),
    Number(Option<f64>),
}

fn detail_rows(view: &View) -> (Vec<String>, Vec<Vec<Value>>) {
    let mut header = vec![view.view.name().to_string(), "layer".into(), "derived".into()];
    let mut rows = Vec::with_capacity(view.rows.len());
    for (index, row) in view.rows.iter().enumerate() {
        let metrics = serde_json::to_value(&row.metrics).unwrap_or_default();
        let serde_json::Value::Object(fields) = metrics else { continue };
        if index == 0 {
            header.extend(fields.keys().cloned());
        }
        let mut cells = vec![
            Value::Text(row.key.clone()),
            Value::Text(row.layer.clone()),
            Value::Text(row.derived.unwrap_or_default().to_string()),
        ];
        cells.extend(fields.values().map(|value| Value::Number(value.as_f64())));
        rows.push(cells);
    }
    (header, rows)
}

fn write_csv(path: &Path, header: &[String], rows: &[Vec<Value>]) -> anyhow::Result<()> {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    let quote = |text: &str| {
        if text.contains([',', '"', '\n']) {
            format!("\"{}\"", text.replace('"', "\"\""))
        } else {
            text.to_string()
        }
    };
    writeln!(out, "{}", header.iter().map(|name| quote(name)).collect::<Vec<_>>().join(","))?;
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .map(|cell| match cell {
                Value::Text(text) => quote(text),
                Value::Number(Some(number)) => number.to_string(),
                Value::Number(None) => String::new(),
            })
            .collect();
        writeln!(out, "{}", cells.join(","))?;
    }
    out.flush()?;
    Ok(())
}

fn write_parquet(path: &Path, header: &[String], rows: &[Vec<Value>]) -> anyhow::Result<()> {
    use arrow_array::{ArrayRef, Float64Array, RecordBatch, StringArray};
    use arrow_schema::{DataType, Field, Schema};
    let mut fields = Vec::new();
    let mut columns: Vec<ArrayRef> = Vec::new();
    for (index, name) in header.iter().enumerate() {
        if index < 3 {
            fields.push(Field::new(name, DataType::Utf8, false));
            let values: Vec<&str> = rows
                .iter()
                .map(|row| match row.get(index) {
                    Some(Value::Text(text)) => text.as_str(),
                    _ => "",
                })
                .collect();
            columns.push(Arc::new(StringArray::from(values)));
        } else {
            fields.push(Field::new(name, DataType::Float64, true));
            let values: Vec<Option<f64>> = rows
                .iter()
                .map(|row| match row.get(index) {
                    Some(Value::Number(number)) => *number,
                    _ => None,
                })
                .collect();
            columns.push(Arc::new(Float64Array::from(values)));
        }
    }
    let schema = Arc::new(Schema::new(fields));
    let batch = RecordBatch::try_new(schema.clone(), columns)?;
    let file = std::fs::File::create(path)?;
    let properties = parquet::file::properties::WriterProperties::builder()
        .set_compression(parquet::basic::Compression::SNAPPY)
        .build();
    let mut writer = parquet::arrow::ArrowWriter::try_new(file, schema, Some(properties))?;
    writer.write(&batch)?;
    writer.close()?;
    Ok(())
}
