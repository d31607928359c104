//! The detector's features: a run's Darshan counters (POSIX, MPI-IO, STDIO) reduced to ratios
//! that do not grow with the run, in one documented table.
//!
//! # Where this sits
//!
//! A Darshan log's records, or the records derived from a DFTracer trace
//! (`ioscout_evidence::Derived::log`), become a [`Counters`]; [`Features::of`] turns them into
//! the vector the model file's trees split on ([`crate::model`]), in the order of [`FEATURES`].
//! The training script reads the same vectors (`ioscout detect features --json`), so the
//! features are computed in exactly one place.
//!
//! # Normalisation
//!
//! As IOSage does (`src/data/preprocessing.py`: `small_io_ratio`, `seq_write_ratio`,
//! `metadata_time_ratio`, `collective_ratio`, `fsync_ratio`, `rank_bytes_cv`, `opens_per_mb`,
//! `dominant_access_size`), counters become shares of I/O time, shares of operations,
//! per-process and per-operation ratios and size-bin shares; counts that span orders of
//! magnitude are taken as logarithms. Nothing reads the executable, the command line or a file
//! name, and no feature is a count or a rate of its own (processes, bytes, calls, seconds per
//! MiB), so a run of other sizes and rank counts, or on a faster machine, lands where its shape
//! puts it (with such features the detector held out runs of unseen rank counts worse: 0.95
//! micro-F1 against 0.99 without them). A ratio whose denominator is zero is 0.

use std::collections::{BTreeMap, HashSet};

use ioscout_darshan::counters::{
    Counter, FloatCounter, MPIIO_BYTES_READ, MPIIO_BYTES_WRITTEN, MPIIO_COLL_READS, MPIIO_COLL_WRITES,
    MPIIO_INDEP_READS, MPIIO_INDEP_WRITES, MPIIO_NB_READS, MPIIO_NB_WRITES, MPIIO_SPLIT_READS,
    MPIIO_SPLIT_WRITES, POSIX_ACCESSES, POSIX_BYTES_READ, POSIX_BYTES_WRITTEN, POSIX_CONSEC_READS,
    POSIX_CONSEC_WRITES, POSIX_F_META_TIME, POSIX_F_READ_TIME, POSIX_F_VARIANCE_RANK_BYTES,
    POSIX_F_WRITE_TIME, POSIX_FASTEST_RANK_BYTES, POSIX_FDSYNCS, POSIX_FILE_NOT_ALIGNED, POSIX_FSYNCS,
    POSIX_MEM_NOT_ALIGNED, POSIX_OPENS, POSIX_READS, POSIX_RW_SWITCHES, POSIX_SEEKS, POSIX_SEQ_READS,
    POSIX_SEQ_WRITES, POSIX_SIZE_READ_BINS, POSIX_SIZE_WRITE_BINS, POSIX_SLOWEST_RANK_BYTES, POSIX_STATS,
    POSIX_WRITES, STDIO_BYTES_READ, STDIO_BYTES_WRITTEN, STDIO_F_META_TIME, STDIO_F_READ_TIME,
    STDIO_F_WRITE_TIME, STDIO_OPENS, STDIO_READS, STDIO_WRITES,
};
use ioscout_darshan::{CounterRecord, id};

/// One feature: its name and what it is.
#[derive(Clone, Copy, Debug, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct FeatureDoc {
    /// The name the model file refers to.
    pub name: &'static str,
    /// How it is computed from the counters.
    pub doc: &'static str,
}

macro_rules! features {
    ($($name:literal => $doc:literal,)*) => {
        /// Every feature, in the order of [`Features::values`].
        pub const FEATURES: &[FeatureDoc] = &[$(FeatureDoc { name: $name, doc: $doc },)*];
    };
}

