//! The module breakdown of a log: per I/O module (POSIX, MPI-IO, STDIO, H5F, H5D, `PnetCDF`,
//! DFS, DAOS) its records, files, operations, bytes and time, and the striping the LUSTRE
//! module recorded. Time is given two ways, each labelled: summed over processes (the counters'
//! own sum, which exceeds the run time when processes overlap) and the slowest rank's
//! (Darshan's `agg_time_by_slowest`, the estimate `darshan-parser --perf` prints); the bandwidth
//! is the bytes over the latter.
//!
//! Sits after the reader, beside [`crate::summary`] and [`crate::derived`]: `ioscout analyze
//! LOG` prints it and `compare` compares logs by it.

use std::collections::{BTreeSet, HashSet};

use crate::derived::Metrics;
use crate::module::{CounterRecord, LustreRecord, counter_names, id};
use crate::{DarshanLog, Records};

/// Counter suffixes that count reads, in any module that has them.
const READS: [&str; 5] = ["READS", "INDEP_READS", "COLL_READS", "SPLIT_READS", "NB_READS"];
/// Counter suffixes that count writes.
const WRITES: [&str; 5] = ["WRITES", "INDEP_WRITES", "COLL_WRITES", "SPLIT_WRITES", "NB_WRITES"];
/// Counter suffixes that count opens and creates.
const OPENS: [&str; 5] = ["OPENS", "INDEP_OPENS", "COLL_OPENS", "FDOPENS", "CREATES"];
/// Counter suffixes that count syncs and flushes.
const SYNCS: [&str; 4] = ["FSYNCS", "FDSYNCS", "SYNCS", "FLUSHES"];

/// The prefix of module `module_id`'s counter names (`POSIX_`, `PNETCDF_VAR_`, ...).
pub fn counter_prefix(module_id: usize) -> Option<&'static str> {
    Some(match module_id {
        id::POSIX => "POSIX_",
        id::MPIIO => "MPIIO_",
        id::STDIO => "STDIO_",
        id::H5F => "H5F_",
        id::H5D => "H5D_",
        id::PNETCDF_FILE => "PNETCDF_FILE_",
        id::PNETCDF_VAR => "PNETCDF_VAR_",
        id::DFS => "DFS_",
        id::DAOS => "DAOS_",
        _ => return None,
    })
}

/// One I/O module of a log.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct ModuleLine {
    /// Darshan's name of the module (`POSIX`, `MPI-IO`, `H5D`, ...).
    pub module: String,
    /// Records read (one per file and rank, or one per shared file).
    pub records: usize,
    /// Distinct files (record ids).
    pub files: usize,
    /// Read operations (independent, collective, split and non-blocking together).
    pub reads: u64,
    /// Write operations.
    pub writes: u64,
    /// Opens and creates.
    pub opens: u64,
    /// `stat` calls.
    pub stats: u64,
    /// Seeks.
    pub seeks: u64,
    /// Syncs and flushes.
    pub syncs: u64,
    /// Bytes read.
    pub bytes_read: u64,
    /// Bytes written.
    pub bytes_written: u64,
    /// Read time summed over processes, seconds.
    pub read_time_summed_s: f64,
    /// Write time summed over processes, seconds.
    pub write_time_summed_s: f64,
    /// Metadata time summed over processes, seconds.
    pub meta_time_summed_s: f64,
    /// The three summed.
    pub io_time_summed_s: f64,
    /// The slowest rank's I/O time, seconds: Darshan's `agg_time_by_slowest` (the slowest rank
    /// through files it alone opened, plus each shared file's slowest rank).
    pub io_time_slowest_rank_s: f64,
    /// Bytes read and written over the slowest rank's I/O time, bytes per second.
    pub bandwidth_bytes_per_s: Option<f64>,
    /// The slowest rank's I/O time as a share of the run time, percent; `None` when the run
    /// time is unknown.
    pub share_of_run_time_pct: Option<f64>,
}

impl ModuleLine {
    /// Bytes read and written.
    pub fn bytes(&self) -> u64 {
        self.bytes_read.saturating_add(self.bytes_written)
    }

    /// Metadata operations: opens, stats, seeks and syncs.
    pub fn metadata_operations(&self) -> u64 {
        self.opens.saturating_add(self.stats).saturating_add(self.seeks).saturating_add(self.syncs)
    }
}

/// What the LUSTRE module recorded: the striping of the files it saw.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Striping {
    /// Files with a layout record.
    pub files: usize,
    /// The stripe sizes seen, bytes, smallest first.
    pub stripe_sizes: Vec<i64>,
    /// The stripe counts seen, smallest first.
    pub stripe_counts: Vec<i64>,
    /// Distinct OSTs the files are striped over.
    pub osts: usize,
}

