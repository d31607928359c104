//! The model file and its evaluation: one gradient-boosted tree ensemble per pattern, trained in
//! Python (`crates/ioscout-detect/train/train.py`, scikit-learn) and evaluated here, in Rust,
//! with no Python at run time.
//!
//! # Where this sits
//!
//! [`crate::features::Features`] -> [`Model::decide`] -> one [`Decision`] per pattern (its
//! probability, whether it is present, and the features that drove it) -> the diagnosis
//! (`ioscout_diagnose::detector`) joins them with the rules' findings.
//!
//! # The file (`format: "ioscout-detector"`, `version: 1`)
//!
//! JSON. `features` names the features the trees split on, in the order their `feature` indices
//! refer to; every one must be a feature this ioscout computes ([`crate::features::FEATURES`]).
//! Each entry of `patterns` holds a label, its decision `threshold` on the probability, the
//! ensemble's `init` margin and `learning_rate`, and its `trees`, each as parallel arrays over
//! the nodes (`feature`, `threshold`, `left`, `right`, `value`; a leaf has `left` = -1). Every
//! real number is written as a string in Python's shortest round-trip form and parsed with
//! Rust's correctly rounded parser, so the margins here equal scikit-learn's bit for bit. A
//! node sends a run left when its feature, rounded to `f32` as scikit-learn's trees round their
//! input, is at most the threshold. The margin is `init + sum(learning_rate * leaf value)` in tree
//! order, as `sklearn.ensemble._gradient_boosting.predict_stages` sums it; the probability is
//! its logistic function. `cards` holds the typical feature values of each pattern's training
//! runs ([`crate::cards`]); `trained` says how the file was made.
//!
//! # Why a decision was taken
//!
//! A tree's path splits its output over the features it tested (Saabas' path attribution): each
//! step from a node to its child adds `learning_rate x (value(child) - value(node))` to the
//! feature of the node. The attributions and the root values sum to the margin exactly.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::features::{FEATURES, Features};
use crate::pattern::Pattern;

/// The model file format's name.
pub const FORMAT: &str = "ioscout-detector";
/// The newest model file version this ioscout reads.
pub const VERSION: u32 = 1;

/// The model file that ships with ioscout.
const BUILTIN: &str = include_str!("../model/detector-v1.json");

/// What went wrong with a model file.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// The file could not be read.
    #[error("{path}: cannot read the model file")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Not JSON, or not the model file's shape.
    #[error("{path}: not a detector model file (line {line}, column {column}): {message}")]
    Json {
        /// The file.
        path: PathBuf,
        /// Line of the error.
        line: usize,
        /// Column of the error.
        column: usize,
        /// What the parser said.
        message: String,
    },
    /// Another format.
    #[error("{path}: format {found:?}, not {FORMAT:?}")]
    Format {
        /// The file.
        path: PathBuf,
        /// The format it names.
        found: String,
    },
    /// A version newer than this ioscout reads.
    #[error(
        "{path}: model version {found} is newer than this ioscout reads (version {VERSION}); use the ioscout that trained it, or retrain with `ioscout train`"
    )]
    NewerVersion {
        /// The file.
        path: PathBuf,
        /// Its version.
        found: u32,
    },
    /// The model splits on a feature this ioscout does not compute.
    #[error(
        "{path}: the model needs feature {feature:?}, which this ioscout does not compute (`ioscout detect features --list` lists them); retrain the model"
    )]
    MissingFeature {
        /// The file.
        path: PathBuf,
        /// The feature.
        feature: String,
    },
    /// A malformed ensemble, tree or node.
    #[error("{path}: pattern {pattern}, tree {tree}, node {node}: {what}")]
    Tree {
        /// The file.
        path: PathBuf,
        /// The label of the ensemble.
        pattern: String,
        /// Tree index (`-` for the ensemble itself).
        tree: String,
        /// Node index (`-` for the tree itself).
        node: String,
        /// What is wrong.
        what: String,
    },
}

/// The format and version alone (any other field skipped): what a file that does not parse is
/// read for, so a newer file is named as such even when its shape has changed.
#[derive(serde::Deserialize)]
struct Header {
    #[serde(default)]
    format: String,
    #[serde(default)]
    version: Option<u64>,
}

