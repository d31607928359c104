//! The small state the replay keeps of a (process, file) whose file Darshan leaves out (under
//! `/proc/`, `/sys/`, `/usr/` and its other default exclusions, [`crate::excluded_by_darshan`]):
//! its records' bytes and its stream position, where a full state holds all of Darshan's
//! counters. It sits beside the full states of [`crate::fold::Replay`] and is finished in
//! [`crate::finish`].
//!
//! The log has no record of such a file: what is kept of it is whether each module would have
//! had a record, and the bytes those records read and wrote ([`crate::Derived::excluded_files`],
//! [`crate::Derived::all_bytes`]), and the stream position, since the access sample shows the
//! offsets of its reads and writes. That is some 40 bytes where a full state, with all of
//! Darshan's counters, is about a kilobyte; a job that reads the system's files (a Python
//! program's imports, a GPU runtime's `/sys` topology) has tens of thousands of such states.
//!
//! # Exactness
//!
//! A file's states are all kept this way or all in full, decided when its first call is
//! replayed: this way only when its path is known then and left out. A path, once known, never
//! changes (the hash tables keep the first text of a token), so the file is the one
//! [`crate::finish`] leaves out. The counts that decide a record and its bytes are the full
//! state's, through the same code ([`Position::data`], [`stdio::data_bytes`]): the tests replay
//! traces both ways and require the same result.

use crate::op::{Op, OpKind};
use crate::posix::{Approximations, Position};
use crate::stdio;

/// What the log and the sample keep of a (process, file) whose file Darshan leaves out.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ExcludedState {
    /// The POSIX stream's position.
    position: Position,
    /// A POSIX call was counted: the full state's record would be used.
    pub(crate) posix_used: bool,
    /// POSIX bytes read and written.
    pub(crate) posix_bytes: (i64, i64),
    /// A STDIO call was counted.
    pub(crate) stdio_used: bool,
    /// STDIO bytes read and written.
    pub(crate) stdio_bytes: (i64, i64),
}

impl ExcludedState {
    /// Applies one call as the full state would ([`crate::posix::PosixFile::apply`],
    /// [`crate::stdio::StdioFile::apply`]) for what is kept: for a POSIX read or write, returns
    /// the offset it was at and the bytes it moved.
    pub(crate) fn apply(&mut self, op: &Op) -> Option<(i64, i64)> {
        // What the full state would count as approximated: not kept (the log has no record).
        let mut approximations = Approximations::default();
        match op.kind {
            OpKind::PosixOpen => {
                self.position.open(true);
                self.position.append = op.append;
                self.posix_used = true;
            }
            OpKind::PosixDup => {
                self.position.open(false);
                self.posix_used = true;
            }
            OpKind::PosixRead | OpKind::PosixWrite => {
                let (offset, bytes) = self.position.data(op, &mut approximations)?;
                self.posix_used = true;
                add(&mut self.posix_bytes, op.kind == OpKind::PosixRead, bytes);
                return Some((offset, bytes));
            }
            OpKind::PosixSeek if !op.failed => {
                self.position.seek(op);
                self.posix_used = true;
            }
            OpKind::PosixStat
            | OpKind::PosixFsync
            | OpKind::PosixFdatasync
            | OpKind::PosixMmap
            | OpKind::PosixRename => self.posix_used = true,
            OpKind::StdioOpen | OpKind::StdioFdopen => self.stdio_used = true,
            OpKind::StdioRead | OpKind::StdioWrite | OpKind::StdioFlush => {
                if let Some(bytes) = stdio::data_bytes(op, &mut approximations) {
                    self.stdio_used = true;
                    add(&mut self.stdio_bytes, op.kind == OpKind::StdioRead, bytes);
                }
            }
            OpKind::StdioSeek if !op.failed => self.stdio_used = true,
            _ => {}
        }
        None
    }

