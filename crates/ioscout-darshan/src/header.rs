//! The uncompressed header at the start of every Darshan log: format version, byte order (from
//! the magic number), compression, the partial-data flags and the map of compressed regions.
//! Two layouts exist (360 bytes with 16 module slots before format 3.41, 1328 bytes with 64
//! after); module slots of older logs are shifted to today's module ids here, so the rest of the
//! reader sees one layout.

use std::path::Path;

use crate::bytes::Cursor;
use crate::error::{DarshanError, Region};

/// Darshan's magic number (`DARSHAN_MAGIC_NR`).
pub const MAGIC: u64 = 6_567_223;
/// Module slots in a 3.41 header.
pub const MODULE_SLOTS: usize = 64;
/// Size of the current header (`sizeof(struct darshan_header)`), which `darshan-parser` prints
/// for every log whatever its version.
pub const CURRENT_HEADER_SIZE: usize = 1328;
const OLD_HEADER_SIZE: usize = 360;
const OLD_MODULE_SLOTS: usize = 16;
/// Module id of H5D, inserted in Darshan 3.2.0 (format 3.20).
const H5D_ID: usize = 4;
/// Module id of `PNETCDF_VAR`, inserted in Darshan 3.4.1 (format 3.41).
const PNETCDF_VAR_ID: usize = 6;

/// Compression of the log's regions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum Compression {
    /// zlib streams (what the runtime writes).
    Zlib,
    /// bzip2 streams (after `darshan-convert`).
    Bzip2,
    /// Stored uncompressed.
    None,
}

impl Compression {
    /// The name `darshan-parser` prints.
    pub fn name(self) -> &'static str {
        match self {
            Compression::Zlib => "ZLIB",
            Compression::Bzip2 => "BZIP2",
            Compression::None => "NONE",
        }
    }
}

/// Where a compressed region lies in the file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct RegionMap {
    /// Byte offset.
    pub offset: u64,
    /// Length in bytes (compressed).
    pub length: u64,
}

/// The decoded header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Format version string (`3.41`).
    pub version: String,
    /// Minor format version (`41`).
    pub minor: u32,
    /// The log was written in the other byte order.
    pub swapped: bool,
    /// Compression of the regions.
    pub compression: Compression,
    /// Bit `i` set: module `i` ran out of memory and its records are incomplete.
    pub partial_flag: u64,
    /// The job region.
    pub job: RegionMap,
    /// The name-record region.
    pub names: RegionMap,
    /// Module regions by today's module id.
    pub modules: [RegionMap; MODULE_SLOTS],
    /// Module record versions by today's module id.
    pub module_versions: [u32; MODULE_SLOTS],
}

impl Header {
    /// Whether module `id` is flagged as holding partial data.
    pub fn is_partial(&self, id: usize) -> bool {
        id < 64 && self.partial_flag & (1_u64 << id) != 0
    }
}

fn parse_version(path: &Path, bytes: &[u8]) -> Result<(String, u32), DarshanError> {
    let text = crate::bytes::fixed_string(bytes.get(..8).unwrap_or_default());
    let minor = match text.as_str() {
        "3.00" => 0,
        "3.10" => 10,
        "3.20" => 20,
        "3.21" => 21,
        "3.41" => 41,
        _ => {
            let shown: String = text.chars().filter(|c| !c.is_control()).take(16).collect();
            let hint = if shown.starts_with('2') || shown.starts_with("1.") {
                " (Darshan 2.x logs are a different, non-modular format; convert them with darshan-convert)"
            } else {
                ""
            };
            return Err(DarshanError::format(
                path,
                Region::Header,
                0,
                format!("not a Darshan 3.x log: version string {shown:?}{hint}"),
            ));
        }
    };
    Ok((text, minor))
}

