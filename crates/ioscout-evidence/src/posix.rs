//! The POSIX module's counters of one (process, file), built by replaying that process's calls on
//! the file in trace order, with the rules of Darshan's POSIX module (darshan-runtime
//! `darshan-posix.c`, `POSIX_RECORD_OPEN`/`READ`/`WRITE` and the wrappers of `lseek`, the stat
//! family, `fsync`, `fdatasync`, `mmap`, `close`, `dup`, `rename`). Darshan keeps one position per
//! (process, file), not per descriptor, and so does this; the shared-file reduction across
//! processes is in [`crate::reduce`].
//!
//! What a trace cannot tell is counted in [`Approximations`]: a data call without `ret`, a read
//! or write before any open of the file in that process (the position is unknown: taken as 0,
//! as Darshan would not have seen the call at all), a `SEEK_END` whose target is unknown.

use crate::common::{ABSURD, CommonValues, NoOverlap, move_to, seek_target, size_bin, stamp};
use crate::op::{Op, OpKind};

/// Indices of the POSIX counters (`darshan-posix-log-format.h`, record version 4), taken from
/// the shared typed counters ([`ioscout_darshan::counters`]), as plain indices for the replay's
/// arrays.
#[allow(missing_docs)]
pub mod ix {
    use ioscout_darshan::counters;

    pub const OPENS: usize = counters::POSIX_OPENS.index();
    pub const FILENOS: usize = counters::POSIX_FILENOS.index();
    pub const DUPS: usize = counters::POSIX_DUPS.index();
    pub const READS: usize = counters::POSIX_READS.index();
    pub const WRITES: usize = counters::POSIX_WRITES.index();
    pub const SEEKS: usize = counters::POSIX_SEEKS.index();
    pub const STATS: usize = counters::POSIX_STATS.index();
    pub const MMAPS: usize = counters::POSIX_MMAPS.index();
    pub const FSYNCS: usize = counters::POSIX_FSYNCS.index();
    pub const FDSYNCS: usize = counters::POSIX_FDSYNCS.index();
    pub const RENAME_SOURCES: usize = counters::POSIX_RENAME_SOURCES.index();
    pub const RENAME_TARGETS: usize = counters::POSIX_RENAME_TARGETS.index();
    pub const RENAMED_FROM: usize = counters::POSIX_RENAMED_FROM.index();
    pub const MODE: usize = counters::POSIX_MODE.index();
    pub const BYTES_READ: usize = counters::POSIX_BYTES_READ.index();
    pub const BYTES_WRITTEN: usize = counters::POSIX_BYTES_WRITTEN.index();
    pub const MAX_BYTE_READ: usize = counters::POSIX_MAX_BYTE_READ.index();
    pub const MAX_BYTE_WRITTEN: usize = counters::POSIX_MAX_BYTE_WRITTEN.index();
    pub const CONSEC_READS: usize = counters::POSIX_CONSEC_READS.index();
    pub const CONSEC_WRITES: usize = counters::POSIX_CONSEC_WRITES.index();
    pub const SEQ_READS: usize = counters::POSIX_SEQ_READS.index();
    pub const SEQ_WRITES: usize = counters::POSIX_SEQ_WRITES.index();
    pub const RW_SWITCHES: usize = counters::POSIX_RW_SWITCHES.index();
    pub const MEM_NOT_ALIGNED: usize = counters::POSIX_MEM_NOT_ALIGNED.index();
    pub const MEM_ALIGNMENT: usize = counters::POSIX_MEM_ALIGNMENT.index();
    pub const FILE_NOT_ALIGNED: usize = counters::POSIX_FILE_NOT_ALIGNED.index();
    pub const FILE_ALIGNMENT: usize = counters::POSIX_FILE_ALIGNMENT.index();
    pub const MAX_READ_TIME_SIZE: usize = counters::POSIX_MAX_READ_TIME_SIZE.index();
    pub const MAX_WRITE_TIME_SIZE: usize = counters::POSIX_MAX_WRITE_TIME_SIZE.index();
    pub const SIZE_READ_0_100: usize = counters::POSIX_SIZE_READ_0_100.index();
    pub const SIZE_WRITE_0_100: usize = counters::POSIX_SIZE_WRITE_0_100.index();
    pub const STRIDE1_STRIDE: usize = counters::POSIX_STRIDE1_STRIDE.index();
    pub const STRIDE1_COUNT: usize = counters::POSIX_STRIDE1_COUNT.index();
    pub const ACCESS1_ACCESS: usize = counters::POSIX_ACCESS1_ACCESS.index();
    pub const ACCESS1_COUNT: usize = counters::POSIX_ACCESS1_COUNT.index();
    pub const FASTEST_RANK: usize = counters::POSIX_FASTEST_RANK.index();
    pub const FASTEST_RANK_BYTES: usize = counters::POSIX_FASTEST_RANK_BYTES.index();
    pub const SLOWEST_RANK: usize = counters::POSIX_SLOWEST_RANK.index();
    pub const SLOWEST_RANK_BYTES: usize = counters::POSIX_SLOWEST_RANK_BYTES.index();
    pub const COUNT: usize = counters::POSIX_NAMES.len();

