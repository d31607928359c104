//! What the run's own records say about its access, for the evidence each strategy needs or is
//! ruled out by. Between measurement ([`crate::Measurements`]) and the proposals: built from the
//! Darshan counters of the run (a log's, or those derived from a trace, so both kinds of input
//! are held to the same evidence) and the gaps between a process's calls.
//!
//! A [`Condition`] is named in the catalog (`needs`, `ruled_out_by`) and decided here:
//! [`Profile::holds`] gives whether it holds, with the numbers that decide it, or `None` when
//! the run cannot tell (the tracer does not see those calls, no timestamps).

use ioscout_darshan::counters::{
    Counter, POSIX_BYTES_READ, POSIX_BYTES_WRITTEN, POSIX_CONSEC_READS, POSIX_FDSYNCS, POSIX_FSYNCS,
    POSIX_MAX_BYTE_READ, POSIX_OPENS, POSIX_READS, POSIX_SEQ_READS, POSIX_SIZE_READ_BINS,
    POSIX_SIZE_WRITE_BINS, POSIX_STATS, POSIX_WRITES, STDIO_OPENS,
};
use ioscout_diagnose::darshan::rules::{IoGaps, SharedFileCalls, io_gaps, shared_file_calls};
use ioscout_diagnose::darshan::{DarshanContext, DarshanFacts, DrishtiThresholds, Module};
use serde::{Deserialize, Serialize};

/// A request in the first this many of Darshan's size bins (under 100 KiB) is small for the
/// evidence.
const SMALL_BINS: usize = 4;

/// Fewer calls than this are too few to speak of an access pattern.
const MIN_CALLS: u64 = 100;

/// Evidence a strategy needs, or that rules it out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Condition {
    /// At least 100 reads, half of them under 100 KiB.
    SmallReads,
    /// At least 100 writes, half of them under 100 KiB.
    SmallWrites,
    /// At least 100 reads, under 30 % of them consecutive and under 80 % sequential (each
    /// record's first read not counted).
    RandomReads,
    /// At least 100 reads, half of them consecutive.
    SequentialReads,
    /// At least 10 `fsync`/`fdatasync` calls, one every 16 writes or more often.
    FrequentSyncs,
    /// Opens and stats repeat on the same files: at least 3 per file opened, over 10 files or more.
    RepeatedMetadata,
    /// At least 100 files that moved data, under 1 MiB each on average.
    ManySmallFiles,
    /// A process's I/O alternates with other work: the time overlapping them could hide is at
    /// least 5 % of the job (`PIPE-IO-GAPS`).
    OtherWorkBetweenIo,
    /// Nothing runs between the calls: the gaps of 1 ms or more are under 5 % of the job.
    NothingBesideIo,
    /// Writes of 1 MiB or more on average.
    LargeWrites,
    /// At least 10 % of the bytes read (and 1 MiB) were read before, by the same process.
    RereadData,
    /// The job uses MPI.
    Mpi,
}

impl Condition {
    /// Its name, as in the catalog.
    pub fn name(self) -> &'static str {
        match self {
            Condition::SmallReads => "small_reads",
            Condition::SmallWrites => "small_writes",
            Condition::RandomReads => "random_reads",
            Condition::SequentialReads => "sequential_reads",
            Condition::FrequentSyncs => "frequent_syncs",
            Condition::RepeatedMetadata => "repeated_metadata",
            Condition::ManySmallFiles => "many_small_files",
            Condition::OtherWorkBetweenIo => "other_work_between_io",
            Condition::NothingBesideIo => "nothing_beside_io",
            Condition::LargeWrites => "large_writes",
            Condition::RereadData => "reread_data",
            Condition::Mpi => "mpi",
        }
    }
}

