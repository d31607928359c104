//! The split path: a file that is one unit (one gzip member, or a few large ones) is inflated on
//! the calling thread while the pool parses its output in parts cut after a newline, merged in
//! order as they complete, at most two per worker in flight (memory stays bounded).

use std::fs::File;
use std::ops::ControlFlow;

use crate::gzip::{self, InflateProblem};
use crate::input::Compression;

use super::lines::{LineProcessor, Splitter};
use super::merge::{FileMerge, UnitResult};
use super::plan::{OpenFile, Unit};
use super::{FileSummary, Fold, Scanner, UnitSpan};

impl Scanner {
    /// Whether `unit` is decoded by one inflater and parsed on all cores ([`Scanner::decode_split`]):
    /// a whole gzip file large enough, alone in its window, with more than one worker.
    pub(super) fn splittable(&self, open: &OpenFile, unit: &Unit, threads: usize) -> bool {
        threads > 1
            && open.readable
            && open.trace.compression == Compression::Gzip
            && unit.resume.is_none()
            && unit.start == 0
            && unit.end == open.trace.size
            && self.options.part_bytes > 0
            && open.trace.size >= (self.options.part_bytes / 16) as u64
    }

    /// Decodes a whole-file gzip unit that no member boundary splits (a single-member file, or
    /// few large members): this thread inflates and cuts the output after a newline every
    /// [`ScanOptions::part_bytes`], the pool's workers parse the parts, and the parts are merged here in order
    /// as they complete. At most `2 * threads` parts are in flight, so memory stays bounded
    /// whatever the file size. Parts are merged like units whose ends are not clean (no index
    /// chunk may end there: they are not compressed positions).
    #[expect(clippy::too_many_arguments, reason = "internal plumbing between scan loop and merge state")]
    pub(super) fn decode_split<F, M, C>(
        &self,
        open: &OpenFile,
        unit: &Unit,
        pool: &rayon::ThreadPool,
        threads: usize,
        merge: &mut FileMerge<F>,
        summary: &mut FileSummary,
        make: &M,
        consume: &mut C,
    ) -> ControlFlow<()>
    where
        F: Fold,
        M: Fn(usize) -> F + Sync,
        C: FnMut(usize, F, UnitSpan) -> ControlFlow<()>,
    {
        let handle = match File::open(&open.trace.path) {
            Ok(handle) => handle,
            Err(error) => {
                let result = self.unopened(unit, make(unit.file), &error);
                return self.merge_unit(open, unit, result, merge, summary, make, consume);
            }
        };
        let max_line_bytes = self.options.max_line_bytes;
        let intermediate = Unit { file: unit.file, start: unit.start, end: unit.start, resume: None };
        let limit = 2 * threads;
        // A part's result, or the panic of its worker (re-raised here: a lost result would leave
        // this thread waiting forever).
        let (sender, receiver) = std::sync::mpsc::channel::<(usize, std::thread::Result<UnitResult<F>>)>();
        let mut flow = ControlFlow::Continue(());
        // Room for a part and the block that completes it: a part is not regrown block by block
        // (each regrowth a copy into fresh pages).
        let spare = PartBuffers::new(self.options.part_bytes + (256 << 10));
        pool.in_place_scope(|scope| {
            let mut submitted = 0usize;
            let mut merged = 0usize;
            let mut ready: std::collections::BTreeMap<usize, UnitResult<F>> =
                std::collections::BTreeMap::new();
            // Merges the parts that are next in order; waits for results while more than
            // `keep_in_flight` parts are out.
            let mut drain = |submitted: usize, keep_in_flight: usize, flow: &mut ControlFlow<()>| {
                loop {
                    // Every part already parsed is taken now, not when the limit is reached:
                    // merged (and handed to `consume`) as soon as the parts before it are, so
                    // what `consume` does with a part overlaps the parsing of the later ones.
                    while let Ok((index, result)) = receiver.try_recv() {
                        ready.insert(index, result.unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
                    }
                    while let Some(result) = ready.remove(&merged) {
                        merged += 1;
                        let part = if result.clean_end { unit } else { &intermediate };
                        if flow.is_continue() {
                            *flow = self.merge_unit(open, part, result, merge, summary, make, consume);
                        }
                    }
                    if submitted - merged <= keep_in_flight {
                        return;
                    }
                    match receiver.recv() {
                        Ok((index, Ok(result))) => {
                            ready.insert(index, result);
                        }
                        Ok((_, Err(panic))) => std::panic::resume_unwind(panic),
                        Err(_) => return,
                    }
                }
            };
            let parse = |mut bytes: Vec<u8>, index: usize, tail: Option<gzip::InflateOutcome>| {
                let sender = sender.clone();
                let fold = make(unit.file);
                let spare = &spare;
                scope.spawn(move |_| {
                    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        let mut processor = LineProcessor::new(fold);
                        let mut splitter = Splitter::new(false, max_line_bytes);
                        splitter.feed(&bytes, &mut processor);
                        spare.give_back(std::mem::take(&mut bytes));
                        if let Some(outcome) = tail {
                            splitter.finish(processor, outcome.end, outcome.members, outcome.problems)
                        } else {
                            let mut result = splitter.finish(processor, intermediate.end, 0, Vec::new());
                            result.clean_end = false;
                            result
                        }
                    }));
                    let _ = sender.send((index, result));
                });
            };
            let part_bytes = self.options.part_bytes;
            let mut buffer = spare.take();
            // Streaming: the parts are parsed on the other cores while the member is still
            // being inflated here (one call would inflate it all before the first part).
            let outcome = gzip::inflate_range_streaming(
                &handle,
                open.trace.size,
                unit.start,
                unit.end,
                &open.candidates(&handle),
                |block| {
                    if self.options.cancelled() {
                        flow = ControlFlow::Break(());
                    }
                    if flow.is_break() {
                        return;
                    }
                    buffer.extend_from_slice(block);
                    while flow.is_continue()
                        && let Some(cut) = part_end(&buffer, part_bytes)
                    {
                        let mut next = spare.take();
                        next.extend_from_slice(&buffer[cut..]);
                        buffer.truncate(cut);
                        let part = std::mem::replace(&mut buffer, next);
                        parse(part, submitted, None);
                        submitted += 1;
                        drain(submitted, limit, &mut flow);
                    }
                    // Parts parsed since are merged while this block's bytes wait for a cut.
                    drain(submitted, limit, &mut flow);
                },
            );
            if flow.is_continue() {
                parse(buffer, submitted, Some(outcome));
                submitted += 1;
            }
            drain(submitted, 0, &mut flow);
        });
        flow
    }

    /// The result of a unit whose file could not be opened: no lines, the error as its problem.
    fn unopened<F: Fold>(&self, unit: &Unit, fold: F, error: &std::io::Error) -> UnitResult<F> {
        let problem = InflateProblem::Io { offset: unit.start, detail: error.to_string() };
        Splitter::new(false, self.options.max_line_bytes).finish(
            LineProcessor::new(fold),
            unit.end,
            0,
            vec![problem],
        )
    }
}

