//! `darshan-parser`'s text output: the job header, the region sizes, the mount table, then one
//! tab-separated line per counter (module, rank, record id, counter, value, file name, mount
//! point, file-system type), and with `total` the `total_<COUNTER>: value` lines that AIIO and
//! IOSage ingest. DXT modules are left out, as `darshan-parser` does (see [`dxt`] for the
//! `darshan-dxt-parser` format).

use std::fmt::Write;

use crate::module::{CounterRecord, DxtRecord, HeatmapRecord, LustreRecord, Records, id, module_name};
use crate::{DarshanLog, derived, descriptions, summary};

/// What to print.
#[derive(Clone, Copy, Debug, Default)]
pub struct DumpOptions {
    /// The aggregated `total_<COUNTER>` lines of POSIX, MPI-IO and STDIO (`darshan-parser --total`).
    pub total: bool,
    /// File counts by access type: read-only, write-only, read-write, unique, shared (`--file`).
    pub file: bool,
    /// Derived performance: bytes, slowest-rank times, aggregate rate (`--perf`).
    pub perf: bool,
}

impl DumpOptions {
    /// Everything (`darshan-parser --all`).
    pub fn all() -> DumpOptions {
        DumpOptions { total: true, file: true, perf: true }
    }
}

/// A day count since the epoch to a civil date (proleptic Gregorian).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let shifted = days + 719_468;
    let era = shifted.div_euclid(146_097);
    let day_of_era = shifted.rem_euclid(146_097);
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * month_index + 2) / 5 + 1) as u32;
    let month = if month_index < 10 { month_index + 3 } else { month_index - 9 } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// `ctime(3)` of `seconds` in UTC, without the trailing newline (`Sat Nov  8 02:44:45 2025`).
pub fn ctime_utc(seconds: i64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] =
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let days = seconds.div_euclid(86_400);
    let rest = seconds.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{} {} {day:>2} {:02}:{:02}:{:02} {year}",
        DAYS[days.rem_euclid(7) as usize],
        MONTHS[(month - 1) as usize],
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

fn description(module_id: usize) -> String {
    match module_id {
        id::POSIX => descriptions::POSIX.to_string(),
        id::MPIIO => descriptions::MPIIO.to_string(),
        id::STDIO => descriptions::STDIO.to_string(),
        id::LUSTRE => descriptions::LUSTRE.to_string(),
        id::HEATMAP => descriptions::HEATMAP.to_string(),
        other => format!(
            "\n# description of {} counters: see Darshan's documentation of the module.\n",
            module_name(other)
        ),
    }
}

struct Place<'a> {
    name: &'a str,
    mount: &'a str,
    fs_type: &'a str,
}

fn place(log: &DarshanLog, record_id: u64) -> Place<'_> {
    let name = log.name(record_id);
    let mount = name.and_then(|name| log.job.mount_of(name));
    Place {
        name: name.unwrap_or("(null)"),
        mount: mount.map_or("UNKNOWN", |mount| mount.path.as_str()),
        fs_type: mount.map_or("UNKNOWN", |mount| mount.fs_type.as_str()),
    }
}

fn line(
    out: &mut String,
    module: &str,
    rank: i64,
    record_id: u64,
    counter: &str,
    value: &str,
    place: &Place<'_>,
) {
    let _ = writeln!(
        out,
        "{module}\t{rank}\t{record_id}\t{counter}\t{value}\t{}\t{}\t{}",
        place.name, place.mount, place.fs_type
    );
}

fn counter_record(out: &mut String, log: &DarshanLog, module_id: usize, record: &CounterRecord) {
    let Some((integers, floats)) = crate::counter_names(module_id) else { return };
    let module = module_name(module_id);
    let place = place(log, record.id);
    for (name, value) in integers.iter().zip(&record.counters) {
        let text =
            if *name == "POSIX_RENAMED_FROM" { (*value as u64).to_string() } else { value.to_string() };
        line(out, module, record.rank, record.id, name, &text, &place);
    }
    for (name, value) in floats.iter().zip(&record.fcounters) {
        line(out, module, record.rank, record.id, name, &format!("{value:.6}"), &place);
    }
    if let Some(file_record_id) = record.file_record_id {
        let counter = if module_id == id::H5D { "H5D_FILE_REC_ID" } else { "PNETCDF_VAR_FILE_REC_ID" };
        line(out, module, record.rank, record.id, counter, &file_record_id.to_string(), &place);
    }
}

