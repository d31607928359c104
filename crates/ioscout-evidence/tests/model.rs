//! Property test: random sequences of `open`, `read`, `pread`, `lseek`, `write`, `pwrite` and
//! `close` over several processes and files, written as a DFTracer trace (one file per process),
//! give derived POSIX counters equal to an independent reference model written here: the model
//! first resolves every data call's offset from the positions, then computes each counter from
//! the list of accesses by its definition in darshan-posix-log-format.h.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use ioscout_darshan::{DarshanLog, counter_names, id};
use ioscout_read::{ScanOptions, Scanner, discover};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Call {
    Open,
    Close,
    Read(i64),
    Pread(i64, i64),
    Write(i64),
    Pwrite(i64, i64),
    Seek(i64),
}

fn call() -> impl Strategy<Value = Call> {
    let size = prop_oneof![Just(0_i64), Just(64), Just(4096), Just(65_536), 1_i64..10_000];
    let offset = prop_oneof![Just(0_i64), Just(4096), 0_i64..200_000];
    prop_oneof![
        1 => Just(Call::Open),
        1 => Just(Call::Close),
        3 => size.clone().prop_map(Call::Read),
        3 => (offset.clone(), size.clone()).prop_map(|(offset, size)| Call::Pread(offset, size)),
        3 => size.clone().prop_map(Call::Write),
        2 => (offset.clone(), size).prop_map(|(offset, size)| Call::Pwrite(offset, size)),
        1 => offset.prop_map(Call::Seek),
    ]
}

/// Calls of each process: (file index, call).
fn workload() -> impl Strategy<Value = Vec<Vec<(usize, Call)>>> {
    proptest::collection::vec(proptest::collection::vec((0_usize..3, call()), 1..60), 1..4)
}

/// The counters the model computes for one (process, file).
#[derive(Debug, Default, PartialEq, Eq, Clone)]
struct Expected {
    opens: i64,
    reads: i64,
    writes: i64,
    seeks: i64,
    bytes_read: i64,
    bytes_written: i64,
    max_byte_read: i64,
    max_byte_written: i64,
    consec_reads: i64,
    consec_writes: i64,
    seq_reads: i64,
    seq_writes: i64,
    rw_switches: i64,
    size_bins: Vec<i64>,
    access: Vec<(i64, i64)>,
}

fn bin(size: i64) -> usize {
    [100_i64, 1024, 10_240, 102_400, 1_048_576, 4_194_304, 10_485_760, 104_857_600, 1_073_741_824]
        .iter()
        .filter(|&&bound| size > bound)
        .count()
}

/// An access as the model resolves it: direction, offset, size, and whether it follows an open
/// or close of the file (which forgets the last byte).
struct Access {
    write: bool,
    offset: i64,
    size: i64,
    after_reset: bool,
}

