//! Tests on the bundled Darshan fixtures (`testdata/darshan`), which never skip: the three
//! header and name-record layouts, both byte orders, `darshan-parser` equality, and damaged logs
//! (damaged copies of the corpus logs too, skipped with a message when the corpus is absent).

#![allow(clippy::print_stderr, reason = "tests say on stderr why they skip")]

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
    // Every time counter is byte-swapped, including the three darshan-util 3.5.0 leaves in
    // big-endian order for POSIX records older than version 4 (it reads 5.35e-305 here).
    let meta = record.fcounters[10];
    assert!((meta - 0.313_571).abs() < 1e-6, "POSIX_F_META_TIME {meta}");
    assert!((record.fcounters[11] - 0.214_671).abs() < 1e-6);
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

/// A small deterministic generator (xorshift) for the mutation test.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound.max(1) as u64) as usize
    }
}

#[test]
fn mutated_logs_never_panic() {
    // A stable stand-in for the fuzz target (fuzz/fuzz_targets/read_darshan.rs): flipped bytes,
    // overwritten 8-byte fields and truncations of each fixture, read with and without partial.
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    for name in [
        "mpi-io-test-x86_64-3.5.0.darshan",
        "mpi-io-test-x86_64-3.1.3.darshan",
        "mpi-io-test-ppc64-3.0.0.darshan",
    ] {
        let original = bytes(name);
        for round in 0..400 {
            let mut data = original.clone();
            match round % 4 {
                0 => {
                    for _ in 0..=random.below(8) {
                        let at = random.below(data.len());
                        data[at] ^= 1 << random.below(8);
                    }
                }
                1 => {
                    let at = random.below(data.len().saturating_sub(8));
                    let value = random.next().to_le_bytes();
                    data[at..at + 8].copy_from_slice(&value);
                }
                2 => data.truncate(random.below(data.len())),
                _ => {
                    let at = random.below(data.len());
                    let length = random.below(64).min(data.len() - at);
                    data.drain(at..at + length);
                }
            }
            for partial in [false, true] {
                if let Ok(log) =
                    DarshanLog::from_bytes(Path::new("mutated.darshan"), &data, ReadOptions { partial })
                {
                    let _ = dump::dump(&log, dump::DumpOptions::all());
                    let _ = dump::dxt(&log);
                    let _ = ioscout_darshan::summary::summary(&log);
                }
            }
        }
    }
}

/// Per module the totals a damaged copy may not exceed: reads, writes and bytes.
fn module_totals(log: &DarshanLog) -> Vec<(String, u64, u64, u64)> {
    ioscout_darshan::breakdown::Breakdown::of(log)
        .modules
        .into_iter()
        .map(|line| (line.module.clone(), line.reads, line.writes, line.bytes()))
        .collect()
}

/// Damages `original` `rounds` times (truncations, and byte flips or overwritten 8-byte fields
/// past the header, in compressed regions whose checks catch them) and holds every copy read in
/// part to the property: no module total above the undamaged log's, and every record kept is
/// one the undamaged log has.
fn damaged_copies_never_exceed_the_log(name: &str, original: &[u8], rounds: usize, random: &mut Random) {
    let whole = DarshanLog::from_bytes(Path::new(name), original, ReadOptions::default())
        .unwrap_or_else(|error| panic!("{name}: {error}"));
    let header_end = whole.header.job.offset as usize;
    let totals = module_totals(&whole);
    for round in 0..rounds {
        let mut data = original.to_vec();
        match round % 3 {
            0 => data.truncate(header_end + random.below(data.len() - header_end)),
            1 => {
                for _ in 0..=random.below(4) {
                    let at = header_end + random.below(data.len() - header_end);
                    data[at] ^= 1 << random.below(8);
                }
            }
            _ => {
                let at = header_end + random.below(data.len().saturating_sub(header_end + 8));
                data[at..at + 8].copy_from_slice(&random.next().to_le_bytes());
            }
        }
        let Ok(log) =
            DarshanLog::from_bytes(Path::new("damaged.darshan"), &data, ReadOptions { partial: true })
        else {
            continue;
        };
        for (module, reads, writes, bytes) in module_totals(&log) {
            let Some(limit) = totals.iter().find(|line| line.0 == module) else {
                panic!("{name} round {round}: a module {module} the log does not have")
            };
            assert!(
                reads <= limit.1 && writes <= limit.2 && bytes <= limit.3,
                "{name} round {round}: {module} {reads}/{writes}/{bytes} above the log's {}/{}/{}; problems {:?}",
                limit.1,
                limit.2,
                limit.3,
                log.problems
            );
        }
    }
}

