//! The event-to-row rules: how one complete event becomes one analysis row (DFAnalyzer's
//! `postread_trace`, `shared/research/analysis-semantics.md` §3.3).
//!
//! # Overview
//!
//! - the category is lower-cased; POSIX and STDIO rows gain suffixes from their file's path
//!   (`/data` → `_reader`, `/checkpoint` → `_checkpoint`, `/lustre` → `_lustre`, `/ssd` → `_ssd`,
//!   cumulative, in that order: `posix_reader_lustre`);
//! - the I/O category comes from the function name for POSIX/STDIO rows, else it is `Other`;
//! - the size is `size_sum` when present; else `ret` when positive for POSIX/STDIO reads and
//!   writes; else `image_size` when positive for other rows whose name does not contain `open`;
//!   a size of 0 counts as no size;
//! - rows on system paths and DLIO's set-up functions are ignored ([`ignored_path`],
//!   [`ignored_name`]), after the raw statistics are taken.
//!
//! [`Classifier`] caches the layer slots of each (category, name, path suffixes) it has seen, so
//! the per-event cost is a few hash lookups.

use std::hash::Hasher;

use hashbrown::HashTable;
use ioscout_model::{IoCategory, RawValue, io_category};
use rustc_hash::FxHasher;

use crate::preset::Preset;

/// Path suffix rules, in the order DFAnalyzer applies them.
const PATH_SUFFIXES: [(&str, &str); 4] =
    [("/data", "_reader"), ("/checkpoint", "_checkpoint"), ("/lustre", "_lustre"), ("/ssd", "_ssd")];

/// Paths DFAnalyzer drops.
const IGNORED_PATH_PARTS: &[&str] = &[
    "/dev/",
    "/etc/",
    "/gapps/python",
    "/lib/python",
    "/proc/",
    "/software/",
    "/sys/",
    "/usr/lib",
    "/usr/tce/backend",
    "/usr/tce/packages",
    "/venv",
    "__pycache__",
];

/// Function names DFAnalyzer drops.
const IGNORED_NAMES: &[&str] =
    &["DLIOBenchmark.__init__", "DLIOBenchmark.initialize", "FileStorage.__init__", "TorchDataset.__init__"];

/// Function name parts DFAnalyzer drops.
const IGNORED_NAME_PARTS: &[&str] = &[
    "Checkpointing.__init__",
    "Checkpointing.finalize",
    "Checkpointing.get_tensor",
    "DataLoader.__init__",
    "DataLoader.finalize",
    "DataLoader.get_tensor",
    "DataLoader.next",
    "Framework.get_loader",
    "Framework.init_loader",
    "Framework.is_nativeio_available",
    "Framework.trace_object",
    "Reader.__init__",
    "Reader.load_index",
    "Reader.next",
    "Reader.read_index",
    ".save_state",
    "checkpoint_end_",
    "checkpoint_start_",
];

/// The path-suffix bits of a file path (bit `i` for `PATH_SUFFIXES[i]`).
pub fn path_flags(path: &str) -> u8 {
    let mut flags = 0;
    for (bit, (part, _)) in PATH_SUFFIXES.iter().enumerate() {
        if path.contains(part) {
            flags |= 1 << bit;
        }
    }
    flags
}

/// Whether rows on `path` are ignored.
pub fn ignored_path(path: &str) -> bool {
    IGNORED_PATH_PARTS.iter().any(|part| path.contains(part))
}

/// Whether rows of function `name` are ignored.
pub fn ignored_name(name: &str) -> bool {
    IGNORED_NAMES.contains(&name) || IGNORED_NAME_PARTS.iter().any(|part| name.contains(part))
}

/// Whether a lower-cased category is POSIX or STDIO.
pub fn is_posix_category(category: &str) -> bool {
    category.contains("posix") || category.contains("stdio")
}