fn lustre_pattern(pattern: i64) -> &'static str {
    match pattern {
        0 => "raid0",
        2 => "mdt",
        4 => "raid0,overstriped",
        8 => "foreign",
        _ => "N/A",
    }
}

fn lustre_flags(flags: i64) -> String {
    const FLAGS: [&str; 12] = [
        "stale",
        "prefrd",
        "prefwr",
        "offline",
        "init",
        "nosync",
        "extension",
        "parity",
        "compress",
        "partial",
        "nocompr",
        "neg",
    ];
    if flags == -1 {
        return "N/A".to_string();
    }
    let set: Vec<&str> = FLAGS
        .iter()
        .enumerate()
        .filter(|(bit, _)| (flags as u64) & (1_u64 << bit) != 0)
        .map(|(_, name)| *name)
        .collect();
    if set.is_empty() { "0".to_string() } else { set.join(",") }
}

fn lustre_record(out: &mut String, log: &DarshanLog, record: &LustreRecord) {
    const COMPONENT: [&str; 7] =
        ["STRIPE_SIZE", "STRIPE_COUNT", "STRIPE_PATTERN", "FLAGS", "EXT_START", "EXT_END", "MIRROR_ID"];
    let place = place(log, record.id);
    let emit = |out: &mut String, counter: &str, value: &str| {
        line(out, "LUSTRE", record.rank, record.id, counter, value, &place);
    };
    emit(out, "LUSTRE_NUM_COMPONENTS", &record.components.len().to_string());
    emit(out, "LUSTRE_NUM_STRIPES", &record.ost_ids.len().to_string());
    let mut ost = record.ost_ids.iter();
    for (index, component) in record.components.iter().enumerate() {
        let number = index + 1;
        for (field, value) in COMPONENT.iter().zip(component.counters) {
            let text = match *field {
                "STRIPE_PATTERN" => lustre_pattern(value).to_string(),
                "FLAGS" => lustre_flags(value),
                _ => value.to_string(),
            };
            emit(out, &format!("LUSTRE_COMP{number}_{field}"), &text);
        }
        let pool = if component.pool.is_empty() { "N/A" } else { component.pool.as_str() };
        emit(out, &format!("LUSTRE_COMP{number}_POOL_NAME"), pool);
        for stripe in 0..component.counters[1].max(0) {
            // A damaged record can claim more stripes than it lists: print the listed ones.
            let Some(value) = ost.next() else { break };
            emit(out, &format!("LUSTRE_COMP{number}_OST_ID_{stripe}"), &value.to_string());
        }
    }
}

fn heatmap_record(out: &mut String, log: &DarshanLog, record: &HeatmapRecord) {
    let place = place(log, record.id);
    let emit = |out: &mut String, counter: &str, value: &str| {
        line(out, "HEATMAP", record.rank, record.id, counter, value, &place);
    };
    emit(out, "HEATMAP_F_BIN_WIDTH_SECONDS", &format!("{:.6}", record.bin_width_seconds));
    for (bin, value) in record.read_bins.iter().enumerate() {
        emit(out, &format!("HEATMAP_READ_BIN_{bin}"), &value.to_string());
    }
    for (bin, value) in record.write_bins.iter().enumerate() {
        emit(out, &format!("HEATMAP_WRITE_BIN_{bin}"), &value.to_string());
    }
}

/// The header part shared by `darshan-parser` and `darshan-dxt-parser`: version, job, metadata.
fn job_header(out: &mut String, log: &DarshanLog) {
    let job = &log.job;
    let _ = writeln!(out, "# darshan log version: {}", log.header.version);
    let _ = writeln!(out, "# compression method: {}", log.header.compression.name());
    let _ = writeln!(out, "# exe: {}", job.exe);
    let _ = writeln!(out, "# uid: {}", job.uid);
    let _ = writeln!(out, "# jobid: {}", job.jobid);
    let _ = writeln!(out, "# start_time: {}", job.start_time);
    let _ = writeln!(out, "# start_time_asci: {}", ctime_utc(job.start_time));
    let _ = writeln!(out, "# end_time: {}", job.end_time);
    let _ = writeln!(out, "# end_time_asci: {}", ctime_utc(job.end_time));
    let _ = writeln!(out, "# nprocs: {}", job.nprocs);
    let _ = writeln!(out, "# run time: {:.4}", log.run_time());
    for (key, value) in &job.metadata {
        let _ = writeln!(out, "# metadata: {key} = {value}");
    }
}