    /// Counts this file as the target of a rename (which makes a POSIX record).
    pub(crate) fn renamed(&mut self) {
        self.posix_used = true;
    }

    /// The (read, written) bytes of each record the full state would have made.
    pub(crate) fn records(&self) -> impl Iterator<Item = (i64, i64)> {
        [self.posix_used.then_some(self.posix_bytes), self.stdio_used.then_some(self.stdio_bytes)]
            .into_iter()
            .flatten()
    }
}

fn add(bytes: &mut (i64, i64), read: bool, moved: i64) {
    let total = if read { &mut bytes.0 } else { &mut bytes.1 };
    *total = total.saturating_add(moved);
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;
    use std::ops::ControlFlow;
    use std::path::{Path, PathBuf};

    use ioscout_read::{ScanOptions, Scanner, discover};
    use proptest::prelude::*;

    use crate::fold::Replay;

    /// The files the calls name: two Darshan leaves out, two it keeps, and one left out whose
    /// `FH` record comes only in the last process's trace (so its first calls are replayed
    /// before its path is known, and its states are kept in full).
    const FILES: [(&str, &str); 5] = [
        ("fp", "/proc/self/maps"),
        ("fu", "/usr/lib/python3/os.py"),
        ("fd", "/data/input.h5"),
        ("fo", "/scratch/out.dat"),
        ("fl", "/sys/class/late"),
    ];

    /// Calls (name, whether STDIO, the args after `fhash`): every kind the replay tells apart,
    /// with failed, absurd, unknown and missing values among them.
    const CALLS: [(&str, bool, &str); 24] = [
        ("open64", false, r#""flags":66"#),
        ("open64", false, r#""flags":1089"#),
        ("dup2", false, r#""ret":5"#),
        ("read", false, r#""ret":4096"#),
        ("read", false, r#""ret":-1"#),
        ("read", false, ""),
        ("write", false, r#""ret":100"#),
        ("write", false, r#""ret":99999999999999999"#),
        ("pread64", false, r#""ret":512,"offset":8192"#),
        ("pread64", false, r#""ret":512"#),
        ("pwrite64", false, r#""ret":64,"offset":-5"#),
        ("lseek64", false, r#""whence":1,"offset":100"#),
        ("lseek64", false, r#""whence":2,"offset":0"#),
        ("lseek64", false, r#""ret":-1,"whence":0,"offset":0"#),
        ("__xstat", false, ""),
        ("fsync", false, ""),
        ("mmap", false, ""),
        ("close", false, ""),
        ("rename", false, r#""newpath_hash":"fp""#),
        ("fopen", true, r#""mode":"a""#),
        ("fread", true, r#""ret":3,"size":10"#),
        ("fwrite", true, r#""ret":-1,"size":4"#),
        ("fflush", true, ""),
        ("fseek", true, r#""whence":0,"offset":7"#),
    ];

    /// Each process's calls: (file, call), by index into [`FILES`] and [`CALLS`].
    fn workload() -> impl Strategy<Value = Vec<Vec<(usize, usize)>>> {
        proptest::collection::vec(proptest::collection::vec((0..FILES.len(), 0..CALLS.len()), 1..40), 1..4)
    }

    /// Writes the calls as one trace per process (the `FH` records first, that of `fl` only in the
    /// last trace) and returns the folder.
    fn write_traces(workload: &[Vec<(usize, usize)>], case: &str) -> PathBuf {
        let folder =
            std::env::temp_dir().join(format!("ioscout-evidence-excluded-{}-{case}", std::process::id()));
        let _ = std::fs::remove_dir_all(&folder);
        let _ = std::fs::create_dir_all(&folder);
        for (process, calls) in workload.iter().enumerate() {
            let pid = 100 + process;
            let mut text = String::new();
            for (token, path) in FILES {
                if token != "fl" || process + 1 == workload.len() {
                    let _ = writeln!(
                        text,
                        r#"{{"name":"FH","cat":"dftracer","pid":{pid},"tid":{pid},"ph":"M","args":{{"name":"{path}","value":"{token}"}}}}"#
                    );
                }
            }
            for (index, &(file, call)) in calls.iter().enumerate() {
                let (name, stdio, args) = CALLS[call];
                let category = if stdio { "STDIO" } else { "POSIX" };
                let separator = if args.is_empty() { "" } else { "," };
                let _ = writeln!(
                    text,
                    r#"{{"id":{index},"name":"{name}","cat":"{category}","pid":{pid},"tid":{pid},"ts":{},"dur":3,"ph":"X","args":{{"fhash":"{}"{separator}{args}}}}}"#,
                    1_000_000 + index * 10,
                    FILES[file].0
                );
            }
            let _ = std::fs::write(folder.join(format!("trace-{process}.pfw")), text);
        }
        folder
    }

    /// `replay` after it consumed the traces in `folder`, with the traces.
    fn replayed(folder: &Path, mut replay: Replay) -> (Replay, Vec<ioscout_read::TraceFile>) {
        let (files, problems) = discover(&[folder]);
        let buffers = replay.buffers();
        Scanner::new(ScanOptions::default()).scan(
            &files,
            &problems,
            |_| buffers.fold(),
            |file, fold, span| {
                let path = files.get(file).map_or(Path::new(""), |trace| trace.path.as_path());
                replay.consume(file, path, fold, span.line_base);
                ControlFlow::Continue(())
            },
        );
        (replay, files)
    }

    /// What the replay derives from the traces in `folder`, with every state in full or not.
    fn derived(folder: &Path, all_in_full: bool) -> String {
        let replay = Replay::sampling(1000, 100);
        let (replay, files) = replayed(folder, if all_in_full { replay.all_in_full() } else { replay });
        let mut derived = crate::finish(replay, &files, folder);
        // The log's index of names is a hash map (its order differs from one map to the next);
        // the names and records, in order, are compared instead.
        let (names, modules, job) =
            (derived.log.names.clone(), derived.log.modules.clone(), derived.log.job.clone());
        derived.log = ioscout_darshan::DarshanLog::in_memory(
            folder,
            ioscout_darshan::Job::default(),
            Vec::new(),
            Vec::new(),
            Vec::new(),
        );
        format!("{names:?} {modules:?} {job:?} {derived:?}")
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// The small states give what the full ones give: the log, the files left out with their
        /// bytes, every file's bytes, the sample's offsets, the approximations.
        #[test]
        fn small_states_derive_what_full_states_derive(workload in workload()) {
            let case = format!("{}-{}", workload.len(), workload.iter().flatten().map(|(file, call)| file * 31 + call).sum::<usize>());
            let folder = write_traces(&workload, &case);
            let (small, full) = (derived(&folder, false), derived(&folder, true));
            let _ = std::fs::remove_dir_all(&folder);
            prop_assert_eq!(small, full);
        }
    }

    /// The test above can fail: the states of files left out are kept small (their records are
    /// not in the log, but their bytes are), and a change to what is kept shows.
    #[test]
    fn files_left_out_are_kept_small_and_their_bytes_counted() {
        let workload = vec![vec![(0, 0), (0, 3), (1, 19), (1, 20), (2, 0), (2, 3)]];
        let folder = write_traces(&workload, "fixed");
        let (replay, files) = replayed(&folder, Replay::default());
        let _ = std::fs::remove_dir_all(&folder);
        assert_eq!(replay.excluded.iter().count(), 2);
        let derived = crate::finish(replay, &files, &folder);
        assert_eq!(
            derived.excluded_files,
            vec![("/proc/self/maps".to_string(), 4096, 0), ("/usr/lib/python3/os.py".to_string(), 30, 0)]
        );
        assert_eq!(derived.all_bytes, (4096 * 2 + 30, 0));
    }
}