/// The row category: `category` lower-cased, with the path suffixes of `flags` for POSIX/STDIO
/// rows.
pub fn row_category(category: &str, flags: u8) -> String {
    let mut text = category.to_ascii_lowercase();
    if is_posix_category(&text) {
        for (bit, (_, suffix)) in PATH_SUFFIXES.iter().enumerate() {
            if flags & (1 << bit) != 0 {
                text.push_str(suffix);
            }
        }
    }
    text
}

/// A positive integer value, or `None`.
fn positive(value: Option<&RawValue<'_>>) -> Option<u64> {
    let value = value?.as_i64()?;
    u64::try_from(value).ok().filter(|value| *value > 0)
}

/// The size of a row (see the module documentation), or `None`.
pub fn row_size(
    size_sum: Option<&RawValue<'_>>,
    ret: Option<&RawValue<'_>>,
    image_size: Option<&RawValue<'_>>,
    class: &Class,
) -> Option<u64> {
    if let Some(value) = size_sum {
        return positive(Some(value));
    }
    if class.posix {
        if matches!(class.category, IoCategory::Read | IoCategory::Write) {
            return positive(ret);
        }
        return None;
    }
    if class.opens {
        return None;
    }
    positive(image_size)
}

/// What the classifier knows about a (category, name, path flags) triple.
#[derive(Clone, Debug)]
pub struct Class {
    /// Slots the row counts in.
    pub slots: Box<[u16]>,
    /// The row is POSIX or STDIO.
    pub posix: bool,
    /// I/O category (`Other` for rows that are not POSIX/STDIO).
    pub category: IoCategory,
    /// The row's name is ignored.
    pub ignored: bool,
    /// The row's name contains `open` (such a row other than POSIX/STDIO has no size).
    pub opens: bool,
    /// The row counts in an asynchronous layer.
    pub asynchronous: bool,
    /// The row is in the compute layer.
    pub compute: bool,
    /// The row is in the epoch layer.
    pub epoch: bool,
}

/// A slot's layer and, for a derived metric, its test.
type SlotTest = (usize, Option<fn(IoCategory, &str) -> bool>);

/// The key of a class: raw category, function name, path flags.
pub type ClassKey = (Box<str>, Box<str>, u8);

/// Classifies rows into slots, caching by (category, name, path flags). Class ids are local to
/// one classifier; [`Classifier::key`] gives the key to translate them into another's.
#[derive(Debug)]
pub struct Classifier<'p> {
    preset: &'p Preset,
    slot_layers: Vec<SlotTest>,
    /// Class ids per (category, name), one per path-flag value.
    cache: PairMemo<[u32; 16]>,
    classes: Vec<Class>,
    keys: Vec<ClassKey>,
}

/// Values by (category, name) pair, found from the two byte strings as the line holds them: no
/// key is built or copied for a lookup, and a repeat of the last pair found (rows come in runs
/// of one call) costs two comparisons instead of a hash.
#[derive(Debug)]
pub struct PairMemo<V> {
    /// Indexes into `entries`, hashed by [`pair_hash`].
    table: HashTable<u32>,
    entries: Vec<PairEntry<V>>,
    /// The entry found or added last.
    last: Option<u32>,
}

/// A (category, name) pair and its value.
type PairEntry<V> = (Box<[u8]>, Box<[u8]>, V);

impl<V> Default for PairMemo<V> {
    fn default() -> PairMemo<V> {
        PairMemo { table: HashTable::new(), entries: Vec::new(), last: None }
    }
}

/// The hash of a (category, name) pair: the category's length keeps `("ab", "c")` and
/// `("a", "bc")` apart.
fn pair_hash(category: &[u8], name: &[u8]) -> u64 {
    let mut hasher = FxHasher::default();
    hasher.write_usize(category.len());
    hasher.write(category);
    hasher.write(name);
    hasher.finish()
}

