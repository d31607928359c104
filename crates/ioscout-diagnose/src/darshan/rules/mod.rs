//! The rules on Darshan counters, one per file, and the list of them ([`all`]).
//!
//! Drishti's triggers keep Drishti's codes (`S01`, `M01`..`M07`, `P01`..`P22`) and DXT Explorer's
//! (`D01`, `D02`); IOSage's patterns and WisIO's rules keep the codes of the trace rules (`IOS-*`, `WIS-*`), decided here from
//! counters; [`imbalance_finding`] is the shared shape of the per-file imbalance triggers.

mod drishti_m01_no_mpiio;
mod drishti_m02_no_collective_reads;
mod drishti_m03_no_collective_writes;
mod drishti_m04_collective_reads;
mod drishti_m05_collective_writes;
mod drishti_m06_blocking_reads;
mod drishti_m07_blocking_writes;
mod drishti_p01_write_count_intensive;
mod drishti_p02_read_count_intensive;
mod drishti_p03_write_size_intensive;
mod drishti_p04_read_size_intensive;
mod drishti_p05_small_reads;
mod drishti_p06_small_writes;
mod drishti_p07_misaligned_memory;
mod drishti_p08_misaligned_file;
mod drishti_p09_redundant_reads;
mod drishti_p10_redundant_writes;
mod drishti_p11_random_reads;
mod drishti_p12_sequential_reads;
mod drishti_p13_random_writes;
mod drishti_p14_sequential_writes;
mod drishti_p15_shared_small_reads;
mod drishti_p16_shared_small_writes;
mod drishti_p17_long_metadata;
mod drishti_p18_shared_data_imbalance;
mod drishti_p19_shared_time_imbalance;
mod drishti_p21_individual_write_imbalance;
mod drishti_p22_individual_read_imbalance;
mod drishti_s01_stdio;
mod dxt_d01_rank_zero_heavy;
mod dxt_d02_rank_outliers;
mod iosage_access_pattern;
mod iosage_file_strategy;
mod iosage_granularity;
mod iosage_healthy;
mod iosage_interface;
mod iosage_metadata;
mod iosage_parallelism;
mod iosage_throughput;
mod pairs;
mod pipeline_io_gaps;
mod pipeline_redundant_reads;
mod pipeline_redundant_writes;
mod pipeline_repeated_metadata;
#[cfg(test)]
mod table_tests;
mod wisio_metadata;
mod wisio_operation_mix;
mod wisio_size_mix;
mod wisio_small_reads;
mod wisio_small_writes;

pub use drishti_m01_no_mpiio::NoMpiIo;
pub use drishti_m02_no_collective_reads::NoCollectiveReads;
pub use drishti_m03_no_collective_writes::NoCollectiveWrites;
pub use drishti_m04_collective_reads::CollectiveReads;
pub use drishti_m05_collective_writes::CollectiveWrites;
pub use drishti_m06_blocking_reads::BlockingReads;
pub use drishti_m07_blocking_writes::BlockingWrites;
pub use drishti_p01_write_count_intensive::WriteCountIntensive;
pub use drishti_p02_read_count_intensive::ReadCountIntensive;
pub use drishti_p03_write_size_intensive::WriteSizeIntensive;
pub use drishti_p04_read_size_intensive::ReadSizeIntensive;
pub use drishti_p05_small_reads::SmallReads;
pub use drishti_p06_small_writes::SmallWrites;
pub use drishti_p07_misaligned_memory::MisalignedMemory;
pub use drishti_p08_misaligned_file::MisalignedFile;
pub use drishti_p09_redundant_reads::RedundantReads;
pub use drishti_p10_redundant_writes::RedundantWrites;
pub use drishti_p11_random_reads::RandomReads;
pub use drishti_p12_sequential_reads::SequentialReads;
pub use drishti_p13_random_writes::RandomWrites;
pub use drishti_p14_sequential_writes::SequentialWrites;
pub use drishti_p15_shared_small_reads::SharedSmallReads;
pub use drishti_p16_shared_small_writes::SharedSmallWrites;
pub use drishti_p17_long_metadata::LongMetadata;
pub use drishti_p18_shared_data_imbalance::SharedDataImbalance;
pub use drishti_p19_shared_time_imbalance::SharedTimeImbalance;
pub use drishti_p21_individual_write_imbalance::IndividualWriteImbalance;
pub use drishti_p22_individual_read_imbalance::IndividualReadImbalance;
pub use drishti_s01_stdio::StdioShare;
pub use dxt_d01_rank_zero_heavy::RankZeroHeavy;
pub use dxt_d02_rank_outliers::RankOutliers;
pub use iosage_access_pattern::AccessPattern;
pub use iosage_file_strategy::FileStrategy;
pub use iosage_granularity::Granularity;
pub use iosage_healthy::Healthy;
pub use iosage_interface::Interface;
pub use iosage_metadata::Metadata;
pub use iosage_parallelism::Parallelism;
pub use iosage_throughput::Throughput;
pub use pipeline_io_gaps::{IoGaps, IoGapsRule, MIN_GAP_S, SharedFileCalls, io_gaps, shared_file_calls};
pub use pipeline_redundant_reads::RedundantReadTraffic;
pub use pipeline_redundant_writes::RedundantWriteTraffic;
pub use pipeline_repeated_metadata::RepeatedMetadata;
pub use wisio_metadata::MetadataTime as WisioMetadataTime;
pub use wisio_operation_mix::OperationMix as WisioOperationMix;
pub use wisio_size_mix::SizeMix as WisioSizeMix;
pub use wisio_small_reads::SmallReads as WisioSmallReads;
pub use wisio_small_writes::SmallWrites as WisioSmallWrites;

