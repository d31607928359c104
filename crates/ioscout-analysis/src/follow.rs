//! Following a trace while it is written: [`Follower`] analyses a trace again and again as its
//! files grow, reading each time only what is new where the earlier result still holds.
//!
//! # Overview
//!
//! DFTracer appends gzip members (or lines) to each process's file while a job runs. Between two
//! looks, a file is either unchanged, extended (its old bytes are still there, checked by a CRC
//! of its first and last 64 KiB as read before), or something else (new, replaced, shrunk).
//! [`Follower::step`] then:
//!
//! 1. runs the first pass over the new bytes only of extended files (a chunk from the old end,
//!    which was a member or line boundary), over the whole of new or replaced files, and merges
//!    them with what it kept of the others;
//! 2. keeps each file's second-pass partial when the new first-pass context leaves it valid
//!    ([`crate::Prepared::holds_in`]: same time origin, categories, process trees and file
//!    names, and no compute or epoch interval that reaches back over the events already
//!    folded); a file whose partial no longer holds is folded again whole, an extended one
//!    whose partial holds only over its new bytes;
//! 3. merges the files' partials in input order, as the distributed analysis does, so the result
//!    is the cold analysis of what was on disk (a test checks it, byte for byte).
//!
//! Only what ended cleanly is kept for the next look (no cut gzip member, no unfinished last
//! line): a file caught mid-write is read again from its last clean end. Memory is the kept
//! partials: cells per file, never events. The command line's `analyze --follow` prints one line
//! per look from it.

use std::collections::BTreeMap;
use std::path::PathBuf;

use ioscout_read::{Chunk, FileSummary, InputProblem, ScanReport, Scanner, TraceFile};

use crate::cache::{PrepassPartial, Tables};
use crate::{
    Analysis, AnalysisError, AnalysisFold, AnalysisOptions, AnalysisPartial, INTERVAL_PRESETS, Plan,
    PrepassFold, Preset, check_options, extent_of, fold_per_file,
};

/// Bytes at the head and at the old end of a file whose CRC tells that it was only appended to.
const CHECKED: u64 = 64 << 10;

/// What one look read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Reading {
    /// Files not changed since the last look.
    pub files_unchanged: usize,
    /// Files appended to, of which only the new bytes were read.
    pub files_extended: usize,
    /// Files read whole (new, replaced, or first seen).
    pub files_read_whole: usize,
    /// Files whose earlier second-pass result no longer held and were folded again whole.
    pub files_folded_again: usize,
    /// Bytes read by the first pass (compressed, as on disk).
    pub bytes_read: u64,
    /// Bytes of all files.
    pub bytes_total: u64,
}

/// One look: the analysis of what was on disk, its scan report and what it read.
#[derive(Debug)]
pub struct Step {
    /// The analysis, equal to a cold one of the same bytes.
    pub analysis: Analysis,
    /// The report of the scan (one summary per file, as a cold scan gives).
    pub report: ScanReport,
    /// What this look read.
    pub reading: Reading,
}

/// What is kept of one file between looks: everything up to a clean end.
#[derive(Clone, Debug)]
struct Kept {
    /// Bytes covered (the clean end).
    size: u64,
    /// CRC of the first [`CHECKED`] bytes and of the [`CHECKED`] bytes before `size`.
    head: u32,
    tail: u32,
    prepass: PrepassPartial,
    tables: Tables,
    /// The second-pass partial, folded over [`Follower::plan`].
    second: AnalysisPartial,
    summary: FileSummary,
}

/// How a file is read in one look.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Change {
    Unchanged,
    /// Appended to after the kept clean end.
    Extended,
    Whole,
}

/// The analysis of a trace that is still being written, kept between looks.
#[derive(Debug)]
pub struct Follower {
    options: AnalysisOptions,
    candidates: Vec<Preset>,
    kept: BTreeMap<PathBuf, Kept>,
    /// The first-pass context of the kept second-pass partials.
    plan: Option<Plan>,
}

