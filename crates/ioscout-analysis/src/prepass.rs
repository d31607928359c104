//! The first of the analysis's two passes: what must be known before rows can be binned.
//!
//! # Overview
//!
//! Time bins are relative to the first event's start, POSIX rows are suffixed by their file's
//! path, and exact overlap measures each asynchronous row against the compute intervals of its
//! process tree; none of that is known while the rows stream by, so [`PrepassFold`] gathers it
//! first: the metadata (hash tables), the time span, the categories (for `auto` and `generic`),
//! each process's parent (`ppid` on DFTracer 2.x `start` events), and the compute and epoch
//! intervals of every candidate preset.
//!
//! The pass skims ([`Decode::Skim`](ioscout_read::Decode::Skim)): most lines are only read for `ts`, `dur`, `cat`,
//! `name` and `pid` ahead of their `args` (in place when the line has DFTracer's key order, else
//! by searching for each key, with the same answer), and only metadata lines, `start` events, compute and epoch
//! events, lines that would move the time origin, and lines the skim cannot read are decoded in
//! full (so a garbled line never sets the time origin: the second pass would reject it).
//! [`Prepared::new`] turns the merged result into the read-only context of the second pass.

use std::collections::BTreeSet;

use ioscout_model::{HashTables, Phase, RawValue};
use ioscout_read::event::{Line, decode_line};
use ioscout_read::fields::{EventFields, KeyArgs};
use ioscout_read::json::{Ordered, find_plain_quote};
use ioscout_read::{Decode, Fold, TraceMetadata};
use memchr::memmem;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::fold::FileFacts;
use crate::overlap::IntervalUnion;
use crate::preset::Preset;
use crate::row::{Classifier, PairMemo};

/// The text of a hash or name value (string or number), without allocating.
pub fn token<'a>(value: Option<&'a RawValue<'_>>) -> Option<&'a str> {
    match value? {
        RawValue::Str(text) => Some(text),
        RawValue::Number(text) => Some(text),
        _ => None,
    }
}

/// The host token of a row: its `hhash`, else its inline `hostname`.
pub fn host_token<'a>(args: &'a KeyArgs<'_>) -> Option<&'a str> {
    token(args.hhash.as_ref()).or_else(|| token(args.hostname.as_ref()))
}

/// The file token of a row: its `fhash`, else its inline `fname`.
pub fn file_token<'a>(args: &'a KeyArgs<'_>) -> Option<&'a str> {
    token(args.fhash.as_ref()).or_else(|| token(args.fname.as_ref()))
}

/// Per-process intervals: host token → pid → intervals.
pub(crate) type IntervalsByProcess = FxHashMap<Box<str>, FxHashMap<i64, Vec<(i64, i64)>>>;

/// What the first pass gathers from one unit; partial results merge.
#[derive(Debug, Default)]
pub struct PrepassFold<'p> {
    classifiers: Vec<Classifier<'p>>,
    /// Metadata events.
    pub metadata: TraceMetadata,
    /// Earliest start of a complete event.
    pub first_ts: Option<i64>,
    /// Latest end of a complete event.
    pub last_end: Option<i64>,
    /// Lower-cased categories.
    pub categories: FxHashSet<Box<str>>,
    /// Parent of each (host, pid).
    pub parents: FxHashMap<(Box<str>, i64), i64>,
    /// The (host token, pid) of every complete event (what the coverage of a trace being
    /// written names).
    pub processes: FxHashSet<(Box<str>, i64)>,
    last_process: Option<(Vec<u8>, i64)>,
    compute: Vec<IntervalsByProcess>,
    epochs: Vec<IntervalsByProcess>,
    /// Every answer of [`PrepassFold::interval_row`], by (category, name) (one lookup per line
    /// where the candidates' classifiers would take one each).
    interval_rows: PairMemo<bool>,
    keys: Keys,
}

/// Searchers for the keys the skim reads (built once per fold: building one per line would cost
/// more than the search).
#[derive(Debug)]
struct Keys {
    args: memmem::Finder<'static>,
    phase: memmem::Finder<'static>,
    ts: memmem::Finder<'static>,
    dur: memmem::Finder<'static>,
    cat: memmem::Finder<'static>,
    name: memmem::Finder<'static>,
    pid: memmem::Finder<'static>,
    hhash: memmem::Finder<'static>,
    hostname: memmem::Finder<'static>,
}

