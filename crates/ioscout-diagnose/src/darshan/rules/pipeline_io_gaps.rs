//! `PIPE-IO-GAPS`: a process alternates I/O with other work and waits for each, inferred from
//! the gaps between its calls (any trace or log with per-rank timestamps: no compute events or
//! asynchronous layers needed). [`io_gaps`] measures them; the advice bounds overlap with it.

use crate::darshan::{DarshanContext, DarshanRule, Module};
use crate::{Finding, RuleDoc, clip01, rule};
use ioscout_darshan::counters::{
    POSIX_F_CLOSE_END_TIMESTAMP, POSIX_F_META_TIME, POSIX_F_OPEN_START_TIMESTAMP, POSIX_F_READ_END_TIMESTAMP,
    POSIX_F_READ_START_TIMESTAMP, POSIX_F_READ_TIME, POSIX_F_SLOWEST_RANK_TIME, POSIX_F_WRITE_END_TIMESTAMP,
    POSIX_F_WRITE_START_TIMESTAMP, POSIX_F_WRITE_TIME, POSIX_FDSYNCS, POSIX_FSYNCS, POSIX_OPENS, POSIX_READS,
    POSIX_SEEKS, POSIX_STATS, POSIX_WRITES,
};

/// A gap between two I/O intervals of one process shorter than this is the caller's own cost
/// per call (an interpreter loop, a format library), not other work that could run beside I/O.
pub const MIN_GAP_S: f64 = 0.001;

/// What the gaps between one process's calls say: the process with the most I/O time.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct IoGaps {
    /// The rank (the process, for a trace's derived records).
    pub rank: i64,
    /// Its I/O time (reads, writes and metadata of the records that moved data), seconds.
    pub io_time_s: f64,
    /// Its read part.
    pub read_time_s: f64,
    /// Its write part (Darshan counts `fsync` time here).
    pub write_time_s: f64,
    /// Time between its I/O intervals in gaps of at least [`MIN_GAP_S`]: other work, seconds.
    pub other_work_s: f64,
    /// From its first I/O to its last, seconds.
    pub window_s: f64,
    /// The time overlapping I/O with that work could hide at most: min(I/O, other work).
    pub overlappable_s: f64,
    /// The write time a write-behind (an asynchronous checkpoint, a writer thread) could hide:
    /// each stretch of I/O's write time up to the work that follows it before the next stretch
    /// (a write can only run beside the work after it; the last stretch has none in the window).
    pub write_behind_s: f64,
    /// The read time a read-ahead (a reader thread, a data loader's workers) could hide: each
    /// stretch's read time up to the work before it since the previous stretch (a read can only
    /// be issued early beside the work before it; the first stretch has none in the window).
    pub read_ahead_s: f64,
    /// Time between its calls in gaps under [`MIN_GAP_S`]: the caller's own cost per call
    /// (an interpreter loop, a format library), which a change issuing fewer calls saves too.
    pub short_gaps_s: f64,
    /// Its calls in those records: reads, writes, opens, stats, seeks and syncs.
    pub calls: i64,
}

impl IoGaps {
    /// The caller's own time per call, seconds: its short gaps over its calls.
    pub fn overhead_per_call_s(&self) -> f64 {
        if self.calls > 0 { self.short_gaps_s / self.calls as f64 } else { 0.0 }
    }
}

/// One I/O interval of a record: start, end, busy seconds inside (and its read and write
/// parts), calls inside.
struct Interval {
    start: f64,
    end: f64,
    busy: f64,
    read: f64,
    write: f64,
    calls: i64,
}

/// Records whose windows overlap, one after the other in a process's time: a stretch of I/O.
struct Stretch {
    start: f64,
    end: f64,
    records: usize,
    read: f64,
    write: f64,
    /// The idle time inside its one record when that record's calls are on average a gap apart
    /// (a file read a block per step): other work inside the stretch.
    sparse_idle: f64,
}

