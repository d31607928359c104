//! Rows of events as users take them elsewhere: JSON lines, CSV, Parquet and Chrome's trace-event
//! JSON. Sits after the scan: a fold encodes each matching event on the worker that decoded it
//! ([`Output::encode`] into [`Rows`]), and one [`Exporter`] per output writes the rows in file
//! order on the calling thread ([`exporter`]).
//!
//! Used by `ioscout view`, `query` and `export` and the MCP `query` tool (through the service).

use std::io::Write;

use ioscout_model::{Event, Phase, RawValue};
use ioscout_read::event::Args;

use crate::ExportError;
use crate::parquet::{ColumnSpec, Kind, ParquetWriter, Values};

/// How events are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// One JSON object per line.
    Jsonl,
    /// Comma-separated values with a header.
    Csv,
    /// Apache Parquet.
    Parquet,
    /// Chrome's trace-event JSON (`{"traceEvents": [...]}`), for Perfetto's UI and
    /// `chrome://tracing`: complete events only, host and file names in `args`.
    Chrome,
    /// JSON values in memory (the objects the JSON lines would hold), for callers that hand
    /// rows on as data (the MCP `query` tool, the Python package); no exporter writes them.
    Values,
    /// Arrow record batches handed to [`Output::batches`] as they are made, typed as the
    /// Parquet output's columns (the Python package's tables, through the Arrow C data
    /// interface).
    Arrow,
}

/// Where [`Format::Arrow`] rows go: called with each batch in file order; an `Err` (the reader
/// went away) stops the scan and is reported as a write error.
#[derive(Clone)]
pub struct Batches(pub std::sync::Arc<dyn Fn(arrow_array::RecordBatch) -> Result<(), String> + Send + Sync>);

impl std::fmt::Debug for Batches {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("Batches")
    }
}

/// Where events go: stdout on the command line, a buffer for an MCP tool.
pub type Sink = Box<dyn Write + Send>;

/// A `--select` column that does not exist; the message names the columns there are.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UnknownColumn(String);

/// The rows one fold encoded, owned and serialisable (a rank of a distributed query sends them
/// to rank 0): the text of every row and where each ends, or, for Parquet and Arrow, each
/// column's values.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Rows {
    buffer: Vec<u8>,
    line_ends: Vec<usize>,
    cells: Vec<Cells>,
    values: Vec<serde_json::Value>,
}

/// One column's values in the typed outputs (Parquet, Arrow), as a fold encodes them: integers,
/// or every text value's bytes one after another with where each ends and whether it is there
/// (no allocation per value).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
enum Cells {
    Integer(Vec<Option<i64>>),
    Text { data: String, ends: Vec<usize>, present: Vec<bool> },
}

impl Cells {
    fn of(column: &Column) -> Cells {
        if is_integer(column) {
            Cells::Integer(Vec::new())
        } else {
            Cells::Text { data: String::new(), ends: Vec::new(), present: Vec::new() }
        }
    }
}

/// Whether the typed outputs hold `column` as integers.
fn is_integer(column: &Column) -> bool {
    matches!(column, Column::Field("id" | "pid" | "tid" | "ts" | "dur" | "type"))
}

impl Rows {
    /// No rows yet, for `output`.
    pub fn new(output: &Output) -> Rows {
        Rows {
            buffer: Vec::new(),
            line_ends: Vec::new(),
            cells: output.columns.iter().map(Cells::of).collect(),
            values: Vec::new(),
        }
    }

    /// The first `take` rows as values ([`Format::Values`]).
    pub fn values(&self, take: usize) -> &[serde_json::Value] {
        &self.values[..take.min(self.values.len())]
    }

    /// Rows held.
    pub fn len(&self) -> usize {
        self.line_ends.len()
    }

    /// Whether no row is held.
    pub fn is_empty(&self) -> bool {
        self.line_ends.is_empty()
    }
}