/// The breakdown of one log.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Breakdown {
    /// Processes.
    pub nprocs: i64,
    /// Run time, seconds; `None` when neither the job record nor the records give one.
    pub run_time_s: Option<f64>,
    /// The job record is unreadable: `nprocs` and `run_time_s` are lower bounds estimated from
    /// the records (the highest rank + 1, the latest end timestamp), so shares of the run are
    /// upper bounds.
    pub job_estimated: bool,
    /// The I/O modules with records, in Darshan's module order.
    pub modules: Vec<ModuleLine>,
    /// The LUSTRE module's striping, when it has records.
    pub striping: Option<Striping>,
    /// Modules whose region is in the log but could not be read at all.
    pub unread_modules: Vec<String>,
    /// Modules read only in part.
    pub damaged_modules: Vec<String>,
}

impl Breakdown {
    /// The breakdown of `log`.
    pub fn of(log: &DarshanLog) -> Breakdown {
        let run_time = log.run_time();
        let run_time_s = (run_time.is_finite() && run_time > 0.0).then_some(run_time);
        let mut modules = Vec::new();
        let mut striping = None;
        for module in &log.modules {
            match &module.records {
                Records::Counters(records) if !records.is_empty() => {
                    if let Some(line) =
                        module_line(module.id, module.name, records, log.job.nprocs, run_time_s)
                    {
                        modules.push(line);
                    }
                }
                Records::Lustre(records) if !records.is_empty() => striping = Some(striping_of(records)),
                _ => {}
            }
        }
        Breakdown {
            nprocs: log.job.nprocs,
            run_time_s,
            job_estimated: log.job_estimated,
            modules,
            striping,
            unread_modules: log.unread_modules().into_iter().map(String::from).collect(),
            damaged_modules: log.damaged_modules().into_iter().map(String::from).collect(),
        }
    }
}

/// The line of one counter module; `None` for a module without counter names.
fn module_line(
    module_id: usize,
    name: &str,
    records: &[CounterRecord],
    nprocs: i64,
    run_time_s: Option<f64>,
) -> Option<ModuleLine> {
    let (names, float_names) = counter_names(module_id)?;
    let prefix = counter_prefix(module_id)?;
    let indices = |suffixes: &[&str]| -> Vec<usize> {
        suffixes
            .iter()
            .filter_map(|suffix| names.iter().position(|candidate| *candidate == format!("{prefix}{suffix}")))
            .collect()
    };
    let float_index =
        |suffix: &str| float_names.iter().position(|candidate| *candidate == format!("{prefix}{suffix}"));
    let sum = |indices: &[usize]| -> u64 {
        records
            .iter()
            .flat_map(|record| indices.iter().filter_map(|index| record.counters.get(*index)))
            .fold(0_u64, |total, value| total.saturating_add((*value).max(0) as u64))
    };
    let time = |index: Option<usize>| -> f64 {
        let Some(index) = index else { return 0.0 };
        records
            .iter()
            .filter_map(|record| record.fcounters.get(index))
            .filter(|value| value.is_finite() && **value > 0.0)
            .fold(0.0, |total, value| total + value)
    };
    let mut line = ModuleLine {
        module: name.to_string(),
        records: records.len(),
        files: records.iter().map(|record| record.id).collect::<HashSet<_>>().len(),
        reads: sum(&indices(&READS)),
        writes: sum(&indices(&WRITES)),
        opens: sum(&indices(&OPENS)),
        stats: sum(&indices(&["STATS"])),
        seeks: sum(&indices(&["SEEKS"])),
        syncs: sum(&indices(&SYNCS)),
        bytes_read: sum(&indices(&["BYTES_READ"])),
        bytes_written: sum(&indices(&["BYTES_WRITTEN"])),
        read_time_summed_s: time(float_index("F_READ_TIME")),
        write_time_summed_s: time(float_index("F_WRITE_TIME")),
        meta_time_summed_s: time(float_index("F_META_TIME")),
        ..ModuleLine::default()
    };
    line.io_time_summed_s = line.read_time_summed_s + line.write_time_summed_s + line.meta_time_summed_s;
    let metrics = Metrics::of(module_id, records, nprocs);
    line.io_time_slowest_rank_s =
        if metrics.agg_time_by_slowest.is_finite() { metrics.agg_time_by_slowest.max(0.0) } else { 0.0 };
    line.bandwidth_bytes_per_s =
        (line.io_time_slowest_rank_s > 0.0).then(|| line.bytes() as f64 / line.io_time_slowest_rank_s);
    line.share_of_run_time_pct = run_time_s.map(|run_time| line.io_time_slowest_rank_s / run_time * 100.0);
    Some(line)
}

/// Stripe sizes, counts and OSTs of the LUSTRE records.
fn striping_of(records: &[LustreRecord]) -> Striping {
    let mut sizes = BTreeSet::new();
    let mut counts = BTreeSet::new();
    let mut osts = HashSet::new();
    for record in records {
        for component in &record.components {
            sizes.insert(component.counters[0]);
            counts.insert(component.counters[1]);
        }
        osts.extend(record.ost_ids.iter().copied().filter(|ost| *ost >= 0));
    }
    Striping {
        files: records.iter().map(|record| record.id).collect::<HashSet<_>>().len(),
        stripe_sizes: sizes.into_iter().collect(),
        stripe_counts: counts.into_iter().collect(),
        osts: osts.len(),
    }
}
