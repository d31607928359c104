//! Lines: the splitter that cuts a unit's decompressed stream into lines (with the oversize
//! limit and the carried partial line), and the processor that decodes each line as deeply as
//! the fold asks, counts it by phase, samples the format generation and keeps located problems.

use ioscout_model::{GenerationEvidence, PhaseCounts};

use crate::event::{Args, Line, LineError, LinePhase, decode_line, decode_phase, hash_evidence};
use crate::fields::{EventFields, decode_fields_into, decode_plain_fields_into};
use crate::gzip::InflateProblem;
use crate::json;

use super::merge::UnitResult;
use super::{Decode, FileSummary, Fold, Phases, Problem, ProblemKind};

#[derive(Clone, Copy)]
pub(super) struct LineLocation {
    pub(super) line: u64,
    pub(super) offset: u64,
}

/// A problem with a position relative to its unit.
pub(super) struct LocalProblem {
    pub(super) kind: ProblemKind,
    pub(super) line_index: u64,
    pub(super) offset: u64,
    pub(super) detail: String,
}

impl LocalProblem {
    pub(super) fn locate(self, path: &std::path::Path, line_base: u64, offset_base: u64) -> Problem {
        Problem {
            path: path.to_path_buf(),
            kind: self.kind,
            line: Some(line_base + self.line_index + 1),
            offset: Some(offset_base + self.offset),
            compressed_offset: None,
            detail: self.detail,
        }
    }
}

/// Decodes lines and feeds events to a fold, keeping the unit's counters.
pub(super) struct LineProcessor<F> {
    pub(super) fold: F,
    /// How much of each line the fold needs decoded ([`Fold::decode`]).
    pub(super) decode: Decode,
    /// The phases whose events go to the fold.
    pub(super) wanted: Phases,
    pub(super) counts: PhaseCounts,
    pub(super) wrapper_lines: u64,
    pub(super) blank_lines: u64,
    pub(super) evidence: GenerationEvidence,
    pub(super) evidence_samples: u32,
    pub(super) problems: Vec<LocalProblem>,
    pub(super) problem_count: u64,
}

pub(super) const EVIDENCE_SAMPLES: u32 = 64;
pub(super) const KEPT_PER_UNIT: usize = 64;

impl<F: Fold> LineProcessor<F> {
    pub(super) fn new(fold: F) -> Self {
        let decode = fold.decode();
        LineProcessor {
            decode,
            wanted: decode.phases(),
            fold,
            counts: PhaseCounts::default(),
            wrapper_lines: 0,
            blank_lines: 0,
            evidence: GenerationEvidence::default(),
            evidence_samples: 0,
            problems: Vec::new(),
            problem_count: 0,
        }
    }

    /// Decodes one line (`plain`: the same line as text, when its block was found plain by
    /// [`crate::json::plain_lines`]); `Err` carries the problem for the caller to locate.
    pub(super) fn line(&mut self, bytes: &[u8], plain: Option<&str>) -> Result<(), (ProblemKind, String)> {
        if self.decode == Decode::Skim {
            self.fold.skim(bytes);
            return Ok(());
        }
        if matches!(self.decode, Decode::Fields(_)) {
            let mut fields = EventFields::empty();
            let decoded = match plain {
                Some(text) => decode_plain_fields_into(text, &mut fields),
                None => decode_fields_into(bytes, &mut fields),
            };
            if decoded {
                self.counts.add(fields.phase);
                if self.evidence_samples < EVIDENCE_SAMPLES {
                    self.evidence_samples += 1;
                    self.evidence.add(fields_evidence(&fields));
                } else if fields.integer_phase {
                    self.evidence.add(GenerationEvidence(GenerationEvidence::INTEGER_PHASE));
                }
                if self.wanted.contains(fields.phase) {
                    self.fold.fields(&fields);
                }
                return Ok(());
            }
        }
        if self.wanted != Phases::ALL {
            return match decode_phase(bytes) {
                Ok(LinePhase::Event(phase, _)) if self.wanted.contains(phase) => self.event_line(bytes),
                Ok(LinePhase::Event(phase, evidence)) => {
                    self.counts.add(phase);
                    self.evidence.add(evidence);
                    Ok(())
                }
                Ok(LinePhase::Wrapper) => {
                    self.wrapper_lines += 1;
                    Ok(())
                }
                Ok(LinePhase::Blank) => {
                    self.blank_lines += 1;
                    Ok(())
                }
                Err(error) => Err(self.invalid(bytes, &error)),
            };
        }
        self.event_line(bytes)
    }