/// One event as encoders see it: the event, its parsed `args`, and its resolved host and file.
pub struct EventRow<'r, 'e> {
    /// The event.
    pub event: &'r Event<'e>,
    /// Its `args`.
    pub args: &'r Args<'e>,
    /// The host named by its hash or inline name.
    pub host: Option<&'r str>,
    /// The file named by its hash or inline name.
    pub file: Option<&'r str>,
}

impl Output {
    /// Appends `row` to `rows` in this output's format. Chrome's format holds complete events
    /// only: others are left out.
    pub fn encode(&self, row: &EventRow<'_, '_>, rows: &mut Rows) {
        let EventRow { event, args, host, file } = *row;
        if self.format == Format::Chrome && event.phase != Some(Phase::Complete) {
            return;
        }
        if matches!(self.format, Format::Parquet | Format::Arrow) {
            for (column, cells) in self.columns.iter().zip(&mut rows.cells) {
                match cells {
                    Cells::Integer(values) => values.push(integer_of(column, event)),
                    Cells::Text { data, ends, present } => {
                        present.push(push_text(column, event, args, host, file, data));
                        ends.push(data.len());
                    }
                }
            }
            rows.line_ends.push(rows.line_ends.len() + 1);
            return;
        }
        if self.format == Format::Values {
            rows.values.push(match &self.select {
                Some(columns) => serde_json::Value::Object(
                    columns
                        .iter()
                        .map(|column| (column.name(), column_value(column, event, args, host, file)))
                        .collect(),
                ),
                None => event_value(event, host, file),
            });
            rows.line_ends.push(rows.line_ends.len() + 1);
            return;
        }
        let out = &mut rows.buffer;
        match (&self.select, self.format) {
            (Some(columns), _) => write_selected(out, self, columns, event, args, host, file),
            (None, Format::Jsonl) => write_json(out, event, host, file),
            (None, Format::Csv) => write_csv(out, event, host, file),
            (None, Format::Chrome) => write_chrome(out, event, host, file),
            (None, Format::Parquet | Format::Values | Format::Arrow) => {}
        }
        rows.line_ends.push(rows.buffer.len());
    }
}

/// Writes rows, in one format, to one sink.
pub trait Exporter: Send {
    /// Writes the first `take` rows of `rows` (after those written before).
    fn write(&mut self, rows: &Rows, take: usize) -> Result<(), ExportError>;

    /// Completes the output (Chrome's closing bracket, Parquet's footer) and flushes.
    fn finish(self: Box<Self>) -> Result<(), ExportError>;
}

/// The exporter of `output` to `out`; the opening (the CSV header, the start of Chrome's
/// document, the Parquet schema) is written at once.
pub fn exporter(output: &Output, out: Sink) -> Result<Box<dyn Exporter>, ExportError> {
    match output.format {
        Format::Parquet => Ok(Box::new(ParquetRows::new(&output.columns, out)?)),
        Format::Arrow => {
            let batches = output.batches.clone().ok_or_else(|| ExportError::Encode {
                what: "Arrow batches",
                message: "no receiver for the batches was given".into(),
            })?;
            Ok(Box::new(ArrowRows {
                schema: crate::parquet::schema(&typed_schema(&output.columns)),
                batches,
            }))
        }
        Format::Chrome => {
            let mut text = std::io::BufWriter::with_capacity(1 << 16, out);
            text.write_all(b"{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n")
                .map_err(ExportError::events)?;
            Ok(Box::new(ChromeRows { text, written: 0 }))
        }
        Format::Jsonl | Format::Csv | Format::Values => {
            let mut text = std::io::BufWriter::with_capacity(1 << 16, out);
            if output.format == Format::Csv {
                text.write_all(output.header().as_bytes()).map_err(ExportError::events)?;
            }
            Ok(Box::new(TextRows { text }))
        }
    }
}

