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
//! worker's real end (see `scan.rs`). The CRC-32 and length of every member are checked.
//!
//! # Two inflaters
//!
//! A member whose end is known (the next candidate, or the end of the file) and whose trailer
//! gives a length of at most [`ONE_SHOT_MOST`] is inflated in one call by libdeflate (the
//! fastest inflater measured here, but one-shot only: `../shared/research/engine.md`), into a
//! buffer reused by the thread. When that fails for any reason (a candidate inside a member, a
//! cut or corrupt member, bytes after the member, a trailer that does not match) the member is
//! inflated again by zlib-rs through `flate2`, streaming, which reports what is wrong exactly as
//! before: the one-shot path only ever takes members it has checked whole.

use std::fs::File;
use std::os::unix::fs::FileExt;

use flate2::{Decompress, FlushDecompress, Status};

const READ_BLOCK: usize = 1 << 20;
const OUTPUT_BLOCK: usize = 1 << 18;

/// The largest member (uncompressed, by its trailer) inflated in one call; larger ones stream.
pub const ONE_SHOT_MOST: u64 = 32 << 20;

/// The thread's one-shot inflater and its buffers (compressed member, output), reused.
struct OneShot {
    decompressor: libdeflater::Decompressor,
    compressed: Vec<u8>,
    output: Vec<u8>,
}

thread_local! {
    static ONE_SHOT: std::cell::RefCell<Option<OneShot>> = const { std::cell::RefCell::new(None) };
}

/// Inflates the member at `member_offset` that ends at `member_end` in one call and hands its
/// output to `sink`, or returns `false` (having handed nothing) when the bytes there are not
/// one whole, sound member of at most [`ONE_SHOT_MOST`] bytes.
fn inflate_one_shot(
    file: &File,
    (member_offset, member_end): (u64, u64),
    source: Option<&[u8]>,
    sink: &mut impl FnMut(&[u8]),
) -> bool {
    let Ok(compressed_length) = usize::try_from(member_end.saturating_sub(member_offset)) else {
        return false;
    };
    // A header, one deflate block and the trailer at least; no more than a member can compress to.
    if compressed_length < 18 || compressed_length as u64 > ONE_SHOT_MOST + (ONE_SHOT_MOST >> 3) + 4096 {
        return false;
    }
    // The member's bytes where the caller holds them already (a small file read whole).
    let held = source
        .and_then(|bytes| bytes.get(usize::try_from(member_offset).ok()?..usize::try_from(member_end).ok()?));
    ONE_SHOT.with(|cell| {
        let Ok(mut slot) = cell.try_borrow_mut() else { return false };
        let OneShot { decompressor, compressed, output } = slot.get_or_insert_with(|| OneShot {
            decompressor: libdeflater::Decompressor::new(),
            compressed: Vec::new(),
            output: Vec::new(),
        });
        let bytes: &[u8] = if let Some(bytes) = held {
            bytes
        } else {
            // Exactly what is needed: growing by doubling would keep up to twice the largest
            // member for each thread, for the rest of the scan.
            compressed.reserve_exact(compressed_length.saturating_sub(compressed.len()));
            compressed.resize(compressed_length, 0);
            if read_fully_at(file, compressed, member_offset).ok() != Some(compressed_length) {
                return false;
            }
            compressed
        };
        let Ok(Some(header)) = header_length(bytes) else { return false };
        let trailer = &bytes[compressed_length - 8..];
        let expected_crc = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
        let expected_length = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]);
        if u64::from(expected_length) > ONE_SHOT_MOST || header + 8 > compressed_length {
            return false;
        }
        let length = expected_length as usize;
        if output.len() < length {
            output.reserve_exact(length - output.len());
            output.resize(length, 0);
        }
        // The output must be exactly the trailer's length, and the CRC of the output the
        // trailer's CRC: bytes after the deflate stream (a member that ends early, garbage)
        // make the last eight bytes something else.
        let inflated =
            decompressor.deflate_decompress(&bytes[header..compressed_length - 8], &mut output[..length]);
        if inflated != Ok(length) || crc32fast::hash(&output[..length]) != expected_crc {
            return false;
        }
        for block in output[..length].chunks(OUTPUT_BLOCK) {
            sink(block);
        }
        true
    })
}

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
    FILE_BYTES.with(|block| match block.try_borrow_mut() {
        Ok(mut block) => candidates_in_blocks(file, length, &mut block, READ_BLOCK),
        Err(_) => candidates_in_blocks(file, length, &mut Vec::new(), READ_BLOCK),
    })
}

