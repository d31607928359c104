//! The job region (user and job ids, start and end times, process count, `key=value` metadata,
//! the command line and the mount table) and the name-record region (record id to path).

use crate::bytes::{Cursor, fixed_string};

/// Length of the job's metadata field (`DARSHAN_JOB_METADATA_LEN`).
const METADATA_LENGTH: usize = 1024;

/// The job record.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Job {
    /// User id.
    pub uid: i64,
    /// Start time, seconds since the epoch.
    pub start_time: i64,
    /// Nanoseconds of the start time (format 3.41 and later; 0 before).
    pub start_time_nsec: i64,
    /// End time, seconds since the epoch.
    pub end_time: i64,
    /// Nanoseconds of the end time (format 3.41 and later; 0 before).
    pub end_time_nsec: i64,
    /// Number of processes.
    pub nprocs: i64,
    /// Scheduler job id.
    pub jobid: i64,
    /// The metadata lines, split at the first `=` (`lib_ver`, `h`, ...).
    pub metadata: Vec<(String, String)>,
    /// The command line.
    pub exe: String,
    /// Mounted file systems, longest mount point first (how Darshan matches paths to them).
    pub mounts: Vec<Mount>,
}

/// A mounted file system.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Mount {
    /// Mount point.
    pub path: String,
    /// File-system type (`lustre`, `gpfs`, `nfs`, `ext4`, ...).
    pub fs_type: String,
}

impl Job {
    /// Run time in seconds, as Darshan computes it: end minus start with nanoseconds from
    /// format 3.41 on, and `end - start + 1` (whole seconds) before.
    pub fn run_time(&self, minor: u32) -> f64 {
        if minor >= 41 {
            (self.end_time as f64 + self.end_time_nsec as f64 / 1e9)
                - (self.start_time as f64 + self.start_time_nsec as f64 / 1e9)
        } else {
            self.end_time.saturating_sub(self.start_time).saturating_add(1) as f64
        }
    }

    /// The value of metadata key `key`.
    pub fn metadata_value(&self, key: &str) -> Option<&str> {
        self.metadata.iter().find(|(name, _)| name == key).map(|(_, value)| value.as_str())
    }

    /// The mount a path lies on (the longest mount point that prefixes it).
    pub fn mount_of(&self, path: &str) -> Option<&Mount> {
        self.mounts.iter().find(|mount| path.starts_with(mount.path.as_str()))
    }
}

/// Decodes the decompressed job region; `None` when it is too short for the job record.
pub(crate) fn parse_job(bytes: &[u8], swapped: bool, minor: u32) -> Option<Job> {
    let mut cursor = Cursor::new(bytes, swapped);
    let mut job = Job { uid: cursor.i64()?, start_time: cursor.i64()?, ..Job::default() };
    if minor >= 41 {
        job.start_time_nsec = cursor.i64()?;
        job.end_time = cursor.i64()?;
        job.end_time_nsec = cursor.i64()?;
    } else {
        job.end_time = cursor.i64()?;
    }
    job.nprocs = cursor.i64()?;
    job.jobid = cursor.i64()?;
    let metadata = fixed_string(cursor.take(METADATA_LENGTH)?);
    job.metadata = metadata
        .split('\n')
        .filter_map(|line| line.split_once('=').map(|(key, value)| (key.to_string(), value.to_string())))
        .collect();
    let rest = cursor.take(cursor.remaining()).unwrap_or_default();
    let trailing = fixed_string(rest);
    let mut lines = trailing.split('\n');
    job.exe = lines.next().unwrap_or_default().to_string();
    for line in lines {
        let mut fields = line.split_whitespace();
        if let (Some(fs_type), Some(path)) = (fields.next(), fields.next()) {
            job.mounts.push(Mount { path: path.to_string(), fs_type: fs_type.to_string() });
        }
    }
    // Longest mount point first; equal lengths keep Darshan's order (a stable sort).
    job.mounts.sort_by_key(|mount| std::cmp::Reverse(mount.path.len()));
    Some(job)
}

/// Decodes the name records: `(id, path)` in file order. Format 3.00 stores a 32-bit length
/// before each path; later formats a NUL-terminated path. Returns the records and the number of
/// trailing bytes that did not form a whole record.
pub(crate) fn parse_names(bytes: &[u8], swapped: bool, minor: u32) -> (Vec<(u64, String)>, usize) {
    let mut cursor = Cursor::new(bytes, swapped);
    let mut names = Vec::new();
    while cursor.remaining() > 0 {
        let start = cursor.position();
        let Some(id) = cursor.u64() else { return (names, bytes.len() - start) };
        let path = if minor == 0 {
            let Some(length) = cursor.u32() else { return (names, bytes.len() - start) };
            let Some(path) = cursor.take(length as usize) else { return (names, bytes.len() - start) };
            String::from_utf8_lossy(path).into_owned()
        } else {
            let Some(path) = cursor.c_string() else { return (names, bytes.len() - start) };
            path
        };
        names.push((id, path));
    }
    (names, 0)
}
