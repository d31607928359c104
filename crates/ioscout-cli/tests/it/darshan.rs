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
