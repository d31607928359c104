//! DXT modules read from the file record by record, so that memory does not grow with a log's
//! segments: the reader's side of [`crate::DarshanLog::open_streaming`].
//!
//! A DXT region is decompressed piece by piece ([`crate::region::stream`]) and its records
//! parsed as their bytes arrive ([`Feed`]). Opening a log checks each DXT region once this way,
//! keeping no segment: it counts the records and segments, notes the highest rank and latest
//! end (what a log without its job record is estimated from) and reports the problems exactly
//! as decoding the region whole does (the same messages, the same records kept: a stream the
//! decoder refuses drops every record it completed, a record cut at the end is counted with its
//! offset). Reading the segments later ([`crate::DarshanLog::for_each_dxt_record`]) decodes the
//! region again and hands on the records the check kept, one at a time.

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::ops::ControlFlow;
use std::path::Path;

use crate::error::{DarshanError, Region};
use crate::header::{Compression, RegionMap};
use crate::module::{self, DxtParse, DxtRecord};
use crate::region::{self, Piece};

/// Bytes read from the file at a time.
const READ_BUFFER: usize = 256 * 1024;

/// A DXT module left in the file ([`crate::DarshanLog::open_streaming`]): what the check on
/// opening found. [`crate::DarshanLog::for_each_dxt_record`] decodes its records again.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct DxtOnDisk {
    /// Records kept (one file on one rank).
    pub records: usize,
    /// Segments of those records.
    pub segments: u64,
    /// The highest rank of a record kept (-1 without records).
    pub highest_rank: i64,
    /// The latest of the records' ends (a record's end: its segments' latest, from 0), among
    /// the finite ones, in seconds from the job's start: what a log without its job record is
    /// estimated from.
    pub latest_record_end: f64,
    /// The latest finite end of any segment kept, in seconds from the job's start (0 without
    /// any).
    pub latest_segment_end: f64,
}

/// Records parsed from decompressed bytes as they arrive: whole records are handed on, the
/// bytes of a record not yet whole are held.
pub(crate) struct Feed {
    id: usize,
    version: u32,
    swapped: bool,
    /// Bytes after the last whole record.
    pending: Vec<u8>,
    /// Decompressed bytes seen.
    total: u64,
    /// Where the last whole record ends.
    parsed_until: u64,
    /// Where a record with impossible counts starts: nothing after it can be located.
    stopped: Option<u64>,
}

impl Feed {
    pub(crate) fn new(id: usize, version: u32, swapped: bool) -> Feed {
        Feed { id, version, swapped, pending: Vec::new(), total: 0, parsed_until: 0, stopped: None }
    }

    /// Takes `bytes` and hands each record they complete to `each` (until it breaks).
    fn data(&mut self, bytes: &[u8], each: &mut impl FnMut(DxtRecord) -> ControlFlow<()>) -> ControlFlow<()> {
        self.total += bytes.len() as u64;
        if self.stopped.is_some() {
            return ControlFlow::Continue(());
        }
        self.pending.extend_from_slice(bytes);
        let mut position = 0;
        let mut flow = ControlFlow::Continue(());
        while position < self.pending.len() && flow.is_continue() {
            match module::parse_dxt_record(self.id, self.version, &self.pending[position..], self.swapped) {
                DxtParse::Record(record, size) => {
                    position += size;
                    flow = each(record);
                }
                DxtParse::Short => break,
                DxtParse::Invalid => {
                    self.stopped = Some(self.parsed_until + position as u64);
                    break;
                }
            }
        }
        self.parsed_until += position as u64;
        if self.stopped.is_some() {
            self.pending = Vec::new();
        } else {
            self.pending.drain(..position);
        }
        flow
    }

    /// Where the records stop and how many decompressed bytes after that are not a whole
    /// record: `None` when every byte belongs to a whole record.
    fn cut(&self) -> Option<(u64, u64)> {
        let at = self.stopped.unwrap_or(self.parsed_until);
        (at < self.total).then(|| (at, self.total - at))
    }
}

/// What checking a DXT region found (the problems in the order decoding it whole reports them).
pub(crate) struct Checked {
    pub(crate) on_disk: DxtOnDisk,
    pub(crate) streams: usize,
    /// The decompressor's problem, if any.
    pub(crate) inflate_problem: Option<String>,
    /// A record that cannot be read whole: its problem and the bytes left over.
    pub(crate) cut: Option<(String, usize)>,
}

/// The state a refused stream's records are taken back to: what the last whole stream left.
#[derive(Clone)]
struct Kept {
    on_disk: DxtOnDisk,
    total: u64,
    parsed_until: u64,
    stopped: Option<u64>,
    pending: usize,
}

