//! `ioscout info`.

use crate::{ioscout, json, read_json, root, stdout};

fn check_against_expected(folder: &str) {
    let expected = read_json(&root().join(folder).join("expected.json"));
    let found = json(&["info", "--json", folder], 0);
    let total = &found["total"];
    assert_eq!(total["categories"], expected["categories"], "{folder}: categories");
    assert_eq!(total["processes"], expected["processes"], "{folder}: processes");
    assert_eq!(total["files_named"], expected["files_named"], "{folder}: files named");
    assert_eq!(total["hosts"], expected["hosts"], "{folder}: hosts");
    assert_eq!(total["first_ts"], expected["first_ts"], "{folder}: first ts");
    assert_eq!(total["last_end_ts"], expected["last_end_ts"], "{folder}: last end");
}

#[test]
fn info_matches_python_on_every_generation() {
    check_against_expected("testdata/generations");
}

#[test]
fn info_matches_python_on_the_sample() {
    check_against_expected("testdata/sample");
}

#[test]
fn generations_and_compression_are_detected_per_file() {
    let found = json(&["info", "--json", "testdata/generations"], 0);
    let mut seen = Vec::new();
    for file in found["files"].as_array().into_iter().flatten() {
        let name =
            file["path"].as_str().unwrap_or_default().rsplit('/').next().unwrap_or_default().to_string();
        seen.push((
            name,
            file["generation"].clone(),
            file["compression"].clone(),
            file["gzip_members"].clone(),
        ));
    }
    let expect = |name: &str, generation: &str, compression: &str, members: u64| {
        (
            name.to_string(),
            serde_json::json!(generation),
            serde_json::json!(compression),
            serde_json::json!(members),
        )
    };
    assert_eq!(
        seen,
        vec![
            expect("hex-2025.pfw.gz", "2025", "gzip", 5),
            expect("legacy-2023.pfw", "2023", "none", 0),
            expect("ndjson-2.2.pfw", "2.2", "none", 0),
            expect("ndjson-2.2.pfw.gz", "2.2", "gzip", 7),
            expect("v1-hashes-single-member.pfw.gz", "v1", "gzip", 1),
            expect("v1-hashes.pfw", "v1", "none", 0),
        ]
    );
}

#[test]
fn the_text_report_names_hosts_and_span() {
    let output = ioscout(&["info", "testdata/sample"]);
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    assert!(text.contains("hosts       2 (node01, node02)"), "{text}");
    assert!(text.contains("format      2.2 (gzip, 4 members"), "{text}");
    assert!(text.contains("total (6 files)"), "{text}");
    assert!(text.contains("unit US"), "{text}");
}

#[test]
fn events_without_args_are_pointed_out() {
    let found = json(&["info", "--json", "testdata/generations/ndjson-2.2.pfw"], 0);
    assert_eq!(found["total"]["complete_without_args"], 5);
    let output = ioscout(&["info", "testdata/generations/ndjson-2.2.pfw"]);
    assert!(stdout(&output).contains("5 complete events carry no args"));
    let found = json(&["info", "--json", "testdata/sample"], 0);
    assert_eq!(found["total"]["complete_without_args"], 0);
}
