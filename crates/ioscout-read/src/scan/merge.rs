//! The ordered merge: each unit's result is verified (a gzip unit's start was a candidate: it is
//! accepted only where the previous unit really ended, else decoded again from there), the line
//! cut by a unit boundary is stitched and decoded once, problems get absolute line numbers and
//! offsets, and the fold is handed to the caller in file order.

use std::ops::ControlFlow;

use ioscout_model::{GenerationEvidence, PhaseCounts};

use crate::gzip::InflateProblem;
use crate::input::Compression;

use super::lines::{LineLocation, LineProcessor, LocalProblem, process_whole_line};
use super::plan::{OpenFile, Unit};
use super::{Chunk, FileSummary, Fold, Problem, ProblemKind, Scanner, UnitSpan};

impl Scanner {
    /// Verifies, stitches and hands over one unit's result.
    #[expect(clippy::too_many_arguments, reason = "internal plumbing between scan loop and merge state")]
    pub(super) fn merge_unit<F, M, C>(
        &self,
        open: &OpenFile,
        unit: &Unit,
        mut result: UnitResult<F>,
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
        let mut decoded_start = unit.start;
        if open.trace.compression == Compression::Gzip && unit.start != merge.expected_start {
            if unit.end <= merge.expected_start {
                // The previous unit's last member covered this whole range: the start was a false
                // header candidate inside it.
                return ControlFlow::Continue(());
            }
            let redo = Unit { file: unit.file, start: merge.expected_start, end: unit.end, resume: None };
            result = self.decode_unit(open, &redo, true, make(unit.file));
            decoded_start = redo.start;
        }
        let span = UnitSpan {
            start: decoded_start,
            end: result.end,
            line_base: merge.line_base,
            offset_base: merge.offset_base,
            clean_end: result.clean_end,
        };
        merge.expected_start = result.end;
        let keep = self.options.max_reported_problems;
        let path = &open.trace.path;
        summary.absorb(&mut result, path, merge.line_base, merge.offset_base, keep);
        if !result.saw_newline {
            // The whole unit is the middle of one line.
            if merge.tail.is_empty() && !merge.tail_oversize {
                merge.tail_offset = merge.offset_base;
            }
            merge.append_tail(&result.tail, result.tail_oversize, self.options.max_line_bytes);
            merge.offset_base += result.bytes;
            match merge.held.as_mut() {
                Some((_, span)) => span.end = result.end,
                None => merge.held = Some((result.processor, span)),
            }
            return ControlFlow::Continue(());
        }
        let mut flow = ControlFlow::Continue(());
        if let Some(first) = result.first_line.take() {
            let continued = !merge.tail.is_empty() || merge.tail_oversize;
            let offset = if continued { merge.tail_offset } else { merge.offset_base };
            let mut line = std::mem::take(&mut merge.tail);
            let oversize = std::mem::take(&mut merge.tail_oversize)
                || result.first_oversize
                || line.len() + first.len() > self.options.max_line_bytes;
            line.extend_from_slice(&first);
            let located = LineLocation { line: merge.line_base + 1, offset };
            match merge.held.as_mut() {
                Some((held, held_span)) => {
                    // The stitched line crosses the boundary: no chunk may end there.
                    held_span.clean_end = !continued;
                    process_whole_line(&line, oversize, located, held, summary, path, keep);
                }
                None => {
                    process_whole_line(&line, oversize, located, &mut result.processor, summary, path, keep);
                }
            }
        } else if !merge.tail.is_empty() || merge.tail_oversize {
            // A unit that starts a line cannot follow an unfinished one; decode the tail alone.
            let line = std::mem::take(&mut merge.tail);
            let oversize = std::mem::take(&mut merge.tail_oversize);
            merge.line_base += 1;
            summary.lines += 1;
            let located = LineLocation { line: merge.line_base, offset: merge.tail_offset };
            match merge.held.as_mut() {
                Some((held, _)) => process_whole_line(&line, oversize, located, held, summary, path, keep),
                None => {
                    process_whole_line(&line, oversize, located, &mut result.processor, summary, path, keep);
                }
            }
        }
        if let Some((held, held_span)) = merge.held.take() {
            flow = consume(unit.file, held.fold, held_span);
        }
        summary.lines += result.lines;
        merge.tail_offset = merge.offset_base + result.tail_offset;
        merge.tail = std::mem::take(&mut result.tail);
        merge.tail_oversize = result.tail_oversize;
        merge.line_base += result.lines;
        merge.offset_base += result.bytes;
        merge.held = Some((result.processor, span));
        flow
    }