/// A POSIX record's window: its first open, read or write start and its last close, read or
/// write end, seconds; `None` without a start timestamp or with an end before it.
fn window(context: &DarshanContext<'_>, record: &ioscout_darshan::CounterRecord) -> Option<(f64, f64)> {
    let start = [POSIX_F_OPEN_START_TIMESTAMP, POSIX_F_READ_START_TIMESTAMP, POSIX_F_WRITE_START_TIMESTAMP]
        .iter()
        .map(|&counter| context.fvalue(record, counter))
        .filter(|value| *value > 0.0)
        .fold(f64::INFINITY, f64::min);
    let end = [POSIX_F_CLOSE_END_TIMESTAMP, POSIX_F_READ_END_TIMESTAMP, POSIX_F_WRITE_END_TIMESTAMP]
        .iter()
        .map(|&counter| context.fvalue(record, counter))
        .fold(0.0, f64::max);
    (start.is_finite() && end >= start).then_some((start, end))
}

/// The gaps between the I/O of the process with the most I/O time, from its POSIX records' first
/// and last timestamps and times (a shared record, rank -1, has no one process's timeline and is
/// left out). `None` when no record with reads or writes has timestamps.
pub fn io_gaps(context: &DarshanContext<'_>) -> Option<IoGaps> {
    let mut by_rank: std::collections::BTreeMap<i64, Vec<Interval>> = std::collections::BTreeMap::new();
    for record in context.records(Module::Posix) {
        if record.rank < 0 {
            continue;
        }
        let calls = context.value(record, POSIX_READS).max(0) + context.value(record, POSIX_WRITES).max(0);
        if calls == 0 {
            continue;
        }
        let Some((start, end)) = window(context, record) else { continue };
        let read = context.fvalue(record, POSIX_F_READ_TIME).max(0.0);
        let write = context.fvalue(record, POSIX_F_WRITE_TIME).max(0.0);
        let meta = context.fvalue(record, POSIX_F_META_TIME).max(0.0);
        let entry = by_rank.entry(record.rank).or_default();
        let other_calls: i64 = [POSIX_OPENS, POSIX_STATS, POSIX_SEEKS, POSIX_FSYNCS, POSIX_FDSYNCS]
            .iter()
            .map(|&counter| context.value(record, counter).max(0))
            .fold(0, i64::saturating_add);
        entry.push(Interval {
            start,
            end,
            busy: read + write + meta,
            read,
            write,
            calls: calls.saturating_add(other_calls),
        });
    }
    by_rank
        .into_iter()
        .map(|(rank, mut intervals)| {
            // In record order, before sorting by time: the sums as the records give them.
            let read: f64 = intervals.iter().map(|interval| interval.read).sum();
            let write: f64 = intervals.iter().map(|interval| interval.write).sum();
            intervals.sort_by(|a, b| a.start.total_cmp(&b.start));
            let io: f64 = intervals.iter().map(|interval| interval.busy).sum();
            let window =
                intervals.first().zip(intervals.iter().map(|interval| interval.end).reduce(f64::max));
            let window_s = window.map_or(0.0, |(first, last)| (last - first.start).max(0.0));
            // Records whose windows overlap form one stretch of I/O; the time between stretches is
            // other work, and so is the idle time inside a stretch of one record whose calls are on
            // average a gap apart (a file read a block per step). Inside a stretch of several
            // records nothing is counted: their windows cover each other's idle time.
            let mut stretches: Vec<Stretch> = Vec::new();
            for interval in &intervals {
                let idle = (interval.end - interval.start - interval.busy).max(0.0);
                let data_calls = interval.calls.max(1);
                match stretches.last_mut() {
                    Some(stretch) if interval.start < stretch.end => {
                        stretch.end = stretch.end.max(interval.end);
                        stretch.records += 1;
                        stretch.read += interval.read;
                        stretch.write += interval.write;
                    }
                    _ => stretches.push(Stretch {
                        start: interval.start,
                        end: interval.end,
                        records: 1,
                        read: interval.read,
                        write: interval.write,
                        sparse_idle: if idle / data_calls as f64 >= MIN_GAP_S { idle } else { 0.0 },
                    }),
                }
            }
            // The work between stretches, in gaps of at least MIN_GAP_S: gap[i] lies between
            // stretch i and stretch i + 1.
            let between: Vec<f64> = stretches
                .windows(2)
                .map(|pair| {
                    let gap = pair[1].start - pair[0].end;
                    if gap >= MIN_GAP_S { gap } else { 0.0 }
                })
                .collect();
            let lone = |stretch: &Stretch| if stretch.records == 1 { stretch.sparse_idle } else { 0.0 };
            let lone_idle: f64 = stretches.iter().map(lone).sum();
            let other = (between.iter().sum::<f64>() + lone_idle).min((window_s - io).max(0.0));
            // Overlap by direction: a write hides behind the work after it, a read behind the
            // work before it; inside a lone sparse record the two alternate, and its idle time
            // bounds both.
            let mut write_behind = 0.0;
            let mut read_ahead = 0.0;
            for (index, stretch) in stretches.iter().enumerate() {
                let after = between.get(index).copied().unwrap_or(0.0);
                let before =
                    index.checked_sub(1).and_then(|previous| between.get(previous).copied()).unwrap_or(0.0);
                write_behind += stretch.write.min(after + lone(stretch));
                read_ahead += stretch.read.min(before + lone(stretch));
            }
            let calls = intervals.iter().map(|interval| interval.calls).fold(0, i64::saturating_add);
            IoGaps {
                short_gaps_s: (window_s - io - other).max(0.0),
                calls,
                rank,
                io_time_s: io,
                read_time_s: read,
                write_time_s: write,
                other_work_s: other,
                window_s,
                overlappable_s: io.min(other),
                write_behind_s: write_behind.min(other),
                read_ahead_s: read_ahead.min(other),
            }
        })
        .max_by(|a, b| a.io_time_s.total_cmp(&b.io_time_s))
}