thread_local! {
    /// The compressed bytes each thread reads files through, one file after another (a fresh
    /// buffer per file would fault in new pages for every byte read): a block of
    /// [`member_candidates`], or a whole small file of [`inflate_whole_file`]. At most
    /// [`READ_BLOCK`] bytes.
    static FILE_BYTES: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// [`member_candidates`], reading `file` in blocks of at most `block_bytes` (at least 16) through
/// `buffer`.
fn candidates_in_blocks(
    file: &File,
    length: u64,
    buffer: &mut Vec<u8>,
    block_bytes: usize,
) -> std::io::Result<Vec<u64>> {
    let mut candidates = Vec::new();
    let size = usize::try_from(length.min(block_bytes as u64)).unwrap_or(block_bytes).max(16);
    if buffer.len() < size {
        buffer.resize(size, 0);
    }
    let mut position = 0u64;
    while position < length {
        let wanted = usize::try_from((length - position).min(size as u64)).unwrap_or(size);
        let read = read_fully_at(file, &mut buffer[..wanted], position)?;
        if read == 0 {
            break;
        }
        // A header split across blocks is found again from the overlap below.
        candidates_in(&buffer[..read], position, &mut candidates);
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

/// Adds the offset of every plausible member header wholly inside `block` (which starts at file
/// offset `position`) to `candidates`.
fn candidates_in(block: &[u8], position: u64, candidates: &mut Vec<u64>) {
    for found in memchr::memmem::find_iter(block, &[0x1f, 0x8b, 0x08]) {
        if found + 10 <= block.len() && plausible_header(&block[found..]) {
            candidates.push(position + found as u64);
        }
    }
}

/// The largest file [`inflate_whole_file`] reads whole.
pub const WHOLE_FILE_MOST: u64 = READ_BLOCK as u64;

/// [`inflate_range`] over all of a gzip file of at most [`WHOLE_FILE_MOST`] bytes, read once:
/// its member candidates are found in the bytes read, and each member whose end they give is
/// inflated from those bytes (a scan of many small files otherwise reads each twice: once to find
/// the candidates, once to inflate). A file that cannot be read whole here is inflated as
/// [`inflate_range`] does, its candidates found by [`member_candidates`].
pub fn inflate_whole_file(file: &File, length: u64, sink: impl FnMut(&[u8])) -> InflateOutcome {
    let whole = usize::try_from(length).ok().filter(|&size| size as u64 <= WHOLE_FILE_MOST);
    let read_whole = |bytes: &mut Vec<u8>, size: usize| {
        bytes.resize(size, 0);
        read_fully_at(file, bytes, 0).ok() == Some(size)
    };
    FILE_BYTES.with(|cell| {
        let mut held = cell.try_borrow_mut().ok();
        let read = match (whole, held.as_deref_mut()) {
            (Some(size), Some(bytes)) => read_whole(bytes, size),
            _ => false,
        };
        if let (true, Some(bytes)) = (read, held.as_deref()) {
            let mut candidates = Vec::new();
            candidates_in(bytes, 0, &mut candidates);
            return inflate_range_with(file, length, (0, length), &candidates, true, Some(bytes), sink);
        }
        // The buffer goes back first: finding the candidates reads through it.
        drop(held);
        let candidates = member_candidates(file, length).unwrap_or_default();
        inflate_range_with(file, length, (0, length), &candidates, true, None, sink)
    })
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

/// Length of the gzip member header at `offset` of `file`, `None` when there is none.
pub fn member_header_length(file: &File, offset: u64) -> std::io::Result<Option<u64>> {
    let mut bytes = vec![0u8; 64 << 10];
    let read = read_fully_at(file, &mut bytes, offset)?;
    Ok(header_length(&bytes[..read]).ok().flatten().map(|length| length as u64))
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
    sink: impl FnMut(&[u8]),
) -> InflateOutcome {
    inflate_range_with(file, length, (start, end), candidates, true, None, sink)
}

/// [`inflate_range`] with zlib-rs streaming only, in output blocks of 256 KiB as they come: for a
/// consumer that works on the first blocks while the rest is inflated (a lone large member
/// split across cores).
pub fn inflate_range_streaming(
    file: &File,
    length: u64,
    start: u64,
    end: u64,
    candidates: &[u64],
    sink: impl FnMut(&[u8]),
) -> InflateOutcome {
    inflate_range_with(file, length, (start, end), candidates, false, None, sink)
}

/// [`inflate_range`] over `(start, end)`, with the one-shot path or without it; `source`, when
/// given, holds the file's first bytes, which the one-shot path takes members from.
fn inflate_range_with(
    file: &File,
    length: u64,
    (start, end): (u64, u64),
    candidates: &[u64],
    one_shot: bool,
    source: Option<&[u8]>,
    mut sink: impl FnMut(&[u8]),
) -> InflateOutcome {
    let mut outcome = InflateOutcome { end: start, ..InflateOutcome::default() };
    let mut input = Input { file, length, buffer: Vec::new(), start, filled: 0, consumed: 0 };
    // The streaming inflater and its output block are made for the first member the one-shot
    // path does not take: a unit of whole members (most units) needs neither, and each cost a
    // zeroed quarter megabyte and an inflate state per unit.
    let mut streaming: Option<(Decompress, Vec<u8>)> = None;
    let mut position = start;
    while position < length && (position < end || outcome.members == 0) {
        // The member's end, when the candidates say where the next one starts.
        let next = candidates.partition_point(|&offset| offset <= position);
        let member_end = candidates.get(next).copied().unwrap_or(length);
        if one_shot
            && (next < candidates.len() || candidates.last().is_some_and(|&last| last <= position))
            && inflate_one_shot(file, (position, member_end), source, &mut |block: &[u8]| {
                outcome.output_bytes += block.len() as u64;
                sink(block);
            })
        {
            outcome.members += 1;
            position = member_end;
            continue;
        }
        input.seek(position);
        let (decompress, output) =
            streaming.get_or_insert_with(|| (Decompress::new(false), vec![0u8; OUTPUT_BLOCK]));
        match inflate_member(&mut input, decompress, output, &mut sink, &mut outcome) {
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

/// Where a chunk inside one gzip member starts decoding: a deflate block boundary an index
/// recorded (zran-style), with the 32 KiB of output before it that back-references may reach.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Resume {
    /// Compressed position of the block, in bits from the start of the file.
    pub bit_offset: u64,
    /// Decompressed offset of the block's first output byte.
    pub output_start: u64,
    /// First line start at or after `output_start`: the chunk's lines begin here.
    pub line_start: u64,
    /// The next chunk's `line_start` (`None`: the chunk runs to the end of the member).
    pub line_end: Option<u64>,
    /// Up to 32 KiB of output before `output_start`, raw-deflated (empty at a member start).
    pub window: Vec<u8>,
}

/// Compresses a checkpoint window for [`Resume::window`].
pub fn deflate_window(window: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    let mut encoder = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    if encoder.write_all(window).is_err() {
        return Vec::new();
    }
    encoder.finish().unwrap_or_default()
}

/// The history a resumed chunk decodes with: its window, inflated (empty at a member start).
fn history(resume: &Resume, length: u64) -> Result<Vec<u8>, InflateProblem> {
    use std::io::Read as _;
    if resume.window.is_empty() {
        return Ok(Vec::new());
    }
    let mut bytes = Vec::with_capacity(32 << 10);
    flate2::read::DeflateDecoder::new(resume.window.as_slice())
        .take(32 << 10)
        .read_to_end(&mut bytes)
        .map_err(|error| InflateProblem::Corrupt {
            member_offset: resume.bit_offset / 8,
            detail: format!("checkpoint window: {error}"),
            resume: length,
        })?;
    Ok(bytes)
}

/// Inflates the lines of a resumed chunk: from [`Resume::bit_offset`] with its window as the
/// history, handing `sink` the output between [`Resume::line_start`] and [`Resume::line_end`]
/// (whole lines). The member's checksum cannot be checked from inside it; the index verified it
/// when it recorded the checkpoint.
pub fn inflate_resumed(
    file: &File,
    length: u64,
    resume: &Resume,
    mut sink: impl FnMut(&[u8]),
) -> InflateOutcome {
    let mut outcome = InflateOutcome { end: resume.bit_offset / 8, ..InflateOutcome::default() };
    let start = resume.line_start;
    let end = resume.line_end.unwrap_or(u64::MAX);
    let result = history(resume, length).and_then(|window| {
        inflate_from(file, length, resume, &window, |position, block| {
            let block_end = position + block.len() as u64;
            let from = start.max(position);
            let to = end.min(block_end);
            if from < to {
                let slice = &block[usize::try_from(from - position).unwrap_or(0)
                    ..usize::try_from(to - position).unwrap_or(0)];
                outcome.output_bytes += slice.len() as u64;
                sink(slice);
            }
            if block_end >= end {
                std::ops::ControlFlow::Break(())
            } else {
                std::ops::ControlFlow::Continue(())
            }
        })
    });
    match result {
        Ok(compressed_end) => outcome.end = compressed_end,
        Err(problem) => {
            outcome.end = length;
            outcome.problems.push(problem);
        }
    }
    outcome
}

/// The first line start at or after the checkpoint's output offset (`None` when no newline
/// follows it: the checkpoint is inside the member's last line).
pub fn resume_line_start(file: &File, length: u64, resume: &Resume) -> Result<Option<u64>, InflateProblem> {
    if resume.window.is_empty() && resume.output_start == 0 {
        return Ok(Some(0));
    }
    let window = history(resume, length)?;
    if window.last() == Some(&b'\n') {
        return Ok(Some(resume.output_start));
    }
    let mut found = None;
    inflate_from(file, length, resume, &window, |position, block| match memchr::memchr(b'\n', block) {
        Some(newline) => {
            found = Some(position + newline as u64 + 1);
            std::ops::ControlFlow::Break(())
        }
        None => std::ops::ControlFlow::Continue(()),
    })?;
    Ok(found)
}

/// Reads a file from a bit offset as whole bytes: each byte is shifted down by the offset's bit
/// and topped up with the low bits of the next one, so a deflate block that starts mid-byte can be
/// handed to an inflater that only starts at byte boundaries.
struct Realigned<'a> {
    file: &'a File,
    length: u64,
    shift: u32,
    raw: Vec<u8>,
    /// Next raw byte to read.
    next: u64,
}

impl Realigned<'_> {
    /// Appends the next block of realigned bytes to `into`; returns how many (0 at the end).
    fn append(&mut self, into: &mut Vec<u8>) -> std::io::Result<usize> {
        if self.next >= self.length {
            return Ok(0);
        }
        let read = read_fully_at(self.file, &mut self.raw, self.next)?;
        if read == 0 {
            return Ok(0);
        }
        if self.shift == 0 {
            into.extend_from_slice(&self.raw[..read]);
            self.next += read as u64;
            return Ok(read);
        }
        // The last byte read still owes its high bits to the next block, unless the file ends.
        let usable = if self.next + read as u64 >= self.length { read } else { read - 1 };
        let shift = self.shift;
        let raw = &self.raw[..read];
        into.extend((0..usable).map(|index| {
            let high = raw.get(index + 1).map_or(0, |&next| next << (8 - shift));
            (raw[index] >> shift) | high
        }));
        self.next += usable as u64;
        Ok(usable)
    }
}

/// Raw-inflates from `resume.bit_offset` with `window` (the inflated [`Resume::window`]) as
/// history, giving `output` each block with its decompressed offset, until it says stop or the
/// deflate stream ends. Returns the compressed byte reached.
fn inflate_from(
    file: &File,
    length: u64,
    resume: &Resume,
    window: &[u8],
    mut output: impl FnMut(u64, &[u8]) -> std::ops::ControlFlow<()>,
) -> Result<u64, InflateProblem> {
    let member_offset = resume.bit_offset / 8;
    let corrupt = |detail: String| InflateProblem::Corrupt { member_offset, detail, resume: length };
    let mut decompress = Decompress::new(false);
    if !window.is_empty() {
        decompress.set_dictionary(window).map_err(|error| corrupt(error.to_string()))?;
    }
    let mut input = Realigned {
        file,
        length,
        shift: (resume.bit_offset % 8) as u32,
        raw: vec![0u8; READ_BLOCK],
        next: member_offset,
    };
    let io_problem =
        |offset: u64, error: std::io::Error| InflateProblem::Io { offset, detail: error.to_string() };
    let mut pending: Vec<u8> = Vec::with_capacity(READ_BLOCK);
    let mut start = 0;
    let mut out = vec![0u8; OUTPUT_BLOCK];
    let mut position = resume.output_start;
    loop {
        if start == pending.len() {
            pending.clear();
            start = 0;
            if input.append(&mut pending).map_err(|error| io_problem(input.next, error))? == 0 {
                return Err(InflateProblem::Truncated { member_offset });
            }
        }
        let before_in = decompress.total_in();
        let before_out = decompress.total_out();
        let status = decompress
            .decompress(&pending[start..], &mut out, FlushDecompress::None)
            .map_err(|error| corrupt(error.to_string()))?;
        let consumed = (decompress.total_in() - before_in) as usize;
        let produced = (decompress.total_out() - before_out) as usize;
        start += consumed;
        if produced > 0 {
            let flow = output(position, &out[..produced]);
            position += produced as u64;
            if flow.is_break() {
                return Ok(input.next);
            }
        }
        if status == Status::StreamEnd {
            return Ok(input.next);
        }
        if consumed == 0 && produced == 0 {
            // No progress: inflate wants more input than is buffered.
            pending.drain(..start);
            start = 0;
            if input.append(&mut pending).map_err(|error| io_problem(input.next, error))? == 0 {
                return Err(InflateProblem::Truncated { member_offset });
            }
        }
    }
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

    /// Blocks of any size find the same members as one read of the whole file, a header cut by
    /// a block's end included.
    #[test]
    fn candidates_do_not_depend_on_the_block_size() {
        let mut bytes = Vec::new();
        let mut starts = Vec::new();
        for member in 0..40u32 {
            starts.push(bytes.len() as u64);
            bytes.extend(gzip(format!("line {member}\n").repeat(member as usize + 1).as_bytes()));
        }
        let (file, length) = temp_file("blocks", &bytes);
        let whole = candidates_in_blocks(&file, length, &mut Vec::new(), bytes.len()).unwrap_or_default();
        assert!(starts.iter().all(|start| whole.contains(start)), "{whole:?}");
        for block in [16, 17, 23, 64, 100, 4096] {
            let mut buffer = Vec::new();
            assert_eq!(
                candidates_in_blocks(&file, length, &mut buffer, block).unwrap_or_default(),
                whole,
                "{block}"
            );
        }
        assert_eq!(member_candidates(&file, length).unwrap_or_default(), whole);
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

    fn stored(data: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::none());
        encoder.write_all(data).unwrap_or_default();
        encoder.finish().unwrap_or_default()
    }

    /// Both inflaters over the same bytes: output, members, end and problems. The one-shot path
    /// is taken twice, reading each member from the file and from the file read whole
    /// ([`inflate_whole_file`]), and must give the same both ways.
    fn both_paths(bytes: &[u8], name: &str) -> [(Vec<u8>, u64, u64, Vec<InflateProblem>); 2] {
        let (file, length) = temp_file(name, bytes);
        let candidates = member_candidates(&file, length).unwrap_or_default();
        let [one_shot, streaming] = [true, false].map(|one_shot| {
            let mut out = Vec::new();
            let outcome =
                inflate_range_with(&file, length, (0, length), &candidates, one_shot, None, |block| {
                    out.extend_from_slice(block);
                });
            (out, outcome.members, outcome.end, outcome.problems)
        });
        let mut out = Vec::new();
        let whole = inflate_whole_file(&file, length, |block| out.extend_from_slice(block));
        assert_eq!((out, whole.members, whole.end, whole.problems), one_shot, "{name}: read whole");
        [one_shot, streaming]
    }

    /// The one-shot path takes only members it checked whole: a candidate inside a member (a
    /// gzip header stored verbatim in the data), bytes between members, a cut or corrupt member,
    /// an empty member, all give what streaming gives.
    #[test]
    fn the_one_shot_path_gives_what_streaming_gives() {
        let fake_header = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
        let mut inside = b"abc".to_vec();
        inside.extend_from_slice(&fake_header);
        inside.extend_from_slice(b"more text\n");
        let lines = b"a line of the trace\n".repeat(5000);
        let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
        let mut bytes = stored(&inside);
        bytes.extend(gzip(b"two\n"));
        cases.push(("inside", bytes));
        let mut bytes = gzip(&lines);
        bytes.extend_from_slice(b"junk");
        bytes.extend(gzip(b"two\n"));
        cases.push(("between", bytes));
        let mut bytes = gzip(&lines);
        bytes.extend(gzip(&lines));
        bytes.truncate(bytes.len() - 30);
        cases.push(("cut", bytes));
        let mut bytes = gzip(&lines);
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x55;
        bytes.extend(gzip(b"after\n"));
        cases.push(("corrupt", bytes));
        let mut bytes = gzip(b"");
        bytes.extend(gzip(&lines));
        bytes.extend(gzip(b"last\n"));
        cases.push(("empty", bytes));
        for (name, bytes) in cases {
            let [one_shot, streaming] = both_paths(&bytes, name);
            assert_eq!(one_shot, streaming, "{name}");
        }
        // And a sound file is read whole by both, the fake candidate included.
        let mut bytes = stored(&inside);
        bytes.extend(gzip(b"two\n"));
        let [(out, members, _, problems), _] = both_paths(&bytes, "sound");
        assert_eq!(out, [inside.as_slice(), b"two\n"].concat());
        assert_eq!(members, 2);
        assert!(problems.is_empty());
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
