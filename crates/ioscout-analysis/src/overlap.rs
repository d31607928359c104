//! Interval unions: the exact measure of how much of an I/O event ran while its process tree
//! was computing.
//!
//! # Overview
//!
//! [`IntervalUnion`] sorts and merges half-open `[start, end)` intervals into disjoint ones;
//! [`IntervalUnion::covered`] is the length of one interval's intersection with the union, found
//! by binary search (logarithmic in the number of compute intervals). The analysis builds one
//! union per process tree from the compute layer in its first pass and measures each row of an
//! asynchronous layer against it in the second, so exact overlap costs no memory per row.

/// A union of half-open intervals, as sorted disjoint intervals.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IntervalUnion {
    intervals: Vec<(i64, i64)>,
}

impl IntervalUnion {
    /// The union of `intervals` (empty ones are dropped).
    pub fn new(mut intervals: Vec<(i64, i64)>) -> IntervalUnion {
        intervals.retain(|(start, end)| end > start);
        intervals.sort_unstable();
        let mut merged: Vec<(i64, i64)> = Vec::with_capacity(intervals.len());
        for (start, end) in intervals {
            match merged.last_mut() {
                Some(last) if start <= last.1 => last.1 = last.1.max(end),
                _ => merged.push((start, end)),
            }
        }
        IntervalUnion { intervals: merged }
    }

    /// The disjoint intervals, in order.
    pub fn intervals(&self) -> &[(i64, i64)] {
        &self.intervals
    }

    /// Total length.
    pub fn length(&self) -> i64 {
        self.intervals.iter().map(|(start, end)| end - start).sum()
    }

    /// The length of `[start, end)` that the union covers.
    pub fn covered(&self, start: i64, end: i64) -> i64 {
        let mut hint = 0;
        self.covered_near(&mut hint, start, end)
    }

    /// [`IntervalUnion::covered`], starting from `hint`: where the interval measured before on
    /// this union began to count (a process's rows come roughly in time order, so the next one
    /// usually begins at the same interval or the one after it). The hint is checked, not
    /// trusted: a wrong one costs the binary search, never a wrong answer. It is updated.
    pub fn covered_near(&self, hint: &mut usize, start: i64, end: i64) -> i64 {
        if end <= start {
            return 0;
        }
        // The first interval that ends after `start`: `index` is it when every interval before
        // it ends by `start` and it (if any) ends after.
        let first = |index: usize| {
            index <= self.intervals.len()
                && (index == 0 || self.intervals[index - 1].1 <= start)
                && self.intervals.get(index).is_none_or(|(_, interval_end)| *interval_end > start)
        };
        let mut index = if first(*hint) {
            *hint
        } else if first(*hint + 1) {
            *hint + 1
        } else {
            self.intervals.partition_point(|(_, interval_end)| *interval_end <= start)
        };
        *hint = index;
        let mut covered = 0;
        while let Some(&(interval_start, interval_end)) = self.intervals.get(index) {
            if interval_start >= end {
                break;
            }
            covered += interval_end.min(end) - interval_start.max(start);
            index += 1;
        }
        covered
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn union_merges_overlapping_and_touching_intervals() {
        let union = IntervalUnion::new(vec![(5, 7), (0, 2), (1, 3), (3, 4), (9, 9)]);
        assert_eq!(union.intervals(), &[(0, 4), (5, 7)]);
        assert_eq!(union.length(), 6);
        assert_eq!(union.covered(3, 6), 2);
        assert_eq!(union.covered(7, 20), 0);
        assert_eq!(union.covered(-5, 20), 6);
    }

    proptest! {
        #[test]
        fn covered_matches_a_unit_by_unit_count(
            intervals in proptest::collection::vec((0i64..60, 0i64..12), 0..12),
            probe in (0i64..70, 0i64..30),
        ) {
            let intervals: Vec<(i64, i64)> = intervals.into_iter().map(|(start, length)| (start, start + length)).collect();
            let union = IntervalUnion::new(intervals.clone());
            let (start, end) = (probe.0, probe.0 + probe.1);
            let expected = (start..end)
                .filter(|unit| intervals.iter().any(|(interval_start, interval_end)| interval_start <= unit && unit < interval_end))
                .count() as i64;
            prop_assert_eq!(union.covered(start, end), expected);
        }

        /// Whatever the hint, the measure is the one of the search; the hint it leaves then
        /// answers the same interval again.
        #[test]
        fn covered_near_answers_as_covered_from_any_hint(
            intervals in proptest::collection::vec((0i64..60, 0i64..12), 0..12),
            probes in proptest::collection::vec((0i64..70, 0i64..30), 1..8),
            hint in 0usize..20,
        ) {
            let intervals: Vec<(i64, i64)> = intervals.into_iter().map(|(start, length)| (start, start + length)).collect();
            let union = IntervalUnion::new(intervals);
            let mut near = hint;
            for (start, length) in probes {
                let (start, end) = (start, start + length);
                prop_assert_eq!(union.covered_near(&mut near, start, end), union.covered(start, end));
                let mut again = near;
                prop_assert_eq!(union.covered_near(&mut again, start, end), union.covered(start, end));
                prop_assert_eq!(again, near);
            }
        }
    }
}