/// What the files shared by several processes (Darshan's reduced records, rank -1) cost each
/// process: their calls and the caller's time between them. [`io_gaps`] leaves these records
/// out (they hold no one process's timeline); a change that aggregates the processes' requests
/// (collective buffering) removes the calls and the library's work around each.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct SharedFileCalls {
    /// Shared records that moved data.
    pub files: usize,
    /// Their reads and writes, all processes.
    pub requests: i64,
    /// Of those, the requests under 1 MiB.
    pub small_requests: i64,
    /// The slowest process's I/O time in them (reads, writes, metadata), summed over the
    /// records, the small requests' share of it: seconds.
    pub small_io_time_s: f64,
    /// The time between one process's calls inside the records whose calls are dense (on
    /// average under [`MIN_GAP_S`] apart per process): the caller's own work around each call
    /// (an MPI-IO library packing, locking, sieving), the small requests' share of it: seconds.
    pub small_caller_s: f64,
}

/// The shared records' calls and caller time per process. Each process is taken to spend a
/// record's window (its first open, read or write to its last) in it, the slowest process's I/O
/// time busy and the rest around its share of the calls; a record whose calls are on average
/// [`MIN_GAP_S`] or more apart per process holds other work between them, and no caller time is
/// counted for it. `None` when no shared record moved data, or the job has one process (a
/// record reduced to rank -1 is then that process's own).
pub fn shared_file_calls(context: &DarshanContext<'_>) -> Option<SharedFileCalls> {
    let processes = context.facts.nprocs;
    if processes < 2 {
        return None;
    }
    let mut shared = SharedFileCalls::default();
    for record in context.records(Module::Posix) {
        if record.rank >= 0 {
            continue;
        }
        let requests = context
            .value(record, POSIX_READS)
            .max(0)
            .saturating_add(context.value(record, POSIX_WRITES).max(0));
        if requests == 0 {
            continue;
        }
        let small = context
            .small(record, crate::Direction::Read)
            .max(0)
            .saturating_add(context.small(record, crate::Direction::Write).max(0))
            .min(requests);
        let small_share = small as f64 / requests as f64;
        let busy = context.fvalue(record, POSIX_F_SLOWEST_RANK_TIME).max(0.0);
        shared.files += 1;
        shared.requests = shared.requests.saturating_add(requests);
        shared.small_requests = shared.small_requests.saturating_add(small);
        shared.small_io_time_s += small_share * busy;
        if let Some((start, end)) = window(context, record) {
            let idle = (end - start - busy).max(0.0);
            let calls_per_process = (requests as f64 / processes as f64).max(1.0);
            if idle / calls_per_process < MIN_GAP_S {
                shared.small_caller_s += small_share * idle;
            }
        }
    }
    (shared.files > 0).then_some(shared)
}

