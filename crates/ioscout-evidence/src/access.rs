//! The access pattern of each file over all its processes, for the per-file columns of
//! `analyze` and the report: how many distinct offsets its requests start at, and how many bytes
//! were read more than once (a byte range read again, by the same process or another). Both are
//! exact up to [`CAP`] distinct offsets or disjoint read ranges per file; past that the file
//! stops being tracked and its figures are lower bounds, marked as such, so memory stays bounded
//! by files, not by calls.

use std::collections::{BTreeMap, HashSet};

/// Distinct offsets, and disjoint read ranges, tracked per file.
pub const CAP: usize = 65_536;

/// What is known of one file's accesses.
#[derive(Clone, Debug, Default)]
pub struct FileAccess {
    offsets: HashSet<i64>,
    /// More distinct offsets than [`CAP`]: `offsets.len()` is a lower bound.
    pub offsets_capped: bool,
    /// Read ranges seen, start to end (exclusive), disjoint and not touching.
    read: BTreeMap<i64, i64>,
    /// More disjoint read ranges than [`CAP`]: re-reads past that point are not counted.
    pub reread_capped: bool,
    /// Bytes read that had been read before.
    pub reread_bytes: i64,
}

impl FileAccess {
    /// Counts a request at `offset` moving `bytes` (`read` for a read).
    pub fn add(&mut self, offset: i64, bytes: i64, read: bool) {
        if !self.offsets_capped {
            if self.offsets.len() < CAP {
                self.offsets.insert(offset);
            } else if !self.offsets.contains(&offset) {
                self.offsets_capped = true;
            }
        }
        if read && bytes > 0 && !self.reread_capped {
            self.read_range(offset, offset.saturating_add(bytes));
        }
    }

    /// Distinct offsets (a lower bound when [`FileAccess::offsets_capped`]).
    pub fn distinct_offsets(&self) -> u64 {
        self.offsets.len() as u64
    }

    fn read_range(&mut self, start: i64, end: i64) {
        // Ranges that overlap or touch [start, end): the bytes they share with it were read
        // before; they merge into one range.
        let mut merged_start = start;
        let mut merged_end = end;
        let mut overlap = 0;
        let touching: Vec<(i64, i64)> = self
            .read
            .range(..=end)
            .rev()
            .take_while(|(_, range_end)| **range_end >= start)
            .map(|(range_start, range_end)| (*range_start, *range_end))
            .collect();
        for (range_start, range_end) in touching {
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
        self.read.insert(merged_start, merged_end);
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
        assert_eq!(access.distinct_offsets(), 4, "0, 100, 50 and 300");
    }

    #[test]
    fn past_the_cap_figures_are_marked_as_lower_bounds() {
        let mut access = FileAccess::default();
        for index in 0..(CAP as i64 + 10) {
            access.add(index * 10, 1, true);
        }
        assert!(access.offsets_capped && access.reread_capped);
        assert_eq!(access.distinct_offsets(), CAP as u64);
    }
}