/// JSON lines and CSV: the rows' text as encoded.
struct TextRows {
    text: std::io::BufWriter<Sink>,
}

impl Exporter for TextRows {
    fn write(&mut self, rows: &Rows, take: usize) -> Result<(), ExportError> {
        let end = if take == 0 { 0 } else { rows.line_ends[take - 1] };
        self.text.write_all(&rows.buffer[..end]).map_err(ExportError::events)
    }

    fn finish(mut self: Box<Self>) -> Result<(), ExportError> {
        self.text.flush().map_err(ExportError::events)
    }
}

/// Chrome's trace-event JSON: the rows are the items of one array.
struct ChromeRows {
    text: std::io::BufWriter<Sink>,
    written: u64,
}

impl Exporter for ChromeRows {
    fn write(&mut self, rows: &Rows, take: usize) -> Result<(), ExportError> {
        let mut start = 0;
        for end in rows.line_ends.iter().take(take) {
            let separator: &[u8] = if self.written == 0 { b"" } else { b"," };
            self.text.write_all(separator).map_err(ExportError::events)?;
            self.text.write_all(&rows.buffer[start..*end]).map_err(ExportError::events)?;
            self.written += 1;
            start = *end;
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<(), ExportError> {
        self.text.write_all(b"]}\n").map_err(ExportError::events)?;
        self.text.flush().map_err(ExportError::events)
    }
}

/// The columns of the typed outputs (Parquet, Arrow): integer fields typed as such, the rest as
/// text.
fn typed_schema(columns: &[Column]) -> Vec<ColumnSpec> {
    columns
        .iter()
        .map(|column| ColumnSpec {
            name: column.name(),
            kind: if is_integer(column) { Kind::Integer } else { Kind::Text },
            nullable: true,
        })
        .collect()
}

/// The first `take` rows' cells as typed column values.
fn typed_values(rows: &Rows, take: usize) -> Vec<Values<'_>> {
    rows.cells
        .iter()
        .map(|cells| match cells {
            Cells::Integer(values) => Values::Integer(values[..take.min(values.len())].to_vec()),
            Cells::Text { data, ends, present } => {
                let mut start = 0;
                Values::Text(
                    ends.iter()
                        .zip(present)
                        .take(take)
                        .map(|(&end, &present)| {
                            let value = data.get(start..end).filter(|_| present);
                            start = end;
                            value
                        })
                        .collect(),
                )
            }
        })
        .collect()
}

/// An integer column's value for `event`.
fn integer_of(column: &Column, event: &Event<'_>) -> Option<i64> {
    match column {
        Column::Field("id") => event.id,
        Column::Field("pid") => event.pid,
        Column::Field("tid") => event.tid,
        Column::Field("ts") => event.ts,
        Column::Field("dur") => event.dur,
        Column::Field("type") => event.kind,
        _ => None,
    }
}

/// Appends a text column's value for `event` to `data` (as the JSON lines hold it, with
/// strings unquoted); whether the event has it.
fn push_text(
    column: &Column,
    event: &Event<'_>,
    args: &Args<'_>,
    host: Option<&str>,
    file: Option<&str>,
    data: &mut String,
) -> bool {
    let text: Option<std::borrow::Cow<'_, str>> = match column {
        Column::Field("name") => event.name.as_deref().map(std::borrow::Cow::Borrowed),
        Column::Field("cat") => event.cat.as_deref().map(std::borrow::Cow::Borrowed),
        Column::Field("ph") => event.phase.map(|phase| std::borrow::Cow::Borrowed(phase.letter())),
        Column::Field("host") => host.map(std::borrow::Cow::Borrowed),
        Column::Field("file") => file.map(std::borrow::Cow::Borrowed),
        // `args` is an object; were it a JSON string, its text unquoted.
        Column::Field("args") => event.args.map(|raw| match serde_json::from_str::<String>(raw) {
            Ok(text) if raw.trim_start().starts_with('"') => std::borrow::Cow::Owned(text),
            _ => std::borrow::Cow::Borrowed(raw),
        }),
        Column::Field(_) => None,
        Column::Arg(key) => args.get(key).map(RawValue::as_text),
    };
    match text {
        Some(text) => {
            data.push_str(&text);
            true
        }
        None => false,
    }
}

