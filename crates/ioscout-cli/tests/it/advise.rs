//! `ioscout advise`, `kb` and `runs` on the bundled sample trace and Darshan log, and
//! `advise` on every corpus folder when the corpus is beside the checkout.

use std::collections::BTreeMap;

use crate::{corpus, ioscout, json, stderr, stdout, temp_dir};

fn catalog() -> BTreeMap<String, ioscout_advise::Strategy> {
    let catalog = ioscout_advise::Catalog::bundled().unwrap_or_else(|error| panic!("{error}"));
    catalog.strategies.into_iter().map(|strategy| (strategy.id.clone(), strategy)).collect()
}

/// Every acceptance property of one advice: twelve verdicts with reasons, cited proposals when a
/// finding was raised, and no proposal against its file-system gate or a guard.
fn check_advice(advice: &serde_json::Value, label: &str) {
    let strategies = catalog();
    let checklist = advice["checklist"].as_array().cloned().unwrap_or_default();
    assert_eq!(checklist.len(), 12, "{label}");
    for item in &checklist {
        let verdict = item["verdict"].as_str().unwrap_or_default();
        assert!(
            ["applied_measured", "applicable_not_measured", "not_applicable"].contains(&verdict),
            "{label}: {item}"
        );
        assert!(item["reason"].as_str().is_some_and(|reason| reason.len() > 20), "{label}: {item}");
    }
    let fs = advice["filesystem"]["fs_type"].as_str().unwrap_or_default().to_string();
    let proposals = advice["proposals"].as_array().cloned().unwrap_or_default();
    // Every raised finding some strategy answers, and the learned detector does not reject,
    // is answered: by a proposal, a diagnostic bound, or a rejection that says why not.
    let not_confirmed: Vec<&str> = advice["not_confirmed"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|entry| entry[0].as_str())
        .collect();
    let considered: Vec<&str> = ["proposals", "diagnostic_bounds", "rejected"]
        .iter()
        .flat_map(|key| advice[*key].as_array().into_iter().flatten())
        .filter_map(|entry| entry["id"].as_str())
        .collect();
    for finding in advice["findings"].as_array().into_iter().flatten() {
        let code = finding[0].as_str().unwrap_or_default();
        let raised = finding[2].as_str().is_some_and(|label| label != "none");
        let answering: Vec<&str> = strategies
            .values()
            .filter(|strategy| strategy.answers.iter().any(|answer| answer == code))
            .map(|strategy| strategy.id.as_str())
            .collect();
        if !raised || answering.is_empty() || not_confirmed.contains(&code) || code.starts_with("DET-") {
            continue;
        }
        assert!(
            answering.iter().any(|id| considered.contains(id)),
            "{label}: {code} raised, answered by {answering:?}, yet neither proposed, bounded nor rejected"
        );
    }
    for proposal in &proposals {
        for key in ["authors", "title", "url"] {
            assert!(proposal["citation"][key].is_string(), "{label}: {proposal}");
        }
        assert!(
            !proposal["citation"]["url"].as_str().unwrap_or_default().is_empty(),
            "{label}: uncited {proposal}"
        );
        let id = proposal["id"].as_str().unwrap_or_default();
        let Some(strategy) = strategies.get(id) else { panic!("{label}: unknown strategy {id}") };
        let gate = ioscout_advise::FsType::parse(&fs).unwrap_or(ioscout_advise::FsType::Other);
        assert!(strategy.valid_on(gate), "{label}: {id} proposed on {fs}");
        assert!(!strategy.changes_access_pattern, "{label}: {id} changes the access pattern");
        assert!(!ioscout_advise::is_doing_less(strategy), "{label}: {id} is doing less");
        for key in ["app_impact_pct", "system_impact_pct", "weighted_score"] {
            assert!(proposal[key].is_number(), "{label}: {proposal}");
        }
    }
}

#[test]
fn advise_gives_a_checklist_and_cited_proposals_on_the_sample() {
    let advice = json(&["advise", "--json", "testdata/sample"], 0);
    check_advice(&advice, "sample");
    assert!(!advice["proposals"].as_array().into_iter().flatten().collect::<Vec<_>>().is_empty());
    // On NFS, nothing Lustre-only is proposed, and Lustre striping is reported as gated.
    let nfs = json(&["advise", "--json", "--fs-type", "nfs", "testdata/sample"], 0);
    check_advice(&nfs, "sample on nfs");
    let rejected: Vec<&str> =
        nfs["rejected"].as_array().into_iter().flatten().filter_map(|r| r["id"].as_str()).collect();
    assert!(rejected.contains(&"l3-lustre-stripe-shared"), "{rejected:?}");
}

