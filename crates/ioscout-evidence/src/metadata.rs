//! Metadata time by operation: every POSIX and STDIO call that moves no data (`open`, `close`,
//! the stat family, `lseek`, `unlink`, `rename`, `mkdir`, `opendir`, `fsync`, `ftruncate`,
//! `fcntl`, `access`, `fopen`, ...) counted with its time, in total and per file, so that the
//! diagnosis names the call that costs the time instead of a total. Filled by the replay
//! ([`crate::fold::Replay`]), read by [`crate::Derived`].

use crate::op::{Op, OpKind};

/// The family a metadata call belongs to, for grouping and advice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// `open`, `openat`, `creat`, `fopen`, `fdopen`, `dup`.
    Open,
    /// `close`, `fclose`.
    Close,
    /// The stat family, `statfs`, `statvfs`.
    Stat,
    /// `lseek`, `fseek`, `ftell`, `rewind`.
    Seek,
    /// `fsync`, `fdatasync`, `fflush`, `sync`.
    Sync,
    /// `unlink`, `remove`, `unlinkat`.
    Unlink,
    /// `rename`, `renameat`.
    Rename,
    /// `mkdir`, `rmdir`.
    Directory,
    /// `opendir`, `readdir`, `closedir`, `scandir`.
    Listing,
    /// `access`, `faccessat`.
    Access,
    /// `ftruncate`, `truncate`, `fallocate`.
    Truncate,
    /// `fcntl`, `ioctl`.
    Control,
    /// `mmap`, `munmap`, `msync`.
    Map,
    /// Process control (`fork`, `waitpid`, `execve`, `clone`, ...): no I/O, kept apart from the
    /// metadata time.
    Process,
    /// Anything else (`chmod`, `chdir`, `link`, `readlink`, ...).
    Other,
}

impl Family {
    /// The family of call `name`.
    pub fn of(name: &str, kind: OpKind) -> Family {
        match kind {
            OpKind::PosixOpen | OpKind::PosixDup | OpKind::StdioOpen | OpKind::StdioFdopen => {
                return Family::Open;
            }
            OpKind::PosixClose | OpKind::StdioClose => return Family::Close,
            OpKind::PosixStat => return Family::Stat,
            OpKind::PosixSeek | OpKind::StdioSeek | OpKind::StdioTell => return Family::Seek,
            OpKind::PosixFsync | OpKind::PosixFdatasync | OpKind::StdioFlush => return Family::Sync,
            OpKind::PosixRename => return Family::Rename,
            OpKind::PosixMmap => return Family::Map,
            _ => {}
        }
        match name {
            "unlink" | "unlinkat" | "remove" => Family::Unlink,
            "mkdir" | "mkdirat" | "rmdir" => Family::Directory,
            "opendir" | "fdopendir" | "readdir" | "readdir64" | "closedir" | "scandir" | "scandir64"
            | "getdents" | "getdents64" => Family::Listing,
            "access" | "faccessat" | "euidaccess" => Family::Access,
            "ftruncate" | "ftruncate64" | "truncate" | "truncate64" | "fallocate" | "posix_fallocate" => {
                Family::Truncate
            }
            "fcntl" | "fcntl64" | "ioctl" => Family::Control,
            "munmap" | "msync" => Family::Map,
            "statfs" | "fstatfs" | "statvfs" | "fstatvfs" => Family::Stat,
            "sync" | "syncfs" => Family::Sync,
            "fork" | "vfork" | "clone" | "clone3" | "wait" | "waitpid" | "wait3" | "wait4" | "waitid"
            | "execve" | "execv" | "execvp" | "execl" | "execlp" | "posix_spawn" | "kill" | "exit"
            | "_exit" | "sleep" | "usleep" | "nanosleep" => Family::Process,
            _ => Family::Other,
        }
    }

    /// The family's name in outputs.
    pub fn name(self) -> &'static str {
        match self {
            Family::Open => "open",
            Family::Close => "close",
            Family::Stat => "stat",
            Family::Seek => "seek",
            Family::Sync => "sync",
            Family::Unlink => "unlink",
            Family::Rename => "rename",
            Family::Directory => "directory",
            Family::Listing => "listing",
            Family::Access => "access",
            Family::Truncate => "truncate",
            Family::Control => "control",
            Family::Map => "map",
            Family::Process => "process",
            Family::Other => "other",
        }
    }
}

/// Calls and time of one operation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Calls.
    pub calls: u64,
    /// Summed duration in microseconds.
    pub time_us: i64,
    /// Calls that returned an error.
    pub failed: u64,
}

/// Metadata calls by (function name) and by (file, function name), with names and files as the
/// replay's interned indices (dense, so both are tables indexed by them: a few names per file).
#[derive(Debug, Default)]
pub struct OperationTable {
    by_name: Vec<Option<(OpKind, Tally)>>,
    by_file: Vec<Vec<(u32, Tally)>>,
}

impl OperationTable {
    /// Counts `op` when it is a metadata call.
    pub fn add(&mut self, op: &Op) {
        if op.kind.is_data() {
            return;
        }
        let time = op.end - op.start;
        let add = |tally: &mut Tally| {
            tally.calls += 1;
            tally.time_us = tally.time_us.saturating_add(time);
            tally.failed += u64::from(op.failed);
        };
        let (name, file) = (op.name as usize, op.file as usize);
        if self.by_name.len() <= name {
            self.by_name.resize(name + 1, None);
        }
        add(&mut self.by_name[name].get_or_insert((op.kind, Tally::default())).1);
        if self.by_file.len() <= file {
            self.by_file.resize_with(file + 1, Vec::new);
        }
        let names = &mut self.by_file[file];
        if let Some((_, tally)) = names.iter_mut().find(|(seen, _)| *seen == op.name) {
            add(tally);
        } else {
            let mut tally = Tally::default();
            add(&mut tally);
            names.push((op.name, tally));
        }
    }

    /// Every name with its kind (of its first call) and tally.
    pub fn names(&self) -> impl Iterator<Item = (u32, OpKind, Tally)> + '_ {
        self.by_name
            .iter()
            .enumerate()
            .filter_map(|(name, entry)| entry.map(|(kind, tally)| (name as u32, kind, tally)))
    }

    /// Every (file, name) with its tally.
    pub fn files(&self) -> impl Iterator<Item = (u32, u32, Tally)> + '_ {
        self.by_file
            .iter()
            .enumerate()
            .flat_map(|(file, names)| names.iter().map(move |&(name, tally)| (file as u32, name, tally)))
    }
}

/// One row of the per-operation table in outputs.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Operation {
    /// The function (`unlink`, `__xstat64`, `openat`, ...).
    pub name: String,
    /// Its family.
    pub family: Family,
    /// Calls.
    pub calls: u64,
    /// Summed time in seconds.
    pub time_s: f64,
    /// Share of all metadata time (0 for process control, which is not metadata).
    pub share: f64,
    /// Calls that returned an error.
    pub failed: u64,
    /// Files it touched.
    pub files: u64,
    /// The file where it took the most time.
    pub top_file: Option<String>,
    /// That file's time in seconds.
    pub top_file_time_s: f64,
}