impl Default for Keys {
    fn default() -> Keys {
        Keys {
            args: memmem::Finder::new(b"\"args\""),
            phase: memmem::Finder::new(b"\"ph\":"),
            ts: memmem::Finder::new(b"\"ts\":"),
            dur: memmem::Finder::new(b"\"dur\":"),
            cat: memmem::Finder::new(b"\"cat\":"),
            name: memmem::Finder::new(b"\"name\":"),
            pid: memmem::Finder::new(b"\"pid\":"),
            hhash: memmem::Finder::new(b"\"hhash\""),
            hostname: memmem::Finder::new(b"\"hostname\""),
        }
    }
}

/// Finds `key` in `head` and returns the bytes after it, spaces skipped.
fn after_key<'a>(head: &'a [u8], key: &memmem::Finder<'_>) -> Option<&'a [u8]> {
    let at = key.find(head)?;
    let rest = &head[at + key.needle().len()..];
    let start = rest.iter().position(|byte| !byte.is_ascii_whitespace())?;
    Some(&rest[start..])
}

/// A plain integer value of `key` in `head`.
fn integer(head: &[u8], key: &memmem::Finder<'_>) -> Option<i64> {
    let rest = after_key(head, key)?;
    let digits = rest.iter().take_while(|byte| byte.is_ascii_digit()).count();
    if digits == 0 || digits > 18 || rest.get(digits).is_some_and(|byte| !matches!(byte, b',' | b'}' | b' '))
    {
        return None;
    }
    Some(rest[..digits].iter().fold(0i64, |value, digit| value * 10 + i64::from(digit - b'0')))
}

/// A string value of `key` in `head` (no escapes).
fn string<'a>(head: &'a [u8], key: &memmem::Finder<'_>) -> Option<&'a [u8]> {
    let rest = after_key(head, key)?.strip_prefix(b"\"")?;
    let end = memchr::memchr(b'"', rest)?;
    let value = &rest[..end];
    (!value.contains(&b'\\')).then_some(value)
}

/// The host token of a skimmed line, read where DFTracer writes it (the first key of `args`):
/// the token's bytes, empty when the line names no host, `None` when the skim cannot tell
/// (a host key elsewhere in `args`, a value it does not read plainly), and the line is decoded.
fn skim_host<'a>(line: &'a [u8], args_at: Option<usize>, keys: &Keys) -> Option<&'a [u8]> {
    let Some(at) = args_at else { return Some(b"") };
    let rest = &line[at + keys.args.needle().len()..];
    // DFTracer's layout first: the host hash is the first key, without spaces.
    if let Some(text) = rest.strip_prefix(b":{\"hhash\":\"") {
        return find_plain_quote(text, 0).map(|end| &text[..end]);
    }
    let trimmed = |bytes: &'a [u8]| {
        let start = bytes.iter().position(|byte| !byte.is_ascii_whitespace()).unwrap_or(bytes.len());
        &bytes[start..]
    };
    let object = trimmed(trimmed(rest).strip_prefix(b":")?).strip_prefix(b"{")?;
    if let Some(value) = trimmed(object).strip_prefix(b"\"hhash\"") {
        let value = trimmed(trimmed(value).strip_prefix(b":")?);
        return if let Some(text) = value.strip_prefix(b"\"") {
            find_plain_quote(text, 0).map(|end| &text[..end])
        } else {
            let digits = value.iter().take_while(|byte| byte.is_ascii_digit()).count();
            (digits > 0 && value.get(digits).is_some_and(|byte| matches!(byte, b',' | b'}' | b' ')))
                .then_some(&value[..digits])
        };
    }
    (keys.hhash.find(object).is_none() && keys.hostname.find(object).is_none()).then_some(b"")
}

