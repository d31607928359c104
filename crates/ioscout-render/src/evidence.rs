//! The Darshan records derived from a trace as table rows: metadata time by operation, the shape
//! of each data class, the access pattern of the files with the most bytes. Printed by
//! `darshan summary` of a trace and shown in the HTML report.

use std::fmt::Write as _;

use ioscout_evidence::Derived;

use crate::table::Table;
use crate::text::display_path;

/// Rows of the metadata table (the `limit` operations with the most time, process control left
/// out): operation, family, calls, time, share, files, the file with the most time.
pub fn metadata_rows(derived: &Derived, limit: usize) -> Vec<Vec<String>> {
    derived
        .operations
        .iter()
        .filter(|operation| operation.family != ioscout_evidence::metadata::Family::Process)
        .take(limit)
        .map(|operation| {
            vec![
                operation.name.clone(),
                operation.family.name().to_string(),
                crate::text::thousands(operation.calls),
                format!("{:.3}", operation.time_s),
                format!("{:.0} %", operation.share * 100.0),
                crate::text::thousands(operation.files),
                operation.top_file.clone().unwrap_or_default(),
            ]
        })
        .collect()
}

/// Headers of [`metadata_rows`].
pub const METADATA_HEADERS: [&str; 7] =
    ["Operation", "Family", "Calls", "Time (s)", "Share", "Files", "Most time in"];

/// Rows of the shape table: class, calls, mean size, fixed cost per call, its share, the shape,
/// what decided it.
pub fn shape_rows(derived: &Derived) -> Vec<Vec<String>> {
    derived
        .shapes
        .iter()
        .map(|shape| {
            vec![
                shape.class.clone(),
                crate::text::thousands(shape.calls),
                crate::text::bytes(shape.mean_bytes.round() as u64),
                format!("{:.1} us", shape.fixed_cost_s * 1e6),
                format!("{:.0} %", shape.fixed_share * 100.0),
                shape.verdict.name().to_string(),
                if shape.method == "fit" { "fit of time to size".into() } else { "one size".into() },
            ]
        })
        .collect()
}

/// Headers of [`shape_rows`].
pub const SHAPE_HEADERS: [&str; 7] =
    ["Class", "Calls", "Mean Size", "Fixed Cost/Call", "Fixed Share", "Shape", "Decided by"];

/// Rows of the per-file access table (the `limit` files with the most bytes).
pub fn file_rows(derived: &Derived, limit: usize) -> Vec<Vec<String>> {
    derived
        .files
        .iter()
        .take(limit)
        .map(|row| {
            let bound = |lower: bool| if lower { ">=" } else { "" };
            vec![
                row.path.clone(),
                crate::text::thousands(row.reads.saturating_add(row.writes).max(0) as u64),
                format!("{:.0} %", row.sequential_share * 100.0),
                format!("{:.0} %", row.consecutive_share * 100.0),
                format!(
                    "{}{}",
                    bound(row.distinct_offsets_lower_bound),
                    crate::text::thousands(row.distinct_offsets)
                ),
                format!(
                    "{}{}",
                    bound(row.reread_lower_bound),
                    crate::text::bytes(row.reread_bytes.max(0) as u64)
                ),
                row.top_sizes
                    .iter()
                    .take(3)
                    .map(|(size, count)| format!("{} x{}", crate::text::bytes((*size).max(0) as u64), count))
                    .collect::<Vec<_>>()
                    .join(", "),
            ]
        })
        .collect()
}

/// Headers of [`file_rows`].
pub const FILE_HEADERS: [&str; 7] =
    ["File", "Requests", "Sequential", "Consecutive", "Offsets", "Re-read", "Top Sizes"];

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

/// The tables of the evidence: metadata time by operation, the shape of each data class, and
/// (`files` > 0) the access pattern of the files with the most bytes.
pub fn evidence_text(derived: &Derived, files: usize) -> String {
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
