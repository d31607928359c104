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

/// Every trace file of the fixtures (`testdata/`), and its damaged copies.
fn fixture_traces() -> Vec<std::path::PathBuf> {
    let mut found: Vec<std::path::PathBuf> = ["sample", "generations", "validation", "overlap"]
        .iter()
        .flat_map(|folder| ioscout_read::discover(&[root().join("testdata").join(folder)]).0)
        .map(|file| file.path)
        .collect();
    found.sort();
    found
}

/// Damaged copies of `bytes`: cut at a third and at two thirds, a byte in the middle made
/// invalid (0xff, which no UTF-8 text and no intact deflate stream keeps), and the first byte
/// after the gzip header flipped.
fn damaged(bytes: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
    let mut copies = vec![
        ("cut-third", bytes[..bytes.len() / 3].to_vec()),
        ("cut-two-thirds", bytes[..bytes.len() * 2 / 3].to_vec()),
    ];
    let mut middle = bytes.to_vec();
    let at = middle.len() / 2;
    middle[at] = if middle[at] == 0xff { 0x00 } else { 0xff };
    copies.push(("byte-in-the-middle", middle));
    if bytes.starts_with(&[0x1f, 0x8b]) && bytes.len() > 40 {
        let mut early = bytes.to_vec();
        early[20] ^= 0x55;
        copies.push(("deflate-start", early));
    }
    copies
}

/// Truncations, byte flips and wrong extensions of every fixture, a directory of them per
/// command: no panic, the exit code by the documented rule (0 or 1 for findings; the walked
/// files' damage is counted, not fatal), and every damaged file named in the JSON's problems.
/// A gzip file named `.pfw` is read by its content; a plain one named `.pfw.gz` is one problem.
#[test]
fn damaged_copies_of_every_fixture_are_reported_and_never_crash() {
    let directory = temp_dir("damaged-fixtures");
    let mut damaged_names = Vec::new();
    let mut renamed_gzip = Vec::new();
    for (index, path) in fixture_traces().into_iter().enumerate() {
        let bytes = std::fs::read(&path).unwrap_or_default();
        let gzip = bytes.starts_with(&[0x1f, 0x8b]);
        let extension = if gzip { "pfw.gz" } else { "pfw" };
        for (kind, copy) in damaged(&bytes) {
            let name = format!("f{index:02}-{kind}.{extension}");
            std::fs::write(directory.join(&name), copy).unwrap_or_else(|error| panic!("{error}"));
            damaged_names.push(name);
        }
        let wrong = if gzip {
            format!("f{index:02}-gzip-named-plain.pfw")
        } else {
            format!("f{index:02}-plain-named-gzip.pfw.gz")
        };
        std::fs::write(directory.join(&wrong), &bytes).unwrap_or_else(|error| panic!("{error}"));
        if gzip {
            renamed_gzip.push(wrong);
        } else {
            damaged_names.push(wrong);
        }
    }
    assert!(damaged_names.len() > 40, "{} damaged copies", damaged_names.len());
    let path = directory.to_string_lossy().into_owned();
    for command in ["count", "info", "analyze", "diagnose", "advise"] {
        let output = ioscout(&[command, "--json", &path]);
        let notes = stderr(&output);
        assert!(!notes.contains("panicked") && output.status.code() != Some(101), "{command}: {notes}");
        assert!(
            matches!(output.status.code(), Some(0 | 1)),
            "{command}: exit {:?}: {notes}",
            output.status.code()
        );
        let value: serde_json::Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|error| panic!("{command}: {error}: {notes}"));
        let scan = &value["scan"];
        assert_eq!(scan["complete"], false, "{command}");
        let mentioned: std::collections::BTreeSet<String> = scan["problems"]
            .as_array()
            .into_iter()
            .flatten()
            .chain(scan["files_skipped"].as_array().into_iter().flatten())
            .filter_map(|problem| problem["path"].as_str())
            .filter_map(|path| path.rsplit('/').next().map(str::to_string))
            .collect();
        for name in &damaged_names {
            assert!(mentioned.contains(name), "{command}: {name} is damaged but not in the JSON problems");
        }
        for name in &renamed_gzip {
            assert!(
                !mentioned.contains(name),
                "{command}: {name} is whole gzip under a plain name, read by content"
            );
        }
    }
}

