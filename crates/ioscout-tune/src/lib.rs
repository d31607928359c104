//! Autotuning: run the user's workload over a parameter space and find a better configuration.
//!
//! This crate sits after advice in the flow: advice says which knobs matter; tuning measures
//! them. A [`spec::Spec`] (TOML) names the workload's command template, its parameters by layer
//! with candidate values, the objective and its direction, and a dataset-size knob. [`tune`]
//! then:
//!
//! 1. evaluates the baseline (every parameter at its default);
//! 2. picks a representative subset: halves the dataset while the subset run stays faithful to
//!    the full one (per-layer time shares and overlap from the run's trace; without a trace, the
//!    objective's agreement), down to the spec's minimum;
//! 3. searches on that subset with one strategy of [`strategy`] (OFAT-guided greedy by default;
//!    grid, random and TPE as baselines) within an evaluation budget, through an
//!    [`executor::Executor`] (local processes, or the mock surface for deterministic tests);
//! 4. validates the best configuration once at full size and reports the speedup over the
//!    baseline at full size and how well the subset predicted it;
//! 5. records every evaluation in the knowledge base (with the non-degradation guard).
//!
//! A run that fails, hangs (killed at its time limit) or prints no usable objective is recorded
//! as failed and the search goes on.

pub mod executor;
pub mod optimize;
pub mod spec;
pub mod strategy;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;

use crate::executor::{Evaluation, Executor, Status};
use crate::spec::{Spec, render};
use crate::strategy::Config;

/// How to tune.
#[derive(Clone, Debug)]
pub struct TuneOptions {
    /// `ofat`, `grid`, `random` or `tpe`.
    pub strategy: String,
    /// Evaluations the search may spend (the baseline included); 0: the strategy's own end.
    pub budget: usize,
    /// Seed of random and TPE.
    pub seed: u64,
    /// Pick a representative subset first (when the spec has a subset knob).
    pub subset: bool,
    /// Validate the best configuration at full size.
    pub validate: bool,
    /// Record every evaluation in this knowledge base.
    pub kb: Option<PathBuf>,
}

impl Default for TuneOptions {
    fn default() -> Self {
        TuneOptions { strategy: "ofat".into(), budget: 0, seed: 0, subset: true, validate: true, kb: None }
    }
}

/// Why tuning could not run.
#[derive(Debug, thiserror::Error)]
pub enum TuneError {
    /// An unknown strategy.
    #[error("unknown strategy {0:?} (known: ofat, grid, random, tpe)")]
    Strategy(String),
    /// The knowledge base could not be written.
    #[error(transparent)]
    KnowledgeBase(#[from] ioscout_advise::kb::KbError),
}

/// One evaluation in the report.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Record {
    /// Order of evaluation, from 0.
    pub index: usize,
    /// What it was for: `baseline`, `subset`, `search`, `validation`.
    pub phase: &'static str,
    /// The parameter values.
    pub params: BTreeMap<String, Value>,
    /// Subset size, when the spec has one.
    pub size: Option<u64>,
    /// The objective (raw), when measured.
    pub score: Option<f64>,
    /// The run.
    #[serde(flatten)]
    pub evaluation: Evaluation,
}

/// The best configuration found.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Best {
    /// Its parameters.
    pub params: BTreeMap<String, Value>,
    /// Its objective on the tuning subset.
    pub score: f64,
}

/// One step of subset selection.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct SubsetStep {
    /// Size tried.
    pub size: u64,
    /// Its baseline objective.
    pub score: Option<f64>,
    /// Fidelity to the full size (0 to 1).
    pub fidelity: Option<f64>,
    /// How fidelity was measured: `layer_shares` or `objective`.
    pub measure: &'static str,
}

/// The subset chosen.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct SubsetChoice {
    /// The size tuned on.
    pub size: u64,
    /// The full size.
    pub full: u64,
    /// Its fidelity.
    pub fidelity: Option<f64>,
    /// Every size tried.
    pub steps: Vec<SubsetStep>,
}

