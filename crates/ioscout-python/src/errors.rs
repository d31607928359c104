//! The Python exceptions of the package, all under `ioscout.Error`, and how the service's errors
//! map onto them: a bad request (a bad model file among them) is a `RequestError`, unreadable or
//! (under `strict`) bad trace input a `TraceError`, a damaged Darshan log a `DarshanError`, a `where` expression that does
//! not parse a `QueryError`, a sidecar index that cannot be used a `TraceIndexError`. Each
//! carries `path`, `line` and `offset` attributes (`None` where unknown).
//!
//! Errors are made on the worker thread as a [`Failure`] (plain Rust data) and turned into a
//! Python exception on the calling thread, which holds the interpreter.

use std::path::PathBuf;

use pyo3::exceptions::PyException;
use pyo3::prelude::*;

pyo3::create_exception!(ioscout, Error, PyException, "The base of every error ioscout raises.");
pyo3::create_exception!(
    ioscout,
    RequestError,
    Error,
    "A request ioscout cannot run: an unknown name, a bad option."
);
pyo3::create_exception!(
    ioscout,
    TraceError,
    Error,
    "A trace that cannot be read, or bad input under strict=True."
);
pyo3::create_exception!(ioscout, DarshanError, Error, "A Darshan log that cannot be read.");
pyo3::create_exception!(
    ioscout,
    QueryError,
    Error,
    "A where expression or an aggregation that does not parse."
);
pyo3::create_exception!(ioscout, TraceIndexError, Error, "A sidecar index that cannot be built or used.");

/// The exception classes, as the module exports them.
pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add("Error", py.get_type::<Error>())?;
    module.add("RequestError", py.get_type::<RequestError>())?;
    module.add("TraceError", py.get_type::<TraceError>())?;
    module.add("DarshanError", py.get_type::<DarshanError>())?;
    module.add("QueryError", py.get_type::<QueryError>())?;
    module.add("TraceIndexError", py.get_type::<TraceIndexError>())?;
    Ok(())
}

/// Which exception class a failure becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Request,
    Trace,
    Darshan,
    Query,
    Index,
    Other,
}

/// A failure on the worker thread: the class, the message and where in which file.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) kind: Kind,
    pub(crate) message: String,
    pub(crate) path: Option<PathBuf>,
    pub(crate) line: Option<u64>,
    pub(crate) offset: Option<u64>,
}

impl Failure {
    /// A failure of `kind` with no position.
    pub(crate) fn new(kind: Kind, message: impl Into<String>) -> Failure {
        Failure { kind, message: message.into(), path: None, line: None, offset: None }
    }

    /// The Python exception, with its `path`, `line` and `offset` attributes set.
    pub(crate) fn into_py_err(self, py: Python<'_>) -> PyErr {
        let error = match self.kind {
            Kind::Request => RequestError::new_err(self.message),
            Kind::Trace => TraceError::new_err(self.message),
            Kind::Darshan => DarshanError::new_err(self.message),
            Kind::Query => QueryError::new_err(self.message),
            Kind::Index => TraceIndexError::new_err(self.message),
            Kind::Other => Error::new_err(self.message),
        };
        let value = error.value(py);
        let path = self.path.map(|path| path.display().to_string());
        // Setting an attribute on a fresh exception instance does not fail; if it did, the
        // exception would still be raised, without the attribute.
        let _ = value.setattr("path", path);
        let _ = value.setattr("line", self.line);
        let _ = value.setattr("offset", self.offset);
        error
    }
}

impl From<ioscout_service::ServiceError> for Failure {
    fn from(error: ioscout_service::ServiceError) -> Failure {
        use ioscout_service::ServiceError;
        let message = chain(&error);
        match error {
            ServiceError::BadRequest(_) | ServiceError::Analysis(_) | ServiceError::Model(_) => {
                Failure::new(Kind::Request, message)
            }
            ServiceError::Query(_) => Failure::new(Kind::Query, message),
            ServiceError::NoInput(_) => Failure::new(Kind::Trace, message),
            // A file other than a trace: an output, a threshold file, a knowledge base.
            ServiceError::Io { path, .. } => {
                Failure { path: Some(path), ..Failure::new(Kind::Other, message) }
            }
            ServiceError::Darshan(error) => error.into(),
            _ => Failure::new(Kind::Other, message),
        }
    }
}

impl From<ioscout_darshan::DarshanError> for Failure {
    fn from(error: ioscout_darshan::DarshanError) -> Failure {
        let message = chain(&error);
        match error {
            ioscout_darshan::DarshanError::Io { path, .. } => {
                Failure { path: Some(path), ..Failure::new(Kind::Darshan, message) }
            }
            ioscout_darshan::DarshanError::Format { path, offset, .. } => {
                Failure { path: Some(path), offset: Some(offset), ..Failure::new(Kind::Darshan, message) }
            }
        }
    }
}

/// An error's message and its causes, each once (a cause an outer message already carries is
/// not repeated), as the command line prints them.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// Under `strict`, the first problem of a scan as a `TraceError` naming its file, line and byte
/// offset; `Ok` when the scan read everything (the unfinished end of a file still being written
/// is no problem, as on the command line: [`ioscout_read::ScanReport::bad_input_count`]).
pub(crate) fn strict_problems(report: &ioscout_read::ScanReport) -> Result<(), Failure> {
    let coverage = report.coverage(std::time::SystemTime::now(), ioscout_read::SETTLE);
    let count = report.bad_input_count(&coverage);
    if count == 0 {
        return Ok(());
    }
    let Some(problem) = report.bad_input(&coverage).next() else {
        return Err(Failure::new(Kind::Trace, format!("{count} problems in the input (strict=True)")));
    };
    Err(Failure {
        kind: Kind::Trace,
        message: format!("{count} problem(s) in the input (strict=True); the first: {problem}"),
        path: Some(problem.path.clone()),
        line: problem.line,
        offset: problem.offset.or(problem.compressed_offset),
    })
}
