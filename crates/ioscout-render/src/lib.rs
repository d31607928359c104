//! What users read and what they take elsewhere, drawn from the results of the stages below
//! (analysis, diagnosis, advice, derived records) and from decoded events.
//!
//! The service ([`ioscout-service`]) runs the operations and hands their results here; nothing in
//! this crate reads a trace or decides anything.
//!
//! # Parts
//!
//! - [`text`]: numbers, byte sizes, paths and wrapping for the terminal;
//! - [`table`]: aligned terminal tables fitted to a width;
//! - [`svg`]: server-side SVG charts (line, bar, timeline, heatmap);
//! - [`html`]: the HTML report's page and sections; [`evidence`]: the derived records as table rows;
//! - [`rows`]: event rows as JSON lines, CSV, Parquet and Chrome trace JSON, behind one
//!   [`rows::Exporter`] trait;
//! - [`parquet`]: the one Parquet writer (typed columns), for the rows and the detail tables;
//! - [`drill`]: the report's drill-down (embedded data and its script: linked zoom, offsets,
//!   rank 0, flame graph);
//! - [`details`]: the analysis views' detail tables as CSV or Parquet files.

pub mod advice;
pub mod analysis;
pub mod campaign;
pub mod counts;
pub mod darshan;
pub mod darshan_page;
pub mod details;
pub mod detector;
pub mod drill;
pub mod evidence;
pub mod findings;
pub mod groups;
pub mod html;
pub mod info;
pub mod optimize;
pub mod parquet;
pub mod rows;
pub mod svg;
pub mod table;
pub mod text;
pub mod tune;

/// Why an output could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// Writing to the sink failed (a closed pipe among others).
    #[error("writing {what}: {source}")]
    Write {
        /// What was being written.
        what: &'static str,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Encoding failed.
    #[error("writing {what}: {message}")]
    Encode {
        /// What was being written.
        what: &'static str,
        /// Why it failed.
        message: String,
    },
}

impl ExportError {
    /// A write error on the events' sink.
    pub(crate) fn events(source: std::io::Error) -> ExportError {
        ExportError::Write { what: "events", source }
    }

    /// A Parquet encoding error.
    pub(crate) fn parquet(error: impl std::fmt::Display) -> ExportError {
        ExportError::Encode { what: "Parquet", message: error.to_string() }
    }
}
