//! The second pass: rows folded into mergeable cells.
//!
//! # Overview
//!
//! [`AnalysisFold`] turns each complete event into a row ([`crate::row`]) and adds it to one
//! [`Cell`] per view key: (time bin, process, class), and when asked (file, process, class),
//! (epoch, process, class) and (step, process, class). A class is a (category, name, path
//! flags) triple, so one cell serves every layer slot the class belongs to; slots are expanded
//! only when the views are computed ([`crate::views`]). Hosts, files, processes and classes get
//! ids local to the fold; [`AnalysisFold::merge`] translates the other fold's ids by their
//! texts. Cells hold sums, sums of squares, minima and maxima, so partial folds of units, files,
//! threads or MPI ranks merge associatively and give the same result in any order.
//!
//! Exact overlap is measured here: a row of an asynchronous layer is checked against the
//! compute union of its process tree ([`crate::prepass::Prepared::compute`]), and the part not
//! covered is added to the cell's `uncovered` sums.

use std::hash::Hasher;

use ioscout_model::{Event, Phase};
use ioscout_read::fields::EventFields;
use ioscout_read::{Decode, Fold, Phases};
use rustc_hash::FxHashMap;

use crate::prepass::{Prepared, file_token, host_token};
use crate::preset::Preset;
use crate::row::{Classifier, ignored_path, path_flags, row_size};

/// Number of transfer-size bins ([`SIZE_BINS`]).
pub const SIZE_BIN_COUNT: usize = 12;

/// DFAnalyzer's size bins (right-closed upper bounds in bytes; the last is open).
pub const SIZE_BINS: [(&str, u64); SIZE_BIN_COUNT] = [
    ("0_4kib", 4 << 10),
    ("4kib_16kib", 16 << 10),
    ("16kib_64kib", 64 << 10),
    ("64kib_256kib", 256 << 10),
    ("256kib_1mib", 1 << 20),
    ("1mib_4mib", 4 << 20),
    ("4mib_16mib", 16 << 20),
    ("16mib_64mib", 64 << 20),
    ("64mib_256mib", 256 << 20),
    ("256mib_1gib", 1 << 30),
    ("1gib_4gib", 4 << 30),
    ("4gib_plus", u64::MAX),
];

/// The size bin of `size` bytes.
pub fn size_bin(size: u64) -> usize {
    SIZE_BINS.iter().position(|(_, upper)| size <= *upper).unwrap_or(SIZE_BIN_COUNT - 1)
}

/// Sums over a set of rows. Times are in trace units (microseconds). Every field is an integer,
/// so cells merge exactly in any order (a job split across ranks gives the same bytes).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Cell {
    /// Rows.
    pub count: u64,
    /// Sum of durations.
    pub time: u64,
    /// Sum of squared durations (saturating).
    pub time_squares: u128,
    /// Shortest row.
    pub time_min: u64,
    /// Longest row.
    pub time_max: u64,
    /// Rows with a size.
    pub sized: u64,
    /// Sum of sizes.
    pub size: u64,
    /// Sum of squared sizes (saturating).
    pub size_squares: u128,
    /// Smallest size.
    pub size_min: u64,
    /// Largest size.
    pub size_max: u64,
    /// Time of asynchronous rows not covered by their process tree's compute.
    pub uncovered: u64,
    /// Asynchronous rows not wholly covered by compute.
    pub uncovered_count: u64,
    /// Sizes of those rows.
    pub uncovered_size: u64,
    /// Earliest start (trace units).
    pub first_start: i64,
}

impl Default for Cell {
    fn default() -> Cell {
        Cell {
            count: 0,
            time: 0,
            time_squares: 0,
            time_min: u64::MAX,
            time_max: 0,
            sized: 0,
            size: 0,
            size_squares: 0,
            size_min: u64::MAX,
            size_max: 0,
            uncovered: 0,
            uncovered_count: 0,
            uncovered_size: 0,
            first_start: i64::MAX,
        }
    }
}