impl<'p> PrepassFold<'p> {
    /// A fold that also collects the compute and epoch intervals of each candidate preset (the
    /// choice between them may depend on the categories this pass finds).
    pub fn new(candidates: &'p [Preset]) -> PrepassFold<'p> {
        PrepassFold {
            classifiers: candidates.iter().map(Classifier::new).collect(),
            compute: vec![IntervalsByProcess::default(); candidates.len()],
            epochs: vec![IntervalsByProcess::default(); candidates.len()],
            ..PrepassFold::default()
        }
    }

    /// The compute and epoch intervals gathered, per candidate.
    pub(crate) fn intervals(&self) -> (&[IntervalsByProcess], &[IntervalsByProcess]) {
        (&self.compute, &self.epochs)
    }

    /// The interval maps of `candidates` candidates, to fill in.
    pub(crate) fn intervals_mut(
        &mut self,
        candidates: usize,
    ) -> (&mut [IntervalsByProcess], &mut [IntervalsByProcess]) {
        self.compute.resize_with(candidates, IntervalsByProcess::default);
        self.epochs.resize_with(candidates, IntervalsByProcess::default);
        (&mut self.compute, &mut self.epochs)
    }

    /// Adds what `other` gathered.
    pub fn merge(&mut self, other: PrepassFold<'p>) {
        self.metadata.merge(other.metadata);
        self.first_ts = min_option(self.first_ts, other.first_ts);
        self.last_end = max_option(self.last_end, other.last_end);
        self.categories.extend(other.categories);
        self.parents.extend(other.parents);
        self.processes.extend(other.processes);
        for (mine, theirs) in self.compute.iter_mut().zip(other.compute) {
            merge_intervals(mine, theirs);
        }
        for (mine, theirs) in self.epochs.iter_mut().zip(other.epochs) {
            merge_intervals(mine, theirs);
        }
    }

    fn process(&mut self, host: &[u8], pid: i64) {
        if self
            .last_process
            .as_ref()
            .is_some_and(|(last_host, last_pid)| *last_pid == pid && last_host == host)
        {
            return;
        }
        let Ok(text) = std::str::from_utf8(host) else { return };
        self.processes.insert((text.into(), pid));
        match self.last_process.as_mut() {
            Some((last_host, last_pid)) => {
                last_host.clear();
                last_host.extend_from_slice(host);
                *last_pid = pid;
            }
            None => self.last_process = Some((host.to_vec(), pid)),
        }
    }

    /// Adds a category, lower-cased (called for a new (category, name) pair and for a line
    /// decoded in full, so seldom that it keeps no last one to compare with).
    fn category(&mut self, category: &[u8]) {
        let Ok(category) = std::str::from_utf8(category) else { return };
        if category.bytes().any(|byte| byte.is_ascii_uppercase()) {
            let lower = category.to_ascii_lowercase();
            if !self.categories.contains(lower.as_str()) {
                self.categories.insert(lower.into());
            }
        } else if !self.categories.contains(category) {
            self.categories.insert(category.into());
        }
    }

    /// Whether any candidate puts a row of this category and name in its compute or epoch layer,
    /// `None` when either is not UTF-8 (every answer is kept, and the last one checked first:
    /// calls come in runs). A pair met for the first time also adds its category, so a pair
    /// found needs no look at the categories.
    fn interval_row(&mut self, category: &[u8], name: &[u8]) -> Option<bool> {
        if let Some(entry) = self.interval_rows.find(category, name) {
            return Some(*self.interval_rows.value_mut(entry));
        }
        self.category(category);
        let (Ok(category_text), Ok(name_text)) = (std::str::from_utf8(category), std::str::from_utf8(name))
        else {
            return None;
        };
        let answer = self.classifiers.iter_mut().any(|classifier| {
            let id = classifier.classify(category_text, name_text, 0);
            let class = classifier.class(id);
            class.compute || class.epoch
        });
        self.interval_rows.add(category, name, answer);
        Some(answer)
    }

    /// Decodes a line fully and takes what it says.
    fn decode(&mut self, line: &[u8]) {
        let Ok(Line::Event(event)) = decode_line(line) else { return };
        match event.phase {
            Some(Phase::Metadata) => self.metadata.observe(&event),
            Some(Phase::Complete) => {
                if let Some(fields) = EventFields::from_event(&event) {
                    self.complete(&fields);
                }
            }
            _ => {}
        }
    }

    fn complete(&mut self, fields: &EventFields<'_>) {
        let category = fields.cat.unwrap_or_default();
        self.category(category.as_bytes());
        let Some(ts) = fields.ts else { return };
        let end = ts.saturating_add(fields.dur.unwrap_or(0).max(0));
        self.first_ts = min_option(self.first_ts, Some(ts));
        self.last_end = max_option(self.last_end, Some(end));
        let host = host_token(&fields.args).unwrap_or_default();
        let pid = fields.pid.unwrap_or(0);
        self.process(host.as_bytes(), pid);
        if let Some(parent) = fields.args.ppid.as_ref().and_then(RawValue::as_i64) {
            self.parents.insert((host.into(), pid), parent);
        }
        let name = fields.name.unwrap_or_default();
        for (index, classifier) in self.classifiers.iter_mut().enumerate() {
            let id = classifier.classify(category, name, 0);
            let class = classifier.class(id);
            let (compute, epoch) = (class.compute, class.epoch);
            if compute {
                push_interval(&mut self.compute[index], host, pid, (ts, end));
            }
            if epoch {
                push_interval(&mut self.epochs[index], host, pid, (ts, end));
            }
        }
    }
}

fn push_interval(map: &mut IntervalsByProcess, host: &str, pid: i64, interval: (i64, i64)) {
    let by_pid = match map.get_mut(host) {
        Some(by_pid) => by_pid,
        None => map.entry(host.into()).or_default(),
    };
    by_pid.entry(pid).or_default().push(interval);
}

fn merge_intervals(into: &mut IntervalsByProcess, from: IntervalsByProcess) {
    for (host, by_pid) in from {
        let mine = into.entry(host).or_default();
        for (pid, intervals) in by_pid {
            mine.entry(pid).or_default().extend(intervals);
        }
    }
}

fn min_option(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn max_option(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

impl Fold for PrepassFold<'_> {
    fn event(&mut self, _event: &ioscout_model::Event<'_>) {}

    fn decode(&self) -> Decode {
        Decode::Skim
    }

    fn skim(&mut self, line: &[u8]) {
        let keys = &self.keys;
        let skimmed = skim_ordered(line, keys).unwrap_or_else(|| skim_by_search(line, keys));
        let Skimmed::Take { ts, dur, category, name, pid, host } = skimmed else {
            // A metadata line in DFTracer's layout is read without the full decoder.
            if skimmed == Skimmed::Decode && !self.metadata.observe_line(line) {
                self.decode(line);
            }
            return;
        };
        // A line that would move the time origin is decoded first (the origin must come from a
        // valid line; lines arrive in end order, so this is rare); the end is taken as skimmed.
        // So is a line whose category or name is not UTF-8.
        if self.first_ts.is_none_or(|first| ts < first)
            || name == b"start"
            || self.interval_row(category, name) != Some(false)
        {
            return self.decode(line);
        }
        self.last_end = max_option(self.last_end, Some(ts.saturating_add(dur.max(0))));
        self.process(host, pid);
    }
}

/// What the skim makes of a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Skimmed<'a> {
    /// Not a complete or metadata event: nothing to take.
    Ignore,
    /// Decoded in full (metadata, and lines the skim cannot read).
    Decode,
    /// A complete event's skimmed fields (`dur` 0 when absent, `host` empty when none).
    Take { ts: i64, dur: i64, category: &'a [u8], name: &'a [u8], pid: i64, host: &'a [u8] },
}

/// The skim by search: each field the skim reads is searched for ahead of `args` (the first
/// `"args"` of the line), wherever it is, spaces allowed; the host is read by [`skim_host`].
fn skim_by_search<'a>(line: &'a [u8], keys: &Keys) -> Skimmed<'a> {
    // Everything the skim reads comes before `args` in DFTracer's key order; a line written
    // in another order, with string numbers or escapes, is decoded in full.
    let args_at = keys.args.find(line);
    let head = match args_at {
        Some(at) => &line[..at],
        None => line,
    };
    if let Some(early) = skim_phase(after_key(head, &keys.phase)) {
        return early;
    }
    let (Some(ts), Some(category), Some(name), Some(pid)) = (
        integer(head, &keys.ts),
        string(head, &keys.cat),
        string(head, &keys.name),
        integer(head, &keys.pid),
    ) else {
        return Skimmed::Decode;
    };
    let dur = integer(head, &keys.dur).unwrap_or(0);
    match skim_host(line, args_at, keys) {
        Some(host) => Skimmed::Take { ts, dur, category, name, pid, host },
        None => Skimmed::Decode,
    }
}

/// What the phase value `phase` (the bytes after `"ph":`, to the end of the head) leaves the
/// skim: `None` to go on (a complete event), else the outcome.
fn skim_phase(phase: Option<&[u8]>) -> Option<Skimmed<'static>> {
    match phase.and_then(|value| value.first()) {
        Some(b'1') => None,
        Some(b'"') if phase.is_some_and(|value| value.starts_with(b"\"X\"")) => None,
        Some(b'"') if !phase.is_some_and(|value| value.starts_with(b"\"M\"")) => Some(Skimmed::Ignore),
        Some(byte) if *byte != b'4' && *byte != b'"' => Some(Skimmed::Ignore),
        // Metadata, and lines whose phase the skim cannot see.
        _ => Some(Skimmed::Decode),
    }
}

