//! The one Parquet writer: typed columns (text, integers, reals) written as Arrow record batches,
//! Snappy-compressed; [`schema`] and [`batch`] build the same batches for Arrow output. Used by
//! the row exporters ([`crate::rows`]) and the analysis detail tables
//! ([`crate::details`]).

use std::io::Write;
use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};

use crate::ExportError;

/// The type of a column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// UTF-8 text.
    Text,
    /// 64-bit signed integers.
    Integer,
    /// 64-bit floating point.
    Real,
}

/// One column of the schema.
#[derive(Clone, Debug)]
pub struct ColumnSpec {
    /// The column's name.
    pub name: String,
    /// Its type.
    pub kind: Kind,
    /// Whether values may be missing.
    pub nullable: bool,
}

/// The values of one column in a batch, in the column's type.
#[derive(Clone, Debug)]
pub enum Values<'a> {
    /// Text values.
    Text(Vec<Option<&'a str>>),
    /// Integer values.
    Integer(Vec<Option<i64>>),
    /// Real values.
    Real(Vec<Option<f64>>),
}

/// Writes batches of typed columns to a Parquet file.
pub struct ParquetWriter<W: Write + Send> {
    writer: parquet::arrow::ArrowWriter<W>,
    schema: SchemaRef,
}

impl<W: Write + Send> ParquetWriter<W> {
    /// A writer of `columns` to `out`, with row groups of at most `max_row_group_rows` rows
    /// (`None`: the Parquet crate's default).
    pub fn new(
        out: W,
        columns: &[ColumnSpec],
        max_row_group_rows: Option<usize>,
    ) -> Result<Self, ExportError> {
        let schema = schema(columns);
        let mut properties = parquet::file::properties::WriterProperties::builder()
            .set_compression(parquet::basic::Compression::SNAPPY);
        if let Some(rows) = max_row_group_rows {
            properties = properties.set_max_row_group_row_count(Some(rows));
        }
        let writer = parquet::arrow::ArrowWriter::try_new(out, schema.clone(), Some(properties.build()))
            .map_err(ExportError::parquet)?;
        Ok(ParquetWriter { writer, schema })
    }

    /// Writes one batch: one [`Values`] per column, in schema order, all of one length.
    pub fn write(&mut self, columns: Vec<Values<'_>>) -> Result<(), ExportError> {
        let batch = batch(&self.schema, columns)?;
        self.writer.write(&batch).map_err(ExportError::parquet)
    }

    /// Writes the footer and flushes.
    pub fn close(self) -> Result<(), ExportError> {
        self.writer.close().map(|_| ()).map_err(ExportError::parquet)
    }
}

/// The Arrow schema of `columns`.
pub fn schema(columns: &[ColumnSpec]) -> SchemaRef {
    let fields: Vec<Field> = columns
        .iter()
        .map(|column| {
            let kind = match column.kind {
                Kind::Text => DataType::Utf8,
                Kind::Integer => DataType::Int64,
                Kind::Real => DataType::Float64,
            };
            Field::new(&column.name, kind, column.nullable)
        })
        .collect();
    Arc::new(Schema::new(fields))
}

/// One record batch of `schema` from one [`Values`] per column, in schema order, all of one
/// length.
pub fn batch(schema: &SchemaRef, columns: Vec<Values<'_>>) -> Result<RecordBatch, ExportError> {
    let arrays: Vec<ArrayRef> = columns
        .into_iter()
        .map(|values| -> ArrayRef {
            match values {
                Values::Text(values) => Arc::new(values.into_iter().collect::<StringArray>()),
                Values::Integer(values) => Arc::new(values.into_iter().collect::<Int64Array>()),
                Values::Real(values) => Arc::new(values.into_iter().collect::<Float64Array>()),
            }
        })
        .collect();
    RecordBatch::try_new(schema.clone(), arrays).map_err(ExportError::parquet)
}
