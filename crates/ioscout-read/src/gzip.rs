//! gzip members: header parsing, boundary candidates, and streaming inflate of a byte range.
//!
//! # Overview
//!
//! DFTracer 2.x writes a `.pfw.gz` as independent gzip members (one per buffer flush, each ending
//! at a newline); older versions write one member. [`member_candidates`] finds the offsets where a
//! member could start (the magic bytes plus a plausible header), so the scanner can give each
//! worker its own run of members. A candidate is only a guess: [`inflate_range`] decodes whole
//! members from a start offset until it passes the end of its range and reports where it really
//! stopped, and the scanner accepts a worker's output only when its start equals the previous
//! worker's real end (see `scan.rs`). Inflate is zlib-rs through `flate2`; the CRC-32 and length of
//! every member are checked.

use std::fs::File;
use std::os::unix::fs::FileExt;

use flate2::{Decompress, FlushDecompress, Status};

const READ_BLOCK: usize = 1 << 20;
const OUTPUT_BLOCK: usize = 1 << 18;

/// Whether the bytes at the start of `header` look like a gzip member header (magic, deflate,
/// no reserved flag bits, a known extra-flags value).
pub fn plausible_header(header: &[u8]) -> bool {
    header.len() >= 10
        && header[0] == 0x1f
        && header[1] == 0x8b
        && header[2] == 8
        && header[3] & 0xe0 == 0
        && matches!(header[8], 0 | 2 | 4)
        && (header[9] <= 13 || header[9] == 255)
}

/// Offsets of every plausible member header in `file`, in order (always including 0 when the
/// file starts with one).
pub fn member_candidates(file: &File, length: u64) -> std::io::Result<Vec<u64>> {
    let finder = memchr::memmem::Finder::new(&[0x1f, 0x8b, 0x08]);
    let mut candidates = Vec::new();
    let mut buffer = vec![0u8; 8 << 20];
    let mut position = 0u64;
    while position < length {
        let wanted = usize::try_from((length - position).min(buffer.len() as u64)).unwrap_or(buffer.len());
        let read = read_fully_at(file, &mut buffer[..wanted], position)?;
        if read == 0 {
            break;
        }
        let block = &buffer[..read];
        for found in finder.find_iter(block) {
            // A header split across blocks is found again from the overlap below.
            if found + 10 <= block.len() && plausible_header(&block[found..]) {
                candidates.push(position + found as u64);
            }
        }
        if position + read as u64 >= length {
            break;
        }
        // Overlap so that a header straddling the block end is seen whole in the next block.
        let advance = read.saturating_sub(9).max(1);
        position += advance as u64;
    }
    candidates.dedup();
    Ok(candidates)
}

/// Reads as much of `buffer` as the file holds at `offset`.
pub fn read_fully_at(file: &File, buffer: &mut [u8], offset: u64) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match file.read_at(&mut buffer[filled..], offset + filled as u64) {
            Ok(0) => break,
            Ok(read) => filled += read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(filled)
}

/// A problem met while inflating.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InflateProblem {
    /// The data at this offset is not a gzip member header.
    NotGzip {
        /// Compressed offset.
        offset: u64,
    },
    /// The file ends inside a member.
    Truncated {
        /// Compressed offset of the member.
        member_offset: u64,
    },
    /// The member's deflate data or trailer is corrupt.
    Corrupt {
        /// Compressed offset of the member.
        member_offset: u64,
        /// What was wrong.
        detail: String,
        /// Where decoding resumes (the next member candidate), or the file length.
        resume: u64,
    },
    /// Reading the file failed.
    Io {
        /// Compressed offset of the read.
        offset: u64,
        /// The error.
        detail: String,
    },
}

/// What [`inflate_range`] did.
#[derive(Debug, Default)]
pub struct InflateOutcome {
    /// Where decoding stopped: the end of the last whole member, or the resume point after a
    /// problem.
    pub end: u64,
    /// Members decoded (including a truncated or corrupt one).
    pub members: u64,
    /// Uncompressed bytes produced.
    pub output_bytes: u64,
    /// Problems, in order.
    pub problems: Vec<InflateProblem>,
}

struct Input<'a> {
    file: &'a File,
    length: u64,
    buffer: Vec<u8>,
    /// File offset of `buffer[0]`.
    start: u64,
    filled: usize,
    consumed: usize,
}

impl Input<'_> {
    fn position(&self) -> u64 {
        self.start + self.consumed as u64
    }

    fn available(&self) -> &[u8] {
        &self.buffer[self.consumed..self.filled]
    }

    /// Makes at least `wanted` bytes available if the file has them; returns how many are.
    fn ensure(&mut self, wanted: usize) -> std::io::Result<usize> {
        if self.filled - self.consumed >= wanted {
            return Ok(self.filled - self.consumed);
        }
        self.buffer.copy_within(self.consumed..self.filled, 0);
        self.start += self.consumed as u64;
        self.filled -= self.consumed;
        self.consumed = 0;
        if self.buffer.len() < wanted.max(READ_BLOCK) {
            self.buffer.resize(wanted.max(READ_BLOCK), 0);
        }
        while self.filled < wanted {
            let offset = self.start + self.filled as u64;
            if offset >= self.length {
                break;
            }
            let read = read_fully_at(self.file, &mut self.buffer[self.filled..], offset)?;
            if read == 0 {
                break;
            }
            self.filled += read;
        }
        Ok(self.filled - self.consumed)
    }

    fn seek(&mut self, offset: u64) {
        self.start = offset;
        self.filled = 0;
        self.consumed = 0;
    }
}

