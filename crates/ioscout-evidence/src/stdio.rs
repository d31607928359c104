//! The STDIO module's counters of one (process, file), replayed from the trace's STDIO calls with
//! the rules of Darshan's STDIO module (darshan-runtime `darshan-stdio.c`): the position starts
//! at 0 on `fopen`, moves by the bytes of each read and write (`fread`/`fwrite` move items times
//! size), and is set by `fseek` (Darshan asks `ftell` afterwards; the trace gives `fseek`'s
//! offset and `whence`, and `ftell` events re-anchor it) and by `rewind`.

use crate::common::{ABSURD, NoOverlap, move_to, seek_target, stamp};
use crate::op::{Op, OpKind};
use crate::posix::Approximations;

/// Indices of the STDIO counters (`darshan-stdio-log-format.h`, record version 2), taken from
/// the shared typed counters ([`ioscout_darshan::counters`]), as plain indices for the replay's
/// arrays.
#[allow(missing_docs)]
pub mod ix {
    use ioscout_darshan::counters;

    pub const OPENS: usize = counters::STDIO_OPENS.index();
    pub const FDOPENS: usize = counters::STDIO_FDOPENS.index();
    pub const READS: usize = counters::STDIO_READS.index();
    pub const WRITES: usize = counters::STDIO_WRITES.index();
    pub const SEEKS: usize = counters::STDIO_SEEKS.index();
    pub const FLUSHES: usize = counters::STDIO_FLUSHES.index();
    pub const BYTES_WRITTEN: usize = counters::STDIO_BYTES_WRITTEN.index();
    pub const BYTES_READ: usize = counters::STDIO_BYTES_READ.index();
    pub const MAX_BYTE_READ: usize = counters::STDIO_MAX_BYTE_READ.index();
    pub const MAX_BYTE_WRITTEN: usize = counters::STDIO_MAX_BYTE_WRITTEN.index();
    pub const FASTEST_RANK: usize = counters::STDIO_FASTEST_RANK.index();
    pub const FASTEST_RANK_BYTES: usize = counters::STDIO_FASTEST_RANK_BYTES.index();
    pub const SLOWEST_RANK: usize = counters::STDIO_SLOWEST_RANK.index();
    pub const SLOWEST_RANK_BYTES: usize = counters::STDIO_SLOWEST_RANK_BYTES.index();
    pub const COUNT: usize = counters::STDIO_NAMES.len();

    pub const F_META_TIME: usize = counters::STDIO_F_META_TIME.index();
    pub const F_WRITE_TIME: usize = counters::STDIO_F_WRITE_TIME.index();
    pub const F_READ_TIME: usize = counters::STDIO_F_READ_TIME.index();
    pub const F_OPEN_START_TIMESTAMP: usize = counters::STDIO_F_OPEN_START_TIMESTAMP.index();
    pub const F_CLOSE_START_TIMESTAMP: usize = counters::STDIO_F_CLOSE_START_TIMESTAMP.index();
    pub const F_WRITE_START_TIMESTAMP: usize = counters::STDIO_F_WRITE_START_TIMESTAMP.index();
    pub const F_READ_START_TIMESTAMP: usize = counters::STDIO_F_READ_START_TIMESTAMP.index();
    pub const F_OPEN_END_TIMESTAMP: usize = counters::STDIO_F_OPEN_END_TIMESTAMP.index();
    pub const F_CLOSE_END_TIMESTAMP: usize = counters::STDIO_F_CLOSE_END_TIMESTAMP.index();
    pub const F_WRITE_END_TIMESTAMP: usize = counters::STDIO_F_WRITE_END_TIMESTAMP.index();
    pub const F_READ_END_TIMESTAMP: usize = counters::STDIO_F_READ_END_TIMESTAMP.index();
    pub const F_FASTEST_RANK_TIME: usize = counters::STDIO_F_FASTEST_RANK_TIME.index();
    pub const F_SLOWEST_RANK_TIME: usize = counters::STDIO_F_SLOWEST_RANK_TIME.index();
    pub const F_VARIANCE_RANK_TIME: usize = counters::STDIO_F_VARIANCE_RANK_TIME.index();
    pub const F_VARIANCE_RANK_BYTES: usize = counters::STDIO_F_VARIANCE_RANK_BYTES.index();
    pub const F_COUNT: usize = counters::STDIO_F_NAMES.len();
}

/// The STDIO state and counters of one (process, file).
#[derive(Clone, Debug)]
pub struct StdioFile {
    /// Integer counters in [`ioscout_darshan::counters::STDIO_NAMES`] order.
    pub counters: [i64; ix::COUNT],
    /// Floating-point counters in [`ioscout_darshan::counters::STDIO_F_NAMES`] order.
    pub fcounters: [f64; ix::F_COUNT],
    /// What could not be derived exactly.
    pub approximations: Approximations,
    offset: i64,
    position_known: bool,
    opened: bool,
    /// Opened for appending (see [`Approximations::append_position`]).
    append: bool,
    read_time: NoOverlap,
    write_time: NoOverlap,
    meta_time: NoOverlap,
}

impl Default for StdioFile {
    fn default() -> StdioFile {
        StdioFile {
            counters: [0; ix::COUNT],
            fcounters: [0.0; ix::F_COUNT],
            approximations: Approximations::default(),
            offset: 0,
            position_known: false,
            opened: false,
            append: false,
            read_time: NoOverlap::default(),
            write_time: NoOverlap::default(),
            meta_time: NoOverlap::default(),
        }
    }
}

impl StdioFile {
    /// Whether any call was recorded.
    pub fn is_used(&self) -> bool {
        self.counters[..=ix::FLUSHES].iter().any(|&count| count > 0)
    }

