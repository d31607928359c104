//! Bad input is counted, located and reported once; other files are still read; `--strict`
//! turns it into exit code 2.

use std::io::Write;

use crate::{ioscout, json, stderr, temp_dir};

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
    assert!(message.contains("2 problems in 1 files were counted as invalid"), "{message}");
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
    let found = json(&["count", "--json", "no/such/trace.pfw.gz", "testdata/generations/v1-hashes.pfw"], 0);
    assert_eq!(found["total"]["complete"], 17);
    assert_eq!(found["total"]["invalid"], 1);
    assert_eq!(problems(&found)[0].1, "unreadable");
    let output = ioscout(&["count", "no/such/trace.pfw.gz"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("no trace file could be read"));
}

#[test]
fn a_glob_that_matches_nothing_is_reported() {
    let found = json(&["count", "--json", "testdata/nothing-*.pfw", "testdata/generations/v1-hashes.pfw"], 0);
    assert_eq!(problems(&found)[0].1, "unreadable");
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