    /// Decodes a line fully and hands its event to the fold.
    pub(super) fn event_line(&mut self, bytes: &[u8]) -> Result<(), (ProblemKind, String)> {
        match decode_line(bytes) {
            Ok(Line::Event(event)) => {
                if let Some(phase) = event.phase {
                    self.counts.add(phase);
                }
                self.evidence.add(event.evidence);
                if self.evidence_samples < EVIDENCE_SAMPLES && event.args.is_some() {
                    self.evidence_samples += 1;
                    self.evidence.add(hash_evidence(&Args::of(&event)));
                }
                self.fold.event(&event);
                Ok(())
            }
            Ok(Line::Wrapper) => {
                self.wrapper_lines += 1;
                Ok(())
            }
            Ok(Line::Blank) => {
                self.blank_lines += 1;
                Ok(())
            }
            Err(error) => Err(self.invalid(bytes, &error)),
        }
    }

    pub(super) fn invalid(&mut self, bytes: &[u8], error: &LineError) -> (ProblemKind, String) {
        self.counts.invalid += 1;
        let kind = match error {
            LineError::InvalidUtf8 => ProblemKind::InvalidUtf8,
            LineError::InvalidJson(_) => ProblemKind::InvalidJson,
            LineError::NotAnEvent(_) => ProblemKind::NotAnEvent,
        };
        (kind, format!("{error}; line starts {}", preview(bytes)))
    }

    pub(super) fn local_line(&mut self, bytes: &[u8], plain: Option<&str>, line_index: u64, offset: u64) {
        self.fold.line_position(super::LinePosition::in_unit(line_index));
        if let Err((kind, detail)) = self.line(bytes, plain) {
            self.push_problem(LocalProblem { kind, line_index, offset, detail });
        }
    }

    pub(super) fn oversize(&mut self, length: u64, line_index: u64, offset: u64) {
        self.counts.invalid += 1;
        self.push_problem(LocalProblem {
            kind: ProblemKind::LineTooLong,
            line_index,
            offset,
            detail: format!("line of {length} bytes exceeds the line length limit; skipped"),
        });
    }

    pub(super) fn push_problem(&mut self, problem: LocalProblem) {
        self.problem_count += 1;
        if self.problems.len() < KEPT_PER_UNIT {
            self.problems.push(problem);
        }
    }
}

/// Generation evidence of a line decoded by the fields path: integer `ph`, the type of `hhash`,
/// inline names.
pub(super) fn fields_evidence(fields: &EventFields<'_>) -> GenerationEvidence {
    let mut evidence = GenerationEvidence::default();
    if fields.integer_phase {
        evidence.add(GenerationEvidence(GenerationEvidence::INTEGER_PHASE));
    }
    match fields.args.hhash {
        Some(ioscout_model::RawValue::Number(_)) => {
            evidence.add(GenerationEvidence(GenerationEvidence::INTEGER_HASH));
        }
        Some(ioscout_model::RawValue::Str(_)) => {
            evidence.add(GenerationEvidence(GenerationEvidence::STRING_HASH));
        }
        _ => {}
    }
    if fields.args.hostname.is_some() || fields.args.fname.is_some() {
        evidence.add(GenerationEvidence(GenerationEvidence::INLINE_NAMES));
    }
    evidence
}