/// The skim of a line laid out as DFTracer writes it, without spaces: the keys `id`, `name`,
/// `cat`, `type`, `pid`, `tid`, `ts`, `dur`, `ph` in this order (each but `ph` optional), plain
/// integers, then `,"args":` or the closing brace. Each key is read where
/// DFTracer puts it instead of being searched for. `None` for any other line, which
/// [`skim_by_search`] then reads; on a line it answers, it answers what [`skim_by_search`] does
/// (held so by the tests over generated lines and the corpus): in this layout no key can be
/// found anywhere but in its place, since a string holds no quote, except `"args"`, which would
/// also match a string value `args`, so such lines are left to the search.
fn skim_ordered<'a>(line: &'a [u8], keys: &Keys) -> Option<Skimmed<'a>> {
    if line.first() != Some(&b'{') {
        return None;
    }
    // The line is not checked: a string with a backslash is left to the search, as it skips it
    // (each string's end is found by a search that stops at a backslash too).
    let mut cursor = Ordered::new(line);
    let head = cursor.plain_head()?;
    let (name, category) = (head.name, head.cat);
    let (pid, ts, dur) = (head.pid, head.ts, head.dur.unwrap_or(0));
    let phase_at = cursor.position();
    let phase_is_args = if cursor.step_over(b'"') {
        cursor.rest_of_plain_string()? == b"args"
    } else {
        cursor.integer()?;
        false
    };
    if name == Some(b"args") || category == Some(b"args") || phase_is_args {
        return None;
    }
    let args_at = if cursor.key(b"\"args\":") {
        Some(cursor.position() - b"\"args\":".len())
    } else if cursor.at_last_brace() {
        None
    } else {
        return None;
    };
    let head_end = args_at.unwrap_or(line.len());
    if let Some(early) = skim_phase(Some(&line[phase_at..head_end])) {
        return Some(early);
    }
    // A key missing from its place is missing from the head.
    let (Some(ts), Some(category), Some(name), Some(pid)) = (ts, category, name, pid) else {
        return Some(Skimmed::Decode);
    };
    Some(match skim_host(line, args_at, keys) {
        Some(host) => Skimmed::Take { ts, dur, category, name, pid, host },
        None => Skimmed::Decode,
    })
}

