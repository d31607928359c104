//! Errors of the Darshan reader: every one names the log, the region (header, job, name
//! records, a module) and the byte offset in the file where reading stopped.

use std::path::PathBuf;

/// A region of a Darshan log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Region {
    /// The uncompressed header (version, magic number, region map).
    Header,
    /// The job record (ids, times, metadata, command line, mount table).
    Job,
    /// The name records (record id to path).
    Names,
    /// A module's records.
    Module(String),
}

impl std::fmt::Display for Region {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Region::Header => formatter.write_str("header"),
            Region::Job => formatter.write_str("job region"),
            Region::Names => formatter.write_str("name-record region"),
            Region::Module(name) => write!(formatter, "{name} module region"),
        }
    }
}

/// What went wrong.
#[derive(Debug, thiserror::Error)]
pub enum DarshanError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The log.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The log is not a Darshan 3.x log, is truncated or is corrupt.
    #[error("{path}: {region} at byte {offset}: {message}")]
    Format {
        /// The log.
        path: PathBuf,
        /// The region being read.
        region: Region,
        /// Byte offset in the file (the region's start for compressed regions).
        offset: u64,
        /// What was found.
        message: String,
    },
}

impl DarshanError {
    /// A format error.
    pub(crate) fn format(
        path: &std::path::Path,
        region: Region,
        offset: u64,
        message: impl Into<String>,
    ) -> Self {
        DarshanError::Format { path: path.to_path_buf(), region, offset, message: message.into() }
    }
}
