//! The tuning spec (TOML): the workload's command template, its parameters by layer with their
//! candidate values in order, the objective and its direction, the representative-subset knob,
//! and (for tests and benchmarks) a synthetic response surface.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

/// Why a spec was refused.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Read {
        /// The spec.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The TOML is malformed or has unknown keys.
    #[error("{path}: {message}")]
    Parse {
        /// The spec.
        path: PathBuf,
        /// What the parser said (with line and column).
        message: String,
    },
    /// The spec is well-formed but inconsistent.
    #[error("{path}: {message}")]
    Invalid {
        /// The spec.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// A whole spec.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// Names for the knowledge base.
    #[serde(default)]
    pub name: String,
    /// System (machine) name for the knowledge base.
    #[serde(default)]
    pub system: String,
    /// The workload to run (absent with a mock surface).
    #[serde(default)]
    pub workload: Option<Workload>,
    /// What is measured.
    pub objective: Objective,
    /// The parameters, tuned in this order within each layer (L1, then L2, then L3).
    #[serde(rename = "parameter", default)]
    pub parameters: Vec<Parameter>,
    /// What `ioscout optimize` measures: the variants that implement advice strategies, the
    /// number of pairs, where the baseline's evidence comes from.
    #[serde(default)]
    pub optimize: Option<Optimize>,
    /// The representative-subset knob.
    #[serde(default)]
    pub subset: Option<Subset>,
    /// A synthetic response surface instead of a workload.
    #[serde(default)]
    pub mock: Option<Mock>,
    /// Where the spec lives (relative paths in it are relative to its folder).
    #[serde(skip)]
    pub directory: PathBuf,
}

/// The command to run.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Workload {
    /// Program and arguments; `{parameter}`, `{run_dir}` and the subset parameter's `{name}` are
    /// replaced.
    pub command: Vec<String>,
    /// Per-run working directories go under this folder.
    #[serde(default = "default_runs")]
    pub runs_dir: PathBuf,
    /// Seconds a run may take before it is killed (with its whole process group).
    #[serde(default = "default_time_limit")]
    pub time_limit_s: f64,
    /// Environment variables set for every run (on top of PATH, HOME, LANG, TMPDIR, USER; the
    /// rest of the tuner's environment is not passed on).
    #[serde(default)]
    pub environment: BTreeMap<String, String>,
    /// Environment variables passed through from the tuner's environment.
    #[serde(default)]
    pub pass_environment: Vec<String>,
    /// Repetitions of each evaluation (the objective is their mean).
    #[serde(default = "default_one")]
    pub repetitions: u32,
}

fn default_runs() -> PathBuf {
    PathBuf::from("tune-runs")
}

fn default_time_limit() -> f64 {
    600.0
}

fn default_one() -> u32 {
    1
}

/// What is optimised.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Objective {
    /// `json` (a key of a JSON file the workload writes, e.g. DLIO's `summary.json`), `trace`
    /// (a metric of the DFTracer trace of the run, analysed by ioscout), `wall_time` (the run's
    /// wall seconds, measured by ioscout; direction `minimize`), or `mock`.
    pub source: String,
    /// For `json`: the file, relative to the run directory (`{run_dir}` allowed).
    #[serde(default)]
    pub file: Option<String>,
    /// For `json`: the key path, dot-separated (`metric.train_throughput_mean_samples_per_second`);
    /// a list is averaged. For `trace`: `io_time`, `unoverlapped_io`, `bandwidth`, `job_time`.
    pub metric: String,
    /// For `trace`: where the traces are, relative to the run directory.
    #[serde(default)]
    pub traces: Option<String>,
    /// `maximize` or `minimize`.
    pub direction: String,
    /// Improvements smaller than this fraction are noise (OFAT keeps the incumbent).
    #[serde(default = "default_margin")]
    pub noise_margin: f64,
}

fn default_margin() -> f64 {
    0.02
}