/// The access evidence of one run.
#[derive(Clone, Debug, Default, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Profile {
    /// POSIX reads.
    pub reads: u64,
    /// POSIX writes.
    pub writes: u64,
    /// Reads under 100 KiB.
    pub small_reads: u64,
    /// Writes under 100 KiB.
    pub small_writes: u64,
    /// Reads after each record's first one.
    pub later_reads: u64,
    /// Of those, consecutive (starting where the previous one ended).
    pub consecutive_reads: u64,
    /// Of those, sequential (at a higher offset than the previous one; includes consecutive).
    pub sequential_reads: u64,
    /// Bytes read.
    pub bytes_read: u64,
    /// Bytes written.
    pub bytes_written: u64,
    /// Bytes read again by the process that read them (beyond the highest byte it read).
    pub reread_bytes: u64,
    /// `fsync` and `fdatasync` calls.
    pub syncs: u64,
    /// Time in them, seconds (traces; a Darshan log counts it in the write time).
    pub sync_time_s: Option<f64>,
    /// Opens (POSIX and STDIO).
    pub opens: u64,
    /// `stat` calls; `None` when the tracer cannot see them (DFTracer 2.2 does not intercept
    /// glibc's `stat`, so a trace's zero is not a count).
    pub stats: Option<u64>,
    /// Files opened (distinct paths with an open).
    pub files_opened: u64,
    /// Files that moved data.
    pub data_files: u64,
    /// Whether the job uses MPI.
    pub mpi: bool,
    /// The gaps between the calls of the process with the most I/O time.
    pub gaps: Option<IoGaps>,
    /// The calls to files shared by several processes and the caller's time between them.
    pub shared: Option<SharedFileCalls>,
    /// The job's run time, seconds.
    pub job_time_s: f64,
}