/// Scans `chunks` of `files` and returns one merged fold per file (`None` for files without a
/// chunk), with the scan's report: [`fold_per_file`] for chunks.
fn chunk_folds_per_file<F: ioscout_read::Fold>(
    scanner: &Scanner,
    files: &[TraceFile],
    chunks: &[Chunk],
    make: impl Fn() -> F + Sync,
    merge: impl Fn(&mut F, F),
) -> (Vec<Option<F>>, ScanReport) {
    let mut per_file: Vec<Option<F>> = (0..files.len()).map(|_| None).collect();
    let report = scanner.scan_chunks(
        files,
        &[],
        chunks,
        |_| make(),
        |index, fold| {
            match per_file.get_mut(index) {
                Some(Some(partial)) => merge(partial, fold),
                Some(slot) => *slot = Some(fold),
                None => {}
            }
            std::ops::ControlFlow::Continue(())
        },
    );
    (per_file, report)
}

fn crc_of(handle: &std::fs::File, start: u64, end: u64) -> Option<u32> {
    let mut buffer = vec![0_u8; usize::try_from(end.saturating_sub(start)).ok()?];
    let read = ioscout_read::gzip::read_fully_at(handle, &mut buffer, start).ok()?;
    (read == buffer.len()).then(|| crc32fast::hash(&buffer))
}

/// The CRCs of the head of a file and of the bytes before `size`.
fn crcs(path: &std::path::Path, size: u64) -> Option<(u32, u32)> {
    let handle = std::fs::File::open(path).ok()?;
    Some((crc_of(&handle, 0, size.min(CHECKED))?, crc_of(&handle, size.saturating_sub(CHECKED), size)?))
}

impl Follower {
    /// A follower analysing with `options`.
    pub fn new(options: &AnalysisOptions) -> Result<Follower, AnalysisError> {
        let candidates = check_options(options)?;
        Ok(Follower { options: options.clone(), candidates, kept: BTreeMap::new(), plan: None })
    }

    fn change(&self, trace: &TraceFile) -> Change {
        let Some(kept) = self.kept.get(&trace.path) else { return Change::Whole };
        if trace.size < kept.size || crcs(&trace.path, kept.size) != Some((kept.head, kept.tail)) {
            return Change::Whole;
        }
        if trace.size == kept.size { Change::Unchanged } else { Change::Extended }
    }

    /// The new bytes of extended file `index` of `files`: a chunk from its kept clean end.
    fn tail_of(&self, files: &[TraceFile], index: usize) -> Option<Chunk> {
        let trace = files.get(index)?;
        let kept = self.kept.get(&trace.path)?;
        Some(Chunk {
            file: index,
            start: kept.size,
            end: trace.size,
            line_base: kept.summary.lines,
            offset_base: kept.summary.uncompressed_bytes,
            resume: None,
        })
    }