/// The read-only context of the second pass.
#[derive(Debug)]
pub struct Prepared {
    /// Hash tables.
    pub tables: HashTables,
    /// Trace metadata (process ranks and names).
    pub metadata: TraceMetadata,
    /// Earliest start of a complete event (the time origin).
    pub first_ts: i64,
    /// Latest end of a complete event.
    pub last_end: i64,
    /// Lower-cased categories.
    pub categories: BTreeSet<String>,
    parents: FxHashMap<(Box<str>, i64), i64>,
    group_index: FxHashMap<(Box<str>, i64), u32>,
    /// Compute intervals of each process tree with any, as a union.
    pub compute: Vec<IntervalUnion>,
    /// Epoch intervals of each process tree with any, in start order.
    pub epochs: Vec<Vec<(i64, i64)>>,
    /// The facts of every path the file table names, by file token (found once here, not once
    /// per unit that meets the file).
    file_facts: FxHashMap<Box<str>, FileFacts>,
}

impl Prepared {
    /// The context from the merged first pass, with the intervals of candidate `chosen` (none
    /// when the chosen preset was not a candidate: it has no compute or epoch layer).
    pub fn new(fold: PrepassFold<'_>, chosen: Option<usize>) -> Prepared {
        let PrepassFold {
            metadata, first_ts, last_end, categories, parents, mut compute, mut epochs, ..
        } = fold;
        let take = |all: &mut Vec<IntervalsByProcess>| {
            chosen.filter(|index| *index < all.len()).map(|index| all.swap_remove(index)).unwrap_or_default()
        };
        let compute = take(&mut compute);
        let epochs = take(&mut epochs);
        let mut prepared = Prepared {
            tables: metadata.tables.clone(),
            metadata,
            first_ts: first_ts.unwrap_or(0),
            last_end: last_end.unwrap_or(0),
            categories: categories.into_iter().map(String::from).collect(),
            parents,
            group_index: FxHashMap::default(),
            compute: Vec::new(),
            epochs: Vec::new(),
            file_facts: FxHashMap::default(),
        };
        prepared.file_facts = prepared
            .tables
            .files
            .iter()
            .map(|(token, path)| (Box::from(token.0.as_str()), FileFacts::of(path)))
            .collect();
        let mut group_compute: Vec<Vec<(i64, i64)>> = Vec::new();
        let mut group_epochs: Vec<Vec<(i64, i64)>> = Vec::new();
        for (is_compute, source) in [(true, compute), (false, epochs)] {
            for (host, by_pid) in source {
                for (pid, intervals) in by_pid {
                    let root = prepared.root(&host, pid);
                    let next = prepared.group_index.len() as u32;
                    let group = *prepared.group_index.entry((host.clone(), root)).or_insert(next);
                    if group as usize == group_compute.len() {
                        group_compute.push(Vec::new());
                        group_epochs.push(Vec::new());
                    }
                    let target = if is_compute { &mut group_compute } else { &mut group_epochs };
                    target[group as usize].extend(intervals);
                }
            }
        }
        for epochs in &mut group_epochs {
            epochs.sort_unstable();
        }
        prepared.compute = group_compute.into_iter().map(IntervalUnion::new).collect();
        prepared.epochs = group_epochs;
        prepared
    }