/// Checks the DXT region of module `id` (record version `version`) read from `input`.
pub(crate) fn check(
    input: &mut impl BufRead,
    compression: Compression,
    id: usize,
    version: u32,
    swapped: bool,
) -> Checked {
    let mut feed = Feed::new(id, version, swapped);
    let mut on_disk = DxtOnDisk { highest_rank: -1, ..DxtOnDisk::default() };
    let mut kept: Option<Kept> = None;
    let streamed = region::stream(input, compression, &mut |piece| {
        match piece {
            Piece::Data(bytes) => {
                let _ = feed.data(bytes, &mut |record| {
                    on_disk.records += 1;
                    on_disk.segments += record.segments.len() as u64;
                    on_disk.highest_rank = on_disk.highest_rank.max(record.rank);
                    let end = record.segments.iter().fold(0.0_f64, |latest, segment| latest.max(segment.end));
                    if end.is_finite() {
                        on_disk.latest_record_end = on_disk.latest_record_end.max(end);
                    }
                    on_disk.latest_segment_end = record
                        .segments
                        .iter()
                        .map(|segment| segment.end)
                        .filter(|end| end.is_finite())
                        .fold(on_disk.latest_segment_end, f64::max);
                    ControlFlow::Continue(())
                });
            }
            Piece::StreamEnd => {
                kept = Some(Kept {
                    on_disk: on_disk.clone(),
                    total: feed.total,
                    parsed_until: feed.parsed_until,
                    stopped: feed.stopped,
                    pending: feed.pending.len(),
                });
            }
        }
        ControlFlow::Continue(())
    });
    if streamed.dropped > 0 {
        // The refused stream's bytes are dropped, and every record they completed with them.
        let back = kept.unwrap_or(Kept {
            on_disk: DxtOnDisk { highest_rank: -1, ..DxtOnDisk::default() },
            total: 0,
            parsed_until: 0,
            stopped: None,
            pending: 0,
        });
        on_disk = back.on_disk;
        feed.total = back.total;
        feed.parsed_until = back.parsed_until;
        feed.stopped = back.stopped;
        feed.pending.truncate(back.pending);
    }
    let cut = feed.cut().map(|(at, leftover)| {
        (module::incomplete_dxt(id, at), usize::try_from(leftover).unwrap_or(usize::MAX))
    });
    Checked { on_disk, streams: streamed.streams, inflate_problem: streamed.problem, cut }
}

/// Hands the first `records` records of the DXT region `map` of the log at `path` to `each`, one
/// at a time, until it breaks.
pub(crate) fn replay(
    path: &Path,
    map: RegionMap,
    compression: Compression,
    (id, version, swapped): (usize, u32, bool),
    records: usize,
    each: &mut impl FnMut(&DxtRecord) -> ControlFlow<()>,
) -> Result<(), DarshanError> {
    let region_name = || Region::Module(module::module_name(id).to_string());
    let mut file =
        std::fs::File::open(path).map_err(|source| DarshanError::Io { path: path.to_path_buf(), source })?;
    file.seek(SeekFrom::Start(map.offset))
        .map_err(|source| DarshanError::Io { path: path.to_path_buf(), source })?;
    let mut input = BufReader::with_capacity(READ_BUFFER, file.take(map.length));
    let mut feed = Feed::new(id, version, swapped);
    let mut handed = 0;
    let mut caller_stopped = false;
    let _ = region::stream(&mut input, compression, &mut |piece| match piece {
        Piece::Data(bytes) => feed.data(bytes, &mut |record| {
            if handed == records {
                return ControlFlow::Break(());
            }
            handed += 1;
            if each(&record).is_break() {
                caller_stopped = true;
                return ControlFlow::Break(());
            }
            if handed == records { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
        }),
        Piece::StreamEnd => ControlFlow::Continue(()),
    });
    if handed < records && !caller_stopped {
        return Err(DarshanError::format(
            path,
            region_name(),
            map.offset,
            format!(
                "the region changed since the log was opened: {handed} of its {records} records read again"
            ),
        ));
    }
    Ok(())
}

/// The DXT segments of one log.
#[derive(Clone, Debug, Default, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct LogSegments {
    /// The log as given.
    pub log: String,
    /// Per DXT module in the log.
    pub modules: Vec<ModuleSegments>,
    /// What could not be read (damaged regions, dropped records, segments left out).
    pub problems: Vec<String>,
}

/// The segments of one DXT module of a log.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct ModuleSegments {
    /// `DXT_POSIX` or `DXT_MPIIO`.
    pub module: String,
    /// Records (one file on one rank).
    pub records: u64,
    /// Read segments.
    pub reads: u64,
    /// Write segments.
    pub writes: u64,
    /// Bytes of the read segments.
    pub read_bytes: u64,
    /// Bytes of the write segments.
    pub write_bytes: u64,
    /// Segments left out as impossible (a negative length, a time that is not a number, an end
    /// before the start).
    pub left_out: u64,
    /// The module's region could not be read whole: its segments are those read.
    pub damaged: bool,
}
