//! Darshan records derived from DFTracer traces, for the operations that read Darshan records:
//! `darshan summary` and `darshan dump` of a trace, the Darshan rule families in `diagnose` on
//! traces, and the metadata-by-operation table. Sits between `ioscout-evidence` (which derives
//! the records) and the operations that print or reason on them.

use ioscout_evidence::Derived;
use ioscout_read::ScanReport;
use serde::Serialize;

use crate::{Input, Result};
pub use ioscout_render::evidence::{
    FILE_HEADERS, METADATA_HEADERS, SHAPE_HEADERS, file_rows, metadata_rows, shape_rows,
};

/// Derives the Darshan records of the traces of `input`.
pub fn derive(input: &Input) -> Result<(Derived, ScanReport)> {
    let (files, input_problems) = input.discover()?;
    if files.is_empty() {
        return Err(input.no_traces(&input_problems));
    }
    Ok(ioscout_evidence::derive(&scanner(input), &files, &input_problems, &source_of(input)))
}

/// The scanner of a scan that derives records: one unit per thread in flight (the replayed
/// calls of a unit are held until it is handed over in order), and a lone file split in parts
/// of at most [`REPLAY_PART_BYTES`].
pub fn scanner(input: &Input) -> ioscout_read::Scanner {
    ioscout_read::Scanner::new(ioscout_read::ScanOptions {
        window_units_per_thread: 2,
        part_bytes: input.scan.part_bytes.min(REPLAY_PART_BYTES),
        ..input.scan.clone()
    })
}

/// The part size of a lone file split across cores when its calls are replayed: 1 MiB, not the
/// scan's 4, so that the first part is replayed sooner, while the later ones are parsed, instead
/// of after them (posix-small-files, one file, 0.069 -> 0.063 s; a 100 MB member takes the same
/// time). The other scans keep 4 MiB: an export writes a batch per part.
pub const REPLAY_PART_BYTES: usize = 1 << 20;

/// What names the input in derived records: its one path, or the list of its paths.
pub fn source_of(input: &Input) -> std::path::PathBuf {
    match input.paths.as_slice() {
        [one] => one.clone(),
        _ => std::path::PathBuf::from(input.describe()),
    }
}

/// What every output of derived records says about them: that they are derived, how ranks were
/// given, what was approximated (and where first), what was left out, and the assumptions.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Derivation {
    /// Where the records come from: `dftracer_trace`.
    pub source: &'static str,
    /// Every traced process and its rank.
    pub processes: Vec<ioscout_evidence::Process>,
    /// How ranks were given.
    pub rank_rule: ioscout_evidence::RankRule,
    /// Calls replayed.
    pub calls: u64,
    /// Counters approximated, over every record.
    pub approximated_counters: u64,
    /// What was approximated, by kind.
    pub approximations: ioscout_evidence::posix::Approximations,
    /// The records with approximations (the first 50).
    pub approximated_records: Vec<ioscout_evidence::ApproximatedRecord>,
    /// Calls that could not be tied to a file, process or time.
    pub unusable_calls: u64,
    /// The first of those, with where they are.
    pub unusable_examples: Vec<ioscout_evidence::UnusableCall>,
    /// Files left out as Darshan leaves them out.
    pub excluded_files: usize,
    /// Bytes read from the files left out.
    pub excluded_bytes_read: i64,
    /// Bytes written to the files left out.
    pub excluded_bytes_written: i64,
    /// The trace's first call, in microseconds (the time origin of the timestamps).
    pub time_origin_us: i64,
    /// The file alignment assumed, in bytes (a trace does not record it).
    pub assumed_file_alignment: i64,
    /// What a trace cannot give.
    pub not_in_a_trace: [&'static str; 3],
}

impl Derivation {
    /// The derivation of `derived`.
    pub fn of(derived: &Derived) -> Derivation {
        Derivation {
            source: "dftracer_trace",
            processes: derived.processes.clone(),
            rank_rule: derived.rank_rule,
            calls: derived.calls,
            approximated_counters: derived.approximations.total(),
            approximations: derived.approximations,
            approximated_records: derived.approximated_records.clone(),
            unusable_calls: derived.unusable_calls,
            unusable_examples: derived.unusable_examples.clone(),
            excluded_files: derived.excluded_files.len(),
            excluded_bytes_read: derived.excluded_files.iter().map(|(_, read, _)| read).sum::<i64>(),
            excluded_bytes_written: derived.excluded_files.iter().map(|(_, _, written)| written).sum::<i64>(),
            time_origin_us: derived.time_origin_us,
            assumed_file_alignment: ioscout_evidence::posix::ASSUMED_FILE_ALIGNMENT,
            not_in_a_trace: ["POSIX_MEM_ALIGNMENT", "POSIX_MEM_NOT_ALIGNED", "failed opens"],
        }
    }
}

/// [`Derivation`] as JSON.
pub fn derivation_json(derived: &Derived) -> serde_json::Value {
    crate::to_json(&Derivation::of(derived))
}

/// The summary of a trace's derived records, in the shape of a log's summary, with the
/// derivation section.
pub fn summary(input: &Input) -> Result<(crate::darshan::SummaryResult, Option<ScanReport>)> {
    let (derived, report) = derive(input)?;
    let result = crate::darshan::SummaryResult {
        summary: ioscout_darshan::summary::summary(&derived.log),
        log: input.describe(),
        derived: Some(Derivation::of(&derived)),
    };
    Ok((result, Some(report)))
}

/// The `evidence` section of `analyze --json`: what the derived records tell beyond the layers.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct EvidenceSection {
    /// What was derived.
    pub derived_records: DerivedRecords,
    /// Metadata calls by operation, most time first (the first 10).
    pub metadata_operations: Vec<ioscout_evidence::metadata::Operation>,
    /// The shape of each data class with calls.
    pub data_shapes: Vec<ioscout_evidence::shape::Shape>,
    /// Files with POSIX reads or writes.
    pub file_count: usize,
    /// The files with the most bytes.
    pub files: Vec<ioscout_evidence::FileRow>,
}

/// What the `evidence` section's records were derived from.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct DerivedRecords {
    /// Calls replayed.
    pub calls: u64,
    /// Traced processes.
    pub processes: usize,
    /// How ranks were given.
    pub rank_rule: ioscout_evidence::RankRule,
    /// Counters approximated, over every record.
    pub approximated_counters: u64,
    /// Calls that could not be tied to a file, process or time.
    pub unusable_calls: u64,
    /// Files left out as Darshan leaves them out.
    pub excluded_files: usize,
}

impl EvidenceSection {
    /// The section of `derived`; `files` keeps the files with the most bytes (the count of all
    /// is given).
    pub fn of(derived: &Derived, files: usize) -> EvidenceSection {
        EvidenceSection {
            derived_records: DerivedRecords {
                calls: derived.calls,
                processes: derived.processes.len(),
                rank_rule: derived.rank_rule,
                approximated_counters: derived.approximations.total(),
                unusable_calls: derived.unusable_calls,
                excluded_files: derived.excluded_files.len(),
            },
            metadata_operations: derived.operations.iter().take(10).cloned().collect(),
            data_shapes: derived.shapes.clone(),
            file_count: derived.files.len(),
            files: derived.files.iter().take(files).cloned().collect(),
        }
    }
}
