//! The text of a Darshan log's module breakdown (`ioscout analyze LOG`): the job line, per I/O
//! module its operations and bytes, then its time, summed over processes and the slowest
//! rank's, each labelled, and the LUSTRE striping. Also the file and job statistics over many
//! logs (`ioscout darshan files|jobs`) and the survey of many logs (`darshan summary --group-by`). The numbers come from
//! [`ioscout_darshan::breakdown::Breakdown`]; this only lays them out.

use std::fmt::Write as _;

use ioscout_darshan::breakdown::{Breakdown, Striping};
use ioscout_darshan::dxt::{LogSegments, ModuleSegments};
use ioscout_darshan::summary::{LogSummary, ModuleContents};
use ioscout_darshan::survey::{Group, Plan, Survey};

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

/// The text of a summary over `logs` logs (`ioscout darshan summary --group-by`): what was read,
/// the groups, the top jobs and files.
pub fn survey_text(plan: &Plan, fold: &Survey, groups: &[Group], logs: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} of {logs} logs read{}{}; I/O counted from POSIX and STDIO records, times summed over processes",
        fold.read,
        if fold.unreadable.is_empty() {
            String::new()
        } else {
            format!(", {} not readable", fold.unreadable.len())
        },
        if fold.damaged.is_empty() {
            String::new()
        } else {
            format!(", {} read in part", fold.damaged.len())
        },
    );
    out.push('\n');
    out.push_str(&groups_table(plan, groups).render());
    if groups
        .iter()
        .any(|group| group.process_seconds > 0.0 && group.amounts.io_time_s() > group.process_seconds)
    {
        out.push_str(
            "  I/O share: I/O time summed over processes and files over run time x processes; above 100 % when a process's calls overlap (threads, asynchronous I/O, or STDIO and POSIX records of the same calls)\n",
        );
    }
    let (jobs, files) = top_tables(plan, fold);
    out.push('\n');
    out.push_str(&jobs.render());
    out.push('\n');
    out.push_str(&files.render());
    out
}

/// The table of the groups, one row each.
fn groups_table(plan: &Plan, groups: &[Group]) -> Table {
    let mut table = Table::new(
        &format!("By {} (most {} first)", plan.group_by.heading().to_lowercase(), plan.by.words()),
        &[
            plan.group_by.heading(),
            "Logs",
            "Processes",
            "Run time (s)",
            "Longest (s)",
            "I/O time (s)",
            "Meta time (s)",
            "Read (MiB)",
            "Written (MiB)",
            "I/O share",
        ],
        &[false, true, true, true, true, true, true, true, true, true],
    );
    for group in groups {
        table.row(vec![
            if group.key.is_empty() { "(no command line)".into() } else { group.key.clone() },
            group.logs.to_string(),
            group.processes.to_string(),
            format!("{:.1}", group.run_time_s),
            format!("{:.1}", group.max_run_time_s),
            format!("{:.3}", group.amounts.io_time_s()),
            format!("{:.3}", group.amounts.meta_time_s),
            crate::text::mib(group.amounts.bytes_read as f64),
            crate::text::mib(group.amounts.bytes_written as f64),
            if group.process_seconds > 0.0 {
                format!("{:.1} %", 100.0 * group.amounts.io_time_s() / group.process_seconds)
            } else {
                "-".into()
            },
        ]);
    }
    table
}

/// The tables of the top jobs and the top files.
fn top_tables(plan: &Plan, fold: &Survey) -> (Table, Table) {
    let mut jobs = Table::new(
        &format!("Top {} jobs by {}", fold.jobs.len(), plan.by.words()),
        &[
            "Log",
            "Program",
            "Processes",
            "Job id",
            "Run time (s)",
            "I/O time (s)",
            "Meta time (s)",
            "Bytes (MiB)",
        ],
        &[false, false, true, true, true, true, true, true],
    );
    for top in &fold.jobs {
        jobs.row(vec![
            top.log.clone(),
            top.job.program.clone(),
            top.job.nprocs.to_string(),
            top.job.jobid.to_string(),
            format!("{:.1}", top.job.run_time_s),
            format!("{:.3}", top.job.amounts.io_time_s()),
            format!("{:.3}", top.job.amounts.meta_time_s),
            crate::text::mib(top.job.amounts.bytes() as f64),
        ]);
    }
    let mut files = Table::new(
        &format!("Top {} files by {}", fold.files.len(), plan.by.words()),
        &["File", "Module", "Rank", "Log", "I/O time (s)", "Meta time (s)", "Bytes (MiB)"],
        &[false, false, true, false, true, true, true],
    );
    for top in &fold.files {
        files.row(vec![
            top.file.name.clone(),
            top.file.module.to_string(),
            top.file.rank.to_string(),
            top.log.clone(),
            format!("{:.3}", top.file.amounts.io_time_s()),
            format!("{:.3}", top.file.amounts.meta_time_s),
            crate::text::mib(top.file.amounts.bytes() as f64),
        ]);
    }
    (jobs, files)
}

