//! The scan side of the evidence: [`EvidenceFold`] is the [`Fold`] one unit of a trace fills (its
//! POSIX and STDIO calls reduced to [`Op`]s, its FH records and process metadata, calls that
//! could not be tied to a file), and [`Replay`] takes the filled folds in file order and replays
//! every op into the (process, file) state of [`crate::posix`] and [`crate::stdio`], so positions
//! carry across units exactly as the calls were made. Memory: the ops of the units in flight,
//! packed ([`crate::packed`], about 20 bytes each), then one state per (process, file).

use std::path::PathBuf;

use ioscout_model::{Event, Phase};
use ioscout_read::fields::EventFields;
use ioscout_read::{Decode, Fold, LinePosition, Phases, TraceMetadata};
use rustc_hash::FxHashMap;

use crate::excluded::ExcludedState;
use crate::metadata::OperationTable;
use crate::op::{self, FileKey, KeyRef, Op, OpKind, Unusable};
use crate::packed::{self, CHUNK_BYTES, MAX_OP_BYTES, Previous};
use crate::posix::PosixFile;
use crate::stdio::StdioFile;

/// Interns strings of one kind (function names, file keys) as dense indices.
#[derive(Debug)]
pub(crate) struct Interner<K> {
    pub(crate) items: Vec<K>,
    index: FxHashMap<K, u32>,
    /// The index returned last (calls come in runs: `read`, `read`, `read`, ...).
    last: Option<u32>,
}

impl<K> Default for Interner<K> {
    fn default() -> Interner<K> {
        Interner { items: Vec::new(), index: FxHashMap::default(), last: None }
    }
}

impl Interner<Box<str>> {
    /// Interns `name` without allocating when it is known.
    pub(crate) fn intern_str(&mut self, name: &str) -> u32 {
        if let Some(last) = self.last
            && self.items.get(last as usize).is_some_and(|item| item.as_ref() == name)
        {
            return last;
        }
        let index = match self.index.get(name) {
            Some(&index) => index,
            None => self.intern(name.into()),
        };
        self.last = Some(index);
        index
    }
}

/// File keys interned by their borrowed form (no allocation when known). The index holds
/// positions in `items`, found by the hash of the key's text and compared against the key kept
/// there, so that a new key is copied once (a map by key kept a second copy of each).
#[derive(Debug, Default)]
pub(crate) struct FileInterner {
    pub(crate) items: Vec<FileKey>,
    index: hashbrown::HashTable<u32>,
    none: Option<u32>,
    /// The index returned last (a process's calls come in runs on one file).
    last: Option<u32>,
}

/// The hash of a file key's kind and text.
fn file_key_hash(path: bool, text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = rustc_hash::FxHasher::default();
    path.hash(&mut hasher);
    text.hash(&mut hasher);
    hasher.finish()
}

/// A file key's kind (an inline path or not) and text; `None` for no file.
fn file_key_parts(key: &FileKey) -> Option<(bool, &str)> {
    match key {
        FileKey::Hash(token) => Some((false, token)),
        FileKey::Path(path) => Some((true, path)),
        FileKey::None => None,
    }
}

impl FileInterner {
    pub(crate) fn intern_ref(&mut self, key: &KeyRef<'_>) -> u32 {
        if let Some(last) = self.last
            && self.items.get(last as usize).is_some_and(|item| item.is(key))
        {
            return last;
        }
        let parts = match key {
            KeyRef::Hash(token) => Some((false, token.as_ref())),
            KeyRef::Path(path) => Some((true, path.as_ref())),
            KeyRef::None => None,
        };
        let index = match self.find(parts) {
            Some(index) => index,
            None => self.add(key.to_key()),
        };
        self.last = Some(index);
        index
    }

    pub(crate) fn intern(&mut self, key: FileKey) -> u32 {
        match self.find(file_key_parts(&key)) {
            Some(index) => index,
            None => self.add(key),
        }
    }

    /// The index of the key of kind and text `parts`, if interned.
    fn find(&self, parts: Option<(bool, &str)>) -> Option<u32> {
        let Some((path, text)) = parts else { return self.none };
        let items = &self.items;
        self.index
            .find(file_key_hash(path, text), |&index| {
                items.get(index as usize).and_then(file_key_parts) == Some((path, text))
            })
            .copied()
    }

