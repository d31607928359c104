//! Planning: a file opened and cut into [`Unit`]s (gzip member runs from header candidates,
//! line-aligned ranges of plain files, one unit for a one-member file), the units grouped into
//! windows decoded in parallel, and the [`UnitSpan`] and [`Chunk`] types that describe the pieces
//! to callers (the index and pruned queries).

use std::fs::File;
use std::sync::Arc;

use crate::gzip::{self, Resume};
use crate::input::{Compression, TraceFile};

use super::{Problem, ProblemKind, Scanner};

/// The part of a file one fold covers: where its decoding started and stopped (compressed
/// offsets for gzip, byte offsets for plain files), how many lines and decompressed bytes come
/// before it, and whether a chunk of an index may end at `end` (no line crosses it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct UnitSpan {
    /// First byte decoded (a gzip member start, or a line start of a plain file).
    pub start: u64,
    /// First byte not decoded.
    pub end: u64,
    /// Lines of the file before this span.
    pub line_base: u64,
    /// Decompressed bytes of the file before this span.
    pub offset_base: u64,
    /// No line crosses `end`.
    pub clean_end: bool,
}

/// A piece of a file that decodes on its own, as an index records it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Chunk {
    /// Index of the file in the list given to [`Scanner::scan_chunks`].
    pub file: usize,
    /// First byte (a line start; for gzip also a member start).
    pub start: u64,
    /// First byte after the chunk (a line and member start, or the end of the file).
    pub end: u64,
    /// Lines of the file before the chunk.
    pub line_base: u64,
    /// Decompressed bytes of the file before the chunk.
    pub offset_base: u64,
    /// For a chunk inside one gzip member: the checkpoint it decodes from (then `start` and `end`
    /// are the compressed bytes it covers, for weighing work only).
    pub resume: Option<Box<Resume>>,
}

/// One unit of work: a byte range of one file.
#[derive(Clone, Debug)]
pub(super) struct Unit {
    pub(super) file: usize,
    pub(super) start: u64,
    pub(super) end: u64,
    pub(super) resume: Option<Box<Resume>>,
}

pub(super) struct OpenFile {
    pub(super) trace: TraceFile,
    /// The file could be opened when the scan was planned. Handles are opened per unit, not
    /// held for the whole scan: a trace of tens of thousands of per-process files must not run
    /// out of file descriptors.
    pub(super) readable: bool,
    pub(super) candidates: Arc<Vec<u64>>,
    /// A small gzip file of one unit, whose candidates are found in its bytes when the unit
    /// reads it whole ([`gzip::inflate_whole_file`]) instead of by a read of its own here.
    pub(super) inflate_whole: bool,
}

impl OpenFile {
    /// The file's member candidates: the plan's, or, for a small file whose candidates were left
    /// to its unit ([`OpenFile::inflate_whole`]), found now as the plan would have.
    pub(super) fn candidates(&self, handle: &File) -> std::borrow::Cow<'_, [u64]> {
        if self.inflate_whole {
            std::borrow::Cow::Owned(gzip::member_candidates(handle, self.trace.size).unwrap_or_default())
        } else {
            std::borrow::Cow::Borrowed(self.candidates.as_slice())
        }
    }
}

impl Scanner {
    /// Opens a file and cuts it into units.
    pub(super) fn plan(&self, index: usize, trace: &TraceFile) -> (OpenFile, Vec<Unit>, Option<Problem>) {
        let problem = |kind, detail: String| Problem {
            path: trace.path.clone(),
            kind,
            line: None,
            offset: None,
            compressed_offset: None,
            detail,
        };
        let handle = match File::open(&trace.path) {
            Ok(handle) => handle,
            Err(error) => {
                let open = OpenFile {
                    trace: trace.clone(),
                    readable: false,
                    candidates: Arc::default(),
                    inflate_whole: false,
                };
                return (open, Vec::new(), Some(problem(ProblemKind::Unreadable, error.to_string())));
            }
        };
        if trace.size == 0 {
            let open = OpenFile {
                trace: trace.clone(),
                readable: true,
                candidates: Arc::default(),
                inflate_whole: false,
            };
            return (open, Vec::new(), Some(problem(ProblemKind::EmptyFile, "empty file: no events".into())));
        }
        let unit_bytes = self.options.unit_bytes.max(1);
        let mut starts = vec![0u64];
        let mut candidates = Arc::default();
        let mut failure = None;
        // A small file is one unit (see below), read whole when it is decoded.
        let inflate_whole = trace.compression == Compression::Gzip
            && trace.size <= gzip::WHOLE_FILE_MOST
            && trace.size <= 2 * unit_bytes;
        match trace.compression {
            Compression::Gzip if inflate_whole => {}
            // Every other gzip file: the candidates cut a large file into units, and tell the
            // inflater where each member ends (a member known whole is inflated in one call).
            Compression::Gzip => match self.member_candidates(&handle, trace) {
                Ok(found) => {
                    if trace.size > 2 * unit_bytes {
                        for &candidate in found.iter() {
                            if candidate >= starts[starts.len() - 1] + unit_bytes && candidate < trace.size {
                                starts.push(candidate);
                            }
                        }
                    }
                    candidates = found;
                }
                Err(error) => failure = Some(problem(ProblemKind::Unreadable, error.to_string())),
            },
            Compression::None if trace.size > 2 * unit_bytes => {
                let mut nominal = unit_bytes;
                while nominal < trace.size {
                    match next_line_start(&handle, nominal, trace.size) {
                        Ok(Some(start)) if start < trace.size => {
                            if start > starts[starts.len() - 1] {
                                starts.push(start);
                            }
                            nominal = start + unit_bytes;
                        }
                        Ok(_) => break,
                        Err(error) => {
                            failure = Some(problem(ProblemKind::Unreadable, error.to_string()));
                            break;
                        }
                    }
                }
            }
            Compression::None => {}
        }
        let units = starts
            .iter()
            .enumerate()
            .map(|(position, &start)| Unit {
                file: index,
                start,
                end: starts.get(position + 1).copied().unwrap_or(trace.size),
                resume: None,
            })
            .collect();
        let open = OpenFile { trace: trace.clone(), readable: true, candidates, inflate_whole };
        (open, units, failure)
    }

