//! The Darshan records an analysis derives in its second pass (the replay given the first pass's
//! metadata, so metadata lines are not decoded again) are those a scan of its own derives (the
//! replay gathering the metadata itself): the same records, names, processes and approximations,
//! whole files or files cut into many small units.

use std::path::{Path, PathBuf};

use ioscout_analysis::AnalysisOptions;
use ioscout_service::Input;

fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata").join(name)
}

/// Every folder of traces that names its files through FH metadata.
fn folders() -> Vec<PathBuf> {
    let mut folders = vec![testdata("sample")];
    let evidence = std::fs::read_dir(testdata("evidence")).unwrap_or_else(|error| panic!("{error}"));
    let mut workloads: Vec<PathBuf> =
        evidence.flatten().map(|entry| entry.path()).filter(|path| path.is_dir()).collect();
    workloads.sort();
    folders.extend(workloads);
    folders
}

/// Everything a derivation says, in a stable text (the log's name lookup table, a hash map, is
/// left out: its order is not the data's).
fn outline(derived: &ioscout_evidence::Derived) -> String {
    let log = &derived.log;
    format!(
        "{:?}\n{:?}\n{:?}\n{:?}\n{:?} {:?}\n{:?}\n{:?}\n{:?}\n{:?} {:?}\n{:?}\n{:?} {} {} {:?}\n{:?}\n{:?}",
        log.job,
        log.names,
        log.modules,
        log.problems,
        derived.processes,
        derived.rank_rule,
        derived.operations,
        derived.approximations,
        derived.approximated_records,
        derived.unusable_calls,
        derived.unusable_examples,
        derived.excluded_files,
        derived.time_origin_us,
        derived.calls,
        derived.all_bytes.0,
        derived.all_bytes.1,
        derived.shapes,
        derived.files,
    )
}

#[test]
fn records_derived_in_the_analysis_pass_equal_those_of_a_scan_of_their_own() {
    let mut compared = 0;
    for folder in folders() {
        for unit_bytes in [0, 4096] {
            let mut scan = ioscout_read::ScanOptions { threads: 2, ..ioscout_read::ScanOptions::default() };
            if unit_bytes > 0 {
                scan.unit_bytes = unit_bytes;
            }
            let input = Input { paths: vec![folder.clone()], scan, ..Input::default() };
            let (_, _, _, in_pass) =
                ioscout_service::analyze::run_with_records(&input, &AnalysisOptions::default())
                    .unwrap_or_else(|error| panic!("{}: {error}", folder.display()));
            let (alone, _) = ioscout_service::evidence::derive(&input)
                .unwrap_or_else(|error| panic!("{}: {error}", folder.display()));
            assert!(
                alone.log.names.iter().any(|(_, path)| !path.starts_with("<fhash")),
                "{}: no file was named through its metadata, so the comparison says nothing",
                folder.display()
            );
            assert_eq!(
                outline(&in_pass),
                outline(&alone),
                "{} with units of {unit_bytes} bytes",
                folder.display()
            );
            compared += 1;
        }
    }
    assert!(compared >= 4, "only {compared} inputs compared");
}