    /// Adds `key`, not interned yet.
    fn add(&mut self, key: FileKey) -> u32 {
        let index = self.items.len() as u32;
        match file_key_parts(&key) {
            Some((path, text)) => {
                let items = &self.items;
                self.index.insert_unique(file_key_hash(path, text), index, |&known| {
                    items
                        .get(known as usize)
                        .and_then(file_key_parts)
                        .map_or(0, |(path, text)| file_key_hash(path, text))
                });
            }
            None => self.none = Some(index),
        }
        self.items.push(key);
        index
    }
}

impl<K: std::hash::Hash + Eq + Clone> Interner<K> {
    pub(crate) fn intern(&mut self, key: K) -> u32 {
        if let Some(&index) = self.index.get(&key) {
            return index;
        }
        let index = self.items.len() as u32;
        self.items.push(key.clone());
        self.index.insert(key, index);
        index
    }
}

/// A call that names no file, process or time (counted, with where it is).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct UnusableCall {
    /// The trace file.
    pub trace: PathBuf,
    /// Its line in the trace file (from 1).
    pub line: u64,
    /// DFTracer's event index.
    pub event_id: Option<i64>,
    /// The call.
    pub name: String,
    /// What is missing.
    pub reason: &'static str,
}

/// The fold of one unit.
#[derive(Debug, Default)]
pub struct EvidenceFold {
    names: Interner<Box<str>>,
    files: FileInterner,
    /// The unit's ops, packed ([`crate::packed`]) into chunks that are never reallocated: the
    /// full ones, then the one being filled.
    ops: Vec<Vec<u8>>,
    filling: Vec<u8>,
    /// The op packed last (the base of the next one's differences).
    previous: Previous,
    /// Where chunks come from and go back to.
    buffers: Buffers,
    metadata: TraceMetadata,
    unusable: Vec<(LinePosition, Option<i64>, String, Unusable)>,
    unusable_count: u64,
    first_ts: Option<i64>,
    last_end: Option<i64>,
    pids: Vec<i64>,
    /// `cmd_hash` of the processes' `start` events.
    commands: Vec<String>,
    /// Where the line being decoded is.
    line: LinePosition,
    /// The kind of each interned name as a POSIX and as a STDIO call, once matched.
    kinds: Vec<[Option<OpKind>; 2]>,
    /// The replay was given the trace's metadata ([`Replay::knowing`]): metadata lines are left
    /// to the scanner, which validates and counts them without decoding them.
    metadata_known: bool,
}

/// The op chunks of replayed units, handed to new units: a scan reuses chunks instead of
/// mapping fresh memory for every unit (which cost more than the replay itself). It also says
/// whether the folds it makes gather metadata ([`Replay::knowing`]).
#[derive(Clone, Debug, Default)]
pub struct Buffers {
    free: std::sync::Arc<std::sync::Mutex<Vec<Vec<u8>>>>,
    metadata_known: bool,
}

/// How many free chunks are kept for reuse (8 MB; beyond that a chunk is dropped, as without
/// reuse).
const KEEP_CHUNKS: usize = 128;

impl Buffers {
    /// A fold for a new unit, taking its chunks from here.
    pub fn fold(&self) -> EvidenceFold {
        EvidenceFold { buffers: self.clone(), metadata_known: self.metadata_known, ..EvidenceFold::default() }
    }

    /// An empty chunk: a free one, else a new one.
    fn chunk(&self) -> Vec<u8> {
        self.free
            .lock()
            .ok()
            .and_then(|mut free| free.pop())
            .unwrap_or_else(|| Vec::with_capacity(CHUNK_BYTES))
    }

    fn give_back(&self, chunks: Vec<Vec<u8>>) {
        let Ok(mut free) = self.free.lock() else { return };
        // A unit's unused first chunk has no room: it is not worth keeping.
        for mut chunk in chunks.into_iter().filter(|chunk| chunk.capacity() >= CHUNK_BYTES) {
            if free.len() >= KEEP_CHUNKS {
                break;
            }
            chunk.clear();
            free.push(chunk);
        }
    }
}