impl Cell {
    /// Adds one row that started at `start`.
    pub fn add(&mut self, start: i64, duration: u64, size: Option<u64>, uncovered: Option<u64>) {
        self.count += 1;
        self.first_start = self.first_start.min(start);
        self.time += duration;
        self.time_squares = self.time_squares.saturating_add(u128::from(duration) * u128::from(duration));
        self.time_min = self.time_min.min(duration);
        self.time_max = self.time_max.max(duration);
        if let Some(size) = size {
            self.sized += 1;
            self.size += size;
            self.size_squares = self.size_squares.saturating_add(u128::from(size) * u128::from(size));
            self.size_min = self.size_min.min(size);
            self.size_max = self.size_max.max(size);
        }
        if let Some(uncovered) = uncovered
            && uncovered > 0
        {
            self.uncovered += uncovered;
            self.uncovered_count += 1;
            self.uncovered_size += size.unwrap_or(0);
        }
    }

    /// Adds another cell's rows.
    pub fn merge(&mut self, other: &Cell) {
        self.count += other.count;
        self.time += other.time;
        self.time_squares = self.time_squares.saturating_add(other.time_squares);
        self.time_min = self.time_min.min(other.time_min);
        self.time_max = self.time_max.max(other.time_max);
        self.sized += other.sized;
        self.size += other.size;
        self.size_squares = self.size_squares.saturating_add(other.size_squares);
        self.size_min = self.size_min.min(other.size_min);
        self.size_max = self.size_max.max(other.size_max);
        self.uncovered += other.uncovered;
        self.uncovered_count += other.uncovered_count;
        self.uncovered_size += other.uncovered_size;
        self.first_start = self.first_start.min(other.first_start);
    }
}

/// Which per-key cells the fold keeps besides time bins.
#[derive(Clone, Copy, Debug, Default)]
pub struct Keep {
    /// (file, process, class) cells.
    pub files: bool,
    /// (file, class) cells, each summed over every process: what weighing a trace's files needs,
    /// without a cell per process (a trace of many files and processes has millions of those).
    /// Kept only when `files` is not.
    pub file_totals: bool,
    /// (epoch, process, class) cells.
    pub epochs: bool,
    /// (step, process, class) cells.
    pub steps: bool,
}

/// How rows are assigned to time bins.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Binning {
    /// By start time, relative to the first event (DFAnalyzer's Python path and its published
    /// numbers).
    #[default]
    Relative,
    /// DFAnalyzer 0.0.9 on DFTracer 2.x traces: rows are first grouped per (process, class) in
    /// absolute bins of their midpoint (`ts + dur/2`, its C++ aggregation), then each group is
    /// moved wholesale to the bin of its earliest start. Only for comparing numbers with it.
    Dfanalyzer009,
}

/// How rows are binned in time and measured for overlap.
#[derive(Clone, Copy, Debug)]
pub struct Bins {
    /// Width in trace units.
    pub width: i64,
    /// How rows are assigned to bins.
    pub binning: Binning,
    /// Measure overlap per row against compute intervals.
    pub exact: bool,
}

/// A cell key: (view key, process, class).
pub type CellKey = (u32, u32, u32);

/// The cells of one view kind.
pub type Cells = FxHashMap<CellKey, Cell>;

/// (file, class) cells: each file's rows of a class, summed over every process.
pub type FileTotals = FxHashMap<(u32, u32), Cell>;

/// Interned strings: an id per distinct text, local to one fold. Each text is stored once: the
/// table holds ids and finds them by the hash of their text (a new text is one allocation).
#[derive(Debug, Default)]
pub struct Interner {
    ids: hashbrown::HashTable<u32>,
    /// Texts by id.
    pub texts: Vec<Box<str>>,
    /// The id returned last (rows come in runs: one host per file, calls in runs on one file).
    last: Option<u32>,
}

/// The hash of an interned text.
fn text_hash(text: &str) -> u64 {
    let mut hasher = rustc_hash::FxHasher::default();
    hasher.write(text.as_bytes());
    hasher.finish()
}

