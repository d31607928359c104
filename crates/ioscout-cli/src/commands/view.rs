//! `ioscout view`: matching events with resolved host and file names, as JSON lines or CSV.
//!
//! Two passes: the first gathers the FH/HH/SH tables of every file (a hash may be defined in
//! another file or another unit than where it is used), the second filters and prints in file
//! order. `ioscout query` does the same through the index; this module's [`ViewFold`] and
//! [`Emitter`] serve both.

use std::io::Write;
use std::ops::ControlFlow;
use std::process::ExitCode;

use anyhow::Context as _;
use ioscout_model::{Event, HashTables, RawValue};
use ioscout_query::Predicate;
use ioscout_read::event::Args;
use ioscout_read::{Fold, MetadataFold, NoFold, TraceMetadata, resolve_file, resolve_host};

use crate::cli::{ViewArguments, ViewFormat};
use crate::common;

/// Filters events and formats the matching ones (one fold per unit or chunk).
pub(crate) struct ViewFold<'s> {
    predicate: Option<&'s Predicate>,
    tables: &'s HashTables,
    format: ViewFormat,
    limit: u64,
    matched: u64,
    output: Vec<u8>,
    line_ends: Vec<usize>,
}

impl<'s> ViewFold<'s> {
    /// A fold filtering with `predicate`, resolving through `tables`, keeping at most `limit` rows.
    pub(crate) fn new(
        predicate: Option<&'s Predicate>,
        tables: &'s HashTables,
        format: ViewFormat,
        limit: u64,
    ) -> Self {
        ViewFold { predicate, tables, format, limit, matched: 0, output: Vec::new(), line_ends: Vec::new() }
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
        match self.format {
            ViewFormat::Jsonl => write_json(&mut self.output, event, host.as_deref(), file.as_deref()),
            ViewFormat::Csv => write_csv(&mut self.output, event, host.as_deref(), file.as_deref()),
        }
        self.line_ends.push(self.output.len());
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

pub(crate) fn run(arguments: &ViewArguments) -> anyhow::Result<ExitCode> {
    let predicate = arguments.filter.as_deref().map(Predicate::parse).transpose()?;
    let (files, input_problems) = common::discover(&arguments.input);
    let report = scan_and_print(
        &files,
        &input_problems,
        &arguments.input,
        predicate.as_ref(),
        arguments.limit,
        arguments.format,
    )?;
    Ok(common::finish(&report, &arguments.input))
}

/// The hash tables of `files`, by a scan that decodes metadata events only.
pub(crate) fn gather_metadata(
    scanner: &ioscout_read::Scanner,
    files: &[ioscout_read::TraceFile],
) -> TraceMetadata {
    let mut metadata = TraceMetadata::default();
    scanner.scan(
        files,
        &[],
        |_| MetadataFold::default(),
        |_, fold, _| {
            metadata.merge(fold.metadata);
            ControlFlow::Continue(())
        },
    );
    metadata
}

/// Full scan of `files`, printing matching events in file order.
pub(crate) fn scan_and_print(
    files: &[ioscout_read::TraceFile],
    input_problems: &[ioscout_read::InputProblem],
    input: &crate::cli::InputArguments,
    predicate: Option<&Predicate>,
    limit: Option<u64>,
    format: ViewFormat,
) -> anyhow::Result<ioscout_read::ScanReport> {
    let scanner = common::scanner(input);
    let metadata = gather_metadata(&scanner, files);
    let mut emitter = Emitter::new(format, limit)?;
    let report = if emitter.limit == 0 {
        scanner.scan(files, input_problems, |_| NoFold, |_, _, _| ControlFlow::Break(()))
    } else {
        let limit = emitter.limit;
        let make = |_| ViewFold::new(predicate, &metadata.tables, format, limit);
        scanner.scan(files, input_problems, make, |_, fold, _| emitter.take(&fold))
    };
    emitter.finish()?;
    Ok(report)
}

/// Writes the output of view folds to stdout in order, up to a limit.
pub(crate) struct Emitter {
    stdout: std::io::BufWriter<std::io::StdoutLock<'static>>,
    emitted: u64,
    /// Rows wanted at most.
    pub(crate) limit: u64,
    error: Option<std::io::Error>,
}

impl Emitter {
    /// Starts the output (the CSV header).
    pub(crate) fn new(format: ViewFormat, limit: Option<u64>) -> anyhow::Result<Emitter> {
        let mut stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
        if format == ViewFormat::Csv {
            stdout.write_all(CSV_HEADER.as_bytes())?;
        }
        Ok(Emitter { stdout, emitted: 0, limit: limit.unwrap_or(u64::MAX), error: None })
    }

    /// Writes a fold's rows (as many as the limit allows); breaks at the limit or on an error.
    pub(crate) fn take(&mut self, fold: &ViewFold<'_>) -> ControlFlow<()> {
        let take = usize::try_from((self.limit - self.emitted).min(fold.line_ends.len() as u64)).unwrap_or(0);
        let end = if take == 0 { 0 } else { fold.line_ends[take - 1] };
        if let Err(error) = self.stdout.write_all(&fold.output[..end]) {
            self.error = Some(error);
            return ControlFlow::Break(());
        }
        self.emitted += take as u64;
        if self.emitted >= self.limit { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    }

    /// Flushes; reports a write error (a closed pipe ends quietly in `main`).
    pub(crate) fn finish(mut self) -> anyhow::Result<()> {
        if let Some(error) = self.error.take() {
            return Err(error).context("writing events");
        }
        self.stdout.flush().context("writing events")
    }
}
