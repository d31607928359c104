//! File fingerprints: how the index tells that a raw trace file changed under it.
//!
//! A [`Fingerprint`] is the file's size, its modification time and a CRC-32 of its first and
//! last 64 KiB. DFTracer appends to traces while a job runs and users copy traces around: size
//! and the tail catch appends, the head catches replacement, mtime catches in-place edits.

use std::fs::File;
use std::path::Path;

use serde::{Deserialize, Serialize};

const SAMPLE: u64 = 64 << 10;

/// What identifies the content of a raw trace file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fingerprint {
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch (0 when unknown).
    pub modified_nanos: u128,
    /// CRC-32 of the first and last 64 KiB.
    pub head_tail_crc: u32,
}

impl Fingerprint {
    /// Fingerprints the file at `path`.
    pub fn of(path: &Path) -> std::io::Result<Fingerprint> {
        let file = File::open(path)?;
        let metadata = file.metadata()?;
        let size = metadata.len();
        let modified_nanos = metadata
            .modified()
            .ok()
            .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |duration| duration.as_nanos());
        Ok(Fingerprint { size, modified_nanos, head_tail_crc: head_tail_crc(&file, size)? })
    }

    /// Whether the file at `path` holds, in its first `self.size` bytes, what it held when it was
    /// fingerprinted, so that it was only appended to since: it is not shorter, and the CRC of
    /// the first and last 64 KiB of those bytes is the same.
    pub fn still_prefix_of(&self, path: &Path) -> std::io::Result<bool> {
        let file = File::open(path)?;
        if file.metadata()?.len() < self.size {
            return Ok(false);
        }
        Ok(head_tail_crc(&file, self.size)? == self.head_tail_crc)
    }
}

/// The CRC-32 of the first and last 64 KiB of the first `size` bytes of `file`.
fn head_tail_crc(file: &File, size: u64) -> std::io::Result<u32> {
    let mut crc = crc32fast::Hasher::new();
    let mut buffer = vec![0u8; SAMPLE.min(size) as usize];
    let head = ioscout_read::gzip::read_fully_at(file, &mut buffer, 0)?;
    crc.update(&buffer[..head]);
    if size > SAMPLE {
        let tail_start = size.saturating_sub(SAMPLE).max(SAMPLE);
        let length = usize::try_from(size - tail_start).unwrap_or(usize::MAX).min(buffer.len());
        let tail = ioscout_read::gzip::read_fully_at(file, &mut buffer[..length], tail_start)?;
        crc.update(&buffer[..tail]);
    }
    Ok(crc.finalize())
}