impl EvidenceFold {
    /// Packs `op` into the last chunk, starting a chunk when the op might not fit.
    fn push(&mut self, op: &Op) {
        if self.filling.capacity() - self.filling.len() < MAX_OP_BYTES {
            let full = std::mem::replace(&mut self.filling, self.buffers.chunk());
            if !full.is_empty() {
                self.ops.push(full);
            }
        }
        packed::pack(&mut self.filling, op, &mut self.previous);
    }
}

/// How many unusable calls a unit keeps by name (the rest are counted).
const KEEP_UNUSABLE: usize = 20;

impl Fold for EvidenceFold {
    fn event(&mut self, event: &Event<'_>) {
        if event.phase == Some(Phase::Metadata) {
            if !self.metadata_known {
                self.metadata.observe(event);
            }
            return;
        }
        if let Some(fields) = EventFields::from_event(event) {
            self.fields(&fields);
        }
    }

    fn decode(&self) -> Decode {
        if self.metadata_known {
            Decode::Fields(Phases::of(&[Phase::Complete]))
        } else {
            Decode::Fields(Phases::of(&[Phase::Complete, Phase::Metadata]))
        }
    }

    fn line_position(&mut self, position: LinePosition) {
        self.line = position;
    }

    fn fields(&mut self, fields: &EventFields<'_>) {
        if fields.phase != Phase::Complete {
            return;
        }
        if let Some(pid) = fields.pid
            && self.pids.last() != Some(&pid)
            && !self.pids.contains(&pid)
        {
            self.pids.push(pid);
        }
        if let Some(ts) = fields.ts {
            self.first_ts = Some(self.first_ts.map_or(ts, |first| first.min(ts)));
            let end = fields.end().unwrap_or(ts);
            self.last_end = Some(self.last_end.map_or(end, |last| last.max(end)));
        }
        if fields.name == Some("start")
            && fields.cat == Some("dftracer")
            && let Some(token) =
                fields.args.cmd_hash.as_ref().and_then(ioscout_model::RawValue::as_hash_token)
            && !self.commands.contains(&token.0)
        {
            self.commands.push(token.0);
        }
        let (Some(cat), Some(name)) = (fields.cat, fields.name) else { return };
        let Some(module) = op::Module::of(cat) else { return };
        let name_index = self.names.intern_str(name);
        let kinds = &mut self.kinds;
        if kinds.len() <= name_index as usize {
            kinds.resize(name_index as usize + 1, [None; 2]);
        }
        let kind = *kinds[name_index as usize][usize::from(module == op::Module::Stdio)]
            .get_or_insert_with(|| OpKind::in_module(module, name));
        let decoded = op::decode_call(fields, name, kind);
        match &decoded {
            Ok(call) => {
                // Built in place from the borrowed call (moving the call out costs a copy).
                let name = name_index;
                let file = self.files.intern_ref(&call.key);
                let target = call.target.as_ref().map(|target| self.files.intern_ref(target));
                let op = Op { name, file, target, line: self.line, ..call.op };
                self.push(&op);
            }
            &Err(reason) => {
                self.unusable_count += 1;
                if self.unusable.len() < KEEP_UNUSABLE {
                    self.unusable.push((self.line, fields.id, fields.name.unwrap_or("").to_string(), reason));
                }
            }
        }
    }
}

/// Where a (process, file) record's state is kept while replaying. The POSIX state (counters
/// inline, about a kilobyte) is part of it, so that making a state allocates nothing; the STDIO
/// state, which fewer records have, is boxed.
#[derive(Debug, Default)]
pub(crate) struct FileState {
    pub(crate) posix: Option<PosixFile>,
    pub(crate) stdio: Option<Box<StdioFile>>,
    /// The first approximated call: trace file index and line.
    pub(crate) first_approximation: Option<(usize, u64)>,
}

/// How many states a chunk of [`StateTable`] holds.
const STATES_PER_CHUNK: usize = 256;

/// The (process, file) states, found by a map with the last one kept at hand (a process's calls
/// come in runs on one file). The states are kept in chunks of [`STATES_PER_CHUNK`] that are
/// never reallocated: a new state is written once, not copied at every doubling of one table.
/// The small states of files Darshan leaves out ([`crate::excluded`]) are kept the same way.
#[derive(Debug)]
pub(crate) struct StateTable<State = FileState> {
    chunks: Vec<Vec<((i64, u32), State)>>,
    index: FxHashMap<(i64, u32), u32>,
    last: Option<((i64, u32), u32)>,
}