/// The table of `count LOG...`: each log's DXT modules with their records, read and write
/// segments, bytes and segments left out, and the total over several logs.
pub fn segment_count_text(logs: &[LogSegments], total: &ModuleSegments) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<44} {:>10} {:>12} {:>12} {:>12} {:>12} {:>12}",
        "log / DXT module", "records", "reads", "writes", "read MiB", "written MiB", "left out"
    );
    let mib = |bytes: u64| format!("{:.1}", bytes as f64 / (1024.0 * 1024.0));
    let row = |out: &mut String, label: &str, module: &ModuleSegments| {
        let _ = writeln!(
            out,
            "{:<44} {:>10} {:>12} {:>12} {:>12} {:>12} {:>12}",
            label,
            crate::text::thousands(module.records),
            crate::text::thousands(module.reads),
            crate::text::thousands(module.writes),
            mib(module.read_bytes),
            mib(module.write_bytes),
            crate::text::thousands(module.left_out)
        );
    };
    for log in logs {
        let _ = writeln!(out, "{}", log.log);
        if log.modules.is_empty() {
            let _ =
                writeln!(out, "  no DXT module: Darshan recorded no segments (DXT_ENABLE_IO_TRACE was off)");
        }
        for module in &log.modules {
            let damaged = if module.damaged { " (damaged)" } else { "" };
            row(&mut out, &format!("  {}{damaged}", module.module), module);
        }
    }
    if logs.len() > 1 {
        row(&mut out, &format!("total ({})", crate::text::count_of(logs.len() as u64, "log", "logs")), total);
    }
    out
}

/// What a summary of a trace's derived records says about how they were derived.
#[derive(Clone, Copy, Debug)]
pub struct DerivedCounts {
    /// Calls replayed.
    pub calls: u64,
    /// Counters approximated.
    pub approximated_counters: u64,
    /// Calls without a file.
    pub unusable_calls: u64,
}

/// A log's summary (`ioscout darshan summary`): the log, how its records were derived when they
/// come from a trace, the format, processes, run time and name records, the command line, and a
/// line per module with its records, opens, reads, writes and bytes.
pub fn summary_text(log: &str, summary: &LogSummary, derived: Option<&DerivedCounts>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{log}");
    if let Some(derived) = derived {
        let _ = writeln!(
            out,
            "  records derived from a DFTracer trace: {} calls replayed, {} counters approximated, {} calls without a file",
            derived.calls, derived.approximated_counters, derived.unusable_calls
        );
    }
    // A run time that is not a number is written as nothing (JSON has no NaN).
    let run_time =
        if summary.run_time.is_finite() { format!("{:.4}", summary.run_time) } else { String::new() };
    let _ = writeln!(
        out,
        "  format {}, {} processes, run time {run_time} s, {} name records",
        summary.version, summary.nprocs, summary.name_records
    );
    // The command line as JSON writes it, without the quotes (escapes kept).
    let exe = serde_json::Value::String(summary.exe.clone()).to_string();
    let _ = writeln!(out, "  exe: {}", exe.trim_matches('"'));
    for module in &summary.modules {
        let Some((_, entry)) = summary.entries.0.iter().find(|(name, _)| name == module) else { continue };
        let totals: &[(&str, i64)] = match &entry.contents {
            ModuleContents::Counters { totals, .. } => totals,
            _ => &[],
        };
        let get = |key: &str| totals.iter().find(|(name, _)| *name == key).map(|(_, total)| *total);
        let prefix = match *module {
            "MPI-IO" => "MPIIO",
            other => other,
        };
        let mut line = format!("  {module:<13} {:>8} records", entry.records);
        for (label, counter) in [("opens", "OPENS"), ("reads", "READS"), ("writes", "WRITES")] {
            // MPI-IO counts its calls by kind (independent, collective, split, non-blocking).
            let kinds: Vec<i64> = ["", "INDEP_", "COLL_", "SPLIT_", "NB_"]
                .iter()
                .filter_map(|kind| get(&format!("{prefix}_{kind}{counter}")))
                .collect();
            if !kinds.is_empty() {
                let _ = write!(line, ", {} {label}", kinds.iter().filter(|count| **count > 0).sum::<i64>());
            }
        }
        for (label, counter) in [("read", "BYTES_READ"), ("written", "BYTES_WRITTEN")] {
            if let Some(bytes) = get(&format!("{prefix}_{counter}")) {
                let _ = write!(line, ", {bytes} B {label}");
            }
        }
        let _ = writeln!(out, "{line}");
    }
    out
}