/// The full-size check of the best configuration.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Validation {
    /// Baseline objective at full size.
    pub baseline: Option<f64>,
    /// Best configuration's objective at full size.
    pub best: Option<f64>,
    /// Speedup (oriented: > 1 is better) at full size.
    pub speedup_full: Option<f64>,
    /// Speedup on the subset.
    pub speedup_subset: Option<f64>,
    /// How much of the subset's speedup held at full size: min(full, subset) / max(full, subset).
    pub tuning_fidelity: Option<f64>,
}

/// The effect of a parameter that changes what the application does.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct DiagnosticBound {
    /// The parameter.
    pub parameter: String,
    /// Its best value seen.
    pub value: Value,
    /// The objective there.
    pub score: f64,
    /// How much better (oriented, percent) than the same configuration with the parameter at its
    /// default.
    pub gain_pct: f64,
}

/// Everything a tuning run did.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Report {
    /// The spec's name.
    pub name: String,
    /// The strategy.
    pub strategy: strategy::StrategyName,
    /// The objective's metric and direction.
    pub objective: String,
    /// The best configuration.
    pub best: Option<Best>,
    /// The baseline's objective on the tuning subset.
    pub baseline_score: Option<f64>,
    /// Evaluations of the search (the baseline included; subset selection and validation apart).
    pub evaluations: usize,
    /// Evaluations of every phase.
    pub total_evaluations: usize,
    /// Configurations of the full grid.
    pub grid_size: u128,
    /// The subset.
    pub subset: Option<SubsetChoice>,
    /// The full-size validation.
    pub validation: Option<Validation>,
    /// Parameters that change what the application does: their best observed effect, reported,
    /// never recommended.
    pub diagnostic_bounds: Vec<DiagnosticBound>,
    /// Every evaluation.
    pub history: Vec<Record>,
}

struct Tuner<'a> {
    spec: &'a Spec,
    executor: &'a dyn Executor,
    history: Vec<Record>,
}

impl Tuner<'_> {
    fn params(&self, config: &Config) -> BTreeMap<String, Value> {
        self.spec
            .parameters
            .iter()
            .zip(config)
            .map(|(parameter, position)| {
                (parameter.name.clone(), parameter.values.get(*position).cloned().unwrap_or(Value::Null))
            })
            .collect()
    }

    fn oriented(&self, value: f64) -> f64 {
        if self.spec.maximize() { value } else { -value }
    }

    fn run(&mut self, phase: &'static str, config: &Config, size: Option<u64>) -> Evaluation {
        let params = self.params(config);
        let index = self.history.len();
        let evaluation = self.executor.evaluate(self.spec, &params, size, index as u64);
        self.history.push(Record {
            index,
            phase,
            params,
            size,
            score: evaluation.value,
            evaluation: evaluation.clone(),
        });
        evaluation
    }
}

/// Fidelity of a subset run to the full run: from per-layer shares of the job when both have
/// them (1 minus half the total absolute difference, averaged with overlap agreement), else from
/// the objective (1 minus the relative difference). ioscout's definitions, not GLANCED-IO's (whose
/// are not public).
pub fn fidelity(subset: &Evaluation, full: &Evaluation) -> (Option<f64>, &'static str) {
    if let (Some(sub), Some(reference)) = (&subset.shares, &full.shares) {
        let mut layers: Vec<&String> =
            sub.keys().chain(reference.keys()).filter(|key| *key != "overlap").collect();
        layers.sort();
        layers.dedup();
        let distance: f64 = layers
            .iter()
            .map(|layer| {
                (sub.get(*layer).copied().unwrap_or(0.0) - reference.get(*layer).copied().unwrap_or(0.0))
                    .abs()
            })
            .sum::<f64>()
            / layers.len().max(1) as f64;
        let shares = (1.0 - distance).clamp(0.0, 1.0);
        let value = match (sub.get("overlap"), reference.get("overlap")) {
            (Some(a), Some(b)) => f64::midpoint(shares, (1.0 - (a - b).abs()).clamp(0.0, 1.0)),
            _ => shares,
        };
        return (Some(value), "layer_shares");
    }
    match (subset.value, full.value) {
        (Some(a), Some(b)) if b != 0.0 => (Some((1.0 - ((a - b) / b).abs()).clamp(0.0, 1.0)), "objective"),
        _ => (None, "objective"),
    }
}

