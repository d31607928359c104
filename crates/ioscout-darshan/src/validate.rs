//! Darshan's invariants of a counter record, checked as each record is read so that nothing
//! after the reader (totals, rules, the detector) ever sees an impossible one: a rank below the
//! job's process count (or -1 for a shared record); counts and bytes of magnitude below 2^60;
//! POSIX's access-size bins summing to its reads and writes, and its bytes no more than those
//! accesses' sizes allow (unless some exceed a GiB); times finite and within a billion
//! seconds; timestamps within the job (twice the run time plus a minute either side of its
//! start).
//!
//! The bounds were read off the 109 public logs of the corpus, none of which loses a record to
//! them (a test holds that). Darshan itself writes values that look impossible and are kept as
//! written, as PyDarshan keeps them: -1 for counters a version does not record, a reduced
//! `MPIIO_BYTES_READ` of -27262 (a wrapped total), a `STDIO_F_WRITE_TIME` of -2662 s in a
//! 117 s job (a timer fault), last calls ending after the whole-second run time of older
//! formats; sums count the negative ones as 0. What a damaged region yields is another thing:
//! a misread record's counters are arbitrary 64-bit patterns, almost all of them beyond these
//! bounds, so one such record is caught with near certainty.

use crate::counters;
use crate::module::{CounterRecord, counter_names, id};

/// The largest magnitude of a count or byte total of one record: 2^60 (an exbibyte, or 10^18
/// calls).
const MOST: i64 = 1 << 60;

/// The largest magnitude of a time, seconds (about 31 years).
const LONGEST_S: f64 = 1e9;

/// What a float counter is checked as.
#[derive(Clone, Copy, PartialEq, Eq)]
enum FloatKind {
    /// A duration (`*_TIME`): finite, within [`LONGEST_S`].
    Time,
    /// A point in the job (`*_TIMESTAMP`): a time, and within the job when its run time is known.
    Timestamp,
    /// Anything else (a variance in square seconds among them): finite only.
    Other,
}

/// One direction of POSIX: its operations counter, its size bins in order, its bytes counter.
struct Direction {
    operations: usize,
    bins: Vec<usize>,
    bytes: Option<usize>,
}

/// The invariants of one module's records, with every counter's index found once per module
/// rather than by name for every record (a log can hold millions of records).
pub(crate) struct Checks {
    names: &'static [&'static str],
    float_names: &'static [&'static str],
    nprocs: i64,
    /// Twice the run time plus a minute: how far from the job's start a timestamp may lie.
    span: Option<f64>,
    amounts: Vec<usize>,
    directions: Vec<Direction>,
    floats: Vec<FloatKind>,
}

impl Checks {
    /// The checks of module `module_id`'s records in a job of `nprocs` processes that ran
    /// `run_time_s` seconds (`None`: unknown); `None` for a module without counter names.
    pub(crate) fn of(module_id: usize, nprocs: i64, run_time_s: Option<f64>) -> Option<Checks> {
        let (names, float_names) = counter_names(module_id)?;
        let directions = if module_id == id::POSIX {
            [
                (counters::POSIX_READS, counters::POSIX_SIZE_READ_BINS, counters::POSIX_BYTES_READ),
                (counters::POSIX_WRITES, counters::POSIX_SIZE_WRITE_BINS, counters::POSIX_BYTES_WRITTEN),
            ]
            .into_iter()
            .map(|(operations, bins, bytes)| Direction {
                operations: operations.index(),
                bins: bins.iter().map(|bin| bin.index()).collect(),
                bytes: Some(bytes.index()),
            })
            .collect()
        } else {
            Vec::new()
        };
        let floats = float_names
            .iter()
            .map(|name| {
                if name.contains("VARIANCE") {
                    FloatKind::Other
                } else if name.ends_with("_TIMESTAMP") {
                    FloatKind::Timestamp
                } else if name.ends_with("_TIME") {
                    FloatKind::Time
                } else {
                    FloatKind::Other
                }
            })
            .collect();
        Some(Checks {
            names,
            float_names,
            nprocs,
            span: run_time_s.map(|run_time| run_time * 2.0 + 60.0),
            amounts: (0..names.len()).filter(|index| is_amount(names[*index])).collect(),
            directions,
            floats,
        })
    }

    /// Why `record` cannot be true of the job, or `None` when it can.
    pub(crate) fn impossible(&self, record: &CounterRecord) -> Option<String> {
        let nprocs = self.nprocs;
        if record.rank < -1 || (nprocs > 0 && record.rank >= nprocs) {
            return Some(format!("rank {} outside the job's {nprocs} processes", record.rank));
        }
        for &index in &self.amounts {
            if let Some(value) = record.counters.get(index)
                && !(-MOST..MOST).contains(value)
            {
                return Some(format!("{} is {value}", self.names[index]));
            }
        }
        for direction in &self.directions {
            if let Some(reason) = self.bins_disagree(direction, &record.counters) {
                return Some(reason);
            }
            if let Some(reason) = self.bytes_above_bins(direction, &record.counters) {
                return Some(reason);
            }
        }
        for ((name, value), kind) in self.float_names.iter().zip(&record.fcounters).zip(&self.floats) {
            if !value.is_finite() {
                return Some(format!("{name} is {value}"));
            }
            if *kind == FloatKind::Other {
                continue;
            }
            if value.abs() > LONGEST_S {
                return Some(format!("{name} is {value} s"));
            }
            if *kind == FloatKind::Timestamp
                && let Some(span) = self.span
                && value.abs() > span
            {
                return Some(format!("{name} is {value} s, outside the job's run time"));
            }
        }
        None
    }

