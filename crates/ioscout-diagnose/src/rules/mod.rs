//! The rules, one per file, and the list of them ([`all`]).
//!
//! Shared helpers: [`impact`] weighs a rule on a layer by how much of the job that layer takes,
//! so that a pattern in I/O that costs a negligible share of the run is reported as low severity
//! (the optimisation pipeline's lesson: many tiny operations taking 1 % of the job are not the
//! bottleneck).

mod dfanalyzer_bandwidth_saturation;
mod dfanalyzer_compute_dominance;
mod dfanalyzer_fetch_outlier;
mod dfanalyzer_fetch_pressure;
mod dfanalyzer_fetch_rank_imbalance;
mod dfanalyzer_io_contention;
mod dfanalyzer_metadata_dominance;
mod dfanalyzer_open_pressure;
mod dfanalyzer_read_contention;
mod dfanalyzer_read_pressure;
mod dfanalyzer_reader_open_tail;
mod drishti_small_reads;
mod drishti_small_writes;
mod drishti_stdio;
mod iosage_access_granularity;
mod iosage_access_pattern;
mod iosage_healthy;
mod iosage_interface_choice;
mod iosage_metadata_intensity;
mod iosage_throughput_utilization;
mod pipeline_checkpoint_share;
mod pipeline_io_share;
mod pipeline_low_overlap;
mod pipeline_metadata_share;
mod pipeline_op_count_bound;
mod pipeline_rank_imbalance;
mod pipeline_small_files;
mod wisio_metadata;
mod wisio_operation_mix;
mod wisio_size_mix;
mod wisio_small_reads;
mod wisio_small_writes;

pub use dfanalyzer_bandwidth_saturation::BandwidthSaturation;
pub use dfanalyzer_compute_dominance::ComputeDominance;
pub use dfanalyzer_fetch_outlier::FetchOutlier;
pub use dfanalyzer_fetch_pressure::FetchPressure;
pub use dfanalyzer_fetch_rank_imbalance::FetchRankImbalance;
pub use dfanalyzer_io_contention::IoContention;
pub use dfanalyzer_metadata_dominance::MetadataDominance;
pub use dfanalyzer_open_pressure::OpenPressure;
pub use dfanalyzer_read_contention::ReadContention;
pub use dfanalyzer_read_pressure::ReadPressure;
pub use dfanalyzer_reader_open_tail::ReaderOpenTail;
pub use drishti_small_reads::ManySmallReads;
pub use drishti_small_writes::ManySmallWrites;
pub use drishti_stdio::StdioShare;
pub use iosage_access_granularity::AccessGranularity;
pub use iosage_access_pattern::AccessPattern;
pub use iosage_healthy::Healthy;
pub use iosage_interface_choice::InterfaceChoice;
pub use iosage_metadata_intensity::MetadataIntensity;
pub use iosage_throughput_utilization::ThroughputUtilization;
pub use pipeline_checkpoint_share::CheckpointShare;
pub use pipeline_io_share::IoShare;
pub use pipeline_low_overlap::LowOverlap;
pub use pipeline_metadata_share::MetadataShare;
pub use pipeline_op_count_bound::OpCountBound;
pub use pipeline_rank_imbalance::RankImbalance;
pub use pipeline_small_files::SmallFiles;
pub use wisio_metadata::MetadataTime;
pub use wisio_operation_mix::OperationMix;
pub use wisio_size_mix::SizeMix;
pub use wisio_small_reads::SmallReads;
pub use wisio_small_writes::SmallWrites;

use crate::{Context, Rule};

/// Every rule, in code order.
pub fn all() -> &'static [&'static dyn Rule] {
    &[
        &BandwidthSaturation,
        &ComputeDominance,
        &FetchOutlier,
        &FetchPressure,
        &FetchRankImbalance,
        &IoContention,
        &MetadataDominance,
        &OpenPressure,
        &ReadContention,
        &ReadPressure,
        &ReaderOpenTail,
        &ManySmallReads,
        &ManySmallWrites,
        &StdioShare,
        &AccessGranularity,
        &AccessPattern,
        &Healthy,
        &InterfaceChoice,
        &MetadataIntensity,
        &ThroughputUtilization,
        &CheckpointShare,
        &IoShare,
        &LowOverlap,
        &MetadataShare,
        &OpCountBound,
        &RankImbalance,
        &SmallFiles,
        &MetadataTime,
        &OperationMix,
        &SizeMix,
        &SmallReads,
        &SmallWrites,
    ]
}

