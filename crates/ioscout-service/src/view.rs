//! Matching events with resolved host and file names (`ioscout view`), as JSON lines, CSV or
//! Parquet, written to any sink.
//!
//! Two passes: the first gathers the FH/HH/SH tables of every file (a hash may be defined in
//! another file or another unit than where it is used), the second filters and prints in file
//! order. `ioscout query` does the same through the index; this module's [`ViewFold`] and
//! [`Emitter`] serve both.

use std::io::Write;
use std::ops::ControlFlow;

use ioscout_model::{Event, HashTables, RawValue};
use ioscout_query::Predicate;
use ioscout_read::event::Args;
use ioscout_read::{Fold, NoFold, resolve_file, resolve_host};

use crate::{Input, Result, ServiceError};

/// How events are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewFormat {
    /// One JSON object per line.
    Jsonl,
    /// Comma-separated values with a header.
    Csv,
    /// Apache Parquet.
    Parquet,
    /// Chrome's trace-event JSON (`{"traceEvents": [...]}`), for Perfetto's UI and
    /// `chrome://tracing`: complete events only, host and file names in `args`.
    Chrome,
}

/// Where events go: stdout on the command line, a buffer for an MCP tool.
pub type Sink = Box<dyn Write + Send>;

/// Filters events and formats the matching ones (one fold per unit or chunk).
pub struct ViewFold<'s> {
    predicate: Option<&'s Predicate>,
    tables: &'s HashTables,
    output: &'s Output,
    limit: u64,
    matched: u64,
    buffer: Vec<u8>,
    line_ends: Vec<usize>,
    /// Column values, for Parquet output.
    cells: Vec<Vec<Option<String>>>,
}

/// The rows a [`ViewFold`] kept, owned and serialisable: what a rank sends to rank 0, which
/// writes them in input order ([`Emitter::take_part`]).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct ViewPart {
    buffer: Vec<u8>,
    line_ends: Vec<usize>,
    cells: Vec<Vec<Option<String>>>,
}

impl ViewPart {
    /// Rows held.
    pub fn rows(&self) -> usize {
        self.line_ends.len()
    }
}

impl<'s> ViewFold<'s> {
    /// The rows kept, to send elsewhere.
    pub fn into_part(self) -> ViewPart {
        ViewPart { buffer: self.buffer, line_ends: self.line_ends, cells: self.cells }
    }

    /// A fold filtering with `predicate`, resolving through `tables`, keeping at most `limit` rows.
    pub fn new(
        predicate: Option<&'s Predicate>,
        tables: &'s HashTables,
        output: &'s Output,
        limit: u64,
    ) -> Self {
        ViewFold {
            predicate,
            tables,
            output,
            limit,
            matched: 0,
            buffer: Vec::new(),
            line_ends: Vec::new(),
            cells: vec![Vec::new(); output.columns().len()],
        }
    }
}