impl<State> Default for StateTable<State> {
    fn default() -> StateTable<State> {
        StateTable { chunks: Vec::new(), index: FxHashMap::default(), last: None }
    }
}

impl<State: Default> StateTable<State> {
    /// The state of (`pid`, `file`), made when new.
    pub(crate) fn get(&mut self, pid: i64, file: u32) -> &mut State {
        let key = (pid, file);
        let index = match self.last {
            Some((last, index)) if last == key => index,
            _ => {
                let next = self.index.len() as u32;
                let index = *self.index.entry(key).or_insert(next);
                if index == next {
                    if self.chunks.last().is_none_or(|chunk| chunk.len() == STATES_PER_CHUNK) {
                        self.chunks.push(Vec::with_capacity(STATES_PER_CHUNK));
                    }
                    if let Some(chunk) = self.chunks.last_mut() {
                        chunk.push((key, State::default()));
                    }
                }
                self.last = Some((key, index));
                index
            }
        };
        let (chunk, slot) = (index as usize / STATES_PER_CHUNK, index as usize % STATES_PER_CHUNK);
        &mut self.chunks[chunk][slot].1
    }

    /// The index of every state, by file and then process (each file's states in a run, as its
    /// records are grouped). The keys are distinct, so the order is the one a sort of the states
    /// gives; it is found on (key, index) pairs, and the states are then visited in place
    /// ([`StateTable::at`]), so that no state (about a kilobyte) is moved or copied.
    pub(crate) fn order_by_file(&self) -> Vec<u32> {
        let mut order: Vec<((u32, i64), u32)> = self
            .chunks
            .iter()
            .flatten()
            .enumerate()
            .map(|(index, ((pid, file), _))| ((*file, *pid), index as u32))
            .collect();
        order.sort_unstable();
        order.into_iter().map(|(_, index)| index).collect()
    }

    /// Every state with its key, in the order they were made.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &((i64, u32), State)> {
        self.chunks.iter().flatten()
    }

    /// The key and state at `index` (one of [`StateTable::order_by_file`]).
    pub(crate) fn at(&mut self, index: u32) -> Option<(&(i64, u32), &mut State)> {
        let (chunk, slot) = (index as usize / STATES_PER_CHUNK, index as usize % STATES_PER_CHUNK);
        self.chunks.get_mut(chunk)?.get_mut(slot).map(|(key, state)| (&*key, state))
    }

    /// Every state with its key, by file and then process (the tests' view of the two above).
    #[cfg(test)]
    fn into_sorted_by_file(mut self) -> Vec<((i64, u32), State)> {
        let order = self.order_by_file();
        order
            .into_iter()
            .filter_map(|index| self.at(index).map(|(key, state)| (*key, std::mem::take(state))))
            .collect()
    }
}

/// The replay of every unit's ops, in file order.
#[derive(Debug, Default)]
pub struct Replay {
    pub(crate) names: Interner<Box<str>>,
    pub(crate) files: FileInterner,
    pub(crate) states: StateTable,
    pub(crate) metadata: TraceMetadata,
    pub(crate) operations: OperationTable,
    pub(crate) unusable: Vec<UnusableCall>,
    pub(crate) unusable_count: u64,
    pub(crate) first_ts: Option<i64>,
    pub(crate) last_end: Option<i64>,
    pub(crate) pids: Vec<i64>,
    pub(crate) commands: Vec<String>,
    pub(crate) ops: u64,
    /// Rename targets seen, as (process, target file, source file).
    pub(crate) renames: Vec<(i64, u32, u32)>,
    /// Call time against bytes of POSIX reads, POSIX writes, STDIO reads, STDIO writes.
    pub(crate) shapes: [crate::shape::ShapeSums; 4],
    /// The clock's base for the replay's seconds (microseconds).
    pub(crate) base_us: Option<i64>,
    /// Distinct offsets and re-read bytes per file, by file index.
    /// Boxed: most files of a large job have no read or write (a slot is then 8 bytes, not the
    /// hundred of an empty [`crate::access::FileAccess`]).
    pub(crate) access: Vec<Option<Box<crate::access::FileAccess>>>,
    /// Where consumed units' op buffers go back to.
    buffers: Buffers,
    /// The sample of reads and writes, when asked for ([`Replay::sampling`]).
    pub(crate) sample: Option<crate::sample::AccessSample>,
    /// How each file's states are kept, by file index (decided at its first call).
    kept: Vec<Kept>,
    /// The states of files Darshan leaves out, kept small ([`crate::excluded`]).
    pub(crate) excluded: StateTable<ExcludedState>,
    /// Every state in full, whatever its file (the tests' reference for [`crate::excluded`]).
    all_in_full: bool,
}