fn describe_change(baseline: &BTreeMap<String, Value>, params: &BTreeMap<String, Value>) -> String {
    let changes: Vec<String> = params
        .iter()
        .filter(|(name, value)| baseline.get(*name) != Some(*value))
        .map(|(name, value)| {
            format!("{name} {} -> {}", baseline.get(name).map(render).unwrap_or_default(), render(value))
        })
        .collect();
    changes.join(", ")
}

/// Tunes `spec` with `executor`.
pub fn tune(spec: &Spec, executor: &dyn Executor, options: &TuneOptions) -> Result<Report, TuneError> {
    let sizes: Vec<usize> = spec.parameters.iter().map(|parameter| parameter.values.len()).collect();
    let baseline: Config = spec
        .parameters
        .iter()
        .map(|parameter| {
            parameter.values.iter().position(|value| *value == parameter.baseline()).unwrap_or(0)
        })
        .collect();
    let order: Vec<usize> = spec
        .ordered()
        .iter()
        .filter_map(|wanted| spec.parameters.iter().position(|parameter| parameter.name == wanted.name))
        .collect();
    let diagnostic: Vec<usize> = spec
        .parameters
        .iter()
        .enumerate()
        .filter(|(_, parameter)| parameter.changes_access_pattern)
        .map(|(index, _)| index)
        .collect();
    let strategy_name = options.strategy.parse::<strategy::StrategyName>()?;
    let mut strategy = strategy::by_name(
        strategy_name,
        &sizes,
        &baseline,
        &order,
        &diagnostic,
        spec.objective.noise_margin,
        options.seed,
    );
    let mut tuner = Tuner { spec, executor, history: Vec::new() };
    let mut subset = match spec.subset.as_ref().filter(|_| options.subset) {
        Some(subset) => select_subset(&mut tuner, subset, &baseline),
        None => SubsetOutcome::default(),
    };
    let size =
        subset.choice.as_ref().map(|choice| choice.size).or(spec.subset.as_ref().map(|subset| subset.full));
    let budget = if options.budget == 0 { usize::MAX } else { options.budget };
    let baseline_evaluation = match size.and_then(|size| subset.baseline_runs.remove(&size)) {
        Some(evaluation) if evaluation.status == Status::Ok => evaluation,
        _ => tuner.run("search", &baseline, size),
    };
    let baseline_score = baseline_evaluation.value;
    let (scores, evaluations) =
        search(&mut tuner, strategy.as_mut(), &baseline, baseline_score, size, budget);
    // Parameters that change what the application does are bounds, never the recommendation.
    let eligible = |config: &Config| diagnostic.iter().all(|index| config[*index] == baseline[*index]);
    let best = scores
        .iter()
        .filter(|(config, _)| eligible(config))
        .filter_map(|(config, score)| score.map(|score| (config.clone(), score)))
        .max_by(|a, b| a.1.total_cmp(&b.1).then_with(|| (b.0 == baseline).cmp(&(a.0 == baseline))));
    let best_report = best
        .as_ref()
        .map(|(config, score)| Best { params: tuner.params(config), score: tuner.oriented(*score) });
    let diagnostic_bounds = diagnostic_bounds(&tuner, &scores, &baseline, &diagnostic);
    let validation = match (&subset.choice, &best) {
        (Some(choice), Some(best)) if options.validate && choice.size != choice.full => {
            let baseline_full = subset.full_baseline.as_ref().and_then(|evaluation| evaluation.value);
            Some(validate(&mut tuner, choice, best, &baseline, baseline_full, baseline_score))
        }
        _ => None,
    };
    if let Some(path) = &options.kb {
        record_in_kb(&tuner, &baseline, path, strategy_name)?;
    }
    Ok(Report {
        name: spec.name.clone(),
        strategy: strategy_name,
        objective: format!("{} {}", spec.objective.direction, spec.objective.metric),
        best: best_report,
        baseline_score,
        evaluations,
        total_evaluations: tuner.history.len(),
        grid_size: spec.grid_size(),
        subset: subset.choice,
        validation,
        diagnostic_bounds,
        history: tuner.history,
    })
}