impl Fold for ViewFold<'_> {
    fn event(&mut self, event: &Event<'_>) {
        if self.matched >= self.limit {
            return;
        }
        if let Some(predicate) = self.predicate
            && !predicate.uses_args()
            && !predicate.matches_with_args(event, &Args::default(), self.tables)
        {
            return;
        }
        let args = Args::of(event);
        if let Some(predicate) = self.predicate
            && predicate.uses_args()
            && !predicate.matches_with_args(event, &args, self.tables)
        {
            return;
        }
        self.matched += 1;
        let host = resolve_host(&args, self.tables);
        let file = resolve_file(&args, self.tables);
        if self.output.format == ViewFormat::Chrome && event.phase != Some(ioscout_model::Phase::Complete) {
            return;
        }
        if self.output.format == ViewFormat::Parquet {
            for (column, cells) in self.output.columns().iter().zip(&mut self.cells) {
                let value = column_json(column, event, &args, host.as_deref(), file.as_deref());
                cells.push(value.map(|value| serde_json::from_str::<String>(&value).unwrap_or(value)));
            }
            self.line_ends.push(self.line_ends.len() + 1);
            return;
        }
        match (&self.output.select, self.output.format) {
            (Some(columns), _) => write_selected(
                &mut self.buffer,
                self.output,
                columns,
                event,
                &args,
                host.as_deref(),
                file.as_deref(),
            ),
            (None, ViewFormat::Jsonl) => {
                write_json(&mut self.buffer, event, host.as_deref(), file.as_deref());
            }
            (None, ViewFormat::Csv) => write_csv(&mut self.buffer, event, host.as_deref(), file.as_deref()),
            (None, ViewFormat::Chrome) => {
                write_chrome(&mut self.buffer, event, host.as_deref(), file.as_deref());
            }
            (None, ViewFormat::Parquet) => {}
        }
        self.line_ends.push(self.buffer.len());
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
pub struct Output {
    /// JSON lines or CSV.
    pub format: ViewFormat,
    /// Only these columns, in this order.
    pub select: Option<Vec<Column>>,
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
    pub fn new(format: ViewFormat, select: Option<&str>) -> Result<Output> {
        const FIELDS: [&str; 12] =
            ["id", "pid", "tid", "ts", "dur", "name", "cat", "ph", "type", "host", "file", "args"];
        let select = select
            .map(|text| {
                text.split(',')
                    .map(str::trim)
                    .filter(|column| !column.is_empty())
                    .map(|column| {
                        if let Some(field) = FIELDS.iter().find(|field| **field == column) {
                            return Ok(Column::Field(field));
                        }
                        match column.strip_prefix("args.") {
                            Some(key) if !key.is_empty() => Ok(Column::Arg(key.to_string())),
                            _ => Err(ServiceError::BadRequest(format!(
                                "unknown --select column {column:?} (columns: {}, args.<key>)",
                                FIELDS.join(", ")
                            ))),
                        }
                    })
                    .collect::<Result<Vec<_>>>()
            })
            .transpose()?;
        Ok(Output { format, select })
    }

    /// The columns printed: `--select`, or all of them.
    pub fn columns(&self) -> Vec<Column> {
        self.select.clone().unwrap_or_else(|| {
            ["name", "cat", "pid", "tid", "ts", "dur", "ph", "type", "host", "file", "args"]
                .into_iter()
                .map(Column::Field)
                .collect()
        })
    }

    fn header(&self) -> String {
        match &self.select {
            Some(columns) => {
                let names: Vec<String> = columns
                    .iter()
                    .map(|column| match column {
                        Column::Field(field) => (*field).to_string(),
                        Column::Arg(key) => format!("args.{key}"),
                    })
                    .collect();
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
        ViewFormat::Jsonl | ViewFormat::Chrome => {
            out.push(b'{');
            for (index, (column, value)) in columns.iter().zip(&values).enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                let name = match column {
                    Column::Field(field) => (*field).to_string(),
                    Column::Arg(key) => format!("args.{key}"),
                };
                json_string(out, &name);
                out.push(b':');
                out.extend_from_slice(value.as_deref().unwrap_or("null").as_bytes());
            }
            out.extend_from_slice(b"}\n");
        }
        ViewFormat::Parquet => {}
        ViewFormat::Csv => {
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

fn csv_field(out: &mut Vec<u8>, text: &str) {
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

/// Writes the events of `input` that match `filter` to `out`, in file order, up to `limit`.
pub fn view(
    input: &Input,
    filter: Option<&str>,
    limit: Option<u64>,
    output: &Output,
    out: Sink,
) -> Result<ioscout_read::ScanReport> {
    let predicate = filter.map(Predicate::parse).transpose()?;
    let (files, input_problems) = input.discover();
    scan_and_print(&files, &input_problems, input, predicate.as_ref(), limit, output, out)
}

/// Full scan of `files`, printing matching events in file order.
pub fn scan_and_print(
    files: &[ioscout_read::TraceFile],
    input_problems: &[ioscout_read::InputProblem],
    input: &Input,
    predicate: Option<&Predicate>,
    limit: Option<u64>,
    output: &Output,
    out: Sink,
) -> Result<ioscout_read::ScanReport> {
    let scanner = input.scanner();
    let metadata = scanner.metadata(files);
    let mut emitter = Emitter::new(output, limit, out)?;
    let report = if emitter.limit == 0 {
        scanner.scan(files, input_problems, |_| NoFold, |_, _, _| ControlFlow::Break(()))
    } else {
        let limit = emitter.limit;
        let make = |_| ViewFold::new(predicate, &metadata.tables, output, limit);
        scanner.scan(files, input_problems, make, |_, fold, _| emitter.take(&fold))
    };
    emitter.finish()?;
    Ok(report)
}

/// Writes the output of view folds to a sink in order, up to a limit.
pub struct Emitter {
    text: Option<std::io::BufWriter<Sink>>,
    parquet: Option<ParquetSink>,
    emitted: u64,
    /// Rows wanted at most.
    pub limit: u64,
    error: Option<ServiceError>,
    /// Chrome's format: the events are the items of one JSON array.
    chrome: bool,
}

/// Parquet output: one record batch per fold, row groups of at most 128 Ki rows.
struct ParquetSink {
    writer: parquet::arrow::ArrowWriter<std::io::BufWriter<Sink>>,
    schema: std::sync::Arc<arrow_schema::Schema>,
    integer: Vec<bool>,
}

impl ParquetSink {
    fn new(columns: &[Column], out: Sink) -> Result<ParquetSink> {
        let integer: Vec<bool> = columns
            .iter()
            .map(|column| matches!(column, Column::Field("id" | "pid" | "tid" | "ts" | "dur" | "type")))
            .collect();
        let fields: Vec<arrow_schema::Field> = columns
            .iter()
            .zip(&integer)
            .map(|(column, &integer)| {
                let name = match column {
                    Column::Field(field) => (*field).to_string(),
                    Column::Arg(key) => format!("args.{key}"),
                };
                let kind = if integer { arrow_schema::DataType::Int64 } else { arrow_schema::DataType::Utf8 };
                arrow_schema::Field::new(name, kind, true)
            })
            .collect();
        let schema = std::sync::Arc::new(arrow_schema::Schema::new(fields));
        let properties = parquet::file::properties::WriterProperties::builder()
            .set_max_row_group_row_count(Some(128 * 1024))
            .set_compression(parquet::basic::Compression::SNAPPY)
            .build();
        let writer = parquet::arrow::ArrowWriter::try_new(
            std::io::BufWriter::with_capacity(1 << 20, out),
            schema.clone(),
            Some(properties),
        )
        .map_err(|error| ServiceError::output("Parquet", error))?;
        Ok(ParquetSink { writer, schema, integer })
    }

    fn write(&mut self, cells: &[Vec<Option<String>>], rows: usize) -> Result<()> {
        use arrow_array::{ArrayRef, Int64Array, StringArray};
        let arrays: Vec<ArrayRef> = cells
            .iter()
            .zip(&self.integer)
            .map(|(values, &integer)| -> ArrayRef {
                let values = &values[..rows.min(values.len())];
                if integer {
                    std::sync::Arc::new(
                        values
                            .iter()
                            .map(|value| value.as_deref().and_then(|text| text.parse::<i64>().ok()))
                            .collect::<Int64Array>(),
                    )
                } else {
                    std::sync::Arc::new(values.iter().map(Option::as_deref).collect::<StringArray>())
                }
            })
            .collect();
        let batch = arrow_array::RecordBatch::try_new(self.schema.clone(), arrays)
            .map_err(|error| ServiceError::output("Parquet", error))?;
        self.writer.write(&batch).map_err(|error| ServiceError::output("Parquet", error))
    }
}

impl Emitter {
    /// Starts the output (the CSV header, the Parquet schema).
    pub fn new(output: &Output, limit: Option<u64>, out: Sink) -> Result<Emitter> {
        let limit = limit.unwrap_or(u64::MAX);
        if output.format == ViewFormat::Parquet {
            let parquet = Some(ParquetSink::new(&output.columns(), out)?);
            return Ok(Emitter { text: None, parquet, emitted: 0, limit, error: None, chrome: false });
        }
        let mut text = std::io::BufWriter::with_capacity(1 << 16, out);
        if output.format == ViewFormat::Csv {
            text.write_all(output.header().as_bytes())
                .map_err(|error| ServiceError::write("events", error))?;
        }
        let chrome = output.format == ViewFormat::Chrome;
        if chrome {
            text.write_all(b"{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n")
                .map_err(|error| ServiceError::write("events", error))?;
        }
        Ok(Emitter { text: Some(text), parquet: None, emitted: 0, limit, error: None, chrome })
    }

    /// Writes a fold's rows (as many as the limit allows); breaks at the limit or on an error.
    pub fn take(&mut self, fold: &ViewFold<'_>) -> ControlFlow<()> {
        self.take_rows(&fold.buffer, &fold.line_ends, &fold.cells)
    }

    /// Writes the rows of a fold made on another rank ([`ViewFold::into_part`]).
    pub fn take_part(&mut self, part: &ViewPart) -> ControlFlow<()> {
        self.take_rows(&part.buffer, &part.line_ends, &part.cells)
    }

    fn take_rows(
        &mut self,
        buffer: &[u8],
        line_ends: &[usize],
        cells: &[Vec<Option<String>>],
    ) -> ControlFlow<()> {
        let take = usize::try_from((self.limit - self.emitted).min(line_ends.len() as u64)).unwrap_or(0);
        let written = match (&mut self.parquet, &mut self.text) {
            (Some(parquet), _) => {
                if take > 0 {
                    parquet.write(cells, take)
                } else {
                    Ok(())
                }
            }
            (None, Some(text)) if self.chrome => {
                let mut start = 0;
                let mut written = Ok(());
                for (index, end) in line_ends.iter().take(take).enumerate() {
                    let separator: &[u8] = if self.emitted + index as u64 == 0 { b"" } else { b"," };
                    written = text
                        .write_all(separator)
                        .and_then(|()| text.write_all(&buffer[start..*end]))
                        .map_err(|error| ServiceError::write("events", error));
                    if written.is_err() {
                        break;
                    }
                    start = *end;
                }
                written
            }
            (None, Some(text)) => {
                let end = if take == 0 { 0 } else { line_ends[take - 1] };
                text.write_all(&buffer[..end]).map_err(|error| ServiceError::write("events", error))
            }
            (None, None) => Ok(()),
        };
        if let Err(error) = written {
            self.error = Some(error);
            return ControlFlow::Break(());
        }
        self.emitted += take as u64;
        if self.emitted >= self.limit { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    }

    /// Flushes; reports a write error (a closed pipe ends quietly in `main`).
    pub fn finish(mut self) -> Result<()> {
        if let Some(error) = self.error.take() {
            return Err(error);
        }
        if let Some(parquet) = self.parquet.take() {
            parquet.writer.close().map_err(|error| ServiceError::output("Parquet", error))?;
        }
        if let Some(text) = self.text.as_mut() {
            if self.chrome {
                text.write_all(b"]}\n").map_err(|error| ServiceError::write("events", error))?;
            }
            text.flush().map_err(|error| ServiceError::write("events", error))?;
        }
        Ok(())
    }
}