/// How a file's (process, file) states are kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Kept {
    /// No call on it was replayed yet.
    #[default]
    Undecided,
    /// In full ([`StateTable`]).
    Full,
    /// Small: a file Darshan leaves out ([`Replay::excluded`]).
    Excluded,
}

/// How far before the first replayed call the replay's clock starts (a million seconds).
const TIME_BASE_BEFORE_US: i64 = 1_000_000_000_000;

impl Replay {
    /// A replay that also keeps a sample of the POSIX reads and writes with their offsets
    /// ([`crate::sample`]): `uniform` calls at most, and the `slowest` longest.
    pub fn sampling(uniform: usize, slowest: usize) -> Replay {
        Replay { sample: Some(crate::sample::AccessSample::new(uniform, slowest)), ..Replay::default() }
    }

    /// The buffers this replay gives back: make the folds of a scan with [`Buffers::fold`].
    pub fn buffers(&self) -> Buffers {
        self.buffers.clone()
    }

    /// This replay, given the metadata of every trace it will replay (what a first pass over the
    /// same traces gathered: its hash tables are content-derived, so they are the ones the replay
    /// would gather, and its process ranks and names come from the same lines): the folds of
    /// [`Replay::buffers`] made afterwards leave metadata lines undecoded.
    #[must_use]
    pub fn knowing(mut self, metadata: TraceMetadata) -> Replay {
        self.metadata = metadata;
        self.buffers.metadata_known = true;
        self
    }

    /// Replays the ops of one unit of trace file `trace` (named `path`), whose lines follow line
    /// `line_base` of the file ([`ioscout_read::UnitSpan::line_base`]).
    pub fn consume(&mut self, trace: usize, path: &std::path::Path, fold: EvidenceFold, line_base: u64) {
        let EvidenceFold {
            names,
            files,
            mut ops,
            filling,
            metadata,
            unusable,
            unusable_count,
            first_ts,
            last_end,
            pids,
            commands,
            line: _,
            kinds: _,
            buffers: _,
            previous: _,
            metadata_known: _,
        } = fold;
        for command in commands {
            if !self.commands.contains(&command) {
                self.commands.push(command);
            }
        }
        let name_map: Vec<u32> = names.items.into_iter().map(|name| self.names.intern(name)).collect();
        let file_map: Vec<u32> = files.items.into_iter().map(|key| self.files.intern(key)).collect();
        self.metadata.merge(metadata);
        self.unusable_count += unusable_count;
        for (line, event_id, name, reason) in unusable {
            if self.unusable.len() < KEEP_UNUSABLE {
                self.unusable.push(UnusableCall {
                    trace: path.to_path_buf(),
                    line: line.line(line_base),
                    event_id,
                    name,
                    reason: reason.reason(),
                });
            }
        }
        if let Some(ts) = first_ts {
            self.first_ts = Some(self.first_ts.map_or(ts, |first| first.min(ts)));
        }
        if let Some(end) = last_end {
            self.last_end = Some(self.last_end.map_or(end, |last| last.max(end)));
        }
        for pid in pids {
            if !self.pids.contains(&pid) {
                self.pids.push(pid);
            }
        }
        ops.push(filling);
        let mut previous = Previous::default();
        for chunk in &ops {
            let mut bytes = chunk.as_slice();
            while let Some(mut op) = packed::unpack(&mut bytes, &mut previous) {
                op.name = name_map[op.name as usize];
                op.file = file_map[op.file as usize];
                op.target = op.target.map(|target| file_map[target as usize]);
                self.apply(trace, line_base, &op);
            }
        }
        self.buffers.give_back(ops);
    }

