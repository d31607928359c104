//! Per-file and per-job statistics of one log's module (PyDarshan's `file_stats` and
//! `job_stats`), reduced as each log is read so that many logs can be summarised with memory
//! for one log and the merged rows: the service (`darshan files`, `darshan jobs`) merges them
//! across logs, sorts and prints.
//!
//! A file's time is Darshan's estimate of the time the job spent on it: the slowest rank's I/O
//! time through the file's records (the shared record's slowest rank when it was reduced), as
//! [`crate::derived::Metrics`] computes it for a module; its bandwidth is its bytes over that
//! time. Counters below 0 (Darshan's -1 for "not recorded", a wrapped total) count as 0.

use std::collections::HashMap;

use crate::counters::{self, Counter};
use crate::derived::Metrics;
use crate::module::{CounterRecord, id};
use crate::{DarshanLog, Records};

/// The modules statistics are given for, with the counters that make reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatsModule {
    /// POSIX.
    Posix,
    /// MPI-IO (reads and writes: independent, collective, split and non-blocking).
    MpiIo,
    /// STDIO.
    Stdio,
}

impl StatsModule {
    /// The module's id in a log.
    pub fn id(self) -> usize {
        match self {
            StatsModule::Posix => id::POSIX,
            StatsModule::MpiIo => id::MPIIO,
            StatsModule::Stdio => id::STDIO,
        }
    }

    /// The module's name as Darshan writes it.
    pub fn name(self) -> &'static str {
        match self {
            StatsModule::Posix => "POSIX",
            StatsModule::MpiIo => "MPI-IO",
            StatsModule::Stdio => "STDIO",
        }
    }

    /// The counters summed into reads and into writes.
    fn operations(self) -> (&'static [Counter], &'static [Counter]) {
        match self {
            StatsModule::Posix => (&[counters::POSIX_READS], &[counters::POSIX_WRITES]),
            StatsModule::Stdio => (&[counters::STDIO_READS], &[counters::STDIO_WRITES]),
            StatsModule::MpiIo => (
                &[
                    counters::MPIIO_INDEP_READS,
                    counters::MPIIO_COLL_READS,
                    counters::MPIIO_SPLIT_READS,
                    counters::MPIIO_NB_READS,
                ],
                &[
                    counters::MPIIO_INDEP_WRITES,
                    counters::MPIIO_COLL_WRITES,
                    counters::MPIIO_SPLIT_WRITES,
                    counters::MPIIO_NB_WRITES,
                ],
            ),
        }
    }

    /// The counters of bytes read and written.
    fn bytes(self) -> (Counter, Counter) {
        match self {
            StatsModule::Posix => (counters::POSIX_BYTES_READ, counters::POSIX_BYTES_WRITTEN),
            StatsModule::MpiIo => (counters::MPIIO_BYTES_READ, counters::MPIIO_BYTES_WRITTEN),
            StatsModule::Stdio => (counters::STDIO_BYTES_READ, counters::STDIO_BYTES_WRITTEN),
        }
    }
}

/// One file's figures in one log (or, merged, over several).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct FileStats {
    /// The file's name record (its record id in hex when the log has no name for it).
    pub file: String,
    /// Bytes read.
    pub bytes_read: u64,
    /// Bytes written.
    pub bytes_written: u64,
    /// Reads.
    pub reads: u64,
    /// Writes.
    pub writes: u64,
    /// The slowest rank's I/O time on the file, seconds (summed over logs when merged).
    pub time_by_slowest_s: f64,
    /// Logs (jobs) that accessed it.
    pub jobs: u64,
}

impl FileStats {
    /// Bytes read and written.
    pub fn total_bytes(&self) -> u64 {
        self.bytes_read.saturating_add(self.bytes_written)
    }

    /// Bytes per second over the slowest rank's time (0 when no time was recorded).
    pub fn bandwidth_bytes_per_s(&self) -> f64 {
        if self.time_by_slowest_s > 0.0 { self.total_bytes() as f64 / self.time_by_slowest_s } else { 0.0 }
    }

    /// Adds the same file's figures from another log.
    pub fn merge(&mut self, other: &FileStats) {
        self.bytes_read = self.bytes_read.saturating_add(other.bytes_read);
        self.bytes_written = self.bytes_written.saturating_add(other.bytes_written);
        self.reads = self.reads.saturating_add(other.reads);
        self.writes = self.writes.saturating_add(other.writes);
        self.time_by_slowest_s += other.time_by_slowest_s;
        self.jobs += other.jobs;
    }
}

