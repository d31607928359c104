//! Errors of the index: each names the index file and says what to do.

use std::path::PathBuf;

/// An index could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The index file is not a readable index (corrupt, truncated, or not an index at all).
    #[error("index {path} is unreadable ({detail}); rebuild it with `ioscout index`")]
    Corrupt {
        /// The index file.
        path: PathBuf,
        /// What the store said.
        detail: String,
    },
    /// Another process is writing the index (an `ioscout index` build holds its lock).
    #[error(
        "index {path} is being written by another `ioscout index` (it holds the lock); wait for it to finish, or the query reads the trace without the index"
    )]
    Locked {
        /// The index file.
        path: PathBuf,
    },
    /// The index was written by a newer ioscout.
    #[error(
        "index {path} has format {found}, newer than the {supported} this ioscout reads; upgrade ioscout or rebuild with `ioscout index --force`"
    )]
    NewerFormat {
        /// The index file.
        path: PathBuf,
        /// Format version found.
        found: u32,
        /// Format version this build writes.
        supported: u32,
    },
    /// A rank of a distributed build failed (it names the rank and the file).
    #[error(transparent)]
    Cluster(#[from] ioscout_read::cluster::ClusterError),
    /// Reading or writing the index file failed.
    #[error("index {path}: {detail}")]
    Io {
        /// The index file.
        path: PathBuf,
        /// The error.
        detail: String,
    },
}

/// Result with the index [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