    /// Analyses `files` as they are now, reading what changed since the last look.
    pub fn step(
        &mut self,
        scanner: &Scanner,
        files: &[TraceFile],
        input_problems: &[InputProblem],
    ) -> Result<Step, AnalysisError> {
        let changes: Vec<Change> = files.iter().map(|trace| self.change(trace)).collect();
        let mut reading =
            Reading { bytes_total: files.iter().map(|trace| trace.size).sum(), ..Reading::default() };
        let tail_of = |index: usize| self.tail_of(files, index);
        let whole: Vec<usize> = (0..files.len()).filter(|index| changes[*index] == Change::Whole).collect();
        let tails: Vec<Chunk> = (0..files.len())
            .filter(|index| changes[*index] == Change::Extended)
            .filter_map(tail_of)
            .collect();
        for (index, change) in changes.iter().enumerate() {
            match change {
                Change::Unchanged => reading.files_unchanged += 1,
                Change::Extended => reading.files_extended += 1,
                Change::Whole => reading.files_read_whole += 1,
            }
            reading.bytes_read += match change {
                Change::Unchanged => 0,
                Change::Extended => {
                    files[index].size - self.kept.get(&files[index].path).map_or(0, |kept| kept.size)
                }
                Change::Whole => files[index].size,
            };
        }

        // First pass: each file's fold, whole or its kept part with the new bytes.
        let candidates = &self.candidates;
        let whole_files: Vec<TraceFile> = whole.iter().map(|index| files[*index].clone()).collect();
        let (whole_folds, _) =
            fold_per_file(scanner, &whole_files, || PrepassFold::new(candidates), PrepassFold::merge);
        let mut first: Vec<Option<PrepassFold<'_>>> = (0..files.len()).map(|_| None).collect();
        for (index, fold) in whole.iter().zip(whole_folds) {
            first[*index] = Some(fold.unwrap_or_else(|| PrepassFold::new(candidates)));
        }
        let (mut tail_folds, _) =
            chunk_folds_per_file(scanner, files, &tails, || PrepassFold::new(candidates), PrepassFold::merge);
        for (index, trace) in files.iter().enumerate() {
            if changes[index] == Change::Whole {
                continue;
            }
            let mut fold = PrepassFold::new(candidates);
            if let Some(kept) = self.kept.get(&trace.path) {
                kept.prepass.add_to(&mut fold, &INTERVAL_PRESETS);
                kept.tables.add_to(&mut fold.metadata.tables);
            }
            if let Some(tail) = tail_folds[index].take() {
                fold.merge(tail);
            }
            first[index] = Some(fold);
        }
        let partials: Vec<(PrepassPartial, Tables)> = first
            .iter()
            .map(|fold| {
                fold.as_ref().map_or_else(
                    || (PrepassPartial::default(), Tables::default()),
                    |fold| (PrepassPartial::of(fold, &INTERVAL_PRESETS), Tables::of(&fold.metadata.tables)),
                )
            })
            .collect();
        let mut total = PrepassFold::new(candidates);
        for fold in first.into_iter().flatten() {
            total.merge(fold);
        }
        let plan = Plan::new(&self.options, candidates, total);
        let look = Look { scanner, files, input_problems, changes: &changes, partials: &partials };
        let (analysis, report, next) = self.second_pass(&look, &plan, &mut reading);
        self.kept = next;
        self.plan = Some(plan);
        Ok(Step { analysis, report, reading })
    }

    /// The second pass of [`Follower::step`] over the context `plan`: the analysis, the report
    /// and what to keep.
    fn second_pass(
        &self,
        look: &Look<'_>,
        plan: &Plan,
        reading: &mut Reading,
    ) -> (Analysis, ScanReport, BTreeMap<PathBuf, Kept>) {
        // Decided once per file: the check walks the file's tokens and processes.
        let holding: Vec<Option<&AnalysisPartial>> = look
            .files
            .iter()
            .zip(look.changes)
            .map(
                |(trace, change)| if *change == Change::Whole { None } else { self.holds(&trace.path, plan) },
            )
            .collect();
        let folded = self.fold_second(look, plan, &holding, reading);
        self.merge_in_order(look, plan, &holding, folded)
    }

    /// The second-pass partial kept for `path`, when it still holds in the context `plan`.
    fn holds(&self, path: &std::path::Path, plan: &Plan) -> Option<&AnalysisPartial> {
        let kept = self.kept.get(path)?;
        let old = self.plan.as_ref()?;
        if old.preset.name != plan.preset.name {
            return None;
        }
        let (tokens, processes) = kept.second.keys();
        old.prepared.holds_in(&plan.prepared, tokens, processes).then_some(&kept.second)
    }

