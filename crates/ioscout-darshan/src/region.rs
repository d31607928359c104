//! Decompression of one region of a log. A region is a concatenation of independent streams
//! (one per writing rank: the runtime compresses per rank and writes the pieces back to back),
//! so decompression continues after each end of stream until the region's bytes are used up.

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

fn inflate_zlib(input: &[u8]) -> Inflated {
    let mut bytes: Vec<u8> = Vec::with_capacity(input.len().saturating_mul(4).max(4096));
    let mut offset = 0;
    let mut streams = 0;
    let mut decoder = Decompress::new(true);
    let mut in_stream = false;
    while offset < input.len() {
        if bytes.capacity() - bytes.len() < 16 * 1024 {
            bytes.reserve(bytes.len().max(64 * 1024));
        }
        let before_in = decoder.total_in();
        let before_out = bytes.len();
        let status = decoder.decompress_vec(&input[offset..], &mut bytes, FlushDecompress::None);
        let consumed = (decoder.total_in() - before_in) as usize;
        offset += consumed;
        match status {
            Ok(Status::StreamEnd) => {
                streams += 1;
                in_stream = false;
                decoder.reset(true);
            }
            Ok(_) => {
                in_stream = true;
                if consumed == 0 && bytes.len() == before_out {
                    return Inflated {
                        bytes,
                        streams,
                        problem: Some(format!(
                            "zlib stream {} stalled at byte {offset} of the region",
                            streams + 1
                        )),
                    };
                }
            }
            Err(error) => {
                return Inflated {
                    bytes,
                    streams,
                    problem: Some(format!(
                        "corrupt zlib stream {} at byte {offset} of the region: {error}",
                        streams + 1
                    )),
                };
            }
        }
    }
    let problem =
        in_stream.then(|| format!("zlib stream {} is truncated (region ends mid-stream)", streams + 1));
    Inflated { bytes, streams, problem }
}

fn inflate_bzip2(input: &[u8]) -> Inflated {
    let mut bytes: Vec<u8> = Vec::with_capacity(input.len().saturating_mul(4).max(4096));
    let mut offset = 0;
    let mut streams = 0;
    let mut decoder = bzip2::Decompress::new(false);
    let mut in_stream = false;
    while offset < input.len() {
        if bytes.capacity() - bytes.len() < 16 * 1024 {
            bytes.reserve(bytes.len().max(64 * 1024));
        }
        let before_in = decoder.total_in();
        let before_out = bytes.len();
        let status = decoder.decompress_vec(&input[offset..], &mut bytes);
        let consumed = (decoder.total_in() - before_in) as usize;
        offset += consumed;
        match status {
            Ok(bzip2::Status::StreamEnd) => {
                streams += 1;
                in_stream = false;
                decoder = bzip2::Decompress::new(false);
            }
            Ok(_) => {
                in_stream = true;
                if consumed == 0 && bytes.len() == before_out {
                    return Inflated {
                        bytes,
                        streams,
                        problem: Some(format!(
                            "bzip2 stream {} stalled at byte {offset} of the region",
                            streams + 1
                        )),
                    };
                }
            }
            Err(error) => {
                return Inflated {
                    bytes,
                    streams,
                    problem: Some(format!(
                        "corrupt bzip2 stream {} at byte {offset} of the region: {error}",
                        streams + 1
                    )),
                };
            }
        }
    }
    let problem =
        in_stream.then(|| format!("bzip2 stream {} is truncated (region ends mid-stream)", streams + 1));
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