features! {
    "io_time_share" => "POSIX and STDIO read, write and metadata seconds summed over processes, over processes x run time (IOSage's Fig. 2), at most 4.",
    "metadata_time_share" => "POSIX and STDIO metadata seconds over their read, write and metadata seconds.",
    "read_time_share" => "POSIX and STDIO read seconds over their read, write and metadata seconds.",
    "write_time_share" => "POSIX and STDIO write seconds (Darshan counts sync calls here) over their read, write and metadata seconds.",
    "read_byte_share" => "Bytes read over bytes read and written, POSIX and STDIO.",
    "size_share_0_100" => "POSIX reads and writes of 0 to 100 bytes, over POSIX reads and writes.",
    "size_share_100_1k" => "POSIX reads and writes of 100 bytes to 1 KiB, over POSIX reads and writes.",
    "size_share_1k_10k" => "POSIX reads and writes of 1 to 10 KiB, over POSIX reads and writes.",
    "size_share_10k_100k" => "POSIX reads and writes of 10 to 100 KiB, over POSIX reads and writes.",
    "size_share_100k_1m" => "POSIX reads and writes of 100 KiB to 1 MiB (Darshan's bin holds 1 MiB itself), over POSIX reads and writes.",
    "size_share_1m_4m" => "POSIX reads and writes of 1 to 4 MiB, over POSIX reads and writes.",
    "size_share_4m_10m" => "POSIX reads and writes of 4 to 10 MiB, over POSIX reads and writes.",
    "size_share_10m_plus" => "POSIX reads and writes of 10 MiB or more, over POSIX reads and writes.",
    "small_request_share" => "POSIX reads and writes under 100 KiB, over POSIX reads and writes.",
    "small_request_byte_share" => "An estimate of the bytes those requests move (each of the four bins' count times its middle: 50, 550, 5,500 and 55,000 bytes) over POSIX bytes, at most 1: small requests that move almost none of the data (a program reading its modules or configuration beside bulk I/O) are not the run's granularity.",
    "dominant_access_share" => "Requests of the access size with the most requests in POSIX_ACCESS1..4 (summed by size over records) over POSIX reads and writes.",
    "dominant_access_aligned" => "1 when that size is a multiple of 4 KiB, 0 when it is not or there are no requests.",
    "sequential_share" => "POSIX_SEQ_READS + POSIX_SEQ_WRITES over reads and writes, each record's first request left out (it has no order to keep); 1 when no request has one before it.",
    "consecutive_share" => "POSIX_CONSEC_READS + POSIX_CONSEC_WRITES over the same; 1 when no request has one before it.",
    "byte_weighted_sequential_share" => "Each POSIX record's sequential share (as above, 1 when it has one request or none) weighted by the bytes it moved: the order of the bulk data, not of a program's reads of its modules or configuration.",
    "seeks_per_operation" => "POSIX_SEEKS over POSIX reads and writes, at most 4.",
    "rw_switches_per_operation" => "POSIX_RW_SWITCHES over POSIX reads and writes.",
    "file_not_aligned_share" => "POSIX_FILE_NOT_ALIGNED over POSIX reads and writes.",
    "memory_not_aligned_share" => "POSIX_MEM_NOT_ALIGNED over POSIX reads and writes.",
    "log2_files_per_process" => "log2(1 + distinct POSIX files with bytes read or written per process); files without data count in data_file_share, so a stray directory open does not make a run look like a many-files run.",
    "log2_effective_files_per_process" => "log2(1 + the effective number of data files per process): (sum of the files' bytes) squared over the sum of their squares, so a hundred small files read beside one large one count as about one.",
    "data_file_share" => "POSIX files with bytes read or written over POSIX files.",
    "log2_bytes_per_data_file" => "log2(1 + POSIX bytes per file with data).",
    "opens_per_file" => "POSIX_OPENS of the records with data over those records (one per file and rank, or one for a shared file), at most 64.",
    "log10_opens_per_mib" => "log10(1 + POSIX and STDIO opens per MiB moved, one MiB added to the bytes).",
    "log10_metadata_calls_per_operation" => "log10(1 + (POSIX_OPENS + POSIX_STATS + STDIO_OPENS) per POSIX and STDIO read or write, one added to the operations).",
    "syncs_per_write" => "POSIX_FSYNCS + POSIX_FDSYNCS over POSIX_WRITES, at most 4.",
    "shared_byte_share" => "POSIX bytes in records shared by all ranks (rank -1) over POSIX bytes.",
    "shared_file_share" => "Shared POSIX records with data over the POSIX files with data.",
    "rank_byte_cv" => "Coefficient of variation over the processes of each process's bytes in POSIX files of its own (processes without any count as 0).",
    "rank_byte_max_over_mean" => "The busiest process's bytes in files of its own over the mean, at most 64.",
    "idle_rank_share" => "Processes with no bytes in files of their own over processes, when some process has some.",
    "rank_time_cv" => "Coefficient of variation over the processes of each process's POSIX seconds in files of its own.",
    "shared_rank_byte_cv" => "On shared records, the square root of POSIX_F_VARIANCE_RANK_BYTES over the mean bytes per process, weighted by bytes, at most 64.",
    "shared_rank_byte_spread" => "On shared records, (POSIX_SLOWEST_RANK_BYTES - POSIX_FASTEST_RANK_BYTES) over the mean bytes per process, weighted by bytes, at most 64.",
    "has_mpiio" => "1 when the run has MPI-IO records, else 0.",
    "mpiio_collective_share" => "Collective MPI-IO reads and writes over all MPI-IO reads and writes.",
    "mpiio_independent_share" => "Independent MPI-IO reads and writes (blocking) over all MPI-IO reads and writes.",
    "mpiio_byte_share" => "MPI-IO bytes over POSIX bytes, at most 2.",
    "stdio_byte_share" => "STDIO bytes over POSIX and STDIO bytes.",
}

