//! Layer presets: which events make up each layer of an analysis, how layers nest, which are
//! asynchronous (may hide behind compute) and which carry bytes.
//!
//! # Overview
//!
//! A [`Preset`] is DFAnalyzer's `layer_defs` for one kind of workload
//! (`shared/research/analysis-semantics.md` §3.4): `posix` (POSIX and STDIO calls only), `dlio`
//! (DLIO with AI-logging categories), `dlio-prev` (DLIO's older categories) and `generic` (one
//! layer per category, dotted categories nested). Each [`Layer`] tests a row's lower-cased,
//! path-suffixed category and its function name; some layers also split into derived metrics
//! ([`Derived`]: `read`, `write`, `metadata`, `open`, ...). [`Preset::slots`] numbers every
//! (layer, derived) pair: the analysis fold accumulates one cell per slot.

use std::collections::BTreeSet;

use ioscout_model::IoCategory;

use crate::row::is_posix_category;

/// A derived metric of a layer: a subset of its rows.
#[derive(Clone, Copy, Debug)]
pub struct Derived {
    /// Name, as in DFAnalyzer's column names (`posix_read_time_sum`).
    pub name: &'static str,
    /// Whether a row belongs to it, from its I/O category and function name.
    pub test: fn(IoCategory, &str) -> bool,
}

/// DFAnalyzer's `DERIVED_POSIX_METRICS`.
pub const POSIX_DERIVED: &[Derived] = &[
    Derived { name: "data", test: |category, _| matches!(category, IoCategory::Read | IoCategory::Write) },
    Derived { name: "read", test: |category, _| category == IoCategory::Read },
    Derived { name: "write", test: |category, _| category == IoCategory::Write },
    Derived { name: "metadata", test: |category, _| category == IoCategory::Metadata },
    Derived {
        name: "close",
        test: |category, name| {
            category == IoCategory::Metadata && name.contains("close") && !name.contains("dir")
        },
    },
    Derived {
        name: "open",
        test: |category, name| {
            category == IoCategory::Metadata && name.contains("open") && !name.contains("dir")
        },
    },
    Derived {
        name: "seek",
        test: |category, name| category == IoCategory::Metadata && name.contains("seek"),
    },
    Derived {
        name: "stat",
        test: |category, name| category == IoCategory::Metadata && name.contains("stat"),
    },
    Derived { name: "other", test: |category, _| category == IoCategory::Other },
    Derived { name: "sync", test: |category, _| category == IoCategory::Sync },
];

/// Derived metrics of DLIO's data loader layer.
const DATA_LOADER_DERIVED: &[Derived] = &[
    Derived { name: "init", test: |_, name| name.contains("init") },
    Derived { name: "item", test: |_, name| name.contains("item") },
];

/// Derived metrics of DLIO's reader layer.
const READER_DERIVED: &[Derived] = &[
    Derived { name: "close", test: |_, name| name.rsplit('.').next() == Some("close") && name.contains('.') },
    Derived { name: "open", test: |_, name| name.rsplit('.').next() == Some("open") && name.contains('.') },
    Derived { name: "preprocess", test: |_, name| name.contains("preprocess") },
    Derived { name: "sample", test: |_, name| name.contains(".get_sample") },
];

/// How a layer selects rows.
#[derive(Clone, Debug)]
pub enum Matcher {
    /// Every row.
    All,
    /// A fixed test of the lower-cased, suffixed category and the function name.
    Test(fn(&str, &str) -> bool),
    /// The category or one below it in a dotted hierarchy (`ai.data` holds `ai.data.io`).
    CategoryTree(String),
}

impl Matcher {
    /// Whether the row with this category and function name belongs to the layer.
    pub fn matches(&self, category: &str, name: &str) -> bool {
        match self {
            Matcher::All => true,
            Matcher::Test(test) => test(category, name),
            Matcher::CategoryTree(prefix) => {
                category == prefix
                    || (category.len() > prefix.len()
                        && category.starts_with(prefix.as_str())
                        && category.as_bytes()[prefix.len()] == b'.')
            }
        }
    }
}

