//! Decompression of one region of a log. A region is a concatenation of independent streams
//! (one per writing rank: the runtime compresses per rank and writes the pieces back to back),
//! so decompression continues after each end of stream until the region's bytes are used up.
//!
//! A stream that the decoder refuses (a corrupt block, a failed checksum) is dropped whole: a
//! changed byte garbles the output from where it lies, but the decoder may notice only later (a
//! checksum only at the stream's end), so nothing it produced can be trusted. A stream cut short
//! (the region or the file ends mid-stream) keeps what was decoded: deflate and bzip2 decode a
//! prefix exactly.

use std::io::BufRead;
use std::ops::ControlFlow;

use flate2::{Decompress, FlushDecompress, Status};

use crate::header::Compression;

/// The result of decompressing a region: the bytes, and what stopped it early, if anything
/// (the bytes decoded before that point are kept).
pub(crate) struct Inflated {
    pub(crate) bytes: Vec<u8>,
    pub(crate) streams: usize,
    pub(crate) problem: Option<String>,
}

/// Decompresses `input` with `compression`.
pub(crate) fn inflate(input: &[u8], compression: Compression) -> Inflated {
    if compression == Compression::None {
        return Inflated { bytes: input.to_vec(), streams: 1, problem: None };
    }
    let mut bytes: Vec<u8> = Vec::with_capacity(input.len().saturating_mul(4).max(4096));
    let mut reader = input;
    let streamed = stream(&mut reader, compression, &mut |piece| {
        if let Piece::Data(data) = piece {
            bytes.extend_from_slice(data);
        }
        ControlFlow::Continue(())
    });
    // A refused stream's output cannot be trusted anywhere: cut back to where it started.
    bytes.truncate(bytes.len().saturating_sub(usize::try_from(streamed.dropped).unwrap_or(usize::MAX)));
    Inflated { bytes, streams: streamed.streams, problem: streamed.problem }
}

/// What decompressing comes out as, in order.
pub(crate) enum Piece<'a> {
    /// Decompressed bytes.
    Data(&'a [u8]),
    /// The stream whose bytes came before ended whole (its checksum held).
    StreamEnd,
}

/// How streaming a region ended.
pub(crate) struct Streamed {
    /// Streams that ended whole.
    pub(crate) streams: usize,
    /// What stopped it early, if anything.
    pub(crate) problem: Option<String>,
    /// Decompressed bytes handed on from a stream the decoder then refused: they are not to be
    /// used (what came before the last [`Piece::StreamEnd`] is).
    pub(crate) dropped: u64,
}