impl Interner {
    /// The id of `text`, and whether it is new.
    pub fn intern(&mut self, text: &str) -> (u32, bool) {
        if let Some(last) = self.last
            && self.texts.get(last as usize).is_some_and(|known| known.as_ref() == text)
        {
            return (last, false);
        }
        let hash = text_hash(text);
        let texts = &self.texts;
        if let Some(&id) =
            self.ids.find(hash, |&id| texts.get(id as usize).is_some_and(|known| known.as_ref() == text))
        {
            self.last = Some(id);
            return (id, false);
        }
        let id = self.texts.len() as u32;
        self.texts.push(text.into());
        let texts = &self.texts;
        self.ids.insert_unique(hash, id, |&id| texts.get(id as usize).map_or(0, |known| text_hash(known)));
        self.last = Some(id);
        (id, true)
    }

    /// Number of texts.
    pub fn len(&self) -> usize {
        self.texts.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }
}

/// What the fold knows about one file.
#[derive(Clone, Copy, Debug)]
pub struct FileFacts {
    /// Path suffix bits ([`crate::row::path_flags`]).
    pub flags: u8,
    /// Rows on it are ignored.
    pub ignored: bool,
}

impl FileFacts {
    /// The facts of `path`.
    pub fn of(path: &str) -> FileFacts {
        FileFacts { flags: path_flags(path), ignored: ignored_path(path) }
    }
}

/// One process (`app#host#pid#tid`) of a fold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ProcessKey {
    /// Host id (in the fold's host interner).
    pub host: u32,
    /// Process id.
    pub pid: i64,
    /// Thread id.
    pub tid: i64,
}

/// The analysis's second pass over one unit.
pub struct AnalysisFold<'a> {
    prepared: &'a Prepared,
    /// Classes of this fold.
    pub classifier: Classifier<'a>,
    bin_width: i64,
    binning: Binning,
    exact: bool,
    keep: Keep,
    /// Host tokens.
    pub hosts: Interner,
    /// File tokens.
    pub files: Interner,
    /// What is known about each file.
    pub file_facts: Vec<FileFacts>,
    process_ids: FxHashMap<ProcessKey, u32>,
    /// The process [`AnalysisFold::process`] returned last, and its id.
    last_process: Option<(ProcessKey, u32)>,
    /// Processes, by id.
    pub processes: Vec<ProcessKey>,
    /// The process tree (compute group) of each process.
    groups: Vec<Option<u32>>,
    /// Complete events seen (before ignore filters).
    pub complete_events: u64,
    /// Aggregated (profile) events seen.
    pub profile_events: u64,
    /// Rows dropped by the ignore filters.
    pub ignored_rows: u64,
    /// Complete events without `ts` (cannot be binned).
    pub rows_without_time: u64,
    /// (time bin, process, class) cells.
    pub by_time: Cells,
    /// (file, process, class) cells.
    pub by_file: Cells,
    /// (file, class) cells, when [`Keep::file_totals`] asks for them.
    pub file_totals: FileTotals,
    /// (epoch, process, class) cells.
    pub by_epoch: Cells,
    /// (step, process, class) cells.
    pub by_step: Cells,
    /// Transfer-size histogram per class.
    pub sizes: FxHashMap<u32, [u64; SIZE_BIN_COUNT]>,
    /// (file, class) pairs seen (for the files each layer touched).
    pub file_classes: rustc_hash::FxHashSet<(u32, u32)>,
    /// The (file, class) pair put in `file_classes` last.
    last_file_class: Option<(u32, u32)>,
    /// Per process tree, where its compute union was last measured
    /// ([`crate::overlap::IntervalUnion::covered_near`]).
    overlap_hints: Vec<usize>,
}

impl std::fmt::Debug for AnalysisFold<'_> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("AnalysisFold")
            .field("complete_events", &self.complete_events)
            .field("cells", &(self.by_time.len() + self.by_file.len()))
            .finish_non_exhaustive()
    }
}