use crate::darshan::{DarshanContext, DarshanRule, Level};
use crate::{Finding, RuleDoc};

/// Every rule on Darshan counters, in code order.
pub fn all() -> &'static [&'static dyn DarshanRule] {
    &[
        &RankZeroHeavy,
        &RankOutliers,
        &NoMpiIo,
        &NoCollectiveReads,
        &NoCollectiveWrites,
        &CollectiveReads,
        &CollectiveWrites,
        &BlockingReads,
        &BlockingWrites,
        &WriteCountIntensive,
        &ReadCountIntensive,
        &WriteSizeIntensive,
        &ReadSizeIntensive,
        &SmallReads,
        &SmallWrites,
        &MisalignedMemory,
        &MisalignedFile,
        &RedundantReads,
        &RedundantWrites,
        &RandomReads,
        &SequentialReads,
        &RandomWrites,
        &SequentialWrites,
        &SharedSmallReads,
        &SharedSmallWrites,
        &LongMetadata,
        &SharedDataImbalance,
        &SharedTimeImbalance,
        &IndividualWriteImbalance,
        &IndividualReadImbalance,
        &StdioShare,
        &IoGapsRule,
        &RepeatedMetadata,
        &RedundantReadTraffic,
        &AccessPattern,
        &FileStrategy,
        &Granularity,
        &Healthy,
        &Interface,
        &Metadata,
        &Parallelism,
        &Throughput,
        &RedundantWriteTraffic,
        &WisioMetadataTime,
        &WisioOperationMix,
        &WisioSizeMix,
        &WisioSmallReads,
        &WisioSmallWrites,
    ]
}

/// The rule with code `code` (case-insensitive).
pub fn find(code: &str) -> Option<&'static dyn DarshanRule> {
    all().iter().copied().find(|rule| rule.doc().code.eq_ignore_ascii_case(code))
}

/// The finding of a per-file imbalance trigger: how many files, the worst one and its imbalance.
pub(crate) fn imbalance_finding(
    context: &DarshanContext<'_>,
    doc: &RuleDoc,
    detected: &[(u64, f64)],
    what: &str,
) -> Vec<Finding> {
    let Some(&(worst, largest)) = detected.iter().max_by(|a, b| a.1.total_cmp(&b.1)) else {
        return Vec::new();
    };
    let why = format!(
        "{what} imbalance on {} file(s); the largest is {:.2} % on {}",
        detected.len(),
        largest * 100.0,
        context.name(worst)
    );
    vec![
        context
            .weighted_finding(doc, Level::High, largest.min(1.0), "POSIX", why)
            .with("files", detected.len() as f64, "count")
            .with("largest_imbalance", largest, "fraction"),
    ]
}