/// The counters of one run that the features read.
#[derive(Clone, Copy, Debug)]
pub struct Counters<'a> {
    /// Processes.
    pub nprocs: i64,
    /// Run time in seconds.
    pub run_time: f64,
    /// POSIX records.
    pub posix: &'a [CounterRecord],
    /// MPI-IO records.
    pub mpiio: &'a [CounterRecord],
    /// STDIO records.
    pub stdio: &'a [CounterRecord],
}

/// A run's feature vector, in the order of [`FEATURES`].
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Features {
    values: Vec<f64>,
}

/// Counter values of one module's records.
struct Module<'a> {
    module: usize,
    records: &'a [CounterRecord],
}

impl<'a> Module<'a> {
    fn new(module: usize, records: &'a [CounterRecord]) -> Module<'a> {
        Module { module, records }
    }

    /// Integer counter `counter` of `record` as a float (negative values, Darshan's "unknown",
    /// as 0).
    fn value(&self, record: &CounterRecord, counter: Counter) -> f64 {
        debug_assert_eq!(counter.module(), self.module, "{} read from another module", counter.name());
        counter.of(record).max(0) as f64
    }

    /// Floating-point counter `counter` of `record` (negative or not finite as 0).
    fn fvalue(&self, record: &CounterRecord, counter: FloatCounter) -> f64 {
        debug_assert_eq!(counter.module(), self.module, "{} read from another module", counter.name());
        let value = counter.of(record);
        if value.is_finite() { value.max(0.0) } else { 0.0 }
    }

    fn sum(&self, counter: Counter) -> f64 {
        self.records.iter().map(|record| self.value(record, counter)).sum()
    }

    fn fsum(&self, counter: FloatCounter) -> f64 {
        self.records.iter().map(|record| self.fvalue(record, counter)).sum()
    }

    fn sums(&self, counters: &[Counter]) -> f64 {
        counters.iter().map(|counter| self.sum(*counter)).sum()
    }
}

/// `part / whole`, 0 when `whole` is 0.
fn ratio(part: f64, whole: f64) -> f64 {
    if whole > 0.0 { part / whole } else { 0.0 }
}

/// The coefficient of variation of `values` (0 when their mean is 0).
fn coefficient_of_variation(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    if mean <= 0.0 {
        return 0.0;
    }
    let variance = values.iter().map(|value| (value - mean).powi(2)).sum::<f64>() / values.len() as f64;
    variance.sqrt() / mean
}

impl Features {
    /// The features of a run, group by group in the order of [`FEATURES`].
    pub fn of(counters: &Counters<'_>) -> Features {
        let run = Run {
            counters,
            posix: Module::new(id::POSIX, counters.posix),
            mpiio: Module::new(id::MPIIO, counters.mpiio),
            stdio: Module::new(id::STDIO, counters.stdio),
            nprocs: counters.nprocs.max(1) as f64,
        };
        let mut values = Vec::with_capacity(FEATURES.len());
        let totals = run.time_and_volume(&mut values);
        run.sizes(&totals, &mut values);
        run.order(&totals, &mut values);
        let data_files = run.files(&totals, &mut values);
        run.balance(&totals, data_files, &mut values);
        run.interfaces(&totals, &mut values);
        debug_assert_eq!(values.len(), FEATURES.len());
        // An empty float sum is -0.0; every output writes 0.
        for value in &mut values {
            *value += 0.0;
        }
        Features { values }
    }