fn small_integer(value: Option<&ioscout_model::RawValue<'_>>) -> Option<u32> {
    value.and_then(ioscout_model::RawValue::as_i64).and_then(|value| u32::try_from(value).ok())
}

impl<'a> AnalysisFold<'a> {
    /// A fold for `preset` over the context of the first pass, with `bins`.
    pub fn new(prepared: &'a Prepared, preset: &'a Preset, bins: Bins, keep: Keep) -> AnalysisFold<'a> {
        AnalysisFold {
            prepared,
            classifier: Classifier::new(preset),
            bin_width: bins.width.max(1),
            binning: bins.binning,
            exact: bins.exact,
            keep,
            hosts: Interner::default(),
            files: Interner::default(),
            file_facts: Vec::new(),
            process_ids: FxHashMap::default(),
            last_process: None,
            processes: Vec::new(),
            groups: Vec::new(),
            complete_events: 0,
            profile_events: 0,
            ignored_rows: 0,
            rows_without_time: 0,
            by_time: Cells::default(),
            by_file: Cells::default(),
            file_totals: FileTotals::default(),
            by_epoch: Cells::default(),
            by_step: Cells::default(),
            sizes: FxHashMap::default(),
            file_classes: rustc_hash::FxHashSet::default(),
            last_file_class: None,
            overlap_hints: Vec::new(),
        }
    }

    fn file(&mut self, token: &str) -> u32 {
        let (id, new) = self.files.intern(token);
        if new {
            self.file_facts.push(self.prepared.file_facts(token));
        }
        id
    }

    fn process(&mut self, key: ProcessKey) -> u32 {
        if let Some((last, id)) = self.last_process
            && last == key
        {
            return id;
        }
        if let Some(&id) = self.process_ids.get(&key) {
            self.last_process = Some((key, id));
            return id;
        }
        let id = self.processes.len() as u32;
        self.last_process = Some((key, id));
        self.processes.push(key);
        let host = &self.hosts.texts[key.host as usize];
        self.groups.push(self.prepared.group(host, key.pid));
        self.process_ids.insert(key, id);
        id
    }

    fn complete(&mut self, fields: &EventFields<'_>) {
        self.complete_events += 1;
        let (host, _) = self.hosts.intern(host_token(&fields.args).unwrap_or_default());
        let pid = fields.pid.unwrap_or(0);
        let process = self.process(ProcessKey { host, pid, tid: fields.tid.unwrap_or(pid) });
        let file = file_token(&fields.args).map(|token| self.file(token));
        let Some(ts) = fields.ts else {
            self.rows_without_time += 1;
            return;
        };
        let facts = file.map(|file| self.file_facts[file as usize]);
        if facts.is_some_and(|facts| facts.ignored) {
            self.ignored_rows += 1;
            return;
        }
        let name = fields.name.unwrap_or_default();
        let class_id = self.classifier.classify(
            fields.cat.unwrap_or_default(),
            name,
            facts.map_or(0, |facts| facts.flags),
        );
        let class = self.classifier.class(class_id);
        if class.ignored {
            self.ignored_rows += 1;
            return;
        }
        if class.slots.is_empty() {
            return;
        }
        let prepared = self.prepared;
        let duration = fields.dur.unwrap_or(0).max(0);
        let size = row_size(
            fields.args.size_sum.as_ref(),
            fields.args.ret.as_ref(),
            fields.args.image_size.as_ref(),
            class,
        );
        let group = self.groups[process as usize];
        let uncovered = (self.exact && class.asynchronous).then(|| {
            let covered = group.map_or(0, |group| {
                let index = group as usize;
                if self.overlap_hints.len() <= index {
                    self.overlap_hints.resize(index + 1, 0);
                }
                let hint = &mut self.overlap_hints[index];
                prepared.covered_near(hint, Some(group), ts, ts.saturating_add(duration))
            });
            (duration - covered).max(0) as u64
        });
        let bin = match self.binning {
            Binning::Relative => ((ts - prepared.first_ts).max(0) / self.bin_width) as u32,
            Binning::Dfanalyzer009 => {
                let middle = ts.saturating_add(duration / 2);
                (middle.div_euclid(self.bin_width) - prepared.first_ts.div_euclid(self.bin_width)).max(0)
                    as u32
            }
        };
        let duration = duration as u64;
        self.by_time.entry((bin, process, class_id)).or_default().add(ts, duration, size, uncovered);
        if let Some(file) = file {
            if self.last_file_class != Some((file, class_id)) {
                self.file_classes.insert((file, class_id));
                self.last_file_class = Some((file, class_id));
            }
            if self.keep.files {
                self.by_file.entry((file, process, class_id)).or_default().add(ts, duration, size, uncovered);
            } else if self.keep.file_totals {
                self.file_totals.entry((file, class_id)).or_default().add(ts, duration, size, uncovered);
            }
        }
        if self.keep.epochs
            && let Some(epoch) =
                small_integer(fields.args.epoch.as_ref()).or_else(|| prepared.epoch_at(group, ts))
        {
            self.by_epoch.entry((epoch, process, class_id)).or_default().add(ts, duration, size, uncovered);
        }
        if self.keep.steps
            && let Some(step) = small_integer(fields.args.step.as_ref())
        {
            self.by_step.entry((step, process, class_id)).or_default().add(ts, duration, size, uncovered);
        }
        if let Some(size) = size {
            self.sizes.entry(class_id).or_insert([0; SIZE_BIN_COUNT])[size_bin(size)] += 1;
        }
    }

    /// Adds what `other` folded (its ids are translated into this fold's).
    pub fn merge(&mut self, other: AnalysisFold<'a>) {
        let classes: Vec<u32> = (0..other.classifier.len() as u32)
            .map(|id| {
                let (category, name, flags) = other.classifier.key(id);
                self.classifier.classify(category, name, *flags)
            })
            .collect();
        let hosts: Vec<u32> = other.hosts.texts.iter().map(|token| self.hosts.intern(token).0).collect();
        let files: Vec<u32> = other.files.texts.iter().map(|token| self.file(token)).collect();
        let processes: Vec<u32> = other
            .processes
            .iter()
            .map(|key| self.process(ProcessKey { host: hosts[key.host as usize], ..*key }))
            .collect();
        self.complete_events += other.complete_events;
        self.profile_events += other.profile_events;
        self.ignored_rows += other.ignored_rows;
        self.rows_without_time += other.rows_without_time;
        let same = |table: &[u32]| table.iter().enumerate().all(|(from, to)| from as u32 == *to);
        let identity = same(&classes) && same(&processes) && same(&files);
        for (mine, theirs, keyed_by_file) in [
            (&mut self.by_time, other.by_time, false),
            (&mut self.by_file, other.by_file, true),
            (&mut self.by_epoch, other.by_epoch, false),
            (&mut self.by_step, other.by_step, false),
        ] {
            if mine.is_empty() && identity {
                *mine = theirs;
                continue;
            }
            for ((key, process, class), cell) in theirs {
                let key = if keyed_by_file { files[key as usize] } else { key };
                mine.entry((key, processes[process as usize], classes[class as usize]))
                    .or_default()
                    .merge(&cell);
            }
        }
        for ((file, class), cell) in other.file_totals {
            self.file_totals.entry((files[file as usize], classes[class as usize])).or_default().merge(&cell);
        }
        self.file_classes.extend(
            other
                .file_classes
                .into_iter()
                .map(|(file, class)| (files[file as usize], classes[class as usize])),
        );
        for (class, counts) in other.sizes {
            let mine = self.sizes.entry(classes[class as usize]).or_insert([0; SIZE_BIN_COUNT]);
            for (total, count) in mine.iter_mut().zip(counts) {
                *total += count;
            }
        }
    }
}