/// One layer of a preset.
#[derive(Clone, Debug)]
pub struct Layer {
    /// Name (`reader_posix`).
    pub name: String,
    /// Name for people (`POSIX - Reader`).
    pub label: String,
    /// Index of the parent layer.
    pub parent: Option<usize>,
    /// Row selection.
    pub matcher: Matcher,
    /// Derived metrics.
    pub derived: &'static [Derived],
    /// Whether the layer's bytes are reported (DFAnalyzer reports sizes for POSIX layers only).
    pub keeps_size: bool,
    /// Whether the layer may run behind compute (its unoverlapped time is measured).
    pub asynchronous: bool,
}

/// A (layer, derived metric) pair that the analysis accumulates.
#[derive(Clone, Copy, Debug)]
pub struct Slot {
    /// Layer index.
    pub layer: usize,
    /// Derived metric of the layer, or `None` for all its rows.
    pub derived: Option<&'static Derived>,
}

impl Slot {
    /// The column prefix: `posix` or `posix_read`.
    pub fn name(&self, preset: &Preset) -> String {
        let layer = &preset.layers[self.layer].name;
        match self.derived {
            Some(derived) => format!("{layer}_{}", derived.name),
            None => layer.clone(),
        }
    }
}

/// A set of layers for one kind of workload.
#[derive(Clone, Debug)]
pub struct Preset {
    /// Which preset it is (never [`PresetName::Auto`]: `auto` chooses one of the others).
    pub name: PresetName,
    /// Layers; the first is the time boundary.
    pub layers: Vec<Layer>,
    /// The compute layer, when the preset has one (the reference for overlap).
    pub compute: Option<usize>,
    /// The layer whose events delimit epochs.
    pub epoch: Option<usize>,
}

/// The names of the built-in presets.
pub const PRESET_NAMES: &[&str] = &["posix", "dlio", "dlio-prev", "generic"];

/// A layer preset as a user names it: one of the presets, or `auto` to choose from the trace's
/// categories. Spelled as on the command line (`dlio-prev`) in JSON, MCP parameters and clap.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum PresetName {
    /// Chosen from the trace's categories.
    #[default]
    Auto,
    /// POSIX calls only.
    Posix,
    /// DLIO with AI-logging categories.
    Dlio,
    /// DLIO's older categories.
    DlioPrev,
    /// One layer per category.
    Generic,
}

impl PresetName {
    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            PresetName::Auto => "auto",
            PresetName::Posix => "posix",
            PresetName::Dlio => "dlio",
            PresetName::DlioPrev => "dlio-prev",
            PresetName::Generic => "generic",
        }
    }

    /// The preset named `name`, if any.
    pub fn parse(name: &str) -> Option<PresetName> {
        [PresetName::Auto, PresetName::Posix, PresetName::Dlio, PresetName::DlioPrev, PresetName::Generic]
            .into_iter()
            .find(|preset| preset.name() == name)
    }
}

impl std::fmt::Display for PresetName {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.name())
    }
}

struct LayerSpec {
    name: &'static str,
    label: &'static str,
    parent: Option<&'static str>,
    test: fn(&str, &str) -> bool,
    derived: &'static [Derived],
}

const ASYNC_LAYERS: &[&str] = &["data_loader", "data_loader_fork", "reader", "reader_posix", "posix"];
const SIZE_LAYERS: &[&str] = &["posix", "reader_posix", "checkpoint_posix"];

/// The layers both DLIO presets share.
const CHECKPOINT_LAYER: LayerSpec = LayerSpec {
    name: "checkpoint",
    label: "Checkpoint",
    parent: Some("epoch"),
    test: |category, _| category == "checkpoint",
    derived: &[],
};