rule! {
    pub struct IoGapsRule {
        code: "PIPE-IO-GAPS",
        family: Pipeline,
        title: "I/O and other work take turns: the process waits for its I/O between stretches of work (inferred from the gaps between its calls)",
        detects: "The process with the most I/O time whose I/O is separated by gaps of 1 ms or more (time in no I/O call: computation, communication, anything else), so that min(its I/O time, its gap time), the time overlapping the two could hide, is at least 5 % of the job. Inferred from each (process, file) record's first and last timestamps and its read, write and metadata times: it needs no compute events and no asynchronous layer, so it holds on a plain LD_PRELOAD trace and on a Darshan log.",
        why: "A loop that reads, then computes, then reads again (or computes, then writes a checkpoint and waits for it) leaves the storage idle during the work and the work idle during the I/O; a reader thread one step ahead, a data loader's workers or an asynchronous checkpoint hides the smaller of the two.",
        evidence: "the process, its I/O time (read and write parts), its gap time, the window from its first to its last I/O, the overlappable time and its share of the job.",
        thresholds: "fires when the overlappable time is at least 5 % of the job and the gaps are at least 10 % of the window; score = clip01(overlappable / job / 0.25). Gaps under 1 ms are the caller's cost per call, not other work.",
        references: "The optimisation pipeline's overlap rule (OVERLAP-1) and its compute/communication overlap dimension (D12) (GLANCED-IO, HPDC 2026); Mohan et al., CheckFreq: Frequent, Fine-Grained DNN Checkpointing, FAST 2021, for asynchronous checkpoints; README.md, Verified advice.",
    }
}