/// One tunable parameter.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Parameter {
    /// Name (used as `{name}` in templates).
    pub name: String,
    /// `L1` (application), `L2` (software, middleware), `L3` (system).
    pub layer: String,
    /// Candidate values, in the order to try them.
    pub values: Vec<Value>,
    /// The workload's default (the baseline); the first value when absent.
    #[serde(default)]
    pub default: Option<Value>,
    /// Also (or only) set as this environment variable.
    #[serde(default)]
    pub env: Option<String>,
    /// A command run in the run directory before the workload when this parameter is applied
    /// (striping a directory, say); `{value}` and the other placeholders are replaced.
    #[serde(default)]
    pub setup: Option<Vec<String>>,
    /// Changes what the application does (request size, order): reported as a diagnostic bound,
    /// never recommended.
    #[serde(default)]
    pub changes_access_pattern: bool,
    /// The advice strategies (catalog ids) setting it away from its default implements: `ioscout
    /// optimize` measures each of its other values as a variant of those strategies.
    #[serde(default)]
    pub implements: Vec<String>,
}

/// `[optimize]`: how `ioscout optimize` closes the loop from advice to measured wins.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Optimize {
    /// Pairs of runs (baseline, variant, alternated) per variant; at least 5.
    #[serde(default = "default_pairs")]
    pub pairs: u32,
    /// The baseline's DFTracer traces to diagnose (relative to the spec), instead of tracing it.
    #[serde(default)]
    pub traces: Option<PathBuf>,
    /// DFTracer's `LD_PRELOAD` library: the baseline is run once under it for its evidence.
    #[serde(default)]
    pub preload: Option<PathBuf>,
    /// Run once before everything, in the work directory (`{work_dir}`): the input data.
    #[serde(default)]
    pub prepare: Option<Vec<String>>,
    /// Measure the proposals ioscout can apply itself (ROMIO hints files under Open MPI's ROMIO)
    /// when no variant implements them.
    #[serde(default = "default_true")]
    pub automatic: bool,
    /// The variants: a command (a code change the user made), environment variables, parameter
    /// values, each implementing strategies of the catalog.
    #[serde(default, rename = "variant")]
    pub variants: Vec<Variant>,
}

fn default_true() -> bool {
    true
}

fn default_pairs() -> u32 {
    5
}

/// One change to measure against the baseline.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Variant {
    /// Its name in reports.
    pub name: String,
    /// The catalog strategies it implements.
    pub implements: Vec<String>,
    /// The command it runs instead of the workload's (the same placeholders).
    #[serde(default)]
    pub command: Option<Vec<String>>,
    /// Environment variables it adds (an MPI-IO hints file, an MCA setting, ...).
    #[serde(default)]
    pub environment: BTreeMap<String, String>,
    /// Parameter values it sets.
    #[serde(default)]
    pub params: BTreeMap<String, Value>,
}

impl Parameter {
    /// The baseline value.
    pub fn baseline(&self) -> Value {
        self.default.clone().or_else(|| self.values.first().cloned()).unwrap_or(Value::Null)
    }
}

/// The dataset-size knob for representative subsets.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Subset {
    /// Template name of the size (e.g. `dataset.num_files_train`).
    pub parameter: String,
    /// The full size.
    pub full: u64,
    /// Never go below this.
    pub minimum: u64,
    /// Keep halving while fidelity stays at or above this (0 to 1).
    #[serde(default = "default_fidelity")]
    pub fidelity: f64,
    /// Round sizes down to a multiple of this (DLIO trims file counts to samples x batch).
    #[serde(default = "default_multiple")]
    pub multiple: u64,
}

fn default_fidelity() -> f64 {
    0.9
}

fn default_multiple() -> u64 {
    1
}

