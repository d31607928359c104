//! Traces still being written: a gzip member cut mid-write is not an error while the file is
//! growing (a note says so, `scan.coverage` lists the file), and is a problem once the file has
//! stopped changing; `analyze --follow` re-analyses as members are appended, keeps the trace's
//! index current by extending it, and ends with the cold analysis of the finished trace.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, SystemTime};

use crate::{ioscout, json, root, temp_dir};

/// One gzip member of `reads` POSIX reads of 4 KiB starting at event `first`, by pid 7 on host
/// `node01`.
fn member(first: u64, reads: u64) -> Vec<u8> {
    member_of(("a1", "node01"), 7, first, reads)
}

/// [`member`] of process `pid` on `host` (its token and name; the first member names it).
fn member_of(host: (&str, &str), pid: u64, first: u64, reads: u64) -> Vec<u8> {
    let (token, name) = host;
    let mut text = String::new();
    if first == 0 {
        let _ = writeln!(
            text,
            "{{\"id\":0,\"name\":\"HH\",\"cat\":\"dftracer\",\"pid\":{pid},\"tid\":{pid},\"ph\":\"M\",\"args\":{{\"hhash\":\"{token}\",\"name\":\"{name}\",\"value\":\"{token}\"}}}}"
        );
    }
    for index in first..first + reads {
        let _ = writeln!(
            text,
            "{{\"id\":{index},\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":{pid},\"tid\":{pid},\"ts\":{},\"dur\":50,\"ph\":1,\"args\":{{\"hhash\":\"{token}\",\"ret\":4096,\"count\":4096,\"fname\":\"/data/a\"}}}}",
            1_000_000 + index * 100
        );
    }
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let _ = encoder.write_all(text.as_bytes());
    encoder.finish().unwrap_or_default()
}

fn append(path: &Path, bytes: &[u8]) {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    file.write_all(bytes).unwrap_or_else(|error| panic!("{error}"));
    file.flush().unwrap_or_else(|error| panic!("{error}"));
}

fn without_coverage(mut value: serde_json::Value) -> serde_json::Value {
    if let Some(scan) = value.get_mut("scan").and_then(serde_json::Value::as_object_mut) {
        scan.remove("coverage");
    }
    value
}