#[test]
fn advise_reads_darshan_logs() {
    let advice = json(&["advise", "--json", "testdata/darshan/mpi-io-test-x86_64-3.5.0.darshan"], 0);
    check_advice(&advice, "darshan");
    assert_eq!(advice["filesystem"]["source"], "darshan-mounts");
    assert_eq!(advice["filesystem"]["fs_type"], "lustre");
}

#[test]
fn advise_on_every_corpus_folder() {
    let Some(corpus) = corpus() else { return };
    for entry in std::fs::read_dir(&corpus).into_iter().flatten().flatten() {
        if !entry.path().is_dir() {
            continue;
        }
        let path = entry.path().to_string_lossy().into_owned();
        let advice = json(&["advise", "--json", "-q", &path], 0);
        check_advice(&advice, &path);
    }
}

#[test]
fn run_directories_get_the_pipeline_artifacts_and_are_validated() {
    let directory = temp_dir("runs");
    let run = directory.to_string_lossy().into_owned();
    let output = ioscout(&["advise", "--run-dir", &run, "testdata/sample"]);
    assert!(output.status.success(), "{}", stderr(&output));
    for file in ioscout_advise::artifacts::FILES {
        assert!(directory.join("opt1").join(file).is_file(), "{file}");
    }
    assert!(ioscout(&["runs", "validate", &run]).status.success());
    // A stray artifact at the top is reported, then moved into opt<n>/.
    let _ =
        std::fs::rename(directory.join("opt1/opt_l3_results.json"), directory.join("opt_l3_results.json"));
    let invalid = ioscout(&["runs", "validate", &run]);
    assert_eq!(invalid.status.code(), Some(1));
    assert!(stdout(&invalid).contains("outside any opt<n>/"));
    assert!(ioscout(&["runs", "reorganize", &run]).status.success());
    assert!(ioscout(&["runs", "validate", &run]).status.success());
    // A second advice goes to opt2/.
    assert!(ioscout(&["advise", "--run-dir", &run, "testdata/sample"]).status.success());
    assert!(directory.join("opt2/optimization_context.json").is_file());
    let _ = std::fs::remove_dir_all(&directory);
}

fn entry(layer: &str, scope: &str, after: f64, app_after: Option<f64>) -> String {
    let app = app_after.map_or(String::new(), |after| {
        format!(r#", "app_metric": "epoch_time_s", "app_before": 100.0, "app_after": {after}, "app_higher_is_better": false"#)
    });
    format!(
        r#"{{"system": "tuolumne", "workload": "unet3d", "software": "pytorch", "layer": "{layer}", "metric_scope": "{scope}",
            "metric": "bandwidth", "before": 100.0, "after": {after}, "higher_is_better": true, "change": "stripe 16",
            "citation": "https://wiki.lustre.org/Lustre_Striping_Best_Practices", "caveats": ""{app}}}"#
    )
}