    pub const F_OPEN_START_TIMESTAMP: usize = counters::POSIX_F_OPEN_START_TIMESTAMP.index();
    pub const F_READ_START_TIMESTAMP: usize = counters::POSIX_F_READ_START_TIMESTAMP.index();
    pub const F_WRITE_START_TIMESTAMP: usize = counters::POSIX_F_WRITE_START_TIMESTAMP.index();
    pub const F_CLOSE_START_TIMESTAMP: usize = counters::POSIX_F_CLOSE_START_TIMESTAMP.index();
    pub const F_OPEN_END_TIMESTAMP: usize = counters::POSIX_F_OPEN_END_TIMESTAMP.index();
    pub const F_READ_END_TIMESTAMP: usize = counters::POSIX_F_READ_END_TIMESTAMP.index();
    pub const F_WRITE_END_TIMESTAMP: usize = counters::POSIX_F_WRITE_END_TIMESTAMP.index();
    pub const F_CLOSE_END_TIMESTAMP: usize = counters::POSIX_F_CLOSE_END_TIMESTAMP.index();
    pub const F_READ_TIME: usize = counters::POSIX_F_READ_TIME.index();
    pub const F_WRITE_TIME: usize = counters::POSIX_F_WRITE_TIME.index();
    pub const F_META_TIME: usize = counters::POSIX_F_META_TIME.index();
    pub const F_MAX_READ_TIME: usize = counters::POSIX_F_MAX_READ_TIME.index();
    pub const F_MAX_WRITE_TIME: usize = counters::POSIX_F_MAX_WRITE_TIME.index();
    pub const F_FASTEST_RANK_TIME: usize = counters::POSIX_F_FASTEST_RANK_TIME.index();
    pub const F_SLOWEST_RANK_TIME: usize = counters::POSIX_F_SLOWEST_RANK_TIME.index();
    pub const F_VARIANCE_RANK_TIME: usize = counters::POSIX_F_VARIANCE_RANK_TIME.index();
    pub const F_VARIANCE_RANK_BYTES: usize = counters::POSIX_F_VARIANCE_RANK_BYTES.index();
    pub const F_COUNT: usize = counters::POSIX_F_NAMES.len();
}

/// The file alignment assumed for `POSIX_FILE_NOT_ALIGNED` (the trace does not record the file
/// system's block size; Darshan takes it from the mount, 4096 on ext4 and most local file
/// systems). Stated in every derived output.
pub const ASSUMED_FILE_ALIGNMENT: i64 = 4096;

