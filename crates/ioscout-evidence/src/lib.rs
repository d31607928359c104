//! Darshan's per-file counters derived from a DFTracer trace: the evidence stage between the
//! reader and the diagnosis. A trace holds every call with its offset, size and time; replaying
//! those calls with the rules of Darshan's runtime gives the records a Darshan log would hold
//! for the same run (POSIX and STDIO, per process and file, shared files reduced to rank -1), so
//! that every Darshan rule reasons on a trace exactly as on a log, and `darshan summary`/`dump`
//! print them. Alongside: metadata time by operation ([`metadata`]).
//!
//! # Flow
//!
//! [`derive`] scans the trace with [`fold::EvidenceFold`] (calls reduced to [`op::Op`]s),
//! replays the ops in file order ([`fold::Replay`], [`posix`], [`stdio`]), maps processes to
//! ranks, reduces files every process opened ([`reduce`]) and assembles a
//! [`ioscout_darshan::DarshanLog`] in memory ([`Derived::log`]).
//!
//! # Processes and ranks
//!
//! A process is a `pid` of the trace. Its rank is its `PR rank` metadata when every process has
//! one; otherwise processes are numbered in ascending `pid` order (Open MPI and most launchers
//! start ranks in order, so this usually matches, but it is not guaranteed: the output says
//! which rule was used). A file is shared when more than one process exists and every process
//! has a record of it, as Darshan decides it over `MPI_COMM_WORLD`.
//!
//! # What differs from Darshan, by rule
//!
//! - Timestamps are seconds since the trace's first call, not since Darshan's start-up.
//! - `POSIX_FILE_ALIGNMENT` is assumed ([`posix::ASSUMED_FILE_ALIGNMENT`]); memory alignment is
//!   not in a trace (`POSIX_MEM_ALIGNMENT` and `POSIX_MEM_NOT_ALIGNED` are -1).
//! - A failed `open` cannot be told from a good one (DFTracer's `open` events carry no `ret`).
//! - Files under Darshan's default exclusions (`/etc/`, `/usr/`, `/proc/`, ...) are kept apart
//!   ([`Derived::excluded_files`]) and left out of the log, as Darshan leaves them out.

pub mod access;
pub mod common;
mod excluded;
pub mod fold;
pub mod metadata;
pub mod op;
mod packed;
pub mod posix;
pub mod reduce;
pub mod sample;
pub mod shape;
pub mod stdio;

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use ioscout_darshan::{CounterRecord, DarshanLog, Job, Records, id};
use ioscout_read::{InputProblem, ScanReport, Scanner, TraceFile};

pub use crate::fold::{Buffers, EvidenceFold, Replay, UnusableCall};
use crate::metadata::{Family, Operation};
use crate::op::FileKey;
use crate::posix::Approximations;
use crate::reduce::{Layout, RankRecord};

/// Path prefixes Darshan does not record by default (darshan-runtime `darshan-config.c`).
pub const DARSHAN_EXCLUDED_PREFIXES: [&str; 11] =
    ["/etc/", "/dev/", "/usr/", "/bin/", "/boot/", "/lib/", "/opt/", "/sbin/", "/sys/", "/proc/", "/var/"];

/// Whether Darshan leaves `path` out by default.
pub fn excluded_by_darshan(path: &str) -> bool {
    DARSHAN_EXCLUDED_PREFIXES.iter().any(|prefix| path.starts_with(prefix))
}

/// How processes were numbered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum RankRule {
    /// From every process's `PR rank` metadata.
    Metadata,
    /// In ascending `pid` order.
    PidOrder,
}

/// One traced process.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Process {
    /// The `pid`.
    pub pid: i64,
    /// The rank given to it.
    pub rank: i64,
}

/// A (process, file) record whose counters were approximated, with the first call that made it so.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct ApproximatedRecord {
    /// The file.
    pub path: String,
    /// The process.
    pub pid: i64,
    /// What was approximated, by reason.
    pub approximations: Approximations,
    /// The trace file holding the first approximated call.
    pub trace: Option<PathBuf>,
    /// That call's line in the trace file (from 1).
    pub line: Option<u64>,
}