/// The serialisable form of an [`AnalysisFold`]: what one rank sends for one file
/// ([`crate::analyze_distributed`]). Ids are the fold's own; [`AnalysisPartial::into_fold`]
/// interns them again in the same order, so they come back unchanged.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AnalysisPartial {
    classes: Vec<(String, String, u8)>,
    hosts: Vec<String>,
    files: Vec<String>,
    processes: Vec<(u32, i64, i64)>,
    counts: [u64; 4],
    by_time: Vec<(CellKey, Cell)>,
    by_file: Vec<(CellKey, Cell)>,
    file_totals: Vec<((u32, u32), Cell)>,
    by_epoch: Vec<(CellKey, Cell)>,
    by_step: Vec<(CellKey, Cell)>,
    sizes: Vec<(u32, [u64; SIZE_BIN_COUNT])>,
    file_classes: Vec<(u32, u32)>,
}

impl AnalysisPartial {
    /// The partial form of `fold`.
    pub fn of(fold: &AnalysisFold<'_>) -> AnalysisPartial {
        let cells = |cells: &Cells| cells.iter().map(|(key, cell)| (*key, *cell)).collect();
        AnalysisPartial {
            classes: (0..fold.classifier.len() as u32)
                .map(|id| {
                    let (category, name, flags) = fold.classifier.key(id);
                    (category.to_string(), name.to_string(), *flags)
                })
                .collect(),
            hosts: fold.hosts.texts.iter().map(ToString::to_string).collect(),
            files: fold.files.texts.iter().map(ToString::to_string).collect(),
            processes: fold.processes.iter().map(|key| (key.host, key.pid, key.tid)).collect(),
            counts: [fold.complete_events, fold.profile_events, fold.ignored_rows, fold.rows_without_time],
            by_time: cells(&fold.by_time),
            by_file: cells(&fold.by_file),
            file_totals: fold.file_totals.iter().map(|(key, cell)| (*key, *cell)).collect(),
            by_epoch: cells(&fold.by_epoch),
            by_step: cells(&fold.by_step),
            sizes: fold.sizes.iter().map(|(class, counts)| (*class, *counts)).collect(),
            file_classes: fold.file_classes.iter().copied().collect(),
        }
    }