/// The buffers parts are gathered in: a parsed part's buffer is handed back and the next part
/// starts in it (its pages already mapped). There are at most as many as were ever in flight.
struct PartBuffers {
    spare: std::sync::Mutex<Vec<Vec<u8>>>,
    capacity: usize,
}

impl PartBuffers {
    fn new(capacity: usize) -> PartBuffers {
        PartBuffers { spare: std::sync::Mutex::new(Vec::new()), capacity }
    }

    /// An empty buffer: one handed back, else a new one of full room.
    fn take(&self) -> Vec<u8> {
        self.spare
            .lock()
            .ok()
            .and_then(|mut spare| spare.pop())
            .unwrap_or_else(|| Vec::with_capacity(self.capacity))
    }

    fn give_back(&self, mut buffer: Vec<u8>) {
        buffer.clear();
        if let Ok(mut spare) = self.spare.lock() {
            spare.push(buffer);
        }
    }
}

/// Where the part at the start of `buffer` ends: just after the first newline at or past
/// `part_bytes` bytes (so every part but the last holds at least `part_bytes` bytes and ends a
/// line), or `None` while no such newline has arrived.
fn part_end(buffer: &[u8], part_bytes: usize) -> Option<usize> {
    let from = part_bytes.max(1) - 1;
    let found = memchr::memchr(b'\n', buffer.get(from..)?)?;
    Some(from + found + 1)
}

#[cfg(test)]
mod tests {
    use super::part_end;

    /// Cuts `stream` into parts as the split path does, feeding it in blocks of `block` bytes.
    fn parts(stream: &[u8], block: usize, part_bytes: usize) -> Vec<Vec<u8>> {
        let mut parts = Vec::new();
        let mut buffer = Vec::new();
        for piece in stream.chunks(block) {
            buffer.extend_from_slice(piece);
            while let Some(cut) = part_end(&buffer, part_bytes) {
                let rest = buffer.split_off(cut);
                parts.push(std::mem::replace(&mut buffer, rest));
            }
        }
        parts.push(buffer);
        parts
    }

    #[test]
    fn parts_end_lines_hold_at_least_the_part_size_and_tile_the_stream() {
        let stream: Vec<u8> = (0..200)
            .flat_map(|line| format!("line {line} {}\n", "x".repeat(line % 37)).into_bytes())
            .collect();
        for part_bytes in [1, 7, 64, 500, 10_000] {
            for block in [1, 13, 256, 1 << 16] {
                let parts = parts(&stream, block, part_bytes);
                assert_eq!(parts.concat(), stream, "part_bytes {part_bytes}, block {block}");
                let Some((last, whole)) = parts.split_last() else { panic!("no parts") };
                for part in whole {
                    assert!(part.len() >= part_bytes && part.ends_with(b"\n"));
                    // The cut is the first newline at or past the part size.
                    assert!(!part[part_bytes.max(1) - 1..part.len() - 1].contains(&b'\n'));
                }
                assert_eq!(part_end(last, part_bytes), None, "the rest holds no cut");
            }
        }
    }

    #[test]
    fn a_part_waits_for_its_newline() {
        assert_eq!(part_end(b"abcdef", 3), None);
        assert_eq!(part_end(b"ab", 3), None);
        assert_eq!(part_end(b"a\nbcd\nef", 3), Some(6));
        assert_eq!(part_end(b"ab\ncd\n", 3), Some(3));
        assert_eq!(part_end(b"\n", 0), Some(1));
    }
}