    fn apply(&mut self, trace: usize, line_base: u64, op: &Op) {
        self.ops += 1;
        self.operations.add(op);
        if self.files.items.get(op.file as usize) == Some(&FileKey::None) {
            return;
        }
        // Seconds from a base a million seconds before the first call replayed: differences stay
        // exact to well under a microsecond (they would not from the epoch), times stay positive
        // (Darshan's timers take 0 as "unset").
        let base = *self.base_us.get_or_insert(op.start.saturating_sub(TIME_BASE_BEFORE_US));
        let start = op.start.saturating_sub(base).max(1) as f64 / 1e6;
        let end = op.end.saturating_sub(base).max(1) as f64 / 1e6;
        if op.kind.is_data()
            && !op.failed
            && let Some(bytes) = op.bytes()
        {
            let class = match op.kind {
                OpKind::PosixRead => 0,
                OpKind::PosixWrite => 1,
                OpKind::StdioRead => 2,
                _ => 3,
            };
            self.shapes[class].add(bytes, (op.end - op.start) as f64 / 1e6);
        }
        if self.kept(op.file) == Kept::Excluded {
            let access = self.excluded.get(op.pid, op.file).apply(op);
            // The file's accesses are not kept: they describe files of the log only.
            self.posix_done(op, access, false);
            return;
        }
        let state = self.states.get(op.pid, op.file);
        let before = state_approximations(state);
        let access = if op.kind.is_stdio() {
            state.stdio.get_or_insert_with(Box::default).apply(op, start, end);
            None
        } else {
            state.posix.get_or_insert_with(PosixFile::default).apply(op, start, end)
        };
        if state.first_approximation.is_none() && state_approximations(state) != before {
            state.first_approximation = Some((trace, op.line.line(line_base)));
        }
        if !op.kind.is_stdio() {
            self.posix_done(op, access, true);
        }
    }

    /// What follows a POSIX call beside its state: the sample and (with `file_access`) the
    /// file's accesses for a read or write (its offset and bytes, `access`), the rename for a
    /// rename.
    fn posix_done(&mut self, op: &Op, access: Option<(i64, i64)>, file_access: bool) {
        if let Some((offset, bytes)) = access {
            if let Some(sample) = self.sample.as_mut()
                && matches!(op.kind, OpKind::PosixRead | OpKind::PosixWrite)
            {
                let read = op.kind == OpKind::PosixRead;
                sample.add(op.start, op.end, op.pid, op.file, u64::from(op.file), offset, bytes, read);
            }
            let file = op.file as usize;
            if file_access {
                if self.access.len() <= file {
                    self.access.resize_with(file + 1, || None);
                }
                self.access[file].get_or_insert_with(Box::default).add(
                    offset,
                    bytes,
                    op.kind == OpKind::PosixRead,
                );
            }
        }
        if op.kind == OpKind::PosixRename
            && let Some(target) = op.target
        {
            self.renames.push((op.pid, target, op.file));
        }
    }

    /// How the states of `file` are kept, decided at its first call: small when its path is
    /// known and Darshan leaves it out (a known path does not change: see [`crate::excluded`]).
    fn kept(&mut self, file: u32) -> Kept {
        let index = file as usize;
        if self.kept.len() <= index {
            self.kept.resize(index + 1, Kept::Undecided);
        }
        if self.kept[index] == Kept::Undecided {
            let path = match self.files.items.get(index) {
                Some(FileKey::Path(path)) => Some(path.as_ref()),
                Some(FileKey::Hash(token)) => {
                    self.metadata.tables.files.get(token.as_ref()).map(String::as_str)
                }
                _ => None,
            };
            let excluded = !self.all_in_full && path.is_some_and(crate::excluded_by_darshan);
            self.kept[index] = if excluded { Kept::Excluded } else { Kept::Full };
        }
        self.kept[index]
    }

    /// Whether the states of `file` are kept small ([`crate::excluded`]).
    pub(crate) fn is_excluded(&self, file: u32) -> bool {
        self.kept.get(file as usize) == Some(&Kept::Excluded)
    }

    /// This replay, keeping every state in full (the reference the tests hold
    /// [`crate::excluded`] to).
    #[cfg(test)]
    pub(crate) fn all_in_full(mut self) -> Replay {
        self.all_in_full = true;
        self
    }
}