    /// Applies one call; `start` and `end` are in seconds since the trace's time origin.
    pub fn apply(&mut self, op: &Op, start: f64, end: f64) {
        match op.kind {
            OpKind::StdioOpen | OpKind::StdioFdopen => {
                if op.kind == OpKind::StdioOpen {
                    self.offset = 0;
                    self.position_known = true;
                } else {
                    self.counters[ix::FDOPENS] += 1;
                }
                self.opened = true;
                self.append = op.append;
                self.counters[ix::OPENS] += 1;
                stamp(&mut self.fcounters, ix::F_OPEN_START_TIMESTAMP, ix::F_OPEN_END_TIMESTAMP, start, end);
                self.meta_time.add(start, end);
            }
            OpKind::StdioRead | OpKind::StdioWrite | OpKind::StdioFlush => self.data(op, start, end),
            OpKind::StdioSeek => {
                if op.failed {
                    return;
                }
                let target = seek_target(self.position_known.then_some(self.offset), op.whence, op.offset());
                if !move_to(&mut self.offset, &mut self.position_known, target) {
                    self.approximations.unknown_seek += 1;
                }
                self.counters[ix::SEEKS] += 1;
                self.meta_time.add(start, end);
            }
            OpKind::StdioTell => {
                if let Some(position) = op.bytes().filter(|position| (0..ABSURD).contains(position)) {
                    self.offset = position;
                    self.position_known = true;
                }
            }
            OpKind::StdioClose => {
                stamp(
                    &mut self.fcounters,
                    ix::F_CLOSE_START_TIMESTAMP,
                    ix::F_CLOSE_END_TIMESTAMP,
                    start,
                    end,
                );
                self.meta_time.add(start, end);
            }
            _ => {}
        }
        self.fcounters[ix::F_READ_TIME] = self.read_time.total;
        self.fcounters[ix::F_WRITE_TIME] = self.write_time.total;
        self.fcounters[ix::F_META_TIME] = self.meta_time.total;
    }

    fn data(&mut self, op: &Op, start: f64, end: f64) {
        let flush = op.kind == OpKind::StdioFlush;
        let Some(bytes) = data_bytes(op, &mut self.approximations) else { return };
        if !self.opened {
            self.approximations.before_open += 1;
            self.opened = true;
            self.position_known = true;
        } else if !self.position_known {
            self.approximations.unknown_position += 1;
        } else if self.append && op.kind == OpKind::StdioWrite {
            self.approximations.append_position += 1;
        }
        let this_offset = self.offset;
        self.offset = this_offset.saturating_add(bytes);
        if op.kind == OpKind::StdioRead {
            if self.counters[ix::MAX_BYTE_READ] < this_offset.saturating_add(bytes) - 1 {
                self.counters[ix::MAX_BYTE_READ] = this_offset.saturating_add(bytes) - 1;
            }
            self.counters[ix::BYTES_READ] = self.counters[ix::BYTES_READ].saturating_add(bytes);
            self.counters[ix::READS] += 1;
            stamp(&mut self.fcounters, ix::F_READ_START_TIMESTAMP, ix::F_READ_END_TIMESTAMP, start, end);
            self.read_time.add(start, end);
        } else {
            if self.counters[ix::MAX_BYTE_WRITTEN] < this_offset.saturating_add(bytes) - 1 {
                self.counters[ix::MAX_BYTE_WRITTEN] = this_offset.saturating_add(bytes) - 1;
            }
            self.counters[ix::BYTES_WRITTEN] = self.counters[ix::BYTES_WRITTEN].saturating_add(bytes);
            self.counters[if flush { ix::FLUSHES } else { ix::WRITES }] += 1;
            stamp(&mut self.fcounters, ix::F_WRITE_START_TIMESTAMP, ix::F_WRITE_END_TIMESTAMP, start, end);
            self.write_time.add(start, end);
        }
    }
}

/// The bytes a read, write or flush moves (a flush none), or `None` for a call Darshan does not
/// count (a failed read or write, an absurd size); a size the trace lacks is taken as 0 and
/// counted in `approximations`, as an absurd one is. The state of a file Darshan leaves out
/// ([`crate::excluded`]) keeps the same bytes.
pub(crate) fn data_bytes(op: &Op, approximations: &mut Approximations) -> Option<i64> {
    if op.kind == OpKind::StdioFlush {
        return Some(0);
    }
    if op.failed {
        return None;
    }
    match op.bytes() {
        Some(bytes) if (0..ABSURD).contains(&bytes) => Some(bytes),
        Some(_) => {
            approximations.absurd += 1;
            None
        }
        None => {
            approximations.missing_ret += 1;
            Some(0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_name_the_counters_darshan_defines() {
        let names = ioscout_darshan::counters::STDIO_NAMES;
        let fnames = ioscout_darshan::counters::STDIO_F_NAMES;
        assert_eq!((names.len(), fnames.len()), (ix::COUNT, ix::F_COUNT));
        assert_eq!(names[ix::BYTES_WRITTEN], "STDIO_BYTES_WRITTEN");
        assert_eq!(names[ix::MAX_BYTE_WRITTEN], "STDIO_MAX_BYTE_WRITTEN");
        assert_eq!(names[ix::SLOWEST_RANK_BYTES], "STDIO_SLOWEST_RANK_BYTES");
        assert_eq!(fnames[ix::F_READ_TIME], "STDIO_F_READ_TIME");
        assert_eq!(fnames[ix::F_READ_END_TIMESTAMP], "STDIO_F_READ_END_TIMESTAMP");
        assert_eq!(fnames[ix::F_VARIANCE_RANK_BYTES], "STDIO_F_VARIANCE_RANK_BYTES");
    }
}
