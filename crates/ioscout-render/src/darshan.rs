//! The text of a Darshan log's module breakdown (`ioscout analyze LOG`): the job line, per I/O
//! module its operations and bytes, then its time, summed over processes and the slowest
//! rank's, each labelled, and the LUSTRE striping. The numbers come from
//! [`ioscout_darshan::breakdown::Breakdown`]; this only lays them out.

use std::fmt::Write as _;

use ioscout_darshan::breakdown::{Breakdown, Striping};

use crate::table::Table;
use crate::text::{bytes, thousands};

/// Seconds with three decimals.
fn seconds(value: f64) -> String {
    format!("{value:.3}")
}

/// The breakdown of the log at `path`, written as `version`: a header line, the operations
/// table, the time table and what the tables leave out.
pub fn breakdown_text(path: &str, version: &str, breakdown: &Breakdown) -> String {
    let mut out = String::new();
    let at_least = if breakdown.job_estimated { "at least " } else { "" };
    let run_time = match breakdown.run_time_s {
        Some(run_time) => format!("run time {at_least}{} s", crate::text::seconds(run_time, 3)),
        None => "run time unknown (neither the job record nor the records give one)".into(),
    };
    let _ = writeln!(
        out,
        "{path}: Darshan {version}, {at_least}{} {}, {run_time}",
        thousands(breakdown.nprocs.max(0) as u64),
        if breakdown.nprocs == 1 { "process" } else { "processes" }
    );
    if breakdown.job_estimated {
        out.push_str(
            "  the job record is unreadable: processes and run time are lower bounds from the records (the highest rank + 1, the latest end timestamp), so \"of run\" shares are upper bounds\n",
        );
    }
    if breakdown.modules.is_empty() {
        out.push_str("No I/O module has records.\n");
    } else {
        out.push('\n');
        out.push_str(&operations_table(breakdown).render());
        out.push('\n');
        out.push_str(&summed_table(breakdown).render());
        out.push_str(
            "  summed over processes as Darshan's counters hold them: above the run time when processes do I/O at once\n\n",
        );
        out.push_str(&slowest_table(breakdown).render());
        out.push_str(
            "  slowest rank: Darshan's agg_time_by_slowest, the slowest rank through the files it alone opened plus each shared file's slowest rank; bandwidth: bytes read and written over that time\n",
        );
    }
    if breakdown.run_time_s.is_none() && !breakdown.modules.is_empty() {
        out.push_str("  \"of run\" is not given: the run time is unknown\n");
    }
    if let Some(striping) = &breakdown.striping {
        let _ = writeln!(out, "\n{}", striping_line(striping));
    }
    if !breakdown.unread_modules.is_empty() {
        let _ = writeln!(
            out,
            "Not read (their region is damaged; nothing above counts them): {}",
            breakdown.unread_modules.join(", ")
        );
    }
    if !breakdown.damaged_modules.is_empty() {
        let _ = writeln!(
            out,
            "Read in part (their region is damaged; the tables count the records that could be read): {}",
            breakdown.damaged_modules.join(", ")
        );
    }
    out
}

fn operations_table(breakdown: &Breakdown) -> Table {
    let mut table = Table::new(
        "Operations by module",
        &["Module", "Files", "Reads", "Writes", "Opens", "Stats", "Seeks", "Syncs"],
        &[false, true, true, true, true, true, true, true],
    );
    for line in &breakdown.modules {
        table.row(vec![
            line.module.clone(),
            thousands(line.files as u64),
            thousands(line.reads),
            thousands(line.writes),
            thousands(line.opens),
            thousands(line.stats),
            thousands(line.seeks),
            thousands(line.syncs),
        ]);
    }
    table
}

fn summed_table(breakdown: &Breakdown) -> Table {
    let mut table = Table::new(
        "I/O time by module, seconds summed over processes",
        &["Module", "Read", "Write", "Metadata", "Total"],
        &[false, true, true, true, true],
    );
    for line in &breakdown.modules {
        table.row(vec![
            line.module.clone(),
            seconds(line.read_time_summed_s),
            seconds(line.write_time_summed_s),
            seconds(line.meta_time_summed_s),
            seconds(line.io_time_summed_s),
        ]);
    }
    table
}

fn slowest_table(breakdown: &Breakdown) -> Table {
    let mut table = Table::new(
        "Bytes and the slowest rank's I/O time by module",
        &["Module", "Read", "Written", "Slowest rank (s)", "of run", "Bandwidth"],
        &[false, true, true, true, true, true],
    );
    for line in &breakdown.modules {
        table.row(vec![
            line.module.clone(),
            bytes(line.bytes_read),
            bytes(line.bytes_written),
            seconds(line.io_time_slowest_rank_s),
            line.share_of_run_time_pct.map_or_else(|| "-".into(), |share| format!("{share:.1} %")),
            line.bandwidth_bytes_per_s
                .map_or_else(|| "-".into(), |rate| format!("{}/s", bytes(rate.max(0.0) as u64))),
        ]);
    }
    table
}