/// Decodes a line stitched on the merge thread and records its problem with absolute position.
pub(super) fn process_whole_line<F: Fold>(
    line: &[u8],
    oversize: bool,
    location: LineLocation,
    processor: &mut LineProcessor<F>,
    summary: &mut FileSummary,
    path: &std::path::Path,
    keep: usize,
) {
    let before = processor.counts;
    let result = if oversize {
        Err((ProblemKind::LineTooLong, "line exceeds the line length limit; skipped".to_string()))
    } else {
        processor.fold.line_position(super::LinePosition::in_file(location.line));
        processor.line(line, None)
    };
    // Counts of the stitched line go to the summary directly: the processor's counts were
    // already merged.
    let mut delta = processor.counts;
    subtract(&mut delta, &before);
    processor.counts = before;
    summary.counts.merge(&delta);
    if let Err((kind, detail)) = result {
        if oversize {
            summary.counts.invalid += 1;
        }
        summary.problem_count += 1;
        if summary.problems.len() < keep {
            summary.problems.push(Problem {
                path: path.to_path_buf(),
                kind,
                line: Some(location.line),
                offset: Some(location.offset),
                compressed_offset: None,
                detail,
            });
        }
    }
}

pub(super) fn subtract(counts: &mut PhaseCounts, before: &PhaseCounts) {
    counts.complete -= before.complete;
    counts.metadata -= before.metadata;
    counts.counter -= before.counter;
    counts.aggregated -= before.aggregated;
    counts.other -= before.other;
    counts.invalid -= before.invalid;
}

pub(super) fn preview(bytes: &[u8]) -> String {
    let cut = &bytes[..bytes.len().min(60)];
    let text = String::from_utf8_lossy(cut);
    let text: String =
        text.chars().map(|character| if character.is_control() { ' ' } else { character }).collect();
    if bytes.len() > 60 { format!("{text:?}...") } else { format!("{text:?}") }
}

/// Splits a unit's decompressed stream into lines.
pub(super) struct Splitter {
    pub(super) carry: Vec<u8>,
    pub(super) carry_offset: u64,
    pub(super) oversize: bool,
    pub(super) oversize_length: u64,
    pub(super) next_offset: u64,
    pub(super) line_index: u64,
    pub(super) defer_first: bool,
    pub(super) first_line: Option<Vec<u8>>,
    pub(super) first_oversize: bool,
    pub(super) saw_newline: bool,
    pub(super) max_line_bytes: usize,
}

impl Splitter {
    pub(super) fn new(defer_first: bool, max_line_bytes: usize) -> Splitter {
        Splitter {
            carry: Vec::new(),
            carry_offset: 0,
            oversize: false,
            oversize_length: 0,
            next_offset: 0,
            line_index: 0,
            defer_first,
            first_line: None,
            first_oversize: false,
            saw_newline: false,
            max_line_bytes,
        }
    }

    pub(super) fn feed<F: Fold>(&mut self, block: &[u8], processor: &mut LineProcessor<F>) {
        // The lines that start and end in this block are handed on as text too when the whole
        // block is plain (checked once here; the field decoder then checks none of them).
        let plain =
            if matches!(processor.decode, Decode::Fields(_)) { json::plain_lines(block) } else { None };
        let mut start = 0;
        for newline in memchr::memchr_iter(b'\n', block) {
            let piece = &block[start..newline];
            let continued = !self.carry.is_empty() || self.oversize;
            let offset = if continued { self.carry_offset } else { self.next_offset + start as u64 };
            if self.oversize {
                let length = self.oversize_length + piece.len() as u64;
                self.complete_oversize(length, offset, processor);
            } else if continued {
                let mut line = std::mem::take(&mut self.carry);
                line.extend_from_slice(piece);
                if line.len() > self.max_line_bytes {
                    self.complete_oversize(line.len() as u64, offset, processor);
                } else {
                    self.complete(&line, None, offset, processor);
                }
                line.clear();
                self.carry = line;
            } else if piece.len() > self.max_line_bytes {
                self.complete_oversize(piece.len() as u64, offset, processor);
            } else {
                self.complete(piece, plain.and_then(|text| text.get(start..newline)), offset, processor);
            }
            self.oversize = false;
            self.oversize_length = 0;
            start = newline + 1;
        }
        let rest = &block[start..];
        if !rest.is_empty() {
            if self.carry.is_empty() && !self.oversize {
                self.carry_offset = self.next_offset + start as u64;
            }
            if self.oversize {
                self.oversize_length += rest.len() as u64;
            } else if self.carry.len() + rest.len() > self.max_line_bytes {
                self.oversize = true;
                self.oversize_length = (self.carry.len() + rest.len()) as u64;
                self.carry = Vec::new();
            } else {
                self.carry.extend_from_slice(rest);
            }
        }
        self.next_offset += block.len() as u64;
    }