/// The file as written by the training script (numbers borrowed as text, parsed once).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct File<'a> {
    format: &'a str,
    version: u32,
    features: Vec<String>,
    #[serde(borrow)]
    patterns: Vec<FileEnsemble<'a>>,
    #[serde(default)]
    cards: BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    trained: serde_json::Value,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FileEnsemble<'a> {
    pattern: &'a str,
    threshold: &'a str,
    init: &'a str,
    learning_rate: &'a str,
    #[serde(borrow)]
    trees: Vec<FileTree<'a>>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FileTree<'a> {
    feature: Vec<i64>,
    #[serde(borrow)]
    threshold: Vec<&'a str>,
    left: Vec<i64>,
    right: Vec<i64>,
    #[serde(borrow)]
    value: Vec<&'a str>,
}

/// One node: a split, or a leaf.
#[derive(Clone, Debug)]
enum Node {
    Split { feature: usize, threshold: f64, left: usize, right: usize, value: f64 },
    Leaf { value: f64 },
}

impl Node {
    fn value(&self) -> f64 {
        match self {
            Node::Split { value, .. } | Node::Leaf { value } => *value,
        }
    }
}

/// The ensemble of one pattern.
#[derive(Clone, Debug)]
struct Ensemble {
    pattern: Pattern,
    threshold: f64,
    init: f64,
    learning_rate: f64,
    trees: Vec<Vec<Node>>,
}

/// A loaded, checked model.
#[derive(Clone, Debug)]
pub struct Model {
    /// Where it came from (`(built in)` for the shipped model).
    pub source: String,
    /// How it was trained (the file's `trained` object).
    pub trained: serde_json::Value,
    /// The file's `cards` object, by pattern name.
    pub cards: BTreeMap<String, serde_json::Value>,
    ensembles: Vec<Ensemble>,
}

/// How much one feature moved a decision.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Contribution {
    /// The feature.
    pub feature: &'static str,
    /// Its value in this run.
    pub value: f64,
    /// What it added to the margin (log-odds); positive for the pattern.
    pub contribution: f64,
}

/// The model's decision on one pattern.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Decision {
    /// The label.
    pub pattern: Pattern,
    /// The probability the model gives it.
    pub probability: f64,
    /// The margin (log-odds) behind the probability.
    pub margin: f64,
    /// The threshold the probability is held to.
    pub threshold: f64,
    /// Whether the run has the pattern (probability at or above the threshold; for `healthy`:
    /// no other pattern has).
    pub present: bool,
    /// The features that moved the margin most, largest first (at most [`Model::TOP`]).
    pub contributions: Vec<Contribution>,
}

/// Where in the file a problem is: an ensemble, and maybe a tree and a node of it.
#[derive(Clone, Copy)]
struct Place<'a> {
    path: &'a Path,
    pattern: &'a str,
    tree: Option<usize>,
    node: Option<usize>,
}

impl Place<'_> {
    fn error(self, what: String) -> ModelError {
        let index = |value: Option<usize>| value.map_or_else(|| "-".to_string(), |value| value.to_string());
        ModelError::Tree {
            path: self.path.to_path_buf(),
            pattern: self.pattern.to_string(),
            tree: index(self.tree),
            node: index(self.node),
            what,
        }
    }

    fn number(self, text: &str) -> Result<f64, ModelError> {
        match text.parse::<f64>() {
            Ok(value) if value.is_finite() => Ok(value),
            _ => Err(self.error(format!("{text:?} is not a finite number"))),
        }
    }
}

impl Model {
    /// Contributions kept per decision.
    pub const TOP: usize = 5;

    /// The model that ships with ioscout.
    pub fn builtin() -> Result<Model, ModelError> {
        Model::parse(BUILTIN, Path::new("(built in)"))
    }

