//! The modules of a Darshan log and their records: the module ids and names, the record layout
//! of each module version, the up-conversion of older record versions to today's layout (the
//! counters a version lacks are set to -1, "not monitored", as Darshan does), and the
//! variable-size records of LUSTRE, DXT and HEATMAP.

use crate::bytes::{Cursor, fixed_string};
use crate::counters;

/// Module names by id (`darshan-log-format.h`'s module list).
pub const MODULE_NAMES: [&str; 18] = [
    "NULL",
    "POSIX",
    "MPI-IO",
    "H5F",
    "H5D",
    "PNETCDF_FILE",
    "PNETCDF_VAR",
    "BG/Q",
    "LUSTRE",
    "STDIO",
    "DXT_POSIX",
    "DXT_MPIIO",
    "MDHIM",
    "APXC",
    "APMPI",
    "HEATMAP",
    "DFS",
    "DAOS",
];

/// Module ids.
pub mod id {
    /// POSIX.
    pub const POSIX: usize = 1;
    /// MPI-IO.
    pub const MPIIO: usize = 2;
    /// HDF5 files.
    pub const H5F: usize = 3;
    /// HDF5 datasets.
    pub const H5D: usize = 4;
    /// `PnetCDF` files.
    pub const PNETCDF_FILE: usize = 5;
    /// `PnetCDF` variables.
    pub const PNETCDF_VAR: usize = 6;
    /// Lustre layouts.
    pub const LUSTRE: usize = 8;
    /// STDIO.
    pub const STDIO: usize = 9;
    /// DXT traces of POSIX calls.
    pub const DXT_POSIX: usize = 10;
    /// DXT traces of MPI-IO calls.
    pub const DXT_MPIIO: usize = 11;
    /// Time-binned read and write volume.
    pub const HEATMAP: usize = 15;
    /// DAOS file system.
    pub const DFS: usize = 16;
    /// DAOS objects.
    pub const DAOS: usize = 17;
}

/// The name of module `id` (`<UNKNOWN>` past the known ones).
pub fn module_name(id: usize) -> &'static str {
    MODULE_NAMES.get(id).copied().unwrap_or("<UNKNOWN>")
}

/// The counter names of a fixed-layout module: integer and floating-point counters.
pub fn counter_names(id: usize) -> Option<(&'static [&'static str], &'static [&'static str])> {
    Some(match id {
        id::POSIX => (counters::POSIX_NAMES, counters::POSIX_F_NAMES),
        id::MPIIO => (counters::MPIIO_NAMES, counters::MPIIO_F_NAMES),
        id::STDIO => (counters::STDIO_NAMES, counters::STDIO_F_NAMES),
        id::H5F => (counters::H5F_NAMES, counters::H5F_F_NAMES),
        id::H5D => (counters::H5D_NAMES, counters::H5D_F_NAMES),
        id::PNETCDF_FILE => (counters::PNETCDF_FILE_NAMES, counters::PNETCDF_FILE_F_NAMES),
        id::PNETCDF_VAR => (counters::PNETCDF_VAR_NAMES, counters::PNETCDF_VAR_F_NAMES),
        id::DFS => (counters::DFS_NAMES, counters::DFS_F_NAMES),
        id::DAOS => (counters::DAOS_NAMES, counters::DAOS_F_NAMES),
        _ => return None,
    })
}

/// A record of a fixed-layout module (POSIX, MPI-IO, STDIO, H5F, H5D, `PnetCDF`, DFS, DAOS),
/// in today's layout.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct CounterRecord {
    /// Record id (the hash of the path).
    pub id: u64,
    /// Rank, or -1 for a record shared by all ranks (reduced).
    pub rank: i64,
    /// The file record a dataset or variable belongs to (H5D, `PNETCDF_VAR`).
    pub file_record_id: Option<u64>,
    /// Integer counters, in the order of [`counter_names`].
    pub counters: Vec<i64>,
    /// Floating-point counters, in the order of [`counter_names`].
    pub fcounters: Vec<f64>,
}