#[test]
fn damaged_copies_of_the_fixtures_never_exceed_the_log() {
    let mut random = Random(0x2545_f491_4f6c_dd1d);
    for name in ["mpi-io-test-x86_64-3.5.0.darshan", "mpi-io-test-x86_64-3.1.3.darshan"] {
        damaged_copies_never_exceed_the_log(name, &bytes(name), 300, &mut random);
    }
}

#[test]
fn damaged_copies_of_the_corpus_logs_never_exceed_the_log() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/darshan/logs");
    if !root.is_dir() {
        ioscout_testkit::skip(&format!(
            "{} is absent (the shared corpus is not beside this checkout)",
            root.display()
        ));
        return;
    }
    let mut logs = Vec::new();
    let mut folders = vec![root];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|extension| extension == "darshan") {
                logs.push(path);
            }
        }
    }
    logs.sort();
    assert!(logs.len() >= 100, "{} logs", logs.len());
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    for log in &logs {
        let data = std::fs::read(log).unwrap_or_else(|error| panic!("{}: {error}", log.display()));
        // The largest logs get fewer rounds: the property, not the time, is the point.
        let rounds = if data.len() > 4 << 20 { 3 } else { 12 };
        damaged_copies_never_exceed_the_log(&log.to_string_lossy(), &data, rounds, &mut random);
    }
}

/// Rewrites a 3.41 log with every region stored uncompressed (`comp_type` 2, as after
/// `darshan-convert` without compression).
fn uncompressed_copy(data: &[u8]) -> Vec<u8> {
    recompressed_copy(data, 2)
}

/// Each region as two bzip2 streams back to back (as a converted log written by two ranks).
fn bzip2_streams(region: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let half = region.len() / 2;
    let mut out = Vec::new();
    for piece in [&region[..half], &region[half..]] {
        let mut encoder = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
        let _ = encoder.write_all(piece);
        out.extend(encoder.finish().unwrap_or_default());
    }
    out
}

/// Rewrites a 3.41 log with compression `compression` (1 bzip2, 2 none) for every region.
fn recompressed_copy(data: &[u8], compression: u8) -> Vec<u8> {
    use std::io::Read;
    let inflate = |region: &[u8]| {
        // A region may hold several zlib streams back to back.
        let mut out = Vec::new();
        let mut rest = region;
        while !rest.is_empty() {
            let mut decoder = flate2::bufread::ZlibDecoder::new(rest);
            let mut piece = Vec::new();
            if decoder.read_to_end(&mut piece).is_err() {
                break;
            }
            let used = decoder.total_in() as usize;
            out.extend(piece);
            if used == 0 {
                break;
            }
            rest = &rest[used..];
        }
        out
    };
    let read_u64 = |at: usize| u64::from_le_bytes(data[at..at + 8].try_into().unwrap_or_default());
    let encode = |region: Vec<u8>| if compression == 1 { bzip2_streams(&region) } else { region };
    let mut out = data[..1328].to_vec();
    out[16] = compression;
    let names = (read_u64(32), read_u64(40));
    let job = &data[1328..names.0 as usize];
    let job = encode(inflate(job));
    out.extend(&job);
    let mut maps: Vec<(usize, u64, u64)> = Vec::new();
    let names_bytes = encode(inflate(&data[names.0 as usize..(names.0 + names.1) as usize]));
    maps.push((32, out.len() as u64, names_bytes.len() as u64));
    out.extend(&names_bytes);
    for slot in 0..64 {
        let (offset, length) = (read_u64(48 + slot * 16), read_u64(56 + slot * 16));
        if length == 0 {
            continue;
        }
        let region = encode(inflate(&data[offset as usize..(offset + length) as usize]));
        maps.push((48 + slot * 16, out.len() as u64, region.len() as u64));
        out.extend(&region);
    }
    for (at, offset, length) in maps {
        out[at..at + 8].copy_from_slice(&offset.to_le_bytes());
        out[at + 8..at + 16].copy_from_slice(&length.to_le_bytes());
    }
    out
}