impl DarshanRule for IoGapsRule {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        let run_time = context.facts.run_time;
        let Some(gaps) = io_gaps(context) else { return Vec::new() };
        if run_time <= 0.0 || gaps.window_s <= 0.0 {
            return Vec::new();
        }
        let share = gaps.overlappable_s / run_time;
        if share < 0.05 || gaps.other_work_s < 0.1 * gaps.window_s {
            return Vec::new();
        }
        let waits_on = if gaps.read_time_s >= gaps.write_time_s { "reads" } else { "writes" };
        let why = format!(
            "rank {} spends {:.3} s in I/O (mostly {waits_on}) and {:.3} s between its calls in gaps of 1 ms or more, one after the other: overlapping them could hide up to {:.3} s ({:.0} % of the job); inferred from the gaps between calls",
            gaps.rank,
            gaps.io_time_s,
            gaps.other_work_s,
            gaps.overlappable_s,
            share * 100.0
        );
        vec![
            Finding::new(&Self::DOC, clip01(share / 0.25), "POSIX", why)
                .with("io_time", gaps.io_time_s, "s")
                .with("read_time", gaps.read_time_s, "s")
                .with("write_time", gaps.write_time_s, "s")
                .with("other_work", gaps.other_work_s, "s")
                .with("overlappable_time", gaps.overlappable_s, "s")
                .with("overlappable_share", share, "fraction")
                .crossing("overlappable time >= 5% of the job")
                .crossing("gaps >= 10% of the I/O window"),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::darshan::testing::{facts, record};
    use crate::darshan::{DarshanFacts, DrishtiThresholds};

    /// One process's files, each moving data for 0.2 s from `start` (a write, or a read), 1 s
    /// apart: three stretches with 0.8 s of work between them and none after the last.
    fn three_files(write: bool) -> DarshanFacts {
        let mut facts = facts(1, 4.0, &["POSIX"]);
        for (id, start) in [1.0, 2.0, 3.0].into_iter().enumerate() {
            let (count, time, first, last) = if write {
                (
                    "POSIX_WRITES",
                    "POSIX_F_WRITE_TIME",
                    "POSIX_F_WRITE_START_TIMESTAMP",
                    "POSIX_F_WRITE_END_TIMESTAMP",
                )
            } else {
                (
                    "POSIX_READS",
                    "POSIX_F_READ_TIME",
                    "POSIX_F_READ_START_TIMESTAMP",
                    "POSIX_F_READ_END_TIMESTAMP",
                )
            };
            let values = [
                (count, 8.0),
                (time, 0.2),
                ("POSIX_F_OPEN_START_TIMESTAMP", start),
                (first, start),
                (last, start + 0.2),
                ("POSIX_F_CLOSE_END_TIMESTAMP", start + 0.2),
            ];
            facts.posix.push(record(Module::Posix, id as u64 + 1, 0, &values));
        }
        facts
    }

    fn gaps_of(facts: &DarshanFacts) -> IoGaps {
        io_gaps(&DarshanContext::new(facts, DrishtiThresholds::default()))
            .unwrap_or_else(|| panic!("no gaps measured"))
    }

    #[test]
    fn a_write_hides_only_behind_the_work_after_it() {
        let gaps = gaps_of(&three_files(true));
        assert!((gaps.other_work_s - 1.6).abs() < 1e-9, "{gaps:?}");
        // min(writes 0.6, work 1.6) would say 0.6; the last checkpoint has no work after it.
        assert!((gaps.overlappable_s - 0.6).abs() < 1e-9, "{gaps:?}");
        assert!((gaps.write_behind_s - 0.4).abs() < 1e-9, "{gaps:?}");
        assert!(gaps.read_ahead_s.abs() < 1e-9, "{gaps:?}");
    }

    #[test]
    fn a_read_hides_only_behind_the_work_before_it() {
        let gaps = gaps_of(&three_files(false));
        // The first read has no work before it in the window: a reader thread cannot start it early.
        assert!((gaps.read_ahead_s - 0.4).abs() < 1e-9, "{gaps:?}");
        assert!(gaps.write_behind_s.abs() < 1e-9, "{gaps:?}");
    }

    /// One file shared by 2 processes (rank -1), open for 1 s from t = 1, the slowest process
    /// 0.2 s in it, with `writes` writes of `bin` bytes in all.
    fn one_shared_file(writes: f64, bin: &str) -> DarshanFacts {
        let mut facts = facts(2, 3.0, &["POSIX"]);
        let size = format!("POSIX_SIZE_WRITE_{bin}");
        let values = [
            ("POSIX_WRITES", writes),
            (size.as_str(), writes),
            ("POSIX_F_WRITE_TIME", 0.35),
            ("POSIX_F_SLOWEST_RANK_TIME", 0.2),
            ("POSIX_F_OPEN_START_TIMESTAMP", 1.0),
            ("POSIX_F_WRITE_START_TIMESTAMP", 1.0),
            ("POSIX_F_WRITE_END_TIMESTAMP", 2.0),
            ("POSIX_F_CLOSE_END_TIMESTAMP", 2.0),
        ];
        facts.posix.push(record(Module::Posix, 1, -1, &values));
        facts
    }

    fn shared_of(facts: &DarshanFacts) -> Option<SharedFileCalls> {
        shared_file_calls(&DarshanContext::new(facts, DrishtiThresholds::default()))
    }

    #[test]
    fn dense_small_calls_to_a_shared_file_cost_the_window() {
        // 20,000 writes, 10,000 per process in 1 s: 80 us apart, the library's work between them.
        let shared = shared_of(&one_shared_file(20_000.0, "100_1K")).unwrap_or_default();
        assert_eq!((shared.files, shared.requests, shared.small_requests), (1, 20_000, 20_000));
        assert!((shared.small_io_time_s - 0.2).abs() < 1e-9, "{shared:?}");
        assert!((shared.small_caller_s - 0.8).abs() < 1e-9, "{shared:?}");
        // Private records are io_gaps' business: it sees none here.
        assert!(
            io_gaps(&DarshanContext::new(&one_shared_file(20_000.0, "100_1K"), DrishtiThresholds::default()))
                .is_none()
        );
    }

    #[test]
    fn sparse_calls_to_a_shared_file_hold_other_work_not_caller_time() {
        // 200 writes, 100 per process in 1 s: 10 ms apart, steps of other work between them.
        let shared = shared_of(&one_shared_file(200.0, "100_1K")).unwrap_or_default();
        assert!((shared.small_io_time_s - 0.2).abs() < 1e-9, "{shared:?}");
        assert!(shared.small_caller_s.abs() < 1e-12, "{shared:?}");
    }

    #[test]
    fn large_requests_to_a_shared_file_are_not_small_calls() {
        let shared = shared_of(&one_shared_file(20_000.0, "1M_4M")).unwrap_or_default();
        assert_eq!(shared.small_requests, 0, "{shared:?}");
        assert!(shared.small_io_time_s.abs() + shared.small_caller_s.abs() < 1e-12, "{shared:?}");
        assert!(shared_of(&facts(2, 3.0, &["POSIX"])).is_none());
        let mut alone = one_shared_file(20_000.0, "100_1K");
        alone.nprocs = 1;
        assert!(shared_of(&alone).is_none(), "one process shares no file");
    }
}