    /// A vector given by its values in the order of [`FEATURES`] (a training table's row);
    /// `None` when there are not exactly as many.
    pub fn from_values(values: Vec<f64>) -> Option<Features> {
        (values.len() == FEATURES.len()).then_some(Features { values })
    }

    /// The values, in the order of [`FEATURES`].
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// The value of feature `name`.
    pub fn get(&self, name: &str) -> Option<f64> {
        FEATURES
            .iter()
            .position(|feature| feature.name == name)
            .and_then(|index| self.values.get(index))
            .copied()
    }

    /// (name, value) pairs in the order of [`FEATURES`].
    pub fn named(&self) -> impl Iterator<Item = (&'static str, f64)> + '_ {
        FEATURES.iter().map(|feature| feature.name).zip(self.values.iter().copied())
    }
}

/// One run's counters as the feature groups read them.
struct Run<'c> {
    counters: &'c Counters<'c>,
    posix: Module<'c>,
    mpiio: Module<'c>,
    stdio: Module<'c>,
    /// Processes, at least 1.
    nprocs: f64,
}

/// The totals several groups share.
#[derive(Clone, Copy)]
struct Totals {
    bytes: f64,
    posix_bytes: f64,
    stdio_bytes: f64,
    operations: f64,
    posix_operations: f64,
}

impl Run<'_> {
    /// Shares of I/O time; the read share of the bytes.
    fn time_and_volume(&self, values: &mut Vec<f64>) -> Totals {
        // Time.
        let read_seconds = self.posix.fsum(POSIX_F_READ_TIME) + self.stdio.fsum(STDIO_F_READ_TIME);
        let write_seconds = self.posix.fsum(POSIX_F_WRITE_TIME) + self.stdio.fsum(STDIO_F_WRITE_TIME);
        let metadata_seconds = self.posix.fsum(POSIX_F_META_TIME) + self.stdio.fsum(STDIO_F_META_TIME);
        let io_seconds = read_seconds + write_seconds + metadata_seconds;
        values.push(ratio(io_seconds, self.nprocs * self.counters.run_time.max(0.0)).min(4.0));
        values.push(ratio(metadata_seconds, io_seconds));
        values.push(ratio(read_seconds, io_seconds));
        values.push(ratio(write_seconds, io_seconds));

        // Volume.
        let posix_read = self.posix.sum(POSIX_BYTES_READ);
        let posix_written = self.posix.sum(POSIX_BYTES_WRITTEN);
        let stdio_bytes = self.stdio.sum(STDIO_BYTES_READ) + self.stdio.sum(STDIO_BYTES_WRITTEN);
        let posix_bytes = posix_read + posix_written;
        let bytes = posix_bytes + stdio_bytes;
        let posix_operations = self.posix.sum(POSIX_READS) + self.posix.sum(POSIX_WRITES);
        let operations = posix_operations + self.stdio.sum(STDIO_READS) + self.stdio.sum(STDIO_WRITES);
        values.push(ratio(posix_read + self.stdio.sum(STDIO_BYTES_READ), bytes));
        Totals { bytes, posix_bytes, stdio_bytes, operations, posix_operations }
    }