#[test]
fn an_uncompressed_log_reads_like_the_compressed_one() {
    let data = bytes("mpi-io-test-x86_64-3.5.0.darshan");
    let plain = uncompressed_copy(&data);
    let compressed = open("mpi-io-test-x86_64-3.5.0.darshan");
    let log = DarshanLog::from_bytes(Path::new("plain.darshan"), &plain, ReadOptions::default())
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(log.header.compression, ioscout_darshan::Compression::None);
    assert_eq!(log.job, compressed.job);
    assert_eq!(log.names, compressed.names);
    assert_eq!(log.counter_records(id::POSIX), compressed.counter_records(id::POSIX));
    assert_eq!(log.counter_records(id::MPIIO), compressed.counter_records(id::MPIIO));
    assert_eq!(
        log.module(id::HEATMAP).map(|m| &m.records),
        compressed.module(id::HEATMAP).map(|m| &m.records)
    );
    assert_eq!(log.module(id::LUSTRE).map(|m| &m.records), compressed.module(id::LUSTRE).map(|m| &m.records));
}

#[test]
fn garbage_inside_records_never_panics_or_hangs() {
    // Uncompressed, every mutated byte lands in a record field as is: counts, bin numbers,
    // stripe counts and segment counts take arbitrary values.
    let plain = uncompressed_copy(&bytes("mpi-io-test-x86_64-3.5.0.darshan"));
    let mut random = Random(0x2545_f491_4f6c_dd1d);
    for _ in 0..2000 {
        let mut data = plain.clone();
        for _ in 0..=random.below(4) {
            let at = 1328 + random.below(data.len() - 1336);
            let value = match random.below(4) {
                0 => u64::MAX,
                1 => i64::MAX as u64,
                2 => random.next() % 100_000,
                _ => random.next(),
            };
            data[at..at + 8].copy_from_slice(&value.to_le_bytes());
        }
        for partial in [false, true] {
            if let Ok(log) =
                DarshanLog::from_bytes(Path::new("garbage.darshan"), &data, ReadOptions { partial })
            {
                let _ = dump::dump(&log, dump::DumpOptions::all());
                let _ = dump::dxt(&log);
                let _ = ioscout_darshan::summary::summary(&log);
            }
        }
    }
}

#[test]
fn a_bzip2_log_of_several_streams_reads_like_the_zlib_one() {
    let data = bytes("mpi-io-test-x86_64-3.5.0.darshan");
    let converted = recompressed_copy(&data, 1);
    let compressed = open("mpi-io-test-x86_64-3.5.0.darshan");
    let log = DarshanLog::from_bytes(Path::new("bzip2.darshan"), &converted, ReadOptions::default())
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(log.header.compression, ioscout_darshan::Compression::Bzip2);
    assert_eq!(log.job, compressed.job);
    assert_eq!(log.names, compressed.names);
    assert_eq!(log.module(id::POSIX).map(|m| m.streams), Some(2));
    for module in &compressed.modules {
        assert_eq!(log.module(module.id).map(|m| &m.records), Some(&module.records), "{}", module.name);
    }
    let dumped = dump::dump(&log, dump::DumpOptions::default());
    assert!(dumped.contains("# compression method: BZIP2"));
}