/// Shifts module slots at and above `inserted` up by one, as Darshan did when it inserted a
/// module id, and the partial-data bits with them.
fn insert_slot(header: &mut Header, inserted: usize) {
    for id in (inserted + 1..MODULE_SLOTS).rev() {
        header.modules[id] = header.modules[id - 1];
        header.module_versions[id] = header.module_versions[id - 1];
    }
    header.modules[inserted] = RegionMap::default();
    header.module_versions[inserted] = 0;
    let low = header.partial_flag & ((1_u64 << inserted) - 1);
    let high = (header.partial_flag >> inserted) << (inserted + 1);
    header.partial_flag = low | high;
}

/// Reads the header from the first bytes of the log (`file_size` is the whole log's size).
pub fn parse(path: &Path, bytes: &[u8], file_size: u64) -> Result<Header, DarshanError> {
    if bytes.len() < 8 {
        return Err(DarshanError::format(path, Region::Header, 0, "file too short for a version string"));
    }
    let (version, minor) = parse_version(path, bytes)?;
    let current = minor >= 41;
    let size = if current { CURRENT_HEADER_SIZE } else { OLD_HEADER_SIZE };
    let Some(header_bytes) = bytes.get(..size) else {
        return Err(DarshanError::format(
            path,
            Region::Header,
            bytes.len() as u64,
            format!("truncated: {} bytes of a {size}-byte header", bytes.len()),
        ));
    };
    let magic_bytes: [u8; 8] = header_bytes[8..16].try_into().unwrap_or_default();
    let swapped = if u64::from_le_bytes(magic_bytes) == MAGIC {
        false
    } else if u64::from_be_bytes(magic_bytes) == MAGIC {
        true
    } else {
        return Err(DarshanError::format(
            path,
            Region::Header,
            8,
            format!("bad magic number {:#x} (expected {MAGIC:#x})", u64::from_le_bytes(magic_bytes)),
        ));
    };
    let compression = match header_bytes[16] {
        0 => Compression::Zlib,
        1 => Compression::Bzip2,
        2 => Compression::None,
        other => {
            return Err(DarshanError::format(
                path,
                Region::Header,
                16,
                format!("unknown compression type {other}"),
            ));
        }
    };
    let truncated =
        |offset: usize| DarshanError::format(path, Region::Header, offset as u64, "truncated header");
    let mut cursor = Cursor::new(header_bytes, swapped);
    let slots = if current { MODULE_SLOTS } else { OLD_MODULE_SLOTS };
    let partial_flag = if current {
        cursor.skip(24).ok_or_else(|| truncated(24))?;
        cursor.u64().ok_or_else(|| truncated(24))?
    } else {
        cursor.skip(20).ok_or_else(|| truncated(20))?;
        u64::from(cursor.u32().ok_or_else(|| truncated(20))?)
    };
    let read_map = |cursor: &mut Cursor<'_>| -> Result<RegionMap, DarshanError> {
        let at = cursor.position();
        let offset = cursor.u64().ok_or_else(|| truncated(at))?;
        let length = cursor.u64().ok_or_else(|| truncated(at))?;
        Ok(RegionMap { offset, length })
    };
    let names = read_map(&mut cursor)?;
    let mut modules = [RegionMap::default(); MODULE_SLOTS];
    for slot in modules.iter_mut().take(slots) {
        *slot = read_map(&mut cursor)?;
    }
    let mut module_versions = [0_u32; MODULE_SLOTS];
    for slot in module_versions.iter_mut().take(slots) {
        let at = cursor.position();
        *slot = cursor.u32().ok_or_else(|| truncated(at))?;
    }
    let mut header = Header {
        version,
        minor,
        swapped,
        compression,
        partial_flag,
        job: RegionMap { offset: size as u64, length: 0 },
        names,
        modules,
        module_versions,
    };
    if minor < 20 {
        insert_slot(&mut header, H5D_ID);
    }
    if minor < 41 {
        insert_slot(&mut header, PNETCDF_VAR_ID);
    }
    let job_end = if header.names.offset != 0 {
        header.names.offset
    } else {
        header.modules.iter().find(|map| map.offset != 0).map_or(file_size, |map| map.offset)
    };
    header.job.length = job_end.saturating_sub(header.job.offset);
    Ok(header)
}