/// The rule with code `code`.
pub fn find(code: &str) -> Option<&'static dyn Rule> {
    all().iter().copied().find(|rule| rule.doc().code.eq_ignore_ascii_case(code))
}

/// Share of the job that layer `layer` takes (its bottleneck-process time over the job time),
/// scaled so that 20 % or more counts fully: 0..=1.
pub fn impact(context: &Context<'_>, layer: &str) -> f64 {
    let job = context.job_time_s();
    match context.layer(layer) {
        Some(line) if job > 0.0 => crate::clip01(line.time_s / job / 0.2),
        _ => 0.0,
    }
}

/// One MiB, the small-request boundary of WisIO, Drishti and DFAnalyzer.
pub const MIB: f64 = 1_048_576.0;

/// WisIO's read/write mix rules: `read` and `write` (the measure of each direction, from its
/// totals) differ by more than 10 % of their sum. Never above low: a mix is context.
pub(crate) fn read_write_mix(
    context: &Context<'_>,
    doc: &'static crate::RuleDoc,
    kind: &str,
    unit: &'static str,
    measure: fn(&crate::SlotTotals) -> f64,
    describe: fn(&str, f64) -> String,
) -> Vec<crate::Finding> {
    let read = context.slot("posix_read").map_or(0.0, measure);
    let write = context.slot("posix_write").map_or(0.0, measure);
    let total = read + write;
    if total <= 0.0 {
        return Vec::new();
    }
    let imbalance = (write - read).abs() / total;
    if imbalance <= 0.1 {
        return Vec::new();
    }
    let dominant = if read > write { "reads" } else { "writes" };
    let why = describe(dominant, read.max(write) / total * 100.0);
    vec![
        crate::Finding::new(doc, 0.29 * (imbalance - 0.1) / 0.9, "posix", why)
            .with(&format!("posix_read_{unit}"), read, unit)
            .with(&format!("posix_write_{unit}"), write, unit)
            .with(&format!("posix_{kind}_imbalance"), imbalance, "fraction")
            .crossing("|write - read| / total > 0.1"),
    ]
}

/// Drishti's small-request trigger for `direction` on DFTracer counters: more than 10 % of the
/// calls that moved bytes moved less than 1 MiB, and more than 1,000 of them; weighted by the
/// share of the job those calls take (10 % or more counts fully).
pub(crate) fn many_small_requests(
    context: &Context<'_>,
    doc: &'static crate::RuleDoc,
    direction: &str,
) -> Vec<crate::Finding> {
    let slot = format!("posix_{direction}");
    let (Some((small, total)), Some(calls)) = (context.small_calls(&slot), context.slot(&slot)) else {
        return Vec::new();
    };
    let job = context.job_time_s();
    if total == 0 || job <= 0.0 {
        return Vec::new();
    }
    let fraction = small as f64 / total as f64;
    if fraction <= 0.1 || small <= 1000 {
        return Vec::new();
    }
    let share = calls.max_process_time_s() / job;
    let score = fraction * crate::clip01(share / 0.1);
    let why = format!(
        "{small} of {total} {direction}s ({:.0}%) moved less than 1 MiB; they take {:.1}% of the job in the busiest process",
        fraction * 100.0,
        share * 100.0
    );
    vec![
        crate::Finding::new(doc, score, "posix", why)
            .with(&format!("posix_{direction}_small_count"), small as f64, "count")
            .with(&format!("posix_{direction}_small_frac"), fraction, "fraction")
            .with(&format!("posix_{direction}_job_share"), share, "fraction")
            .crossing(&format!("small {direction}s / {direction}s > 0.1"))
            .crossing(&format!("small {direction}s > 1000")),
    ]
}