    pub(super) fn complete<F: Fold>(
        &mut self,
        line: &[u8],
        plain: Option<&str>,
        offset: u64,
        processor: &mut LineProcessor<F>,
    ) {
        if self.defer_first && !self.saw_newline {
            self.first_line = Some(line.to_vec());
        } else {
            processor.local_line(line, plain, self.line_index, offset);
        }
        self.saw_newline = true;
        self.line_index += 1;
    }

    pub(super) fn complete_oversize<F: Fold>(
        &mut self,
        length: u64,
        offset: u64,
        processor: &mut LineProcessor<F>,
    ) {
        if self.defer_first && !self.saw_newline {
            // The first line may continue the previous unit's tail: the merge reports it.
            self.first_line = Some(Vec::new());
            self.first_oversize = true;
        } else {
            processor.oversize(length, self.line_index, offset);
        }
        self.saw_newline = true;
        self.line_index += 1;
    }

    pub(super) fn finish<F: Fold>(
        self,
        mut processor: LineProcessor<F>,
        end: u64,
        members: u64,
        inflate_problems: Vec<InflateProblem>,
    ) -> UnitResult<F> {
        let problems = std::mem::take(&mut processor.problems);
        let counts = std::mem::take(&mut processor.counts);
        let problem_count = std::mem::take(&mut processor.problem_count);
        UnitResult {
            counts,
            wrapper_lines: processor.wrapper_lines,
            blank_lines: processor.blank_lines,
            evidence: processor.evidence,
            problem_count,
            problems,
            processor,
            lines: self.line_index,
            bytes: self.next_offset,
            members,
            end,
            first_line: self.first_line,
            first_oversize: self.first_oversize,
            saw_newline: self.saw_newline,
            tail_offset: self.carry_offset,
            tail: self.carry,
            tail_oversize: self.oversize,
            inflate_problems,
            clean_end: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fold that keeps every raw line it is handed.
    struct Kept(Vec<Vec<u8>>);

    impl Fold for Kept {
        fn event(&mut self, _event: &ioscout_model::Event<'_>) {}

        fn decode(&self) -> Decode {
            Decode::Skim
        }

        fn skim(&mut self, line: &[u8]) {
            self.0.push(line.to_vec());
        }
    }

    /// Feeds `stream` in blocks of `block` bytes and returns the lines the fold saw, the
    /// oversize problems (line index, offset) and the number of lines counted.
    fn split(stream: &[u8], block: usize, limit: usize) -> (Vec<Vec<u8>>, Vec<(u64, u64)>, u64) {
        let mut splitter = Splitter::new(false, limit);
        let mut processor = LineProcessor::new(Kept(Vec::new()));
        for piece in stream.chunks(block.max(1)) {
            splitter.feed(piece, &mut processor);
        }
        let oversize: Vec<(u64, u64)> = processor
            .problems
            .iter()
            .filter(|problem| problem.kind == ProblemKind::LineTooLong)
            .map(|problem| (problem.line_index, problem.offset))
            .collect();
        let lines = splitter.line_index;
        (processor.fold.0, oversize, lines)
    }

    /// Every block size gives the same complete lines, in order, and the unfinished last line
    /// stays carried (handed over by the merge, not here).
    #[test]
    fn lines_are_the_same_whatever_the_block_size() {
        let stream = b"first\nsecond line\n\nthird\nunfinished";
        let expected: Vec<Vec<u8>> =
            [&b"first"[..], b"second line", b"", b"third"].iter().map(|line| line.to_vec()).collect();
        for block in 1..=stream.len() {
            let (lines, oversize, counted) = split(stream, block, 1 << 20);
            assert_eq!(lines, expected, "block {block}");
            assert!(oversize.is_empty());
            assert_eq!(counted, 4, "block {block}");
        }
    }

    /// A fold that keeps what the fields path and the full decoder give it.
    #[derive(Default)]
    struct Decoded(Vec<String>);

    impl Fold for Decoded {
        fn event(&mut self, event: &ioscout_model::Event<'_>) {
            self.0.push(format!("event {:?} {:?} {:?}", event.name, event.ts, event.phase));
        }

        fn decode(&self) -> Decode {
            Decode::Fields(super::Phases::ALL)
        }

        fn fields(&mut self, fields: &EventFields<'_>) {
            self.0.push(format!("fields {fields:?}"));
        }
    }

    /// Lines decoded through a block found plain give what the checked path gives: plain
    /// lines beside a non-ASCII one, an escaped one, a garbled one with a NUL byte and a CRLF
    /// one, whatever the block size (a block of one byte holds no whole line, so every line there
    /// takes the checked path).
    #[test]
    fn plain_blocks_decode_as_checked_lines_do() {
        let stream = "{\"id\":1,\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":2,\"ph\":\"X\",\"args\":{\"fhash\":\"a\",\"size\":4}}\n\
            {\"id\":2,\"name\":\"caf\u{e9}\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":6,\"dur\":1,\"ph\":\"X\"}\n\
            {\"id\":3,\"name\":\"a\\\"b\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":7,\"dur\":1,\"ph\":\"X\"}\n\
            {\"id\":4,\"name\":\"w\0\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":8,\"dur\":1,\"ph\":\"X\"}\n\
            {\"id\":5,\"name\":\"write\",\"cat\":\"POSIX\",\"pid\":2,\"tid\":2,\"ts\":9,\"dur\":3,\"ph\":\"X\"}\r\n\
            {\"id\":6,\"name\":\"open\",\"cat\":\"POSIX\",\"pid\":2,\"tid\":2,\"ts\":10,\"dur\":1,\"ph\":\"X\"},\n\
            [\n{\"ph\":\"X\"}\n";
        let run = |stream: &[u8], block: usize| {
            let mut splitter = Splitter::new(false, 1 << 20);
            let mut processor = LineProcessor::new(Decoded::default());
            for piece in stream.chunks(block) {
                splitter.feed(piece, &mut processor);
            }
            let problems: Vec<u64> = processor.problems.iter().map(|problem| problem.line_index).collect();
            (processor.fold.0, processor.counts, problems)
        };
        let checked = run(stream.as_bytes(), 1);
        assert_eq!(checked.0.iter().filter(|line| line.starts_with("fields")).count(), 4, "{:?}", checked.0);
        assert_eq!(checked.2, [3], "the line with a NUL byte is the one problem");
        for block in [2, 7, 64, 150, 151, 400, stream.len()] {
            assert_eq!(run(stream.as_bytes(), block), checked, "block {block}");
        }
        // Without the lines that make a block not plain, the plain path takes the rest.
        let mut plain = String::new();
        for line in stream.lines().filter(|line| line.is_ascii() && !line.contains(['\\', '\0'])) {
            plain.push_str(line);
            plain.push('\n');
        }
        let whole = run(plain.as_bytes(), plain.len());
        assert_eq!(whole, run(plain.as_bytes(), 1));
        assert_eq!(whole.0.len(), 4, "{:?}", whole.0);
    }

    /// A line over the limit is one located problem (its index and byte offset), whether it
    /// arrives in one block or is carried across many; the lines around it are intact.
    #[test]
    fn an_oversize_line_is_located_across_blocks() {
        let mut stream = b"short\n".to_vec();
        stream.extend(std::iter::repeat_n(b'x', 50));
        stream.extend_from_slice(b"\nafter\n");
        for block in [1, 3, 7, 64] {
            let (lines, oversize, counted) = split(&stream, block, 20);
            assert_eq!(lines, [b"short".to_vec(), b"after".to_vec()], "block {block}");
            assert_eq!(oversize, [(1, 6)], "block {block}");
            assert_eq!(counted, 3);
        }
    }
}