/// Length of the gzip header at the start of `bytes`, `Ok(None)` when more bytes are needed,
/// `Err(())` when it is not a gzip header.
fn header_length(bytes: &[u8]) -> Result<Option<usize>, ()> {
    if bytes.len() < 10 {
        return if bytes.len() >= 3 && bytes[..3] != [0x1f, 0x8b, 8] { Err(()) } else { Ok(None) };
    }
    if bytes[0] != 0x1f || bytes[1] != 0x8b || bytes[2] != 8 || bytes[3] & 0xe0 != 0 {
        return Err(());
    }
    let flags = bytes[3];
    let mut position = 10;
    if flags & 4 != 0 {
        let Some(extra) = bytes.get(position..position + 2) else { return Ok(None) };
        position += 2 + usize::from(u16::from_le_bytes([extra[0], extra[1]]));
    }
    for flag in [8u8, 16] {
        if flags & flag != 0 {
            let Some(rest) = bytes.get(position..) else { return Ok(None) };
            let Some(zero) = memchr::memchr(0, rest) else { return Ok(None) };
            position += zero + 1;
        }
    }
    if flags & 2 != 0 {
        position += 2;
    }
    if position > bytes.len() { Ok(None) } else { Ok(Some(position)) }
}

/// Inflates whole members of `file` starting at `start`, handing every output block to `sink`,
/// until a member ends at or after `end` (or the file ends). `candidates` are the plausible
/// member starts, used to resume after a corrupt member.
pub fn inflate_range(
    file: &File,
    length: u64,
    start: u64,
    end: u64,
    candidates: &[u64],
    mut sink: impl FnMut(&[u8]),
) -> InflateOutcome {
    let mut outcome = InflateOutcome { end: start, ..InflateOutcome::default() };
    let mut input = Input { file, length, buffer: Vec::new(), start, filled: 0, consumed: 0 };
    let mut output = vec![0u8; OUTPUT_BLOCK];
    let mut decompress = Decompress::new(false);
    let mut position = start;
    while position < length && (position < end || outcome.members == 0) {
        input.seek(position);
        match inflate_member(&mut input, &mut decompress, &mut output, &mut sink, &mut outcome) {
            Ok(next) => position = next,
            Err(InflateProblem::Corrupt { member_offset, detail, .. }) => {
                let resume =
                    candidates.iter().copied().find(|&offset| offset > member_offset).unwrap_or(length);
                outcome.problems.push(InflateProblem::Corrupt { member_offset, detail, resume });
                position = resume;
            }
            Err(problem) => {
                outcome.problems.push(problem);
                position = length;
            }
        }
    }
    outcome.end = position;
    outcome
}