    /// Shares of the size bins; small requests; the dominant access size.
    fn sizes(&self, totals: &Totals, values: &mut Vec<f64>) {
        let Totals { posix_bytes, posix_operations, .. } = *totals;
        // Sizes.
        let bins: Vec<f64> = POSIX_SIZE_READ_BINS
            .iter()
            .zip(&POSIX_SIZE_WRITE_BINS)
            .map(|(read_bin, write_bin)| self.posix.sum(*read_bin) + self.posix.sum(*write_bin))
            .collect();
        let binned: f64 = bins.iter().sum();
        for bin in &bins[..7] {
            values.push(ratio(*bin, binned));
        }
        values.push(ratio(bins[7..].iter().sum(), binned));
        values.push(ratio(bins[..4].iter().sum(), binned));
        let small_bytes: f64 = bins[..4]
            .iter()
            .zip([50.0, 550.0, 5_500.0, 55_000.0])
            .map(|(count, middle)| count * middle)
            .sum();
        values.push(ratio(small_bytes, posix_bytes).min(1.0));
        let (dominant_size, dominant_count) = dominant_access(&self.posix);
        values.push(ratio(dominant_count, posix_operations).min(1.0));
        values.push(if dominant_count > 0.0 && dominant_size > 0.0 && dominant_size % 4096.0 == 0.0 {
            1.0
        } else {
            0.0
        });
    }

    /// Sequential and consecutive shares; seeks, switches, misalignment.
    fn order(&self, totals: &Totals, values: &mut Vec<f64>) {
        let Totals { posix_operations, .. } = *totals;
        // Order.
        let ordered: f64 = self
            .counters
            .posix
            .iter()
            .map(|record| {
                (self.posix.value(record, POSIX_READS) + self.posix.value(record, POSIX_WRITES) - 1.0)
                    .max(0.0)
            })
            .sum();
        // With no request after a first one (every file read or written once, or none), nothing
        // is out of order: 1, not 0.
        let in_order = |counters: &[Counter]| {
            if ordered > 0.0 { ratio(self.posix.sums(counters), ordered).min(1.0) } else { 1.0 }
        };
        values.push(in_order(&[POSIX_SEQ_READS, POSIX_SEQ_WRITES]));
        values.push(in_order(&[POSIX_CONSEC_READS, POSIX_CONSEC_WRITES]));
        let (mut weighted, mut weight) = (0.0, 0.0);
        for record in self.counters.posix {
            let moved =
                self.posix.value(record, POSIX_BYTES_READ) + self.posix.value(record, POSIX_BYTES_WRITTEN);
            let after_first =
                (self.posix.value(record, POSIX_READS) + self.posix.value(record, POSIX_WRITES) - 1.0)
                    .max(0.0);
            let sequential =
                self.posix.value(record, POSIX_SEQ_READS) + self.posix.value(record, POSIX_SEQ_WRITES);
            let share = if after_first > 0.0 { (sequential / after_first).min(1.0) } else { 1.0 };
            weighted += moved * share;
            weight += moved;
        }
        values.push(if weight > 0.0 { weighted / weight } else { 1.0 });
        values.push(ratio(self.posix.sum(POSIX_SEEKS), posix_operations).min(4.0));
        values.push(ratio(self.posix.sum(POSIX_RW_SWITCHES), posix_operations).min(1.0));
        values.push(ratio(self.posix.sum(POSIX_FILE_NOT_ALIGNED), posix_operations).min(1.0));
        values.push(ratio(self.posix.sum(POSIX_MEM_NOT_ALIGNED), posix_operations).min(1.0));
    }

