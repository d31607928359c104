//! Matching events with resolved host and file names (`ioscout view`), as JSON lines, CSV or
//! Parquet, written to any sink.
//!
//! Two passes: the first gathers the FH/HH/SH tables of every file (a hash may be defined in
//! another file or another unit than where it is used), the second filters and prints in file
//! order. `ioscout query` does the same through the index; this module's [`ViewFold`] and
//! [`Emitter`] serve both.

use std::ops::ControlFlow;

use ioscout_model::{Event, HashTables};
use ioscout_query::Predicate;
use ioscout_read::event::Args;
use ioscout_read::{Fold, NoFold, resolve_file, resolve_host};

pub use ioscout_render::rows::{Column, Format as ViewFormat, Output, Sink};
use ioscout_render::rows::{EventRow, Exporter, Rows};

use crate::{Input, Result, ServiceError};

/// Filters events and formats the matching ones (one fold per unit or chunk).
pub struct ViewFold<'s> {
    predicate: Option<&'s Predicate>,
    tables: &'s HashTables,
    output: &'s Output,
    limit: u64,
    matched: u64,
    rows: ViewPart,
}

/// The rows a [`ViewFold`] kept, owned and serialisable: what a rank sends to rank 0, which
/// writes them in input order ([`Emitter::take_part`]).
pub type ViewPart = Rows;

impl<'s> ViewFold<'s> {
    /// The rows kept, to send elsewhere.
    pub fn into_part(self) -> ViewPart {
        self.rows
    }

    /// A fold filtering with `predicate`, resolving through `tables`, keeping at most `limit` rows.
    pub fn new(
        predicate: Option<&'s Predicate>,
        tables: &'s HashTables,
        output: &'s Output,
        limit: u64,
    ) -> Self {
        ViewFold { predicate, tables, output, limit, matched: 0, rows: Rows::new(output) }
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
        let row = EventRow { event, args: &args, host: host.as_deref(), file: file.as_deref() };
        self.output.encode(&row, &mut self.rows);
    }
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
    let (files, input_problems) = input.discover()?;
    scan_and_print(&files, &input_problems, input, predicate.as_ref(), limit, output, out)
        .map(|(report, _)| report)
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
) -> Result<(ioscout_read::ScanReport, Vec<serde_json::Value>)> {
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
    let values = emitter.finish()?;
    Ok((report, values))
}

/// Writes the output of view folds to a sink in order, up to a limit.
pub struct Emitter {
    exporter: Option<Box<dyn Exporter>>,
    /// The rows, for [`ViewFormat::Values`].
    values: Vec<serde_json::Value>,
    emitted: u64,
    /// Rows wanted at most.
    pub limit: u64,
    error: Option<ServiceError>,
}

impl Emitter {
    /// Starts the output (the CSV header, the Parquet schema).
    pub fn new(output: &Output, limit: Option<u64>, out: Sink) -> Result<Emitter> {
        let limit = limit.unwrap_or(u64::MAX);
        let exporter = match output.format {
            ViewFormat::Values => None,
            _ => Some(ioscout_render::rows::exporter(output, out)?),
        };
        Ok(Emitter { exporter, values: Vec::new(), emitted: 0, limit, error: None })
    }

    /// Writes a fold's rows (as many as the limit allows); breaks at the limit or on an error.
    pub fn take(&mut self, fold: &ViewFold<'_>) -> ControlFlow<()> {
        self.take_part(&fold.rows)
    }

    /// Writes the rows of a fold made on another rank ([`ViewFold::into_part`]).
    pub fn take_part(&mut self, part: &ViewPart) -> ControlFlow<()> {
        let take = usize::try_from((self.limit - self.emitted).min(part.len() as u64)).unwrap_or(0);
        match self.exporter.as_mut() {
            Some(exporter) => {
                if let Err(error) = exporter.write(part, take) {
                    self.error = Some(error.into());
                    return ControlFlow::Break(());
                }
            }
            None => self.values.extend_from_slice(part.values(take)),
        }
        self.emitted += take as u64;
        if self.emitted >= self.limit { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    }

    /// Flushes; reports a write error (a closed pipe ends quietly in `main`). Returns the rows
    /// held as values ([`ViewFormat::Values`]; empty for the other formats).
    pub fn finish(mut self) -> Result<Vec<serde_json::Value>> {
        if let Some(error) = self.error.take() {
            return Err(error);
        }
        if let Some(exporter) = self.exporter.take() {
            exporter.finish()?;
        }
        Ok(self.values)
    }
}