/// Decompresses the region read from `input` piece by piece into `sink`, streams back to back
/// until the input is used up or `sink` breaks (memory: the reader's buffer and 64 KiB of
/// output).
pub(crate) fn stream(
    input: &mut impl BufRead,
    compression: Compression,
    sink: &mut impl FnMut(Piece<'_>) -> ControlFlow<()>,
) -> Streamed {
    match compression {
        Compression::None => copy(input, sink),
        Compression::Zlib => inflate_streams(input, Decompress::new(true), "zlib", sink),
        Compression::Bzip2 => inflate_streams(input, bzip2::Decompress::new(false), "bzip2", sink),
    }
}

/// An uncompressed region handed on as it is read.
fn copy(input: &mut impl BufRead, sink: &mut impl FnMut(Piece<'_>) -> ControlFlow<()>) -> Streamed {
    let mut offset = 0_u64;
    loop {
        let buffer = match input.fill_buf() {
            Ok(buffer) => buffer,
            Err(error) => {
                let problem = Some(format!("read error at byte {offset} of the region: {error}"));
                return Streamed { streams: 0, problem, dropped: 0 };
            }
        };
        if buffer.is_empty() {
            let _ = sink(Piece::StreamEnd);
            return Streamed { streams: 1, problem: None, dropped: 0 };
        }
        let length = buffer.len();
        if sink(Piece::Data(buffer)).is_break() {
            return Streamed { streams: 0, problem: None, dropped: 0 };
        }
        offset += length as u64;
        input.consume(length);
    }
}

/// One decoder step: consumes input, appends output, says whether a stream ended.
enum Step {
    /// The current stream ended.
    End,
    /// More to come.
    More,
    /// The decoder refused the bytes.
    Error(String),
}

/// A stream decoder that can be stepped over a slice (zlib and bzip2 share the loop below).
trait StreamDecoder {
    /// Bytes consumed so far.
    fn total_in(&self) -> u64;
    /// Decodes from `input` into the spare capacity of `output`.
    fn step(&mut self, input: &[u8], output: &mut Vec<u8>) -> Step;
    /// Starts a new stream.
    fn restart(&mut self);
}

impl StreamDecoder for Decompress {
    fn total_in(&self) -> u64 {
        Decompress::total_in(self)
    }

    fn step(&mut self, input: &[u8], output: &mut Vec<u8>) -> Step {
        match self.decompress_vec(input, output, FlushDecompress::None) {
            Ok(Status::StreamEnd) => Step::End,
            Ok(_) => Step::More,
            Err(error) => Step::Error(error.to_string()),
        }
    }

    fn restart(&mut self) {
        self.reset(true);
    }
}

impl StreamDecoder for bzip2::Decompress {
    fn total_in(&self) -> u64 {
        bzip2::Decompress::total_in(self)
    }

    fn step(&mut self, input: &[u8], output: &mut Vec<u8>) -> Step {
        match self.decompress_vec(input, output) {
            Ok(bzip2::Status::StreamEnd) => Step::End,
            Ok(_) => Step::More,
            Err(error) => Step::Error(error.to_string()),
        }
    }

    fn restart(&mut self) {
        *self = bzip2::Decompress::new(false);
    }
}

/// Output produced per decoder step.
const OUTPUT_STEP: usize = 64 * 1024;

/// Decodes streams back to back until the input is used up, handing on what each step
/// produces; a fault stops it, with the faulty stream's bytes counted as dropped.
fn inflate_streams(
    input: &mut impl BufRead,
    mut decoder: impl StreamDecoder,
    name: &str,
    sink: &mut impl FnMut(Piece<'_>) -> ControlFlow<()>,
) -> Streamed {
    let mut output: Vec<u8> = Vec::with_capacity(OUTPUT_STEP);
    let mut offset = 0_u64;
    let mut streams = 0;
    let mut in_stream = false;
    // Output of the current stream so far: what a refused stream drops.
    let mut stream_output = 0_u64;
    loop {
        let buffer = match input.fill_buf() {
            Ok(buffer) => buffer,
            Err(error) => {
                let problem = Some(format!("read error at byte {offset} of the region: {error}"));
                return Streamed { streams, problem, dropped: stream_output };
            }
        };
        // At the end of the input a stream may still hold output it had no room for.
        let at_end = buffer.is_empty();
        if at_end && !in_stream {
            break;
        }
        output.clear();
        let before_in = decoder.total_in();
        let step = decoder.step(buffer, &mut output);
        let consumed = usize::try_from(decoder.total_in() - before_in).unwrap_or(0);
        input.consume(consumed);
        offset += consumed as u64;
        if !output.is_empty() {
            stream_output += output.len() as u64;
            if sink(Piece::Data(&output)).is_break() {
                return Streamed { streams, problem: None, dropped: 0 };
            }
        }
        if at_end && !matches!(step, Step::End) {
            // Nothing more to drain (or the decoder refuses an empty input): the stream is cut.
            if output.is_empty() || matches!(step, Step::Error(_)) {
                break;
            }
            continue;
        }
        match step {
            Step::End => {
                streams += 1;
                in_stream = false;
                stream_output = 0;
                if sink(Piece::StreamEnd).is_break() {
                    return Streamed { streams, problem: None, dropped: 0 };
                }
                decoder.restart();
            }
            Step::More => {
                in_stream = true;
                if consumed == 0 && output.is_empty() {
                    let problem =
                        format!("{name} stream {} stalled at byte {offset} of the region", streams + 1);
                    return Streamed { streams, problem: Some(problem), dropped: 0 };
                }
            }
            Step::Error(error) => {
                let problem = format!(
                    "corrupt {name} stream {} at byte {offset} of the region: {error}; its {stream_output} decompressed bytes are dropped (a stream that fails its check cannot be trusted anywhere)",
                    streams + 1
                );
                return Streamed { streams, problem: Some(problem), dropped: stream_output };
            }
        }
    }
    let problem =
        in_stream.then(|| format!("{name} stream {} is truncated (region ends mid-stream)", streams + 1));
    Streamed { streams, problem, dropped: 0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn zlib(data: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        let _ = encoder.write_all(data);
        encoder.finish().unwrap_or_default()
    }

    #[test]
    fn concatenated_zlib_streams_are_all_read() {
        let mut region = zlib(b"first rank ");
        region.extend(zlib(b"second rank "));
        region.extend(zlib(b"third"));
        let inflated = inflate(&region, Compression::Zlib);
        assert_eq!(inflated.bytes, b"first rank second rank third");
        assert_eq!(inflated.streams, 3);
        assert!(inflated.problem.is_none());
    }

    #[test]
    fn a_truncated_stream_keeps_what_was_read_and_says_so() {
        let mut region = zlib(&[7_u8; 5000]);
        let second = zlib(&(0..5000_u32).map(|value| value as u8).collect::<Vec<_>>());
        region.extend(&second[..second.len() / 2]);
        let inflated = inflate(&region, Compression::Zlib);
        assert!(inflated.bytes.len() >= 5000);
        assert_eq!(&inflated.bytes[..5000], &[7_u8; 5000][..]);
        assert!(inflated.problem.is_some_and(|problem| problem.contains("stream 2")));
    }

    #[test]
    fn a_stream_that_fails_its_check_is_dropped_whole() {
        let mut region = zlib(b"first rank ");
        let mut second = zlib(&[9_u8; 4000]);
        // The checksum at the end no longer matches: the decoder notices only there.
        let last = second.len() - 1;
        second[last] ^= 0xff;
        region.extend(second);
        let inflated = inflate(&region, Compression::Zlib);
        assert_eq!(inflated.bytes, b"first rank ");
        assert!(
            inflated.problem.is_some_and(|problem| problem.contains("4000 decompressed bytes are dropped"))
        );
    }

    #[test]
    fn corrupt_bytes_are_an_error_not_a_panic() {
        let inflated = inflate(&[0x78, 0x9c, 0xff, 0xff, 0xff, 0x00, 0x12], Compression::Zlib);
        assert!(inflated.problem.is_some());
    }

    #[test]
    fn concatenated_bzip2_streams_are_all_read() {
        let compress = |data: &[u8]| {
            let mut encoder = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
            let _ = encoder.write_all(data);
            encoder.finish().unwrap_or_default()
        };
        let mut region = compress(b"alpha ");
        region.extend(compress(b"beta"));
        let inflated = inflate(&region, Compression::Bzip2);
        assert_eq!(inflated.bytes, b"alpha beta");
        assert_eq!(inflated.streams, 2);
    }
}