/// The job summary's histograms hold every request once (Darshan's size bins sum to the
/// operation counts) and its files by use hold every byte once, against the module totals of
/// `summary` (summed apart from the counters).
#[test]
fn the_job_summary_accounts_for_every_request_and_byte() {
    use ioscout_darshan::job_summary::JobSummary;
    for name in [
        "mpi-io-test-x86_64-3.5.0.darshan",
        "mpi-io-test-x86_64-3.1.3.darshan",
        "mpi-io-test-ppc64-3.0.0.darshan",
    ] {
        let log = open(name);
        let summary = JobSummary::of(&log);
        let totals = serde_json::to_value(ioscout_darshan::summary::summary(&log)).unwrap_or_default();
        let total = |module: &str, counter: &str| totals[module][counter].as_u64().unwrap_or(u64::MAX);
        let posix = summary.sizes.iter().find(|histogram| histogram.module == "POSIX");
        let posix = posix.unwrap_or_else(|| panic!("{name}: no POSIX sizes"));
        assert_eq!(posix.reads.iter().sum::<u64>(), total("POSIX", "POSIX_READS"), "{name}");
        assert_eq!(posix.writes.iter().sum::<u64>(), total("POSIX", "POSIX_WRITES"), "{name}");
        let files = summary.files.iter().find(|files| files.module == "POSIX");
        let files = files.unwrap_or_else(|| panic!("{name}: no POSIX files"));
        assert_eq!(
            files.read_only.1 + files.write_only.1 + files.read_write.1,
            total("POSIX", "POSIX_BYTES_READ") + total("POSIX", "POSIX_BYTES_WRITTEN"),
            "{name}"
        );
        let common: i64 =
            summary.common.iter().filter(|access| access.module == "POSIX").map(|access| access.count).sum();
        assert!(
            common > 0 && common as u64 <= total("POSIX", "POSIX_READS") + total("POSIX", "POSIX_WRITES"),
            "{name}"
        );
    }
}

/// `only_file` keeps one file's records in every module (POSIX, MPI-IO, DXT) and drops the
/// modules holding none of them (STDIO's stdout and stderr here); a name the log does not hold
/// gives `None`.
#[test]
fn one_files_records_are_kept_and_the_rest_dropped() {
    let log = open("mpi-io-test-x86_64-3.1.3.darshan");
    let file = "/tmp/test/mpi-io-test.tmp.dat";
    let Some(only) = log.only_file(file) else { panic!("{file} not found") };
    let modules: Vec<&str> = only.modules.iter().map(|module| module.name).collect();
    assert_eq!(modules, ["POSIX", "MPI-IO", "DXT_POSIX", "DXT_MPIIO"]);
    for module in &only.modules {
        assert_eq!(
            module.records.len(),
            log.module(module.id).map_or(0, |whole| whole.records.len()),
            "{}",
            module.name
        );
        let ids: Vec<u64> = match &module.records {
            Records::Counters(records) => records.iter().map(|record| record.id).collect(),
            Records::Dxt(records) => records.iter().map(|record| record.id).collect(),
            _ => Vec::new(),
        };
        assert!(ids.iter().all(|record| only.name(*record) == Some(file)), "{}", module.name);
    }
    assert!(log.module(id::STDIO).is_some_and(|stdio| !stdio.records.is_empty()));
    assert!(log.only_file("/tmp/test/other.dat").is_none());
}

/// OST usage of the 3.41 log: its one file (`LUSTRE_COMP1_OST_ID_0` 1, one stripe) puts all its
/// POSIX bytes (64 MiB read, 64 MiB written) on OST 1; a log without LUSTRE has none.
#[test]
fn ost_usage_puts_each_files_bytes_on_its_osts() {
    use ioscout_darshan::job_summary::{JobSummary, OstUse};
    let summary = JobSummary::of(&open("mpi-io-test-x86_64-3.5.0.darshan"));
    assert_eq!(summary.osts, [OstUse { ost: 1, files: 1, bytes: 134_217_728.0 }]);
    assert!(JobSummary::of(&open("mpi-io-test-x86_64-3.1.3.darshan")).osts.is_empty());
}

/// The I/O phases of the 3.10 log's DXT POSIX segments: one phase holding its 8 segments (a
/// 16 MiB write and read per rank) over its 4 ranks, the slowest rank at or above the median.
#[test]
fn the_dxt_segments_make_one_io_phase() {
    let summary = ioscout_darshan::job_summary::JobSummary::of(&open("mpi-io-test-x86_64-3.1.3.darshan"));
    assert_eq!(summary.phases.module, "DXT_POSIX");
    let [phase] = summary.phases.phases.as_slice() else { panic!("{:?}", summary.phases) };
    assert_eq!((phase.segments, phase.ranks), (8, 4));
    assert_eq!((phase.read_bytes, phase.written_bytes), (67_108_864, 67_108_864));
    assert!(phase.slowest_s >= phase.median_s && phase.median_s > 0.0);
    assert!(phase.start_s >= 0.0 && phase.end_s > phase.start_s);
    assert!(
        ioscout_darshan::job_summary::JobSummary::of(&open("mpi-io-test-x86_64-3.5.0.darshan"))
            .phases
            .phases
            .is_empty()
    );
}
