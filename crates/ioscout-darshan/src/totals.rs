//! A log reduced to what a summary over many logs needs (`ioscout darshan summary --group-by`):
//! the job's identity (program, user, processes, job id), its run time, and the bytes and the
//! read, write and metadata time of its POSIX and STDIO records, in total and per file. MPI-IO,
//! HDF5 and `PnetCDF` are left out of the sums: their calls end in POSIX calls, which the POSIX
//! records already count (adding them would count the same I/O twice).

use serde::Serialize;

use crate::DarshanLog;
use crate::module::counter_names;

/// What logs are grouped by in a summary over many.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum GroupBy {
    /// The program (the file name of the command line's first word).
    #[default]
    Exe,
    /// The user id.
    User,
    /// The number of processes.
    Nprocs,
    /// The job id.
    Jobid,
}

impl GroupBy {
    /// The key of `job` in this grouping.
    pub fn key(self, job: &JobTotals) -> String {
        match self {
            GroupBy::Exe => job.program.clone(),
            GroupBy::User => job.uid.to_string(),
            GroupBy::Nprocs => job.nprocs.to_string(),
            GroupBy::Jobid => job.jobid.to_string(),
        }
    }

    /// The word for a group's key in a table heading.
    pub fn heading(self) -> &'static str {
        match self {
            GroupBy::Exe => "Program",
            GroupBy::User => "User id",
            GroupBy::Nprocs => "Processes",
            GroupBy::Jobid => "Job id",
        }
    }
}

/// What the top jobs and files (and the groups) are ranked by, most first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum RankBy {
    /// Read, write and metadata time, summed over processes.
    #[default]
    IoTime,
    /// Bytes read and written.
    Bytes,
    /// Metadata time, summed over processes.
    MetaTime,
}

impl RankBy {
    /// The value of `amounts` ranked by.
    pub fn of(self, amounts: &Amounts) -> f64 {
        match self {
            RankBy::IoTime => amounts.io_time_s(),
            RankBy::Bytes => amounts.bytes() as f64,
            RankBy::MetaTime => amounts.meta_time_s,
        }
    }

    /// The words for the metric in a heading.
    pub fn words(self) -> &'static str {
        match self {
            RankBy::IoTime => "I/O time",
            RankBy::Bytes => "bytes",
            RankBy::MetaTime => "metadata time",
        }
    }
}

/// What a job moved and how long its processes spent on it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Amounts {
    /// Bytes read.
    pub bytes_read: u64,
    /// Bytes written.
    pub bytes_written: u64,
    /// Seconds in reads, summed over processes.
    pub read_time_s: f64,
    /// Seconds in writes, summed over processes.
    pub write_time_s: f64,
    /// Seconds in metadata calls (open, stat, seek, close, ...), summed over processes.
    pub meta_time_s: f64,
}

impl Amounts {
    /// Bytes read and written.
    pub fn bytes(&self) -> u64 {
        self.bytes_read.saturating_add(self.bytes_written)
    }

    /// Read, write and metadata time.
    pub fn io_time_s(&self) -> f64 {
        self.read_time_s + self.write_time_s + self.meta_time_s
    }

    /// Adds `other`.
    pub fn add(&mut self, other: &Amounts) {
        self.bytes_read = self.bytes_read.saturating_add(other.bytes_read);
        self.bytes_written = self.bytes_written.saturating_add(other.bytes_written);
        self.read_time_s += other.read_time_s;
        self.write_time_s += other.write_time_s;
        self.meta_time_s += other.meta_time_s;
    }
}

/// One file (a record of POSIX or STDIO) of a job.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct FileTotals {
    /// The file's name (its name record), or its record id in hex when the log has no name.
    pub name: String,
    /// The module: `POSIX` or `STDIO`.
    pub module: &'static str,
    /// The rank, or -1 for a record shared by every rank.
    pub rank: i64,
    /// What was moved and how long it took.
    #[serde(flatten)]
    pub amounts: Amounts,
}

