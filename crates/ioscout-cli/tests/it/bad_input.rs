//! Bad input is counted, located and reported once; other files are still read; `--strict`
//! turns it into exit code 2.

use std::io::Write;

use crate::{ioscout, json, root, stderr, temp_dir};

fn problems(found: &serde_json::Value) -> Vec<(String, String, Option<u64>, Option<u64>)> {
    found["problems"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|problem| {
            (
                problem["path"]
                    .as_str()
                    .unwrap_or_default()
                    .rsplit('/')
                    .next()
                    .unwrap_or_default()
                    .to_string(),
                problem["kind"].as_str().unwrap_or_default().to_string(),
                problem["line"].as_u64(),
                problem["offset"].as_u64(),
            )
        })
        .collect()
}

#[test]
fn every_bad_fixture_is_counted_and_located() {
    let found = json(&["count", "--json", "testdata/bad"], 0);
    let kinds: Vec<(String, String, Option<u64>)> =
        problems(&found).into_iter().map(|(file, kind, line, _)| (file, kind, line)).collect();
    let expected = [
        ("empty.pfw", "empty_file", None),
        ("garbage-line.pfw", "invalid_json", Some(11)),
        ("garbage-line.pfw", "invalid_json", Some(12)),
        ("invalid-utf8.pfw", "invalid_utf8", Some(6)),
        ("trailing-garbage.pfw.gz", "trailing_garbage", None),
        // The cut line comes before the point where the member ends (sorted by byte offset).
        ("truncated.pfw.gz", "invalid_json", Some(39)),
        ("truncated.pfw.gz", "truncated_member", None),
    ];
    let expected: Vec<(String, String, Option<u64>)> =
        expected.iter().map(|(file, kind, line)| ((*file).to_string(), (*kind).to_string(), *line)).collect();
    assert_eq!(kinds, expected);
    assert_eq!(found["total"]["invalid"], 7);
    assert_eq!(found["problem_count"], 7);
    // The good lines of the same files are all there: 30 complete events each, but for the one
    // damaged by invalid UTF-8.
    let complete: Vec<u64> = found["files"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|file| file["complete"].as_u64().unwrap_or(0))
        .collect();
    assert_eq!(complete, vec![0, 30, 29, 30, 30]);
}

#[test]
fn problems_name_file_line_and_byte_offset_on_stderr() {
    let output = ioscout(&["count", "testdata/bad/garbage-line.pfw"]);
    assert_eq!(output.status.code(), Some(0));
    let message = stderr(&output);
    assert!(
        message.contains("testdata/bad/garbage-line.pfw:11 (byte 1729): invalid JSON: not a JSON object; line starts \"this is not json\""),
        "{message}"
    );
    assert!(message.contains("2 problems in 1 file were counted as invalid"), "{message}");
}