    /// A model file.
    pub fn load(path: &Path) -> Result<Model, ModelError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| ModelError::Read { path: path.to_path_buf(), source })?;
        Model::parse(&text, path)
    }

    /// A model from the text of a model file read from `path`.
    pub fn parse(text: &str, path: &Path) -> Result<Model, ModelError> {
        let json = |error: serde_json::Error| ModelError::Json {
            path: path.to_path_buf(),
            line: error.line(),
            column: error.column(),
            // serde's message ends with the position, which the error already gives.
            message: {
                let message = error.to_string();
                let suffix = format!(" at line {} column {}", error.line(), error.column());
                message.strip_suffix(&suffix).map_or(message.clone(), str::to_string)
            },
        };
        let check = |format: &str, version: Option<u64>| {
            if format != FORMAT {
                return Err(ModelError::Format { path: path.to_path_buf(), found: format.to_string() });
            }
            match version {
                Some(found) if found > u64::from(VERSION) => {
                    Err(ModelError::NewerVersion { path: path.to_path_buf(), found: found as u32 })
                }
                _ => Ok(()),
            }
        };
        // One parse in the common case; a file that does not parse is read again for its format
        // and version, so a newer file is named as such even when its shape has changed.
        let file: File<'_> = match serde_json::from_str(text) {
            Ok(file) => file,
            Err(error) => {
                let header: Header = serde_json::from_str(text).map_err(json)?;
                check(&header.format, header.version)?;
                return Err(json(error));
            }
        };
        check(file.format, Some(u64::from(file.version)))?;
        let mut columns = Vec::with_capacity(file.features.len());
        for name in &file.features {
            match FEATURES.iter().position(|feature| feature.name == name) {
                Some(index) => columns.push(index),
                None => {
                    return Err(ModelError::MissingFeature {
                        path: path.to_path_buf(),
                        feature: name.clone(),
                    });
                }
            }
        }
        let mut ensembles = Vec::with_capacity(file.patterns.len());
        for ensemble in &file.patterns {
            ensembles.push(Model::ensemble(path, ensemble, &columns)?);
        }
        Ok(Model { source: path.display().to_string(), trained: file.trained, cards: file.cards, ensembles })
    }

    fn ensemble(path: &Path, file: &FileEnsemble<'_>, columns: &[usize]) -> Result<Ensemble, ModelError> {
        let place = Place { path, pattern: file.pattern, tree: None, node: None };
        let pattern = file.pattern.parse::<Pattern>().map_err(|error| place.error(error.to_string()))?;
        let mut trees = Vec::with_capacity(file.trees.len());
        for (tree_index, tree) in file.trees.iter().enumerate() {
            let place = Place { tree: Some(tree_index), ..place };
            let count = tree.feature.len();
            if count == 0
                || [tree.threshold.len(), tree.left.len(), tree.right.len(), tree.value.len()]
                    .iter()
                    .any(|length| *length != count)
            {
                return Err(place.error("the node arrays are empty or of different lengths".into()));
            }
            let mut nodes = Vec::with_capacity(count);
            for node in 0..count {
                let place = Place { node: Some(node), ..place };
                let value = place.number(tree.value[node])?;
                let (left, right) = (tree.left[node], tree.right[node]);
                if left < 0 {
                    nodes.push(Node::Leaf { value });
                    continue;
                }
                // Children after their parent: evaluation always ends.
                let child =
                    |index: i64| usize::try_from(index).ok().filter(|index| *index > node && *index < count);
                let (Some(left), Some(right)) = (child(left), child(right)) else {
                    return Err(place.error(format!("children {left} and {right} out of order or range")));
                };
                let feature = usize::try_from(tree.feature[node])
                    .ok()
                    .and_then(|index| columns.get(index).copied())
                    .ok_or_else(|| {
                        place.error(format!("feature index {} out of range", tree.feature[node]))
                    })?;
                let threshold = place.number(tree.threshold[node])?;
                nodes.push(Node::Split { feature, threshold, left, right, value });
            }
            trees.push(nodes);
        }
        Ok(Ensemble {
            pattern,
            threshold: place.number(file.threshold)?,
            init: place.number(file.init)?,
            learning_rate: place.number(file.learning_rate)?,
            trees,
        })
    }

    /// The patterns the model decides, in file order.
    pub fn patterns(&self) -> impl Iterator<Item = Pattern> + '_ {
        self.ensembles.iter().map(|ensemble| ensemble.pattern)
    }

    /// The margin (log-odds) of every pattern, in file order, as the training library computes it.
    pub fn margins(&self, features: &Features) -> Vec<(Pattern, f64)> {
        self.ensembles
            .iter()
            .map(|ensemble| (ensemble.pattern, ensemble.walk(features.values(), None)))
            .collect()
    }

    /// The decision on every pattern, in file order. A run is `healthy` when no other pattern
    /// reaches its threshold (the healthy ensemble's probability is reported beside it), so the
    /// labels never contradict each other.
    pub fn decide(&self, features: &Features) -> Vec<Decision> {
        let mut decisions: Vec<Decision> = self
            .ensembles
            .iter()
            .map(|ensemble| {
                let mut attribution = vec![0.0; FEATURES.len()];
                let margin = ensemble.walk(features.values(), Some(&mut attribution));
                let probability = 1.0 / (1.0 + (-margin).exp());
                let mut contributions: Vec<Contribution> = attribution
                    .iter()
                    .enumerate()
                    .filter(|(_, contribution)| **contribution != 0.0)
                    .map(|(index, contribution)| Contribution {
                        feature: FEATURES[index].name,
                        value: features.values()[index],
                        contribution: *contribution,
                    })
                    .collect();
                contributions.sort_by(|a, b| {
                    b.contribution.abs().total_cmp(&a.contribution.abs()).then(a.feature.cmp(b.feature))
                });
                contributions.truncate(Model::TOP);
                Decision {
                    pattern: ensemble.pattern,
                    probability,
                    margin,
                    threshold: ensemble.threshold,
                    present: probability >= ensemble.threshold,
                    contributions,
                }
            })
            .collect();
        let any_pattern =
            decisions.iter().any(|decision| decision.present && decision.pattern != Pattern::Healthy);
        for decision in &mut decisions {
            if decision.pattern == Pattern::Healthy {
                decision.present = !any_pattern;
            }
        }
        decisions
    }
}