    /// The file tokens this partial folded, and its processes as (host token, pid).
    pub(crate) fn keys(&self) -> (&[String], impl Iterator<Item = (&str, i64)>) {
        let processes = self
            .processes
            .iter()
            .map(|(host, pid, _)| (self.hosts.get(*host as usize).map_or("", String::as_str), *pid));
        (&self.files, processes)
    }

    /// The fold this partial was made from, over the same first-pass context. Ids that do not
    /// come back the same (a partial of another build) are translated, never misread: the
    /// partial is merged into a fresh fold.
    pub fn into_fold<'a>(
        self,
        prepared: &'a Prepared,
        preset: &'a Preset,
        bins: Bins,
        keep: Keep,
    ) -> AnalysisFold<'a> {
        let mut fold = AnalysisFold::new(prepared, preset, bins, keep);
        let classes: Vec<u32> = self
            .classes
            .iter()
            .map(|(category, name, flags)| fold.classifier.classify(category, name, *flags))
            .collect();
        let hosts: Vec<u32> = self.hosts.iter().map(|token| fold.hosts.intern(token).0).collect();
        let files: Vec<u32> = self.files.iter().map(|token| fold.file(token)).collect();
        let processes: Vec<u32> = self
            .processes
            .iter()
            .map(|(host, pid, tid)| {
                let host = hosts.get(*host as usize).copied().unwrap_or(0);
                fold.process(ProcessKey { host, pid: *pid, tid: *tid })
            })
            .collect();
        let [complete, profile, ignored, without_time] = self.counts;
        fold.complete_events = complete;
        fold.profile_events = profile;
        fold.ignored_rows = ignored;
        fold.rows_without_time = without_time;
        let class = |id: u32| classes.get(id as usize).copied().unwrap_or(0);
        let process = |id: u32| processes.get(id as usize).copied().unwrap_or(0);
        let file = |id: u32| files.get(id as usize).copied().unwrap_or(0);
        for (target, source, keyed_by_file) in [
            (&mut fold.by_time, self.by_time, false),
            (&mut fold.by_file, self.by_file, true),
            (&mut fold.by_epoch, self.by_epoch, false),
            (&mut fold.by_step, self.by_step, false),
        ] {
            target.reserve(source.len());
            for ((key, owner, kind), cell) in source {
                let key = if keyed_by_file { file(key) } else { key };
                target.entry((key, process(owner), class(kind))).or_default().merge(&cell);
            }
        }
        for ((owner, kind), cell) in self.file_totals {
            fold.file_totals.entry((file(owner), class(kind))).or_default().merge(&cell);
        }
        for (kind, counts) in self.sizes {
            let mine = fold.sizes.entry(class(kind)).or_insert([0; SIZE_BIN_COUNT]);
            for (total, count) in mine.iter_mut().zip(counts) {
                *total += count;
            }
        }
        fold.file_classes
            .extend(self.file_classes.into_iter().map(|(owner, kind)| (file(owner), class(kind))));
        fold
    }
}