    /// Files per process, bytes and opens per file, metadata and syncs; returns the data files.
    fn files(&self, totals: &Totals, values: &mut Vec<f64>) -> f64 {
        let Totals { bytes, posix_bytes, operations, .. } = *totals;
        // Files and metadata.
        let files: HashSet<u64> = self.counters.posix.iter().map(|record| record.id).collect();
        // Ordered by file id: the sums below must not depend on a hash order.
        let mut bytes_by_file: BTreeMap<u64, f64> = BTreeMap::new();
        for record in self.counters.posix {
            *bytes_by_file.entry(record.id).or_default() +=
                self.posix.value(record, POSIX_BYTES_READ) + self.posix.value(record, POSIX_BYTES_WRITTEN);
        }
        let data_files = bytes_by_file.values().filter(|bytes| **bytes > 0.0).count() as f64;
        let opens = self.posix.sum(POSIX_OPENS) + self.stdio.sum(STDIO_OPENS);
        let mib = bytes / f64::from(1 << 20);
        let moved = |record: &CounterRecord| {
            self.posix.value(record, POSIX_BYTES_READ) + self.posix.value(record, POSIX_BYTES_WRITTEN) > 0.0
        };
        let data_records: Vec<&CounterRecord> =
            self.counters.posix.iter().filter(|record| moved(record)).collect();
        values.push((1.0 + data_files / self.nprocs).log2());
        let squares: f64 = bytes_by_file.values().map(|bytes| bytes * bytes).sum();
        let moved_in_files: f64 = bytes_by_file.values().sum();
        let effective_files = if squares > 0.0 { moved_in_files * moved_in_files / squares } else { 0.0 };
        values.push((1.0 + effective_files / self.nprocs).log2());
        values.push(ratio(data_files, files.len() as f64));
        values.push((1.0 + ratio(posix_bytes, data_files)).log2());
        let data_opens: f64 = data_records.iter().map(|record| self.posix.value(record, POSIX_OPENS)).sum();
        values.push(ratio(data_opens, data_records.len() as f64).min(64.0));
        values.push((1.0 + opens / (1.0 + mib)).log10());
        let metadata_calls =
            self.posix.sum(POSIX_OPENS) + self.posix.sum(POSIX_STATS) + self.stdio.sum(STDIO_OPENS);
        values.push((1.0 + metadata_calls / (1.0 + operations)).log10());
        let syncs = self.posix.sum(POSIX_FSYNCS) + self.posix.sum(POSIX_FDSYNCS);
        values.push(ratio(syncs, self.posix.sum(POSIX_WRITES)).min(4.0));
        data_files
    }

    /// Shared files; balance across ranks.
    fn balance(&self, totals: &Totals, data_files: f64, values: &mut Vec<f64>) {
        let Totals { posix_bytes, .. } = *totals;
        let moved = |record: &CounterRecord| {
            self.posix.value(record, POSIX_BYTES_READ) + self.posix.value(record, POSIX_BYTES_WRITTEN) > 0.0
        };
        // Sharing and balance.
        let shared: Vec<&CounterRecord> =
            self.counters.posix.iter().filter(|record| record.rank < 0).collect();
        let shared_bytes: f64 = shared
            .iter()
            .map(|record| {
                self.posix.value(record, POSIX_BYTES_READ) + self.posix.value(record, POSIX_BYTES_WRITTEN)
            })
            .sum();
        values.push(ratio(shared_bytes, posix_bytes));
        let shared_data_files: HashSet<u64> =
            shared.iter().filter(|record| moved(record)).map(|record| record.id).collect();
        values.push(ratio(shared_data_files.len() as f64, data_files));
        let (rank_bytes, rank_seconds) = per_rank(&self.posix, self.counters.nprocs);
        let busiest = rank_bytes.iter().copied().fold(0.0, f64::max);
        let mean = rank_bytes.iter().sum::<f64>() / rank_bytes.len().max(1) as f64;
        values.push(coefficient_of_variation(&rank_bytes));
        values.push(ratio(busiest, mean).min(64.0));
        values.push(if busiest > 0.0 {
            ratio(rank_bytes.iter().filter(|bytes| **bytes <= 0.0).count() as f64, rank_bytes.len() as f64)
        } else {
            0.0
        });
        values.push(coefficient_of_variation(&rank_seconds));
        let (mut cv, mut spread) = (0.0, 0.0);
        for record in &shared {
            let moved_bytes =
                self.posix.value(record, POSIX_BYTES_READ) + self.posix.value(record, POSIX_BYTES_WRITTEN);
            let per_process = moved_bytes / self.nprocs;
            if per_process <= 0.0 {
                continue;
            }
            let weight = ratio(moved_bytes, shared_bytes);
            cv += weight
                * (self.posix.fvalue(record, POSIX_F_VARIANCE_RANK_BYTES).sqrt() / per_process).min(64.0);
            let gap = self.posix.value(record, POSIX_SLOWEST_RANK_BYTES)
                - self.posix.value(record, POSIX_FASTEST_RANK_BYTES);
            spread += weight * (gap.abs() / per_process).min(64.0);
        }
        values.push(cv);
        values.push(spread);
    }