impl Ensemble {
    /// The margin of `values`; with `attribution`, each split's share of it is added to its
    /// feature.
    fn walk(&self, values: &[f64], mut attribution: Option<&mut Vec<f64>>) -> f64 {
        let mut margin = self.init;
        for tree in &self.trees {
            let mut index = 0;
            loop {
                match &tree[index] {
                    Node::Leaf { value } => {
                        margin += self.learning_rate * value;
                        break;
                    }
                    Node::Split { feature, threshold, left, right, value } => {
                        // scikit-learn's trees read their input as f32.
                        let x = f64::from(values[*feature] as f32);
                        let next = if x <= *threshold { *left } else { *right };
                        if let Some(attribution) = attribution.as_deref_mut() {
                            attribution[*feature] += self.learning_rate * (tree[next].value() - value);
                        }
                        index = next;
                    }
                }
            }
        }
        margin
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::Counters;

    fn empty() -> Features {
        Features::of(&Counters { nprocs: 1, run_time: 1.0, posix: &[], mpiio: &[], stdio: &[] })
    }

    fn file(body: &str) -> String {
        format!(
            r#"{{"format": "ioscout-detector", "version": 1, "features": ["syncs_per_write"], "patterns": [{body}]}}"#
        )
    }

    const STUMP: &str = r#"{"pattern": "throughput_utilization", "threshold": "0.5", "init": "-1.0", "learning_rate": "0.5",
        "trees": [{"feature": [0, -2, -2], "threshold": ["0.5", "-2", "-2"], "left": [1, -1, -1], "right": [2, -1, -1], "value": ["0.0", "-1.0", "3.0"]}]}"#;

    #[test]
    fn a_stump_decides_and_attributes_its_margin() {
        let model = Model::parse(&file(STUMP), Path::new("m.json")).unwrap_or_else(|error| panic!("{error}"));
        let decisions = model.decide(&empty());
        assert_eq!(decisions.len(), 1);
        let decision = &decisions[0];
        assert_eq!(decision.margin.to_bits(), (-1.5_f64).to_bits());
        assert!(!decision.present);
        assert_eq!(decision.contributions[0].feature, "syncs_per_write");
        assert_eq!(decision.contributions[0].contribution.to_bits(), (-0.5_f64).to_bits());
    }

    #[test]
    fn damaged_newer_and_foreign_files_are_named() {
        let cases = [
            ("{", "not a detector model file"),
            (r#"{"format": "other", "version": 1}"#, "format \"other\""),
            (
                r#"{"format": "ioscout-detector", "version": 9, "whatever": 1}"#,
                "newer than this ioscout reads",
            ),
            (
                &file(STUMP).replace(r#"["syncs_per_write"]"#, r#"["tea_leaves"]"#),
                "needs feature \"tea_leaves\"",
            ),
            (&file(STUMP).replace(r#""right": [2, -1, -1]"#, r#""right": [0, -1, -1]"#), "node 0: children"),
            (&file(STUMP).replace(r#""-1.0", "3.0""#, r#""-1.0", "x""#), "node 2: \"x\" is not"),
            (&file(STUMP).replace("throughput_utilization", "slowness"), "unknown pattern"),
        ];
        for (text, expected) in cases {
            let error =
                Model::parse(text, Path::new("m.json")).map(|_| ()).err().map(|error| error.to_string());
            let message = error.unwrap_or_default();
            assert!(message.starts_with("m.json: ") && message.contains(expected), "{text}: {message}");
        }
    }

    #[test]
    fn the_shipped_model_loads_and_covers_every_label() {
        let model = Model::builtin().unwrap_or_else(|error| panic!("{error}"));
        let patterns: Vec<Pattern> = model.patterns().collect();
        assert_eq!(patterns, Pattern::ALL);
    }
}