/// What could not be derived exactly, by reason.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Approximations {
    /// Data calls without `ret` (counted as calls, their bytes unknown and taken as 0).
    pub missing_ret: u64,
    /// Positional reads and writes (`pread`, `pwrite`) without `offset` (the position is used).
    pub missing_offset: u64,
    /// Data calls on a file this process had not opened in the trace (position taken as 0).
    pub before_open: u64,
    /// Seeks whose target the trace cannot give (`SEEK_END` without a return value, an
    /// `fseek` from the end): the position is unknown until the next open or absolute seek.
    pub unknown_seek: u64,
    /// Calls whose position depended on an unknown one.
    pub unknown_position: u64,
    /// Negative or absurd offsets or sizes (ignored).
    pub absurd: u64,
    /// Writes on a stream opened for appending (`O_APPEND`, `fopen` mode `a`): they go to the
    /// file's end, which the trace does not record; their offsets are taken as Darshan takes them
    /// (from 0 at the open).
    pub append_position: u64,
    /// `mmap` calls: reads and writes through a mapping are memory accesses, not calls, so
    /// neither the trace nor Darshan sees their bytes.
    pub mapped: u64,
    /// Distinct access sizes or strides past Darshan's 32 tracked values (Darshan drops them too).
    pub untracked_values: u64,
}

impl Approximations {
    /// All approximated counts.
    pub fn total(&self) -> u64 {
        self.missing_ret
            + self.missing_offset
            + self.before_open
            + self.unknown_seek
            + self.unknown_position
            + self.absurd
            + self.append_position
            + self.mapped
    }

    /// Adds `other`.
    pub fn add(&mut self, other: &Approximations) {
        self.missing_ret += other.missing_ret;
        self.missing_offset += other.missing_offset;
        self.before_open += other.before_open;
        self.unknown_seek += other.unknown_seek;
        self.unknown_position += other.unknown_position;
        self.absurd += other.absurd;
        self.append_position += other.append_position;
        self.mapped += other.mapped;
        self.untracked_values += other.untracked_values;
    }
}

/// Where a (process, file)'s stream is: where a read or write without an offset of its own
/// starts. Darshan keeps one per (process, file), as [`PosixFile`] does; the state of a file
/// Darshan leaves out keeps it too ([`crate::excluded`]), as the access sample shows the offsets
/// of those files' calls.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Position {
    offset: i64,
    known: bool,
    opened: bool,
    /// Opened for appending (see [`Approximations::append_position`]).
    pub(crate) append: bool,
}

impl Position {
    /// An `open` (`reset`: the position goes to 0) or a `dup` (it stays).
    pub(crate) fn open(&mut self, reset: bool) {
        if reset {
            self.offset = 0;
            self.known = true;
        }
        self.opened = true;
    }

    /// A seek that did not fail: whether its target is known (else the position no longer is).
    pub(crate) fn seek(&mut self, op: &Op) -> bool {
        // `lseek` returns the new position; without it, `whence` and `offset` may tell.
        let known = self.known.then_some(self.offset);
        let target = op
            .bytes()
            .filter(|new| (0..ABSURD).contains(new))
            .or_else(|| seek_target(known, op.whence, op.offset()));
        move_to(&mut self.offset, &mut self.known, target)
    }

    /// A read or write: the offset it starts at and the bytes it moves (the position moved past
    /// them), or `None` for a call that moves nothing Darshan counts (failed, or an absurd size
    /// or offset). What it cannot tell exactly is counted in `approximations`.
    #[inline]
    pub(crate) fn data(&mut self, op: &Op, approximations: &mut Approximations) -> Option<(i64, i64)> {
        if op.failed {
            return None;
        }
        let bytes = match op.bytes() {
            Some(bytes) if (0..ABSURD).contains(&bytes) => bytes,
            Some(_) => {
                approximations.absurd += 1;
                return None;
            }
            None => {
                approximations.missing_ret += 1;
                0
            }
        };
        if !self.opened {
            approximations.before_open += 1;
            self.opened = true;
            self.known = true;
        }
        let read = op.kind == OpKind::PosixRead;
        // Its own offset for `pread`/`pwrite` (the position when it has none, counted), else the
        // stream's position (an unknown position or an append counted); an absurd offset drops
        // the call.
        let this_offset = match (op.positional, op.offset()) {
            (true, Some(offset)) if (0..ABSURD).contains(&offset) => offset,
            (true, Some(_)) => {
                approximations.absurd += 1;
                return None;
            }
            (true, None) => {
                approximations.missing_offset += 1;
                self.offset
            }
            (false, _) => {
                if !self.known {
                    approximations.unknown_position += 1;
                } else if self.append && !read {
                    approximations.append_position += 1;
                }
                self.offset
            }
        };
        self.offset = this_offset + bytes;
        Some((this_offset, bytes))
    }
}