/// Parquet: one record batch per fold, row groups of at most 128 Ki rows.
struct ParquetRows {
    writer: ParquetWriter<std::io::BufWriter<Sink>>,
}

impl ParquetRows {
    fn new(columns: &[Column], out: Sink) -> Result<ParquetRows, ExportError> {
        let writer = ParquetWriter::new(
            std::io::BufWriter::with_capacity(1 << 20, out),
            &typed_schema(columns),
            Some(128 * 1024),
        )?;
        Ok(ParquetRows { writer })
    }
}

impl Exporter for ParquetRows {
    fn write(&mut self, rows: &Rows, take: usize) -> Result<(), ExportError> {
        if take == 0 {
            return Ok(());
        }
        self.writer.write(typed_values(rows, take))
    }

    fn finish(self: Box<Self>) -> Result<(), ExportError> {
        self.writer.close()
    }
}

/// Arrow: one record batch per fold, in the Parquet output's types, handed to the receiver.
struct ArrowRows {
    schema: arrow_schema::SchemaRef,
    batches: Batches,
}

impl Exporter for ArrowRows {
    fn write(&mut self, rows: &Rows, take: usize) -> Result<(), ExportError> {
        if take == 0 {
            return Ok(());
        }
        let batch = crate::parquet::batch(&self.schema, typed_values(rows, take))?;
        (self.batches.0)(batch).map_err(|message| ExportError::Encode { what: "Arrow batches", message })
    }

    fn finish(self: Box<Self>) -> Result<(), ExportError> {
        Ok(())
    }
}

impl Column {
    /// The column's name as printed (`args.<key>` for an argument).
    pub fn name(&self) -> String {
        match self {
            Column::Field(field) => (*field).to_string(),
            Column::Arg(key) => format!("args.{key}"),
        }
    }
}

fn json_string(out: &mut Vec<u8>, text: &str) {
    // Serialising a &str to a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, text);
}

fn raw_json(out: &mut Vec<u8>, value: &RawValue<'_>) {
    match value {
        RawValue::Str(text) => json_string(out, text),
        other => out.extend_from_slice(other.as_text().as_bytes()),
    }
}

/// One complete event in Chrome's trace-event format: `ph` "X", times in microseconds, the
/// event's `args` with `host` and `file` resolved added.
fn write_chrome(out: &mut Vec<u8>, event: &Event<'_>, host: Option<&str>, file: Option<&str>) {
    out.extend_from_slice(b"{\"name\":");
    json_string(out, event.name.as_deref().unwrap_or(""));
    out.extend_from_slice(b",\"cat\":");
    json_string(out, event.cat.as_deref().unwrap_or(""));
    out.extend_from_slice(b",\"ph\":\"X\"");
    for (name, value) in [("ts", event.ts), ("dur", event.dur), ("pid", event.pid), ("tid", event.tid)] {
        out.push(b',');
        json_string(out, name);
        out.push(b':');
        out.extend_from_slice(value.unwrap_or(0).to_string().as_bytes());
    }
    out.extend_from_slice(b",\"args\":{");
    let mut first = true;
    for (name, value) in [("host", host), ("file", file)] {
        if let Some(value) = value {
            if !first {
                out.push(b',');
            }
            first = false;
            json_string(out, name);
            out.push(b':');
            json_string(out, value);
        }
    }
    if let Some(args) = event.args.map(str::trim)
        && let Some(inner) = args.strip_prefix('{').and_then(|rest| rest.strip_suffix('}'))
        && !inner.trim().is_empty()
    {
        if !first {
            out.push(b',');
        }
        out.extend_from_slice(inner.as_bytes());
    }
    out.extend_from_slice(b"}}\n");
}

