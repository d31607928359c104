//! The analysis views' detail tables (`ioscout analyze --out DIR`): one file per view, as CSV or
//! Parquet, with the view's key, layer and derived flag, then every metric of its rows.

use std::io::Write;
use std::path::Path;

use ioscout_analysis::{Analysis, View};

use crate::ExportError;
use crate::parquet::{ColumnSpec, Kind, ParquetWriter, Values};

/// The file format of the detail tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DetailFormat {
    /// Comma-separated values with a header.
    Csv,
    /// Apache Parquet.
    Parquet,
}

/// Why a detail table could not be written: the file and the cause.
#[derive(Debug, thiserror::Error)]
#[error("writing {}", path.display())]
pub struct DetailError {
    /// The file (or the directory that could not be made).
    pub path: std::path::PathBuf,
    /// The cause.
    #[source]
    pub source: ExportError,
}

/// Writes one table per view of `analysis` under `directory` (made if missing), named after the
/// view (`time_range.csv`, `file_name.parquet`, ...).
pub fn write(analysis: &Analysis, directory: &Path, format: DetailFormat) -> Result<(), DetailError> {
    let failed = |path: &Path, source: std::io::Error| DetailError {
        path: path.to_path_buf(),
        source: ExportError::Write { what: "a detail table", source },
    };
    std::fs::create_dir_all(directory).map_err(|source| failed(directory, source))?;
    for view in &analysis.views {
        let (header, rows) = detail_rows(view);
        let extension = match format {
            DetailFormat::Csv => "csv",
            DetailFormat::Parquet => "parquet",
        };
        let path = directory.join(format!("{}.{extension}", view.view.name()));
        let file = std::fs::File::create(&path).map_err(|source| failed(&path, source))?;
        match format {
            DetailFormat::Csv => write_csv(file, &header, &rows),
            DetailFormat::Parquet => write_parquet(file, &header, &rows),
        }
        .map_err(|source| DetailError { path: path.clone(), source })?;
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

fn write_csv(file: std::fs::File, header: &[String], rows: &[Vec<Value>]) -> Result<(), ExportError> {
    let mut out = std::io::BufWriter::new(file);
    let mut line = Vec::new();
    let put = |out: &mut std::io::BufWriter<std::fs::File>, line: &mut Vec<u8>| {
        line.push(b'\n');
        let written = out.write_all(line);
        line.clear();
        written
    };
    let failed = |source| ExportError::Write { what: "a detail table", source };
    for (index, name) in header.iter().enumerate() {
        if index > 0 {
            line.push(b',');
        }
        crate::rows::csv_field(&mut line, name);
    }
    put(&mut out, &mut line).map_err(failed)?;
    for row in rows {
        for (index, cell) in row.iter().enumerate() {
            if index > 0 {
                line.push(b',');
            }
            match cell {
                Value::Text(text) => crate::rows::csv_field(&mut line, text),
                Value::Number(Some(number)) => line.extend_from_slice(number.to_string().as_bytes()),
                Value::Number(None) => {}
            }
        }
        put(&mut out, &mut line).map_err(failed)?;
    }
    out.flush().map_err(failed)
}

/// The detail table of one view as one Arrow record batch, in the Parquet file's schema: the
/// key, layer and derived columns as text, every metric as a real (missing where the view has
/// no value). The Python package's `Analysis.tables`.
pub fn record_batch(view: &View) -> Result<arrow_array::RecordBatch, ExportError> {
    let (header, rows) = detail_rows(view);
    let (specs, columns) = typed_columns(&header, &rows);
    crate::parquet::batch(&crate::parquet::schema(&specs), columns)
}

fn typed_columns<'r>(header: &[String], rows: &'r [Vec<Value>]) -> (Vec<ColumnSpec>, Vec<Values<'r>>) {
    let specs: Vec<ColumnSpec> = header
        .iter()
        .enumerate()
        .map(|(index, name)| ColumnSpec {
            name: name.clone(),
            kind: if index < 3 { Kind::Text } else { Kind::Real },
            nullable: index >= 3,
        })
        .collect();
    let columns: Vec<Values<'_>> = (0..header.len())
        .map(|index| {
            if index < 3 {
                Values::Text(
                    rows.iter()
                        .map(|row| match row.get(index) {
                            Some(Value::Text(text)) => Some(text.as_str()),
                            _ => Some(""),
                        })
                        .collect(),
                )
            } else {
                Values::Real(
                    rows.iter()
                        .map(|row| match row.get(index) {
                            Some(Value::Number(number)) => *number,
                            _ => None,
                        })
                        .collect(),
                )
            }
        })
        .collect();
    (specs, columns)
}

fn write_parquet(file: std::fs::File, header: &[String], rows: &[Vec<Value>]) -> Result<(), ExportError> {
    let (specs, columns) = typed_columns(header, rows);
    let mut writer = ParquetWriter::new(file, &specs, None)?;
    writer.write(columns)?;
    writer.close()
}
