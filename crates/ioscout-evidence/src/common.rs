//! The accumulation rules Darshan's runtime applies to every module's counters, restated so the
//! derived records follow them exactly: the ten size bins, the "four most common values" of
//! access sizes and strides (at most 32 distinct values tracked per record, ordered by count and
//! then by value, zero never listed), and the time sums that do not count overlapping calls
//! twice. Used by [`crate::posix`] and [`crate::stdio`] as they replay a trace's calls.

use crate::op::Whence;

/// Offsets, positions and sizes above an exbibyte are taken as damage.
pub const ABSURD: i64 = 1 << 60;

/// Where a seek leaves the position: `SEEK_SET` at its offset, `SEEK_CUR` moved by it from a
/// known `position`; `None` when the trace cannot say (from the end, from an unknown position, a
/// negative or absurd offset).
pub fn seek_target(position: Option<i64>, whence: Option<Whence>, offset: Option<i64>) -> Option<i64> {
    match (whence?, offset?) {
        (Whence::Set, offset) if (0..ABSURD).contains(&offset) => Some(offset),
        (Whence::Current, delta) => Some(position?.saturating_add(delta).max(0)),
        _ => None,
    }
}

/// Moves a stream's `position` to `target` (then known), or, without one, marks it unknown and
/// returns false (the caller counts the seek as approximated).
pub fn move_to(position: &mut i64, known: &mut bool, target: Option<i64>) -> bool {
    *known = target.is_some();
    if let Some(target) = target {
        *position = target;
    }
    *known
}

/// Darshan's size bins (`DARSHAN_BUCKET_INC`): 0-100, 100-1K, 1K-10K, 10K-100K, 100K-1M, 1M-4M,
/// 4M-10M, 10M-100M, 100M-1G, 1G+ bytes; each bound is inclusive of its upper value.
pub fn size_bin(bytes: i64) -> usize {
    const UPPER: [i64; 9] =
        [100, 1024, 10 * 1024, 100 * 1024, 1 << 20, 4 << 20, 10 << 20, 100 << 20, 1 << 30];
    UPPER.iter().position(|&upper| bytes <= upper).unwrap_or(9)
}

/// How many distinct values Darshan tracks per record at run time
/// (`DARSHAN_COMMON_VAL_MAX_RUNTIME_COUNT`); later distinct values are not counted at all.
pub const TRACKED_VALUES: usize = 32;

/// The four most common values of a record (access sizes or strides), as Darshan keeps them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CommonValues {
    /// Values tracked so far with their counts, in first-seen order (at most [`TRACKED_VALUES`]).
    tracked: Vec<(i64, i64)>,
    /// Values seen after the tracking table was full (Darshan drops them; kept for the note).
    pub untracked: u64,
    /// Where the value counted last is in `tracked` (the same size usually comes again).
    last: usize,
}

impl CommonValues {
    /// Counts one occurrence of `value`.
    pub fn add(&mut self, value: i64) {
        if let Some(entry) = self.tracked.get_mut(self.last)
            && entry.0 == value
        {
            entry.1 += 1;
        } else if let Some(at) = self.tracked.iter().position(|(seen, _)| *seen == value) {
            self.tracked[at].1 += 1;
            self.last = at;
        } else if self.tracked.len() < TRACKED_VALUES {
            self.last = self.tracked.len();
            self.tracked.push((value, 1));
        } else {
            self.untracked += 1;
        }
    }

    /// The four most common non-zero values and their counts: by count, then by value, both
    /// descending; zeros where there are fewer (what Darshan's insertion keeps, since a value's
    /// count only grows and every update re-sorts the four).
    pub fn top4(&self) -> ([i64; 4], [i64; 4]) {
        let mut values: Vec<(i64, i64)> =
            self.tracked.iter().copied().filter(|(value, _)| *value != 0).collect();
        values.sort_by(|a, b| b.1.cmp(&a.1).then(b.0.cmp(&a.0)));
        let mut top = ([0; 4], [0; 4]);
        for (slot, (value, count)) in values.into_iter().take(4).enumerate() {
            top.0[slot] = value;
            top.1[slot] = count;
        }
        top
    }
}

/// Inserts `(value, count)` into four sorted slots the way Darshan's shared-file reduction does
/// (`DARSHAN_UPDATE_COMMON_VAL_COUNTERS` with its add flag): an equal value adds its count, the
/// slots stay ordered by count then value, the fifth falls off, and a zero value is ignored.
pub fn merge_common(values: &mut [i64; 4], counts: &mut [i64; 4], value: i64, count: i64) {
    if value == 0 {
        return;
    }
    let mut total = count;
    if let Some(slot) = values.iter().position(|&seen| seen == value) {
        total += counts[slot];
    }
    let mut merged: Vec<(i64, i64)> = values
        .iter()
        .zip(counts.iter())
        .filter(|(seen, _)| **seen != value)
        .map(|(&seen, &seen_count)| (seen, seen_count))
        .collect();
    let at = merged
        .iter()
        .position(|&(seen, seen_count)| !(seen_count > total || (seen_count == total && seen > value)))
        .unwrap_or(merged.len());
    merged.insert(at, (value, total));
    merged.resize(4, (0, 0));
    for (slot, (seen, seen_count)) in merged.into_iter().take(4).enumerate() {
        values[slot] = seen;
        counts[slot] = seen_count;
    }
}

