//! Derived metrics of a module's records (`darshan-parser --file --perf`): files by access type
//! (read-only, write-only, read-write; unique, shared) with their bytes and highest offsets, and
//! the I/O time of the slowest rank through unique files plus the slowest rank of each shared
//! file, which gives Darshan's aggregate performance estimate.

use std::collections::HashMap;
use std::fmt::Write;

use crate::module::{CounterRecord, counter_names};

#[derive(Clone, Copy, Debug, Default)]
struct FileTotals {
    read: i64,
    written: i64,
    max_offset: i64,
    /// Ranks with a record of the file; -1 when a shared (reduced) record exists.
    processes: i64,
}

/// Per-category file counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Category {
    /// Files.
    pub count: i64,
    /// Bytes read and written.
    pub bytes: i64,
    /// Highest offset accessed (-1 when the module does not record it).
    pub max_offset: i64,
}

impl Category {
    fn add(&mut self, file: &FileTotals) {
        self.count = self.count.saturating_add(1);
        self.bytes = self.bytes.saturating_add(file.read.saturating_add(file.written));
        if file.max_offset == -1 || self.max_offset == -1 {
            self.max_offset = -1;
        } else {
            self.max_offset = self.max_offset.max(file.max_offset);
        }
    }
}

/// The derived metrics of one module.
#[derive(Clone, Debug, Default, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Metrics {
    /// All files.
    pub total: Category,
    /// Files only read.
    pub read_only: Category,
    /// Files only written.
    pub write_only: Category,
    /// Files read and written.
    pub read_write: Category,
    /// Files opened by one process.
    pub unique: Category,
    /// Files shared by all processes (a reduced record).
    pub shared: Category,
    /// Files opened by several but not all processes.
    pub partially_shared: Category,
    /// Bytes moved.
    pub total_bytes: i64,
    /// I/O time of the slowest rank through unique files.
    pub unique_io_time: f64,
    /// Its metadata-only part.
    pub unique_meta_time: f64,
    /// Its read/write part.
    pub unique_rw_time: f64,
    /// That rank.
    pub unique_slowest_rank: i64,
    /// Sum over shared files of their slowest rank's time.
    pub shared_time_by_slowest: f64,
    /// `unique_io_time + shared_time_by_slowest`.
    pub agg_time_by_slowest: f64,
    /// Total MiB over that time.
    pub agg_perf_by_slowest: f64,
}