/// A synthetic response surface: `base + sum of effects + sum of interactions`, each effect a
/// list of contributions aligned with the parameter's values; an interaction a table indexed by
/// two parameters' value positions. `scale_bias` makes smaller subsets score differently
/// (`score x (1 + scale_bias x (1 - size / full))`) so that fidelity has something to measure.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mock {
    /// Score of the baseline position.
    pub base: f64,
    /// Per parameter, the contribution of each value.
    pub effects: BTreeMap<String, Vec<f64>>,
    /// Two-parameter interactions.
    #[serde(default, rename = "interaction")]
    pub interactions: Vec<Interaction>,
    /// How much a subset's score departs from the full size's.
    #[serde(default)]
    pub scale_bias: f64,
    /// Seconds a mock evaluation "takes" (for reports).
    #[serde(default)]
    pub seconds: f64,
    /// Values of these parameters make the workload fail (crash) or hang.
    #[serde(default)]
    pub failures: BTreeMap<String, Value>,
}

/// A two-parameter interaction of a mock surface.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Interaction {
    /// First parameter (rows).
    pub first: String,
    /// Second parameter (columns).
    pub second: String,
    /// Contribution at each pair of positions.
    pub table: Vec<Vec<f64>>,
}

/// The layers in tuning order, portable to hard.
pub const LAYERS: [&str; 3] = ["L1", "L2", "L3"];

impl Spec {
    /// Reads and checks a spec.
    pub fn load(path: &Path) -> Result<Spec, SpecError> {
        let text =
            std::fs::read_to_string(path).map_err(|source| SpecError::Read { path: path.into(), source })?;
        Spec::parse(&text, path)
    }

    /// Parses and checks spec text (`path` for messages and relative paths).
    pub fn parse(text: &str, path: &Path) -> Result<Spec, SpecError> {
        let mut spec: Spec = toml::from_str(text)
            .map_err(|error| SpecError::Parse { path: path.into(), message: error.to_string() })?;
        spec.directory = path.parent().map(Path::to_path_buf).unwrap_or_default();
        spec.check().map_err(|message| SpecError::Invalid { path: path.into(), message })?;
        Ok(spec)
    }

    fn check(&self) -> Result<(), String> {
        // An [optimize] spec may have nothing to measure (a control, or advice alone).
        if self.parameters.is_empty() && self.optimize.is_none() {
            return Err("no [[parameter]]".into());
        }
        self.check_optimize()?;
        self.check_parameters()?;
        self.check_objective()?;
        if let Some(subset) = &self.subset
            && (subset.minimum == 0
                || subset.minimum > subset.full
                || !(0.0..=1.0).contains(&subset.fidelity))
        {
            return Err("subset: need 0 < minimum <= full and 0 <= fidelity <= 1".into());
        }
        Ok(())
    }

    /// `[optimize]`: enough pairs, and variants that implement a strategy with known parameters.
    fn check_optimize(&self) -> Result<(), String> {
        if let Some(optimize) = &self.optimize {
            if optimize.pairs < 5 {
                return Err(format!(
                    "optimize.pairs is {}: at least 5 pairs make a measurement",
                    optimize.pairs
                ));
            }
            for variant in &optimize.variants {
                if variant.implements.is_empty() {
                    return Err(format!("variant {:?} implements no strategy", variant.name));
                }
                if let Some(unknown) = variant.params.keys().find(|name| self.parameter(name).is_none()) {
                    return Err(format!("variant {:?} sets unknown parameter {unknown:?}", variant.name));
                }
            }
        }
        Ok(())
    }

    /// `[[parameter]]`s: named once, a known layer, values, a default among them.
    fn check_parameters(&self) -> Result<(), String> {
        let mut names = std::collections::BTreeSet::new();
        for parameter in &self.parameters {
            if !names.insert(parameter.name.as_str()) {
                return Err(format!("parameter {:?} is listed twice", parameter.name));
            }
            if !LAYERS.contains(&parameter.layer.as_str()) {
                return Err(format!(
                    "parameter {:?}: layer {:?} is not L1, L2 or L3",
                    parameter.name, parameter.layer
                ));
            }
            if parameter.values.is_empty() {
                return Err(format!("parameter {:?} has no values", parameter.name));
            }
            if let Some(default) = &parameter.default
                && !parameter.values.contains(default)
            {
                return Err(format!(
                    "parameter {:?}: the default {default} is not among its values",
                    parameter.name
                ));
            }
        }
        Ok(())
    }

