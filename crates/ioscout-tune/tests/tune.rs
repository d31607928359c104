//! The tuner end to end: strategies on the shipped mock surface, local processes that crash,
//! hang or print garbage, the knowledge base, and spec errors.

use std::path::{Path, PathBuf};

use ioscout_tune::executor::{Local, MockSurface, Status};
use ioscout_tune::spec::Spec;
use ioscout_tune::{TuneOptions, tune};

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn mock() -> Spec {
    match Spec::load(&repository().join("examples/tune/mock.toml")) {
        Ok(spec) => spec,
        Err(error) => panic!("{error}"),
    }
}

fn best_score(spec: &Spec, strategy: &str, budget: usize, seed: u64) -> (f64, usize) {
    let options =
        TuneOptions { strategy: strategy.into(), budget, seed, subset: false, validate: false, kb: None };
    match tune(spec, &MockSurface, &options) {
        Ok(report) => (report.best.map_or(f64::NAN, |best| best.score), report.evaluations),
        Err(error) => panic!("{error}"),
    }
}

#[test]
fn ofat_reaches_95_percent_of_the_grid_optimum_with_at_most_half_its_evaluations() {
    let spec = mock();
    let (grid, grid_evaluations) = best_score(&spec, "grid", 0, 0);
    let (ofat, ofat_evaluations) = best_score(&spec, "ofat", 0, 0);
    assert_eq!(grid_evaluations as u128, spec.grid_size());
    assert!(ofat >= 0.95 * grid, "ofat {ofat} vs grid {grid}");
    assert!(ofat_evaluations * 2 <= grid_evaluations, "{ofat_evaluations} of {grid_evaluations}");
    // Random and TPE run within the same budget and never beat the grid's optimum.
    for strategy in ["random", "tpe"] {
        for seed in 0..3 {
            let (score, evaluations) = best_score(&spec, strategy, ofat_evaluations, seed);
            assert!(evaluations <= ofat_evaluations, "{strategy}: {evaluations}");
            assert!(score <= grid + 1e-9, "{strategy}: {score} > {grid}");
        }
    }
}

#[test]
fn subsets_are_halved_while_faithful_and_the_best_is_validated_at_full_size() {
    let spec = mock();
    let report = tune(&spec, &MockSurface, &TuneOptions::default()).unwrap_or_else(|error| panic!("{error}"));
    let Some(subset) = &report.subset else { panic!("no subset") };
    assert_eq!(subset.full, 64);
    assert_eq!(subset.size, 8);
    assert!(subset.steps.iter().all(|step| step.fidelity.is_some_and(|fidelity| fidelity >= 0.9)));
    let Some(validation) = &report.validation else { panic!("no validation") };
    assert!(validation.speedup_full.is_some_and(|speedup| speedup > 1.5), "{validation:?}");
    assert!(validation.tuning_fidelity.is_some_and(|fidelity| fidelity > 0.99));
    // The access-pattern parameter is a bound, never the recommendation.
    let Some(best) = &report.best else { panic!("no best") };
    assert_eq!(best.params["reader.transfer_size"], serde_json::json!("1m"));
    assert!(report.diagnostic_bounds.iter().any(|bound| bound.parameter == "reader.transfer_size"));
}

fn write(directory: &Path, name: &str, text: &str) -> PathBuf {
    let path = directory.join(name);
    std::fs::write(&path, text).unwrap_or_else(|error| panic!("{error}"));
    path
}

#[test]
fn crashing_hanging_and_garbage_runs_are_recorded_and_the_search_goes_on() {
    let directory = std::env::temp_dir().join(format!("ioscout-tune-local-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&directory);
    std::fs::create_dir_all(&directory).unwrap_or_else(|error| panic!("{error}"));
    // mode: good -> score, crash -> exit 3, hang -> a process group that sleeps, garbage -> not JSON.
    write(
        &directory,
        "workload.sh",
        r#"case "$1" in
  good) echo "{\"score\": $2}" > result.json ;;
  crash) echo "segfault" >&2; exit 3 ;;
  hang) sleep 37.5 & sleep 37.5 ;;
  garbage) echo "%%%" > result.json ;;