    /// The root of a process's tree: its ancestors are followed while they are processes of the
    /// trace (they have a `start` event), so ranks launched by one `mpirun` stay apart.
    pub fn root(&self, host: &str, pid: i64) -> i64 {
        let mut current = pid;
        for _ in 0..64 {
            let Some(parent) = self.parent(host, current) else { break };
            if parent == current || self.parent(host, parent).is_none() {
                break;
            }
            current = parent;
        }
        current
    }

    fn parent(&self, host: &str, pid: i64) -> Option<i64> {
        // Borrowed lookups of a (Box<str>, i64) key need an owned key; parents are few.
        self.parents.get(&(Box::from(host), pid)).copied()
    }

    /// The process tree of (host, pid) that has compute or epoch intervals, if any.
    pub fn group(&self, host: &str, pid: i64) -> Option<u32> {
        let root = self.root(host, pid);
        self.group_index.get(&(Box::from(host), root)).copied()
    }

    /// The epoch (1-based) that process tree `group` was in at `ts`, from the epoch layer's
    /// intervals.
    pub fn epoch_at(&self, group: Option<u32>, ts: i64) -> Option<u32> {
        let epochs = self.epochs.get(group? as usize)?;
        let position = epochs.partition_point(|(start, _)| *start <= ts);
        let (start, end) = *epochs.get(position.checked_sub(1)?)?;
        (start <= ts && ts < end).then_some(position as u32)
    }

    /// The time of `[start, end)` covered by the compute of `group`.
    pub fn covered(&self, group: Option<u32>, start: i64, end: i64) -> i64 {
        let mut hint = 0;
        self.covered_near(&mut hint, group, start, end)
    }

    /// [`Prepared::covered`] from a hint kept by the caller for `group`
    /// ([`IntervalUnion::covered_near`]).
    pub fn covered_near(&self, hint: &mut usize, group: Option<u32>, start: i64, end: i64) -> i64 {
        group
            .and_then(|group| self.compute.get(group as usize))
            .map_or(0, |union| union.covered_near(hint, start, end))
    }

    /// Whether what a second pass folded over this context, from events that all ended by its
    /// `last_end`, is what it would fold over `newer` (the context after more of the trace was
    /// read): the same time origin, categories and process trees; every file token of `files`
    /// resolved alike; and, for each (host token, pid) of `processes`, the compute and epoch
    /// intervals before `last_end` unchanged (intervals that begin later cover none of those
    /// events). [`crate::follow`] keeps a file's second-pass partial only then.
    pub(crate) fn holds_in<'t>(
        &self,
        newer: &Prepared,
        files: &[String],
        mut processes: impl Iterator<Item = (&'t str, i64)>,
    ) -> bool {
        if self.first_ts != newer.first_ts
            || self.categories != newer.categories
            || self.parents != newer.parents
        {
            return false;
        }
        if files.iter().any(|token| self.file_path(token) != newer.file_path(token)) {
            return false;
        }
        let limit = self.last_end;
        let clipped = |intervals: &[(i64, i64)]| -> Vec<(i64, i64)> {
            intervals
                .iter()
                .filter(|(start, _)| *start < limit)
                .map(|(start, end)| (*start, (*end).min(limit)))
                .collect()
        };
        let empty = IntervalUnion::default();
        processes.all(|(host, pid)| {
            let (old, new) = (self.group(host, pid), newer.group(host, pid));
            let compute = |prepared: &Prepared, group: Option<u32>| {
                group
                    .and_then(|group| prepared.compute.get(group as usize))
                    .unwrap_or(&empty)
                    .intervals()
                    .to_vec()
            };
            let epochs = |prepared: &Prepared, group: Option<u32>| {
                group.and_then(|group| prepared.epochs.get(group as usize)).cloned().unwrap_or_default()
            };
            clipped(&compute(self, old)) == clipped(&compute(newer, new))
                && epochs(self, old)
                    .iter()
                    .filter(|(start, _)| *start < limit)
                    .eq(epochs(newer, new).iter().filter(|(start, _)| *start < limit))
        })
    }

    /// The resolved name of a host token.
    pub fn host_name(&self, token: &str) -> String {
        match self.tables.hosts.get(&ioscout_model::HashToken(token.to_string())) {
            Some(name) => name.clone(),
            None if token.is_empty() => "unknown".into(),
            None => token.to_string(),
        }
    }

    /// The facts of the path of a file token (of the token itself when no table names it, as
    /// [`Prepared::file_path`] resolves it).
    pub fn file_facts(&self, token: &str) -> FileFacts {
        self.file_facts.get(token).copied().unwrap_or_else(|| FileFacts::of(token))
    }