impl Fold for AnalysisFold<'_> {
    fn event(&mut self, event: &Event<'_>) {
        match event.phase {
            Some(Phase::Complete) => {
                if let Some(fields) = EventFields::from_event(event) {
                    self.complete(&fields);
                }
            }
            Some(Phase::Aggregated) => self.profile_events += 1,
            _ => {}
        }
    }

    fn decode(&self) -> Decode {
        Decode::Fields(Phases::of(&[Phase::Complete, Phase::Aggregated]))
    }

    fn fields(&mut self, fields: &EventFields<'_>) {
        match fields.phase {
            Phase::Complete => self.complete(fields),
            Phase::Aggregated => self.profile_events += 1,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ids are dense, in first-seen order; a text seen again (just after, or long after, past
    /// several growths of the table) gets its id back and is not new; near misses are new.
    #[test]
    fn the_interner_gives_each_text_one_id() {
        let mut interner = Interner::default();
        let mut model: Vec<String> = Vec::new();
        for step in 0..20_000u64 {
            let text = format!("file-{}", step * 7919 % 3001);
            let (id, new) = interner.intern(&text);
            if let Some(at) = model.iter().position(|known| *known == text) {
                assert_eq!((id, new), (at as u32, false), "{text}");
            } else {
                assert_eq!((id, new), (model.len() as u32, true), "{text}");
                model.push(text.clone());
            }
            assert_eq!(interner.intern(&text), (id, false));
        }
        assert_eq!(interner.texts.iter().map(ToString::to_string).collect::<Vec<_>>(), model);
        assert_eq!(interner.intern("file-"), (model.len() as u32, true));
        assert_eq!(interner.intern(""), (model.len() as u32 + 1, true));
    }

    #[test]
    fn cells_merge_like_adding_rows() {
        let mut one = Cell::default();
        one.add(7, 5, Some(100), Some(2));
        one.add(3, 1, None, Some(0));
        let mut two = Cell::default();
        two.add(5, 9, Some(10), None);
        let mut all = Cell::default();
        all.add(7, 5, Some(100), Some(2));
        all.add(3, 1, None, Some(0));
        all.add(5, 9, Some(10), None);
        one.merge(&two);
        assert_eq!(one, all);
        assert_eq!((one.count, one.time, one.time_min, one.time_max), (3, 15, 1, 9));
        assert_eq!((one.sized, one.size, one.size_min, one.size_max), (2, 110, 10, 100));
        assert_eq!((one.uncovered, one.uncovered_count, one.uncovered_size), (2, 1, 100));
        assert_eq!(one.first_start, 3);
    }

    #[test]
    fn size_bins_are_right_closed() {
        assert_eq!(size_bin(4096), 0);
        assert_eq!(size_bin(4097), 1);
        assert_eq!(size_bin(1 << 20), 4);
        assert_eq!(size_bin(u64::MAX), SIZE_BIN_COUNT - 1);
    }
}