    /// `[objective]`: its direction, and what its source needs.
    fn check_objective(&self) -> Result<(), String> {
        if !["maximize", "minimize"].contains(&self.objective.direction.as_str()) {
            return Err(format!(
                "objective direction {:?} is not maximize or minimize",
                self.objective.direction
            ));
        }
        match self.objective.source.as_str() {
            "mock" => self.check_mock()?,
            "json" => {
                if self.objective.file.is_none() {
                    return Err("objective source json needs `file`".into());
                }
                if self.workload.is_none() {
                    return Err("objective source json needs a [workload]".into());
                }
            }
            "trace" => {
                if !["io_time", "unoverlapped_io", "bandwidth", "job_time"]
                    .contains(&self.objective.metric.as_str())
                {
                    return Err(format!(
                        "trace metric {:?} is not io_time, unoverlapped_io, bandwidth or job_time",
                        self.objective.metric
                    ));
                }
                if self.workload.is_none() {
                    return Err("objective source trace needs a [workload]".into());
                }
            }
            "wall_time" => {
                if self.workload.is_none() {
                    return Err("objective source wall_time needs a [workload]".into());
                }
            }
            other => return Err(format!("objective source {other:?} is not json, trace, wall_time or mock")),
        }
        Ok(())
    }

    /// The `[mock]` surface of a mock objective: effects and interactions shaped like the parameters' values.
    fn check_mock(&self) -> Result<(), String> {
        let Some(mock) = &self.mock else {
            return Err("objective source mock needs a [mock] surface".into());
        };
        for (name, effects) in &mock.effects {
            let Some(parameter) = self.parameter(name) else {
                return Err(format!("mock effect for unknown parameter {name:?}"));
            };
            if effects.len() != parameter.values.len() {
                return Err(format!(
                    "mock effect of {name:?} has {} entries for {} values",
                    effects.len(),
                    parameter.values.len()
                ));
            }
        }
        for interaction in &mock.interactions {
            let (Some(first), Some(second)) =
                (self.parameter(&interaction.first), self.parameter(&interaction.second))
            else {
                return Err(format!(
                    "interaction of unknown parameters {:?} x {:?}",
                    interaction.first, interaction.second
                ));
            };
            if interaction.table.len() != first.values.len()
                || interaction.table.iter().any(|row| row.len() != second.values.len())
            {
                return Err(format!(
                    "interaction {} x {}: the table must be {} x {}",
                    first.name,
                    second.name,
                    first.values.len(),
                    second.values.len()
                ));
            }
        }
        Ok(())
    }

    /// The parameter named `name`.
    pub fn parameter(&self, name: &str) -> Option<&Parameter> {
        self.parameters.iter().find(|parameter| parameter.name == name)
    }

    /// Whether larger objective values are better.
    pub fn maximize(&self) -> bool {
        self.objective.direction == "maximize"
    }

    /// The parameters in tuning order: by layer (L1, L2, L3), in listed order within a layer.
    pub fn ordered(&self) -> Vec<&Parameter> {
        let mut ordered: Vec<&Parameter> = Vec::new();
        for layer in LAYERS {
            ordered.extend(self.parameters.iter().filter(|parameter| parameter.layer == layer));
        }
        ordered
    }

    /// Number of configurations of the full grid.
    pub fn grid_size(&self) -> u128 {
        self.parameters.iter().map(|parameter| parameter.values.len() as u128).product()
    }
}

/// A value as it appears in a command line or an environment variable.
pub fn render(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}