impl CounterRecord {
    /// A record of `module` for file `id` on `rank` with the named counters set (an integer
    /// counter takes the value truncated) and the others 0, as tests and synthetic inputs build
    /// them; `Err` names the first name that is not a counter of the module.
    pub fn with_values(
        module: usize,
        id: u64,
        rank: i64,
        values: &[(&str, f64)],
    ) -> Result<CounterRecord, String> {
        let (names, float_names) =
            counter_names(module).ok_or_else(|| format!("module {module} has no counters"))?;
        let mut counters = vec![0_i64; names.len()];
        let mut fcounters = vec![0.0_f64; float_names.len()];
        for (name, value) in values {
            if let Some(index) = names.iter().position(|candidate| candidate == name) {
                counters[index] = *value as i64;
            } else if let Some(index) = float_names.iter().position(|candidate| candidate == name) {
                fcounters[index] = *value;
            } else {
                return Err(format!("{name} is not a counter of module {module}"));
            }
        }
        Ok(CounterRecord { id, rank, file_record_id: None, counters, fcounters })
    }
}

/// One component of a Lustre layout.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct LustreComponent {
    /// Stripe size, stripe count, pattern, flags, extent start, extent end, mirror id.
    pub counters: [i64; 7],
    /// OST pool name.
    pub pool: String,
}

/// A Lustre layout record.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct LustreRecord {
    /// Record id.
    pub id: u64,
    /// Rank (-1 shared).
    pub rank: i64,
    /// Layout components (one before Lustre PFL).
    pub components: Vec<LustreComponent>,
    /// OST ids of every component's stripes, in order.
    pub ost_ids: Vec<i64>,
}

/// One traced call of DXT.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Segment {
    /// Whether it was a write (writes come first in the record).
    pub write: bool,
    /// File offset (-1 when unknown: DXT MPI-IO version 1).
    pub offset: i64,
    /// Bytes.
    pub length: i64,
    /// Start, seconds since the job started.
    pub start: f64,
    /// End, seconds since the job started.
    pub end: f64,
    /// Thread id (DXT POSIX 2 and later, DXT MPI-IO 3 and later).
    pub pthread_id: Option<u64>,
}

impl Segment {
    /// Whether the segment can have happened: a length of 0 or more, times that are numbers,
    /// an end at or after its start. The views of DXT data leave the others out and count them.
    pub fn is_possible(&self) -> bool {
        self.length >= 0 && self.start.is_finite() && self.end.is_finite() && self.end >= self.start
    }
}

/// A DXT record: one file on one rank.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct DxtRecord {
    /// Record id.
    pub id: u64,
    /// Rank.
    pub rank: i64,
    /// -1 for a shared file.
    pub shared_record: i64,
    /// Host name.
    pub hostname: String,
    /// Writes traced.
    pub write_count: i64,
    /// Reads traced.
    pub read_count: i64,
    /// The calls: writes, then reads.
    pub segments: Vec<Segment>,
}

/// A heatmap record: bytes read and written per time bin, per rank.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct HeatmapRecord {
    /// Record id (of the pseudo-name `heatmap:POSIX` and the like).
    pub id: u64,
    /// Rank.
    pub rank: i64,
    /// Width of each bin in seconds.
    pub bin_width_seconds: f64,
    /// Bytes written per bin.
    pub write_bins: Vec<i64>,
    /// Bytes read per bin.
    pub read_bins: Vec<i64>,
}

