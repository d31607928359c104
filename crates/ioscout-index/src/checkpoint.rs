//! Checkpoints inside single-member gzip files, so that one big member splits into chunks that
//! decode on their own and in parallel (zran-style).
//!
//! # Overview
//!
//! DFTracer before 2.0 (and `gzip` run on a finished trace) writes one gzip member per file; its
//! deflate stream cannot be entered in the middle without knowing where a block starts (a bit
//! offset) and the 32 KiB of output before it (back-references reach that far). [`plan`] finds
//! those points with one parallel decode (`rapidgzip-core`, which also checks the member's CRC
//! and counts lines), one every [`crate::build::BuildOptions::chunk_bytes`] of compressed input
//! or so. Each point then becomes a [`Chunk`] whose lines are those that start at or after the
//! point and before the next one ([`ioscout_read::gzip::resume_line_start`] finds the first
//! line start after a point). The scanner decodes those chunks in parallel like any other
//! ([`ioscout_read::gzip::inflate_resumed`]), the index keeps the points in its chunk table and
//! the windows (raw-deflated) in a table of their own.
//!
//! A file that is not one member, or that fails to decode here, gets no checkpoints: it is
//! scanned as before, which reports its damage with positions.

use std::fs::File;
use std::io::Read as _;
use std::num::NonZeroU64;

use ioscout_read::gzip::{self, Resume};
use ioscout_read::{Chunk, Compression, TraceFile};
use rapidgzip_core::{CheckpointKind, Decoder, IndexOptions, WindowStorage};
use rayon::prelude::*;

/// Most header candidates a file may show and still be tried as one member (the three magic
/// bytes and a plausible header also occur by chance inside compressed data).
const MAX_CANDIDATES: usize = 16;

/// Compressed bytes sampled to estimate the compression ratio, which turns the chunk size (in
/// compressed bytes) into the checkpoint spacing (in decompressed bytes).
const RATIO_SAMPLE: u64 = 256 << 10;

/// The chunks of `trace` (file `file` of the scan) cut at checkpoints, or `None` when it is not
/// a single gzip member larger than two chunks, or it cannot be decoded whole.
pub(crate) fn plan(file: usize, trace: &TraceFile, chunk_bytes: u64, threads: usize) -> Option<Vec<Chunk>> {
    if trace.compression != Compression::Gzip || trace.size <= 2 * chunk_bytes {
        return None;
    }
    let handle = File::open(&trace.path).ok()?;
    let candidates = gzip::member_candidates(&handle, trace.size).ok()?;
    if candidates.first() != Some(&0) || candidates.len() > MAX_CANDIDATES {
        return None;
    }
    let header = gzip::member_header_length(&handle, 0).ok()??;
    let spacing = chunk_bytes.saturating_mul(compression_ratio(&handle)).max(64 << 10);
    let decoder = Decoder::builder().decoder_threads(threads.max(1)).count_lines(true).build().ok()?;
    let options =
        IndexOptions { checkpoint_spacing: NonZeroU64::new(spacing)?, window_storage: WindowStorage::Zlib };
    let decoded = decoder.decode_with_index(&handle, &mut std::io::sink(), options).ok()?;
    if decoded.decode.member_count != 1 {
        return None;
    }
    let total = decoded.decode.decompressed_bytes;
    let index = decoded.index;
    let mut points = vec![(
        Resume { bit_offset: header * 8, output_start: 0, line_start: 0, line_end: None, window: Vec::new() },
        0u64,
    )];
    for checkpoint in index.checkpoints() {
        let inside = checkpoint.kind == CheckpointKind::DeflateBlock
            && checkpoint.uncompressed_offset_in_bytes > 0
            && checkpoint.uncompressed_offset_in_bytes < total;
        if !inside {
            continue;
        }
        // No stored window: the block needs no history.
        let window = match index.windows().get(checkpoint.compressed_offset_in_bits) {
            Some(window) => window.decompressed().ok()?.into_owned(),
            None => Vec::new(),
        };
        points.push((
            Resume {
                bit_offset: checkpoint.compressed_offset_in_bits,
                output_start: checkpoint.uncompressed_offset_in_bytes,
                line_start: 0,
                line_end: None,
                window: if window.is_empty() { Vec::new() } else { gzip::deflate_window(&window) },
            },
            checkpoint.line_offset?,
        ));
    }
    // Where each point's lines start (a short decode from the point when its window does not
    // end a line); points inside the same line as the previous one, or in the last line, go.
    let starts: Vec<Result<Option<u64>, gzip::InflateProblem>> =
        points.par_iter().map(|(resume, _)| gzip::resume_line_start(&handle, trace.size, resume)).collect();
    let mut kept: Vec<(Resume, u64)> = Vec::with_capacity(points.len());
    for ((mut resume, newlines_before), start) in points.into_iter().zip(starts) {
        // A point that does not decode (the member checked out whole, so this is unexpected)
        // gives up the checkpoints: the file is then scanned as one unit, which reports the
        // damage. A point inside an unterminated last line starts no line: it is dropped.
        let Some(start) = start.ok()? else { continue };
        if kept.last().is_some_and(|(previous, _)| start <= previous.line_start)
            || (start >= total && start > 0)
        {
            continue;
        }
        let line_base = if start == resume.output_start { newlines_before } else { newlines_before + 1 };
        resume.line_start = start;
        kept.push((resume, line_base));
    }
    let ends: Vec<Option<u64>> =
        kept.iter().skip(1).map(|(resume, _)| Some(resume.line_start)).chain([None]).collect();
    let compressed_ends: Vec<u64> =
        kept.iter().skip(1).map(|(resume, _)| resume.bit_offset / 8).chain([trace.size]).collect();
    let mut start = 0;
    let chunks = kept
        .into_iter()
        .zip(ends)
        .zip(compressed_ends)
        .map(|(((mut resume, line_base), line_end), end)| {
            resume.line_end = line_end;
            let chunk = Chunk {
                file,
                start,
                end,
                line_base,
                offset_base: resume.line_start,
                resume: Some(Box::new(resume)),
            };
            start = end;
            chunk
        })
        .collect();
    Some(chunks)
}

/// Decompressed bytes per compressed byte of the file's first [`RATIO_SAMPLE`] bytes (at least 1).
fn compression_ratio(handle: &File) -> u64 {
    let mut decoder = flate2::read::GzDecoder::new(handle.take(RATIO_SAMPLE));
    let mut buffer = vec![0u8; 1 << 20];
    let mut produced = 0u64;
    loop {
        match decoder.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(read) => produced += read as u64,
        }
    }
    (produced / RATIO_SAMPLE).max(1)
}
