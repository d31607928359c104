//! `ioscout count`.

use crate::{ioscout, json, read_json, root, stdout};

/// Checks `count --json FOLDER` against the folder's independent `expected.json`.
fn check_against_expected(folder: &str) {
    let expected = read_json(&root().join(folder).join("expected.json"));
    let found = json(&["count", "--json", folder], 0);
    for phase in ["complete", "metadata", "counter", "aggregated", "other", "invalid"] {
        assert_eq!(found["total"][phase], expected["total"][phase], "{folder}: total {phase}");
    }
    let files = found["files"].as_array().map_or(0, Vec::len);
    assert_eq!(files, expected["per_file"].as_object().map_or(0, serde_json::Map::len));
    for file in found["files"].as_array().into_iter().flatten() {
        let path = file["path"].as_str().unwrap_or_default();
        let name = path.rsplit('/').next().unwrap_or_default();
        for phase in ["complete", "metadata", "counter", "aggregated", "invalid"] {
            assert_eq!(file[phase], expected["per_file"][name][phase], "{path}: {phase}");
        }
    }
}

#[test]
fn every_generation_counts_as_python_counts() {
    check_against_expected("testdata/generations");
}

#[test]
fn the_sample_counts_as_python_counts() {
    check_against_expected("testdata/sample");
}

#[test]
fn the_json_shape_is_the_documented_one() {
    let found = json(&["count", "--json", "testdata/generations/ndjson-2.2.pfw.gz"], 0);
    let mut keys =
        found["total"].as_object().map(|total| total.keys().cloned().collect::<Vec<_>>()).unwrap_or_default();
    keys.sort();
    assert_eq!(keys, ["aggregated", "complete", "counter", "invalid", "metadata", "other"]);
    assert_eq!(found["files"][0]["path"], "testdata/generations/ndjson-2.2.pfw.gz");
    assert_eq!(found["files"][0]["complete"], 30);
    assert_eq!(found["total"]["aggregated"], 1);
    assert_eq!(found["total"]["counter"], 1);
}

#[test]
fn globs_files_and_directories_are_inputs() {
    let by_glob = json(&["count", "--json", "testdata/sample/trace-0-*.pfw.gz"], 0);
    assert_eq!(by_glob["files"].as_array().map_or(0, Vec::len), 3);
    let mixed = json(&["count", "--json", "testdata/sample", "testdata/generations/v1-hashes.pfw"], 0);
    assert_eq!(mixed["files"].as_array().map_or(0, Vec::len), 7);
    // The same file named twice is read once.
    let twice = json(
        &["count", "--json", "testdata/generations/v1-hashes.pfw", "testdata/generations/./v1-hashes.pfw"],
        0,
    );
    assert_eq!(twice["files"].as_array().map_or(0, Vec::len), 1);
}

#[test]
fn thread_counts_give_identical_results() {
    let one = json(&["count", "--json", "--threads", "1", "testdata"], 0);
    let many = json(&["count", "--json", "--threads", "3", "testdata"], 0);
    assert_eq!(one, many);
}

#[test]
fn the_table_ends_with_a_total_row() {
    let output = ioscout(&["count", "testdata/sample"]);
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    let last = text.lines().last().unwrap_or_default();
    assert!(last.starts_with("total (6 files)"), "{text}");
    assert!(last.contains("2,306"), "{text}");
}

#[test]
fn many_files_do_not_exhaust_file_descriptors() {
    // Per-process traces come by the tens of thousands; handles must not be held for the whole
    // scan. 300 files under a limit of 64 open files.
    let directory = crate::temp_dir("many-files");
    let source = root().join("testdata/generations/ndjson-2.2.pfw.gz");
    for index in 0..300 {
        std::fs::copy(&source, directory.join(format!("trace-{index}.pfw.gz")))
            .unwrap_or_else(|error| panic!("{error}"));
    }
    let script = format!(
        "ulimit -n 64 && exec {} count --json {}",
        env!("CARGO_BIN_EXE_ioscout"),
        directory.display()
    );
    let output = std::process::Command::new("sh")
        .args(["-c", &script])
        .output()
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let found: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap_or_default();
    assert_eq!(found["total"]["complete"], 300 * 30);
    assert_eq!(found["total"]["invalid"], 0, "{}", String::from_utf8_lossy(&output.stderr));
}

/// At 100 columns `diagnose` printed 194 columns, `advise` 326 and `count` 149, and the `count`
/// total row lost its alignment when "total (1 files)" was longer than the file names. At a set
/// width every line fits; without one (a pipe) the output stays as wide as it is.
#[test]
fn text_output_fits_the_terminal_width() {
    let long_name = crate::temp_dir("fits-width").join("a-directory-with-a-rather-long-name-for-its-traces");
    std::fs::create_dir_all(&long_name).unwrap_or_else(|error| panic!("{error}"));
    for entry in std::fs::read_dir(crate::root().join("testdata/sample")).into_iter().flatten().flatten() {
        if entry.path().to_string_lossy().ends_with(".pfw.gz") {
            std::fs::copy(entry.path(), long_name.join(entry.file_name()))
                .unwrap_or_else(|error| panic!("{error}"));
        }
    }
    let long = long_name.to_string_lossy().into_owned();
    let mut inputs = vec!["testdata/sample".to_string(), long];
    if let Some(corpus) = crate::corpus() {
        inputs.push(corpus.join("cm1-48ranks-v1").to_string_lossy().into_owned());
    }
    let columns = std::path::Path::new("100");
    for input in &inputs {
        for command in ["diagnose", "advise", "count", "analyze", "info"] {
            let fitted = crate::ioscout_with(&[command, input], &[("COLUMNS", columns)]);
            let text = String::from_utf8_lossy(&fitted.stdout).into_owned();
            assert!(!text.is_empty(), "{command} {input}: no output");
            for line in text.lines() {
                assert!(
                    line.chars().count() <= 100,
                    "{command} {input}: {} columns: {line}",
                    line.chars().count()
                );
            }
        }
    }
    let wide = crate::ioscout(&["advise", "testdata/sample"]);
    assert!(
        String::from_utf8_lossy(&wide.stdout).lines().any(|line| line.chars().count() > 100),
        "a pipe stays wide"
    );
    // The count table stays aligned when the total label is the longest first cell.
    let single = crate::ioscout(&["count", "testdata/generations/ndjson-2.2.pfw"]);
    let text = String::from_utf8_lossy(&single.stdout).into_owned();
    let lengths: Vec<usize> = text.lines().map(|line| line.chars().count()).collect();
    assert!(lengths.windows(2).all(|pair| pair[0] == pair[1]), "rows differ in length: {text}");
    assert!(text.contains("total (1 file)"), "{text}");
}
