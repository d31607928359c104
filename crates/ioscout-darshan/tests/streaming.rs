//! A log opened with its DXT segments left in the file (`DarshanLog::open_streaming`) reads as
//! the log decoded whole (`DarshanLog::open`): the same problems word for word, the same
//! modules and flags, the same DXT records handed on one at a time, the same job summary. On
//! the bundled logs and random damage to them (never skipped), and on every corpus log and a
//! damaged copy of each.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use ioscout_darshan::job_summary::JobSummary;
use ioscout_darshan::{DarshanLog, DxtRecord, ReadOptions, Records, dump, summary};

use ioscout_testkit::Random;

/// The DXT records of `module_id`, as the log hands them on.
fn dxt_records(log: &DarshanLog, module_id: usize) -> Vec<DxtRecord> {
    let mut records = Vec::new();
    log.for_each_dxt_record(module_id, |record| {
        records.push(record.clone());
        ControlFlow::Continue(())
    })
    .unwrap_or_else(|error| panic!("{error}"));
    records
}

/// Holds the log at `path` read both ways, with and without `partial`, to the same result.
fn streams_as_decoded_whole(path: &Path) {
    for partial in [false, true] {
        let options = ReadOptions { partial };
        let whole = DarshanLog::open(path, options);
        let streamed = DarshanLog::open_streaming(path, options);
        let (whole, streamed) = match (whole, streamed) {
            (Ok(whole), Ok(streamed)) => (whole, streamed),
            (Err(whole), Err(streamed)) => {
                assert_eq!(whole.to_string(), streamed.to_string(), "{}", path.display());
                continue;
            }
            (whole, streamed) => panic!(
                "{} partial {partial}: decoded whole {:?}, streamed {:?}",
                path.display(),
                whole.map(|log| log.problems),
                streamed.map(|log| log.problems)
            ),
        };
        let place = format!("{} partial {partial}", path.display());
        assert_eq!(whole.problems, streamed.problems, "{place}");
        assert_eq!(whole.job, streamed.job, "{place}");
        assert_eq!(whole.job_estimated, streamed.job_estimated, "{place}");
        assert_eq!(whole.names, streamed.names, "{place}");
        assert_eq!(whole.modules.len(), streamed.modules.len(), "{place}");
        for (left, right) in whole.modules.iter().zip(&streamed.modules) {
            let what = format!("{place} {}", left.name);
            assert_eq!(
                (left.id, left.damaged, left.streams, left.partial, left.dropped_records, left.unread()),
                (
                    right.id,
                    right.damaged,
                    right.streams,
                    right.partial,
                    right.dropped_records,
                    right.unread()
                ),
                "{what}"
            );
            match (&left.records, &right.records) {
                (Records::Dxt(records), Records::DxtOnDisk(on_disk)) => {
                    assert_eq!(on_disk.records, records.len(), "{what}");
                    let segments: usize = records.iter().map(|record| record.segments.len()).sum();
                    assert_eq!(on_disk.segments, segments as u64, "{what}");
                    assert!(dxt_records(&streamed, left.id) == *records, "{what}: records differ");
                }
                (left_records, right_records) => assert_eq!(left_records, right_records, "{what}"),
            }
        }
        assert_eq!(JobSummary::of(&whole), JobSummary::of(&streamed), "{place}");
        assert_eq!(
            dump::dump(&whole, dump::DumpOptions::all()),
            dump::dump(&streamed, dump::DumpOptions::all()),
            "{place}"
        );
        assert_eq!(dump::dxt(&whole), dump::dxt(&streamed), "{place}");
        assert_eq!(summary::summary(&whole), summary::summary(&streamed), "{place}");
    }
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/darshan").join(name)
}

/// Writes `rounds` damaged copies of `original` into `folder` (cut after the header, bits
/// flipped, an 8-byte field overwritten) and holds each to [`streams_as_decoded_whole`].
fn damaged_copies_stream_as_decoded_whole(
    folder: &Path,
    original: &[u8],
    header_end: usize,
    rounds: usize,
    random: &mut Random,
) {
    for round in 0..rounds {
        let data = random.damaged_copy(original, header_end, round);
        let path = folder.join(format!("round-{round}.darshan"));
        std::fs::write(&path, &data).unwrap_or_else(|error| panic!("{error}"));
        streams_as_decoded_whole(&path);
    }
}

fn temp_folder(name: &str) -> PathBuf {
    let folder =
        std::env::temp_dir().join(format!("ioscout-darshan-streaming-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap_or_else(|error| panic!("{error}"));
    folder
}

#[test]
fn the_bundled_logs_and_damaged_copies_stream_as_decoded_whole() {
    let folder = temp_folder("bundled");
    let mut random = Random(0x005e_ed0f_d47a_57e4);
    for name in [
        "mpi-io-test-x86_64-3.1.3.darshan",
        "mpi-io-test-x86_64-3.5.0.darshan",
        "mpi-io-test-ppc64-3.0.0.darshan",
    ] {
        let path = fixture(name);
        streams_as_decoded_whole(&path);
        let original = std::fs::read(&path).unwrap_or_else(|error| panic!("{error}"));
        let log = DarshanLog::open(&path, ReadOptions::default()).unwrap_or_else(|error| panic!("{error}"));
        let header_end = usize::try_from(log.header.job.offset).unwrap_or(0);
        damaged_copies_stream_as_decoded_whole(&folder, &original, header_end, 300, &mut random);
    }
    let _ = std::fs::remove_dir_all(&folder);
}

#[test]
fn the_corpus_logs_and_damaged_copies_stream_as_decoded_whole() {
    let Some(root) = ioscout_testkit::corpus("darshan/logs") else { return };
    let logs = ioscout_testkit::files_under(&root, "darshan");
    assert!(logs.len() >= 100, "{} logs", logs.len());
    let folder = temp_folder("corpus");
    let mut random = Random(0xc0ff_ee15_900d_f00d);
    for path in &logs {
        streams_as_decoded_whole(path);
        let original = std::fs::read(path).unwrap_or_else(|error| panic!("{error}"));
        let Ok(log) = DarshanLog::open(path, ReadOptions { partial: true }) else { continue };
        let header_end = usize::try_from(log.header.job.offset).unwrap_or(0);
        // DXT logs get more: their regions are the ones streamed.
        let dxt = log.modules.iter().any(|module| matches!(module.records, Records::Dxt(_)));
        damaged_copies_stream_as_decoded_whole(
            &folder,
            &original,
            header_end,
            if dxt { 6 } else { 1 },
            &mut random,
        );
    }
    let _ = std::fs::remove_dir_all(&folder);
}
