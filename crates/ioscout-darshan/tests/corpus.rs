//! Differential tests against the Darshan corpus (`../shared/corpus/darshan`): every log reads;
//! versions, process counts, module lists and the POSIX, MPI-IO and STDIO counter totals equal
//! PyDarshan 3.5.0's; `dump` equals `darshan-parser`'s text. Skipped, with a message, when the
//! corpus is absent.

#![allow(clippy::print_stderr)]

use std::path::{Path, PathBuf};

use ioscout_darshan::{DarshanLog, ReadOptions, counter_names, dump, summary};

fn corpus() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/darshan");
    if root.join("expected-pydarshan-3.5.0.json").is_file() {
        Some(root)
    } else {
        ioscout_testkit::skip(&format!("the Darshan corpus is not at {}", root.display()));
        None
    }
}

fn module_id(name: &str) -> usize {
    match name {
        "POSIX" => ioscout_darshan::id::POSIX,
        "MPI-IO" => ioscout_darshan::id::MPIIO,
        _ => ioscout_darshan::id::STDIO,
    }
}

#[test]
fn every_log_matches_pydarshan() {
    let Some(root) = corpus() else { return };
    let text = std::fs::read_to_string(root.join("expected-pydarshan-3.5.0.json")).unwrap_or_default();
    let expected: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    let Some(expected) = expected.as_object() else { panic!("expected JSON is not an object") };
    assert!(expected.len() >= 100, "only {} logs in the expectations", expected.len());
    let mut failures = Vec::new();
    for (relative, want) in expected {
        let path = root.join("logs").join(relative);
        let log = match DarshanLog::open(&path, ReadOptions::default()) {
            Ok(log) => log,
            Err(error) => {
                failures.push(format!("{relative}: {error}"));
                continue;
            }
        };
        let got = serde_json::to_value(summary::summary(&log)).unwrap_or_default();
        for key in ["version", "nprocs"] {
            if got[key] != want[key] {
                failures.push(format!("{relative}: {key} {} != {}", got[key], want[key]));
            }
        }
        let mut modules: Vec<String> = got["modules"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| m.as_str().map(String::from))
            .collect();
        let mut want_modules: Vec<String> = want["modules"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| m.as_str().map(String::from))
            .collect();
        modules.sort();
        want_modules.sort();
        if modules != want_modules {
            failures.push(format!("{relative}: modules {modules:?} != {want_modules:?}"));
        }
        for module in ["POSIX", "MPI-IO", "STDIO"] {
            let Some(counters) = want.get(module).and_then(serde_json::Value::as_object) else { continue };
            let records = log.counter_records(module_id(module));
            let Some((names, _)) = counter_names(module_id(module)) else { continue };
            for (counter, value) in counters {
                let want_value = value.as_i64().unwrap_or(i64::MIN);
                if counter == "records" {
                    if records.len() as i64 != want_value {
                        failures
                            .push(format!("{relative}: {module} records {} != {want_value}", records.len()));
                    }
                    continue;
                }
                let Some(index) = names.iter().position(|name| name == counter) else {
                    failures.push(format!("{relative}: unknown counter {counter}"));
                    continue;
                };
                // PyDarshan sums raw values, -1 ("not monitored") included; ioscout's summary
                // leaves those out. The raw sum must equal PyDarshan's, and the summary must be
                // the sum of the monitored values.
                let raw: i64 = records.iter().map(|record| record.counters[index]).sum();
                let monitored: i64 =
                    records.iter().map(|record| record.counters[index]).filter(|v| *v >= 0).sum();
                if raw != want_value {
                    failures.push(format!("{relative}: {counter} raw total {raw} != {want_value}"));
                }
                let reported = got[module][counter.as_str()].as_i64();
                let all_unmonitored =
                    !records.is_empty() && records.iter().all(|record| record.counters[index] < 0);
                let expected_report = if all_unmonitored { -1 } else { monitored };
                if reported != Some(expected_report) {
                    failures.push(format!("{relative}: summary {counter} {reported:?} != {expected_report}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
}

fn parser_output(root: &Path, name: &str) -> Option<String> {
    std::fs::read_to_string(root.join("darshan-parser").join(name)).ok()
}

fn find_log(root: &Path, file_name: &str) -> Option<PathBuf> {
    fn walk(directory: &Path, file_name: &str) -> Option<PathBuf> {
        for entry in std::fs::read_dir(directory).ok()?.flatten() {
            let path = entry.path();
            if path.is_dir() {
                if let Some(found) = walk(&path, file_name) {
                    return Some(found);
                }
            } else if path.file_name().is_some_and(|name| name == file_name) {
                return Some(path);
            }
        }
        None
    }
    walk(&root.join("logs"), file_name)
}

#[test]
fn dump_equals_darshan_parser() {
    let Some(root) = corpus() else { return };
    let Some(log_path) = find_log(&root, "mpi-io-test-x86_64-3.5.0.darshan") else {
        panic!("release log missing")
    };
    let log = DarshanLog::open(&log_path, ReadOptions::default()).unwrap_or_else(|error| panic!("{error}"));
    let Some(base) = parser_output(&root, "mpi-io-test-x86_64-3.5.0.base.txt") else {
        panic!("base output missing")
    };
    assert_eq!(dump::dump(&log, dump::DumpOptions::default()), base);
    let Some(all) = parser_output(&root, "mpi-io-test-x86_64-3.5.0.all.txt") else {
        panic!("--all output missing")
    };
    assert_eq!(dump::dump(&log, dump::DumpOptions::all()), all);
}

#[test]
fn dxt_dump_equals_darshan_dxt_parser() {
    let Some(root) = corpus() else { return };
    let Some(log_path) = find_log(&root, "sample-dxt-simple.darshan") else { panic!("DXT sample missing") };
    let log = DarshanLog::open(&log_path, ReadOptions::default()).unwrap_or_else(|error| panic!("{error}"));
    let Some(expected) = parser_output(&root, "sample-dxt-simple.dxt.txt") else {
        panic!("DXT output missing")
    };
    assert_eq!(dump::dxt(&log), expected);
}

#[test]
fn every_release_log_dumps_the_same_counters_in_either_byte_order() {
    // The ppc64 (big-endian) and x86_64 logs of the same release ran the same test: their POSIX
    // operation counts must agree once byte order is handled.
    let Some(root) = corpus() else { return };
    for version in ["3.0.0", "3.1.0", "3.1.8"] {
        let little = find_log(&root, &format!("mpi-io-test-x86_64-{version}.darshan"));
        let big = find_log(&root, &format!("mpi-io-test-ppc64-{version}.darshan"));
        let (Some(little), Some(big)) = (little, big) else { continue };
        let little =
            DarshanLog::open(&little, ReadOptions::default()).unwrap_or_else(|error| panic!("{error}"));
        let big = DarshanLog::open(&big, ReadOptions::default()).unwrap_or_else(|error| panic!("{error}"));
        assert!(big.header.swapped && !little.header.swapped);
        let opens = |log: &DarshanLog| -> i64 {
            log.counter_records(ioscout_darshan::id::POSIX).iter().map(|r| r.counters[0]).sum()
        };
        assert!(opens(&big) > 0, "{version}: no POSIX opens in the big-endian log");
        assert_eq!(big.job.nprocs, little.job.nprocs, "{version}");
    }
}

/// `analyze LOG`'s module breakdown holds PyDarshan's totals: per module the records, bytes,
/// reads, writes and opens PyDarshan sums (MPI-IO's reads and writes also count split and
/// non-blocking calls, so they are at least PyDarshan's independent and collective ones), and
/// no module's slowest-rank time exceeds its time summed over processes.
#[test]
fn breakdown_holds_pydarshan_totals() {
    use ioscout_darshan::breakdown::Breakdown;
    let Some(root) = corpus() else { return };
    let text = std::fs::read_to_string(root.join("expected-pydarshan-3.5.0.json")).unwrap_or_default();
    let expected: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    let Some(expected) = expected.as_object() else { panic!("expected JSON is not an object") };
    let mut failures = Vec::new();
    let mut checked = 0;
    for (relative, want) in expected {
        let path = root.join("logs").join(relative);
        let Ok(log) = DarshanLog::open(&path, ReadOptions::default()) else { continue };
        let breakdown = Breakdown::of(&log);
        for (module, prefix) in [("POSIX", "POSIX"), ("MPI-IO", "MPIIO"), ("STDIO", "STDIO")] {
            let Some(counters) = want.get(module).and_then(serde_json::Value::as_object) else { continue };
            let Some(line) = breakdown.modules.iter().find(|line| line.module == module) else {
                failures.push(format!("{relative}: no {module} line"));
                continue;
            };
            let counter =
                |name: &str| counters.get(&format!("{prefix}_{name}")).and_then(serde_json::Value::as_u64);
            let mut expect = |what: &str, got: u64, want: Option<u64>| {
                if let Some(want) = want {
                    checked += 1;
                    if got != want {
                        failures.push(format!("{relative}: {module} {what} {got} != PyDarshan's {want}"));
                    }
                }
            };
            expect(
                "records",
                line.records as u64,
                counters.get("records").and_then(serde_json::Value::as_u64),
            );
            expect("bytes read", line.bytes_read, counter("BYTES_READ"));
            expect("bytes written", line.bytes_written, counter("BYTES_WRITTEN"));
            if module == "MPI-IO" {
                let reads = counter("INDEP_READS").unwrap_or(0) + counter("COLL_READS").unwrap_or(0);
                let writes = counter("INDEP_WRITES").unwrap_or(0) + counter("COLL_WRITES").unwrap_or(0);
                if line.reads < reads || line.writes < writes {
                    failures.push(format!(
                        "{relative}: MPI-IO reads/writes {}/{} below {reads}/{writes}",
                        line.reads, line.writes
                    ));
                }
            } else {
                expect("reads", line.reads, counter("READS"));
                expect("writes", line.writes, counter("WRITES"));
                expect("opens", line.opens, counter("OPENS"));
            }
            if line.io_time_slowest_rank_s > line.io_time_summed_s * (1.0 + 1e-9) + 1e-9 {
                failures.push(format!(
                    "{relative}: {module} slowest rank {} s above the summed {} s",
                    line.io_time_slowest_rank_s, line.io_time_summed_s
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{} differences:\n{}", failures.len(), failures.join("\n"));
    assert!(checked > 500, "only {checked} totals checked");
}

/// Every DXT log's heatmaps hold each valid segment's bytes once, reads and writes apart, and
/// count the segments left out: the bytes drawn are the segments' lengths summed apart.
#[test]
fn dxt_heatmaps_hold_every_segments_bytes() {
    let Some(root) = corpus() else { return };
    let mut checked = 0;
    let mut stack = vec![root.join("logs")];
    while let Some(directory) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&directory) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let Ok(log) = DarshanLog::open(&path, ReadOptions { partial: true }) else { continue };
            let summary = ioscout_darshan::job_summary::JobSummary::of(&log);
            for map in &summary.heatmaps {
                let module = log.modules.iter().find(|module| module.name == map.module);
                let Some(ioscout_darshan::Records::Dxt(records)) = module.map(|module| &module.records)
                else {
                    panic!("{}: no {} records", path.display(), map.module)
                };
                let (mut read, mut written, mut segments) = (0.0, 0.0, 0_u64);
                for record in records {
                    for segment in &record.segments {
                        let valid = segment.length >= 0
                            && segment.end >= segment.start
                            && (0..log.job.nprocs.max(1)).contains(&record.rank);
                        if valid {
                            segments += 1;
                            if segment.write {
                                written += segment.length as f64;
                            } else {
                                read += segment.length as f64;
                            }
                        }
                    }
                }
                let drawn_read: f64 = map.read.iter().flatten().sum();
                let drawn_written: f64 = map.written.iter().flatten().sum();
                assert_eq!(map.segments, segments, "{} {}", path.display(), map.module);
                assert!(
                    (drawn_read - read).abs() <= 1e-6 * read.max(1.0),
                    "{} read {drawn_read} != {read}",
                    path.display()
                );
                assert!(
                    (drawn_written - written).abs() <= 1e-6 * written.max(1.0),
                    "{} written {drawn_written} != {written}",
                    path.display()
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 5, "only {checked} DXT modules in the corpus");
}