    /// The member candidates of the first `trace.size` bytes of `trace`: those an earlier plan of
    /// this scanner (or a clone) found in the file as it is (not modified since), else found now
    /// and kept.
    fn member_candidates(&self, handle: &File, trace: &TraceFile) -> std::io::Result<Arc<Vec<u64>>> {
        let modified = handle.metadata().ok().and_then(|metadata| metadata.modified().ok());
        let key = (trace.path.clone(), trace.size, modified);
        if let Some(found) = self.candidates.lock().ok().and_then(|known| known.get(&key).cloned()) {
            return Ok(found);
        }
        let found = Arc::new(gzip::member_candidates(handle, trace.size)?);
        if let Ok(mut known) = self.candidates.lock() {
            known.insert(key, Arc::clone(&found));
        }
        Ok(found)
    }
}

/// Groups units into windows decoded in parallel between two ordered merges: enough work per
/// window that no core waits long at the barrier, bounded so that memory stays bounded (each
/// window holds at most about `threads * 8` units' worth of folds).
pub(super) fn windows(units: &[Unit], threads: usize, unit_bytes: u64, per_thread: u64) -> Vec<&[Unit]> {
    let budget = unit_bytes.max(1) * per_thread.max(1) * threads as u64;
    let mut windows = Vec::new();
    let mut start = 0;
    let mut bytes = 0u64;
    for (index, unit) in units.iter().enumerate() {
        bytes += unit.end - unit.start;
        if bytes >= budget || index + 1 - start >= 1024 {
            windows.push(&units[start..=index]);
            start = index + 1;
            bytes = 0;
        }
    }
    if start < units.len() {
        windows.push(&units[start..]);
    }
    windows
}

/// Finds the first line start at or after `offset` (the byte after a newline), or `None` at EOF.
pub(super) fn next_line_start(file: &File, offset: u64, length: u64) -> std::io::Result<Option<u64>> {
    let mut buffer = vec![0u8; 64 << 10];
    let mut position = offset - 1;
    while position < length {
        let read = gzip::read_fully_at(file, &mut buffer, position)?;
        if read == 0 {
            return Ok(None);
        }
        if let Some(found) = memchr::memchr(b'\n', &buffer[..read]) {
            return Ok(Some(position + found as u64 + 1));
        }
        position += read as u64;
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(start: u64, end: u64) -> Unit {
        Unit { file: 0, start, end, resume: None }
    }

    /// Windows keep every unit once, in order, and close at the byte budget (8 units' worth per
    /// thread) or at 1024 units, so a window's folds stay bounded.
    #[test]
    fn windows_tile_the_units_within_their_budget() {
        let units: Vec<Unit> = (0..100).map(|index| unit(index * 10, index * 10 + 10)).collect();
        let windows = windows(&units, 2, 10, 8);
        let flattened: Vec<u64> =
            windows.iter().flat_map(|window| window.iter().map(|unit| unit.start)).collect();
        assert_eq!(flattened, (0..100).map(|index| index * 10).collect::<Vec<_>>());
        assert!(
            windows.iter().all(|window| window.len() <= 16),
            "{:?}",
            windows.iter().map(|w| w.len()).collect::<Vec<_>>()
        );
        assert_eq!(windows.len(), 7);
        let tiny: Vec<Unit> = (0..3000).map(|index| unit(index, index + 1)).collect();
        let windows = windows_of(&tiny);
        assert!(windows.iter().all(|window| window.len() <= 1024));
        assert_eq!(windows.iter().map(|window| window.len()).sum::<usize>(), 3000);
    }

    fn windows_of(units: &[Unit]) -> Vec<&[Unit]> {
        windows(units, 4, 1 << 30, 8)
    }
}