impl<V> PairMemo<V> {
    /// The index of the entry for (`category`, `name`), if there is one.
    #[inline]
    pub fn find(&mut self, category: &[u8], name: &[u8]) -> Option<u32> {
        if let Some(last) = self.last
            && let Some((known_category, known_name, _)) = self.entries.get(last as usize)
            && **known_name == *name
            && **known_category == *category
        {
            return Some(last);
        }
        let entries = &self.entries;
        let found = self
            .table
            .find(pair_hash(category, name), |&index| {
                let (known_category, known_name, _) = &entries[index as usize];
                **known_name == *name && **known_category == *category
            })
            .copied();
        if found.is_some() {
            self.last = found;
        }
        found
    }

    /// Adds the entry for (`category`, `name`), which [`PairMemo::find`] did not find, and
    /// returns its index.
    pub fn add(&mut self, category: &[u8], name: &[u8], value: V) -> u32 {
        let index = self.entries.len() as u32;
        self.entries.push((category.into(), name.into(), value));
        let entries = &self.entries;
        self.table.insert_unique(pair_hash(category, name), index, |&known| {
            let (known_category, known_name, _) = &entries[known as usize];
            pair_hash(known_category, known_name)
        });
        self.last = Some(index);
        index
    }

    /// The value of entry `index`.
    pub fn value_mut(&mut self, index: u32) -> &mut V {
        &mut self.entries[index as usize].2
    }
}

/// No class yet.
const UNSET: u32 = u32::MAX;