/// The POSIX state and counters of one (process, file).
#[derive(Clone, Debug)]
pub struct PosixFile {
    /// Integer counters in [`ioscout_darshan::counters::POSIX_NAMES`] order.
    pub counters: [i64; ix::COUNT],
    /// Floating-point counters in [`ioscout_darshan::counters::POSIX_F_NAMES`] order.
    pub fcounters: [f64; ix::F_COUNT],
    /// What could not be derived exactly.
    pub approximations: Approximations,
    position: Position,
    last_byte_read: i64,
    last_byte_written: i64,
    /// 0 none, 1 read, 2 write.
    last_io: u8,
    access: CommonValues,
    stride: CommonValues,
    read_time: NoOverlap,
    write_time: NoOverlap,
    meta_time: NoOverlap,
}

impl Default for PosixFile {
    fn default() -> PosixFile {
        let mut counters = [0; ix::COUNT];
        counters[ix::MEM_ALIGNMENT] = -1;
        counters[ix::MEM_NOT_ALIGNED] = -1;
        counters[ix::FILE_ALIGNMENT] = ASSUMED_FILE_ALIGNMENT;
        PosixFile {
            counters,
            fcounters: [0.0; ix::F_COUNT],
            approximations: Approximations::default(),
            position: Position::default(),
            last_byte_read: 0,
            last_byte_written: 0,
            last_io: 0,
            access: CommonValues::default(),
            stride: CommonValues::default(),
            read_time: NoOverlap::default(),
            write_time: NoOverlap::default(),
            meta_time: NoOverlap::default(),
        }
    }
}

impl PosixFile {
    /// Whether any call was recorded (a record Darshan would write).
    pub fn is_used(&self) -> bool {
        self.counters[..=ix::RENAME_TARGETS].iter().any(|&count| count > 0)
    }

    /// Applies one call; `start` and `end` are in seconds since the trace's time origin. For a
    /// read or write, returns the offset it was at and the bytes it moved.
    pub fn apply(&mut self, op: &Op, start: f64, end: f64) -> Option<(i64, i64)> {
        let mut access = None;
        match op.kind {
            OpKind::PosixOpen => {
                self.open(start, end, true, None);
                self.position.append = op.append;
            }
            OpKind::PosixDup => self.open(start, end, false, Some(ix::DUPS)),
            OpKind::PosixRead | OpKind::PosixWrite => access = self.data(op, start, end),
            OpKind::PosixSeek => self.seek(op, start, end),
            OpKind::PosixStat => {
                self.counters[ix::STATS] += 1;
                self.meta_time.add(start, end);
            }
            OpKind::PosixFsync | OpKind::PosixFdatasync => {
                let counter = if op.kind == OpKind::PosixFsync { ix::FSYNCS } else { ix::FDSYNCS };
                self.counters[counter] += 1;
                self.write_time.add(start, end);
            }
            OpKind::PosixMmap => {
                self.counters[ix::MMAPS] += 1;
                self.approximations.mapped += 1;
            }
            OpKind::PosixClose => {
                self.last_byte_read = 0;
                self.last_byte_written = 0;
                stamp(
                    &mut self.fcounters,
                    ix::F_CLOSE_START_TIMESTAMP,
                    ix::F_CLOSE_END_TIMESTAMP,
                    start,
                    end,
                );
                self.meta_time.add(start, end);
            }
            OpKind::PosixRename => {
                self.counters[ix::RENAME_SOURCES] += 1;
                self.meta_time.add(start, end);
            }
            _ => {}
        }
        self.flush_times();
        access
    }

    /// Counts this file as the target of a rename from record `from`.
    pub fn renamed_from(&mut self, from: i64) {
        self.counters[ix::RENAME_TARGETS] += 1;
        if self.counters[ix::RENAMED_FROM] == 0 {
            self.counters[ix::RENAMED_FROM] = from;
        }
    }