/// One log's figures for a module.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct JobStats {
    /// Darshan's job id.
    pub job_id: i64,
    /// The user id.
    pub uid: i64,
    /// The program and its arguments.
    pub exe: String,
    /// Processes.
    pub nprocs: i64,
    /// Start, seconds since the epoch.
    pub start_time: i64,
    /// End, seconds since the epoch.
    pub end_time: i64,
    /// Run time, seconds.
    pub run_time_s: f64,
    /// The slowest rank's I/O time through the module (unique files plus each shared file's
    /// slowest rank), seconds.
    pub time_by_slowest_s: f64,
    /// Bytes read and written.
    pub total_bytes: u64,
    /// Bytes per second over that time.
    pub bandwidth_bytes_per_s: f64,
    /// Files with a record of the module (after the name filter).
    pub files: u64,
    /// The runtime ran out of record memory for the module: its figures are lower bounds.
    pub partial: bool,
}

/// The records of `module` in `log` whose file `keep` accepts, grouped by file in log order.
fn records_by_file<'l>(
    log: &'l DarshanLog,
    module: StatsModule,
    keep: &impl Fn(&str) -> bool,
) -> Vec<(u64, Vec<&'l CounterRecord>)> {
    let Some(found) = log.module(module.id()) else { return Vec::new() };
    let Records::Counters(records) = &found.records else { return Vec::new() };
    let mut order: Vec<(u64, Vec<&CounterRecord>)> = Vec::new();
    let mut slots: HashMap<u64, usize> = HashMap::new();
    for record in records {
        let slot = *slots.entry(record.id).or_insert_with(|| {
            order.push((record.id, Vec::new()));
            order.len() - 1
        });
        order[slot].1.push(record);
    }
    order.retain(|(record_id, _)| keep(&log.name_or_id(*record_id)));
    order
}

/// Sums `counters` over `records`, negative values as 0.
fn sum(counters: &[Counter], records: &[&CounterRecord]) -> u64 {
    records
        .iter()
        .flat_map(|record| counters.iter().map(|counter| counter.of(record)))
        .fold(0_u64, |total, value| total.saturating_add(value.max(0).unsigned_abs()))
}

/// The figures of every file of `module` in `log` that `keep` accepts, in log order.
pub fn file_stats(log: &DarshanLog, module: StatsModule, keep: &impl Fn(&str) -> bool) -> Vec<FileStats> {
    let (reads, writes) = module.operations();
    let (read_bytes, written_bytes) = module.bytes();
    records_by_file(log, module, keep)
        .into_iter()
        .map(|(record_id, records)| {
            let metrics = Metrics::of(module.id(), records.iter().copied(), log.job.nprocs);
            FileStats {
                file: log.name_or_id(record_id),
                bytes_read: sum(&[read_bytes], &records),
                bytes_written: sum(&[written_bytes], &records),
                reads: sum(reads, &records),
                writes: sum(writes, &records),
                time_by_slowest_s: if metrics.agg_time_by_slowest.is_finite() {
                    metrics.agg_time_by_slowest.max(0.0)
                } else {
                    0.0
                },
                jobs: 1,
            }
        })
        .collect()
}

/// The figures of `module` in `log` over the files `keep` accepts; `None` when the log has no
/// record of the module.
pub fn job_stats(log: &DarshanLog, module: StatsModule, keep: &impl Fn(&str) -> bool) -> Option<JobStats> {
    let files = records_by_file(log, module, keep);
    if files.is_empty() {
        return None;
    }
    let records: Vec<&CounterRecord> =
        files.iter().flat_map(|(_, records)| records.iter().copied()).collect();
    let metrics = Metrics::of(module.id(), records.iter().copied(), log.job.nprocs);
    let time =
        if metrics.agg_time_by_slowest.is_finite() { metrics.agg_time_by_slowest.max(0.0) } else { 0.0 };
    let (read_bytes, written_bytes) = module.bytes();
    let total_bytes = sum(&[read_bytes, written_bytes], &records);
    Some(JobStats {
        job_id: log.job.jobid,
        uid: log.job.uid,
        exe: log.job.exe.clone(),
        nprocs: log.job.nprocs,
        start_time: log.job.start_time,
        end_time: log.job.end_time,
        run_time_s: log.run_time(),
        time_by_slowest_s: time,
        total_bytes,
        bandwidth_bytes_per_s: if time > 0.0 { total_bytes as f64 / time } else { 0.0 },
        files: files.len() as u64,
        partial: log.module(module.id()).is_some_and(|found| found.partial),
    })
}