/// Darshan records derived from a trace, with what could not be derived exactly.
#[derive(Clone, Debug)]
pub struct Derived {
    /// The records as a Darshan log (POSIX and STDIO modules; Darshan's excluded paths left out).
    pub log: DarshanLog,
    /// Every traced process and its rank.
    pub processes: Vec<Process>,
    /// How ranks were given.
    pub rank_rule: RankRule,
    /// Metadata calls by operation, most time first.
    pub operations: Vec<Operation>,
    /// What was approximated, summed over the records of the log (excluded files not counted).
    pub approximations: Approximations,
    /// The records with approximations (the first 50).
    pub approximated_records: Vec<ApproximatedRecord>,
    /// Calls that could not be tied to a file, process or time.
    pub unusable_calls: u64,
    /// The first of those, with where they are.
    pub unusable_examples: Vec<UnusableCall>,
    /// Files left out as Darshan leaves them out (under [`DARSHAN_EXCLUDED_PREFIXES`]), with
    /// their records' bytes read and written.
    pub excluded_files: Vec<(String, i64, i64)>,
    /// The trace's first call, in microseconds (the time origin of the timestamps).
    pub time_origin_us: i64,
    /// Calls replayed.
    pub calls: u64,
    /// POSIX and STDIO bytes read and written over every record, excluded files included.
    pub all_bytes: (i64, i64),
    /// The shape of each data class with calls (op-count-bound or bandwidth-bound).
    pub shapes: Vec<shape::Shape>,
    /// The access pattern of every file of the log with POSIX reads or writes, most bytes first.
    pub files: Vec<FileRow>,
    /// A sample of the POSIX reads and writes with their offsets, when the replay kept one
    /// ([`Replay::sampling`]).
    pub accesses: Option<sample::AccessSample>,
}

/// The access pattern of one file over all its processes.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct FileRow {
    /// The path.
    pub path: String,
    /// Processes with a record of it.
    pub processes: u64,
    /// POSIX reads.
    pub reads: i64,
    /// POSIX writes.
    pub writes: i64,
    /// Bytes read.
    pub bytes_read: i64,
    /// Bytes written.
    pub bytes_written: i64,
    /// Share of the requests at a higher offset than the previous one (Darshan's sequential).
    pub sequential_share: f64,
    /// Share of the requests starting right after the previous one (Darshan's consecutive).
    pub consecutive_share: f64,
    /// Distinct offsets the requests start at.
    pub distinct_offsets: u64,
    /// `distinct_offsets` is a lower bound (more than [`access::CAP`]).
    pub distinct_offsets_lower_bound: bool,
    /// Bytes read that had been read before (by any process).
    pub reread_bytes: i64,
    /// `reread_bytes` is a lower bound (more than [`access::CAP`] disjoint ranges read).
    pub reread_lower_bound: bool,
    /// The most common request sizes with their counts (Darshan's four common access sizes,
    /// merged over processes).
    pub top_sizes: Vec<(i64, i64)>,
}

fn file_row(path: &str, ranked: &[RankRecord], access: Option<&access::FileAccess>) -> Option<FileRow> {
    use posix::ix;
    let sum = |index: usize| ranked.iter().map(|record| record.counters[index]).fold(0, i64::saturating_add);
    let (reads, writes) = (sum(ix::READS), sum(ix::WRITES));
    let requests = reads.saturating_add(writes);
    if requests == 0 {
        return None;
    }
    let share = |count: i64| count as f64 / requests as f64;
    let mut values = [0; 4];
    let mut counts = [0; 4];
    for record in ranked {
        for slot in 0..4 {
            common::merge_common(
                &mut values,
                &mut counts,
                record.counters[ix::ACCESS1_ACCESS + slot],
                record.counters[ix::ACCESS1_COUNT + slot],
            );
        }
    }
    Some(FileRow {
        path: path.to_string(),
        processes: ranked.len() as u64,
        reads,
        writes,
        bytes_read: sum(ix::BYTES_READ),
        bytes_written: sum(ix::BYTES_WRITTEN),
        sequential_share: share(sum(ix::SEQ_READS).saturating_add(sum(ix::SEQ_WRITES))),
        consecutive_share: share(sum(ix::CONSEC_READS).saturating_add(sum(ix::CONSEC_WRITES))),
        distinct_offsets: access.map_or(0, access::FileAccess::distinct_offsets),
        distinct_offsets_lower_bound: access.is_some_and(|access| access.offsets_capped),
        reread_bytes: access.map_or(0, |access| access.reread_bytes),
        reread_lower_bound: access.is_some_and(|access| access.reread_capped),
        top_sizes: values
            .iter()
            .zip(counts)
            .filter(|(value, _)| **value != 0)
            .map(|(value, count)| (*value, count))
            .collect(),
    })
}