impl Metrics {
    /// The metrics of `records` of module `module_id` in a job of `nprocs` processes.
    pub fn of<'r>(
        module_id: usize,
        records: impl IntoIterator<Item = &'r CounterRecord>,
        nprocs: i64,
    ) -> Metrics {
        let Some((names, float_names)) = counter_names(module_id) else { return Metrics::default() };
        // `PNETCDF_VAR_`, not the first word of a name.
        let Some(prefix) = crate::breakdown::counter_prefix(module_id) else { return Metrics::default() };
        let integer = |name: &str| names.iter().position(|candidate| *candidate == format!("{prefix}{name}"));
        let float =
            |name: &str| float_names.iter().position(|candidate| *candidate == format!("{prefix}{name}"));
        let read_index = integer("BYTES_READ");
        let write_index = integer("BYTES_WRITTEN");
        let max_read_index = integer("MAX_BYTE_READ");
        let max_write_index = integer("MAX_BYTE_WRITTEN");
        let (meta, read_time, write_time, slowest) =
            (float("F_META_TIME"), float("F_READ_TIME"), float("F_WRITE_TIME"), float("F_SLOWEST_RANK_TIME"));
        let value = |record: &CounterRecord, index: Option<usize>| {
            index.and_then(|i| record.counters.get(i).copied()).unwrap_or(0)
        };
        let time = |record: &CounterRecord, index: Option<usize>| {
            index.and_then(|i| record.fcounters.get(i).copied()).unwrap_or(0.0)
        };

        let mut metrics = Metrics::default();
        let mut files: HashMap<u64, FileTotals> = HashMap::new();
        let mut order: Vec<u64> = Vec::new();
        let mut per_rank: HashMap<i64, (f64, f64, f64)> = HashMap::new();
        for record in records {
            let read = value(record, read_index);
            let written = value(record, write_index);
            let max_offset = if max_read_index.is_some() {
                value(record, max_read_index).max(value(record, max_write_index))
            } else {
                -1
            };
            metrics.total_bytes = metrics.total_bytes.saturating_add(read.saturating_add(written));
            if record.rank < 0 {
                metrics.shared_time_by_slowest += time(record, slowest);
            } else {
                let meta_time = time(record, meta);
                let rw_time = time(record, read_time) + time(record, write_time);
                let entry = per_rank.entry(record.rank).or_default();
                entry.0 += meta_time + rw_time;
                entry.1 += meta_time;
                entry.2 += rw_time;
            }
            let file = files.entry(record.id).or_insert_with(|| {
                order.push(record.id);
                FileTotals::default()
            });
            file.read = file.read.saturating_add(read);
            file.written = file.written.saturating_add(written);
            file.max_offset = if max_offset == -1 { -1 } else { file.max_offset.max(max_offset) };
            file.processes =
                if record.rank < 0 || file.processes == -1 { -1 } else { file.processes.saturating_add(1) };
        }
        for id in &order {
            let Some(file) = files.get(id) else { continue };
            metrics.total.add(file);
            match (file.read > 0, file.written > 0) {
                (true, false) => metrics.read_only.add(file),
                (false, true) => metrics.write_only.add(file),
                (true, true) => metrics.read_write.add(file),
                (false, false) => {}
            }
            match file.processes {
                1 => metrics.unique.add(file),
                -1 => metrics.shared.add(file),
                _ => metrics.partially_shared.add(file),
            }
        }
        let mut ranks: Vec<(&i64, &(f64, f64, f64))> =
            per_rank.iter().filter(|(rank, _)| **rank < nprocs.max(1)).collect();
        ranks.sort_by_key(|(rank, _)| **rank);
        for (rank, (total, meta_time, rw_time)) in ranks {
            if *total > metrics.unique_io_time {
                metrics.unique_io_time = *total;
                metrics.unique_meta_time = *meta_time;
                metrics.unique_rw_time = *rw_time;
                metrics.unique_slowest_rank = *rank;
            }
        }
        metrics.agg_time_by_slowest = metrics.unique_io_time + metrics.shared_time_by_slowest;
        if metrics.agg_time_by_slowest != 0.0 {
            metrics.agg_perf_by_slowest =
                metrics.total_bytes as f64 / 1_048_576.0 / metrics.agg_time_by_slowest;
        }
        metrics
    }

    /// The `--file` block.
    pub fn write_file_counts(&self, out: &mut String) {
        out.push_str(FILE_HEADER);
        let mut row = |label: &str, category: &Category| {
            let _ = writeln!(out, "# {label}: {} {} {}", category.count, category.bytes, category.max_offset);
        };
        row("total", &self.total);
        row("read_only", &self.read_only);
        row("write_only", &self.write_only);
        row("read_write", &self.read_write);
        row("unique", &self.unique);
        // darshan-parser folds partially shared files into "shared" and adds their highest
        // offsets (it sums the two categories' maxima).
        let max_offset = if self.shared.max_offset == -1 || self.partially_shared.max_offset == -1 {
            -1
        } else {
            self.shared.max_offset.saturating_add(self.partially_shared.max_offset)
        };
        let shared = Category {
            count: self.shared.count.saturating_add(self.partially_shared.count),
            bytes: self.shared.bytes.saturating_add(self.partially_shared.bytes),
            max_offset,
        };
        row("shared", &shared);
    }

    /// The `--perf` block.
    pub fn write_performance(&self, out: &mut String) {
        let _ = write!(
            out,
            "\n# performance\n# -----------\n# total_bytes: {}\n#\n# I/O timing for unique files (seconds):\n# ...........................\n\
# unique files: slowest_rank_io_time: {:.6}\n# unique files: slowest_rank_meta_only_time: {:.6}\n\
# unique files: slowest_rank_rw_only_time: {:.6}\n# unique files: slowest_rank: {}\n#\n\
# I/O timing for shared files (seconds):\n# ...........................\n# shared files: time_by_slowest: {:.6}\n#\n\
# Aggregate performance, including both shared and unique files:\n# ...........................\n\
# agg_time_by_slowest: {:.6} # seconds\n# agg_perf_by_slowest: {:.6} # MiB/s\n",
            self.total_bytes,
            self.unique_io_time,
            self.unique_meta_time,
            self.unique_rw_time,
            self.unique_slowest_rank,
            self.shared_time_by_slowest,
            self.agg_time_by_slowest,
            self.agg_perf_by_slowest
        );
    }
}

const FILE_HEADER: &str = "\n# Total file counts
# -----
# <file_type>: type of file access:
#    *read_only: file was only read
#    *write_only: file was only written
#    *read_write: file was read and written
#    *unique: file was opened by a single process only
#    *shared: file was accessed by a group of processes (maybe all processes)
# <file_count> total number of files of this type
# <total_bytes> total number of bytes moved to/from files of this type
# <max_byte_offset> maximum byte offset accessed for a file of this type

# <file_type> <file_count> <total_bytes> <max_byte_offset>
";