    /// Decodes a file's unfinished last line and hands over its last fold.
    pub(super) fn finish_file<F: Fold, C: FnMut(usize, F, UnitSpan) -> ControlFlow<()>>(
        &self,
        file: usize,
        merges: &mut [FileMerge<F>],
        summary: &mut FileSummary,
        consume: &mut C,
    ) -> ControlFlow<()> {
        let merge = &mut merges[file];
        let keep = self.options.max_reported_problems;
        if !merge.tail.is_empty() || merge.tail_oversize {
            let line = std::mem::take(&mut merge.tail);
            let located = LineLocation { line: merge.line_base + 1, offset: merge.tail_offset };
            summary.lines += 1;
            let path = summary.path.clone();
            match merge.held.as_mut() {
                Some((held, _)) => {
                    process_whole_line(&line, merge.tail_oversize, located, held, summary, &path, keep);
                }
                None => {
                    summary.add_problem(
                        Problem {
                            path,
                            kind: ProblemKind::InvalidJson,
                            line: Some(located.line),
                            offset: Some(located.offset),
                            compressed_offset: None,
                            detail: "unterminated line".into(),
                        },
                        keep,
                    );
                }
            }
        }
        // Stitched lines are decoded after the unit that holds them: restore file order.
        summary.problems.sort_by_key(|problem| (problem.offset, problem.line));
        match merge.held.take() {
            Some((held, span)) => consume(file, held.fold, span),
            None => ControlFlow::Continue(()),
        }
    }
}

/// Adds one independently decoded chunk to its file's summary and returns its fold.
pub(super) fn merge_chunk<F: Fold>(
    path: &std::path::Path,
    chunk: &Chunk,
    mut result: UnitResult<F>,
    summary: &mut FileSummary,
    keep: usize,
) -> F {
    summary.absorb(&mut result, path, chunk.line_base, chunk.offset_base, keep);
    summary.lines += result.lines;
    if !result.tail.is_empty() || result.tail_oversize {
        // The unterminated last line of the file.
        summary.lines += 1;
        let located = LineLocation {
            line: chunk.line_base + result.lines + 1,
            offset: chunk.offset_base + result.tail_offset,
        };
        let tail = std::mem::take(&mut result.tail);
        process_whole_line(&tail, result.tail_oversize, located, &mut result.processor, summary, path, keep);
    }
    result.processor.fold
}

/// A decoded unit, waiting to be merged.
pub(super) struct UnitResult<F> {
    pub(super) processor: LineProcessor<F>,
    pub(super) counts: PhaseCounts,
    pub(super) wrapper_lines: u64,
    pub(super) blank_lines: u64,
    pub(super) evidence: GenerationEvidence,
    pub(super) problem_count: u64,
    pub(super) problems: Vec<LocalProblem>,
    pub(super) lines: u64,
    pub(super) bytes: u64,
    pub(super) members: u64,
    pub(super) end: u64,
    pub(super) first_line: Option<Vec<u8>>,
    pub(super) first_oversize: bool,
    pub(super) saw_newline: bool,
    pub(super) tail: Vec<u8>,
    pub(super) tail_offset: u64,
    pub(super) tail_oversize: bool,
    pub(super) inflate_problems: Vec<InflateProblem>,
    /// No line crosses the end (false for a part of a unit cut in its decompressed stream,
    /// whose end is not a compressed position a chunk could start at).
    pub(super) clean_end: bool,
}

/// Per-file merge state.
pub(super) struct FileMerge<F> {
    pub(super) expected_start: u64,
    pub(super) line_base: u64,
    pub(super) offset_base: u64,
    pub(super) tail: Vec<u8>,
    pub(super) tail_offset: u64,
    pub(super) tail_oversize: bool,
    pub(super) held: Option<(LineProcessor<F>, UnitSpan)>,
}

impl<F> Default for FileMerge<F> {
    fn default() -> Self {
        FileMerge {
            expected_start: 0,
            line_base: 0,
            offset_base: 0,
            tail: Vec::new(),
            tail_offset: 0,
            tail_oversize: false,
            held: None,
        }
    }
}