#[test]
fn the_knowledge_base_guards_refuses_and_survives_concurrency_and_crashes() {
    let directory = temp_dir("kb");
    let kb = directory.join("kb.jsonl").to_string_lossy().into_owned();
    let write_entry = |name: &str, text: &str| {
        let path = directory.join(name);
        let _ = std::fs::write(&path, text);
        path.to_string_lossy().into_owned()
    };
    // Unpaired system entry: refused with exit 2.
    let unpaired = write_entry("unpaired.json", &entry("L3", "system", 150.0, None));
    assert_eq!(ioscout(&["kb", "record", "--kb", &kb, &unpaired]).status.code(), Some(2));
    // Paired, but the application regressed 3 %: stored as a regression, guard triggered.
    let guarded = write_entry("guarded.json", &entry("L3", "system", 150.0, Some(103.0)));
    let stored = json(&["kb", "record", "--json", "--kb", &kb, &guarded], 0);
    assert_eq!(stored["entry"]["verdict"], "regression");
    assert_eq!(stored["guard_triggered"], true);
    // Concurrent writers: 6 processes x 10 entries each; none lost, every line whole.
    let win = write_entry("win.json", &entry("L2", "app", 120.0, None));
    std::thread::scope(|scope| {
        for _ in 0..6 {
            scope.spawn(|| {
                for _ in 0..10 {
                    assert!(ioscout(&["kb", "record", "--kb", &kb, &win]).status.success());
                }
            });
        }
    });
    let found =
        json(&["kb", "lookup", "--json", "--kb", &kb, "--system", "tuolumne", "--workload", "unet3d"], 0);
    assert_eq!(found["rows"].as_array().map(Vec::len), Some(61));
    assert_eq!(found["count"], 61);
    // A crash mid-append leaves a truncated last line: skipped with a warning, and the next
    // record starts on a fresh line.
    let mut text = std::fs::read_to_string(&kb).unwrap_or_default();
    text.push_str(r#"{"ts": 1, "system": "tuol"#);
    let _ = std::fs::write(&kb, text);
    let render = ioscout(&["kb", "render", "--kb", &kb]);
    assert!(render.status.success());
    assert!(stderr(&render).contains("skipped an unreadable entry"), "{}", stderr(&render));
    assert!(ioscout(&["kb", "record", "--kb", &kb, &win]).status.success());
    let found =
        json(&["kb", "lookup", "--json", "--kb", &kb, "--system", "tuolumne", "--workload", "unet3d"], 0);
    assert_eq!(found["rows"].as_array().map(Vec::len), Some(62));
    // Scope rules: the L3 entry stays on its system; the L2 software entries travel.
    let elsewhere =
        json(&["kb", "lookup", "--json", "--kb", &kb, "--system", "frontier", "--software", "pytorch"], 0);
    let rows = elsewhere["rows"].as_array().cloned().unwrap_or_default();
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|found| found["entry"]["layer"] == "L2"));
    let _ = std::fs::remove_dir_all(&directory);
}

/// `kb record --help` showed no entry schema and the CLI's required fields differed from MCP
/// `opt_kb_record`'s: one schema now, printed by `kb schema` and `kb record --help`, read by both
/// (ioscout's stored names are aliases), unknown fields refused.
#[test]
fn the_knowledge_base_entry_has_one_schema_for_the_cli_and_mcp() {
    let schema = json(&["kb", "schema"], 0);
    let required: Vec<&str> =
        schema["required"].as_array().into_iter().flatten().filter_map(|name| name.as_str()).collect();
    for field in ["scope", "change", "metric", "before", "after", "citation"] {
        assert!(required.contains(&field), "{field} not required: {schema}");
    }
    let help = stdout(&ioscout(&["kb", "record", "--help"]));
    assert!(help.contains("scope (string, required)") && help.contains("kb schema"), "{help}");
    let directory = temp_dir("kb-schema");
    let kb = directory.join("kb.jsonl").to_string_lossy().into_owned();
    let path = directory.join("agent.json");
    std::fs::write(
        &path,
        r#"{"scope": "workload", "workload": "unet3d", "change": "prefetch 4", "metric": "epoch_s",
            "before": 10.0, "after": 8.0, "citation": "session:test"}"#,
    )
    .unwrap_or_else(|error| panic!("{error}"));
    let stored = json(&["kb", "record", "--json", "--kb", &kb, &path.to_string_lossy()], 0);
    assert_eq!(stored["entry"]["verdict"], "win", "{stored}");
    std::fs::write(
        &path,
        r#"{"scope": "workload", "workload": "unet3d", "change": "x", "metric": "m", "before": 1, "after": 2,
            "citation": "session:test", "colour": "blue"}"#,
    )
    .unwrap_or_else(|error| panic!("{error}"));
    let refused = ioscout(&["kb", "record", "--kb", &kb, &path.to_string_lossy()]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(stderr(&refused).contains("unknown field `colour`"), "{}", stderr(&refused));
    let tool_schema = ioscout_mcp::tool_schema("opt_kb_record").unwrap_or_default();
    assert_eq!(tool_schema["properties"], schema["properties"], "MCP and CLI schemas differ");
}

/// The header said "I/O on the critical path 11.3 %" above a proposal of App Impact 41.5 %
/// without a word: the table now says why a bound may exceed the I/O's share.
#[test]
fn an_app_impact_above_the_io_share_is_explained() {
    let output = crate::ioscout(&["advise", "testdata/scenarios/tiny_writes"]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("I/O on the critical path 14.0 %"), "{text}");
    assert!(text.contains("App Impact above the I/O's 14.0 % of the run"), "{text}");
    assert!(text.contains("caller's own time around each call it removes"), "{text}");
}
