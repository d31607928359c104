//! The access pattern of each file over all its processes, for the per-file columns of
//! `analyze` and the report: how many distinct offsets its requests start at, and how many bytes
//! were read more than once (a byte range read again, by the same process or another). Both are
//! exact up to [`CAP`] distinct offsets or disjoint read ranges per file; past that the file
//! stops being tracked and its figures are lower bounds, marked as such, so memory stays bounded
//! by files, not by calls.
//!
//! Both are kept for the replay's speed (every data call of a trace passes here): offsets are
//! appended and sorted out in batches (a run of calls is mostly in order, which sorts in one
//! pass), and the read range that grows is held outside the map of the others, so a run of
//! reads that extends it touches no tree.

use std::collections::BTreeMap;

/// Distinct offsets, and disjoint read ranges, tracked per file.
pub const CAP: usize = 65_536;

/// Offsets appended before the first batch is sorted out.
const FIRST_BATCH: usize = 1024;

/// What is known of one file's accesses.
#[derive(Clone, Debug, Default)]
pub struct FileAccess {
    /// Offsets: the first `distinct` sorted and distinct, the rest appended since.
    offsets: Vec<i64>,
    distinct: usize,
    /// More distinct offsets than [`CAP`]: [`FileAccess::distinct_offsets`] is a lower bound.
    pub offsets_capped: bool,
    /// Read ranges seen, start to end (exclusive), disjoint and not touching, but for `current`.
    read: BTreeMap<i64, i64>,
    /// The range that grew last, not in `read`, and the start of the next range in `read`.
    current: Option<(i64, i64)>,
    next_start: Option<i64>,
    /// More disjoint read ranges than [`CAP`]: re-reads past that point are not counted.
    pub reread_capped: bool,
    /// Bytes read that had been read before.
    pub reread_bytes: i64,
}

impl FileAccess {
    /// Counts a request at `offset` moving `bytes` (`read` for a read).
    pub fn add(&mut self, offset: i64, bytes: i64, read: bool) {
        if !self.offsets_capped {
            self.offsets.push(offset);
            if self.offsets.len() >= (2 * self.distinct).max(FIRST_BATCH) {
                self.sort_offsets();
            }
        }
        if read && bytes > 0 && !self.reread_capped {
            self.read_range(offset, offset.saturating_add(bytes));
        }
    }

    fn sort_offsets(&mut self) {
        self.offsets.sort_unstable();
        self.offsets.dedup();
        if self.offsets.len() > CAP {
            self.offsets_capped = true;
            self.offsets.truncate(CAP);
            self.offsets.shrink_to_fit();
        }
        self.distinct = self.offsets.len();
    }

    /// Sorts out the offsets appended since the last batch: call once all calls are in, before
    /// [`FileAccess::distinct_offsets`] and [`FileAccess::offsets_capped`] are read.
    pub fn settle(&mut self) {
        if self.distinct != self.offsets.len() {
            self.sort_offsets();
        }
    }

    /// Distinct offsets, as of the last [`FileAccess::settle`] (a lower bound when
    /// [`FileAccess::offsets_capped`]).
    pub fn distinct_offsets(&self) -> u64 {
        self.distinct as u64
    }

    fn read_range(&mut self, start: i64, end: i64) {
        // The common case: [start, end) begins inside or just after the range that grew last and
        // ends before the next one.
        if let Some((current_start, current_end)) = &mut self.current
            && start >= *current_start
            && start <= *current_end
            && self.next_start.is_none_or(|next| end < next)
        {
            self.reread_bytes += (*current_end).min(end) - start;
            *current_end = (*current_end).max(end);
            return;
        }
        if let Some((current_start, current_end)) = self.current.take() {
            self.read.insert(current_start, current_end);
        }
        // Ranges that overlap or touch [start, end): the bytes they share with it were read
        // before; they merge into one range. From the last range starting at or before `end`,
        // backwards, while they reach `start`.
        let mut merged_start = start;
        let mut merged_end = end;
        let mut overlap = 0;
        while let Some((&range_start, &range_end)) = self.read.range(..=end).next_back() {
            if range_end < start {
                break;
            }
            overlap += (range_end.min(end) - range_start.max(start)).max(0);
            merged_start = merged_start.min(range_start);
            merged_end = merged_end.max(range_end);
            self.read.remove(&range_start);
        }
        self.reread_bytes += overlap;
        if self.read.len() >= CAP {
            self.reread_capped = true;
            return;
        }
        self.current = Some((merged_start, merged_end));
        self.next_start = self.read.range(merged_end..).next().map(|(&next, _)| next);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rereads_count_the_bytes_read_again_only() {
        let mut access = FileAccess::default();
        access.add(0, 100, true);
        access.add(100, 100, true);
        assert_eq!(access.reread_bytes, 0);
        access.add(50, 100, true);
        assert_eq!(access.reread_bytes, 100);
        access.add(300, 10, true);
        access.add(0, 400, true);
        assert_eq!(access.reread_bytes, 100 + 210);
        access.add(0, 400, false);
        assert_eq!(access.reread_bytes, 310, "writes are not re-reads");
        access.settle();
        assert_eq!(access.distinct_offsets(), 4, "0, 100, 50 and 300");
    }

    proptest::proptest! {
        /// Against a model that keeps every byte read: re-read bytes are the bytes of each read
        /// already in the set, distinct offsets the set of starts.
        #[test]
        fn rereads_and_offsets_equal_a_byte_set_model(
            requests in proptest::collection::vec((0i64..1500, 0i64..64, proptest::bool::ANY), 0..2500)
        ) {
            let mut access = FileAccess::default();
            let mut bytes_read = std::collections::BTreeSet::new();
            let mut offsets = std::collections::BTreeSet::new();
            let mut reread = 0;
            for &(offset, length, read) in &requests {
                access.add(offset, length, read);
                offsets.insert(offset);
                if read {
                    for byte in offset..offset + length {
                        if !bytes_read.insert(byte) {
                            reread += 1;
                        }
                    }
                }
            }
            proptest::prop_assert_eq!(access.reread_bytes, reread);
            access.settle();
            proptest::prop_assert_eq!(access.distinct_offsets(), offsets.len() as u64);
        }
    }

    #[test]
    fn past_the_cap_figures_are_marked_as_lower_bounds() {
        let mut access = FileAccess::default();
        for index in 0..(CAP as i64 + 10) {
            access.add(index * 10, 1, true);
        }
        access.settle();
        assert!(access.offsets_capped && access.reread_capped);
        assert_eq!(access.distinct_offsets(), CAP as u64);
    }
}
