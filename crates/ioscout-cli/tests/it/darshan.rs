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