fn positive(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

impl Profile {
    /// The profile of a run's counters. `stats_visible` says whether a zero `stat` count can be
    /// trusted; `sync_time_s` is the traced time in `fsync` calls.
    pub fn of(facts: &DarshanFacts, stats_visible: bool, sync_time_s: Option<f64>, mpi: bool) -> Profile {
        let context = DarshanContext::new(facts, DrishtiThresholds::default());
        let posix = context.records(Module::Posix);
        let mut profile = Profile {
            sync_time_s,
            mpi,
            job_time_s: facts.run_time.max(0.0),
            gaps: io_gaps(&context),
            shared: shared_file_calls(&context),
            ..Profile::default()
        };
        let mut opened = std::collections::BTreeSet::new();
        let mut moved = std::collections::BTreeSet::new();
        let mut stats = 0;
        for record in posix {
            let value = |counter: Counter| positive(context.value(record, counter));
            let reads = value(POSIX_READS);
            profile.reads += reads;
            profile.writes += value(POSIX_WRITES);
            for (read_bin, write_bin) in
                POSIX_SIZE_READ_BINS.iter().zip(&POSIX_SIZE_WRITE_BINS).take(SMALL_BINS)
            {
                profile.small_reads += value(*read_bin);
                profile.small_writes += value(*write_bin);
            }
            profile.later_reads += reads.saturating_sub(1);
            profile.consecutive_reads += value(POSIX_CONSEC_READS);
            profile.sequential_reads += value(POSIX_SEQ_READS);
            let bytes_read = value(POSIX_BYTES_READ);
            profile.bytes_read += bytes_read;
            profile.bytes_written += value(POSIX_BYTES_WRITTEN);
            let extent = context.value(record, POSIX_MAX_BYTE_READ).saturating_add(1);
            profile.reread_bytes += bytes_read.saturating_sub(positive(extent));
            profile.syncs += value(POSIX_FSYNCS) + value(POSIX_FDSYNCS);
            profile.opens += value(POSIX_OPENS);
            stats += value(POSIX_STATS);
            if value(POSIX_OPENS) > 0 {
                opened.insert(record.id);
            }
            if bytes_read + value(POSIX_BYTES_WRITTEN) > 0 {
                moved.insert(record.id);
            }
        }
        for record in context.records(Module::Stdio) {
            let opens = positive(context.value(record, STDIO_OPENS));
            profile.opens += opens;
            if opens > 0 {
                opened.insert(record.id);
            }
        }
        profile.files_opened = opened.len() as u64;
        profile.data_files = moved.len() as u64;
        profile.stats = (stats > 0 || stats_visible).then_some(stats);
        profile
    }

    fn share(part: u64, whole: u64) -> f64 {
        if whole > 0 { part as f64 / whole as f64 } else { 0.0 }
    }

    /// Whether `condition` holds on this run, and the numbers that decide it; `None` when the
    /// run cannot tell.
    pub fn holds(&self, condition: Condition) -> (Option<bool>, String) {
        let share = Profile::share;
        match condition {
            Condition::SmallReads => (
                Some(self.reads >= MIN_CALLS && share(self.small_reads, self.reads) >= 0.5),
                format!("{} reads, {} under 100 KiB", self.reads, self.small_reads),
            ),
            Condition::SmallWrites => (
                Some(self.writes >= MIN_CALLS && share(self.small_writes, self.writes) >= 0.5),
                format!("{} writes, {} under 100 KiB", self.writes, self.small_writes),
            ),
            Condition::RandomReads | Condition::SequentialReads => {
                let consecutive = share(self.consecutive_reads, self.later_reads);
                let sequential = share(self.sequential_reads, self.later_reads);
                let holds = if condition == Condition::RandomReads {
                    self.reads >= MIN_CALLS && consecutive < 0.3 && sequential < 0.8
                } else {
                    self.reads >= MIN_CALLS && consecutive >= 0.5
                };
                (
                    Some(holds),
                    format!(
                        "{} reads, {:.0} % consecutive and {:.0} % sequential after each file's first",
                        self.reads,
                        consecutive * 100.0,
                        sequential * 100.0
                    ),
                )
            }
            Condition::FrequentSyncs => (
                Some(self.syncs >= 10 && self.writes <= 16 * self.syncs),
                format!("{} fsync/fdatasync calls for {} writes", self.syncs, self.writes),
            ),
            Condition::RepeatedMetadata => {
                let calls = self.opens + self.stats.unwrap_or(0);
                let stats = match self.stats {
                    Some(stats) => format!("{stats} stats"),
                    None => "stat calls not visible in this trace".to_string(),
                };
                (
                    Some(self.files_opened >= 10 && calls >= 3 * self.files_opened),
                    format!("{} opens and {stats} on {} files", self.opens, self.files_opened),
                )
            }
            Condition::ManySmallFiles => {
                let bytes = self.bytes_read + self.bytes_written;
                let mean = bytes.checked_div(self.data_files).unwrap_or(0);
                (
                    Some(self.data_files >= MIN_CALLS && mean < 1 << 20),
                    format!("{} files moved data, {mean} bytes each on average", self.data_files),
                )
            }
            Condition::OtherWorkBetweenIo | Condition::NothingBesideIo => match &self.gaps {
                Some(gaps) if self.job_time_s > 0.0 => {
                    let overlappable = gaps.overlappable_s / self.job_time_s;
                    let other = gaps.other_work_s / self.job_time_s;
                    let holds = if condition == Condition::OtherWorkBetweenIo {
                        overlappable >= 0.05 && gaps.other_work_s >= 0.1 * gaps.window_s
                    } else {
                        other < 0.05
                    };
                    (
                        Some(holds),
                        format!(
                            "the busiest process has {:.3} s of I/O and {:.3} s of gaps of 1 ms or more between its calls ({:.0} % of the job; inferred)",
                            gaps.io_time_s,
                            gaps.other_work_s,
                            other * 100.0
                        ),
                    )
                }
                _ => (None, "no per-process timestamps: the gaps between calls are not visible".to_string()),
            },
            Condition::LargeWrites => {
                let mean = self.bytes_written.checked_div(self.writes).unwrap_or(0);
                (
                    Some(self.writes > 0 && mean >= 1 << 20),
                    format!("{} writes of {mean} bytes on average", self.writes),
                )
            }
            Condition::RereadData => (
                Some(self.reread_bytes >= 1 << 20 && share(self.reread_bytes, self.bytes_read) >= 0.1),
                format!("{} of {} bytes read were read before", self.reread_bytes, self.bytes_read),
            ),
            Condition::Mpi => (
                Some(self.mpi),
                if self.mpi { "the job uses MPI" } else { "the job does not use MPI" }.to_string(),
            ),
        }
    }
}