fn model(calls: &[&Call]) -> Expected {
    // Pass 1: positions. Every trace starts with an open here (the generator ensures it).
    let mut position = 0_i64;
    let mut accesses = Vec::new();
    let mut reset = true;
    let mut expected = Expected { size_bins: vec![0; 20], ..Expected::default() };
    for call in calls {
        match call {
            Call::Open => {
                expected.opens += 1;
                position = 0;
                reset = true;
            }
            Call::Close => reset = true,
            Call::Seek(offset) => {
                expected.seeks += 1;
                position = *offset;
            }
            Call::Read(size) | Call::Write(size) => {
                accesses.push(Access {
                    write: matches!(call, Call::Write(_)),
                    offset: position,
                    size: *size,
                    after_reset: reset,
                });
                position += size;
                reset = false;
            }
            Call::Pread(offset, size) | Call::Pwrite(offset, size) => {
                accesses.push(Access {
                    write: matches!(call, Call::Pwrite(..)),
                    offset: *offset,
                    size: *size,
                    after_reset: reset,
                });
                position = offset + size;
                reset = false;
            }
        }
    }
    // Pass 2: counters from the accesses, per direction. "Last byte" of a direction is that of
    // its previous access since the last open or close, 0 when there is none.
    let mut last = [0_i64, 0_i64];
    let mut previous_direction: Option<bool> = None;
    let mut access_counts: BTreeMap<i64, i64> = BTreeMap::new();
    for access in &accesses {
        if access.after_reset {
            last = [0, 0];
        }
        let side = usize::from(access.write);
        if access.offset > last[side] {
            if access.write { expected.seq_writes += 1 } else { expected.seq_reads += 1 }
        }
        if access.offset == last[side] + 1 {
            if access.write { expected.consec_writes += 1 } else { expected.consec_reads += 1 }
        }
        last[side] = access.offset + access.size - 1;
        let end = access.offset + access.size - 1;
        if access.write {
            expected.writes += 1;
            expected.bytes_written += access.size;
            expected.max_byte_written = expected.max_byte_written.max(end);
        } else {
            expected.reads += 1;
            expected.bytes_read += access.size;
            expected.max_byte_read = expected.max_byte_read.max(end);
        }
        expected.size_bins[side * 10 + bin(access.size)] += 1;
        if previous_direction == Some(!access.write) {
            expected.rw_switches += 1;
        }
        previous_direction = Some(access.write);
        *access_counts.entry(access.size).or_default() += 1;
    }
    let mut ranked: Vec<(i64, i64)> = access_counts.into_iter().filter(|(size, _)| *size != 0).collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(b.0.cmp(&a.0)));
    ranked.truncate(4);
    ranked.resize(4, (0, 0));
    expected.access = ranked;
    expected
}

fn derived_of(record: &[i64]) -> Expected {
    let (names, _) = counter_names(id::POSIX).unwrap_or_default();
    let at =
        |name: &str| names.iter().position(|candidate| *candidate == name).map_or(-99, |index| record[index]);
    let first_bin = names.iter().position(|name| *name == "POSIX_SIZE_READ_0_100").unwrap_or(0);
    let access_at = names.iter().position(|name| *name == "POSIX_ACCESS1_ACCESS").unwrap_or(0);
    Expected {
        opens: at("POSIX_OPENS"),
        reads: at("POSIX_READS"),
        writes: at("POSIX_WRITES"),
        seeks: at("POSIX_SEEKS"),
        bytes_read: at("POSIX_BYTES_READ"),
        bytes_written: at("POSIX_BYTES_WRITTEN"),
        max_byte_read: at("POSIX_MAX_BYTE_READ"),
        max_byte_written: at("POSIX_MAX_BYTE_WRITTEN"),
        consec_reads: at("POSIX_CONSEC_READS"),
        consec_writes: at("POSIX_CONSEC_WRITES"),
        seq_reads: at("POSIX_SEQ_READS"),
        seq_writes: at("POSIX_SEQ_WRITES"),
        rw_switches: at("POSIX_RW_SWITCHES"),
        size_bins: record[first_bin..first_bin + 20].to_vec(),
        access: (0..4).map(|slot| (record[access_at + slot], record[access_at + 4 + slot])).collect(),
    }
}