    /// When the size bins do not sum to the operations counter (both known).
    fn bins_disagree(&self, direction: &Direction, counters: &[i64]) -> Option<String> {
        let operations = *counters.get(direction.operations)?;
        let mut sum: i64 = 0;
        for index in &direction.bins {
            let value = *counters.get(*index)?;
            if value < 0 {
                return None;
            }
            sum = sum.saturating_add(value);
        }
        (operations >= 0 && sum != operations).then(|| {
            format!(
                "{} is {operations} but its access-size bins sum to {sum}",
                self.names[direction.operations]
            )
        })
    }

    /// When the bytes counter exceeds what the accesses in the size bins can move (every bin
    /// but the unbounded last one bounded, and the last empty).
    fn bytes_above_bins(&self, direction: &Direction, counters: &[i64]) -> Option<String> {
        let bytes_index = direction.bytes?;
        let bytes = *counters.get(bytes_index)?;
        let counts: Vec<i64> =
            direction.bins.iter().filter_map(|index| counters.get(*index).copied()).collect();
        let (bounded, unbounded) = counts.split_at(counts.len().checked_sub(1)?);
        if bounded.len() != BIN_BOUNDS.len() || unbounded.first().is_none_or(|count| *count != 0) {
            return None;
        }
        if bounded.iter().any(|count| *count < 0) {
            return None;
        }
        let most = bounded
            .iter()
            .zip(BIN_BOUNDS)
            .fold(0_i64, |total, (count, bound)| total.saturating_add(count.saturating_mul(bound)));
        (bytes > most).then(|| {
            format!("{} is {bytes}, more than its accesses' sizes allow ({most})", self.names[bytes_index])
        })
    }
}

/// Whether counter `name` is an amount (a count of calls or bytes, or an access-size bin) that
/// cannot be below -1.
fn is_amount(name: &str) -> bool {
    const AMOUNTS: [&str; 14] = [
        "_READS",
        "_WRITES",
        "_OPENS",
        "_STATS",
        "_SEEKS",
        "_FSYNCS",
        "_FDSYNCS",
        "_SYNCS",
        "_FLUSHES",
        "_BYTES_READ",
        "_BYTES_WRITTEN",
        "_CREATES",
        "_CONSEC_READS",
        "_SEQ_READS",
    ];
    AMOUNTS.iter().any(|suffix| name.ends_with(suffix))
        || name.contains("_SIZE_READ_")
        || name.contains("_SIZE_WRITE_")
}

/// The largest access each POSIX size bin holds, bytes, in the counters' order (`0_100` up to
/// `100M_1G`); the last bin (`1G_PLUS`) has no bound.
const BIN_BOUNDS: [i64; 9] =
    [100, 1 << 10, 10 << 10, 100 << 10, 1 << 20, 4 << 20, 10 << 20, 100 << 20, 1 << 30];

#[cfg(test)]
mod tests {
    use super::*;

    /// The reason the checks of a POSIX job of `nprocs` processes give for `record`.
    fn impossible(record: &CounterRecord, nprocs: i64, run_time_s: Option<f64>) -> Option<String> {
        Checks::of(id::POSIX, nprocs, run_time_s).and_then(|checks| checks.impossible(record))
    }

    fn posix(values: &[(&str, f64)], rank: i64) -> CounterRecord {
        CounterRecord::with_values(id::POSIX, 7, rank, values).unwrap_or_else(|error| panic!("{error}"))
    }

    #[test]
    fn a_true_record_passes() {
        let record = posix(
            &[
                ("POSIX_READS", 3.0),
                ("POSIX_SIZE_READ_0_100", 3.0),
                ("POSIX_F_READ_TIME", 0.5),
                ("POSIX_MMAPS", -1.0),
            ],
            0,
        );
        assert_eq!(impossible(&record, 2, Some(10.0)), None);
    }

    #[test]
    fn impossible_records_are_named_with_their_reason() {
        let cases: [(CounterRecord, &str); 7] = [
            (posix(&[], 4), "rank 4 outside"),
            (posix(&[("POSIX_READS", -7.7e18)], 0), "POSIX_READS is -7700000000000000000"),
            (posix(&[("POSIX_BYTES_WRITTEN", 9.2e18)], 0), "POSIX_BYTES_WRITTEN is"),
            (posix(&[("POSIX_WRITES", 5.0), ("POSIX_SIZE_WRITE_0_100", 2.0)], 0), "bins sum to 2"),
            (posix(&[("POSIX_F_READ_TIME", f64::NAN)], 0), "POSIX_F_READ_TIME is NaN"),
            (
                posix(
                    &[("POSIX_WRITES", 2.0), ("POSIX_SIZE_WRITE_0_100", 2.0), ("POSIX_BYTES_WRITTEN", 1e17)],
                    0,
                ),
                "more than its accesses' sizes allow (200)",
            ),
            (posix(&[("POSIX_F_WRITE_END_TIMESTAMP", 100.0)], 0), "outside the job's run time"),
        ];
        for (record, reason) in cases {
            let found = impossible(&record, 2, Some(10.0)).unwrap_or_default();
            assert!(found.contains(reason), "{found:?} does not say {reason:?}");
        }
        // Unknown run time: only the billion-second bound on times, the rest still holds.
        let late = posix(&[("POSIX_F_WRITE_END_TIMESTAMP", 5000.0)], 0);
        assert_eq!(impossible(&late, 2, None), None);
        let absurd = posix(&[("POSIX_F_READ_TIME", 3e280)], 0);
        assert!(impossible(&absurd, 2, None).is_some());
        // What Darshan itself writes is kept: a wrapped negative total, a faulty timer.
        let darshan_faults = posix(&[("POSIX_BYTES_READ", -27262.0), ("POSIX_F_WRITE_TIME", -2662.7)], -1);
        assert_eq!(impossible(&darshan_faults, 2, Some(117.0)), None);
    }
}
