//! `ioscout darshan summary|dump`, and `info`/`diagnose` on Darshan logs, on the bundled
//! fixtures (`testdata/darshan`).

use crate::{ioscout, root};

fn fixture(name: &str) -> String {
    root().join("testdata/darshan").join(name).to_string_lossy().into_owned()
}

fn stdout(output: &std::process::Output) -> String {
    assert!(output.status.success(), "failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn dump_prints_darshan_parser_text() {
    let expected = std::fs::read_to_string(root().join("testdata/darshan/mpi-io-test-x86_64-3.5.0.base.txt"))
        .unwrap_or_default();
    let output = ioscout(&["darshan", "dump", &fixture("mpi-io-test-x86_64-3.5.0.darshan")]);
    assert_eq!(stdout(&output), expected);
}

#[test]
fn summary_json_names_darshan_counters() {
    let output = ioscout(&["darshan", "summary", "--json", &fixture("mpi-io-test-x86_64-3.5.0.darshan")]);
    let value: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap_or_default();
    assert_eq!(value["version"], "3.41");
    assert_eq!(value["nprocs"], 4);
    assert_eq!(value["POSIX"]["records"], 1);
    assert_eq!(value["POSIX"]["POSIX_OPENS"], 16);
    assert_eq!(value["POSIX"]["POSIX_BYTES_WRITTEN"], 67_108_864);
    assert_eq!(value["MPI-IO"]["MPIIO_INDEP_WRITES"], 4);
    assert_eq!(value["STDIO"]["STDIO_WRITES"], 6);
    let modules: Vec<&str> =
        value["modules"].as_array().into_iter().flatten().filter_map(|m| m.as_str()).collect();
    assert_eq!(modules, ["POSIX", "MPI-IO", "LUSTRE", "STDIO", "HEATMAP"]);
}

#[test]
fn info_and_diagnose_accept_darshan_logs() {
    let info = stdout(&ioscout(&["info", &fixture("mpi-io-test-ppc64-3.0.0.darshan")]));
    assert!(info.contains("format 3.00, 4 processes"), "{info}");
    let output =
        ioscout(&["diagnose", "--rules", "drishti", "--json", &fixture("mpi-io-test-x86_64-3.5.0.darshan")]);
    let value: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap_or_default();
    let mut codes: Vec<&str> =
        value["facts"].as_array().into_iter().flatten().filter_map(|f| f["fact_type"].as_str()).collect();
    codes.sort_unstable();
    // Drishti 0.8 on this log: P12, P14, M06, M07 (drishti-0.8/codes_by_log.tsv).
    assert_eq!(codes, ["M06", "M07", "P12", "P14"]);
    assert_eq!(value["context"]["source"], "darshan");
}

#[test]
fn mixing_logs_and_traces_is_refused() {
    let output = ioscout(&["diagnose", &fixture("mpi-io-test-x86_64-3.5.0.darshan"), "testdata/sample"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("separately"));
}

#[test]
fn a_damaged_log_fails_with_the_region_named_or_reads_with_partial() {
    let data =
        std::fs::read(root().join("testdata/darshan/mpi-io-test-x86_64-3.5.0.darshan")).unwrap_or_default();
    let directory = std::env::temp_dir().join(format!("ioscout-darshan-cli-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&directory);
    let path = directory.join("cut.darshan");
    let _ = std::fs::write(&path, &data[..data.len() - 200]);
    let path = path.to_string_lossy().into_owned();
    let output = ioscout(&["darshan", "summary", &path]);
    assert_eq!(output.status.code(), Some(2));
    let message = String::from_utf8_lossy(&output.stderr);
    assert!(message.contains("module region") && message.contains("truncated"), "{message}");
    let output = ioscout(&["darshan", "summary", "--partial", &path]);
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("warning"));
    let _ = std::fs::remove_dir_all(&directory);
}

/// A copy of the fixture cut at the start of module `module_id`'s region (that module and every
/// later one unread).
fn cut_at_module(name: &str, module_id: usize) -> std::path::PathBuf {
    let source = root().join("testdata/darshan/mpi-io-test-x86_64-3.5.0.darshan");
    let data = std::fs::read(&source).unwrap_or_default();
    let log = ioscout_darshan::DarshanLog::open(&source, ioscout_darshan::ReadOptions { partial: false })
        .unwrap_or_else(|error| panic!("{error}"));
    let offset = usize::try_from(log.header.modules[module_id].offset).unwrap_or(0);
    assert!(offset > 0 && offset < data.len(), "module {module_id} has a region");
    let directory =
        std::env::temp_dir().join(format!("ioscout-darshan-unread-{}-{name}", std::process::id()));
    let _ = std::fs::create_dir_all(&directory);
    let path = directory.join(format!("{name}.darshan"));
    std::fs::write(&path, &data[..offset]).unwrap_or_else(|error| panic!("{error}"));
    path
}

/// A log whose MPI-IO region is truncated (0 MPI-IO records read) got M06/M07 "no non-blocking
/// MPI-IO"; one where no module could be read got findings too. No rule fires on a module with
/// no records read, and every output names the modules that were not read.
#[test]
fn rules_never_fire_on_modules_that_were_not_read() {
    let mpiio_cut = cut_at_module("mpiio-cut", ioscout_darshan::id::MPIIO);
    let path = mpiio_cut.to_string_lossy().into_owned();
    let output = ioscout(&["diagnose", "--json", "--rules", "drishti", &path]);
    assert!(
        output.status.code().is_some_and(|code| code <= 1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let value: serde_json::Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|error| panic!("{error}"));
    let unread = value["context"]["unread_modules"].as_array().cloned().unwrap_or_default();
    assert!(unread.iter().any(|module| module == "MPI-IO"), "{value}");
    let codes: Vec<&str> = value["facts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|fact| fact["fact_type"].as_str())
        .collect();
    for code in ["M01", "M02", "M03", "M04", "M05", "M06", "M07"] {
        assert!(!codes.contains(&code), "{code} fired on an unread MPI-IO module: {codes:?}");
    }
    assert!(codes.iter().any(|code| code.starts_with('P') || *code == "S01"), "POSIX was read: {codes:?}");
    let text = ioscout(&["diagnose", &path]);
    assert!(
        String::from_utf8_lossy(&text.stdout).contains("not read (damaged region"),
        "{}",
        String::from_utf8_lossy(&text.stdout)
    );
    let summary = ioscout(&["darshan", "summary", "--json", "--partial", &path]);
    let summary: serde_json::Value = serde_json::from_slice(&summary.stdout).unwrap_or_default();
    assert!(
        summary["unread_modules"]
            .as_array()
            .is_some_and(|modules| modules.iter().any(|module| module == "MPI-IO")),
        "{summary}"
    );

    let nothing = cut_at_module("nothing-read", ioscout_darshan::id::POSIX);
    let path = nothing.to_string_lossy().into_owned();
    let output = ioscout(&["diagnose", "--json", &path]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let value: serde_json::Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        value["facts"].as_array().map(Vec::len),
        Some(0),
        "findings on a log with nothing read: {value}"
    );
    assert!(
        value["context"]["unread_modules"]
            .as_array()
            .is_some_and(|modules| modules.iter().any(|module| module == "POSIX")),
        "{value}"
    );
    for path in [mpiio_cut, nothing] {
        let _ = std::fs::remove_dir_all(path.parent().unwrap_or(&path));
    }
}

/// `info DIR_OF_DARSHAN_LOGS` failed with "holds no *.pfw": a directory of logs is read as its
/// logs wherever a command takes logs.
#[test]
fn a_directory_of_darshan_logs_is_read_as_its_logs() {
    let directory = root().join("testdata/darshan").to_string_lossy().into_owned();
    let output = ioscout(&["info", "--json", &directory]);
    let value: serde_json::Value =
        serde_json::from_str(&stdout(&output)).unwrap_or_else(|error| panic!("{error}"));
    let logs = value.as_array().map_or(1, Vec::len);
    assert_eq!(logs, 3, "every fixture log: {value}");
    let output = ioscout(&["diagnose", &directory]);
    assert!(
        output.status.code().is_some_and(|code| code <= 1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("mpi-io-test-x86_64-3.5.0.darshan"));
}

/// Error chains printed twice ("/no/such.darshan: No such file ..." and then "No such file ..."
/// again): each cause is printed once.
#[test]
fn an_error_and_its_causes_are_printed_once() {
    let output = ioscout(&["darshan", "dump", "/no/such.darshan"]);
    assert_eq!(output.status.code(), Some(2));
    let message = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(message.matches("No such file or directory").count(), 1, "{message}");
    assert!(message.contains("/no/such.darshan"), "{message}");
}

/// The totals `darshan summary --json` gives one log (an independent path: the per-module counter
/// totals), as (program, bytes read, bytes written, metadata time) over POSIX and STDIO.
fn one_log_totals(log: &str) -> Option<(String, u64, u64, f64)> {
    let output = ioscout(&["darshan", "summary", "--json", log]);
    if !output.status.success() {
        return None;
    }
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).ok()?;
    let exe = value["exe"].as_str().unwrap_or_default();
    let program =
        exe.split_whitespace().next().unwrap_or_default().rsplit('/').next().unwrap_or_default().to_string();
    let (mut read, mut written, mut meta) = (0_u64, 0_u64, 0.0);
    for module in ["POSIX", "STDIO"] {
        let entry = &value[module];
        read += entry[format!("{module}_BYTES_READ")].as_i64().unwrap_or(0).max(0) as u64;
        written += entry[format!("{module}_BYTES_WRITTEN")].as_i64().unwrap_or(0).max(0) as u64;
        meta += entry[format!("{module}_F_META_TIME")].as_f64().unwrap_or(0.0).max(0.0);
    }
    Some((program, read, written, meta))
}

fn summary_over(arguments: &[&str]) -> serde_json::Value {
    let output = ioscout(&[&["darshan", "summary", "--json"], arguments].concat());
    serde_json::from_str(&stdout(&output)).unwrap_or_default()
}

/// Each group's bytes and metadata time equal the sums of the per-log summaries of its logs; the
/// top lists are ranked and as long as asked; an unreadable file is counted, named, left out.
fn check_groups(logs: &[String], summary: &serde_json::Value) {
    let mut expected: std::collections::BTreeMap<String, (usize, u64, u64, f64)> =
        std::collections::BTreeMap::new();
    for log in logs {
        let Some((program, read, written, meta)) = one_log_totals(log) else { continue };
        let entry = expected.entry(program).or_default();
        entry.0 += 1;
        entry.1 += read;
        entry.2 += written;
        entry.3 += meta;
    }
    let groups = summary["groups"].as_array().cloned().unwrap_or_default();
    assert_eq!(groups.len(), expected.len(), "{summary}");
    for group in &groups {
        let key = group["key"].as_str().unwrap_or_default();
        let (count, read, written, meta) = expected[key];
        assert_eq!(group["logs"], count, "{key}");
        assert_eq!(group["bytes_read"], read, "{key}");
        assert_eq!(group["bytes_written"], written, "{key}");
        let found = group["meta_time_s"].as_f64().unwrap_or(-1.0);
        assert!((found - meta).abs() <= 1e-6 * meta.max(1.0), "{key}: {found} against {meta}");
    }
    let times: Vec<f64> = groups.iter().filter_map(|group| group["io_time_s"].as_f64()).collect();
    assert!(times.windows(2).all(|pair| pair[0] >= pair[1]), "groups most I/O time first: {times:?}");
}

#[test]
fn a_summary_over_logs_groups_them_and_lists_the_top_jobs_and_files() {
    let folder = crate::temp_dir("darshan-many");
    let logs: Vec<String> = [
        "mpi-io-test-x86_64-3.5.0.darshan",
        "mpi-io-test-x86_64-3.1.3.darshan",
        "mpi-io-test-ppc64-3.0.0.darshan",
    ]
    .iter()
    .map(|name| fixture(name))
    .collect();
    for (index, log) in logs.iter().enumerate() {
        let _ = std::fs::copy(log, folder.join(format!("log{index}.darshan")));
    }
    std::fs::write(folder.join("broken.darshan"), b"not a log").unwrap_or_else(|error| panic!("{error}"));
    let folder_path = folder.to_string_lossy().into_owned();
    let summary = summary_over(&["--group-by", "exe", "--top", "2", &folder_path]);
    assert_eq!(summary["logs"], 4);
    assert_eq!(summary["logs_read"], 3);
    let unreadable = summary["unreadable"].as_array().cloned().unwrap_or_default();
    assert_eq!(unreadable.len(), 1);
    assert!(unreadable[0]["log"].as_str().is_some_and(|log| log.ends_with("broken.darshan")));
    check_groups(&logs, &summary);
    let jobs = summary["top_jobs"].as_array().cloned().unwrap_or_default();
    assert_eq!(jobs.len(), 2);
    let time = |job: &serde_json::Value| {
        job["read_time_s"].as_f64().unwrap_or(0.0)
            + job["write_time_s"].as_f64().unwrap_or(0.0)
            + job["meta_time_s"].as_f64().unwrap_or(0.0)
    };
    assert!(time(&jobs[0]) >= time(&jobs[1]));
    assert_eq!(summary["top_files"].as_array().map(Vec::len), Some(2));
    // By processes: every log read is in one group.
    let by_processes = summary_over(&["--group-by", "nprocs", "--by", "bytes", &folder_path]);
    let total: u64 = by_processes["groups"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|group| group["logs"].as_u64())
        .sum();
    assert_eq!(total, 3);
    assert_eq!(by_processes["by"], "bytes");
    // The text says what was not read.
    let text = stdout(&ioscout(&["darshan", "summary", "--group-by", "user", &folder_path]));
    assert!(text.starts_with("3 of 4 logs read, 1 not readable"), "{text}");
    assert!(text.contains("Top 3 jobs by I/O time") && text.contains("By user id"), "{text}");
    // Nothing readable is an error.
    let none =
        ioscout(&["darshan", "summary", "--top", "3", &folder.join("broken.darshan").to_string_lossy()]);
    assert_eq!(none.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&none.stderr).contains("none of the 1 logs could be read"));
    let _ = std::fs::remove_dir_all(&folder);
}

#[test]
fn a_summary_over_every_corpus_log_groups_by_program() {
    let Some((root, logs)) = corpus_logs() else { return };
    let summary = summary_over(&["--group-by", "exe", "--top", "5", &root.to_string_lossy()]);
    assert_eq!(summary["logs"], logs.len());
    let unreadable = summary["unreadable"].as_array().map_or(0, Vec::len);
    assert_eq!(summary["logs_read"].as_u64().unwrap_or(0) as usize + unreadable, logs.len());
    check_groups(&logs, &summary);
    assert_eq!(summary["top_jobs"].as_array().map(Vec::len), Some(5));
}

/// The corpus's log directory and its logs (sorted, at least 100), or `None` after saying the
/// test skipped.
fn corpus_logs() -> Option<(std::path::PathBuf, Vec<String>)> {
    let root = ioscout_testkit::corpus("darshan/logs")?;
    let logs: Vec<String> = ioscout_testkit::files_under(&root, "darshan")
        .iter()
        .map(|path| path.to_string_lossy().into_owned())
        .collect();
    assert!(logs.len() >= 100, "{} logs", logs.len());
    Some((root, logs))
}

/// The commands that read traces only, each with the arguments it needs besides its input.
const TRACE_COMMANDS: [&[&str]; 1] = [&["index", "--index-dir", "target/refused-log-index"]];

/// The commands that read a log's DXT segments as events, each with the arguments it needs
/// besides its input.
const SEGMENT_COMMANDS: [&[&str]; 5] = [
    &["view", "--limit", "20"],
    &["query", "--where", "module in (POSIX, MPIIO) and length >= 0 and end >= 0", "--limit", "20"],
    &["query", "--group-by", "rank,op", "--agg", "count,sum:dur,sum:size"],
    &["export", "--format", "chrome-json", "-o", "target/segments-export.json"],
    &["export", "--format", "parquet", "-o", "target/segments-export.parquet"],
];

/// Runs every command reading DXT segments on `log`: each gives rows with exit 0, or, for a log
/// without DXT, one line with exit 2 that says so and leaves no file; `count` counts with exit
/// 0 either way; no line of the log's bytes anywhere.
fn segments_read_or_refused(log: &str) {
    let count = crate::json(&["count", "--json", log], 0);
    assert_eq!(count["kind"], "darshan", "{log}");
    let has_dxt = count["logs"][0]["modules"].as_array().is_some_and(|modules| !modules.is_empty());
    for command in SEGMENT_COMMANDS {
        let written = command.iter().position(|word| *word == "-o").map(|at| root().join(command[at + 1]));
        if let Some(path) = &written {
            let _ = std::fs::remove_file(path);
        }
        let mut arguments = command.to_vec();
        arguments.push(log);
        let output = ioscout(&arguments);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("UTF-8"), "{arguments:?}: {stderr}");
        if has_dxt {
            assert_eq!(output.status.code(), Some(0), "{arguments:?}: {stderr}");
            assert!(
                written.as_ref().map_or(!output.stdout.is_empty(), |path| path.exists()),
                "{arguments:?} gave nothing"
            );
        } else {
            assert_eq!(output.status.code(), Some(2), "{arguments:?}: {stderr}");
            assert_eq!(stderr.lines().count(), 1, "{arguments:?}: {stderr}");
            assert!(stderr.contains("has no DXT module"), "{arguments:?}: {stderr}");
            assert!(written.is_none_or(|path| !path.exists()), "{arguments:?} left a file");
        }
    }
}

/// Runs every trace-only command on `log` and holds each to a one-line refusal with exit 2: the
/// log is named, never decoded as lines, and no output file is left behind.
fn refused_by_trace_commands(log: &str) {
    let leftover = "target/refused-log-export.json";
    let _ = std::fs::remove_file(root().join(leftover));
    for command in TRACE_COMMANDS {
        let mut arguments = command.to_vec();
        arguments.push(log);
        let output = ioscout(&arguments);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{arguments:?}: {stderr}");
        assert!(
            output.stdout.is_empty(),
            "{arguments:?} printed {}",
            String::from_utf8_lossy(&output.stdout)
        );
        assert_eq!(stderr.lines().count(), 1, "{arguments:?}: {stderr}");
        assert!(stderr.contains("Darshan log") && stderr.contains("read logs"), "{arguments:?}: {stderr}");
        assert!(!stderr.contains("UTF-8"), "{arguments:?}: {stderr}");
    }
    assert!(!root().join(leftover).exists(), "{leftover} was written for {log}");
}

#[test]
fn trace_commands_refuse_a_darshan_log_in_one_line() {
    for log in ["mpi-io-test-ppc64-3.0.0.darshan", "mpi-io-test-x86_64-3.5.0.darshan"] {
        refused_by_trace_commands(&fixture(log));
        segments_read_or_refused(&fixture(log));
    }
    // The content decides, not the name: a log named as a trace, and a log cut short.
    let folder = root().join("target/refused-logs");
    std::fs::create_dir_all(&folder).unwrap_or_else(|error| panic!("{error}"));
    let bytes =
        std::fs::read(fixture("mpi-io-test-x86_64-3.5.0.darshan")).unwrap_or_else(|error| panic!("{error}"));
    let renamed = folder.join("renamed.pfw");
    std::fs::write(&renamed, &bytes).unwrap_or_else(|error| panic!("{error}"));
    refused_by_trace_commands(&renamed.to_string_lossy());
    reported_as_a_job_summary(&renamed.to_string_lossy());
    let cut = folder.join("cut.darshan");
    std::fs::write(&cut, &bytes[..bytes.len() / 3]).unwrap_or_else(|error| panic!("{error}"));
    refused_by_trace_commands(&cut.to_string_lossy());
    let output = ioscout(&["view", &cut.to_string_lossy()]);
    assert_eq!(output.status.code(), Some(2), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(String::from_utf8_lossy(&output.stderr).lines().count(), 1);
    // Cut inside its header: nothing to summarise; one line naming the byte, exit 2, no page.
    let page = root().join("target/cut-log-report.html");
    let _ = std::fs::remove_file(&page);
    let output = ioscout(&["report", "-o", &page.to_string_lossy(), &cut.to_string_lossy()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("header at byte"), "{stderr}");
    assert!(!page.exists(), "a page was written for a log cut in its header");
    // A directory of logs only is refused as logs.
    let directory = folder.join("logs");
    std::fs::create_dir_all(&directory).unwrap_or_else(|error| panic!("{error}"));
    std::fs::write(directory.join("one.darshan"), &bytes).unwrap_or_else(|error| panic!("{error}"));
    refused_by_trace_commands(&directory.to_string_lossy());
    let _ = std::fs::remove_dir_all(&folder);
}

#[test]
fn trace_commands_refuse_every_corpus_log_in_one_line() {
    let Some((_, logs)) = corpus_logs() else { return };
    for log in &logs {
        refused_by_trace_commands(log);
        segments_read_or_refused(log);
        analyzed_by_modules(log);
        reported_as_a_job_summary(log);
    }
}

/// `count LOG`'s DXT segments per module equal PyDarshan 3.5.0's (darshan-util's C reader) on
/// every DXT log of the corpus: records, read and write segments, and their bytes
/// (`testdata/darshan/expected-dxt-pydarshan-3.5.0.json`, made by `make-dxt-oracle.py`).
#[test]
fn dxt_segments_count_as_pydarshan_reads_them() {
    let Some(corpus) = ioscout_testkit::corpus("darshan") else { return };
    let oracle = std::fs::read_to_string(root().join("testdata/darshan/expected-dxt-pydarshan-3.5.0.json"))
        .unwrap_or_else(|error| panic!("{error}"));
    let oracle: serde_json::Value = serde_json::from_str(&oracle).unwrap_or_else(|error| panic!("{error}"));
    let logs = oracle.as_object().cloned().unwrap_or_default();
    assert_eq!(logs.len(), 21, "the corpus's DXT logs");
    for (relative, expected) in &logs {
        let log = corpus.join(relative).to_string_lossy().into_owned();
        let count = crate::json(&["count", "--json", "-q", &log], 0);
        let modules = count["logs"][0]["modules"].as_array().cloned().unwrap_or_default();
        let expected = expected.as_object().cloned().unwrap_or_default();
        assert_eq!(modules.len(), expected.len(), "{relative}: {modules:?}");
        for module in &modules {
            let name = module["module"].as_str().unwrap_or_default();
            for (key, value) in expected[name].as_object().into_iter().flatten() {
                assert_eq!(&module[key], value, "{relative} {name} {key}");
            }
            assert_eq!(module["left_out"], 0, "{relative} {name}");
        }
    }
}

/// A log's DXT segments as events (the bundled 4-process `mpi-io-test` of Darshan 3.1.3, whose
/// DXT POSIX and MPI-IO modules hold one 16 MiB write and one read per rank): the same filters,
/// groups and outputs as a trace's events, with the figures PyDarshan reads.
#[test]
fn dxt_segments_are_events_for_view_query_export_and_count() {
    let log = fixture("mpi-io-test-x86_64-3.1.3.darshan");
    let count = crate::json(&["count", "--json", &log], 0);
    for module in ["DXT_POSIX", "DXT_MPIIO"] {
        let entry = count["logs"][0]["modules"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|entry| entry["module"] == module)
            .cloned()
            .unwrap_or_default();
        for (key, value) in [("records", 4), ("reads", 4), ("writes", 4)] {
            assert_eq!(entry[key], value, "{module} {key}");
        }
        assert_eq!(entry["read_bytes"], 67_108_864, "{module}");
        assert_eq!(entry["write_bytes"], 67_108_864, "{module}");
    }
    let output = ioscout(&["view", &log]);
    let rows: Vec<serde_json::Value> = stdout(&output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|error| panic!("{error}: {line}")))
        .collect();
    assert_eq!(rows.len(), 16);
    for row in &rows {
        assert_eq!(row["ph"], "X");
        assert!(matches!(row["name"].as_str(), Some("read" | "write")), "{row}");
        assert!(matches!(row["cat"].as_str(), Some("POSIX" | "MPIIO")), "{row}");
        assert!((0..4).contains(&row["pid"].as_i64().unwrap_or(-1)), "{row}");
        assert!(row["file"] == "/tmp/test/mpi-io-test.tmp.dat", "{row}");
        assert_eq!(row["args"]["ret"], 16_777_216, "{row}");
        assert!(row["dur"].as_i64().is_some_and(|dur| dur >= 0), "{row}");
    }
    // Darshan's words for the fields: the POSIX writes of ranks 1-3, each 16 MiB at its offset.
    let output = ioscout(&[
        "query",
        "--where",
        "module == POSIX and op == write and rank >= 1 and end > 0 and length == 16777216",
        "--select",
        "rank,offset,length",
        "--format",
        "csv",
        &log,
    ]);
    let text = stdout(&output);
    let mut lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.remove(0), "pid,args.offset,args.ret");
    lines.sort_unstable();
    assert_eq!(lines, ["1,16777216,16777216", "2,33554432,16777216", "3,50331648,16777216"]);
    // Groups: bytes count at POSIX (MPI-IO's pass through it), as for traces.
    let output =
        ioscout(&["query", "--group-by", "module,op", "--agg", "count,sum:size", "--format", "csv", &log]);
    assert_eq!(
        stdout(&output),
        "cat,name,count,sum:size\nMPIIO,read,4,0\nMPIIO,write,4,0\nPOSIX,read,4,67108864\nPOSIX,write,4,67108864\n"
    );
    // Chrome trace events Perfetto opens: one complete event per segment, a process per rank.
    let exported = root().join("target/segments-fixture.json");
    let output = ioscout(&["export", "--format", "chrome-json", "-o", &exported.to_string_lossy(), &log]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let chrome: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&exported).unwrap_or_default()).unwrap_or_default();
    let events = chrome["traceEvents"].as_array().cloned().unwrap_or_default();
    assert_eq!(events.iter().filter(|event| event["ph"] == "X").count(), 16);
    let ranks: std::collections::BTreeSet<i64> =
        events.iter().filter_map(|event| event["pid"].as_i64()).collect();
    assert_eq!(ranks.into_iter().collect::<Vec<_>>(), [0, 1, 2, 3]);
    // Its page: the heatmaps and the drill-down over the POSIX segments, ranks named as ranks.
    reported_as_a_job_summary(&log);
    let html = std::fs::read_to_string(root().join("target/log-report.html")).unwrap_or_default();
    for part in [
        "<h2 id=\"drill\">Drill down</h2>",
        "id=\"drill-data\"",
        "id=\"chart-offsets\"",
        "id=\"chart-rank-zero\"",
        "I/O per rank over time (DXT POSIX segments)",
        "<h2>I/O phases (DXT)</h2>",
        "time since the job&#39;s start (s)",
        "<option value=\"0\">rank 0</option>",
    ] {
        assert!(html.contains(part), "no {part}");
    }
    // A log without DXT: `count` says so, the rest refuse in one line.
    let plain = fixture("mpi-io-test-x86_64-3.5.0.darshan");
    assert!(stdout(&ioscout(&["count", &plain])).contains("no DXT module"));
}

/// `report LOG` writes the log's job-summary page with exit 0: its sections, charts drawn from
/// the counters, nothing loaded from elsewhere, and never a line of the log's bytes.
fn reported_as_a_job_summary(log: &str) {
    let page = root().join("target/log-report.html");
    let _ = std::fs::remove_file(&page);
    let output = ioscout(&["report", "-o", &page.to_string_lossy(), log]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "report {log}: {stderr}");
    assert!(!stderr.contains("UTF-8"), "report {log}: {stderr}");
    assert!(stderr.contains("ioscout: wrote"), "report {log}: {stderr}");
    let html = std::fs::read_to_string(&page).unwrap_or_else(|error| panic!("report {log}: {error}"));
    for section in [
        "<h1>Darshan job summary</h1>",
        "<h2>Job</h2>",
        "<h2>I/O cost per module</h2>",
        "<h2>I/O patterns (learned detector)</h2>",
        "<h2>Findings</h2>",
        "<h2>Proposals</h2>",
    ] {
        assert!(html.contains(section), "report {log}: no {section}");
    }
    for remote in ["<script src", "<link ", "src=\"http", "@import"] {
        assert!(!html.contains(remote), "report {log}: {remote}");
    }
    if log.ends_with("dxt.darshan") {
        assert!(html.contains("<h2>I/O over time per rank (DXT)</h2>"), "report {log}: no DXT heatmap");
    }
}

/// `analyze LOG` gives the module breakdown with exit 0, text and JSON, and never a line of the
/// log's bytes.
fn analyzed_by_modules(log: &str) {
    let output = ioscout(&["analyze", log]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "analyze {log}: {stderr}");
    assert!(!stderr.contains("UTF-8"), "analyze {log}: {stderr}");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains(": Darshan 3."), "analyze {log}: {text}");
    let value = crate::json(&["analyze", "--json", log], 0);
    assert_eq!(value["kind"], "darshan");
    assert_eq!(value["logs"][0]["log"].as_str(), Some(log));
    assert!(value["logs"][0]["modules"].is_array(), "{value}");
}

/// The job-summary page of the bundled 4-process log: the module cost, the operation counts, the
/// access sizes of POSIX and MPI-IO with reads and writes in charts of their own, the common
/// access sizes and the files by use, as the counters give them.
#[test]
fn report_gives_a_logs_job_summary() {
    let log = "testdata/darshan/mpi-io-test-x86_64-3.5.0.darshan";
    reported_as_a_job_summary(log);
    let html = std::fs::read_to_string(root().join("target/log-report.html"))
        .unwrap_or_else(|error| panic!("{error}"));
    for part in [
        "id=\"module-time\"",
        "id=\"operation-counts\"",
        "id=\"sizes-posix-read\"",
        "id=\"sizes-posix-write\"",
        "id=\"sizes-mpiio-write\"",
        "<h2>Most common access sizes</h2>",
        "<h2>Files</h2>",
        "I/O time, slowest rank (s)",
        "Read time, summed (s)",
    ] {
        assert!(html.contains(part), "no {part}");
    }
    // The detector finds interface_choice on this log (one shared file, independent MPI-IO):
    // its card, with the job's feature values beside the training runs'. The card of a pattern
    // not found is not shown.
    let patterns = &html[html.find("<h2>I/O patterns").unwrap_or(0)..html.find("<h2>Findings").unwrap_or(0)];
    assert!(
        patterns.contains("<td>interface_choice</td><td>0.99</td><td>0.50</td><td>found</td>"),
        "{patterns}"
    );
    assert!(
        patterns.contains("id=\"pattern-interface_choice\"") && patterns.contains("MPI_File_write_all"),
        "{patterns}"
    );
    assert!(patterns.contains("<td>mpiio_collective_share</td><td>0.000</td>"), "{patterns}");
    assert_eq!(patterns.matches("Pattern card:").count(), 1, "{patterns}");
    // Two logs at once are refused: a page is one job.
    let output = ioscout(&[
        "report",
        "-o",
        "target/two-logs.html",
        log,
        "testdata/darshan/mpi-io-test-x86_64-3.1.3.darshan",
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", String::from_utf8_lossy(&output.stderr));
}

/// The module breakdown of the bundled 4-process log, as users read it (golden text), and its
/// JSON against the counters: 64 MiB read and written through POSIX and MPI-IO, the slowest
/// rank's time under the time summed over processes and labelled as such.
#[test]
fn analyze_gives_a_logs_module_breakdown() {
    let log = "testdata/darshan/mpi-io-test-x86_64-3.5.0.darshan";
    let output = ioscout(&["analyze", log]);
    let text = stdout(&output);
    let golden_path = root().join("testdata/darshan/mpi-io-test-x86_64-3.5.0.analyze.txt");
    if std::env::var_os("IOSCOUT_BLESS").is_some() {
        std::fs::write(&golden_path, &text).unwrap_or_else(|error| panic!("{error}"));
    }
    let golden = std::fs::read_to_string(&golden_path).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(text, golden, "the text changed (IOSCOUT_BLESS=1 rewrites {})", golden_path.display());
    for label in ["summed over processes", "Slowest rank (s)", "agg_time_by_slowest", "Bandwidth"] {
        assert!(text.contains(label), "{label} missing:\n{text}");
    }
    let value = crate::json(&["analyze", "--json", log], 0);
    let modules = value["logs"][0]["modules"].as_array().cloned().unwrap_or_default();
    let names: Vec<&str> = modules.iter().filter_map(|module| module["module"].as_str()).collect();
    assert_eq!(names, ["POSIX", "MPI-IO", "STDIO"]);
    for module in &modules[..2] {
        assert_eq!(module["bytes_read"], 64 << 20);
        assert_eq!(module["bytes_written"], 64 << 20);
        assert_eq!(module["reads"], 4);
        let slowest = module["io_time_slowest_rank_s"].as_f64().unwrap_or(f64::NAN);
        let summed = module["io_time_summed_s"].as_f64().unwrap_or(f64::NAN);
        assert!(slowest > 0.0 && slowest < summed, "{module}");
    }
    assert_eq!(value["logs"][0]["striping"]["files"], 1);
    // The options that shape a trace's analysis are refused for a log, not ignored.
    let refused = ioscout(&["analyze", "--follow", log]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--follow applies to DFTracer traces"));
}

/// A log cut short is read in part: exit 0, the modules that could be read, and the damage
/// said (`--strict` makes it an error).
#[test]
fn analyze_reads_a_damaged_log_in_part_and_says_so() {
    let folder = root().join("target/analyze-damaged-log");
    std::fs::create_dir_all(&folder).unwrap_or_else(|error| panic!("{error}"));
    let bytes =
        std::fs::read(fixture("mpi-io-test-x86_64-3.5.0.darshan")).unwrap_or_else(|error| panic!("{error}"));
    let cut = folder.join("cut.darshan");
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap_or_else(|error| panic!("{error}"));
    let cut = cut.to_string_lossy().into_owned();
    let value = crate::json(&["analyze", "--json", &cut], 0);
    let problems = value["logs"][0]["problems"].as_array().map_or(0, Vec::len);
    assert!(problems > 0, "{value}");
    let output = ioscout(&["analyze", &cut]);
    let text = stdout(&output);
    assert!(text.contains("region is damaged"), "{text}");
    assert_eq!(ioscout(&["analyze", "--strict", &cut]).status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&folder);
}

/// A log whose job region cannot be inflated had run time 0 and 0 processes: every share became
/// 0 and the findings collapsed to low without a word. Now the processes and the run time are
/// lower bounds from the records, said to be, and the shares upper bounds.
#[test]
fn an_unreadable_job_region_gives_bounds_said_to_be_estimates() {
    let folder = root().join("target/job-region-damaged");
    std::fs::create_dir_all(&folder).unwrap_or_else(|error| panic!("{error}"));
    let mut bytes =
        std::fs::read(fixture("mpi-io-test-x86_64-3.5.0.darshan")).unwrap_or_else(|error| panic!("{error}"));
    // The job region is the first zlib stream after the 1,328-byte header.
    assert_eq!(&bytes[1328..1330], &[0x78, 0x9c]);
    for byte in &mut bytes[1338..1348] {
        *byte ^= 0x5a;
    }
    let log = folder.join("job.darshan");
    std::fs::write(&log, &bytes).unwrap_or_else(|error| panic!("{error}"));
    let log = log.to_string_lossy().into_owned();
    let diagnosed = crate::json(&["diagnose", "--json", &log], 0);
    let context = &diagnosed["context"];
    assert_eq!(context["job_estimated"], true, "{diagnosed}");
    assert!(context["run_time_s"].as_f64().is_some_and(|run_time| run_time > 0.04), "{context}");
    assert!(context["io_share"].as_f64().is_some_and(|share| share > 0.5), "{context}");
    let text = stdout(&ioscout(&["diagnose", &log]));
    assert!(text.contains("at least") && text.contains("lower bounds"), "{text}");
    let analyzed = crate::json(&["analyze", "--json", &log], 0);
    assert_eq!(analyzed["logs"][0]["job_estimated"], true);
    let _ = std::fs::remove_dir_all(&folder);
}

/// The rows of a CSV text as maps from its header (quoted cells with `""` escapes).
fn csv_rows(text: &str) -> Vec<std::collections::HashMap<String, String>> {
    let mut records: Vec<Vec<String>> = Vec::new();
    let (mut record, mut cell, mut quoted) = (Vec::new(), String::new(), false);
    let mut characters = text.chars().peekable();
    while let Some(character) = characters.next() {
        match (character, quoted) {
            ('"', true) if characters.peek() == Some(&'"') => {
                cell.push('"');
                characters.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => record.push(std::mem::take(&mut cell)),
            ('\n', false) => {
                record.push(std::mem::take(&mut cell));
                records.push(std::mem::take(&mut record));
            }
            (other, _) => cell.push(other),
        }
    }
    let mut records = records.into_iter();
    let header = records.next().unwrap_or_default();
    records.map(|record| header.iter().cloned().zip(record).collect()).collect()
}

/// The PyDarshan oracle `name` (gzipped CSV) of `testdata/darshan/stats-pydarshan-3.5.0`.
fn pydarshan_stats(name: &str) -> Vec<std::collections::HashMap<String, String>> {
    use std::io::Read as _;
    let path = root().join("testdata/darshan/stats-pydarshan-3.5.0").join(name);
    let file = std::fs::File::open(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    csv_rows(&text)
}

/// Whether two figures agree to a millionth (or both are near 0).
fn close(left: &str, right: &str) -> bool {
    let (left, right) = (left.parse::<f64>().unwrap_or(f64::NAN), right.parse::<f64>().unwrap_or(f64::NAN));
    (left - right).abs() <= 1e-6 * left.abs().max(1.0)
}

/// `darshan files` and `darshan jobs` over the 109 corpus logs equal PyDarshan 3.5.0's
/// `file_stats` and `job_stats` (`testdata/darshan/stats-pydarshan-3.5.0`): every file of
/// POSIX, MPI-IO and STDIO with its bytes, operations, jobs and slowest-rank time, every log's
/// job figures. Differences, by design: a negative counter (Darshan's -1, a wrapped total) counts
/// as 0 where PyDarshan sums it, and a file's bandwidth over several logs is its bytes over the
/// summed time where PyDarshan adds the logs' bandwidths (compared for one-log files only).
#[test]
fn file_and_job_statistics_equal_pydarshans() {
    let Some((_, logs)) = corpus_logs() else { return };
    for module in ["posix", "mpi-io", "stdio"] {
        let expected = pydarshan_stats(&format!("files-{module}.csv.gz"));
        let mut arguments = vec!["darshan", "files", "--csv", "--module", module];
        arguments.extend(logs.iter().map(String::as_str));
        let output = ioscout(&arguments);
        let found = csv_rows(&stdout(&output));
        assert_eq!(found.len(), expected.len(), "{module}: files");
        let found: std::collections::HashMap<&str, &std::collections::HashMap<String, String>> =
            found.iter().map(|row| (row["file"].as_str(), row)).collect();
        let mut negative = 0;
        for row in &expected {
            let Some(ours) = found.get(row["file"].as_str()) else { panic!("{module}: no {}", row["file"]) };
            if row.values().any(|value| value.starts_with('-')) {
                negative += 1;
                continue;
            }
            for key in ["bytes_read", "bytes_written", "reads", "writes", "total_jobs", "total_bytes"] {
                assert_eq!(ours[key], row[key], "{module} {} {key}", row["file"]);
            }
            assert!(
                close(&row["time_by_slowest"], &ours["time_by_slowest"]),
                "{module} {}: time",
                row["file"]
            );
            if row["total_jobs"] == "1" {
                assert!(
                    close(&row["perf_by_slowest"], &ours["perf_by_slowest"]),
                    "{module} {}: perf",
                    row["file"]
                );
            }
        }
        assert!(negative <= 1, "{module}: {negative} files with negative counters");
    }
    let expected = pydarshan_stats("jobs.csv.gz");
    let mut arguments = vec!["darshan", "jobs", "--csv"];
    arguments.extend(logs.iter().map(String::as_str));
    let found = csv_rows(&stdout(&ioscout(&arguments)));
    assert_eq!(found.len(), expected.len(), "jobs");
    for row in &expected {
        let matches = |ours: &&std::collections::HashMap<String, String>| {
            ours["log_file"].ends_with(&format!("/{}", row["log_file"]))
                && [
                    "job_id",
                    "uid",
                    "nprocs",
                    "start_time",
                    "end_time",
                    "total_bytes",
                    "total_files",
                    "partial_flag",
                ]
                .iter()
                .all(|key| ours[*key] == row[*key])
                && ["run_time", "time_by_slowest", "perf_by_slowest"]
                    .iter()
                    .all(|key| close(&row[*key], &ours[*key]))
        };
        assert!(found.iter().any(|ours| matches(&ours)), "no job like {row:?}");
    }
}

/// `darshan files` and `jobs` on the bundled logs (never skips): each log's one file of
/// `mpi-io-test` with 64 MiB read and written in 4 reads and 4 writes; the same file in two
/// logs is one row with both jobs; the name filters, the limit and PyDarshan's CSV header.
#[test]
fn file_statistics_merge_a_file_across_logs() {
    let value = crate::json(&["darshan", "files", "--json", &fixture("")], 0);
    assert_eq!(value["logs_read"], 3);
    assert_eq!(value["files_total"], 3);
    for file in value["files"].as_array().into_iter().flatten() {
        for (key, expected) in [
            ("bytes_read", 67_108_864),
            ("bytes_written", 67_108_864),
            ("reads", 4),
            ("writes", 4),
            ("jobs", 1),
        ] {
            assert_eq!(file[key], expected, "{file}");
        }
        assert!(file["time_by_slowest_s"].as_f64().is_some_and(|time| time > 0.0), "{file}");
    }
    let folder = crate::temp_dir("darshan-files");
    let log = fixture("mpi-io-test-x86_64-3.5.0.darshan");
    for copy in ["a.darshan", "b.darshan"] {
        std::fs::copy(&log, folder.join(copy)).unwrap_or_else(|error| panic!("{error}"));
    }
    let one = crate::json(&["darshan", "files", "--json", &log], 0);
    let two = crate::json(&["darshan", "files", "--json", &folder.to_string_lossy()], 0);
    assert_eq!(two["files_total"], 1);
    assert_eq!(two["files"][0]["jobs"], 2);
    assert_eq!(two["files"][0]["bytes_read"], 2 * 67_108_864);
    let (single, double) =
        (one["files"][0]["time_by_slowest_s"].as_f64(), two["files"][0]["time_by_slowest_s"].as_f64());
    assert!(single.zip(double).is_some_and(|(single, double)| (double - 2.0 * single).abs() < 1e-9));
    let filtered = crate::json(&["darshan", "files", "--json", "--exclude", "^/tmp/", &fixture("")], 0);
    assert_eq!(filtered["files_total"], 2);
    let included =
        crate::json(&["darshan", "files", "--json", "--include", "wkliao", "--limit", "5", &fixture("")], 0);
    assert_eq!(included["files_total"], 1);
    let limited = crate::json(&["darshan", "files", "--json", "--limit", "1", &fixture("")], 0);
    assert_eq!(
        (limited["files_total"].as_u64(), limited["files"].as_array().map(Vec::len)),
        (Some(3), Some(1))
    );
    let csv = stdout(&ioscout(&["darshan", "files", "--csv", &fixture("")]));
    assert!(csv.starts_with(
        "file,perf_by_slowest,time_by_slowest,total_bytes,bytes_read,bytes_written,reads,writes,total_jobs\n"
    ));
    let jobs = crate::json(&["darshan", "jobs", "--json", "--order-by", "time-by-slowest", &fixture("")], 0);
    let rows = jobs["jobs"].as_array().cloned().unwrap_or_default();
    assert_eq!(rows.len(), 3);
    assert!(
        rows.iter().all(|row| row["nprocs"] == 4 && row["files"] == 1 && row["total_bytes"] == 134_217_728)
    );
    let times: Vec<f64> = rows.iter().filter_map(|row| row["time_by_slowest_s"].as_f64()).collect();
    assert!(times.windows(2).all(|pair| pair[0] >= pair[1]), "{times:?}");
    let bad = ioscout(&["darshan", "files", "--include", "(", &fixture("")]);
    assert_eq!(bad.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&folder);
}

/// `report LOG --file PATH`: the page of one file's records, saying so; a name the log does not
/// hold, or `--file` on traces, is refused in one line with exit 2 and no page.
#[test]
fn report_of_one_file_of_a_log() {
    let log = fixture("mpi-io-test-x86_64-3.1.3.darshan");
    let page = root().join("target/one-file-report.html");
    let _ = std::fs::remove_file(&page);
    let output =
        ioscout(&["report", "-o", &page.to_string_lossy(), "--file", "/tmp/test/mpi-io-test.tmp.dat", &log]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let html = std::fs::read_to_string(&page).unwrap_or_default();
    assert!(html.contains("<strong>One file:</strong> the records of /tmp/test/mpi-io-test.tmp.dat only"));
    assert!(html.contains("<td>Modules with records</td><td>POSIX, MPI-IO</td>"), "the modules row");
    assert!(html.contains("<h2 id=\"drill\">Drill down</h2>"));
    let _ = std::fs::remove_file(&page);
    for arguments in [
        vec!["report", "-o", "target/one-file-report.html", "--file", "/nowhere", log.as_str()],
        vec!["report", "-o", "target/one-file-report.html", "--file", "/nowhere", "testdata/sample"],
    ] {
        let output = ioscout(&arguments);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{arguments:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(!page.exists(), "{arguments:?} wrote a page");
    }
}
