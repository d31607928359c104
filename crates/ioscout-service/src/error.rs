//! The errors of the operations: a bad request (the caller's to fix) apart from a failure while
//! running (unreadable input, a damaged log, a knowledge base that cannot be written).

use std::path::PathBuf;

/// Why an operation failed.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// The request itself is wrong: an unknown name, a malformed expression, a missing field.
    #[error("{0}")]
    BadRequest(String),
    /// Nothing to work on.
    #[error("{0}")]
    NoInput(String),
    /// A file or directory could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A rank of a job of several processes failed (MPI).
    #[error(transparent)]
    Cluster(#[from] ioscout_read::cluster::ClusterError),
    /// The analysis refused its options.
    #[error(transparent)]
    Analysis(#[from] ioscout_analysis::AnalysisError),
    /// A Darshan log could not be read.
    #[error(transparent)]
    Darshan(#[from] ioscout_darshan::DarshanError),
    /// The knowledge base refused an entry or could not be read.
    #[error(transparent)]
    KnowledgeBase(#[from] ioscout_advise::kb::KbError),
    /// The bundled strategy catalog is inconsistent.
    #[error(transparent)]
    Catalog(#[from] ioscout_advise::catalog::CatalogError),
    /// The detector's model file could not be used.
    #[error("cannot use the detector's model (`--detector rules` diagnoses without it)")]
    Model(#[source] ioscout_detect::ModelError),
    /// A `--where` expression or an aggregation did not parse.
    #[error(transparent)]
    Query(#[from] ioscout_query::QueryError),
    /// Writing an output to its sink failed (a closed pipe among others).
    #[error("writing {what}: {source}")]
    Write {
        /// What was being written.
        what: &'static str,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Encoding an output failed.
    #[error("writing {what}: {message}")]
    Output {
        /// What was being written.
        what: &'static str,
        /// Why it failed.
        message: String,
    },
}

impl From<ioscout_render::ExportError> for ServiceError {
    fn from(error: ioscout_render::ExportError) -> ServiceError {
        match error {
            ioscout_render::ExportError::Write { what, source } => ServiceError::Write { what, source },
            ioscout_render::ExportError::Encode { what, message } => ServiceError::Output { what, message },
        }
    }
}

impl From<ioscout_render::rows::UnknownColumn> for ServiceError {
    fn from(error: ioscout_render::rows::UnknownColumn) -> ServiceError {
        ServiceError::BadRequest(error.to_string())
    }
}

impl ServiceError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> ServiceError {
        ServiceError::Io { path: path.into(), source }
    }

    /// A write error on an output sink.
    pub fn write(what: &'static str, source: std::io::Error) -> ServiceError {
        ServiceError::Write { what, source }
    }

    /// An output error.
    pub fn output(what: &'static str, error: impl std::fmt::Display) -> ServiceError {
        ServiceError::Output { what, message: error.to_string() }
    }

    /// Whether the caller's request is at fault (an MCP client gets an invalid-params error).
    pub fn is_bad_request(&self) -> bool {
        matches!(self, ServiceError::BadRequest(_) | ServiceError::Query(_) | ServiceError::Analysis(_))
    }
}

/// The result of an operation.
pub type Result<T, E = ServiceError> = std::result::Result<T, E>;