/// A 64-bit FNV-1a hash of a path: the record id of a derived record (Darshan hashes paths with
/// its own function; ids only need to be stable and distinct here).
pub fn record_id(path: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in path.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// Scans `files` and derives their Darshan records. `source` names the input in the log.
pub fn derive(
    scanner: &Scanner,
    files: &[TraceFile],
    problems: &[InputProblem],
    source: &Path,
) -> (Derived, ScanReport) {
    let mut replay = Replay::default();
    let buffers = replay.buffers();
    let report = scanner.scan(
        files,
        problems,
        |_| buffers.fold(),
        |file, fold, span| {
            let path = files.get(file).map_or(Path::new(""), |trace| trace.path.as_path());
            replay.consume(file, path, fold, span.line_base);
            ControlFlow::Continue(())
        },
    );
    (finish(replay, files, source), report)
}

/// The path of a file key: an FH record's path, the inline path, or the hash token itself.
fn path_of(key: &FileKey, replay: &Replay) -> String {
    match key {
        FileKey::Path(path) => path.to_string(),
        FileKey::None => String::new(),
        FileKey::Hash(token) => replay
            .metadata
            .tables
            .files
            .get(token.as_ref())
            .cloned()
            .unwrap_or_else(|| format!("<fhash {token}>")),
    }
}

fn ranks(replay: &Replay) -> (Vec<Process>, RankRule) {
    let mut pids = replay.pids.clone();
    pids.sort_unstable();
    let from_metadata: Option<Vec<Process>> = pids
        .iter()
        .map(|&pid| {
            let rank = replay.metadata.processes.get(&pid)?.rank.as_deref()?.trim().parse::<i64>().ok()?;
            Some(Process { pid, rank })
        })
        .collect();
    match from_metadata {
        Some(processes) if !processes.is_empty() => (processes, RankRule::Metadata),
        _ => (
            pids.iter().enumerate().map(|(rank, &pid)| Process { pid, rank: rank as i64 }).collect(),
            RankRule::PidOrder,
        ),
    }
}

/// The records of everything `replay` has consumed (`files` are the scanned files, to name them
/// in approximations; `source` names the input).
pub fn finish(mut replay: Replay, files: &[TraceFile], source: &Path) -> Derived {
    let (processes, rank_rule) = ranks(&replay);
    let origin = replay.first_ts.unwrap_or(0);
    let paths: Vec<String> = replay.files.items.iter().map(|key| path_of(key, &replay)).collect();
    for (pid, target, source_file) in std::mem::take(&mut replay.renames) {
        if replay.is_excluded(target) {
            replay.excluded.get(pid, target).renamed();
            continue;
        }
        let from = record_id(&paths[source_file as usize]) as i64;
        let state = replay.states.get(pid, target);
        state.posix.get_or_insert_with(posix::PosixFile::default).renamed_from(from);
    }
    let per_file = records_by_file(&mut replay, &processes, &paths, files);
    replay.access.iter_mut().flatten().for_each(|access| access.settle());
    let mut file_rows: Vec<FileRow> = per_file
        .posix
        .iter()
        .filter(|(file, _)| !excluded_by_darshan(&paths[*file as usize]))
        .filter_map(|(file, ranked)| {
            file_row(
                &paths[*file as usize],
                ranked,
                replay.access.get(*file as usize).and_then(Option::as_deref),
            )
        })
        .collect();
    file_rows.sort_by(|a, b| {
        (b.bytes_read + b.bytes_written)
            .cmp(&(a.bytes_read + a.bytes_written))
            .then_with(|| a.path.cmp(&b.path))
    });
    let nprocs = processes.len().max(1);
    let mut modules_out = ModuleRecords::default();
    let posix_records = modules_out.records(per_file.posix, Layout::Posix, &paths, nprocs);
    let stdio_records = modules_out.records(per_file.stdio, Layout::Stdio, &paths, nprocs);
    let mut modules = Vec::new();
    if !posix_records.is_empty() {
        modules.push((id::POSIX, Records::Counters(posix_records)));
    }
    if !stdio_records.is_empty() {
        modules.push((id::STDIO, Records::Counters(stdio_records)));
    }
    let job = job(&replay, origin, nprocs, source);
    let log =
        DarshanLog::in_memory(source, job, modules_out.names.into_iter().collect(), modules, Vec::new());
    Derived {
        log,
        processes,
        rank_rule,
        operations: operations(&replay, &paths),
        approximations: per_file.approximations,
        approximated_records: per_file.approximated,
        unusable_calls: replay.unusable_count,
        unusable_examples: std::mem::take(&mut replay.unusable),
        excluded_files: per_file
            .excluded
            .into_iter()
            .map(|(path, (read, written))| (path, read, written))
            .collect(),
        time_origin_us: origin,
        calls: replay.ops,
        all_bytes: per_file.all_bytes,
        shapes: ["posix_read", "posix_write", "stdio_read", "stdio_write"]
            .iter()
            .zip(&replay.shapes)
            .filter_map(|(class, sums)| sums.shape(class))
            .collect(),
        files: file_rows,
        accesses: replay.sample.take().map(|mut sample| {
            sample.finish(&paths);
            sample
        }),
    }
}

/// The job record of derived records: the trace's first and last times, the processes, the
/// traced command line.
fn job(replay: &Replay, origin: i64, nprocs: usize, source: &Path) -> Job {
    let last = replay.last_end.unwrap_or(origin);
    Job {
        start_time: origin.div_euclid(1_000_000),
        start_time_nsec: origin.rem_euclid(1_000_000) * 1000,
        end_time: last.div_euclid(1_000_000),
        end_time_nsec: last.rem_euclid(1_000_000) * 1000,
        nprocs: nprocs as i64,
        jobid: -1,
        metadata: vec![("source".to_string(), "derived from a DFTracer trace by ioscout".to_string())],
        exe: command_line(replay).unwrap_or_else(|| source.display().to_string()),
        ..Job::default()
    }
}

/// Each (process, file)'s records, grouped by file in file order (each file's records in process
/// order), with what was approximated.
#[derive(Default)]
struct PerFile {
    posix: Vec<(u32, Vec<RankRecord>)>,
    stdio: Vec<(u32, Vec<RankRecord>)>,
    approximations: Approximations,
    approximated: Vec<ApproximatedRecord>,
    all_bytes: (i64, i64),
    /// The files Darshan leaves out, with the bytes their records read and wrote (no records
    /// are made for them).
    excluded: BTreeMap<String, (i64, i64)>,
}

/// An approximated (process, file) record while the records are made.
struct Approximated {
    key: (i64, u32),
    approximations: Approximations,
    /// The trace file index and line of its first approximated call.
    first: Option<(usize, u64)>,
}

/// How many approximated (process, file) records are named, the first by (process, file).
const NAMED_APPROXIMATED: usize = 50;

/// Finishes every (process, file) state into its POSIX and STDIO records (timestamps made
/// relative to the trace's first call). The states come file by file, so each file's records are
/// gathered in one run and stored once (no table of growing lists).
fn records_by_file(
    replay: &mut Replay,
    processes: &[Process],
    paths: &[String],
    files: &[TraceFile],
) -> PerFile {
    let rank_of: BTreeMap<i64, i64> = processes.iter().map(|process| (process.pid, process.rank)).collect();
    let origin = replay.first_ts.unwrap_or(0);
    // Timestamps are kept in the replay's clock; the origin in the same clock.
    let origin_s = replay.base_us.map_or(0.0, |base| origin.saturating_sub(base) as f64 / 1e6);
    let mut out = PerFile::default();
    // Every approximated record with where its first approximation is: the first by (process,
    // file) are named once all are known.
    let mut approximated: Vec<Approximated> = Vec::new();
    let (mut posix_run, mut stdio_run) = (Vec::new(), Vec::new());
    let mut run_file = None;
    // The run's file is one Darshan leaves out: the bytes of its records so far, if any.
    let mut excluded_run: Option<Option<(i64, i64)>> = None;
    let mut states = std::mem::take(&mut replay.states);
    for index in states.order_by_file() {
        let Some((&(pid, file), state)) = states.at(index) else { continue };
        if run_file != Some(file) {
            if let Some(done) = run_file {
                end_file(done, (&mut posix_run, &mut stdio_run), excluded_run.flatten(), paths, &mut out);
            }
            run_file = Some(file);
            excluded_run = excluded_by_darshan(&paths[file as usize]).then_some(None);
        }
        if let Some(bytes) = excluded_run.as_mut() {
            excluded_bytes(state, bytes, &mut out.all_bytes);
            continue;
        }
        let rank = rank_of.get(&pid).copied().unwrap_or(-1);
        let mut record_approximations = Approximations::default();
        if let Some(posix_file) = state.posix.as_mut()
            && posix_file.is_used()
        {
            posix_file.finish();
            record_approximations.add(&posix_file.approximations);
            out.all_bytes.0 = out.all_bytes.0.saturating_add(posix_file.counters[posix::ix::BYTES_READ]);
            out.all_bytes.1 = out.all_bytes.1.saturating_add(posix_file.counters[posix::ix::BYTES_WRITTEN]);
            rebase(&mut posix_file.fcounters, &POSIX_TIMESTAMPS, origin_s);
            posix_run.push(RankRecord {
                rank,
                counters: posix_file.counters.to_vec(),
                fcounters: posix_file.fcounters.to_vec(),
            });
        }
        if let Some(stdio_file) = state.stdio.as_mut()
            && stdio_file.is_used()
        {
            record_approximations.add(&stdio_file.approximations);
            out.all_bytes.0 = out.all_bytes.0.saturating_add(stdio_file.counters[stdio::ix::BYTES_READ]);
            out.all_bytes.1 = out.all_bytes.1.saturating_add(stdio_file.counters[stdio::ix::BYTES_WRITTEN]);
            rebase(&mut stdio_file.fcounters, &STDIO_TIMESTAMPS, origin_s);
            stdio_run.push(RankRecord {
                rank,
                counters: stdio_file.counters.to_vec(),
                fcounters: stdio_file.fcounters.to_vec(),
            });
        }
        out.approximations.add(&record_approximations);
        if record_approximations.total() > 0 {
            approximated.push(Approximated {
                key: (pid, file),
                approximations: record_approximations,
                first: state.first_approximation,
            });
        }
    }
    if let Some(done) = run_file {
        end_file(done, (&mut posix_run, &mut stdio_run), excluded_run.flatten(), paths, &mut out);
    }
    // The small states of files left out: their records' bytes, as the full ones' above.
    for ((_, file), state) in replay.excluded.iter() {
        for (read, written) in state.records() {
            add_excluded_bytes(&mut out, &paths[*file as usize], (read, written));
        }
    }
    // The keys are distinct: the first by (process, file), as a replay in that order named them.
    approximated.sort_unstable_by_key(|record| record.key);
    approximated.truncate(NAMED_APPROXIMATED);
    out.approximated = approximated
        .into_iter()
        .map(|Approximated { key: (pid, file), approximations, first }| {
            let (trace, line) = match first {
                Some((trace, line)) => (files.get(trace).map(|file| file.path.clone()), Some(line)),
                None => (None, None),
            };
            ApproximatedRecord { path: paths[file as usize].clone(), pid, approximations, trace, line }
        })
        .collect();
    out
}

/// Adds the bytes of a (process, file) state of a file Darshan leaves out to its file's (made
/// when it has a record: a POSIX or STDIO state that was used) and to every file's.
fn excluded_bytes(state: &fold::FileState, bytes: &mut Option<(i64, i64)>, all_bytes: &mut (i64, i64)) {
    let posix = state.posix.as_ref().filter(|posix| posix.is_used()).map(|posix| &posix.counters);
    let stdio = state.stdio.as_ref().filter(|stdio| stdio.is_used()).map(|stdio| &stdio.counters);
    let records = [
        posix.map(|counters| (counters[posix::ix::BYTES_READ], counters[posix::ix::BYTES_WRITTEN])),
        stdio.map(|counters| (counters[stdio::ix::BYTES_READ], counters[stdio::ix::BYTES_WRITTEN])),
    ];
    for (read, written) in records.into_iter().flatten() {
        all_bytes.0 = all_bytes.0.saturating_add(read);
        all_bytes.1 = all_bytes.1.saturating_add(written);
        let file = bytes.get_or_insert((0, 0));
        file.0 = file.0.saturating_add(read);
        file.1 = file.1.saturating_add(written);
    }
}

/// Ends the run of `file`: stores its POSIX and STDIO records, or, for a file Darshan leaves out,
/// the bytes of its records (`excluded`, when it had any).
fn end_file(
    file: u32,
    (posix_run, stdio_run): (&mut Vec<RankRecord>, &mut Vec<RankRecord>),
    excluded: Option<(i64, i64)>,
    paths: &[String],
    out: &mut PerFile,
) {
    end_run(file, posix_run, &mut out.posix);
    end_run(file, stdio_run, &mut out.stdio);
    if let Some(bytes) = excluded {
        add_bytes_of_excluded(out, &paths[file as usize], bytes);
    }
}

/// Adds the bytes of one record of a small state ([`crate::excluded`]) to its file's and to
/// every file's, as [`excluded_bytes`] adds a full state's.
fn add_excluded_bytes(out: &mut PerFile, path: &str, (read, written): (i64, i64)) {
    out.all_bytes.0 = out.all_bytes.0.saturating_add(read);
    out.all_bytes.1 = out.all_bytes.1.saturating_add(written);
    add_bytes_of_excluded(out, path, (read, written));
}

/// Adds `bytes` (read, written) to those of the left-out file at `path`.
fn add_bytes_of_excluded(out: &mut PerFile, path: &str, (read, written): (i64, i64)) {
    match out.excluded.get_mut(path) {
        Some(file) => {
            file.0 = file.0.saturating_add(read);
            file.1 = file.1.saturating_add(written);
        }
        None => {
            out.excluded.insert(path.to_string(), (read, written));
        }
    }
}

/// Stores the records gathered for `file` (if any) with their file, emptying `run` for the next.
fn end_run(file: u32, run: &mut Vec<RankRecord>, into: &mut Vec<(u32, Vec<RankRecord>)>) {
    if !run.is_empty() {
        // Of the run's length (the run keeps its room for the next file).
        let mut records = Vec::with_capacity(run.len());
        records.append(run);
        into.push((file, records));
    }
}

/// The module records of the log, with the names they use.
#[derive(Default)]
struct ModuleRecords {
    names: BTreeMap<u64, String>,
}

impl ModuleRecords {
    /// One module's records (of files Darshan keeps: [`records_by_file`] leaves the others out):
    /// files every process has (more than one) are reduced to their shared record, records
    /// sorted by rank and id.
    fn records(
        &mut self,
        by_file: Vec<(u32, Vec<RankRecord>)>,
        layout: Layout,
        paths: &[String],
        nprocs: usize,
    ) -> Vec<CounterRecord> {
        let mut records = Vec::new();
        for (file, ranked) in by_file {
            let path = &paths[file as usize];
            let id = record_id(path);
            self.names.insert(id, path.clone());
            let shared = nprocs > 1 && ranked.len() == nprocs;
            let ranked = if shared { reduce::reduce(layout, ranked).into_iter().collect() } else { ranked };
            records.extend(ranked.into_iter().map(|record| CounterRecord {
                id,
                rank: record.rank,
                file_record_id: None,
                counters: record.counters,
                fcounters: record.fcounters,
            }));
        }
        records.sort_by_key(|record| (record.rank, record.id));
        records
    }
}

/// The traced command line (the first process's `start` event's `cmd_hash` through `SH`, its
/// `;`-separated words joined by spaces).
fn command_line(replay: &Replay) -> Option<String> {
    let token = replay.commands.first()?;
    let text = replay.metadata.tables.strings.get(&ioscout_model::HashToken(token.clone()))?;
    Some(text.replace(';', " "))
}

const POSIX_TIMESTAMPS: [usize; 8] = [
    posix::ix::F_OPEN_START_TIMESTAMP,
    posix::ix::F_READ_START_TIMESTAMP,
    posix::ix::F_WRITE_START_TIMESTAMP,
    posix::ix::F_CLOSE_START_TIMESTAMP,
    posix::ix::F_OPEN_END_TIMESTAMP,
    posix::ix::F_READ_END_TIMESTAMP,
    posix::ix::F_WRITE_END_TIMESTAMP,
    posix::ix::F_CLOSE_END_TIMESTAMP,
];

const STDIO_TIMESTAMPS: [usize; 8] = [
    stdio::ix::F_OPEN_START_TIMESTAMP,
    stdio::ix::F_CLOSE_START_TIMESTAMP,
    stdio::ix::F_WRITE_START_TIMESTAMP,
    stdio::ix::F_READ_START_TIMESTAMP,
    stdio::ix::F_OPEN_END_TIMESTAMP,
    stdio::ix::F_CLOSE_END_TIMESTAMP,
    stdio::ix::F_WRITE_END_TIMESTAMP,
    stdio::ix::F_READ_END_TIMESTAMP,
];

/// Makes the set timestamps relative to the origin (zero stays zero: "never").
fn rebase(fcounters: &mut [f64], indices: &[usize], origin_s: f64) {
    for &index in indices {
        if fcounters[index] != 0.0 {
            fcounters[index] = (fcounters[index] - origin_s).max(0.0);
        }
    }
}

fn operations(replay: &Replay, paths: &[String]) -> Vec<Operation> {
    let family_of = |name: u32, kind| Family::of(&replay.names.items[name as usize], kind);
    let total: i64 = replay
        .operations
        .names()
        .filter(|&(name, kind, _)| family_of(name, kind) != Family::Process)
        .map(|(_, _, tally)| tally.time_us)
        .fold(0, i64::saturating_add);
    let mut per_name_files: BTreeMap<u32, (u64, Option<(i64, u32)>)> = BTreeMap::new();
    for (file, name, tally) in replay.operations.files() {
        let entry = per_name_files.entry(name).or_default();
        entry.0 += 1;
        if entry.1.is_none_or(|(time, best)| tally.time_us > time || (tally.time_us == time && file < best)) {
            entry.1 = Some((tally.time_us, file));
        }
    }
    let mut rows: Vec<Operation> = replay
        .operations
        .names()
        .map(|(name, kind, tally)| {
            let text = replay.names.items[name as usize].to_string();
            let (files, top) = per_name_files.get(&name).copied().unwrap_or_default();
            let family = Family::of(&text, kind);
            let share = if total > 0 && family != Family::Process {
                tally.time_us as f64 / total as f64
            } else {
                0.0
            };
            Operation {
                family,
                name: text,
                calls: tally.calls,
                time_s: tally.time_us as f64 / 1e6,
                share,
                failed: tally.failed,
                files,
                top_file: top.and_then(|(_, file)| {
                    (replay.files.items[file as usize] != FileKey::None).then(|| paths[file as usize].clone())
                }),
                top_file_time_s: top.map_or(0.0, |(time, _)| time as f64 / 1e6),
            }
        })
        .collect();
    // Metadata first (by time), process control after it.
    rows.sort_by(|a, b| {
        (a.family == Family::Process)
            .cmp(&(b.family == Family::Process))
            .then(b.time_s.total_cmp(&a.time_s))
            .then_with(|| a.name.cmp(&b.name))
    });
    rows
}