#[test]
fn strict_makes_bad_input_an_error() {
    let output = ioscout(&["count", "--strict", "testdata/bad/invalid-utf8.pfw"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("(--strict)"));
    let output = ioscout(&["count", "--strict", "testdata/generations"]);
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn a_missing_file_is_reported_and_the_rest_is_read() {
    // The rest is read and counted, then the typo makes the exit code 2 (ripgrep's rule).
    let found = json(&["count", "--json", "no/such/trace.pfw.gz", "testdata/generations/v1-hashes.pfw"], 2);
    assert_eq!(found["total"]["complete"], 17);
    assert_eq!(found["total"]["invalid"], 1);
    assert_eq!(problems(&found)[0].1, "unreadable");
    let output = ioscout(&["count", "no/such/trace.pfw.gz"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("no trace file could be read"));
}

#[test]
fn a_glob_that_matches_nothing_is_reported() {
    let found = json(&["count", "--json", "testdata/nothing-*.pfw", "testdata/generations/v1-hashes.pfw"], 2);
    assert_eq!(problems(&found)[0].1, "unreadable");
}

/// `count /no/such/path good_dir` only warned and exited 0: a named input that cannot be read is
/// an error after the rest is read; a file found inside a named directory is not.
#[test]
fn a_typo_among_good_paths_exits_2_after_reading_the_rest() {
    let output = ioscout(&["count", "/no/such/path", "testdata/sample"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("1 named input could not be read: /no/such/path"),
        "{}",
        stderr(&output)
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("total"), "the good directory is still counted");
    let directory = temp_dir("walked-unreadable");
    std::fs::copy(root().join("testdata/generations/v1-hashes.pfw"), directory.join("good.pfw"))
        .unwrap_or_else(|error| panic!("{error}"));
    std::os::unix::fs::symlink(directory.join("vanished.pfw.gz"), directory.join("dangling.pfw.gz"))
        .unwrap_or_else(|error| panic!("{error}"));
    let output = ioscout(&["count", &directory.to_string_lossy()]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "a walked file that fails is a counted problem: {}",
        stderr(&output)
    );
    assert!(stderr(&output).contains("dangling.pfw.gz"), "{}", stderr(&output));
}

#[test]
fn a_line_over_one_mebibyte_is_skipped_and_counted() {
    let directory = temp_dir("long-line");
    let path = directory.join("long.pfw");
    let mut file = std::fs::File::create(&path).unwrap_or_else(|error| panic!("{error}"));
    let good = r#"{"id":1,"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":1,"dur":1,"ph":1}"#;
    let long = format!(
        r#"{{"id":2,"name":"{}","cat":"POSIX","pid":1,"tid":1,"ts":1,"dur":1,"ph":1}}"#,
        "x".repeat(1_200_000)
    );
    let _ = writeln!(file, "{good}\n{long}\n{good}");
    drop(file);
    let path = path.to_string_lossy().into_owned();
    let found = json(&["count", "--json", &path], 0);
    assert_eq!(found["total"]["complete"], 2);
    assert_eq!(found["total"]["invalid"], 1);
    let located = problems(&found);
    assert_eq!(located[0].1, "line_too_long");
    assert_eq!(located[0].2, Some(2));
    assert_eq!(located[0].3, Some(good.len() as u64 + 1));
}

/// Random bytes named `.pfw.gz` were read as plain text: 228 "invalid UTF-8" lines and binary
/// junk on stderr. Now one problem, "not gzip", and no control byte reaches the terminal.
#[test]
fn random_bytes_named_gzip_are_one_not_gzip_problem() {
    let directory = temp_dir("not-gzip");
    let junk: Vec<u8> =
        (0..20_000_u32).map(|index| (index.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    std::fs::write(directory.join("junk.pfw.gz"), &junk).unwrap_or_else(|error| panic!("{error}"));
    std::fs::copy(root().join("testdata/generations/v1-hashes.pfw"), directory.join("good.pfw"))
        .unwrap_or_else(|error| panic!("{error}"));
    let found = json(&["count", "--json", &directory.to_string_lossy()], 0);
    let listed = problems(&found);
    let junk_problems: Vec<_> = listed.iter().filter(|problem| problem.0.contains("junk.pfw.gz")).collect();
    assert_eq!(junk_problems.len(), 1, "{listed:?}");
    let output = ioscout(&["count", &directory.to_string_lossy()]);
    let text = stderr(&output);
    assert!(text.contains("not gzip"), "{text}");
    assert!(!text.contains("invalid UTF-8"), "{text}");
    assert!(
        !output.stderr.iter().any(|byte| *byte < 0x20 && *byte != b'\n'),
        "control bytes reached the terminal"
    );
}

/// `--threads 10000` started 10,000 threads (101 s on a 24k-event trace): clamped to four per
/// core, with a warning, and the same counts.
#[test]
fn absurd_thread_counts_are_clamped_with_a_warning() {
    let clamped = ioscout(&["count", "--json", "--threads", "10000", "testdata/sample"]);
    assert_eq!(clamped.status.code(), Some(0), "{}", stderr(&clamped));
    assert!(
        stderr(&clamped).contains("--threads 10000 is more than 4 per core: using"),
        "{}",
        stderr(&clamped)
    );
    let normal = ioscout(&["count", "--json", "testdata/sample"]);
    assert_eq!(clamped.stdout, normal.stdout);
}

/// `analyze`, `diagnose`, `advise` and `index --json` carried no problems: a trace that could not
/// be read left a warning on stderr only. Every `--json` output now carries `scan`.
#[test]
fn every_json_output_carries_the_scan_report() {
    let directory = temp_dir("scan-in-json");
    for name in ["truncated.pfw.gz", "garbage-line.pfw"] {
        std::fs::copy(root().join("testdata/bad").join(name), directory.join(name))
            .unwrap_or_else(|error| panic!("{error}"));
    }
    let path = directory.to_string_lossy().into_owned();
    for command in [
        vec!["analyze", "--json", path.as_str(), "/no/such/trace.pfw"],
        vec!["diagnose", "--json", path.as_str(), "/no/such/trace.pfw"],
        vec!["advise", "--json", path.as_str(), "/no/such/trace.pfw"],
        vec!["index", "--json", path.as_str(), "/no/such/trace.pfw"],
        vec!["count", "--json", path.as_str(), "/no/such/trace.pfw"],
    ] {
        let output = ioscout(&command);
        let value: serde_json::Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|error| panic!("{command:?}: {error}: {}", stderr(&output)));
        let scan = &value["scan"];
        assert_eq!(scan["complete"], false, "{command:?}: {value}");
        assert_eq!(scan["files_read"], 2, "{command:?}: {scan}");
        let skipped = scan["files_skipped"].as_array().cloned().unwrap_or_default();
        assert!(
            skipped.iter().any(|file| file["path"] == "/no/such/trace.pfw" && file["reason"].is_string()),
            "{command:?}: {scan}"
        );
        let problems = scan["problems"].as_array().cloned().unwrap_or_default();
        for name in ["truncated.pfw.gz", "garbage-line.pfw"] {
            assert!(
                problems
                    .iter()
                    .any(|problem| problem["path"].as_str().is_some_and(|path| path.ends_with(name))
                        && (problem["line"].is_u64() || problem["offset"].is_u64())),
                "{command:?}: {name} missing from {scan}"
            );
        }
        assert_eq!(output.status.code(), Some(2), "{command:?}: a named input could not be read");
    }
}