fn write_json(out: &mut Vec<u8>, event: &Event<'_>, host: Option<&str>, file: Option<&str>) {
    out.push(b'{');
    let mut first = true;
    let mut key = |out: &mut Vec<u8>, name: &str| {
        if !first {
            out.push(b',');
        }
        first = false;
        json_string(out, name);
        out.push(b':');
    };
    for (name, value) in
        [("id", event.id), ("pid", event.pid), ("tid", event.tid), ("ts", event.ts), ("dur", event.dur)]
    {
        if let Some(value) = value {
            key(out, name);
            out.extend_from_slice(value.to_string().as_bytes());
        }
    }
    for (name, value) in [("name", event.name.as_deref()), ("cat", event.cat.as_deref())] {
        if let Some(value) = value {
            key(out, name);
            json_string(out, value);
        }
    }
    if let Some(phase) = event.phase {
        key(out, "ph");
        json_string(out, phase.letter());
    }
    if let Some(kind) = event.kind {
        key(out, "type");
        out.extend_from_slice(kind.to_string().as_bytes());
    }
    for (name, value) in [("host", host), ("file", file)] {
        if let Some(value) = value {
            key(out, name);
            json_string(out, value);
        }
    }
    if let Some(args) = event.args {
        key(out, "args");
        out.extend_from_slice(args.as_bytes());
    }
    for (name, value) in &event.extra {
        key(out, name);
        raw_json(out, value);
    }
    out.extend_from_slice(b"}\n");
}

/// How events are printed: the format and, with `--select`, the columns.
#[derive(Clone, Debug)]
pub struct Output {
    /// The format.
    pub format: Format,
    /// Only these columns, in this order.
    pub select: Option<Vec<Column>>,
    /// Where [`Format::Arrow`] batches go.
    pub batches: Option<Batches>,
    /// [`Output::columns`], made once.
    columns: Vec<Column>,
}

/// A column `--select` can name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Column {
    /// A top-level field or a resolved name: id, pid, tid, ts, dur, name, cat, ph, type, host,
    /// file, args.
    Field(&'static str),
    /// `args.<key>`.
    Arg(String),
}

