//! Darshan records derived from DFTracer traces, for the operations that read Darshan records:
//! `darshan summary` and `darshan dump` of a trace, the Darshan rule families in `diagnose` on
//! traces, and the metadata-by-operation table. Sits between `ioscout-evidence` (which derives
//! the records) and the operations that print or reason on them.

use std::fmt::Write as _;

use ioscout_evidence::Derived;
use ioscout_read::ScanReport;
use serde::Serialize;

use crate::text::display_path;
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
/// calls of a unit are held until it is handed over in order).
pub fn scanner(input: &Input) -> ioscout_read::Scanner {
    ioscout_read::Scanner::new(ioscout_read::ScanOptions { window_units_per_thread: 2, ..input.scan.clone() })
}

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

/// The header lines (`# ...`) that precede derived records in text outputs.
pub fn derivation_text(derived: &Derived) -> String {
    let mut text = String::new();
    let _ = writeln!(
        text,
        "# ioscout: records derived from the DFTracer trace {}, not read from a Darshan log",
        display_path(&derived.log.path)
    );
    let rule = match derived.rank_rule {
        ioscout_evidence::RankRule::Metadata => "ranks from PR rank metadata",
        ioscout_evidence::RankRule::PidOrder => "ranks in pid order",
    };
    let _ = writeln!(
        text,
        "# {} processes ({rule}), {} calls replayed, {} counters approximated, {} calls without a file",
        derived.processes.len(),
        derived.calls,
        derived.approximations.total(),
        derived.unusable_calls
    );
    if let Some(first) = derived.approximated_records.first() {
        let _ = writeln!(
            text,
            "# first approximated record: {} (pid {}, {}line {})",
            first.path,
            first.pid,
            first.trace.as_deref().map(|trace| format!("{}, ", display_path(trace))).unwrap_or_default(),
            first.line.map_or_else(|| "?".to_string(), |line| line.to_string())
        );
    }
    if !derived.excluded_files.is_empty() {
        let _ = writeln!(
            text,
            "# {} files under Darshan's excluded prefixes (/etc/, /usr/, /proc/, ...) left out, as Darshan leaves them out",
            derived.excluded_files.len()
        );
    }
    let _ = writeln!(
        text,
        "# timestamps are seconds since the trace's first call; file alignment assumed {} bytes; memory alignment is not in a trace (-1)",
        ioscout_evidence::posix::ASSUMED_FILE_ALIGNMENT
    );
    text
}

/// The summary of a trace's derived records, in the shape of a log's summary, with the
/// derivation section.
pub fn summary(input: &Input) -> Result<(serde_json::Value, Option<ScanReport>)> {
    let (derived, report) = derive(input)?;
    let mut value = ioscout_darshan::summary::summary(&derived.log);
    if let Some(object) = value.as_object_mut() {
        object.insert("log".into(), serde_json::Value::String(input.describe()));
        object.insert("derived".into(), derivation_json(&derived));
    }
    Ok((value, Some(report)))
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

/// The tables of the evidence: metadata time by operation, the shape of each data class, and
/// (`files` > 0) the access pattern of the files with the most bytes.
pub fn evidence_text(derived: &Derived, files: usize) -> String {
    use crate::table::Table;
    let mut out = String::new();
    let sections = [
        ("Metadata Time by Operation".to_string(), METADATA_HEADERS, metadata_rows(derived, 5)),
        ("Data Shape (time per call against bytes per call)".to_string(), SHAPE_HEADERS, shape_rows(derived)),
        (
            format!(
                "Access Pattern by File ({} of {} files, most bytes first)",
                files.min(derived.files.len()),
                derived.files.len()
            ),
            FILE_HEADERS,
            if files > 0 { file_rows(derived, files) } else { Vec::new() },
        ),
    ];
    for (title, headers, rows) in sections {
        if rows.is_empty() {
            continue;
        }
        let right: Vec<bool> = headers
            .iter()
            .map(|header| {
                !matches!(
                    *header,
                    "Operation"
                        | "Family"
                        | "Most time in"
                        | "Class"
                        | "Shape"
                        | "Decided by"
                        | "File"
                        | "Top Sizes"
                )
            })
            .collect();
        let mut table = Table::new(&title, &headers, &right);
        for row in rows {
            table.row(row);
        }
        out.push('\n');
        out.push_str(&table.render());
    }
    out
}
