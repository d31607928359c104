//! The learned detector from the command line: the sample runs' features equal the rows the
//! shipped model was trained on, `diagnose --detector` joins the model and the rules as
//! documented, pattern cards, and bad model files.

use crate::{ioscout, json, read_json, root, stderr, stdout, temp_dir};

/// `detect features --json`, its numbers as written.
#[derive(serde::Deserialize)]
struct Output {
    features: Vec<String>,
    runs: Vec<OutputRun>,
}

#[derive(serde::Deserialize)]
struct OutputRun {
    values: Vec<Box<serde_json::value::RawValue>>,
}

fn sample_labels() -> Vec<(String, Vec<String>)> {
    let labels = read_json(&root().join("testdata/labelled/sample/labels.json"));
    let mut runs: Vec<(String, Vec<String>)> = labels
        .as_object()
        .into_iter()
        .flatten()
        .map(|(run, entry)| {
            let names = entry["labels"].as_array().into_iter().flatten().filter_map(|label| label.as_str());
            (run.clone(), names.map(str::to_string).collect())
        })
        .collect();
    runs.sort();
    runs
}

#[test]
fn the_sample_runs_have_the_features_the_shipped_model_was_trained_on() {
    let table = read_json(&root().join("crates/ioscout-detect/model/detector-v1.traces.json"));
    let runs = sample_labels();
    assert_eq!(runs.len(), 8, "one sample run per label");
    for (run, _) in &runs {
        let path = format!("testdata/labelled/sample/{run}");
        let output = ioscout(&["detect", "features", "--json", &path]);
        assert!(output.status.success(), "{run}: {}", stderr(&output));
        let features: Output =
            serde_json::from_slice(&output.stdout).unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(
            serde_json::json!(features.features),
            table["features"],
            "the feature list changed: retrain the model"
        );
        // Read with Rust's correctly rounded parser (serde_json's default may be one unit off).
        let values: Vec<f64> =
            features.runs[0].values.iter().map(|raw| raw.get().parse().unwrap_or(f64::NAN)).collect();
        let row = table["runs"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|entry| entry["run"] == run.as_str())
            .unwrap_or_else(|| panic!("{run} is not in the training table"));
        let stored = row["values"].as_array().cloned().unwrap_or_default();
        assert_eq!(values.len(), stored.len());
        for (index, (value, expected)) in values.iter().zip(&stored).enumerate() {
            let expected: f64 = expected.as_str().and_then(|text| text.parse().ok()).unwrap_or(f64::NAN);
            assert_eq!(
                value.to_bits(),
                expected.to_bits(),
                "{run}: {} is {value}, trained on {expected}",
                table["features"][index]
            );
        }
    }
}

#[test]
fn diagnose_lets_the_model_decide_and_the_rules_explain() {
    for (run, labels) in sample_labels() {
        let path = format!("testdata/labelled/sample/{run}");
        let both = json(&["diagnose", "--json", "-q", &path], 0);
        let detector = &both["context"]["detector"];
        assert_eq!(detector["mode"], "both");
        assert_eq!(detector["model"], "(built in)");
        let detected: Vec<&str> = detector["detected"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|pattern| pattern.as_str())
            .collect();
        let expected: Vec<&str> =
            labels.iter().map(String::as_str).filter(|label| *label != "healthy").collect();
        // The model was trained on these runs: it must give their labels back.
        assert_eq!(detected, expected, "{run}");
        let facts = both["facts"].as_array().cloned().unwrap_or_default();
        for fact in &facts {
            assert!(fact.get("pattern").is_some() && fact.get("model").is_some(), "{run}: {fact}");
            if fact["model"]["confirmed"] == false {
                assert!(fact["severity"]["score"].as_f64().unwrap_or(1.0) < 0.3, "{run}: {fact}");
                assert_eq!(fact["severity"]["method"], "rule, not confirmed by the model");
            }
        }
        // Every detected pattern is carried by a finding: a confirmed rule's or the model's own.
        for pattern in &detected {
            assert!(
                facts.iter().any(|fact| fact["pattern"] == *pattern && fact["model"]["confirmed"] == true),
                "{run}: {pattern} detected but no finding carries it"
            );
        }
        let rules = json(&["diagnose", "--json", "-q", "--detector", "rules", &path], 0);
        assert_eq!(rules["context"]["detector"]["mode"], "rules");
        assert!(rules["facts"].as_array().into_iter().flatten().all(|fact| fact["model"].is_null()));
        let model = json(&["diagnose", "--json", "-q", "--detector", "model", &path], 0);
        for fact in model["facts"].as_array().into_iter().flatten() {
            assert!(fact["fact_type"].as_str().is_some_and(|code| code.starts_with("DET-")), "{run}: {fact}");
        }
        // The same model and input give the same bytes.
        let again = json(&["diagnose", "--json", "-q", &path], 0);
        assert_eq!(both, again, "{run}");
    }
}

