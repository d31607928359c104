//! IOSage's eight labels: the bottleneck patterns the detector decides, and `healthy`.
//!
//! The names are IOSage's (`src/data/groundtruth_labeling.py`), so a finding's `pattern` field
//! and a labelled corpus's `labels.json` speak the same words.

use std::fmt;
use std::str::FromStr;

/// A bottleneck pattern (or `Healthy`, the absence of one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Pattern {
    /// Most data requests are small.
    AccessGranularity,
    /// Creates, opens, stats and removes dominate, not data.
    MetadataIntensity,
    /// I/O is unequal across ranks.
    ParallelismEfficiency,
    /// Offsets are not sequential.
    AccessPattern,
    /// A shared file is accessed without collective MPI-IO.
    InterfaceChoice,
    /// Data is spread over too many files.
    FileStrategy,
    /// Durability barriers (a sync after every write) throttle bandwidth.
    ThroughputUtilization,
    /// No intended bottleneck.
    Healthy,
}

impl Pattern {
    /// Every label, in IOSage's order.
    pub const ALL: [Pattern; 8] = [
        Pattern::AccessGranularity,
        Pattern::MetadataIntensity,
        Pattern::ParallelismEfficiency,
        Pattern::AccessPattern,
        Pattern::InterfaceChoice,
        Pattern::FileStrategy,
        Pattern::ThroughputUtilization,
        Pattern::Healthy,
    ];

    /// The label's name (`access_granularity`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Pattern::AccessGranularity => "access_granularity",
            Pattern::MetadataIntensity => "metadata_intensity",
            Pattern::ParallelismEfficiency => "parallelism_efficiency",
            Pattern::AccessPattern => "access_pattern",
            Pattern::InterfaceChoice => "interface_choice",
            Pattern::FileStrategy => "file_strategy",
            Pattern::ThroughputUtilization => "throughput_utilization",
            Pattern::Healthy => "healthy",
        }
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.name())
    }
}

/// A name that is not one of IOSage's labels.
#[derive(Debug, thiserror::Error)]
#[error(
    "unknown pattern {0:?} (one of access_granularity, metadata_intensity, parallelism_efficiency, access_pattern, interface_choice, file_strategy, throughput_utilization, healthy)"
)]
pub struct UnknownPattern(pub String);

impl FromStr for Pattern {
    type Err = UnknownPattern;

    fn from_str(text: &str) -> Result<Pattern, UnknownPattern> {
        let wanted = text.trim().to_ascii_lowercase().replace(['-', ' '], "_");
        Pattern::ALL
            .into_iter()
            .find(|pattern| pattern.name() == wanted)
            .ok_or_else(|| UnknownPattern(text.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_and_others_do_not() {
        for pattern in Pattern::ALL {
            assert_eq!(pattern.name().parse::<Pattern>().ok(), Some(pattern));
        }
        assert_eq!("Access-Pattern".parse::<Pattern>().ok(), Some(Pattern::AccessPattern));
        assert!("slow".parse::<Pattern>().is_err());
    }
}