/// WisIO's small-request rule for `direction` (`read` or `write`): that direction takes more than
/// half of the POSIX time and moves less than 1 MiB per call.
pub(crate) fn small_requests(
    context: &Context<'_>,
    doc: &'static crate::RuleDoc,
    direction: &str,
) -> Vec<crate::Finding> {
    let (Some(posix), Some(calls)) = (context.slot("posix"), context.slot(&format!("posix_{direction}")))
    else {
        return Vec::new();
    };
    let Some(mean_size) = calls.mean_size() else { return Vec::new() };
    if posix.time_s <= 0.0 {
        return Vec::new();
    }
    let fraction = calls.time_s / posix.time_s;
    if fraction <= 0.5 || mean_size >= MIB {
        return Vec::new();
    }
    let weight = impact(context, "posix");
    let score = (0.5 * (fraction - 0.5) / 0.5 + 0.5 * (MIB - mean_size) / MIB) * weight;
    let why = format!(
        "{:.0}% of POSIX time is {direction}s of {:.1} KiB on average ({} calls, {:.3} s)",
        fraction * 100.0,
        mean_size / 1024.0,
        calls.count,
        calls.time_s
    );
    vec![
        crate::Finding::new(doc, score, "posix", why)
            .with(&format!("posix_{direction}_time_frac"), fraction, "fraction")
            .with(&format!("posix_{direction}_size_mean"), mean_size, "bytes")
            .with(&format!("posix_{direction}_count"), calls.count as f64, "count")
            .with("posix_job_share_weight", weight, "fraction")
            .crossing(&format!("posix_{direction}_time_frac > 0.5"))
            .crossing(&format!("posix_{direction}_size_mean < 1 MiB")),
    ]
}

#[cfg(test)]
pub(crate) mod testing {
    //! Analyses of synthetic traces for the rules' positive and negative tests.

    use std::io::Write;

    use ioscout_analysis::{Analysis, AnalysisOptions, OverlapMode, analyze};

    /// Analyses `lines` (DFTracer 2.2 events) with `preset`.
    pub(crate) fn analysis(name: &str, preset: &str, lines: &[String]) -> Analysis {
        let directory = std::env::temp_dir().join(format!("ioscout-diagnose-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&directory);
        std::fs::create_dir_all(&directory).unwrap_or_else(|error| panic!("{error}"));
        let path = directory.join("trace.pfw");
        let mut file = std::fs::File::create(&path).unwrap_or_else(|error| panic!("{error}"));
        for line in lines {
            writeln!(file, "{line}").unwrap_or_else(|error| panic!("{error}"));
        }
        drop(file);
        let (files, problems) = ioscout_read::discover(&[path]);
        let scanner = ioscout_read::Scanner::new(ioscout_read::ScanOptions::default());
        let options = AnalysisOptions {
            preset: preset.into(),
            overlap: OverlapMode::Exact,
            ..AnalysisOptions::default()
        };
        let (analysis, _) =
            analyze(&scanner, &files, &problems, &options).unwrap_or_else(|error| panic!("{error}"));
        let _ = std::fs::remove_dir_all(&directory);
        analysis
    }

    /// One complete event of process `pid` on host `h`.
    pub(crate) fn event(pid: i64, name: &str, cat: &str, ts: i64, dur: i64, args: &str) -> String {
        let comma = if args.is_empty() { "" } else { "," };
        format!(
            r#"{{"id":1,"name":"{name}","cat":"{cat}","pid":{pid},"tid":{pid},"ts":{ts},"dur":{dur},"ph":1,"args":{{"hhash":"h"{comma}{args}}}}}"#
        )
    }

    /// A POSIX call on file hash `f1` (named `/p/data/f1`) moving `size` bytes.
    pub(crate) fn posix(pid: i64, name: &str, ts: i64, dur: i64, size: i64) -> String {
        event(pid, name, "POSIX", ts, dur, &format!(r#""fhash":"f1","ret":{size}"#))
    }

    /// The metadata lines naming host `h` and file `f1`.
    pub(crate) fn header() -> Vec<String> {
        vec![
            r#"{"id":0,"name":"HH","cat":"dftracer","pid":1,"tid":1,"ph":4,"args":{"hhash":"h","name":"node1","value":"h"}}"#.to_string(),
            r#"{"id":0,"name":"FH","cat":"dftracer","pid":1,"tid":1,"ph":4,"args":{"hhash":"h","name":"/p/data/f1","value":"f1"}}"#.to_string(),
        ]
    }
}