    fn open(&mut self, start: f64, end: f64, reset: bool, also: Option<usize>) {
        if reset {
            self.last_byte_read = 0;
            self.last_byte_written = 0;
        }
        self.position.open(reset);
        self.counters[ix::OPENS] += 1;
        if let Some(counter) = also {
            self.counters[counter] += 1;
        }
        stamp(&mut self.fcounters, ix::F_OPEN_START_TIMESTAMP, ix::F_OPEN_END_TIMESTAMP, start, end);
        self.meta_time.add(start, end);
    }

    fn seek(&mut self, op: &Op, start: f64, end: f64) {
        if op.failed {
            return;
        }
        if !self.position.seek(op) {
            self.approximations.unknown_seek += 1;
        }
        self.counters[ix::SEEKS] += 1;
        self.meta_time.add(start, end);
    }

    fn data(&mut self, op: &Op, start: f64, end: f64) -> Option<(i64, i64)> {
        let read = op.kind == OpKind::PosixRead;
        let (this_offset, bytes) = self.position.data(op, &mut self.approximations)?;
        let (last_byte, seq, consec, max_byte, total, calls, bins, last_other, this_io) = if read {
            (
                &mut self.last_byte_read,
                ix::SEQ_READS,
                ix::CONSEC_READS,
                ix::MAX_BYTE_READ,
                ix::BYTES_READ,
                ix::READS,
                ix::SIZE_READ_0_100,
                2,
                1,
            )
        } else {
            (
                &mut self.last_byte_written,
                ix::SEQ_WRITES,
                ix::CONSEC_WRITES,
                ix::MAX_BYTE_WRITTEN,
                ix::BYTES_WRITTEN,
                ix::WRITES,
                ix::SIZE_WRITE_0_100,
                1,
                2,
            )
        };
        if this_offset > *last_byte {
            self.counters[seq] += 1;
        }
        if this_offset == *last_byte + 1 {
            self.counters[consec] += 1;
        }
        let stride = if this_offset > 0 && this_offset > *last_byte && *last_byte != 0 {
            this_offset - *last_byte - 1
        } else {
            0
        };
        *last_byte = this_offset + bytes - 1;
        if self.counters[max_byte] < this_offset + bytes - 1 {
            self.counters[max_byte] = this_offset + bytes - 1;
        }
        self.counters[total] = self.counters[total].saturating_add(bytes);
        self.counters[calls] += 1;
        self.counters[bins + size_bin(bytes)] += 1;
        self.access.add(bytes);
        self.stride.add(stride);
        if this_offset % ASSUMED_FILE_ALIGNMENT != 0 {
            self.counters[ix::FILE_NOT_ALIGNED] += 1;
        }
        if self.last_io == last_other {
            self.counters[ix::RW_SWITCHES] += 1;
        }
        self.last_io = this_io;
        self.time_data(read, bytes, start, end);
        Some((this_offset, bytes))
    }

    /// A data call's time: its direction's timestamps, slowest call with its size, and time.
    #[inline]
    fn time_data(&mut self, read: bool, bytes: i64, start: f64, end: f64) {
        let elapsed = end - start;
        if read {
            stamp(&mut self.fcounters, ix::F_READ_START_TIMESTAMP, ix::F_READ_END_TIMESTAMP, start, end);
            if self.fcounters[ix::F_MAX_READ_TIME] < elapsed {
                self.fcounters[ix::F_MAX_READ_TIME] = elapsed;
                self.counters[ix::MAX_READ_TIME_SIZE] = bytes;
            }
            self.read_time.add(start, end);
        } else {
            stamp(&mut self.fcounters, ix::F_WRITE_START_TIMESTAMP, ix::F_WRITE_END_TIMESTAMP, start, end);
            if self.fcounters[ix::F_MAX_WRITE_TIME] < elapsed {
                self.fcounters[ix::F_MAX_WRITE_TIME] = elapsed;
                self.counters[ix::MAX_WRITE_TIME_SIZE] = bytes;
            }
            self.write_time.add(start, end);
        }
    }