    /// The resolved path of a file token.
    pub fn file_path(&self, token: &str) -> String {
        self.tables
            .files
            .get(&ioscout_model::HashToken(token.to_string()))
            .cloned()
            .unwrap_or_else(|| token.to_string())
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    #[test]
    fn skim_reads_fields_before_args() {
        let line = br#"{"id":3,"name":"read","cat":"POSIX","pid":7,"tid":7,"ts":1500,"dur":20,"ph":1,"args":{"ts":1,"name":"x"}}"#;
        let keys = Keys::default();
        let head = &line[..keys.args.find(line).unwrap_or_else(|| panic!("absent"))];
        assert_eq!(integer(head, &keys.ts), Some(1500));
        assert_eq!(integer(head, &keys.dur), Some(20));
        assert_eq!(string(head, &keys.name), Some(&b"read"[..]));
        assert_eq!(string(head, &keys.cat), Some(&b"POSIX"[..]));
        assert_eq!(integer(br#"{"ts":"12"}"#, &keys.ts), None);
    }

    /// The ordered skim answers only what the search answers.
    fn check_skims(line: &[u8]) -> bool {
        let keys = Keys::default();
        match skim_ordered(line, &keys) {
            Some(ordered) => {
                assert_eq!(ordered, skim_by_search(line, &keys), "{}", String::from_utf8_lossy(line));
                true
            }
            None => false,
        }
    }

    #[test]
    fn the_ordered_skim_reads_dftracer_layouts_as_the_search_does() {
        let answered: [&[u8]; 6] = [
            br#"{"id":4,"name":"open","cat":"POSIX","type":3,"pid":12,"tid":13,"ts":100,"dur":17,"ph":1,"args":{"hhash":"a6","fhash":"a3"}}"#,
            br#"{"id":7,"name":"fopen","cat":"STDIO","pid":35,"tid":35,"ts":1727,"dur":191,"ph":"X","args":{"hhash":5692,"level":1}}"#,
            br#"{"id":1000,"name":"FH","cat":"dftracer","pid":35,"tid":35,"ph":"M","args":{"name":"/a","value":50461}}"#,
            br#"{"name":"HH","cat":"dftracer","type":1,"pid":12,"tid":12,"ph":4,"args":{"hhash":"a6","name":"n0"}}"#,
            br#"{"id":4,"name":"open","cat":"POSIX","pid":12,"ts":100,"ph":3}"#,
            br#"{"id":4,"name":"open","cat":"POSIX","pid":12,"ts":100,"ph":1,"args":{"level":1,"hhash":"a6"}}"#,
        ];
        for line in answered {
            assert!(check_skims(line), "{}", String::from_utf8_lossy(line));
        }
        let left: [&[u8]; 6] = [
            br#"{"id":4,"name":"args","cat":"POSIX","pid":12,"ts":100,"ph":1,"args":{}}"#,
            br#"{"id":4,"name":"open","cat":"args","pid":12,"ts":100,"ph":1,"args":{}}"#,
            br#"{"id":4,"name":"open","cat":"POSIX","pid":12,"ts":0100,"ph":1,"args":{}}"#,
            br#"{"id":4,"name":"open","cat":"POSIX","pid":12,"ts":100, "ph":1,"args":{}}"#,
            br#"{"name":"open","id":4,"cat":"POSIX","pid":12,"ts":100,"ph":1,"args":{}}"#,
            br#"{"id":4,"name":"open","cat":"POSIX","pid":12,"ts":100,"ph":1}x"args":{"hhash":"h"}"#,
        ];
        for line in left {
            assert!(!check_skims(line), "{}", String::from_utf8_lossy(line));
        }
    }

    fn layout_line() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let value = prop_oneof![
            "[0-9]{1,3}",
            Just("0".to_string()),
            Just("007".to_string()),
            Just("1.5".to_string()),
            Just("null".to_string()),
            Just("\"12\"".to_string()),
            Just("1234567890123456789".to_string()),
        ];
        let text = prop_oneof![
            "[a-zA-Z_.]{0,6}",
            Just("args".to_string()),
            Just("X".to_string()),
            Just("M".to_string()),
            Just("a\\b".to_string()),
            Just("ts\":1,\"".to_string()),
        ];
        let phase = prop_oneof![
            Just("1".to_string()),
            Just("4".to_string()),
            Just("3".to_string()),
            Just("\"X\"".to_string()),
            Just("\"M\"".to_string()),
            Just("\"args\"".to_string()),
            Just("12".to_string()),
            Just("true".to_string()),
        ];
        let args = prop_oneof![
            Just(String::new()),
            Just(",\"args\":{}".to_string()),
            Just(",\"args\":{\"hhash\":\"ab\",\"fhash\":\"cd\"}".to_string()),
            Just(",\"args\":{\"hhash\":5692,\"level\":1}".to_string()),
            Just(",\"args\":{\"level\":1,\"hostname\":\"n\"}".to_string()),
            Just(",\"args\":{\"hhash\":\"a\\b\"}".to_string()),
            Just(",\"args\": {\"hhash\":\"ab\"}".to_string()),
        ];
        let present = proptest::collection::vec(any::<bool>(), 8);
        let values = proptest::collection::vec(value, 6);
        (present, values, text.clone(), text, phase, args).prop_map(
            |(present, values, name, category, phase, args)| {
                let mut parts = Vec::new();
                let keys = ["id", "type", "pid", "tid", "ts", "dur"];
                if present[0] {
                    parts.push(format!("\"{}\":{}", keys[0], values[0]));
                }
                if present[1] {
                    parts.push(format!("\"name\":\"{name}\""));
                }
                if present[2] {
                    parts.push(format!("\"cat\":\"{category}\""));
                }
                for (index, key) in keys.iter().enumerate().skip(1) {
                    if present[(index + 2).min(7)] || index == 2 || index == 4 {
                        parts.push(format!("\"{key}\":{}", values[index]));
                    }
                }
                parts.push(format!("\"ph\":{phase}"));
                format!("{{{}{args}}}", parts.join(","))
            },
        )
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

        #[test]
        fn generated_lines_skim_alike(line in layout_line()) {
            check_skims(line.as_bytes());
        }

        #[test]
        fn mutated_lines_skim_alike(
            line in layout_line(),
            position in proptest::prelude::any::<proptest::sample::Index>(),
            byte in proptest::prelude::any::<u8>(),
            cut in proptest::prelude::any::<bool>(),
        ) {
            let mut bytes = line.into_bytes();
            let at = position.index(bytes.len());
            if cut {
                bytes.truncate(at);
            } else {
                bytes[at] = byte;
            }
            check_skims(&bytes);
        }
    }

    /// A fold that checks the skims of every line it is given.
    struct Check {
        lines: u64,
        answered: u64,
    }

    impl Fold for Check {
        fn event(&mut self, _event: &ioscout_model::Event<'_>) {}
        fn decode(&self) -> Decode {
            Decode::Skim
        }
        fn skim(&mut self, line: &[u8]) {
            self.lines += 1;
            self.answered += u64::from(check_skims(line));
        }
    }

    /// Every line of the corpus: the ordered skim answers what the search answers, and it answers
    /// most lines (else it would be no faster, and this test would hold it to nothing).
    #[test]
    fn corpus_lines_skim_alike() {
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/dftracer");
        if !corpus.is_dir() {
            let _ = writeln!(std::io::stderr(), "skipped: {} is absent", corpus.display());
            return;
        }
        let (files, _) = ioscout_read::discover(&[corpus]);
        assert!(!files.is_empty());
        let scanner = ioscout_read::Scanner::new(ioscout_read::ScanOptions::default());
        let (mut lines, mut answered) = (0, 0);
        scanner.scan(
            &files,
            &[],
            |_| Check { lines: 0, answered: 0 },
            |_, check, _| {
                lines += check.lines;
                answered += check.answered;
                std::ops::ControlFlow::Continue(())
            },
        );
        assert!(lines > 100_000, "{lines} lines");
        assert!(answered * 10 > lines * 8, "the ordered skim answered {answered} of {lines} lines");
    }

    #[test]
    fn skimmed_and_decoded_lines_agree_on_the_span_and_parents() {
        let lines: [&[u8]; 4] = [
            br#"{"id":1,"name":"start","cat":"dftracer","pid":7,"tid":7,"ts":1000,"dur":0,"ph":1,"args":{"hhash":"h","ppid":3}}"#,
            br#"{"id":2,"name":"read","cat":"POSIX","pid":7,"tid":7,"ts":1500,"dur":20,"ph":1,"args":{"hhash":"h"}}"#,
            br#"{"id":3,"name":"read","cat":"POSIX","pid":7,"tid":7,"ts":"900","dur":5,"ph":"X"}"#,
            br#"{"id":4,"name":"read","cat":"POSIX","pid":7,"tid":7,"ts":800,"dur":5,"ph":1,"args":{"hhash":"h""#,
        ];
        let mut fold = PrepassFold::new(&[]);
        for line in lines {
            fold.skim(line);
        }
        // The string-typed ts is decoded (2023 traces); the truncated line never moves the span.
        assert_eq!(fold.first_ts, Some(900));
        assert_eq!(fold.last_end, Some(1520));
        assert_eq!(fold.parents.get(&(Box::from("h"), 7)), Some(&3));
        assert!(fold.categories.contains("posix"));
    }
}
