//! The Darshan records derived from a trace as table rows: metadata time by operation, the shape
//! of each data class, the access pattern of the files with the most bytes. Printed by
//! `darshan summary` of a trace and shown in the HTML report.

use ioscout_evidence::Derived;

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