/// Writes the workload as one trace file per process; returns the folder.
fn write_trace(workload: &[Vec<(usize, Call)>], case: u64) -> PathBuf {
    let folder = std::env::temp_dir().join(format!("ioscout-evidence-model-{}-{case}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    let _ = std::fs::create_dir_all(&folder);
    for (process, calls) in workload.iter().enumerate() {
        let pid = 1000 + process as i64;
        let mut text = String::new();
        for file in 0..3 {
            let _ = writeln!(
                text,
                r#"{{"name":"FH","cat":"dftracer","pid":{pid},"tid":{pid},"ph":"M","args":{{"name":"/data/file{file}","value":"f{file}"}}}}"#
            );
        }
        let mut ts = 1_000_000 + process as i64 * 7;
        for (index, (file, call)) in calls.iter().enumerate() {
            let args = match call {
                Call::Open => ("open64", String::from(r#""flags":66"#)),
                Call::Close => ("close", String::from(r#""ret":0"#)),
                Call::Read(size) => ("read", format!(r#""ret":{size},"count":{size}"#)),
                Call::Write(size) => ("write", format!(r#""ret":{size},"count":{size}"#)),
                Call::Pread(offset, size) => {
                    ("pread64", format!(r#""ret":{size},"count":{size},"offset":{offset}"#))
                }
                Call::Pwrite(offset, size) => {
                    ("pwrite64", format!(r#""ret":{size},"count":{size},"offset":{offset}"#))
                }
                Call::Seek(offset) => ("lseek64", format!(r#""ret":{offset},"whence":0,"offset":{offset}"#)),
            };
            let _ = writeln!(
                text,
                r#"{{"id":{index},"name":"{}","cat":"POSIX","pid":{pid},"tid":{pid},"ts":{ts},"dur":3,"ph":"X","args":{{"fhash":"f{file}",{}}}}}"#,
                args.0, args.1
            );
            ts += 10;
        }
        let _ = std::fs::write(folder.join(format!("trace-{process}.pfw")), text);
    }
    folder
}

fn records(log: &DarshanLog) -> BTreeMap<(String, i64), Vec<i64>> {
    log.counter_records(id::POSIX)
        .iter()
        .map(|record| {
            ((log.name(record.id).unwrap_or("?").to_string(), record.rank), record.counters.clone())
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn derived_counters_equal_the_reference_model(mut workload in workload()) {
        // Every process opens each file it uses before using it (a read before any open is an
        // approximation, tested on its own).
        for calls in &mut workload {
            let mut opened = [false; 3];
            let mut with_opens = Vec::new();
            for (file, call) in calls.drain(..) {
                if !opened[file] && !matches!(call, Call::Open) {
                    with_opens.push((file, Call::Open));
                }
                opened[file] = true;
                with_opens.push((file, call));
            }
            *calls = with_opens;
        }
        let case = workload.iter().map(Vec::len).sum::<usize>() as u64 * 1000 + workload.len() as u64;
        let folder = write_trace(&workload, case);
        let (files, problems) = discover(&[&folder]);
        let (derived, _) = ioscout_evidence::derive(&Scanner::new(ScanOptions::default()), &files, &problems, &folder);
        let ours = records(&derived.log);
        let processes = workload.len();
        for file in 0..3 {
            let path = format!("/data/file{file}");
            let per_process: Vec<(i64, Expected)> = workload
                .iter()
                .enumerate()
                .filter_map(|(rank, calls)| {
                    let mine: Vec<&Call> = calls.iter().filter(|(which, _)| *which == file).map(|(_, call)| call).collect();
                    (!mine.is_empty()).then(|| (rank as i64, model(&mine)))
                })
                .collect();
            if per_process.is_empty() {
                prop_assert!(!ours.keys().any(|(name, _)| *name == path), "{path} has a record but no calls");
                continue;
            }
            if processes > 1 && per_process.len() == processes {
                // Shared: the counts are sums, the highest bytes maxima.
                let Some(shared) = ours.get(&(path.clone(), -1)) else {
                    prop_assert!(false, "{path}: no shared record");
                    continue;
                };
                let got = derived_of(shared);
                let sum = |field: fn(&Expected) -> i64| per_process.iter().map(|(_, expected)| field(expected)).sum::<i64>();
                prop_assert_eq!(got.reads, sum(|e| e.reads));
                prop_assert_eq!(got.writes, sum(|e| e.writes));
                prop_assert_eq!(got.bytes_read, sum(|e| e.bytes_read));
                prop_assert_eq!(got.seq_reads, sum(|e| e.seq_reads));
                prop_assert_eq!(got.consec_writes, sum(|e| e.consec_writes));
                prop_assert_eq!(got.rw_switches, sum(|e| e.rw_switches));
                prop_assert_eq!(got.max_byte_written, per_process.iter().map(|(_, e)| e.max_byte_written).max().unwrap_or(0));
            } else {
                for (rank, expected) in &per_process {
                    let Some(record) = ours.get(&(path.clone(), *rank)) else {
                        prop_assert!(false, "{path}: no record for rank {rank}");
                        continue;
                    };
                    prop_assert_eq!(&derived_of(record), expected, "{} rank {}", path, rank);
                }
            }
        }
        let _ = std::fs::remove_dir_all(&folder);
    }
}