/// A time sum that does not count overlapping calls twice (`DARSHAN_TIMER_INC_NO_OVERLAP`): a
/// call that starts before the previous one ended adds only the part after that end (negative
/// for a call that ends before it, exactly as Darshan's macro computes it).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NoOverlap {
    /// The seconds summed.
    pub total: f64,
    last_end: f64,
}

impl NoOverlap {
    /// Adds the call from `start` to `end` (seconds). Darshan skips calls whose start or end
    /// time is exactly zero (its clock was not running); so does this.
    pub fn add(&mut self, start: f64, end: f64) {
        if start == 0.0 || end == 0.0 {
            return;
        }
        if start > self.last_end {
            self.total += end - start;
        } else {
            self.total += end - self.last_end;
        }
        if end > self.last_end {
            self.last_end = end;
        }
    }
}

/// Sets a start timestamp to the earliest non-zero value and the end one to the latest call's
/// (how Darshan keeps its `*_START_TIMESTAMP` and `*_END_TIMESTAMP` counters).
pub fn stamp(fcounters: &mut [f64], start_index: usize, end_index: usize, start: f64, end: f64) {
    if fcounters[start_index] == 0.0 || fcounters[start_index] > start {
        fcounters[start_index] = start;
    }
    fcounters[end_index] = end;
}

/// Darshan's variance of one value over ranks (`darshan_variance_reduce`, then `S / n`): the
/// population variance.
pub fn population_variance(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    values.iter().map(|value| (value - mean) * (value - mean)).sum::<f64>() / n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_bins_match_darshan_bounds() {
        assert_eq!(size_bin(0), 0);
        assert_eq!(size_bin(100), 0);
        assert_eq!(size_bin(101), 1);
        assert_eq!(size_bin(1024), 1);
        assert_eq!(size_bin(1025), 2);
        assert_eq!(size_bin(4096), 2);
        assert_eq!(size_bin(65536), 3);
        assert_eq!(size_bin(1 << 20), 4);
        assert_eq!(size_bin((1 << 20) + 1), 5);
        assert_eq!(size_bin(1 << 30), 8);
        assert_eq!(size_bin((1 << 30) + 1), 9);
    }

    #[test]
    fn common_values_order_by_count_then_value_and_skip_zero() {
        let mut common = CommonValues::default();
        for value in [4096, 0, 0, 0, 8192, 4096, 512, 8192, 100, 7] {
            common.add(value);
        }
        assert_eq!(common.top4(), ([8192, 4096, 512, 100], [2, 2, 1, 1]));
    }

    #[test]
    fn values_past_the_tracking_limit_are_not_counted() {
        let mut common = CommonValues::default();
        for value in 1..=32 {
            common.add(value);
        }
        for _ in 0..5 {
            common.add(1000);
        }
        assert_eq!(common.untracked, 5);
        assert_eq!(common.top4().0, [32, 31, 30, 29]);
    }

    #[test]
    fn merging_adds_equal_values_and_keeps_order() {
        let mut values = [4096, 8, 0, 0];
        let mut counts = [10, 3, 0, 0];
        merge_common(&mut values, &mut counts, 8, 9);
        assert_eq!((values, counts), ([8, 4096, 0, 0], [12, 10, 0, 0]));
        merge_common(&mut values, &mut counts, 0, 100);
        assert_eq!((values, counts), ([8, 4096, 0, 0], [12, 10, 0, 0]));
        merge_common(&mut values, &mut counts, 1, 1);
        merge_common(&mut values, &mut counts, 2, 1);
        merge_common(&mut values, &mut counts, 3, 1);
        assert_eq!((values, counts), ([8, 4096, 3, 2], [12, 10, 1, 1]));
    }

    /// Overlapping calls count once; a call inside the previous one subtracts the part it
    /// ends early, as Darshan's macro does (only threads make calls nest).
    #[test]
    fn overlapping_calls_are_counted_once() {
        let mut timer = NoOverlap::default();
        timer.add(1.0, 3.0);
        timer.add(2.0, 4.0);
        assert!((timer.total - 3.0).abs() < 1e-12);
        timer.add(3.5, 3.8);
        timer.add(5.0, 6.0);
        assert!((timer.total - 3.8).abs() < 1e-12);
    }
}