impl<'p> Classifier<'p> {
    /// A classifier for `preset`.
    pub fn new(preset: &'p Preset) -> Classifier<'p> {
        let slot_layers = preset
            .slots()
            .into_iter()
            .map(|slot| (slot.layer, slot.derived.map(|derived| derived.test)))
            .collect();
        Classifier { preset, slot_layers, cache: PairMemo::default(), classes: Vec::new(), keys: Vec::new() }
    }

    /// The class id of a row with raw category `category`, function `name` and path flags
    /// `flags`.
    pub fn classify(&mut self, category: &str, name: &str, flags: u8) -> u32 {
        let flags = usize::from(flags & 15);
        let entry = match self.cache.find(category.as_bytes(), name.as_bytes()) {
            Some(entry) => entry,
            None => self.cache.add(category.as_bytes(), name.as_bytes(), [UNSET; 16]),
        };
        let known = self.cache.value_mut(entry)[flags];
        if known != UNSET {
            return known;
        }
        let id = self.classes.len() as u32;
        self.classes.push(compute_class(self.preset, &self.slot_layers, category, name, flags as u8));
        self.keys.push((category.into(), name.into(), flags as u8));
        self.cache.value_mut(entry)[flags] = id;
        id
    }

    /// The class with id `id`.
    pub fn class(&self, id: u32) -> &Class {
        &self.classes[id as usize]
    }

    /// The key of class `id`.
    pub fn key(&self, id: u32) -> &ClassKey {
        &self.keys[id as usize]
    }

    /// Number of classes.
    pub fn len(&self) -> usize {
        self.classes.len()
    }

    /// Whether no class was made yet.
    pub fn is_empty(&self) -> bool {
        self.classes.is_empty()
    }
}

fn compute_class(preset: &Preset, slot_layers: &[SlotTest], category: &str, name: &str, flags: u8) -> Class {
    let row = row_category(category, flags);
    let posix = {
        let lower = category.to_ascii_lowercase();
        lower == "posix" || lower == "stdio"
    };
    let io = if posix { io_category(name) } else { IoCategory::Other };
    let in_layer: Vec<bool> = preset.layers.iter().map(|layer| layer.matcher.matches(&row, name)).collect();
    let mut slots = Vec::new();
    for (index, (layer, test)) in slot_layers.iter().enumerate() {
        if in_layer[*layer] && test.is_none_or(|test| test(io, name)) {
            slots.push(index as u16);
        }
    }
    let asynchronous =
        preset.layers.iter().zip(&in_layer).any(|(layer, inside)| *inside && layer.asynchronous);
    Class {
        slots: slots.into_boxed_slice(),
        posix,
        category: io,
        ignored: ignored_name(name),
        opens: name.contains("open"),
        asynchronous,
        compute: preset.compute.is_some_and(|index| in_layer[index]),
        epoch: preset.epoch.is_some_and(|index| in_layer[index]),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// The memo finds what a map keyed by the pair holds, however the bytes split between
        /// category and name, and whichever pair was found last.
        #[test]
        fn the_pair_memo_finds_what_a_map_holds(
            pairs in proptest::collection::vec(("[ab]{0,3}", "[ab]{0,3}"), 0..40),
        ) {
            let mut memo = PairMemo::default();
            let mut model = std::collections::HashMap::new();
            for (step, (category, name)) in pairs.iter().enumerate() {
                let found = memo.find(category.as_bytes(), name.as_bytes());
                let expected = model.get(&(category.clone(), name.clone())).copied();
                prop_assert_eq!(found.map(|index| *memo.value_mut(index)), expected);
                if found.is_none() {
                    let index = memo.add(category.as_bytes(), name.as_bytes(), step);
                    prop_assert_eq!(*memo.value_mut(index), step);
                    model.insert((category.clone(), name.clone()), step);
                }
            }
        }
    }

    #[test]
    fn posix_rows_gain_path_suffixes_in_order() {
        let flags = path_flags("/p/lustre/user/data/train/img_1.npz");
        assert_eq!(row_category("POSIX", flags), "posix_reader_lustre");
        assert_eq!(row_category("reader", flags), "reader");
        assert_eq!(row_category("STDIO", path_flags("/ssd/checkpoint/x")), "stdio_checkpoint_ssd");
    }

    #[test]
    fn sizes_follow_size_sum_then_ret_then_image_size() {
        let preset =
            Preset::named(crate::PresetName::Dlio, &BTreeSet::new()).unwrap_or_else(|| panic!("absent"));
        let mut classifier = Classifier::new(&preset);
        let mut class = |category, name| {
            let id = classifier.classify(category, name, 0);
            classifier.class(id).clone()
        };
        let read = class("POSIX", "read");
        let lseek = class("POSIX", "lseek");
        let reader = class("reader", "NPZReader.open");
        let sample = class("reader", "NPZReader.get_sample");
        let number = |text| RawValue::Number(text);
        assert_eq!(row_size(None, Some(&number("4096")), None, &read), Some(4096));
        assert_eq!(row_size(None, Some(&number("0")), None, &read), None);
        assert_eq!(row_size(None, Some(&number("-1")), None, &read), None);
        assert_eq!(row_size(None, Some(&number("8")), None, &lseek), None);
        assert_eq!(row_size(Some(&number("10")), Some(&number("8")), None, &read), Some(10));
        assert_eq!(row_size(None, None, Some(&number("100")), &reader), None);
        assert_eq!(row_size(None, None, Some(&number("100")), &sample), Some(100));
    }

    #[test]
    fn classes_hold_slots_and_roles() {
        let preset =
            Preset::named(crate::PresetName::Dlio, &BTreeSet::new()).unwrap_or_else(|| panic!("absent"));
        let mut classifier = Classifier::new(&preset);
        let flags = path_flags("/p/data/x");
        let id = classifier.classify("POSIX", "pread64", flags);
        assert_eq!(classifier.classify("POSIX", "pread64", flags), id);
        let class = classifier.class(id).clone();
        let names: Vec<String> =
            class.slots.iter().map(|slot| preset.slots()[*slot as usize].name(&preset)).collect();
        assert_eq!(
            names,
            ["posix", "posix_data", "posix_read", "reader_posix", "reader_posix_data", "reader_posix_read"]
        );
        assert!(class.asynchronous && class.posix && !class.compute);
        let compute = classifier.classify("compute", "TorchFramework.compute", 0);
        assert!(classifier.class(compute).compute);
        let init = classifier.classify("reader", "Reader.__init__", 0);
        assert!(classifier.class(init).ignored);
        assert_eq!(classifier.key(init).1.as_ref(), "Reader.__init__");
        assert!(ignored_path("/usr/lib/python3/x.so"));
    }
}
