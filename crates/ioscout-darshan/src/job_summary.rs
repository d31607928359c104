//! What a Darshan job-summary page shows beside the module breakdown ([`crate::breakdown`]):
//! per module the access-size histograms (reads and writes apart), the most common access sizes
//! and the files by how they were used (read only, written only, both, opened without data).
//! `ioscout report LOG` draws it (`ioscout-render`'s `darshan_page`); the numbers are the
//! records' counters summed, never estimated.

use std::collections::BTreeMap;

use crate::module::counter_names;
use crate::summary::aggregate;
use crate::{DarshanLog, Records};

/// Darshan's access-size bins, in order: the suffixes of `<MODULE>_SIZE_READ_*` (POSIX) and
/// `<MODULE>_SIZE_READ_AGG_*` (MPI-IO, HDF5 datasets, `PnetCDF` variables).
pub const SIZE_BINS: [&str; 10] =
    ["0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M", "1M_4M", "4M_10M", "10M_100M", "100M_1G", "1G_PLUS"];

/// The access sizes of one module: requests per size bin, reads and writes apart.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct SizeHistogram {
    /// The module (`POSIX`, `MPI-IO`, ...).
    pub module: String,
    /// Reads per bin of [`SIZE_BINS`].
    pub reads: Vec<u64>,
    /// Writes per bin of [`SIZE_BINS`].
    pub writes: Vec<u64>,
}

/// One of a module's most common access sizes (Darshan's `ACCESS1..4`, combined over records).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CommonAccess {
    /// The module.
    pub module: String,
    /// The access size, bytes.
    pub size: i64,
    /// Requests of that size.
    pub count: i64,
}

/// A module's files by how they were used, with the bytes each group moved.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct FileUse {
    /// The module.
    pub module: String,
    /// Files only read: count, bytes read.
    pub read_only: (u64, u64),
    /// Files only written: count, bytes written.
    pub write_only: (u64, u64),
    /// Files read and written: count, bytes read and written.
    pub read_write: (u64, u64),
    /// Files with records and no bytes moved (opened, stat'ed).
    pub no_data: u64,
}

/// The job-summary sections of one log.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct JobSummary {
    /// Access-size histograms of the modules that keep them.
    pub sizes: Vec<SizeHistogram>,
    /// The four most common access sizes of each module that keeps them.
    pub common: Vec<CommonAccess>,
    /// Files by use, per module with byte counters.
    pub files: Vec<FileUse>,
}

fn positive(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

impl JobSummary {
    /// The sections of `log`, from its readable counter records.
    pub fn of(log: &DarshanLog) -> JobSummary {
        let mut summary = JobSummary::default();
        for module in &log.modules {
            let Records::Counters(records) = &module.records else { continue };
            let Some((names, _)) = counter_names(module.id) else { continue };
            if records.is_empty() {
                continue;
            }
            let prefix = names.first().and_then(|name| name.split('_').next()).unwrap_or_default();
            let index = |name: &str| names.iter().position(|candidate| *candidate == name);
            let sum = |at: Option<usize>| {
                at.map_or(0, |at| {
                    records
                        .iter()
                        .filter_map(|record| record.counters.get(at).copied())
                        .fold(0_u64, |total, value| total.saturating_add(positive(value)))
                })
            };
            // Size bins: POSIX names them plainly, the layers above with `_AGG_`.
            let bin_index = |direction: &str, bin: &str| {
                index(&format!("{prefix}_SIZE_{direction}_{bin}"))
                    .or_else(|| index(&format!("{prefix}_SIZE_{direction}_AGG_{bin}")))
            };
            if SIZE_BINS.iter().any(|bin| bin_index("READ", bin).is_some()) {
                summary.sizes.push(SizeHistogram {
                    module: module.name.to_string(),
                    reads: SIZE_BINS.iter().map(|bin| sum(bin_index("READ", bin))).collect(),
                    writes: SIZE_BINS.iter().map(|bin| sum(bin_index("WRITE", bin))).collect(),
                });
            }
            let combined = aggregate(module.id, records);
            let value_of = |name: String| {
                combined
                    .values
                    .iter()
                    .find(|(candidate, _)| *candidate == name)
                    .and_then(|(_, value)| value.trim().parse::<i64>().ok())
            };
            for slot in 1..=4 {
                let size = value_of(format!("{prefix}_ACCESS{slot}_ACCESS"));
                let count = value_of(format!("{prefix}_ACCESS{slot}_COUNT"));
                if let (Some(size), Some(count)) = (size, count)
                    && count > 0
                {
                    summary.common.push(CommonAccess { module: module.name.to_string(), size, count });
                }
            }
            let (read_at, written_at) =
                (index(&format!("{prefix}_BYTES_READ")), index(&format!("{prefix}_BYTES_WRITTEN")));
            if read_at.is_none() && written_at.is_none() {
                continue;
            }
            // Per file (record id): the bytes over every rank's record of it.
            let mut per_file: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
            for record in records {
                let read = read_at.and_then(|at| record.counters.get(at).copied()).map_or(0, positive);
                let written = written_at.and_then(|at| record.counters.get(at).copied()).map_or(0, positive);
                let entry = per_file.entry(record.id).or_default();
                entry.0 = entry.0.saturating_add(read);
                entry.1 = entry.1.saturating_add(written);
            }
            let mut files = FileUse { module: module.name.to_string(), ..FileUse::default() };
            for (read, written) in per_file.into_values() {
                match (read > 0, written > 0) {
                    (true, false) => {
                        files.read_only = (files.read_only.0 + 1, files.read_only.1.saturating_add(read));
                    }
                    (false, true) => {
                        files.write_only =
                            (files.write_only.0 + 1, files.write_only.1.saturating_add(written));
                    }
                    (true, true) => {
                        files.read_write = (
                            files.read_write.0 + 1,
                            files.read_write.1.saturating_add(read).saturating_add(written),
                        );
                    }
                    (false, false) => files.no_data += 1,
                }
            }
            summary.files.push(files);
        }
        summary
    }
}
