//! Decodes DFTracer traces of every format generation into [`ioscout_model::Event`]s, in parallel,
//! in bounded memory, counting bad input instead of failing on it.
//!
//! # Overview
//!
//! - [`input::discover`] turns paths, directories and globs into [`TraceFile`]s.
//! - [`Scanner`] plans units of work (gzip member runs, line-aligned ranges), decodes them on all
//!   cores and hands one [`Fold`] per unit back in file order; [`ScanReport`] holds per-file
//!   counts and located [`Problem`]s.
//! - [`event::decode_line`] decodes one line: framing, the fast field splitter of [`json`], the
//!   `serde_json` fallback, and the lenient field rules every generation needs.
//! - [`gzip`] parses member headers and inflates member runs with checksum checks.
//! - [`cluster`] splits files across the ranks of a job (MPI, or threads in tests) and exchanges
//!   serialised partial results, so a fold can run on several nodes and reduce the same way.
//! - [`metadata::MetadataFold`] gathers FH/HH/SH hash tables and process metadata; [`resolve`]
//!   names an event's host and file from them.
//!
//! This crate sits at the bottom of the pipeline: the index, query, analysis and CLI crates read
//! traces only through it.
//!
//! # Example
//!
//! ```
//! use ioscout_read::event::{decode_line, Line};
//! let line = br#"{"id":1,"name":"read","cat":"POSIX","pid":7,"tid":7,"ts":10,"dur":2,"ph":1}"#;
//! let Ok(Line::Event(event)) = decode_line(line) else { panic!("not an event") };
//! assert_eq!(event.name.as_deref(), Some("read"));
//! assert_eq!(event.dur, Some(2));
//! ```

pub mod cluster;
pub mod describe;
pub mod event;
pub mod fields;
pub mod gzip;
pub mod input;
pub mod json;
pub mod metadata;
pub mod scan;

pub use gzip::Resume;
pub use input::{
    Compression, InputProblem, Snapshot, TraceFile, Waited, Watch, discover, snapshot, wait_for_change,
};
pub use metadata::{
    MetadataFold, ProcessInfo, TraceMetadata, resolve_file, resolve_file_of_keys, resolve_host,
};
pub use scan::{
    Both, Decode, FileSummary, Fold, LinePosition, NoFold, Phases, Problem, ProblemKind, ScanOptions,
    ScanReport, Scanner, UnitSpan,
};
pub use scan::{Cancel, Chunk, Progress};
pub use scan::{Coverage, Extent, GrowingFile, Growth, ProcessCoverage, ProcessKey, SETTLE, Span};
