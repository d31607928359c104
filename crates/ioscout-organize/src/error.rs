//! Why organizing or reconstructing failed: the request or the organized directory is wrong
//! (refused), a file could not be read or written (with its path), a group's expression did not
//! parse, or an output could not be encoded.

use std::path::PathBuf;

/// Why organizing or reconstructing failed.
#[derive(Debug, thiserror::Error)]
pub enum OrganizeError {
    /// The request or the organized directory is wrong: a malformed group, an output that is
    /// not empty, a provenance file that is not one or does not match its group files.
    #[error("{0}")]
    Refused(String),
    /// A group's expression did not parse.
    #[error(transparent)]
    Query(#[from] ioscout_query::QueryError),
    /// A file or directory could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Encoding an output (the provenance, the index) failed.
    #[error("writing {what}: {message}")]
    Output {
        /// What was being written.
        what: &'static str,
        /// Why it failed.
        message: String,
    },
}

impl OrganizeError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> OrganizeError {
        OrganizeError::Io { path: path.into(), source }
    }

    /// An output error.
    pub fn output(what: &'static str, error: impl std::fmt::Display) -> OrganizeError {
        OrganizeError::Output { what, message: error.to_string() }
    }
}