/// All POSIX and STDIO calls (every preset but `generic`).
const POSIX_LAYER: LayerSpec = LayerSpec {
    name: "posix",
    label: "POSIX - All",
    parent: None,
    test: |category, _| is_posix_category(category),
    derived: POSIX_DERIVED,
};

const READER_POSIX_LAYER: LayerSpec = LayerSpec {
    name: "reader_posix",
    label: "POSIX - Reader",
    parent: Some("reader"),
    test: |category, _| is_posix_category(category) && category.contains("_reader"),
    derived: POSIX_DERIVED,
};

const CHECKPOINT_POSIX_LAYER: LayerSpec = LayerSpec {
    name: "checkpoint_posix",
    label: "POSIX - Checkpoint",
    parent: Some("checkpoint"),
    test: |category, _| is_posix_category(category) && category.contains("_checkpoint"),
    derived: POSIX_DERIVED,
};

const DLIO: &[LayerSpec] = &[
    LayerSpec { name: "app", label: "App", parent: None, test: |_, name| name == "ai_root", derived: &[] },
    LayerSpec {
        name: "training",
        label: "Training",
        parent: Some("app"),
        test: |category, name| category == "pipeline" && name == "train",
        derived: &[],
    },
    LayerSpec {
        name: "epoch",
        label: "Epoch",
        parent: Some("training"),
        test: |category, name| category == "pipeline" && name.starts_with("epoch"),
        derived: &[],
    },
    LayerSpec {
        name: "compute",
        label: "Compute",
        parent: Some("epoch"),
        test: |category, _| category == "compute",
        derived: &[],
    },
    LayerSpec {
        name: "fetch_data",
        label: "Fetch Data",
        parent: Some("epoch"),
        test: |_, name| name == "fetch.iter",
        derived: &[],
    },
    CHECKPOINT_LAYER,
    LayerSpec {
        name: "comm",
        label: "Communication",
        parent: Some("epoch"),
        test: |category, _| category == "comm",
        derived: &[],
    },
    LayerSpec {
        name: "device",
        label: "Device",
        parent: Some("epoch"),
        test: |category, _| category == "device",
        derived: &[],
    },
    LayerSpec {
        name: "data_loader",
        label: "DLIO Data Loader",
        parent: Some("fetch_data"),
        test: |category, _| matches!(category, "data" | "data_loader" | "dataloader"),
        derived: DATA_LOADER_DERIVED,
    },
    LayerSpec {
        name: "data_loader_fork",
        label: "DLIO Data Loader Fork",
        parent: Some("fetch_data"),
        test: |category, name| category == "posix" && name == "fork",
        derived: &[],
    },
    LayerSpec {
        name: "reader",
        label: "Reader",
        parent: Some("data_loader"),
        test: |category, name| category == "reader" || name == "preprocess",
        derived: READER_DERIVED,
    },
    POSIX_LAYER,
    READER_POSIX_LAYER,
    CHECKPOINT_POSIX_LAYER,
];