impl Output {
    /// Parses `--select` (comma-separated columns).
    pub fn new(format: Format, select: Option<&str>) -> Result<Output, UnknownColumn> {
        const FIELDS: [&str; 12] =
            ["id", "pid", "tid", "ts", "dur", "name", "cat", "ph", "type", "host", "file", "args"];
        let select = select
            .map(|text| {
                text.split(',')
                    .map(str::trim)
                    .filter(|column| !column.is_empty())
                    .map(|column| {
                        // A DXT segment's words for the same columns (the service's `segments`).
                        let column = match column {
                            "rank" => "pid",
                            "op" => "name",
                            "module" => "cat",
                            "start" => "ts",
                            "offset" => "args.offset",
                            "length" => "args.ret",
                            other => other,
                        };
                        if let Some(field) = FIELDS.iter().find(|field| **field == column) {
                            return Ok(Column::Field(field));
                        }
                        match column.strip_prefix("args.") {
                            Some(key) if !key.is_empty() => Ok(Column::Arg(key.to_string())),
                            _ => Err(UnknownColumn(format!(
                                "unknown --select column {column:?} (columns: {}, args.<key>; for DXT segments also rank, op, module, start, offset, length)",
                                FIELDS.join(", ")
                            ))),
                        }
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .transpose()?;
        let columns = select.clone().unwrap_or_else(|| {
            ["name", "cat", "pid", "tid", "ts", "dur", "ph", "type", "host", "file", "args"]
                .into_iter()
                .map(Column::Field)
                .collect()
        });
        Ok(Output { format, select, batches: None, columns })
    }

    /// The columns printed: `--select`, or all of them.
    pub fn columns(&self) -> Vec<Column> {
        self.columns.clone()
    }

    /// The Arrow schema of [`Format::Arrow`] batches (and of the Parquet output) for these
    /// columns: integer fields as Int64, the rest as text.
    pub fn arrow_schema(&self) -> arrow_schema::SchemaRef {
        crate::parquet::schema(&typed_schema(&self.columns))
    }

    fn header(&self) -> String {
        match &self.select {
            Some(columns) => {
                let names: Vec<String> = columns.iter().map(Column::name).collect();
                format!("{}\n", names.join(","))
            }
            None => CSV_HEADER.to_string(),
        }
    }
}

/// One selected column of an event as JSON text (`None` when the event lacks it).
fn column_json(
    column: &Column,
    event: &Event<'_>,
    args: &Args<'_>,
    host: Option<&str>,
    file: Option<&str>,
) -> Option<String> {
    let quoted = |text: &str| serde_json::to_string(text).unwrap_or_default();
    match column {
        Column::Field("id") => event.id.map(|value| value.to_string()),
        Column::Field("pid") => event.pid.map(|value| value.to_string()),
        Column::Field("tid") => event.tid.map(|value| value.to_string()),
        Column::Field("ts") => event.ts.map(|value| value.to_string()),
        Column::Field("dur") => event.dur.map(|value| value.to_string()),
        Column::Field("type") => event.kind.map(|value| value.to_string()),
        Column::Field("name") => event.name.as_deref().map(quoted),
        Column::Field("cat") => event.cat.as_deref().map(quoted),
        Column::Field("ph") => event.phase.map(|phase| quoted(phase.letter())),
        Column::Field("host") => host.map(quoted),
        Column::Field("file") => file.map(quoted),
        Column::Field("args") => event.args.map(str::to_string),
        Column::Field(_) => None,
        Column::Arg(key) => args.get(key).map(|value| match value {
            RawValue::Str(text) => quoted(text),
            other => other.as_text().into_owned(),
        }),
    }
}

fn write_selected(
    out: &mut Vec<u8>,
    output: &Output,
    columns: &[Column],
    event: &Event<'_>,
    args: &Args<'_>,
    host: Option<&str>,
    file: Option<&str>,
) {
    let values: Vec<Option<String>> =
        columns.iter().map(|column| column_json(column, event, args, host, file)).collect();
    match output.format {
        Format::Jsonl | Format::Chrome => {
            out.push(b'{');
            for (index, (column, value)) in columns.iter().zip(&values).enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                json_string(out, &column.name());
                out.push(b':');
                out.extend_from_slice(value.as_deref().unwrap_or("null").as_bytes());
            }
            out.extend_from_slice(b"}\n");
        }
        Format::Parquet | Format::Values | Format::Arrow => {}
        Format::Csv => {
            for (index, value) in values.iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                // Strings appear unquoted from JSON in CSV; other values as written.
                let text = value
                    .as_deref()
                    .map(|value| serde_json::from_str::<String>(value).unwrap_or_else(|_| value.to_string()));
                csv_field(out, text.as_deref().unwrap_or_default());
            }
            out.push(b'\n');
        }
    }
}

/// The CSV header, matching [`write_csv`].
const CSV_HEADER: &str = "name,cat,pid,tid,ts,dur,ph,host,file,args\n";

/// Appends `text` as one CSV field, quoted when it holds a comma, a quote or a line break.
pub(crate) fn csv_field(out: &mut Vec<u8>, text: &str) {
    if text.contains([',', '"', '\n', '\r']) {
        out.push(b'"');
        out.extend_from_slice(text.replace('"', "\"\"").as_bytes());
        out.push(b'"');
    } else {
        out.extend_from_slice(text.as_bytes());
    }
}

fn write_csv(out: &mut Vec<u8>, event: &Event<'_>, host: Option<&str>, file: Option<&str>) {
    let number = |value: Option<i64>| value.map(|value| value.to_string()).unwrap_or_default();
    let fields = [
        event.name.as_deref().unwrap_or_default().to_string(),
        event.cat.as_deref().unwrap_or_default().to_string(),
        number(event.pid),
        number(event.tid),
        number(event.ts),
        number(event.dur),
        event.phase.map(|phase| phase.letter().to_string()).unwrap_or_default(),
        host.unwrap_or_default().to_string(),
        file.unwrap_or_default().to_string(),
        event.args.unwrap_or_default().to_string(),
    ];
    for (index, field) in fields.iter().enumerate() {
        if index > 0 {
            out.push(b',');
        }
        csv_field(out, field);
    }
    out.push(b'\n');
}

/// An event as the JSON value its JSON line holds: the same keys in the same order, `args` and
/// the extra fields as the trace wrote them (parsed; text that is not JSON stays a string).
fn event_value(event: &Event<'_>, host: Option<&str>, file: Option<&str>) -> serde_json::Value {
    use serde_json::Value;
    let mut object = serde_json::Map::new();
    for (name, value) in
        [("id", event.id), ("pid", event.pid), ("tid", event.tid), ("ts", event.ts), ("dur", event.dur)]
    {
        if let Some(value) = value {
            object.insert(name.into(), Value::from(value));
        }
    }
    for (name, value) in [("name", event.name.as_deref()), ("cat", event.cat.as_deref())] {
        if let Some(value) = value {
            object.insert(name.into(), Value::from(value));
        }
    }
    if let Some(phase) = event.phase {
        object.insert("ph".into(), Value::from(phase.letter()));
    }
    if let Some(kind) = event.kind {
        object.insert("type".into(), Value::from(kind));
    }
    for (name, value) in [("host", host), ("file", file)] {
        if let Some(value) = value {
            object.insert(name.into(), Value::from(value));
        }
    }
    if let Some(args) = event.args {
        object.insert("args".into(), json_text_value(args));
    }
    for (name, value) in &event.extra {
        object.insert(name.to_string(), raw_value(value));
    }
    Value::Object(object)
}

/// One selected column of an event as a value (`null` when the event lacks it).
fn column_value(
    column: &Column,
    event: &Event<'_>,
    args: &Args<'_>,
    host: Option<&str>,
    file: Option<&str>,
) -> serde_json::Value {
    use serde_json::Value;
    let text = |value: Option<&str>| value.map_or(Value::Null, Value::from);
    let number = |value: Option<i64>| value.map_or(Value::Null, Value::from);
    match column {
        Column::Field("id") => number(event.id),
        Column::Field("pid") => number(event.pid),
        Column::Field("tid") => number(event.tid),
        Column::Field("ts") => number(event.ts),
        Column::Field("dur") => number(event.dur),
        Column::Field("type") => event.kind.map_or(Value::Null, Value::from),
        Column::Field("name") => text(event.name.as_deref()),
        Column::Field("cat") => text(event.cat.as_deref()),
        Column::Field("ph") => text(event.phase.map(Phase::letter)),
        Column::Field("host") => text(host),
        Column::Field("file") => text(file),
        Column::Field("args") => event.args.map_or(Value::Null, json_text_value),
        Column::Field(_) => Value::Null,
        Column::Arg(key) => args.get(key).map_or(Value::Null, |value| raw_value(value)),
    }
}

/// A raw field value as a value: strings as strings, the rest parsed from their JSON text.
fn raw_value(value: &RawValue<'_>) -> serde_json::Value {
    match value {
        RawValue::Str(text) => serde_json::Value::from(text.as_ref()),
        other => json_text_value(&other.as_text()),
    }
}

/// JSON text as a value; text that does not parse stays a string, so nothing is dropped.
fn json_text_value(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|_| serde_json::Value::from(text))
}
