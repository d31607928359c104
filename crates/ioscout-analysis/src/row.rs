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

use ioscout_model::{IoCategory, RawValue, io_category};
use rustc_hash::FxHashMap;

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
    name: &str,
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
    if name.contains("open") {
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
    /// Class ids per (category, name) key ([`class_key`]), one per path-flag value.
    cache: FxHashMap<Box<[u8]>, [u32; 16]>,
    /// The key of the last call, reused so that a lookup allocates nothing.
    key: Vec<u8>,
    /// The key, path flags and class ids of the last call that was looked up (rows come in runs
    /// of one call), so that a repeat costs a comparison instead of a hash.
    last: (Vec<u8>, [u32; 16]),
    classes: Vec<Class>,
    keys: Vec<ClassKey>,
}

/// The lookup key of (`category`, `name`) into `key`: the category's length, the category, the
/// name. One key, so that a row costs one hash and one comparison.
pub(crate) fn class_key(key: &mut Vec<u8>, category: &[u8], name: &[u8]) {
    key.clear();
    key.extend_from_slice(&category.len().to_le_bytes());
    key.extend_from_slice(category);
    key.extend_from_slice(name);
}

/// Whether `key` is the [`class_key`] of (`category`, `name`), compared in place (a repeat of
/// the last row's call costs no copy).
fn is_class_key(key: &[u8], category: &[u8], name: &[u8]) -> bool {
    let length = category.len().to_le_bytes();
    key.len() == length.len() + category.len() + name.len()
        && key.starts_with(&length)
        && key[length.len()..length.len() + category.len()] == *category
        && key[length.len() + category.len()..] == *name
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
        Classifier {
            preset,
            slot_layers,
            cache: FxHashMap::default(),
            key: Vec::new(),
            last: (Vec::new(), [UNSET; 16]),
            classes: Vec::new(),
            keys: Vec::new(),
        }
    }

    /// The class id of a row with raw category `category`, function `name` and path flags
    /// `flags`.
    pub fn classify(&mut self, category: &str, name: &str, flags: u8) -> u32 {
        let flags = flags & 15;
        if is_class_key(&self.last.0, category.as_bytes(), name.as_bytes()) {
            let known = self.last.1[usize::from(flags)];
            if known != UNSET {
                return known;
            }
        }
        class_key(&mut self.key, category.as_bytes(), name.as_bytes());
        let ids = match self.cache.get_mut(self.key.as_slice()) {
            Some(ids) => ids,
            None => self.cache.entry(self.key.as_slice().into()).or_insert([UNSET; 16]),
        };
        let slot = &mut ids[usize::from(flags)];
        if *slot == UNSET {
            *slot = self.classes.len() as u32;
            self.classes.push(compute_class(self.preset, &self.slot_layers, category, name, flags));
            self.keys.push((category.into(), name.into(), flags));
        }
        let id = *slot;
        self.last.0.clone_from(&self.key);
        self.last.1 = *ids;
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
        /// The in-place comparison says what building the key and comparing it says, however
        /// the bytes split between category and name.
        #[test]
        fn a_key_is_recognised_in_place_exactly(
            category in "[ab]{0,3}", name in "[ab]{0,3}", other_category in "[ab]{0,3}", other_name in "[ab]{0,3}",
        ) {
            let mut key = Vec::new();
            class_key(&mut key, category.as_bytes(), name.as_bytes());
            let mut other = Vec::new();
            class_key(&mut other, other_category.as_bytes(), other_name.as_bytes());
            prop_assert_eq!(is_class_key(&key, other_category.as_bytes(), other_name.as_bytes()), key == other);
            prop_assert!(is_class_key(&key, category.as_bytes(), name.as_bytes()));
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
        assert_eq!(row_size(None, Some(&number("4096")), None, &read, "read"), Some(4096));
        assert_eq!(row_size(None, Some(&number("0")), None, &read, "read"), None);
        assert_eq!(row_size(None, Some(&number("-1")), None, &read, "read"), None);
        assert_eq!(row_size(None, Some(&number("8")), None, &lseek, "lseek"), None);
        assert_eq!(row_size(Some(&number("10")), Some(&number("8")), None, &read, "read"), Some(10));
        assert_eq!(row_size(None, None, Some(&number("100")), &reader, "NPZReader.open"), None);
        assert_eq!(row_size(None, None, Some(&number("100")), &sample, "NPZReader.get_sample"), Some(100));
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
