//! Decompression of one region of a log. A region is a concatenation of independent streams
//! (one per writing rank: the runtime compresses per rank and writes the pieces back to back),
//! so decompression continues after each end of stream until the region's bytes are used up.
//!
//! A stream that the decoder refuses (a corrupt block, a failed checksum) is dropped whole: a
//! changed byte garbles the output from where it lies, but the decoder may notice only later (a
//! checksum only at the stream's end), so nothing it produced can be trusted. A stream cut short
//! (the region or the file ends mid-stream) keeps what was decoded: deflate and bzip2 decode a
//! prefix exactly.

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
    match compression {
        Compression::None => Inflated { bytes: input.to_vec(), streams: 1, problem: None },
        Compression::Zlib => inflate_zlib(input),
        Compression::Bzip2 => inflate_bzip2(input),
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

fn inflate_zlib(input: &[u8]) -> Inflated {
    inflate_streams(input, Decompress::new(true), "zlib")
}

fn inflate_bzip2(input: &[u8]) -> Inflated {
    inflate_streams(input, bzip2::Decompress::new(false), "bzip2")
}

/// Decodes streams back to back until the input is used up, keeping what was decoded before a
/// fault.
fn inflate_streams(input: &[u8], mut decoder: impl StreamDecoder, name: &str) -> Inflated {
    let mut bytes: Vec<u8> = Vec::with_capacity(input.len().saturating_mul(4).max(4096));
    let mut offset = 0;
    let mut streams = 0;
    let mut in_stream = false;
    // Where the current stream's output starts: what a refused stream is cut back to.
    let mut stream_start = 0;
    while offset < input.len() {
        if bytes.capacity() - bytes.len() < 16 * 1024 {
            bytes.reserve(bytes.len().max(64 * 1024));
        }
        let before_in = decoder.total_in();
        let before_out = bytes.len();
        let step = decoder.step(&input[offset..], &mut bytes);
        let consumed = (decoder.total_in() - before_in) as usize;
        offset += consumed;
        match step {
            Step::End => {
                streams += 1;
                in_stream = false;
                stream_start = bytes.len();
                decoder.restart();
            }
            Step::More => {
                in_stream = true;
                if consumed == 0 && bytes.len() == before_out {
                    let problem =
                        format!("{name} stream {} stalled at byte {offset} of the region", streams + 1);
                    return Inflated { bytes, streams, problem: Some(problem) };
                }
            }
            Step::Error(error) => {
                let dropped = bytes.len() - stream_start;
                bytes.truncate(stream_start);
                let problem = format!(
                    "corrupt {name} stream {} at byte {offset} of the region: {error}; its {dropped} decompressed bytes are dropped (a stream that fails its check cannot be trusted anywhere)",
                    streams + 1
                );
                return Inflated { bytes, streams, problem: Some(problem) };
            }
        }
    }
    let problem =
        in_stream.then(|| format!("{name} stream {} is truncated (region ends mid-stream)", streams + 1));
    Inflated { bytes, streams, problem }
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