/// What subset selection leaves: the chosen size, the full-size baseline run, and the baseline
/// runs by size (the search reuses the one at the chosen size).
#[derive(Default)]
struct SubsetOutcome {
    choice: Option<SubsetChoice>,
    full_baseline: Option<Evaluation>,
    baseline_runs: BTreeMap<u64, Evaluation>,
}

/// Halves the subset while the baseline's subset run stays faithful to the full run.
fn select_subset(tuner: &mut Tuner<'_>, subset: &spec::Subset, baseline: &Config) -> SubsetOutcome {
    let mut baseline_runs = BTreeMap::new();
    let reference = tuner.run("subset", baseline, Some(subset.full));
    let mut steps = vec![SubsetStep {
        size: subset.full,
        score: reference.value,
        fidelity: Some(1.0),
        measure: "reference",
    }];
    let mut chosen = (subset.full, Some(1.0));
    if reference.status == Status::Ok {
        let mut current = subset.full;
        loop {
            let half = (current / 2) / subset.multiple.max(1) * subset.multiple.max(1);
            if half < subset.minimum || half == 0 || half == current {
                break;
            }
            let trial = tuner.run("subset", baseline, Some(half));
            baseline_runs.insert(half, trial.clone());
            let (found, measure) = fidelity(&trial, &reference);
            steps.push(SubsetStep { size: half, score: trial.value, fidelity: found, measure });
            if found.is_some_and(|found| found >= subset.fidelity) {
                chosen = (half, found);
                current = half;
            } else {
                break;
            }
        }
    }
    baseline_runs.insert(subset.full, reference.clone());
    SubsetOutcome {
        choice: Some(SubsetChoice { size: chosen.0, full: subset.full, fidelity: chosen.1, steps }),
        full_baseline: Some(reference),
        baseline_runs,
    }
}

/// The search: asks the strategy for configurations until the budget is spent (or it repeats
/// known ones a thousand times running); returns every score (oriented) and the evaluations spent.
fn search(
    tuner: &mut Tuner<'_>,
    strategy: &mut dyn strategy::Strategy,
    baseline: &Config,
    baseline_score: Option<f64>,
    size: Option<u64>,
    budget: usize,
) -> (BTreeMap<Config, Option<f64>>, usize) {
    let mut scores: BTreeMap<Config, Option<f64>> = BTreeMap::new();
    scores.insert(baseline.clone(), baseline_score.map(|value| tuner.oriented(value)));
    let mut repeats = 0;
    let mut spent = 1;
    while spent < budget {
        let Some(config) = strategy.ask() else { break };
        if let Some(known) = scores.get(&config) {
            strategy.tell(&config, *known);
            repeats += 1;
            if repeats > 1000 {
                break;
            }
            continue;
        }
        repeats = 0;
        let evaluation = tuner.run("search", &config, size);
        let oriented = evaluation.value.map(|value| tuner.oriented(value));
        scores.insert(config.clone(), oriented);
        strategy.tell(&config, oriented);
        spent += 1;
    }
    (scores, spent)
}