pub(crate) fn striping_line(striping: &Striping) -> String {
    let range = |values: &[i64], show: &dyn Fn(i64) -> String| match (values.first(), values.last()) {
        (Some(first), Some(last)) if first == last => show(*first),
        (Some(first), Some(last)) => format!("{} to {}", show(*first), show(*last)),
        _ => "-".into(),
    };
    format!(
        "LUSTRE: {} striped over {} {}; stripe size {}, stripe count {}",
        crate::text::count_of(striping.files as u64, "file", "files"),
        thousands(striping.osts as u64),
        if striping.osts == 1 { "OST" } else { "OSTs" },
        range(&striping.stripe_sizes, &|size| bytes(size.max(0) as u64)),
        range(&striping.stripe_counts, &|count| count.to_string()),
    )
}

/// A CSV cell: quoted when it holds a comma, a quote or a line break.
fn csv_cell(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// MiB with one decimal.
fn mebibytes(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / 1_048_576.0)
}

/// The table of `darshan files`: `heading` (what was read), then one row per file.
pub fn file_stats_text(heading: &str, files: &[&ioscout_darshan::stats::FileStats]) -> String {
    let mut table = Table::new(
        heading,
        &[
            "file",
            "total MiB",
            "read MiB",
            "written MiB",
            "reads",
            "writes",
            "jobs",
            "time, slowest rank (s)",
            "MiB/s",
        ],
        &[false, true, true, true, true, true, true, true, true],
    );
    for file in files {
        table.row(vec![
            file.file.clone(),
            mebibytes(file.total_bytes()),
            mebibytes(file.bytes_read),
            mebibytes(file.bytes_written),
            thousands(file.reads),
            thousands(file.writes),
            thousands(file.jobs),
            seconds(file.time_by_slowest_s),
            format!("{:.1}", file.bandwidth_bytes_per_s() / 1_048_576.0),
        ]);
    }
    table.render()
}

/// The CSV of `darshan files`, in PyDarshan `file_stats --csv`'s columns: `perf_by_slowest` in
/// bytes per second (the bytes over the time summed over the logs), `time_by_slowest` in
/// seconds, `total_jobs` the logs that accessed the file.
pub fn file_stats_csv(files: &[&ioscout_darshan::stats::FileStats]) -> String {
    let mut out = String::from(
        "file,perf_by_slowest,time_by_slowest,total_bytes,bytes_read,bytes_written,reads,writes,total_jobs\n",
    );
    for file in files {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{}",
            csv_cell(&file.file),
            file.bandwidth_bytes_per_s(),
            file.time_by_slowest_s,
            file.total_bytes(),
            file.bytes_read,
            file.bytes_written,
            file.reads,
            file.writes,
            file.jobs
        );
    }
    out
}

/// The table of `darshan jobs`: `heading`, then one row per log.
pub fn job_stats_text(heading: &str, jobs: &[(&str, &ioscout_darshan::stats::JobStats)]) -> String {
    let mut table = Table::new(
        heading,
        &[
            "log",
            "job id",
            "processes",
            "run time (s)",
            "files",
            "total MiB",
            "time, slowest rank (s)",
            "MiB/s",
        ],
        &[false, true, true, true, true, true, true, true],
    );
    for (log, job) in jobs {
        table.row(vec![
            (*log).to_string(),
            job.job_id.to_string(),
            thousands(job.nprocs.max(0).unsigned_abs()),
            seconds(job.run_time_s),
            thousands(job.files),
            mebibytes(job.total_bytes),
            seconds(job.time_by_slowest_s),
            format!("{:.1}", job.bandwidth_bytes_per_s / 1_048_576.0),
        ]);
    }
    table.render()
}

/// The CSV of `darshan jobs`, in PyDarshan `job_stats --csv`'s columns (`log_file` is the path
/// as given; `perf_by_slowest` bytes per second).
pub fn job_stats_csv(jobs: &[(&str, &ioscout_darshan::stats::JobStats)]) -> String {
    let mut out = String::from(
        "log_file,job_id,uid,nprocs,start_time,end_time,run_time,perf_by_slowest,time_by_slowest,total_bytes,total_files,partial_flag\n",
    );
    for (log, job) in jobs {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{}",
            csv_cell(log),
            job.job_id,
            job.uid,
            job.nprocs,
            job.start_time,
            job.end_time,
            job.run_time_s,
            job.bandwidth_bytes_per_s,
            job.time_by_slowest_s,
            job.total_bytes,
            job.files,
            if job.partial { "True" } else { "False" }
        );
    }
    out
}
