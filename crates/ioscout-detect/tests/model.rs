//! The shipped model against the library that trained it, and the training table against the
//! features of today.
//!
//! - `model/detector-v1.predictions.json` holds, for every training run, its feature values and
//!   scikit-learn's margins and probabilities (written by `train.py fit --predictions`); the
//!   Rust evaluation must give the same margins bit for bit.
//! - `model/detector-v1.logs.json` is the training table of the Darshan logs; recomputing their
//!   features from `../shared/corpus/darshan-labelled` must give the same values, or the model
//!   was trained on features this ioscout no longer computes (retrain it).

#![allow(clippy::print_stderr)] // a skipped test says why

use std::path::{Path, PathBuf};

use ioscout_darshan::{DarshanLog, ReadOptions, Records, id};
use ioscout_detect::{Counters, FEATURES, Features, Model};

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

fn numbers(value: &serde_json::Value) -> Vec<f64> {
    value
        .as_array()
        .map(|items| {
            items
                .iter()
                .map(|item| item.as_str().and_then(|text| text.parse().ok()).unwrap_or(f64::NAN))
                .collect()
        })
        .unwrap_or_default()
}

fn names(value: &serde_json::Value) -> Vec<String> {
    value
        .as_array()
        .map(|items| items.iter().filter_map(|item| item.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

#[test]
fn rust_margins_equal_scikit_learns_on_every_training_run() {
    let model = Model::builtin().unwrap_or_else(|error| panic!("{error}"));
    let predictions = read_json(&crate_dir().join("model/detector-v1.predictions.json"));
    let features: Vec<String> = names(&predictions["features"]);
    let ours: Vec<&str> = FEATURES.iter().map(|feature| feature.name).collect();
    assert_eq!(features, ours, "the model was trained on another feature list; retrain it");
    let patterns = names(&predictions["patterns"]);
    let runs = predictions["runs"].as_array().cloned().unwrap_or_default();
    assert!(runs.len() >= 100, "{} training runs", runs.len());
    let mut largest_probability_gap: f64 = 0.0;
    for (index, run) in runs.iter().enumerate() {
        let values = Features::from_values(numbers(&run["values"])).unwrap_or_else(|| panic!("run {index}"));
        let expected_margins = numbers(&run["margins"]);
        let expected_probabilities = numbers(&run["probabilities"]);
        let margins = model.margins(&values);
        let decisions = model.decide(&values);
        assert_eq!(margins.len(), patterns.len());
        for (slot, (pattern, margin)) in margins.iter().enumerate() {
            assert_eq!(pattern.name(), patterns[slot]);
            assert_eq!(
                margin.to_bits(),
                expected_margins[slot].to_bits(),
                "run {index}, {pattern}: Rust {margin} vs scikit-learn {}",
                expected_margins[slot]
            );
            largest_probability_gap = largest_probability_gap
                .max((decisions[slot].probability - expected_probabilities[slot]).abs());
            // The path attributions and the bias sum to the margin.
            assert_eq!(decisions[slot].margin.to_bits(), margin.to_bits());
        }
    }
    assert!(largest_probability_gap < 1e-12, "probabilities differ by up to {largest_probability_gap}");
}

#[test]
fn the_training_table_holds_the_features_ioscout_computes_today() {
    let corpus = crate_dir().join("../../../shared/corpus/darshan-labelled");
    if !corpus.is_dir() {
        ioscout_testkit::skip(&format!(
            "{} is absent (the shared corpus is not beside the project)",
            corpus.display()
        ));
        return;
    }
    let table = read_json(&crate_dir().join("model/detector-v1.logs.json"));
    let runs = table["runs"].as_array().cloned().unwrap_or_default();
    assert!(runs.len() >= 100);
    for run in runs {
        let name = run["run"].as_str().unwrap_or_default();
        let log = DarshanLog::open(&corpus.join(name), ReadOptions { partial: false })
            .unwrap_or_else(|error| panic!("{name}: {error}"));
        let records = |module: usize| -> Vec<ioscout_darshan::CounterRecord> {
            log.modules
                .iter()
                .filter(|candidate| candidate.id == module)
                .find_map(|candidate| match &candidate.records {
                    Records::Counters(records) => Some(records.clone()),
                    _ => None,
                })
                .unwrap_or_default()
        };
        let (posix, mpiio, stdio) = (records(id::POSIX), records(id::MPIIO), records(id::STDIO));
        let features = Features::of(&Counters {
            nprocs: log.job.nprocs,
            run_time: log.run_time(),
            posix: &posix,
            mpiio: &mpiio,
            stdio: &stdio,
        });
        let stored = numbers(&run["values"]);
        for ((name_of_feature, value), expected) in features.named().zip(stored) {
            assert_eq!(
                value.to_bits(),
                expected.to_bits(),
                "{name}: {name_of_feature} is {value}, the table {expected}"
            );
        }
    }
}
