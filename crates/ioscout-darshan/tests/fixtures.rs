//! Tests on the bundled Darshan fixtures (`testdata/darshan`), which never skip: the three
//! header and name-record layouts, both byte orders, `darshan-parser` equality, and damaged logs.

use std::path::{Path, PathBuf};

use ioscout_darshan::{DarshanError, DarshanLog, ReadOptions, Records, Region, dump, id};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/darshan").join(name)
}

fn bytes(name: &str) -> Vec<u8> {
    std::fs::read(fixture(name)).unwrap_or_else(|error| panic!("{name}: {error}"))
}

fn open(name: &str) -> DarshanLog {
    DarshanLog::open(&fixture(name), ReadOptions::default()).unwrap_or_else(|error| panic!("{error}"))
}

#[test]
fn the_current_format_dumps_exactly_like_darshan_parser() {
    let log = open("mpi-io-test-x86_64-3.5.0.darshan");
    let expected = std::fs::read_to_string(fixture("mpi-io-test-x86_64-3.5.0.base.txt")).unwrap_or_default();
    assert!(!expected.is_empty());
    assert_eq!(dump::dump(&log, dump::DumpOptions::default()), expected);
}

#[test]
fn every_layout_and_byte_order_reads() {
    for (name, version, swapped) in [
        ("mpi-io-test-x86_64-3.5.0.darshan", "3.41", false),
        ("mpi-io-test-x86_64-3.1.3.darshan", "3.10", false),
        ("mpi-io-test-ppc64-3.0.0.darshan", "3.00", true),
    ] {
        let log = open(name);
        assert_eq!(log.header.version, version, "{name}");
        assert_eq!(log.header.swapped, swapped, "{name}");
        assert_eq!(log.job.nprocs, 4, "{name}");
        assert!(log.job.exe.contains("mpi-io-test"), "{name}: exe {:?}", log.job.exe);
        let posix = log.counter_records(id::POSIX);
        assert!(!posix.is_empty(), "{name}: no POSIX records");
        // Every record is up-converted to today's 69 + 17 counters, and names resolve.
        assert!(posix.iter().all(|record| record.counters.len() == 69 && record.fcounters.len() == 17));
        assert!(posix.iter().all(|record| log.name(record.id).is_some()), "{name}: unnamed record");
        let bytes_written: i64 = posix.iter().map(|record| record.counters[15]).sum();
        assert!(bytes_written > 0, "{name}: POSIX_BYTES_WRITTEN {bytes_written}");
        assert!(log.problems.is_empty());
    }
}

#[test]
fn an_old_log_marks_counters_it_did_not_have_as_not_monitored() {
    let log = open("mpi-io-test-ppc64-3.0.0.darshan");
    let Some(module) = log.module(id::POSIX) else { panic!("no POSIX module") };
    assert!(module.version < 4);
    let record = &log.counter_records(id::POSIX)[0];
    // POSIX_FILENOS and POSIX_DUPS appeared in version 4.
    assert_eq!((record.counters[1], record.counters[2]), (-1, -1));
}

#[test]
fn a_wrong_magic_number_is_named() {
    let mut data = bytes("mpi-io-test-x86_64-3.5.0.darshan");
    data[8..16].copy_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
    let error = DarshanLog::from_bytes(Path::new("bad.darshan"), &data, ReadOptions::default()).err();
    let Some(DarshanError::Format { region, offset, message, .. }) = error else {
        panic!("expected a format error")
    };
    assert_eq!((region, offset), (Region::Header, 8));
    assert!(message.contains("magic"), "{message}");
}

#[test]
fn not_a_darshan_file_is_said_so() {
    let error =
        DarshanLog::from_bytes(Path::new("trace.pfw"), b"[\n{\"id\":1}\n", ReadOptions::default()).err();
    assert!(error.is_some_and(|error| error.to_string().contains("not a Darshan 3.x log")));
    let error = DarshanLog::from_bytes(Path::new("empty"), b"", ReadOptions::default()).err();
    assert!(error.is_some());
}

#[test]
fn a_truncated_log_names_the_region_and_partial_reads_what_is_there() {
    let data = bytes("mpi-io-test-x86_64-3.5.0.darshan");
    let whole = open("mpi-io-test-x86_64-3.5.0.darshan");
    let last = whole
        .modules
        .iter()
        .max_by_key(|module| module.map.offset)
        .map(|module| module.map)
        .unwrap_or_default();
    let cut = &data[..(last.offset + last.length / 2) as usize];
    let error = DarshanLog::from_bytes(Path::new("cut.darshan"), cut, ReadOptions::default()).err();
    let Some(DarshanError::Format { region, message, .. }) = error else { panic!("expected a format error") };
    assert_eq!(
        region,
        Region::Module(
            whole.modules.iter().max_by_key(|m| m.map.offset).map(|m| m.name.to_string()).unwrap_or_default()
        )
    );
    assert!(message.contains("truncated"), "{message}");
    let log = DarshanLog::from_bytes(Path::new("cut.darshan"), cut, ReadOptions { partial: true })
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(!log.problems.is_empty());
    assert!(!log.counter_records(id::POSIX).is_empty());
    assert_eq!(log.job.nprocs, 4);
}

#[test]
fn a_corrupt_module_region_is_an_error_or_a_problem_with_partial() {
    let mut data = bytes("mpi-io-test-x86_64-3.5.0.darshan");
    let whole = open("mpi-io-test-x86_64-3.5.0.darshan");
    let Some(posix) = whole.module(id::POSIX) else { panic!("no POSIX") };
    let start = posix.map.offset as usize;
    for byte in &mut data[start + 2..start + 40] {
        *byte ^= 0x5a;
    }
    let error = DarshanLog::from_bytes(Path::new("corrupt.darshan"), &data, ReadOptions::default()).err();
    let Some(DarshanError::Format { region, offset, .. }) = error else { panic!("expected a format error") };
    assert_eq!(region, Region::Module("POSIX".into()));
    assert_eq!(offset, posix.map.offset);
    let log = DarshanLog::from_bytes(Path::new("corrupt.darshan"), &data, ReadOptions { partial: true })
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(log.problems.iter().any(|problem| problem.contains("POSIX")));
    // The other modules are intact.
    assert!(!log.counter_records(id::MPIIO).is_empty());
    assert!(
        matches!(log.module(id::HEATMAP).map(|module| &module.records), Some(Records::Heatmap(records)) if !records.is_empty())
    );
}

#[test]
fn an_unknown_module_id_is_reported() {
    let mut data = bytes("mpi-io-test-x86_64-3.5.0.darshan");
    // Move the STDIO region's map entry to module slot 40 (past every known module).
    let slot = |index: usize| 48 + index * 16;
    let stdio: [u8; 16] = data[slot(id::STDIO)..slot(id::STDIO) + 16].try_into().unwrap_or_default();
    data[slot(40)..slot(40) + 16].copy_from_slice(&stdio);
    data[slot(id::STDIO)..slot(id::STDIO) + 16].fill(0);
    let error = DarshanLog::from_bytes(Path::new("unknown.darshan"), &data, ReadOptions::default()).err();
    assert!(error.is_some_and(|error| error.to_string().contains("unknown")));
    let log = DarshanLog::from_bytes(Path::new("unknown.darshan"), &data, ReadOptions { partial: true })
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(log.problems.iter().any(|problem| problem.contains("id 40")));
}