#[test]
fn explain_prints_a_pattern_card_and_detect_lists_the_features() {
    let output = ioscout(&["explain", "access_pattern"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    for part in ["Change:", "Not when:", "Typical values in", "sequential_share", "Strategies that answer it"]
    {
        assert!(text.contains(part), "{part} missing from\n{text}");
    }
    let unknown = ioscout(&["explain", "sluggishness"]);
    assert!(!unknown.status.success());
    assert!(stderr(&unknown).contains("patterns: access_granularity"), "{}", stderr(&unknown));
    let list = json(&["detect", "features", "--list", "--json"], 0);
    let table = read_json(&root().join("crates/ioscout-detect/model/detector-v1.traces.json"));
    let names: Vec<&serde_json::Value> =
        list.as_array().into_iter().flatten().map(|feature| &feature["name"]).collect();
    let trained: Vec<&serde_json::Value> = table["features"].as_array().into_iter().flatten().collect();
    assert_eq!(names, trained);
}

#[test]
fn a_bad_model_file_is_named_and_the_rules_still_work() {
    let directory = temp_dir("models");
    let sample = "testdata/labelled/sample/run-0037";
    let shipped = std::fs::read_to_string(root().join("crates/ioscout-detect/model/detector-v1.json"))
        .unwrap_or_else(|error| panic!("{error}"));
    let cases = [
        ("damaged.json", shipped[..shipped.len() / 2].to_string(), "not a detector model file"),
        (
            "newer.json",
            shipped.replacen("\"version\":1", "\"version\":2", 1),
            "newer than this ioscout reads",
        ),
        (
            "feature.json",
            shipped.replacen("\"io_time_share\"", "\"io_time_share_v2\"", 1),
            "needs feature \"io_time_share_v2\"",
        ),
    ];
    for (name, text, expected) in cases {
        let path = directory.join(name);
        std::fs::write(&path, text).unwrap_or_else(|error| panic!("{error}"));
        let path = path.to_string_lossy().into_owned();
        let output = ioscout(&["diagnose", "--model", &path, sample]);
        assert_eq!(output.status.code(), Some(2), "{name}");
        let message = stderr(&output);
        assert!(message.contains(expected) && message.contains("--detector rules"), "{name}: {message}");
        assert_eq!(message.matches(expected).count(), 1, "{name}: said more than once: {message}");
        let rules = ioscout(&["diagnose", "--detector", "rules", "--model", &path, sample]);
        assert!(rules.status.success(), "{name}: {}", stderr(&rules));
    }
}

/// The rule findings the learned detector rejects are folded into one line by default (the noise
/// a new user meets first) and shown one by one with `--all`; the JSON keeps them all.
#[test]
fn unconfirmed_findings_fold_into_one_line_unless_all() {
    let folded = crate::stdout(&crate::ioscout(&["diagnose", "testdata/sample"]));
    assert!(!folded.contains("[not confirmed by the model"), "{folded}");
    let line = folded
        .lines()
        .find(|line| line.contains("not confirmed by the learned detector"))
        .unwrap_or_default();
    assert!(line.starts_with("4 rule findings") && line.ends_with("`--all` shows them."), "{folded}");
    let all = crate::stdout(&crate::ioscout(&["diagnose", "--all", "testdata/sample"]));
    assert_eq!(all.matches("[not confirmed by the model").count(), 4, "{all}");
    let value = crate::json(&["diagnose", "--json", "testdata/sample"], 0);
    let unconfirmed = value["facts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|fact| fact["severity"]["method"] == "rule, not confirmed by the model")
        .count();
    assert_eq!(unconfirmed, 4, "{value}");
}