fn inflate_member(
    input: &mut Input<'_>,
    decompress: &mut Decompress,
    output: &mut [u8],
    sink: &mut impl FnMut(&[u8]),
    outcome: &mut InflateOutcome,
) -> Result<u64, InflateProblem> {
    let member_offset = input.position();
    let io_problem =
        |error: std::io::Error| InflateProblem::Io { offset: member_offset, detail: error.to_string() };
    let mut wanted = 10;
    let header = loop {
        let available = input.ensure(wanted).map_err(io_problem)?;
        match header_length(input.available()) {
            Ok(Some(header)) => break header,
            Ok(None) if available >= wanted => wanted = available + 4096,
            Ok(None) => {
                return Err(if available == 0 {
                    InflateProblem::NotGzip { offset: member_offset }
                } else {
                    InflateProblem::Truncated { member_offset }
                });
            }
            Err(()) => return Err(InflateProblem::NotGzip { offset: member_offset }),
        }
    };
    outcome.members += 1;
    input.consumed += header;
    decompress.reset(false);
    let mut crc = crc32fast::Hasher::new();
    let mut member_bytes: u64 = 0;
    loop {
        if input.available().is_empty() {
            let available = input.ensure(1).map_err(io_problem)?;
            if available == 0 {
                return Err(InflateProblem::Truncated { member_offset });
            }
        }
        let before_in = decompress.total_in();
        let before_out = decompress.total_out();
        let status =
            decompress.decompress(input.available(), output, FlushDecompress::None).map_err(|error| {
                InflateProblem::Corrupt { member_offset, detail: error.to_string(), resume: 0 }
            })?;
        let consumed = (decompress.total_in() - before_in) as usize;
        let produced = (decompress.total_out() - before_out) as usize;
        input.consumed += consumed;
        if produced > 0 {
            crc.update(&output[..produced]);
            member_bytes += produced as u64;
            outcome.output_bytes += produced as u64;
            sink(&output[..produced]);
        }
        match status {
            Status::StreamEnd => break,
            Status::Ok | Status::BufError => {
                if consumed == 0 && produced == 0 {
                    // No progress: inflate needs more input than is buffered.
                    let have = input.available().len();
                    let available = input.ensure(have + READ_BLOCK).map_err(io_problem)?;
                    if available == have {
                        return Err(InflateProblem::Truncated { member_offset });
                    }
                }
            }
        }
    }
    let available = input.ensure(8).map_err(io_problem)?;
    if available < 8 {
        return Err(InflateProblem::Truncated { member_offset });
    }
    let trailer = input.available();
    let expected_crc = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
    let expected_length = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]);
    input.consumed += 8;
    let crc = crc.finalize();
    if crc != expected_crc || (member_bytes & 0xffff_ffff) as u32 != expected_length {
        return Err(InflateProblem::Corrupt {
            member_offset,
            detail: format!(
                "checksum mismatch (crc {crc:08x}, expected {expected_crc:08x}; length {member_bytes}, expected {expected_length} mod 2^32)"
            ),
            resume: 0,
        });
    }
    Ok(input.position())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(data).unwrap_or_default();
        encoder.finish().unwrap_or_default()
    }

    fn temp_file(name: &str, bytes: &[u8]) -> (File, u64) {
        let path = std::env::temp_dir().join(format!("ioscout-gzip-{}-{name}", std::process::id()));
        std::fs::write(&path, bytes).unwrap_or_default();
        let file = File::open(&path).unwrap_or_else(|error| panic!("{error}"));
        (file, bytes.len() as u64)
    }

    fn inflate_all(bytes: &[u8], name: &str) -> (Vec<u8>, InflateOutcome) {
        let (file, length) = temp_file(name, bytes);
        let candidates = member_candidates(&file, length).unwrap_or_default();
        let mut out = Vec::new();
        let outcome =
            inflate_range(&file, length, 0, length, &candidates, |block| out.extend_from_slice(block));
        (out, outcome)
    }

    #[test]
    fn multi_member_files_decode_whole_and_report_members() {
        let mut bytes = gzip(b"one\ntwo\n");
        bytes.extend(gzip(b"three\n"));
        let (file, length) = temp_file("multi", &bytes);
        let candidates = member_candidates(&file, length).unwrap_or_default();
        assert_eq!(candidates.len(), 2);
        let (out, outcome) = inflate_all(&bytes, "multi2");
        assert_eq!(out, b"one\ntwo\nthree\n");
        assert_eq!(outcome.members, 2);
        assert!(outcome.problems.is_empty());
        assert_eq!(outcome.end, length);
    }

    #[test]
    fn a_range_stops_after_the_member_that_crosses_its_end() {
        let first = gzip(b"one\n");
        let mut bytes = first.clone();
        bytes.extend(gzip(b"two\n"));
        bytes.extend(gzip(b"three\n"));
        let (file, length) = temp_file("range", &bytes);
        let mut out = Vec::new();
        let outcome = inflate_range(&file, length, 0, 1, &[], |block| out.extend_from_slice(block));
        assert_eq!(out, b"one\n");
        assert_eq!(outcome.end, first.len() as u64);
    }

    #[test]
    fn truncated_and_corrupt_members_are_reported() {
        let mut bytes = gzip(&b"line of text\n".repeat(1000));
        bytes.truncate(bytes.len() - 20);
        let (_, outcome) = inflate_all(&bytes, "truncated");
        assert!(matches!(outcome.problems.as_slice(), [InflateProblem::Truncated { member_offset: 0 }]));

        let mut bytes = gzip(b"hello\n");
        let crc_at = bytes.len() - 8;
        bytes[crc_at] ^= 0xff;
        let (out, outcome) = inflate_all(&bytes, "crc");
        assert_eq!(out, b"hello\n");
        assert!(matches!(outcome.problems.as_slice(), [InflateProblem::Corrupt { .. }]));

        let mut bytes = gzip(b"hello\n");
        bytes.extend_from_slice(b"garbage");
        let (_, outcome) = inflate_all(&bytes, "garbage");
        assert!(matches!(outcome.problems.as_slice(), [InflateProblem::NotGzip { .. }]));
    }

    #[test]
    fn headers_with_optional_fields_are_parsed() {
        let mut header = vec![0x1f, 0x8b, 8, 4 | 8 | 2, 0, 0, 0, 0, 0, 3, 2, 0, b'x', b'y', b'n', 0, 1, 2];
        assert_eq!(header_length(&header), Ok(Some(header.len())));
        header.truncate(13);
        assert_eq!(header_length(&header), Ok(None));
        assert_eq!(header_length(b"\x1f\x8c\x08xxxxxxx"), Err(()));
    }
}