esac
"#,
    );
    let spec_path = write(
        &directory,
        "spec.toml",
        r#"name = "local-test"
[workload]
command = ["sh", "{spec_dir}/workload.sh", "{mode}", "{level}"]
runs_dir = "runs"
time_limit_s = 1.5

[objective]
source = "json"
file = "result.json"
metric = "score"
direction = "maximize"

[[parameter]]
name = "mode"
layer = "L1"
values = ["good", "crash", "hang", "garbage"]

[[parameter]]
name = "level"
layer = "L3"
values = [1, 5, 3]
"#,
    );
    let spec = Spec::load(&spec_path).unwrap_or_else(|error| panic!("{error}"));
    let kb = directory.join("kb.jsonl");
    let options = TuneOptions { kb: Some(kb.clone()), ..TuneOptions::default() };
    let report = tune(&spec, &Local, &options).unwrap_or_else(|error| panic!("{error}"));
    let status = |mode: &str| {
        report
            .history
            .iter()
            .find(|record| record.params["mode"] == serde_json::json!(mode))
            .map(|record| record.evaluation.status)
    };
    assert_eq!(status("crash"), Some(Status::Failed));
    assert_eq!(status("hang"), Some(Status::TimedOut));
    assert_eq!(status("garbage"), Some(Status::Failed));
    let Some(best) = &report.best else { panic!("no best") };
    assert_eq!(best.params["level"], serde_json::json!(5));
    assert!((best.score - 5.0).abs() < 1e-9);
    // The hanging run's whole process group was killed.
    let survivors = std::process::Command::new("pgrep").args(["-f", "sleep 37.5"]).output();
    assert!(survivors.is_ok_and(|output| output.stdout.is_empty()), "a sleep of the hanging run survived");
    // Every measured non-baseline evaluation is in the knowledge base.
    let (entries, skipped) = ioscout_advise::kb::read(&kb).unwrap_or_else(|error| panic!("{error}"));
    assert!(skipped.is_empty());
    assert_eq!(entries.len(), 2, "{entries:?}");
    assert!(entries.iter().any(|entry| entry.verdict == ioscout_advise::kb::Verdict::Win
        && entry.input.layer == ioscout_advise::kb::Layer::L3));
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn bad_specs_are_refused_with_their_path() {
    let cases = [
        (
            "unknown key",
            "bogus = 1\n[objective]\nsource = \"mock\"\nmetric = \"m\"\ndirection = \"maximize\"\n",
        ),
        (
            "default not among values",
            "[objective]\nsource = \"mock\"\nmetric = \"m\"\ndirection = \"maximize\"\n[mock]\nbase = 1.0\neffects = {}\n[[parameter]]\nname = \"a\"\nlayer = \"L1\"\nvalues = [1, 2]\ndefault = 3\n",
        ),
        (
            "effect length",
            "[objective]\nsource = \"mock\"\nmetric = \"m\"\ndirection = \"maximize\"\n[mock]\nbase = 1.0\neffects = { a = [1.0] }\n[[parameter]]\nname = \"a\"\nlayer = \"L1\"\nvalues = [1, 2]\n",
        ),
        (
            "bad layer",
            "[objective]\nsource = \"mock\"\nmetric = \"m\"\ndirection = \"up\"\n[mock]\nbase = 1.0\neffects = {}\n[[parameter]]\nname = \"a\"\nlayer = \"L9\"\nvalues = [1]\n",
        ),
    ];
    for (what, text) in cases {
        let error = Spec::parse(text, Path::new("bad.toml"));
        let Err(error) = error else { panic!("{what}: accepted") };
        assert!(error.to_string().starts_with("bad.toml"), "{what}: {error}");
    }
}
