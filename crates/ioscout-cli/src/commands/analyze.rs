//! `ioscout analyze`: DFAnalyzer's summary and layer breakdown and its JSON schema (the work is
//! `ioscout_service::analyze`), and per-view detail tables as CSV or Parquet.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use ioscout_analysis::{Analysis, View};
use ioscout_service::analyze::AnalyzeRequest;

use crate::cli::{AnalyzeArguments, Compatibility, DetailFormat, OverlapArgument};
use crate::common;

pub(crate) fn run(arguments: &AnalyzeArguments) -> anyhow::Result<ExitCode> {
    let request = AnalyzeRequest {
        preset: arguments.preset.clone(),
        views: vec![arguments.view.clone()],
        time_granularity_s: arguments.time_granularity,
        overlap: arguments.overlap.map(|overlap| match overlap {
            OverlapArgument::Exact => "exact".to_string(),
            OverlapArgument::Binned => "binned".to_string(),
        }),
        dfanalyzer_compat: arguments.compat == Some(Compatibility::Dfanalyzer),
    };
    let (input, bar) = common::service_input_with_progress(&arguments.input, "analyze");
    let (outcome, analysis) = ioscout_service::analyze::analyze_keeping(&input, &request)?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    // Under MPI every rank holds the analysis; rank 0 alone writes the tables.
    if let Some(directory) =
        arguments.out.as_ref().filter(|_| crate::job::current().is_none_or(|job| job.rank() == 0))
    {
        write_details(&analysis, directory, arguments.out_format)?;
    }
    common::print(&outcome, arguments.json, arguments.input.quiet)?;
    Ok(common::exit_code(&outcome, &arguments.input))
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