/// For each parameter that changes the access pattern: each configuration with it changed,
/// against the same configuration with it at its default, the largest gain.
fn diagnostic_bounds(
    tuner: &Tuner<'_>,
    scores: &BTreeMap<Config, Option<f64>>,
    baseline: &Config,
    diagnostic: &[usize],
) -> Vec<DiagnosticBound> {
    diagnostic
        .iter()
        .filter_map(|index| {
            let parameter = &tuner.spec.parameters[*index];
            scores
                .iter()
                .filter(|(config, _)| config[*index] != baseline[*index])
                .filter_map(|(config, score)| {
                    let mut counterpart = config.clone();
                    counterpart[*index] = baseline[*index];
                    let reference = (*scores.get(&counterpart)?)?;
                    let score = (*score)?;
                    let gain =
                        if reference == 0.0 { 0.0 } else { (score - reference) / reference.abs() * 100.0 };
                    Some((config[*index], score, gain))
                })
                .max_by(|a, b| a.2.total_cmp(&b.2))
                .map(|(position, score, gain)| DiagnosticBound {
                    parameter: parameter.name.clone(),
                    value: parameter.values.get(position).cloned().unwrap_or(Value::Null),
                    score: tuner.oriented(score),
                    gain_pct: gain,
                })
        })
        .collect()
}

/// Full-size validation of the best configuration (found on a subset).
fn validate(
    tuner: &mut Tuner<'_>,
    subset: &SubsetChoice,
    best: &(Config, f64),
    baseline: &Config,
    baseline_full: Option<f64>,
    baseline_score: Option<f64>,
) -> Validation {
    let (best_config, best_score) = best;
    let best_full = if best_config == baseline {
        baseline_full
    } else {
        tuner.run("validation", best_config, Some(subset.full)).value
    };
    let maximize = tuner.spec.maximize();
    let speedup = |best: Option<f64>, base: Option<f64>| match (best, base) {
        (Some(best), Some(base)) if base != 0.0 && best != 0.0 => {
            Some(if maximize { best / base } else { base / best })
        }
        _ => None,
    };
    let speedup_full = speedup(best_full, baseline_full);
    let speedup_subset = speedup(Some(tuner.oriented(*best_score)), baseline_score);
    let tuning_fidelity = match (speedup_full, speedup_subset) {
        (Some(full), Some(sub)) if full > 0.0 && sub > 0.0 => Some(full.min(sub) / full.max(sub)),
        _ => None,
    };
    Validation { baseline: baseline_full, best: best_full, speedup_full, speedup_subset, tuning_fidelity }
}

/// Appends every measured configuration to the knowledge base at `path`, against the baseline
/// at the same size.
fn record_in_kb(
    tuner: &Tuner<'_>,
    baseline: &Config,
    path: &std::path::Path,
    strategy: strategy::StrategyName,
) -> Result<(), TuneError> {
    let spec = tuner.spec;
    let baseline_params = tuner.params(baseline);
    let mut baselines: BTreeMap<Option<u64>, f64> = BTreeMap::new();
    for record in &tuner.history {
        if record.params == baseline_params
            && let Some(score) = record.score
        {
            baselines.entry(record.size).or_insert(score);
        }
    }
    for record in tuner.history.iter().filter(|record| record.params != baseline_params) {
        let (Some(after), Some(before)) = (record.score, baselines.get(&record.size)) else { continue };
        let layer = spec
            .parameters
            .iter()
            .filter(|parameter| baseline_params.get(&parameter.name) != record.params.get(&parameter.name))
            .map(|parameter| parameter.layer.clone())
            .max()
            .unwrap_or_else(|| "L1".into())
            .parse::<ioscout_advise::kb::Layer>()?;
        let input = ioscout_advise::kb::EntryInput {
            system: spec.system.clone(),
            workload: spec.name.clone(),
            higher_is_better: spec.maximize(),
            citation: format!("session:ioscout-tune/{}/{}", spec.name, strategy),
            caveats: format!(
                "{} evaluation {}{}",
                record.phase,
                record.index,
                record.size.map(|size| format!(", subset size {size}")).unwrap_or_default()
            ),
            ..ioscout_advise::kb::EntryInput::measured(
                layer,
                spec.objective.metric.clone(),
                *before,
                after,
                describe_change(&baseline_params, &record.params),
            )
        };
        let ts = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_secs());
        let entry = ioscout_advise::kb::evaluate(input, ts)?;
        ioscout_advise::kb::append(path, &entry)?;
    }
    Ok(())
}