/// The records of one module.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(tag = "kind", content = "records", rename_all = "snake_case")]
pub enum Records {
    /// A fixed-layout module.
    Counters(Vec<CounterRecord>),
    /// LUSTRE.
    Lustre(Vec<LustreRecord>),
    /// `DXT_POSIX` or `DXT_MPIIO`.
    Dxt(Vec<DxtRecord>),
    /// `DXT_POSIX` or `DXT_MPIIO` left in the file ([`crate::DarshanLog::open_streaming`]):
    /// [`crate::DarshanLog::for_each_dxt_record`] reads them.
    DxtOnDisk(crate::dxt::DxtOnDisk),
    /// HEATMAP.
    Heatmap(Vec<HeatmapRecord>),
    /// A module this reader (like darshan-util's default build) has no decoder for: APXC,
    /// APMPI, BG/Q, MDHIM, NULL, or an id past the known ones. Its bytes are counted, not read.
    Opaque,
}

impl Records {
    /// Number of records.
    pub fn len(&self) -> usize {
        match self {
            Records::Counters(records) => records.len(),
            Records::Lustre(records) => records.len(),
            Records::Dxt(records) => records.len(),
            Records::DxtOnDisk(on_disk) => on_disk.records,
            Records::Heatmap(records) => records.len(),
            Records::Opaque => 0,
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The outcome of decoding a module region: the records, the count of records Darshan itself
/// would drop (POSIX version 1 records that mixed in STDIO data), and the bytes left over that
/// did not form a whole record.
pub(crate) struct Decoded {
    pub(crate) records: Records,
    /// Where each counter record starts in the decompressed region (empty for other modules).
    pub(crate) offsets: Vec<usize>,
    pub(crate) skipped: usize,
    pub(crate) leftover: usize,
    pub(crate) problem: Option<String>,
}

/// A stored record layout: integer and float counts, whether a file record id follows the base
/// record, and how many bytes trail the counters.
struct Layout {
    integers: usize,
    floats: usize,
    file_record: bool,
    trailing: usize,
}

/// The record version of module `id` that this reader's layouts are today's for (0 for modules
/// without a fixed layout).
pub fn current_version(id: usize) -> u32 {
    match id {
        id::POSIX => 4,
        id::MPIIO | id::H5F | id::PNETCDF_FILE => 3,
        id::STDIO | id::H5D => 2,
        id::PNETCDF_VAR | id::DFS | id::DAOS => 1,
        _ => 0,
    }
}

fn layout(id: usize, version: u32) -> Option<Layout> {
    let plain = |integers, floats| Some(Layout { integers, floats, file_record: false, trailing: 0 });
    match (id, version) {
        (id::POSIX, 4) => plain(69, 17),
        (id::POSIX, 3) => plain(64, 17),
        (id::POSIX, 2) => plain(64, 15),
        (id::POSIX, 1) => plain(68, 15),
        (id::MPIIO, 3) => plain(51, 17),
        (id::MPIIO, 1 | 2) => plain(51, 15),
        (id::STDIO, 2) => plain(14, 15),
        (id::STDIO, 1) => plain(13, 15),
        (id::H5F, 3) => plain(3, 5),
        (id::H5F, 2) => plain(1, 4),
        (id::H5F, 1) => plain(1, 2),
        (id::H5D, 2) => Some(Layout { integers: 94, floats: 17, file_record: true, trailing: 0 }),
        (id::H5D, 1) => plain(94, 17),
        (id::PNETCDF_FILE, 3) => plain(9, 8),
        (id::PNETCDF_FILE, 2) => plain(2, 4),
        (id::PNETCDF_FILE, 1) => plain(2, 2),
        (id::PNETCDF_VAR, 1) => Some(Layout { integers: 120, floats: 17, file_record: true, trailing: 0 }),
        (id::DFS, 1) => Some(Layout { integers: 52, floats: 15, file_record: false, trailing: 32 }),
        (id::DAOS, 1) => Some(Layout { integers: 64, floats: 15, file_record: false, trailing: 48 }),
        _ => None,
    }
}

fn insert<T: Copy>(values: &mut Vec<T>, at: usize, inserted: &[T]) {
    let at = at.min(values.len());
    values.splice(at..at, inserted.iter().copied());
}

/// Up-converts a record of an older module version to today's layout. Counters a version did not
/// have become -1 ("not monitored"); `PnetCDF` file version 2's separate independent and
/// collective open counts are summed into today's single open count.
fn upconvert(id: usize, version: u32, integers: &mut Vec<i64>, floats: &mut Vec<f64>) {
    match id {
        id::POSIX => {
            if version == 1 {
                // Version 1 carried four stdio counters after the first six.
                integers.drain(6..10);
            }
            if version <= 2 {
                // F_CLOSE_START_TIMESTAMP and F_OPEN_END_TIMESTAMP were added.
                insert(floats, 3, &[-1.0, -1.0]);
            }
            if version <= 3 {
                // FILENOS and DUPS, then RENAME_SOURCES, RENAME_TARGETS and RENAMED_FROM.
                insert(integers, 1, &[-1, -1]);
                insert(integers, 10, &[-1, -1, 0]);
            }
        }
        id::MPIIO if version <= 2 => insert(floats, 3, &[-1.0, -1.0]),
        id::STDIO if version == 1 => insert(integers, 1, &[-1]),
        id::H5F => {
            if version == 1 {
                insert(floats, 1, &[-1.0, -1.0]);
            }
            if version <= 2 {
                insert(integers, 1, &[-1, -1]);
                floats.push(-1.0);
            }
        }
        id::PNETCDF_FILE => {
            if version == 1 {
                insert(floats, 1, &[-1.0, -1.0]);
            }
            if version <= 2 {
                let opens = integers
                    .first()
                    .copied()
                    .unwrap_or(0)
                    .saturating_add(integers.get(1).copied().unwrap_or(0));
                *integers = vec![-1, opens, -1, -1, -1, -1, -1, -1, -1];
                let old = std::mem::take(floats);
                let at = |index: usize| old.get(index).copied().unwrap_or(-1.0);
                *floats = vec![at(0), at(1), -1.0, at(2), at(3), -1.0, -1.0, -1.0];
            }
        }
        _ => {}
    }
}

const BASE_SIZE: usize = 16;

fn decode_counters(id: usize, version: u32, bytes: &[u8], swapped: bool) -> Decoded {
    let Some(layout) = layout(id, version) else {
        return Decoded {
            records: Records::Opaque,
            offsets: Vec::new(),
            skipped: 0,
            leftover: bytes.len(),
            problem: Some(format!("{} module version {version} is not known", module_name(id))),
        };
    };
    let size = BASE_SIZE
        + usize::from(layout.file_record) * 8
        + (layout.integers + layout.floats) * 8
        + layout.trailing;
    let mut cursor = Cursor::new(bytes, swapped);
    let mut records = Vec::with_capacity(bytes.len() / size);
    let mut skipped = 0;
    let mut offsets = Vec::with_capacity(bytes.len() / size);
    while cursor.remaining() >= size {
        let start = cursor.position();
        let (Some(record_id), Some(rank)) = (cursor.u64(), cursor.i64()) else { break };
        let file_record_id = if layout.file_record { cursor.u64() } else { None };
        let mut integers: Vec<i64> = (0..layout.integers).filter_map(|_| cursor.i64()).collect();
        let mut floats: Vec<f64> = (0..layout.floats).filter_map(|_| cursor.f64()).collect();
        cursor.skip(layout.trailing);
        if id == id::POSIX && version == 1 && integers.get(6).is_some_and(|&fopens| fopens > 0) {
            // Darshan drops these: their stdio counters cannot be separated cleanly.
            skipped += 1;
            continue;
        }
        upconvert(id, version, &mut integers, &mut floats);
        let file_record_id = match id {
            id::H5D | id::PNETCDF_VAR => Some(file_record_id.unwrap_or(0)),
            _ => None,
        };
        offsets.push(start);
        records.push(CounterRecord {
            id: record_id,
            rank,
            file_record_id,
            counters: integers,
            fcounters: floats,
        });
    }
    Decoded {
        records: Records::Counters(records),
        offsets,
        skipped,
        leftover: cursor.remaining(),
        problem: None,
    }
}

fn decode_lustre(version: u32, bytes: &[u8], swapped: bool) -> Decoded {
    let mut cursor = Cursor::new(bytes, swapped);
    let mut records = Vec::new();
    let mut problem = None;
    loop {
        let start = cursor.position();
        if cursor.remaining() == 0 {
            break;
        }
        let record = if version == 1 { decode_lustre_v1(&mut cursor) } else { decode_lustre_v2(&mut cursor) };
        if let Some(record) = record {
            records.push(record);
        } else {
            problem = Some(format!("incomplete LUSTRE record at byte {start} of the module region"));
            cursor = Cursor::new(bytes, swapped);
            cursor.skip(start);
            break;
        }
    }
    Decoded {
        records: Records::Lustre(records),
        offsets: Vec::new(),
        skipped: 0,
        leftover: cursor.remaining(),
        problem,
    }
}

fn decode_lustre_v1(cursor: &mut Cursor<'_>) -> Option<LustreRecord> {
    let id = cursor.u64()?;
    let rank = cursor.i64()?;
    let _osts = cursor.i64()?;
    let _mdts = cursor.i64()?;
    let _stripe_offset = cursor.i64()?;
    let stripe_size = cursor.i64()?;
    let stripe_count = cursor.i64()?;
    let count = usize::try_from(stripe_count).ok()?;
    if count > cursor.remaining() / 8 {
        return None;
    }
    let ost_ids = (0..count).map(|_| cursor.i64()).collect::<Option<Vec<i64>>>()?;
    let component =
        LustreComponent { counters: [stripe_size, stripe_count, -1, -1, 0, -1, -1], pool: String::new() };
    Some(LustreRecord { id, rank, components: vec![component], ost_ids })
}

fn decode_lustre_v2(cursor: &mut Cursor<'_>) -> Option<LustreRecord> {
    let id = cursor.u64()?;
    let rank = cursor.i64()?;
    let components = usize::try_from(cursor.i64()?).ok()?;
    let stripes = usize::try_from(cursor.i64()?).ok()?;
    if components.checked_mul(72)?.checked_add(stripes.checked_mul(8)?)? > cursor.remaining() {
        return None;
    }
    let mut decoded = Vec::with_capacity(components);
    for _ in 0..components {
        let mut counters = [0_i64; 7];
        for counter in &mut counters {
            *counter = cursor.i64()?;
        }
        let pool = fixed_string(cursor.take(16)?);
        decoded.push(LustreComponent { counters, pool });
    }
    let mut ost_ids = (0..stripes).map(|_| cursor.i64()).collect::<Option<Vec<i64>>>()?;
    // The runtime marks unused components with a stripe size of -1: keep those before it.
    if let Some(unused) = decoded.iter().position(|component| component.counters[0] == -1) {
        decoded.truncate(unused);
    }
    let used: i64 = decoded.iter().map(|component| component.counters[1].max(0)).fold(0, i64::saturating_add);
    ost_ids.truncate(usize::try_from(used).unwrap_or(0));
    Some(LustreRecord { id, rank, components: decoded, ost_ids })
}

/// What parsing one DXT record from the front of some bytes gave.
pub(crate) enum DxtParse {
    /// A record, and the bytes it took.
    Record(DxtRecord, usize),
    /// The bytes end before the record does.
    Short,
    /// The record's counts are impossible (negative, or overflowing): nothing after it can be
    /// located.
    Invalid,
}

/// Bytes of a DXT record before its segments.
const DXT_RECORD_HEAD: usize = 8 + 8 + 8 + 64 + 8 + 8;

/// The layout of module `id`'s DXT segments in record version `version`: whether they carry
/// a thread id, and their size.
pub(crate) fn dxt_segment_layout(id: usize, version: u32) -> (bool, usize) {
    let with_thread = if id == id::DXT_POSIX { version >= 2 } else { version >= 3 };
    (with_thread, if with_thread { 40 } else { 32 })
}

/// Parses the DXT record at the front of `bytes` (module `id`, record version `version`).
pub(crate) fn parse_dxt_record(id: usize, version: u32, bytes: &[u8], swapped: bool) -> DxtParse {
    let (with_thread, segment_size) = dxt_segment_layout(id, version);
    let mut cursor = Cursor::new(bytes, swapped);
    let head = (|| {
        let record_id = cursor.u64()?;
        let rank = cursor.i64()?;
        let shared_record = cursor.i64()?;
        let hostname = fixed_string(cursor.take(64)?);
        let write_count = cursor.i64()?;
        let read_count = cursor.i64()?;
        Some((record_id, rank, shared_record, hostname, write_count, read_count))
    })();
    let Some((record_id, rank, shared_record, hostname, write_count, read_count)) = head else {
        return DxtParse::Short;
    };
    let Some(size) = usize::try_from(write_count)
        .ok()
        .zip(usize::try_from(read_count).ok())
        .and_then(|(writes, reads)| writes.checked_add(reads))
        .and_then(|total| total.checked_mul(segment_size).map(|size| (total, size)))
    else {
        return DxtParse::Invalid;
    };
    let (total, size) = size;
    if size > cursor.remaining() {
        return DxtParse::Short;
    }
    let mut segments = Vec::with_capacity(total);
    for index in 0..total {
        let (Some(offset), Some(length), Some(begin), Some(end)) =
            (cursor.i64(), cursor.i64(), cursor.f64(), cursor.f64())
        else {
            return DxtParse::Short;
        };
        let pthread_id = if with_thread {
            let Some(thread) = cursor.u64() else { return DxtParse::Short };
            Some(thread)
        } else {
            None
        };
        let offset = if id == id::DXT_MPIIO && version == 1 { -1 } else { offset };
        segments.push(Segment {
            write: (index as i64) < write_count,
            offset,
            length,
            start: begin,
            end,
            pthread_id,
        });
    }
    let record =
        DxtRecord { id: record_id, rank, shared_record, hostname, write_count, read_count, segments };
    DxtParse::Record(record, DXT_RECORD_HEAD + size)
}

fn decode_dxt(id: usize, version: u32, bytes: &[u8], swapped: bool) -> Decoded {
    let mut records = Vec::new();
    let mut problem = None;
    let mut position = 0;
    while position < bytes.len() {
        match parse_dxt_record(id, version, &bytes[position..], swapped) {
            DxtParse::Record(record, size) => {
                records.push(record);
                position += size;
            }
            DxtParse::Short | DxtParse::Invalid => {
                problem = Some(incomplete_dxt(id, position as u64));
                break;
            }
        }
    }
    Decoded {
        records: Records::Dxt(records),
        offsets: Vec::new(),
        skipped: 0,
        leftover: bytes.len() - position,
        problem,
    }
}

/// The problem of a DXT record that cannot be read whole at decompressed byte `at`.
pub(crate) fn incomplete_dxt(id: usize, at: u64) -> String {
    format!("incomplete {} record at byte {at} of the module region", module_name(id))
}

fn decode_heatmap(bytes: &[u8], swapped: bool) -> Decoded {
    let mut cursor = Cursor::new(bytes, swapped);
    let mut records: Vec<HeatmapRecord> = Vec::new();
    let mut first: Option<(f64, usize)> = None;
    let mut problem = None;
    while cursor.remaining() > 0 {
        let start = cursor.position();
        let record = (|| {
            let id = cursor.u64()?;
            let rank = cursor.i64()?;
            let bin_width_seconds = cursor.f64()?;
            let bins = usize::try_from(cursor.i64()?).ok()?;
            cursor.skip(16)?;
            if bins.checked_mul(16)? > cursor.remaining() {
                return None;
            }
            let write_bins = (0..bins).map(|_| cursor.i64()).collect::<Option<Vec<i64>>>()?;
            let read_bins = (0..bins).map(|_| cursor.i64()).collect::<Option<Vec<i64>>>()?;
            Some(HeatmapRecord { id, rank, bin_width_seconds, write_bins, read_bins })
        })();
        let Some(mut record) = record else {
            problem = Some(format!("incomplete HEATMAP record at byte {start} of the module region"));
            cursor = Cursor::new(bytes, swapped);
            cursor.skip(start);
            break;
        };
        // Darshan 3.4.0-3.4.3 could write one bin more or fewer on some ranks (clock skew with
        // shared reductions off, darshan issue 941); align them on the first record's count.
        let (width, bins) = *first.get_or_insert((record.bin_width_seconds, record.write_bins.len()));
        if record.bin_width_seconds.to_bits() == width.to_bits() {
            if record.write_bins.len() == bins + 1 {
                record.write_bins.pop();
                record.read_bins.pop();
            } else if record.write_bins.len() + 1 == bins {
                record.write_bins.push(0);
                record.read_bins.push(0);
            }
        }
        records.push(record);
    }
    Decoded {
        records: Records::Heatmap(records),
        offsets: Vec::new(),
        skipped: 0,
        leftover: cursor.remaining(),
        problem,
    }
}

/// Decodes a module's decompressed region.
pub(crate) fn decode(id: usize, version: u32, bytes: &[u8], swapped: bool) -> Decoded {
    match id {
        id::LUSTRE => decode_lustre(version, bytes, swapped),
        id::DXT_POSIX | id::DXT_MPIIO => decode_dxt(id, version, bytes, swapped),
        id::HEATMAP => decode_heatmap(bytes, swapped),
        _ if counter_names(id).is_some() => decode_counters(id, version, bytes, swapped),
        _ => {
            Decoded { records: Records::Opaque, offsets: Vec::new(), skipped: 0, leftover: 0, problem: None }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn current_layouts_match_the_counter_lists() {
        for id in [
            id::POSIX,
            id::MPIIO,
            id::STDIO,
            id::H5F,
            id::H5D,
            id::PNETCDF_FILE,
            id::PNETCDF_VAR,
            id::DFS,
            id::DAOS,
        ] {
            let Some((integers, floats)) = counter_names(id) else { panic!("no names for {id}") };
            let version = match id {
                id::POSIX => 4,
                id::MPIIO | id::H5F | id::PNETCDF_FILE => 3,
                id::STDIO | id::H5D => 2,
                _ => 1,
            };
            let Some(layout) = layout(id, version) else { panic!("no layout for {id} v{version}") };
            assert_eq!((layout.integers, layout.floats), (integers.len(), floats.len()), "module {id}");
        }
    }

    #[test]
    fn posix_version_3_gains_the_five_counters_of_version_4() {
        let mut integers: Vec<i64> = (0..64).collect();
        let mut floats: Vec<f64> = vec![0.5; 17];
        upconvert(id::POSIX, 3, &mut integers, &mut floats);
        assert_eq!(integers.len(), 69);
        assert_eq!(&integers[..4], &[0, -1, -1, 1]);
        // OPENS, FILENOS, DUPS, READS .. FDSYNCS (7), then RENAME_SOURCES/TARGETS, RENAMED_FROM, MODE.
        assert_eq!(&integers[10..14], &[-1, -1, 0, 8]);
    }

    #[test]
    fn old_posix_records_read_like_darshan_does() {
        let mut integers: Vec<i64> = (0..68).collect();
        let mut floats: Vec<f64> = (0..15).map(f64::from).collect();
        upconvert(id::POSIX, 1, &mut integers, &mut floats);
        assert_eq!((integers.len(), floats.len()), (69, 17));
        assert_eq!(&floats[..6], &[0.0, 1.0, 2.0, -1.0, -1.0, 3.0]);
    }
}