    fn flush_times(&mut self) {
        self.fcounters[ix::F_READ_TIME] = self.read_time.total;
        self.fcounters[ix::F_WRITE_TIME] = self.write_time.total;
        self.fcounters[ix::F_META_TIME] = self.meta_time.total;
    }

    /// Writes the common access sizes and strides into the counters (done once, at the end).
    pub fn finish(&mut self) {
        let (values, counts) = self.access.top4();
        self.counters[ix::ACCESS1_ACCESS..ix::ACCESS1_ACCESS + 4].copy_from_slice(&values);
        self.counters[ix::ACCESS1_COUNT..ix::ACCESS1_COUNT + 4].copy_from_slice(&counts);
        let (values, counts) = self.stride.top4();
        self.counters[ix::STRIDE1_STRIDE..ix::STRIDE1_STRIDE + 4].copy_from_slice(&values);
        self.counters[ix::STRIDE1_COUNT..ix::STRIDE1_COUNT + 4].copy_from_slice(&counts);
        self.approximations.untracked_values = self.access.untracked + self.stride.untracked;
        self.flush_times();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_name_the_counters_darshan_defines() {
        let names = ioscout_darshan::counters::POSIX_NAMES;
        let fnames = ioscout_darshan::counters::POSIX_F_NAMES;
        assert_eq!(names.len(), ix::COUNT);
        assert_eq!(fnames.len(), ix::F_COUNT);
        for (index, name) in [
            (ix::OPENS, "POSIX_OPENS"),
            (ix::DUPS, "POSIX_DUPS"),
            (ix::SEEKS, "POSIX_SEEKS"),
            (ix::FDSYNCS, "POSIX_FDSYNCS"),
            (ix::RENAMED_FROM, "POSIX_RENAMED_FROM"),
            (ix::BYTES_READ, "POSIX_BYTES_READ"),
            (ix::MAX_BYTE_WRITTEN, "POSIX_MAX_BYTE_WRITTEN"),
            (ix::CONSEC_READS, "POSIX_CONSEC_READS"),
            (ix::SEQ_WRITES, "POSIX_SEQ_WRITES"),
            (ix::RW_SWITCHES, "POSIX_RW_SWITCHES"),
            (ix::MEM_ALIGNMENT, "POSIX_MEM_ALIGNMENT"),
            (ix::FILE_ALIGNMENT, "POSIX_FILE_ALIGNMENT"),
            (ix::MAX_WRITE_TIME_SIZE, "POSIX_MAX_WRITE_TIME_SIZE"),
            (ix::SIZE_READ_0_100, "POSIX_SIZE_READ_0_100"),
            (ix::SIZE_WRITE_0_100, "POSIX_SIZE_WRITE_0_100"),
            (ix::STRIDE1_STRIDE, "POSIX_STRIDE1_STRIDE"),
            (ix::STRIDE1_COUNT, "POSIX_STRIDE1_COUNT"),
            (ix::ACCESS1_ACCESS, "POSIX_ACCESS1_ACCESS"),
            (ix::ACCESS1_COUNT, "POSIX_ACCESS1_COUNT"),
            (ix::FASTEST_RANK, "POSIX_FASTEST_RANK"),
            (ix::SLOWEST_RANK_BYTES, "POSIX_SLOWEST_RANK_BYTES"),
        ] {
            assert_eq!(names[index], name);
        }
        for (index, name) in [
            (ix::F_OPEN_START_TIMESTAMP, "POSIX_F_OPEN_START_TIMESTAMP"),
            (ix::F_CLOSE_END_TIMESTAMP, "POSIX_F_CLOSE_END_TIMESTAMP"),
            (ix::F_META_TIME, "POSIX_F_META_TIME"),
            (ix::F_MAX_WRITE_TIME, "POSIX_F_MAX_WRITE_TIME"),
            (ix::F_VARIANCE_RANK_BYTES, "POSIX_F_VARIANCE_RANK_BYTES"),
        ] {
            assert_eq!(fnames[index], name);
        }
    }
}
