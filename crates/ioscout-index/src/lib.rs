//! The ioscout sidecar index: per trace directory, a small redb file that records how each raw
//! trace file splits into independently decodable chunks and what each chunk holds, so queries
//! skip chunks that cannot match and read the rest in parallel, without converting the trace.
//!
//! # Overview
//!
//! - [`build::build`] indexes the trace files of one directory, incrementally: files whose
//!   [`Fingerprint`] is unchanged are kept, changed and new files are (re)scanned, vanished ones
//!   dropped. One scan (the reader's parallel scanner with a [`StatsFold`] per unit) gives the
//!   chunk table and the statistics. A single-member gzip file is first cut at deflate block
//!   checkpoints (`checkpoint`), so its chunks too decode on their own.
//! - [`store`] holds the format ([`FileIndex`], [`ChunkEntry`]), the index location
//!   ([`store::candidate_paths`]) and atomic reads and writes.
//! - [`stats::ChunkStats`] are the per-chunk statistics and roll-ups; [`bloom::Bloom`] the
//!   stable bloom filter.
//!
//! The query planner (`ioscout-query`) reads [`TraceIndex`]es; this crate knows nothing of
//! predicates.

pub mod bloom;
pub mod build;
mod checkpoint;
pub mod error;
pub mod fingerprint;
pub mod stats;
pub mod store;

pub use error::{Error, Result};
pub use fingerprint::Fingerprint;
pub use stats::{ChunkStats, StatsFold};
pub use store::{ChunkEntry, FORMAT_VERSION, FileIndex, ResumePoint, TraceIndex};