fn state_approximations(state: &FileState) -> u64 {
    state.posix.as_ref().map_or(0, |posix| posix.approximations.total())
        + state.stdio.as_ref().map_or(0, |stdio| stdio.approximations.total())
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The interner numbers keys as a map from key to first position would: the same key
        /// (borrowed or owned) its first number, a hash and a path of the same text apart.
        #[test]
        fn file_keys_are_numbered_as_a_map_numbers_them(
            keys in proptest::collection::vec((0u8..3, 0u8..6, proptest::bool::ANY), 0..200)
        ) {
            let mut interner = FileInterner::default();
            let mut model: std::collections::HashMap<FileKey, u32> = std::collections::HashMap::new();
            for (kind, text, borrowed) in keys {
                let text = format!("/f{text}");
                let key = match kind {
                    0 => FileKey::Hash(text.as_str().into()),
                    1 => FileKey::Path(text.as_str().into()),
                    _ => FileKey::None,
                };
                let next = model.len() as u32;
                let expected = *model.entry(key.clone()).or_insert(next);
                let found = if borrowed {
                    let key = match kind {
                        0 => KeyRef::Hash(text.as_str().into()),
                        1 => KeyRef::Path(text.as_str().into()),
                        _ => KeyRef::None,
                    };
                    interner.intern_ref(&key)
                } else {
                    interner.intern(key.clone())
                };
                proptest::prop_assert_eq!(found, expected);
                proptest::prop_assert_eq!(interner.items.get(found as usize), Some(&key));
            }
        }
    }

    /// A state as it comes out: (file, process) and its first approximation.
    type SortedState = ((u32, i64), Option<(usize, u64)>);

    /// Over several chunks, each key finds its own state again, and the states come out in
    /// (file, process) order, each once, with what was put in it.
    #[test]
    fn states_span_chunks_and_come_out_sorted_and_whole() {
        let mut table: StateTable = StateTable::default();
        let mut expected = std::collections::BTreeMap::new();
        for step in 0..5000u64 {
            // Keys repeat, out of order, and outnumber a chunk several times over.
            let key = ((step * 7919 % 43) as i64 - 5, (step * 104_729 % 61) as u32);
            let state = table.get(key.0, key.1);
            let calls = state.first_approximation.map_or(0, |(_, calls)| calls);
            state.first_approximation = Some((key.1 as usize, calls + 1));
            *expected.entry((key.1, key.0)).or_insert(0u64) += 1;
        }
        assert!(expected.len() > 4 * STATES_PER_CHUNK);
        let found: Vec<SortedState> = table
            .into_sorted_by_file()
            .into_iter()
            .map(|((pid, file), state)| ((file, pid), state.first_approximation))
            .collect();
        let wanted: Vec<SortedState> = expected
            .into_iter()
            .map(|((file, pid), calls)| ((file, pid), Some((file as usize, calls))))
            .collect();
        assert_eq!(found, wanted);
    }

    /// The states come out ordered by file and then process, each with what was put in it.
    #[test]
    fn states_come_out_sorted_and_whole() {
        let mut table: StateTable = StateTable::default();
        let keys = [(7, 3), (2, 9), (7, 1), (-1, 4), (2, 0), (7, 3), (100, 2), (2, 9), (-1, 9), (2, 3)];
        for (pid, file) in keys {
            let state = table.get(pid, file);
            let calls = state.first_approximation.map_or(0, |(_, calls)| calls);
            state.first_approximation = Some((usize::try_from(pid + 10).unwrap_or(0), calls + 1));
        }
        let sorted = table.into_sorted_by_file();
        let found: Vec<(i64, u32)> = sorted.iter().map(|(key, _)| *key).collect();
        assert_eq!(found, [(2, 0), (7, 1), (100, 2), (2, 3), (7, 3), (-1, 4), (-1, 9), (2, 9)]);
        for ((pid, file), state) in &sorted {
            let expected_calls = keys.iter().filter(|key| **key == (*pid, *file)).count() as u64;
            assert_eq!(
                state.first_approximation,
                Some((usize::try_from(pid + 10).unwrap_or(0), expected_calls))
            );
        }
    }
}