impl<F> FileMerge<F> {
    pub(super) fn append_tail(&mut self, bytes: &[u8], oversize: bool, limit: usize) {
        if oversize || self.tail.len() + bytes.len() > limit {
            self.tail_oversize = true;
            self.tail = Vec::new();
        } else if !self.tail_oversize {
            self.tail.extend_from_slice(bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::ops::ControlFlow;
    use std::sync::Arc;

    use ioscout_model::Event;

    use crate::input::{Compression, TraceFile};
    use crate::scan::lines::{LineProcessor, Splitter};
    use crate::scan::plan::{OpenFile, Unit};
    use crate::scan::{FileSummary, Fold, LinePosition, ScanOptions, Scanner};

    use super::FileMerge;

    /// Records the `ts` of each event with the position of its line.
    #[derive(Default)]
    struct Seen {
        events: Vec<(Option<i64>, LinePosition)>,
        position: LinePosition,
    }

    impl Fold for Seen {
        fn event(&mut self, event: &Event<'_>) {
            self.events.push((event.ts, self.position));
        }

        fn line_position(&mut self, position: LinePosition) {
            self.position = position;
        }
    }

    /// Twelve lines whose `ts` is their line number; lines 4 and 9 are not JSON.
    fn text() -> Vec<u8> {
        (1..=12)
            .map(|line| match line {
                4 | 9 => format!("{{broken line {line}\n"),
                _ => {
                    format!("{{\"ph\":\"X\",\"ts\":{line},\"dur\":1,\"name\":\"read\",\"cat\":\"POSIX\"}}\n")
                }
            })
            .collect::<String>()
            .into_bytes()
    }

    /// Decodes `text` as units cut at `cuts` (anywhere, mid-line included) and merges them in
    /// order, as the scan does for gzip units: the events handed over as (ts, line number), and
    /// the file's summary.
    fn merged(text: &[u8], cuts: &[usize]) -> (Vec<(Option<i64>, u64)>, FileSummary) {
        let scanner = Scanner::new(ScanOptions::default());
        let trace =
            TraceFile { path: "merge.pfw".into(), size: text.len() as u64, compression: Compression::None };
        let mut summary = FileSummary::new(&trace);
        let open = OpenFile { trace, readable: true, candidates: Arc::new(Vec::new()), inflate_whole: false };
        let mut merges = vec![FileMerge::<Seen>::default()];
        let mut events = Vec::new();
        let mut consume = |_file: usize, fold: Seen, span: crate::UnitSpan| {
            events.extend(fold.events.into_iter().map(|(ts, position)| (ts, position.line(span.line_base))));
            ControlFlow::Continue(())
        };
        let bounds: Vec<usize> = std::iter::once(0).chain(cuts.iter().copied()).chain([text.len()]).collect();
        for (index, range) in bounds.windows(2).enumerate() {
            let mut processor = LineProcessor::new(Seen::default());
            let mut splitter = Splitter::new(index > 0, 1 << 20);
            splitter.feed(&text[range[0]..range[1]], &mut processor);
            let result = splitter.finish(processor, range[1] as u64, 0, Vec::new());
            let unit = Unit { file: 0, start: range[0] as u64, end: range[1] as u64, resume: None };
            let _ = scanner.merge_unit(
                &open,
                &unit,
                result,
                &mut merges[0],
                &mut summary,
                &|_| Seen::default(),
                &mut consume,
            );
        }
        let _ = scanner.finish_file(0, &mut merges, &mut summary, &mut consume);
        (events, summary)
    }

    #[test]
    fn units_cut_anywhere_merge_to_the_events_and_problems_of_the_whole_file_in_file_order() {
        let text = text();
        let (whole_events, whole) = merged(&text, &[]);
        let expected: Vec<(Option<i64>, u64)> =
            (1..=12).filter(|line| *line != 4 && *line != 9).map(|line| (Some(line as i64), line)).collect();
        assert_eq!(whole_events, expected);
        let located = |summary: &FileSummary| {
            summary.problems.iter().map(|problem| (problem.line, problem.offset)).collect::<Vec<_>>()
        };
        let line_start = |line: usize| {
            text.split_inclusive(|&byte| byte == b'\n').take(line - 1).map(<[u8]>::len).sum::<usize>()
        };
        assert_eq!(
            located(&whole),
            vec![(Some(4), Some(line_start(4) as u64)), (Some(9), Some(line_start(9) as u64))]
        );
        // Every pair of cuts, mid-line and on line starts, among them cuts inside the broken lines.
        for first in 1..text.len() {
            for second in (first + 1..text.len()).step_by(23) {
                let (events, summary) = merged(&text, &[first, second]);
                assert_eq!(events, expected, "cuts at {first} and {second}");
                assert_eq!(located(&summary), located(&whole), "cuts at {first} and {second}");
                assert_eq!((summary.lines, summary.problem_count), (12, 2), "cuts at {first} and {second}");
            }
        }
    }
}
