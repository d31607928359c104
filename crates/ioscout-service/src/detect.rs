//! The learned detector in the service: the model a diagnosis loads, the feature vectors of
//! runs (`ioscout detect features`, what the training script reads) and the pattern cards
//! (`ioscout explain PATTERN`, the MCP tool `explain_rule`).
//!
//! A run is one Darshan log, or one trace (a file or a directory of a run's trace files); a
//! trace's counters are the records derived from it (`ioscout_evidence`), with the job time
//! and the POSIX time on the critical path from its analysis, as `diagnose` reads them.

use std::path::{Path, PathBuf};

use ioscout_analysis::{AnalysisOptions, OverlapMode, ViewType};
use ioscout_detect::{Card, FEATURES, Features, Model, Pattern};
use ioscout_diagnose::darshan::DarshanFacts;
use ioscout_diagnose::detector::{Detection, Detector, counters};
use ioscout_diagnose::{Context, Parameters};
use rayon::prelude::*;
use serde::Serialize;

use crate::text::display_path;
use crate::{Input, Outcome, Result, ServiceError};

/// The model at `path`, or the one that ships with ioscout.
pub fn load(path: Option<&Path>) -> Result<Model> {
    match path {
        Some(path) => Model::load(path),
        None => Model::builtin(),
    }
    .map_err(ServiceError::Model)
}

/// The counters of one run as the Darshan rules and the detector read them.
pub struct RunFacts {
    /// The run as given.
    pub path: PathBuf,
    /// `darshan` or `dftracer`.
    pub source: &'static str,
    /// Its facts.
    pub facts: DarshanFacts,
}

/// The facts of a trace (every path of `input` together is one run).
pub fn trace_facts(input: &Input) -> Result<DarshanFacts> {
    let options = AnalysisOptions {
        views: vec![ViewType::TimeRange],
        overlap: OverlapMode::Exact,
        ..AnalysisOptions::default()
    };
    let (analysis, _, _, derived) = crate::analyze::run_with_records(input, &options)?;
    let context = Context::new(&analysis, Parameters::default());
    Ok(ioscout_diagnose::trace_facts(&context, &derived))
}

/// The facts of every path of `input`, each one run: Darshan logs read in parallel, traces
/// one after the other (each scan uses every thread).
pub fn runs(input: &Input) -> Result<Vec<RunFacts>> {
    let logs: Vec<Result<Option<RunFacts>>> = input
        .paths
        .par_iter()
        .map(|path| {
            if !crate::is_darshan_log(path) {
                return Ok(None);
            }
            let log = crate::darshan::read(path, !input.strict)?;
            Ok(Some(RunFacts { path: path.clone(), source: "darshan", facts: DarshanFacts::from_log(&log) }))
        })
        .collect();
    let mut runs = Vec::with_capacity(input.paths.len());
    for (path, log) in input.paths.iter().zip(logs) {
        if let Some(run) = log? {
            runs.push(run);
            continue;
        }
        let one = Input { paths: vec![path.clone()], cluster: None, ..input.clone() };
        runs.push(RunFacts { path: path.clone(), source: "dftracer", facts: trace_facts(&one)? });
    }
    Ok(runs)
}

/// The feature vector of every run (`ioscout detect features`).
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct FeaturesResult {
    /// The features' names, in the order of every run's values.
    pub features: Vec<&'static str>,
    /// Each run's values.
    pub runs: Vec<RunFeatures>,
}

/// One run's feature vector.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct RunFeatures {
    /// The run as given.
    pub input: String,
    /// `darshan` or `dftracer`.
    pub source: &'static str,
    /// Its processes.
    pub nprocs: i64,
    /// The value of each feature.
    pub values: Vec<f64>,
}

/// The feature vector of every run of `input` (`ioscout detect features`).
pub fn features(input: &Input) -> Result<Outcome> {
    let runs = runs(input)?;
    let mut values = Vec::with_capacity(runs.len());
    let mut text = String::new();
    for run in &runs {
        let features = Features::of(&counters(&run.facts));
        values.push(RunFeatures {
            input: display_path(&run.path),
            source: run.source,
            nprocs: run.facts.nprocs,
            values: features.values().to_vec(),
        });
        text.push_str(&ioscout_render::detector::features_text(
            &display_path(&run.path),
            run.source,
            run.facts.nprocs,
            &features,
        ));
    }
    let result =
        FeaturesResult { features: FEATURES.iter().map(|feature| feature.name).collect(), runs: values };
    Ok(Outcome::typed(&result, text))
}

/// The documented feature table (`ioscout detect features --list`).
pub fn feature_list() -> Outcome {
    Outcome::typed(&FEATURES, ioscout_render::detector::feature_list_text())
}

/// A pattern's card, with the rule that speaks for it and the strategies that answer it.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct CardResult {
    /// The card.
    #[serde(flatten)]
    pub card: Card,
    /// The rule that speaks for the pattern.
    pub rule: Option<&'static str>,
    /// The catalog's strategies that answer that rule.
    pub strategies: Vec<String>,
}

/// The card of `pattern` with the typical values of `model`'s training runs, or `None` when
/// `name` is not a pattern.
pub fn card(name: &str, model: Option<&Path>) -> Result<Option<Outcome>> {
    let Ok(pattern) = name.parse::<Pattern>() else { return Ok(None) };
    let model = load(model)?;
    let card = Card::of(pattern, &model);
    let catalog = ioscout_advise::Catalog::bundled()?;
    let rule = ioscout_diagnose::detector::rule_code(pattern);
    let strategies: Vec<&ioscout_advise::catalog::Strategy> = catalog
        .strategies
        .iter()
        .filter(|strategy| rule.is_some_and(|rule| strategy.answers.iter().any(|code| code == rule)))
        .collect();
    let text = ioscout_render::detector::card_text(&card, &strategies);
    let result = CardResult {
        card,
        rule,
        strategies: strategies.iter().map(|strategy| strategy.id.clone()).collect(),
    };
    Ok(Some(Outcome::typed(&result, text)))
}

/// What every diagnosis says about the detector: the mode, the model, and its decision on
/// every pattern with the features that drove it.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct DetectorSection {
    /// How the detector was used (`--detector`).
    pub mode: &'static str,
    /// Where the model came from (`null` when it was not run).
    pub model: Option<String>,
    /// The patterns detected (absent when the model was not run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detected: Option<Vec<Pattern>>,
    /// The decision on every pattern the model knows.
    pub patterns: Vec<ioscout_detect::Decision>,
}

impl DetectorSection {
    /// The section of `detection` under `detector`.
    pub fn of(detection: Option<&Detection>, detector: Detector) -> DetectorSection {
        match detection {
            None => {
                DetectorSection { mode: detector.name(), model: None, detected: None, patterns: Vec::new() }
            }
            Some(detection) => DetectorSection {
                mode: detector.name(),
                model: Some(detection.model.clone()),
                detected: Some(detection.detected().map(|decision| decision.pattern).collect()),
                patterns: detection.decisions.clone(),
            },
        }
    }
}