    /// MPI-IO and STDIO use.
    fn interfaces(&self, totals: &Totals, values: &mut Vec<f64>) {
        let Totals { bytes, posix_bytes, stdio_bytes, .. } = *totals;
        // Interfaces.
        let collective = self.mpiio.sums(&[MPIIO_COLL_READS, MPIIO_COLL_WRITES]);
        let independent = self.mpiio.sums(&[MPIIO_INDEP_READS, MPIIO_INDEP_WRITES]);
        let other =
            self.mpiio.sums(&[MPIIO_NB_READS, MPIIO_NB_WRITES, MPIIO_SPLIT_READS, MPIIO_SPLIT_WRITES]);
        let mpiio_operations = collective + independent + other;
        values.push(if self.counters.mpiio.is_empty() { 0.0 } else { 1.0 });
        values.push(ratio(collective, mpiio_operations));
        values.push(ratio(independent, mpiio_operations));
        values.push(ratio(self.mpiio.sums(&[MPIIO_BYTES_READ, MPIIO_BYTES_WRITTEN]), posix_bytes).min(2.0));
        values.push(ratio(stdio_bytes, bytes));
    }
}

/// The access size with the most requests over every record's `POSIX_ACCESS1..4`, and its count.
fn dominant_access(posix: &Module<'_>) -> (f64, f64) {
    let mut counts: BTreeMap<i64, f64> = BTreeMap::new();
    for record in posix.records {
        for (size_counter, count_counter) in POSIX_ACCESSES {
            let size = posix.value(record, size_counter);
            let count = posix.value(record, count_counter);
            if count > 0.0 {
                *counts.entry(size as i64).or_default() += count;
            }
        }
    }
    counts
        .into_iter()
        .fold((0.0, 0.0), |best, (size, count)| if count > best.1 { (size as f64, count) } else { best })
}