const DLIO_PREV: &[LayerSpec] = &[
    LayerSpec {
        name: "app",
        label: "App",
        parent: None,
        test: |_, name| matches!(name, "DLIOBenchmark.initialize" | "DLIOBenchmark.run"),
        derived: &[],
    },
    LayerSpec {
        name: "training",
        label: "Training",
        parent: Some("app"),
        test: |_, name| name == "DLIOBenchmark.run",
        derived: &[],
    },
    LayerSpec {
        name: "epoch",
        label: "Epoch",
        parent: Some("training"),
        test: |_, name| name == "DLIOBenchmark._train",
        derived: &[],
    },
    LayerSpec {
        name: "compute",
        label: "Compute",
        parent: Some("epoch"),
        test: |category, _| category == "ai_framework",
        derived: &[],
    },
    LayerSpec {
        name: "fetch_data",
        label: "Fetch Data",
        parent: Some("epoch"),
        test: |_, name| matches!(name, "<module>.iter" | "fetch-data.iter" | "loop.iter"),
        derived: &[],
    },
    CHECKPOINT_LAYER,
    LayerSpec {
        name: "data_loader",
        label: "Data Loader",
        parent: Some("fetch_data"),
        test: |category, name| category == "data_loader" && !matches!(name, "loop.iter" | "loop.yield"),
        derived: DATA_LOADER_DERIVED,
    },
    LayerSpec {
        name: "data_loader_fork",
        label: "Data Loader Fork",
        parent: Some("fetch_data"),
        test: |category, name| category == "posix" && name == "fork",
        derived: &[],
    },
    LayerSpec {
        name: "reader",
        label: "Reader",
        parent: Some("data_loader"),
        test: |category, _| category == "reader",
        derived: READER_DERIVED,
    },
    POSIX_LAYER,
    READER_POSIX_LAYER,
    CHECKPOINT_POSIX_LAYER,
];

const POSIX: &[LayerSpec] = &[POSIX_LAYER];

impl Preset {
    /// The built-in preset `name`; `generic` needs the trace's lower-cased categories (see
    /// [`Preset::generic`]). `None` for `auto`, which names no preset until a trace chooses one.
    pub fn named(name: PresetName, categories: &BTreeSet<String>) -> Option<Preset> {
        let specs = match name {
            PresetName::Posix => POSIX,
            PresetName::Dlio => DLIO,
            PresetName::DlioPrev => DLIO_PREV,
            PresetName::Generic => return Some(Preset::generic(categories)),
            PresetName::Auto => return None,
        };
        Some(Preset::from_specs(name, specs))
    }

    /// Whether `name` names a preset that needs the trace's categories before the scan.
    pub fn needs_categories(name: PresetName) -> bool {
        name == PresetName::Generic
    }

    fn from_specs(name: PresetName, specs: &[LayerSpec]) -> Preset {
        let index_of = |wanted: &str| specs.iter().position(|spec| spec.name == wanted);
        let layers: Vec<Layer> = specs
            .iter()
            .map(|spec| Layer {
                name: spec.name.to_string(),
                label: spec.label.to_string(),
                parent: spec.parent.and_then(index_of),
                matcher: Matcher::Test(spec.test),
                derived: spec.derived,
                keeps_size: SIZE_LAYERS.contains(&spec.name),
                asynchronous: name != PresetName::Posix && ASYNC_LAYERS.contains(&spec.name),
            })
            .collect();
        Preset { name, compute: index_of("compute"), epoch: index_of("epoch"), layers }
    }

    /// The `generic` preset: `app` (every row) and one layer per category other than
    /// `dftracer`, nested by dots (`ai.data.io` under `ai.data` under `ai`).
    pub fn generic(categories: &BTreeSet<String>) -> Preset {
        let mut names: BTreeSet<String> = BTreeSet::new();
        for category in categories {
            if category == "dftracer" || category.is_empty() {
                continue;
            }
            let mut prefix = String::new();
            for part in category.split('.') {
                if !prefix.is_empty() {
                    prefix.push('.');
                }
                prefix.push_str(part);
                names.insert(prefix.clone());
            }
        }
        let mut layers = vec![Layer {
            name: "app".into(),
            label: "App".into(),
            parent: None,
            matcher: Matcher::All,
            derived: &[],
            keeps_size: false,
            asynchronous: false,
        }];
        for name in &names {
            let parent = match name.rfind('.') {
                Some(dot) => layers.iter().position(|layer| layer.name == name[..dot]),
                None => Some(0),
            };
            let posix = name.starts_with("posix") || name.starts_with("stdio");
            layers.push(Layer {
                name: name.clone(),
                label: name.clone(),
                parent,
                matcher: Matcher::CategoryTree(name.clone()),
                derived: if posix { POSIX_DERIVED } else { &[] },
                keeps_size: posix,
                asynchronous: false,
            });
        }
        Preset { name: PresetName::Generic, layers, compute: None, epoch: None }
    }