#[test]
fn a_member_cut_mid_write_is_a_note_while_the_file_grows_and_a_problem_once_it_stopped() {
    let folder = temp_dir("live-cut");
    let trace = folder.join("trace-0.pfw.gz");
    append(&trace, &member(0, 50));
    let second = member(50, 50);
    append(&trace, &second[..second.len() / 2]);
    // A second process, finished an hour ago, whose events run later than the cut: the same pid
    // on another host.
    let finished = folder.join("trace-1.pfw.gz");
    append(&finished, &member_of(("b2", "node02"), 7, 0, 200));
    let hour_ago = SystemTime::now() - Duration::from_hours(1);
    std::fs::File::options()
        .write(true)
        .open(&finished)
        .and_then(|file| file.set_modified(hour_ago))
        .unwrap_or_else(|error| panic!("{error}"));
    let folder_path = folder.to_string_lossy().into_owned();
    // Just written: growing, the cut member is no problem, --strict included.
    let output = ioscout(&["analyze", "--json", "--strict", &folder_path]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(stderr.contains("still being written: its last gzip member is not finished"), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap_or_default();
    let coverage = &value["scan"]["coverage"];
    assert_eq!(coverage["still_being_written"], true, "{coverage}");
    // The JSON says what the text and the exit code say: the scan read its input cleanly (the
    // problems it keeps are the unfinished member and the line it cuts).
    assert_eq!(value["scan"]["complete"], true, "{}", value["scan"]);
    assert!(value["scan"]["problem_count"].as_u64().is_some_and(|count| count > 0), "{}", value["scan"]);
    let growth = coverage["files_growing"][0]["growth"].as_array().cloned().unwrap_or_default();
    assert!(growth.contains(&serde_json::json!("unfinished_member")), "{coverage}");
    assert_eq!(coverage["files_complete"], 1, "{coverage}");
    // The processes: pid 7 on node01 is being written, pid 7 on node02 is complete.
    assert_eq!(coverage["processes"]["complete"], 1, "{coverage}");
    assert_eq!(
        coverage["processes"]["growing_processes"],
        serde_json::json!([{"host": "node01", "pid": 7}]),
        "{coverage}"
    );
    // The span: 0 to the end of node02's last read; every event is in up to where node01's file
    // stops (its last whole line), which is before the end.
    let span = &coverage["span"];
    assert_eq!(span["start_us"], 1_000_000, "{coverage}");
    assert_eq!(span["end_us"], 1_000_000 + 199 * 100 + 50, "{coverage}");
    let until = span["complete_until_s"].as_f64().unwrap_or(f64::NAN);
    assert_eq!(coverage["files_growing"][0]["written_until_s"].as_f64(), Some(until), "{coverage}");
    assert!((0.0049..0.0099).contains(&until), "{coverage}");
    assert!(stderr.contains("1 of 2 processes still being written; every event before"), "{stderr}");
    // The events of the cut member before the cut are read (what is there).
    assert!(
        value["raw_stats"]["total_event_count"].as_u64().is_some_and(|count| (250..300).contains(&count)),
        "{value}"
    );
    // The report says so at the top of the page.
    let page = folder.join("report.html");
    let report = ioscout(&["report", &folder_path, "-o", &page.to_string_lossy()]);
    assert_eq!(report.status.code(), Some(0), "{}", String::from_utf8_lossy(&report.stderr));
    let html = std::fs::read_to_string(&page).unwrap_or_default();
    assert!(html.contains("<strong>Still being written.</strong> 1 of 2 files"), "the report's note");
    assert!(html.contains("1 of 2 processes still being written"), "the report's note names processes");
    // Ranks are known by pid, and pid 7 runs on two hosts: the page says why rank 0 is not drawn.
    assert!(html.contains("No rank-0 chart: pid 7, which the trace ranks 0, runs on 2 hosts"), "rank 0");
    assert!(!html.contains("id=\"chart-rank-zero\""), "no rank-0 chart");
    std::fs::remove_file(&page).unwrap_or_else(|error| panic!("{error}"));
    // An hour later, nothing changed: the cut member is damage, a problem (--strict: exit 2).
    std::fs::File::options()
        .write(true)
        .open(&trace)
        .and_then(|file| file.set_modified(hour_ago))
        .unwrap_or_else(|error| panic!("{error}"));
    let stale = ioscout(&["analyze", "--json", "--strict", &folder_path]);
    assert_eq!(stale.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&stale.stderr).into_owned();
    assert!(
        stderr.contains("the file ends inside this gzip member") && !stderr.contains("still being written"),
        "{stderr}"
    );
    let value = json(&["analyze", "--json", &folder_path], 0);
    assert_eq!(value["scan"]["coverage"]["still_being_written"], false);
    assert_eq!(value["scan"]["complete"], false, "{}", value["scan"]);
    assert_eq!(value["scan"]["coverage"]["files_complete"], 2);
    assert_eq!(value["scan"]["coverage"]["processes"]["growing"], 0);
    assert_eq!(
        value["scan"]["coverage"]["span"]["complete_until_s"],
        value["scan"]["coverage"]["span"]["seconds"]
    );
    let _ = std::fs::remove_dir_all(&folder);
}

#[test]
fn follow_reanalyses_as_members_are_appended_and_ends_with_the_cold_result() {
    let folder = temp_dir("live-follow");
    let trace = folder.join("trace-0.pfw.gz");
    append(&trace, &member(0, 40));
    let folder_path = folder.to_string_lossy().into_owned();
    let indexed = json(&["index", "--json", &folder_path], 0);
    assert_eq!(indexed["directories"][0]["indexed_files"], 1, "{indexed}");
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_ioscout"))
        .current_dir(root())
        .args(["analyze", "--follow", "--interval", "0.1", "--settle", "2", "--json", &folder_path])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("{error}"));
    // The writer: four more members, 300 ms apart, the third written in two halves 500 ms apart.
    for step in 1..=4_u64 {
        std::thread::sleep(Duration::from_millis(300));
        let bytes = member(step * 40, 40);
        if step == 3 {
            append(&trace, &bytes[..bytes.len() / 3]);
            std::thread::sleep(Duration::from_millis(500));
            append(&trace, &bytes[bytes.len() / 3..]);
        } else {
            append(&trace, &bytes);
        }
    }
    let output = child.wait_with_output().unwrap_or_else(|error| panic!("{error}"));
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|line| line.starts_with("ioscout: follow:")).collect();
    assert!(lines.len() >= 2, "{stderr}");
    assert!(lines.iter().any(|line| line.contains("still being written")), "{stderr}");
    assert!(lines.iter().skip(1).any(|line| line.contains("(+40 events")), "{stderr}");
    // Later looks read only the appended members of the one file.
    assert!(lines[0].contains("(0 extended, 0 unchanged, 1 read whole)"), "{stderr}");
    assert!(
        lines.iter().skip(1).any(|line| line.contains("(1 extended, 0 unchanged, 0 read whole)")),
        "{stderr}"
    );
    assert!(lines.iter().any(|line| line.contains("1 of 1 process still being written")), "{stderr}");
    // The index was kept current by extending the file's record, never by reading it whole.
    assert!(lines.iter().any(|line| line.contains("index: 1 file extended, 0 indexed whole")), "{stderr}");
    let query = ioscout(&["query", "--group-by", "name", &folder_path]);
    let query_stderr = String::from_utf8_lossy(&query.stderr).into_owned();
    assert!(!query_stderr.contains("does not cover"), "the index is current: {query_stderr}");
    let refreshed = json(&["index", "--json", &folder_path], 0);
    assert_eq!(refreshed["directories"][0]["unchanged_files"], 1, "{refreshed}");
    assert_eq!(refreshed["directories"][0]["indexed_files"], 0, "{refreshed}");
    assert!(!stderr.contains("warning"), "{stderr}");
    let followed: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap_or_default();
    assert_eq!(followed["raw_stats"]["total_event_count"], 200, "{stderr}");
    let cold = json(&["analyze", "--json", &folder_path], 0);
    assert_eq!(without_coverage(followed), without_coverage(cold));
    let _ = std::fs::remove_dir_all(&folder);
}