/// One job.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct JobTotals {
    /// The program: the file name of the command line's first word (`ior` of
    /// `/usr/bin/ior -a POSIX`); empty when the log has no command line.
    pub program: String,
    /// The whole command line as Darshan stored it.
    pub exe: String,
    /// User id.
    pub uid: i64,
    /// Processes.
    pub nprocs: i64,
    /// Job id.
    pub jobid: i64,
    /// Start time, seconds since the epoch.
    pub start_time: i64,
    /// Run time, seconds.
    pub run_time_s: f64,
    /// POSIX and STDIO records.
    pub files: usize,
    /// What the job moved (POSIX and STDIO).
    #[serde(flatten)]
    pub amounts: Amounts,
}

/// The program of a command line: the file name of its first word.
pub fn program_of(exe: &str) -> String {
    let first = exe.split_whitespace().next().unwrap_or_default();
    first.rsplit('/').next().unwrap_or(first).to_string()
}

/// The job's totals and its files' (POSIX and STDIO records; a counter Darshan did not monitor,
/// stored as -1, counts as 0).
pub fn totals(log: &DarshanLog) -> (JobTotals, Vec<FileTotals>) {
    let mut files = Vec::new();
    let mut amounts = Amounts::default();
    for (module, prefix) in [(crate::id::POSIX, "POSIX"), (crate::id::STDIO, "STDIO")] {
        let records = log.counter_records(module);
        let Some((names, float_names)) = counter_names(module) else { continue };
        let integer =
            |name: &str| names.iter().position(|candidate| *candidate == format!("{prefix}_{name}"));
        let float =
            |name: &str| float_names.iter().position(|candidate| *candidate == format!("{prefix}_{name}"));
        let (read, written) = (integer("BYTES_READ"), integer("BYTES_WRITTEN"));
        let (read_time, write_time, meta_time) =
            (float("F_READ_TIME"), float("F_WRITE_TIME"), float("F_META_TIME"));
        for record in records {
            let count = |index: Option<usize>| {
                index.and_then(|index| record.counters.get(index)).map_or(0, |value| (*value).max(0) as u64)
            };
            let seconds = |index: Option<usize>| {
                index.and_then(|index| record.fcounters.get(index)).map_or(0.0, |value| value.max(0.0))
            };
            let file = Amounts {
                bytes_read: count(read),
                bytes_written: count(written),
                read_time_s: seconds(read_time),
                write_time_s: seconds(write_time),
                meta_time_s: seconds(meta_time),
            };
            amounts.add(&file);
            files.push(FileTotals {
                name: log.name_or_id(record.id),
                module: prefix,
                rank: record.rank,
                amounts: file,
            });
        }
    }
    let job = JobTotals {
        program: program_of(&log.job.exe),
        exe: log.job.exe.clone(),
        uid: log.job.uid,
        nprocs: log.job.nprocs,
        jobid: log.job.jobid,
        start_time: log.job.start_time,
        run_time_s: log.run_time(),
        files: files.len(),
        amounts,
    };
    (job, files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_program_is_the_first_word_without_its_folder() {
        assert_eq!(program_of("/usr/bin/ior -a POSIX -b 1m"), "ior");
        assert_eq!(program_of("mdtest"), "mdtest");
        assert_eq!(program_of(""), "");
        assert_eq!(program_of("  ./a.out  x"), "a.out");
    }

    #[test]
    fn amounts_add_and_total() {
        let mut total = Amounts::default();
        let one = Amounts {
            bytes_read: 3,
            bytes_written: 4,
            read_time_s: 1.0,
            write_time_s: 2.0,
            meta_time_s: 0.5,
        };
        total.add(&one);
        total.add(&one);
        assert_eq!(total.bytes(), 14);
        assert!((total.io_time_s() - 7.0).abs() < 1e-12);
    }
}