/// The same damage to every Darshan fixture: `diagnose` reads what it can and lists the damage,
/// or refuses naming the region and byte offset; never a panic.
#[test]
fn damaged_darshan_fixtures_are_reported_and_never_crash() {
    let directory = temp_dir("damaged-darshan");
    let logs = std::fs::read_dir(root().join("testdata/darshan"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "darshan"));
    let mut checked = 0;
    for log in logs {
        let bytes = std::fs::read(&log).unwrap_or_default();
        let Ok(whole) =
            ioscout_darshan::DarshanLog::open(&log, ioscout_darshan::ReadOptions { partial: false })
        else {
            panic!("{} does not read", log.display())
        };
        // Cuts, and a byte inside each compressed region with data (a log has no checksum of
        // its own: bytes outside the regions are never read, so changing them damages nothing).
        let mut copies: Vec<(String, Vec<u8>)> = damaged(&bytes)
            .into_iter()
            .filter(|(kind, _)| kind.starts_with("cut"))
            .map(|(kind, copy)| (kind.to_string(), copy))
            .collect();
        let regions = std::iter::once(whole.header.job).chain(whole.header.modules.iter().copied());
        for (index, region) in regions.filter(|region| region.length > 8).enumerate() {
            let mut copy = bytes.clone();
            let at = usize::try_from(region.offset + region.length / 2).unwrap_or(0);
            if at < copy.len() {
                copy[at] ^= 0xff;
                copies.push((format!("region-{index}"), copy));
            }
        }
        for (kind, copy) in copies {
            let path = directory
                .join(format!("{}-{kind}.darshan", log.file_stem().unwrap_or_default().to_string_lossy()));
            std::fs::write(&path, copy).unwrap_or_else(|error| panic!("{error}"));
            let output = ioscout(&["diagnose", "--json", &path.to_string_lossy()]);
            let notes = stderr(&output);
            assert!(!notes.contains("panicked"), "{}: {notes}", path.display());
            match output.status.code() {
                Some(0 | 1) => {
                    let value: serde_json::Value = serde_json::from_slice(&output.stdout)
                        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
                    let context = &value["context"];
                    let listed = context["problems"].as_array().is_some_and(|problems| !problems.is_empty())
                        || context["unread_modules"].as_array().is_some_and(|modules| !modules.is_empty());
                    assert!(listed, "{}: damaged, read without a problem listed: {context}", path.display());
                }
                Some(2) => {
                    assert!(
                        notes.contains("byte") || notes.contains("region"),
                        "{}: {notes}",
                        path.display()
                    );
                }
                other => panic!("{}: exit {other:?}: {notes}", path.display()),
            }
            checked += 1;
        }
    }
    assert!(checked >= 9, "{checked} damaged logs");
}

/// `analyze empty.pfw` printed a table of zeros with exit 0 while an empty directory exited 2.
/// One rule now: a path that holds no trace, or traces that hold no event, cannot be analysed
/// (exit 2, one line saying which); `count` still answers 0 for an empty file.
#[test]
fn an_empty_trace_is_no_events_for_every_analysis() {
    let directory = temp_dir("empty-trace");
    let empty = directory.join("empty.pfw");
    std::fs::write(&empty, b"").unwrap_or_else(|error| panic!("{error}"));
    let empty = empty.to_string_lossy().into_owned();
    for command in
        [&["analyze"][..], &["diagnose"], &["advise"], &["report", "-o", "target/empty-report.html"]]
    {
        let mut arguments = command.to_vec();
        arguments.push(&empty);
        let output = ioscout(&arguments);
        let text = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{arguments:?}: {text}");
        assert!(text.contains("no events in") && text.contains("1 file empty"), "{arguments:?}: {text}");
        assert!(output.stdout.is_empty(), "{arguments:?} printed a result");
    }
    let counted = json(&["count", "--json", &empty], 0);
    assert_eq!(counted["total"]["complete"], 0);
}

/// 25 symlinked copies of a trace were counted as one without a word: read once, and said.
#[test]
fn links_to_one_trace_are_read_once_and_said() {
    let directory = temp_dir("linked-traces");
    let trace = directory.join("a.pfw");
    std::fs::copy(root().join("testdata/generations/v1-hashes.pfw"), &trace)
        .unwrap_or_else(|error| panic!("{error}"));
    for index in 0..3 {
        let link = directory.join(format!("copy{index}.pfw"));
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&trace, &link).unwrap_or_else(|error| panic!("{error}"));
    }
    let output = ioscout(&["count", &directory.to_string_lossy()]);
    assert_eq!(output.status.code(), Some(0));
    let text = stderr(&output);
    assert!(text.contains("3 paths are the same file as one read") && text.contains("read once"), "{text}");
    let single = json(&["count", "--json", &directory.to_string_lossy()], 0);
    assert_eq!(single["files"].as_array().map(Vec::len), Some(1));
}
