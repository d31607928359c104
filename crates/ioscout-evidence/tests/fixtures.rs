//! Real DFTracer 2.2 traces of workloads written for this (`testdata/evidence/`, made by
//! `make_evidence.sh`): random, strided, sequential, `lseek`+`read`, reverse, interleaved
//! writes of several processes to one shared file, an `unlink`/`stat` storm and tiny writes. For
//! every record `expected.py` (a separate Python implementation over the raw JSON) computed,
//! the derived counters are equal; so are the metadata calls by operation.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ioscout_darshan::{counter_names, id};
use ioscout_read::{ScanOptions, Scanner, discover};

fn folders() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/evidence");
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|error| panic!("{}: {error}", root.display()))
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.join("expected.json").is_file())
        .collect();
    folders.sort();
    folders
}

#[test]
fn derived_counters_equal_the_independent_script_on_every_fixture() {
    let folders = folders();
    assert!(folders.len() >= 8, "fixtures missing: {folders:?}");
    let scanner = Scanner::new(ScanOptions::default());
    let (names, _) = counter_names(id::POSIX).unwrap_or_default();
    let mut failures = Vec::new();
    let mut compared = 0;
    for folder in &folders {
        let text = std::fs::read_to_string(folder.join("expected.json")).unwrap_or_default();
        let expected: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        let (files, problems) = discover(&[folder]);
        let (derived, _) = ioscout_evidence::derive(&scanner, &files, &problems, folder);
        let name = folder.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
        assert_eq!(
            derived.processes.len() as u64,
            expected["processes"].as_u64().unwrap_or(0),
            "{name}: processes"
        );
        let rank_of: BTreeMap<i64, i64> =
            derived.processes.iter().map(|process| (process.pid, process.rank)).collect();
        let log = &derived.log;
        let ours: BTreeMap<(String, i64), &Vec<i64>> = log
            .counter_records(id::POSIX)
            .iter()
            .map(|record| ((log.name(record.id).unwrap_or("?").to_string(), record.rank), &record.counters))
            .collect();
        for record in expected["records"].as_array().into_iter().flatten() {
            let path = record["path"].as_str().unwrap_or_default().to_string();
            let rank = match record["pid"].as_i64() {
                Some(pid) => rank_of.get(&pid).copied().unwrap_or(-99),
                None => -1,
            };
            let Some(counters) = ours.get(&(path.clone(), rank)) else {
                failures.push(format!("{name}: {path} rank {rank}: no derived record"));
                continue;
            };
            // expected.json leaves out the counters that are zero: every counter it computes is
            // compared, zeros included.
            for counter in [
                "POSIX_OPENS",
                "POSIX_READS",
                "POSIX_WRITES",
                "POSIX_SEEKS",
                "POSIX_STATS",
                "POSIX_BYTES_READ",
                "POSIX_BYTES_WRITTEN",
                "POSIX_MAX_BYTE_READ",
                "POSIX_MAX_BYTE_WRITTEN",
                "POSIX_SEQ_READS",
                "POSIX_SEQ_WRITES",
                "POSIX_CONSEC_READS",
                "POSIX_CONSEC_WRITES",
                "POSIX_RW_SWITCHES",
            ]
            .into_iter()
            .chain(names.iter().copied().filter(|name| name.contains("_SIZE_") || name.contains("_ACCESS")))
            {
                let Some(index) = names.iter().position(|candidate| *candidate == counter) else { continue };
                let want = record["counters"][counter].as_i64().unwrap_or(0);
                compared += 1;
                if counters[index] != want {
                    failures.push(format!(
                        "{name}: {path} rank {rank}: {counter} derived {}, expected {want}",
                        counters[index]
                    ));
                }
            }
        }
        for (call, want) in expected["metadata_calls"].as_object().into_iter().flatten() {
            let calls = derived
                .operations
                .iter()
                .filter(|operation| operation.name == *call)
                .map(|operation| operation.calls)
                .sum::<u64>();
            if calls != want["calls"].as_u64().unwrap_or(0) {
                failures.push(format!("{name}: {call}: {calls} calls derived, expected {want}"));
            }
        }
    }
    assert!(compared > 10_000, "only {compared} counters compared");
    assert!(failures.is_empty(), "{}", failures.iter().take(40).cloned().collect::<Vec<_>>().join("\n"));
}