    /// Each file's second-pass fold and summary: folded again (read whole, or its kept partial
    /// no longer holds), or its kept partial with the appended bytes folded on.
    fn fold_second<'p>(
        &self,
        look: &Look<'_>,
        plan: &'p Plan,
        holding: &[Option<&AnalysisPartial>],
        reading: &mut Reading,
    ) -> Vec<(Option<AnalysisFold<'p>>, Option<FileSummary>)> {
        let files = look.files;
        let mut again: Vec<usize> = Vec::new();
        let mut second_tails: Vec<Chunk> = Vec::new();
        for (index, (change, held)) in look.changes.iter().zip(holding).enumerate() {
            match change {
                Change::Whole => again.push(index),
                _ if held.is_none() => {
                    reading.files_folded_again += 1;
                    again.push(index);
                }
                Change::Extended => second_tails.extend(self.tail_of(files, index)),
                Change::Unchanged => {}
            }
        }
        let again_files: Vec<TraceFile> = again.iter().map(|index| files[*index].clone()).collect();
        let (again_folds, again_report) =
            fold_per_file(look.scanner, &again_files, || plan.fold(), AnalysisFold::merge);
        let mut folded: Vec<(Option<AnalysisFold<'p>>, Option<FileSummary>)> =
            (0..files.len()).map(|_| (None, None)).collect();
        for ((index, fold), summary) in again.iter().zip(again_folds).zip(again_report.files) {
            folded[*index] = (fold, Some(summary));
        }
        let (mut tail_second, tail_report) =
            chunk_folds_per_file(look.scanner, files, &second_tails, || plan.fold(), AnalysisFold::merge);
        let mut tail_summaries: Vec<Option<FileSummary>> = tail_report.files.into_iter().map(Some).collect();
        let keep = look.scanner.options().max_reported_problems;
        for (index, trace) in files.iter().enumerate() {
            if folded[index].1.is_some() {
                continue;
            }
            let Some((kept, partial)) = self.kept.get(&trace.path).zip(holding[index]) else { continue };
            let mut fold = partial.clone().into_fold(&plan.prepared, &plan.preset, plan.bins, plan.keep);
            if let Some(tail) = tail_second[index].take() {
                fold.merge(tail);
            }
            let mut summary = kept.summary.clone();
            if look.changes[index] == Change::Extended
                && let Some(tail) = tail_summaries.get_mut(index).and_then(Option::take)
            {
                summary.merge(tail, keep);
            }
            summary.size = trace.size;
            folded[index] = (Some(fold), Some(summary));
        }
        folded
    }

    /// Keeps what ended cleanly for the next look, then merges the folds in input order: the
    /// analysis, the report and what to keep.
    fn merge_in_order(
        &self,
        look: &Look<'_>,
        plan: &Plan,
        holding: &[Option<&AnalysisPartial>],
        folded: Vec<(Option<AnalysisFold<'_>>, Option<FileSummary>)>,
    ) -> (Analysis, ScanReport, BTreeMap<PathBuf, Kept>) {
        let files = look.files;
        let mut next: BTreeMap<PathBuf, Kept> = BTreeMap::new();
        let mut total: Option<AnalysisFold<'_>> = None;
        let mut report_files = Vec::with_capacity(files.len());
        let mut extents = Vec::with_capacity(files.len());
        for (index, (trace, (fold, summary))) in files.iter().zip(folded).enumerate() {
            let summary = summary.unwrap_or_else(|| FileSummary::new(trace));
            let (prepass, tables) = &look.partials[index];
            extents.push((trace.path.clone(), extent_of(prepass)));
            let fold = fold.unwrap_or_else(|| plan.fold());
            if summary.ended_cleanly(trace)
                && let Some((head, tail)) = crcs(&trace.path, trace.size)
            {
                next.insert(
                    trace.path.clone(),
                    Kept {
                        size: trace.size,
                        head,
                        tail,
                        prepass: prepass.clone(),
                        tables: tables.clone(),
                        second: AnalysisPartial::of(&fold),
                        summary: summary.clone(),
                    },
                );
            } else if look.changes[index] != Change::Whole
                && holding[index].is_some()
                && let Some(kept) = self.kept.get(&trace.path)
            {
                // Caught mid-write: keep its last clean end (its partial holds in this context,
                // so it serves the next look as one folded in it would).
                next.insert(trace.path.clone(), kept.clone());
            }
            report_files.push(summary);
            match total.as_mut() {
                Some(total) => total.merge(fold),
                None => total = Some(fold),
            }
        }
        let extents = crate::name_hosts(extents, &plan.prepared);
        let analysis = plan.finish(&self.options, total);
        let keep = look.scanner.options().max_reported_problems;
        let mut report = ScanReport::assemble(look.input_problems, keep, report_files);
        report.set_extents(extents);
        (analysis, report, next)
    }
}

/// What one look of [`Follower::step`] found, threaded through its second pass.
struct Look<'l> {
    scanner: &'l Scanner,
    files: &'l [TraceFile],
    input_problems: &'l [InputProblem],
    /// How each file changed since the last look.
    changes: &'l [Change],
    /// Each file's first-pass partial and hash tables.
    partials: &'l [(PrepassPartial, Tables)],
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read as _, Write as _};

    /// The lines of each file of the bundled sample trace.
    fn sample_lines() -> Vec<(String, Vec<String>)> {
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/sample");
        let mut names: Vec<PathBuf> = std::fs::read_dir(&folder)
            .unwrap_or_else(|error| panic!("{}: {error}", folder.display()))
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| path.to_string_lossy().ends_with(".pfw.gz"))
            .collect();
        names.sort();
        names
            .iter()
            .map(|path| {
                let bytes = std::fs::read(path).unwrap_or_default();
                let mut text = String::new();
                flate2::read::MultiGzDecoder::new(bytes.as_slice())
                    .read_to_string(&mut text)
                    .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
                let name =
                    path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
                (name, text.lines().map(str::to_string).collect())
            })
            .collect()
    }

    fn append(path: &std::path::Path, bytes: &[u8]) {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        file.write_all(bytes).unwrap_or_else(|error| panic!("{error}"));
    }

    fn gzip(text: &str) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(text.as_bytes()).unwrap_or_else(|error| panic!("{error}"));
        encoder.finish().unwrap_or_default()
    }

    fn cold(folder: &std::path::Path, options: &AnalysisOptions) -> (serde_json::Value, Vec<u64>) {
        let (files, problems) = ioscout_read::discover(&[folder.to_path_buf()]);
        let scanner = Scanner::new(ioscout_read::ScanOptions::default());
        let (analysis, report) =
            crate::analyze(&scanner, &files, &problems, options).unwrap_or_else(|error| panic!("{error}"));
        (crate::output::dfanalyzer_json(&analysis), report.files.iter().map(|file| file.lines).collect())
    }

    /// A compute event that ends after a data-loader read it covers is written after it: the
    /// read's partial, folded when no compute covered it, no longer holds and is folded again.
    #[test]
    fn a_compute_interval_reaching_back_folds_the_file_again() {
        let folder = std::env::temp_dir().join(format!("ioscout-follow-back-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&folder);
        std::fs::create_dir_all(&folder).unwrap_or_else(|error| panic!("{error}"));
        let trace = folder.join("app-1.pfw");
        let event = |id: u64, name: &str, category: &str, tid: u64, ts: u64, dur: u64| {
            format!(
                "{{\"id\":{id},\"name\":\"{name}\",\"cat\":\"{category}\",\"pid\":1,\"tid\":{tid},\"ts\":{ts},\"dur\":{dur},\"ph\":\"X\",\"args\":{{}}}}\n"
            )
        };
        let options = AnalysisOptions::default();
        let mut follower = Follower::new(&options).unwrap_or_else(|error| panic!("{error}"));
        let scanner = Scanner::new(ioscout_read::ScanOptions::default());
        let lines = [
            event(1, "train", "pipeline", 1, 0, 10) + &event(2, "load", "dataloader", 2, 100, 100),
            event(3, "compute", "compute", 1, 50, 250),
            event(4, "load", "dataloader", 2, 400, 100),
        ];
        let mut folded_again = 0;
        for (look, text) in lines.iter().enumerate() {
            append(&trace, text.as_bytes());
            let (files, problems) = ioscout_read::discover(std::slice::from_ref(&folder));
            let step = follower.step(&scanner, &files, &problems).unwrap_or_else(|error| panic!("{error}"));
            assert_eq!(step.analysis.preset.name, crate::PresetName::Dlio);
            assert_eq!(
                crate::output::dfanalyzer_json(&step.analysis),
                cold(&folder, &options).0,
                "look {look}"
            );
            folded_again += step.reading.files_folded_again;
            if look == 2 {
                // Nothing reaches back over the first read any more: only the new line is read.
                assert_eq!(step.reading.files_folded_again, 0, "{:?}", step.reading);
                assert_eq!(step.reading.bytes_read, text.len() as u64);
            }
        }
        assert_eq!(folded_again, 1, "the compute interval reached back once");
        let _ = std::fs::remove_dir_all(&folder);
    }

    /// The sample trace written in five looks (a gzip member per file per look; one file
    /// plain, appended by lines; one look cuts a member in two): every look's analysis is the
    /// cold analysis of the same bytes, and the later looks read only the new bytes.
    #[test]
    fn every_look_equals_a_cold_analysis_and_reads_only_what_is_new() {
        let folder = std::env::temp_dir().join(format!("ioscout-follow-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&folder);
        std::fs::create_dir_all(&folder).unwrap_or_else(|error| panic!("{error}"));
        let files = sample_lines();
        assert!(files.len() >= 3, "the sample trace");
        let options =
            AnalysisOptions { views: vec![crate::ViewType::FileName], ..AnalysisOptions::default() };
        let mut follower = Follower::new(&options).unwrap_or_else(|error| panic!("{error}"));
        let scanner = Scanner::new(ioscout_read::ScanOptions::default());
        let looks = 5;
        let mut extended = 0;
        let mut folded_again = 0;
        for look in 0..looks {
            for (number, (name, lines)) in files.iter().enumerate() {
                // The main processes (with the computation) lag: half at the second look, the
                // rest at the last, so their compute intervals reach back over reads folded
                // looks before.
                let share = |look: usize| -> usize {
                    if name.contains("-app.") {
                        match look {
                            0 => 0,
                            1..4 => lines.len() / 2,
                            _ => lines.len(),
                        }
                    } else {
                        lines.len() * look / looks
                    }
                };
                let (from, to) = (share(look), share(look + 1));
                let mut text = lines[from..to].join("\n");
                if !text.is_empty() {
                    text.push('\n');
                }
                if number == 0 {
                    append(&folder.join(name.trim_end_matches(".gz")), text.as_bytes());
                } else if !text.is_empty() {
                    let member = gzip(&text);
                    if look == 2 && number == 1 {
                        // Half a member now, the rest after a look: read again from the clean end.
                        append(&folder.join(name), &member[..member.len() / 2]);
                        let step = follower
                            .step(&scanner, &ioscout_read::discover(std::slice::from_ref(&folder)).0, &[])
                            .unwrap_or_else(|error| panic!("{error}"));
                        assert!(
                            step.report.files.iter().any(|file| file.problem_count > 0),
                            "the cut is seen"
                        );
                        append(&folder.join(name), &member[member.len() / 2..]);
                    } else {
                        append(&folder.join(name), &member);
                    }
                }
            }
            let (trace_files, problems) = ioscout_read::discover(std::slice::from_ref(&folder));
            let step =
                follower.step(&scanner, &trace_files, &problems).unwrap_or_else(|error| panic!("{error}"));
            let (expected, lines) = cold(&folder, &options);
            assert_eq!(crate::output::dfanalyzer_json(&step.analysis), expected, "look {look}");
            let followed_lines: Vec<u64> = step.report.files.iter().map(|file| file.lines).collect();
            assert_eq!(followed_lines, lines, "look {look}: lines per file");
            if look > 0 {
                assert!(
                    step.reading.bytes_read < step.reading.bytes_total,
                    "look {look}: {:?}",
                    step.reading
                );
            }
            extended += step.reading.files_extended;
            folded_again += step.reading.files_folded_again;
        }
        assert!(extended >= (looks - 1) * 2, "files extended: {extended}");
        // The sample's epochs and computation end late and reach back over earlier reads, so some
        // looks must fold files again; a follower that never did would be wrong on this trace.
        assert!(folded_again > 0, "some partial no longer held");
        let _ = std::fs::remove_dir_all(&folder);
    }
}
