//! `ioscout view`: matching events with resolved host and file names, as JSON lines or CSV.
//!
//! Two passes: the first gathers the FH/HH/SH tables of every file (a hash may be defined in
//! another file or another unit than where it is used), the second filters and prints in file
//! order. The index (a later stage) stores the tables and removes the first pass.

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

struct ViewFold<'s> {
    predicate: Option<&'s Predicate>,
    tables: &'s HashTables,
    format: ViewFormat,
    limit: u64,
    matched: u64,
    output: Vec<u8>,
    line_ends: Vec<usize>,
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
    if let Some(args) = &event.args {
        key(out, "args");
        raw_json(out, args);
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
        event.args.as_ref().map(|args| args.as_text().into_owned()).unwrap_or_default(),
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
    let scanner = common::scanner(&arguments.input);
    let mut metadata = TraceMetadata::default();
    scanner.scan(
        &files,
        &[],
        |_| MetadataFold::default(),
        |_, fold, _| {
            metadata.merge(fold.metadata);
            ControlFlow::Continue(())
        },
    );
    let limit = arguments.limit.unwrap_or(u64::MAX);
    let mut stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    if arguments.format == ViewFormat::Csv {
        stdout.write_all(CSV_HEADER.as_bytes())?;
    }
    let mut emitted = 0u64;
    let mut write_error = None;
    let make = |_| ViewFold {
        predicate: predicate.as_ref(),
        tables: &metadata.tables,
        format: arguments.format,
        limit,
        matched: 0,
        output: Vec::new(),
        line_ends: Vec::new(),
    };
    let report = if limit == 0 {
        scanner.scan(&files, &input_problems, |_| NoFold, |_, _, _| ControlFlow::Break(()))
    } else {
        scanner.scan(&files, &input_problems, make, |_, fold, _| {
            let take = usize::try_from((limit - emitted).min(fold.line_ends.len() as u64)).unwrap_or(0);
            let end = if take == 0 { 0 } else { fold.line_ends[take - 1] };
            if let Err(error) = stdout.write_all(&fold.output[..end]) {
                write_error = Some(error);
                return ControlFlow::Break(());
            }
            emitted += take as u64;
            if emitted >= limit { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
        })
    };
    if let Some(error) = write_error {
        return Err(error).context("writing events");
    }
    stdout.flush()?;
    drop(stdout);
    Ok(common::finish(&report, &arguments.input))
}