    /// Every (layer, derived) pair, layer by layer: the layer itself first, then its derived
    /// metrics.
    pub fn slots(&self) -> Vec<Slot> {
        let mut slots = Vec::new();
        for (index, layer) in self.layers.iter().enumerate() {
            slots.push(Slot { layer: index, derived: None });
            for derived in layer.derived {
                slots.push(Slot { layer: index, derived: Some(derived) });
            }
        }
        slots
    }

    /// The index of the layer named `name`.
    pub fn layer(&self, name: &str) -> Option<usize> {
        self.layers.iter().position(|layer| layer.name == name)
    }

    /// The children of layer `index`.
    pub fn children(&self, index: usize) -> impl Iterator<Item = usize> + '_ {
        self.layers
            .iter()
            .enumerate()
            .filter(move |(_, layer)| layer.parent == Some(index))
            .map(|(child, _)| child)
    }

    /// Whether any layer is asynchronous and a compute layer exists (so overlap is measured).
    pub fn measures_overlap(&self) -> bool {
        self.compute.is_some() && self.layers.iter().any(|layer| layer.asynchronous)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dlio_layers_nest_and_select_rows() {
        let preset = Preset::named(PresetName::Dlio, &BTreeSet::new()).unwrap_or_else(|| panic!("absent"));
        let reader_posix = preset.layer("reader_posix").unwrap_or_else(|| panic!("absent"));
        let reader = preset.layer("reader").unwrap_or_else(|| panic!("absent"));
        assert_eq!(preset.layers[reader_posix].parent, Some(reader));
        assert!(preset.layers[reader_posix].matcher.matches("posix_reader_lustre", "pread64"));
        assert!(!preset.layers[reader_posix].matcher.matches("posix", "pread64"));
        assert!(
            preset.layers[preset.layer("posix").unwrap_or_else(|| panic!("absent"))]
                .matcher
                .matches("stdio", "fwrite")
        );
        assert_eq!(preset.compute, preset.layer("compute"));
        assert!(preset.layers[reader].asynchronous);
        assert!(!preset.layers[preset.layer("compute").unwrap_or_else(|| panic!("absent"))].asynchronous);
        assert!(preset.layers[reader_posix].keeps_size);
    }

    #[test]
    fn generic_nests_dotted_categories() {
        let categories: BTreeSet<String> =
            ["ai.data.io", "posix", "dftracer"].iter().map(|text| (*text).to_string()).collect();
        let preset = Preset::generic(&categories);
        let names: Vec<&str> = preset.layers.iter().map(|layer| layer.name.as_str()).collect();
        assert_eq!(names, ["app", "ai", "ai.data", "ai.data.io", "posix"]);
        let io = preset.layer("ai.data.io").unwrap_or_else(|| panic!("absent"));
        assert_eq!(preset.layers[io].parent, preset.layer("ai.data"));
        assert!(
            preset.layers[preset.layer("ai").unwrap_or_else(|| panic!("absent"))]
                .matcher
                .matches("ai.data.io", "x")
        );
        assert!(
            !preset.layers[preset.layer("ai").unwrap_or_else(|| panic!("absent"))]
                .matcher
                .matches("air", "x")
        );
        assert!(preset.layers[preset.layer("posix").unwrap_or_else(|| panic!("absent"))].keeps_size);
    }

    #[test]
    fn slots_list_layers_then_their_derived_metrics() {
        let preset = Preset::named(PresetName::Posix, &BTreeSet::new()).unwrap_or_else(|| panic!("absent"));
        let slots = preset.slots();
        assert_eq!(slots.len(), 1 + POSIX_DERIVED.len());
        assert_eq!(slots[2].name(&preset), "posix_read");
    }
}
