//! The terminal text of `ioscout info`: per trace file and for the total, its format and
//! storage, events by phase, time span, processes, hosts, files named and categories.

use std::fmt::Write as _;

use ioscout_read::describe::InfoRecord;

use crate::text::{bytes, thousands};

/// The first `limit` items, then how many more.
fn list(items: &[String], limit: usize) -> String {
    let mut text = items.iter().take(limit).cloned().collect::<Vec<_>>().join(", ");
    if items.len() > limit {
        text = format!("{text}, ... ({} more)", items.len() - limit);
    }
    text
}

/// One record: the file (or the total), then a line per property.
pub fn record_text(record: &InfoRecord) -> String {
    let mut out = String::new();
    match &record.path {
        Some(path) => {
            let _ = writeln!(out, "{path}");
        }
        None => {
            let _ = writeln!(out, "total ({})", crate::text::count_of(record.files, "file", "files"));
        }
    }
    let format = match (&record.generation, &record.generations) {
        (Some(generation), _) => (*generation).to_string(),
        (None, Some(generations)) => {
            generations.iter().map(|(name, count)| format!("{name} x{count}")).collect::<Vec<_>>().join(", ")
        }
        _ => "unknown".to_string(),
    };
    let storage = match record.compression {
        Some(ioscout_read::Compression::None) => "plain".to_string(),
        _ if record.gzip_members > 0 => {
            format!("gzip, {}", crate::text::count_of(record.gzip_members, "member", "members"))
        }
        _ => "plain".to_string(),
    };
    let _ = writeln!(
        out,
        "  format      {format} ({storage}, {} on disk, {} decompressed)",
        bytes(record.size_bytes),
        bytes(record.uncompressed_bytes)
    );
    let events = &record.events;
    let _ = writeln!(
        out,
        "  events      {} complete, {} metadata, {} counter, {} aggregated, {} other, {} invalid",
        thousands(events.complete),
        thousands(events.metadata),
        thousands(events.counter),
        thousands(events.aggregated),
        thousands(events.other),
        thousands(events.invalid)
    );
    match (record.first_ts, record.span_seconds) {
        (Some(first), Some(span)) => {
            let _ = writeln!(out, "  time        {span:.6} s from ts {first} (unit {})", record.time_unit);
        }
        _ => {
            let _ = writeln!(out, "  time        no complete events");
        }
    }
    let pids: Vec<String> = record.pids.iter().map(ToString::to_string).collect();
    let _ = writeln!(out, "  processes   {} ({})", record.processes, list(&pids, 8));
    let _ = writeln!(out, "  hosts       {} ({})", record.hosts.len(), list(&record.hosts, 8));
    let _ = writeln!(out, "  files named {}", record.files_named);
    let mut categories: Vec<(&String, &u64)> = record.categories.iter().collect();
    categories.sort_by(|left, right| right.1.cmp(left.1).then(left.0.cmp(right.0)));
    let categories: Vec<String> =
        categories.iter().map(|(name, count)| format!("{name} {}", thousands(**count))).collect();
    let _ = writeln!(out, "  categories  {}", list(&categories, 12));
    if record.complete_without_args > 0 {
        let _ = writeln!(
            out,
            "  note        {} complete events carry no args (traced without DFTRACER_INC_METADATA=1): their sizes, files and hosts are unknown",
            thousands(record.complete_without_args)
        );
    }
    out.push('\n');
    out
}