/// Each process's bytes and seconds in POSIX files of its own (`nprocs` entries; records of a
/// rank outside 0..nprocs are left out).
fn per_rank(posix: &Module<'_>, nprocs: i64) -> (Vec<f64>, Vec<f64>) {
    let slots = nprocs.clamp(1, 1 << 20) as usize;
    let mut bytes = vec![0.0; slots];
    let mut seconds = vec![0.0; slots];
    for record in posix.records {
        let Ok(rank) = usize::try_from(record.rank) else { continue };
        if rank >= slots {
            continue;
        }
        bytes[rank] += posix.value(record, POSIX_BYTES_READ) + posix.value(record, POSIX_BYTES_WRITTEN);
        seconds[rank] += [POSIX_F_READ_TIME, POSIX_F_WRITE_TIME, POSIX_F_META_TIME]
            .iter()
            .map(|&counter| posix.fvalue(record, counter))
            .sum::<f64>();
    }
    (bytes, seconds)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(module: usize, file: u64, rank: i64, values: &[(&str, f64)]) -> CounterRecord {
        CounterRecord::with_values(module, file, rank, values).unwrap_or_else(|error| panic!("{error}"))
    }

    fn features(nprocs: i64, posix: &[CounterRecord]) -> Features {
        Features::of(&Counters { nprocs, run_time: 10.0, posix, mpiio: &[], stdio: &[] })
    }

    #[test]
    fn one_value_per_documented_feature_and_names_are_unique() {
        let values = features(1, &[]);
        assert_eq!(values.values().len(), FEATURES.len());
        let names: HashSet<&str> = FEATURES.iter().map(|feature| feature.name).collect();
        assert_eq!(names.len(), FEATURES.len());
        let nonzero: Vec<(&str, f64)> = values.named().filter(|(_, value)| *value != 0.0).collect();
        assert_eq!(
            nonzero,
            [("sequential_share", 1.0), ("consecutive_share", 1.0), ("byte_weighted_sequential_share", 1.0)],
            "an empty run: {values:?}"
        );
    }

    #[test]
    fn small_requests_and_syncs_show_as_shares() {
        let posix = [record(
            id::POSIX,
            1,
            0,
            &[
                ("POSIX_WRITES", 100.0),
                ("POSIX_BYTES_WRITTEN", 25_600.0),
                ("POSIX_SIZE_WRITE_100_1K", 100.0),
                ("POSIX_SEQ_WRITES", 99.0),
                ("POSIX_CONSEC_WRITES", 99.0),
                ("POSIX_FSYNCS", 100.0),
                ("POSIX_OPENS", 1.0),
                ("POSIX_ACCESS1_ACCESS", 256.0),
                ("POSIX_ACCESS1_COUNT", 100.0),
            ],
        )];
        let values = features(1, &posix);
        assert_eq!(values.get("size_share_100_1k"), Some(1.0));
        assert_eq!(values.get("small_request_share"), Some(1.0));
        // 100 requests in the 100-1K bin, 550 bytes each by the estimate, against 25,600 moved.
        assert_eq!(values.get("small_request_byte_share"), Some(1.0));
        assert_eq!(values.get("sequential_share"), Some(1.0));
        assert_eq!(values.get("syncs_per_write"), Some(1.0));
        assert_eq!(values.get("dominant_access_share"), Some(1.0));
        assert_eq!(values.get("dominant_access_aligned"), Some(0.0));
    }

    #[test]
    fn the_same_run_gives_the_same_bits_whatever_the_hash_order() {
        // Byte counts whose squares are not exact in f64: a sum over a hash map's order would
        // differ in the last bits from one map to the next.
        let posix: Vec<CounterRecord> = (0..64u64)
            .map(|file| {
                let bytes = 123_456_789.0 + (file * 7_919_993) as f64;
                record(id::POSIX, 1000 + file, (file % 4) as i64, &[("POSIX_BYTES_READ", bytes)])
            })
            .collect();
        let first = features(4, &posix);
        for _ in 0..32 {
            let again = features(4, &posix);
            let bits =
                |values: &Features| values.values().iter().map(|value| value.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&again), bits(&first));
        }
    }

    #[test]
    fn rank_imbalance_counts_idle_processes() {
        let posix = [
            record(id::POSIX, 1, 0, &[("POSIX_BYTES_WRITTEN", 300.0)]),
            record(id::POSIX, 2, 1, &[("POSIX_BYTES_WRITTEN", 100.0)]),
        ];
        let values = features(4, &posix);
        assert_eq!(values.get("idle_rank_share"), Some(0.5));
        assert_eq!(values.get("rank_byte_max_over_mean"), Some(3.0));
        let cv = values.get("rank_byte_cv").unwrap_or_default();
        assert!((cv - (15_000_f64.sqrt() / 100.0)).abs() < 1e-12, "{cv}");
    }

    #[test]
    fn a_unit_change_of_scale_leaves_the_shape_features_alone() {
        let run = |scale: f64| {
            let posix: Vec<CounterRecord> = (0..4)
                .map(|rank| {
                    record(
                        id::POSIX,
                        rank as u64,
                        rank,
                        &[
                            ("POSIX_READS", 10.0 * scale),
                            ("POSIX_BYTES_READ", 4e6 * 10.0 * scale),
                            ("POSIX_SIZE_READ_4M_10M", 10.0 * scale),
                            ("POSIX_SEQ_READS", 10.0 * scale - 1.0),
                            ("POSIX_OPENS", 1.0),
                        ],
                    )
                })
                .collect();
            features(4, &posix)
        };
        let (small, large) = (run(1.0), run(8.0));
        for name in [
            "size_share_4m_10m",
            "read_byte_share",
            "rank_byte_cv",
            "log2_files_per_process",
            "opens_per_file",
        ] {
            assert_eq!(small.get(name), large.get(name), "{name}");
        }
    }
}