fn regions_and_mounts(out: &mut String, log: &DarshanLog) {
    out.push_str("\n# log file regions\n# -------------------------------------------------------\n");
    if log.file_size == 0 {
        // A log assembled in memory (records derived from a trace) has no regions.
        out.push_str("# none: the records were not read from a file\n");
        out.push_str("\n# mounted file systems (mount point and fs type)\n# -------------------------------------------------------\n");
        return;
    }
    let _ = writeln!(out, "# header: {} bytes (uncompressed)", crate::header::CURRENT_HEADER_SIZE);
    let _ = writeln!(out, "# job data: {} bytes (compressed)", log.header.job.length);
    let _ = writeln!(out, "# record table: {} bytes (compressed)", log.header.names.length);
    for module in &log.modules {
        if module.id < crate::module::MODULE_NAMES.len() {
            let _ = writeln!(
                out,
                "# {} module: {} bytes (compressed), ver={}",
                module.name, module.map.length, module.version
            );
        } else {
            let _ = writeln!(
                out,
                "# <UNKNOWN> module (id {}): {} bytes (compressed), ver={}",
                module.id, module.map.length, module.version
            );
        }
    }
    out.push_str("\n# mounted file systems (mount point and fs type)\n# -------------------------------------------------------\n");
    for mount in &log.job.mounts {
        let _ = writeln!(out, "# mount entry:\t{}\t{}", mount.path, mount.fs_type);
    }
}

const COLUMNS: &str = "\n# description of columns:
#   <module>: module responsible for this I/O record.
#   <rank>: MPI rank.  -1 indicates that the file is shared
#      across all processes and statistics are aggregated.
#   <record id>: hash of the record's file path
#   <counter name> and <counter value>: statistical counters.
#      A value of -1 indicates that Darshan could not monitor
#      that counter, and its value should be ignored.
#   <file name>: full file path for the record.
#   <mount pt>: mount point that the file resides on.
#   <fs type>: type of file system that the file resides on.
";

const INCOMPLETE: &str = "\n# *WARNING*: The {} module contains incomplete data!
#            This happens when a module runs out of
#            memory to store new record data.

# To avoid this error, consult the darshan-runtime
# documentation and consider setting the NAME_EXCLUDE
# variable in a run-time configuration file to prevent
# Darshan from instrumenting unnecessary files.
";

/// The `darshan-parser` text of `log` (as with `--show-incomplete`: modules flagged partial are
/// printed after a warning instead of ending the output).
pub fn dump(log: &DarshanLog, options: DumpOptions) -> String {
    let mut out = String::with_capacity(64 * 1024);
    if log.header.version == "3.20" {
        out.push_str("# WARNING: Darshan logs generated by runtime version 3.2.0 likely exhibit some corruption in counter values.\n");
        out.push_str("#          This bug clearly results in bogus values for some COMMON_ACCESS counters (POSIX, MPIIO, H5 modules),\n");
        out.push_str("#          but preceding data may also be corrupted.\n");
    }
    job_header(&mut out, log);
    regions_and_mounts(&mut out, log);
    out.push_str(COLUMNS);
    if log.modules.is_empty() {
        out.push_str("\n# no module data available.\n");
    }
    for module in &log.modules {
        if matches!(module.records, Records::Opaque | Records::Dxt(_) | Records::DxtOnDisk(_)) {
            continue;
        }
        out.push_str("\n# *******************************************************\n");
        let _ = writeln!(out, "# {} module data", module.name);
        out.push_str("# *******************************************************\n");
        if module.partial {
            out.push_str(&INCOMPLETE.replace("{}", module.name));
            if module.map.length == 0 {
                continue;
            }
        }
        out.push_str(&description(module.id));
        out.push_str(
            "\n#<module>\t<rank>\t<record id>\t<counter>\t<value>\t<file name>\t<mount pt>\t<fs type>\n",
        );
        match &module.records {
            Records::Counters(records) => {
                for record in records {
                    counter_record(&mut out, log, module.id, record);
                }
                if !matches!(module.id, id::POSIX | id::MPIIO | id::STDIO) {
                    continue;
                }
                if options.total {
                    out.push_str(&description(module.id));
                    out.push('\n');
                    let aggregate = summary::aggregate(module.id, records);
                    for name in &aggregate.overflowed {
                        let _ = writeln!(
                            out,
                            "# WARNING: total_{name} does not fit 64 bits (the records' values cannot all be \
                             right); shown as {}",
                            i64::MAX
                        );
                    }
                    for (name, value) in aggregate.values {
                        let _ = writeln!(out, "total_{name}: {value}");
                    }
                }
                let metrics = derived::Metrics::of(module.id, records, log.job.nprocs);
                if options.file {
                    metrics.write_file_counts(&mut out);
                }
                if options.perf {
                    metrics.write_performance(&mut out);
                }
            }
            Records::Lustre(records) => {
                for record in records {
                    lustre_record(&mut out, log, record);
                }
            }
            Records::Heatmap(records) => {
                for record in records {
                    heatmap_record(&mut out, log, record);
                }
            }
            Records::Dxt(_) | Records::DxtOnDisk(_) | Records::Opaque => {}
        }
    }
    out
}

fn dxt_record(out: &mut String, log: &DarshanLog, module_id: usize, version: u32, record: &DxtRecord) {
    let place = place(log, record.id);
    let posix = module_id == id::DXT_POSIX;
    let threaded = if posix { version > 1 } else { version > 2 };
    let threads = if threaded && !record.segments.is_empty() {
        let mut ids: Vec<u64> = record.segments.iter().filter_map(|segment| segment.pthread_id).collect();
        ids.sort_unstable();
        ids.dedup();
        ids.len()
    } else {
        1
    };
    let _ = writeln!(out, "\n# DXT, file_id: {}, file_name: {}", record.id, place.name);
    let _ = writeln!(out, "# DXT, rank: {}, hostname: {}", record.rank, record.hostname);
    let _ = writeln!(out, "# DXT, number of threads: {threads}");
    let _ = writeln!(out, "# DXT, write_count: {}, read_count: {}", record.write_count, record.read_count);
    let _ = writeln!(out, "# DXT, mnt_pt: {}, fs_type: {}", place.mount, place.fs_type);
    out.push_str("# Module    Rank  Wt/Rd  Segment          Offset          Length    Start(s)      End(s)   Pthread-ID\n");
    let label = if posix { "X_POSIX" } else { "X_MPIIO" };
    let mut write_index = 0;
    let mut read_index = 0;
    for segment in &record.segments {
        let (kind, index) = if segment.write {
            write_index += 1;
            ("write", write_index - 1)
        } else {
            read_index += 1;
            ("read", read_index - 1)
        };
        let _ = write!(
            out,
            "{label:>8}{:>8}{kind:>7}{index:>9}{:>16}{:>16}{:>12.4}{:>12.4}  ",
            record.rank, segment.offset, segment.length, segment.start, segment.end
        );
        match segment.pthread_id {
            Some(thread) if threaded => {
                let _ = writeln!(out, " {thread:>4}");
            }
            _ => out.push_str(" N/A\n"),
        }
    }
}

/// The `darshan-dxt-parser` text of `log`: the same job header, then one block per traced file
/// and rank with its calls.
pub fn dxt(log: &DarshanLog) -> String {
    let mut out = String::with_capacity(64 * 1024);
    job_header(&mut out, log);
    regions_and_mounts(&mut out, log);
    if !log.modules.iter().any(|module| matches!(module.records, Records::Dxt(_) | Records::DxtOnDisk(_))) {
        out.push_str("\n# no DXT module data available for this Darshan log.\n");
    }
    for module in &log.modules {
        if !matches!(module.records, Records::Dxt(_) | Records::DxtOnDisk(_)) {
            continue;
        }
        out.push_str("\n# ***************************************************\n");
        let _ = writeln!(out, "# {} module data", module.name);
        out.push_str("# ***************************************************\n");
        let read = log.for_each_dxt_record(module.id, |record| {
            dxt_record(&mut out, log, module.id, module.version, record);
            std::ops::ControlFlow::Continue(())
        });
        if let Err(error) = read {
            let _ = writeln!(out, "# ioscout: {error}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ctime_matches_the_c_library_in_utc() {
        assert_eq!(ctime_utc(1_762_569_885), "Sat Nov  8 02:44:45 2025");
        assert_eq!(ctime_utc(0), "Thu Jan  1 00:00:00 1970");
        assert_eq!(ctime_utc(1_619_109_091), "Thu Apr 22 16:31:31 2021");
    }

    #[test]
    fn lustre_flags_are_named() {
        assert_eq!(lustre_flags(0), "0");
        assert_eq!(lustre_flags(-1), "N/A");
        assert_eq!(lustre_flags(0b10001), "stale,init");
    }
}
