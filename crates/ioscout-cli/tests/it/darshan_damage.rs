//! Damaged copies of Darshan logs through every command that reads a log: cut short, bits
//! flipped and 8-byte fields overwritten at random past the header (seeded, so a failure
//! repeats), on the bundled logs (never skipped) and on the corpus's. And one damage made on
//! purpose, a counter overwritten with an impossible value inside a whole compressed region,
//! which no checksum catches: the record is dropped, counted with its offset, and no total or
//! finding is built on it.

use crate::{ioscout, root};

/// The commands that read a log, each with the arguments it needs besides the log, and the file
/// it writes (if any; named in the test's own folder, as tests run at once).
const COMMANDS: [(&[&str], Option<&str>); 9] = [
    (&["analyze"], None),
    (&["count"], None),
    (&["diagnose"], None),
    (&["view", "--limit", "5"], None),
    (&["query", "--where", "rank >= 0 and length >= 0", "--limit", "5"], None),
    (&["query", "--group-by", "rank,op", "--agg", "count,sum:size"], None),
    (
        &["export", "--format", "chrome-json", "-o", "target/damaged-log.json"],
        Some("target/damaged-log.json"),
    ),
    (
        &["export", "--format", "parquet", "-o", "target/damaged-log.parquet"],
        Some("target/damaged-log.parquet"),
    ),
    (&["report", "-o", "target/damaged-log.html"], Some("target/damaged-log.html")),
];

use ioscout_testkit::Random;

/// Runs every command on the damaged copy at `path`: exit 0 or 1 with real output (and the
/// damage said in a warning when the reader found any), or exit 2 in one line with nothing
/// written; never a panic, never a line of the log's bytes.
fn read_or_refused(path: &std::path::Path, damage_found: bool) {
    let log = path.to_string_lossy();
    let folder = path.parent().unwrap_or(path);
    for (command, written) in COMMANDS {
        let written = written.map(|file| folder.join(file));
        if let Some(file) = &written {
            let _ = std::fs::remove_file(file);
        }
        let written_name = written.as_ref().map(|file| file.to_string_lossy().into_owned());
        let mut arguments = command.to_vec();
        arguments.extend(written_name.as_deref());
        arguments.push(&log);
        let output = ioscout(&arguments);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("panicked") && !stderr.contains("UTF-8"), "{arguments:?}: {stderr}");
        match output.status.code() {
            Some(0 | 1) => {
                let wrote = written.as_ref().map_or(!output.stdout.is_empty(), |file| file.exists());
                assert!(wrote, "{arguments:?}: exit 0 with nothing: {stderr}");
                if damage_found {
                    assert!(stderr.contains("warning"), "{arguments:?}: damage not said: {stderr}");
                }
            }
            Some(2) => {
                assert_eq!(stderr.lines().count(), 1, "{arguments:?}: {stderr}");
                assert!(output.stdout.is_empty(), "{arguments:?}: a refusal printed a result");
                assert!(written.is_none_or(|file| !file.exists()), "{arguments:?}: a refusal left a file");
            }
            other => panic!("{arguments:?}: exit {other:?}: {stderr}"),
        }
    }
}

/// `rounds` damaged copies of the log at `source`, each run through every command; returns how
/// many copies the reader found damage in.
fn damaged_copies_read_or_refused(source: &std::path::Path, rounds: usize, random: &mut Random) -> usize {
    let original = std::fs::read(source).unwrap_or_else(|error| panic!("{}: {error}", source.display()));
    let whole =
        ioscout_darshan::DarshanLog::from_bytes(source, &original, ioscout_darshan::ReadOptions::default())
            .unwrap_or_else(|error| panic!("{}: {error}", source.display()));
    let header_end = usize::try_from(whole.header.job.offset).unwrap_or(0);
    let folder =
        crate::temp_dir(&format!("damaged-{}", source.file_stem().unwrap_or_default().to_string_lossy()));
    let mut damaged = 0;
    for round in 0..rounds {
        let copy = random.damaged_copy(&original, header_end, round);
        let path = folder.join(format!("round-{round}.darshan"));
        std::fs::write(&path, &copy).unwrap_or_else(|error| panic!("{error}"));
        let found = ioscout_darshan::DarshanLog::from_bytes(
            &path,
            &copy,
            ioscout_darshan::ReadOptions { partial: true },
        )
        .is_ok_and(|log| !log.problems.is_empty());
        damaged += usize::from(found);
        read_or_refused(&path, found);
    }
    let _ = std::fs::remove_dir_all(&folder);
    damaged
}

#[test]
fn damaged_copies_of_the_bundled_logs_are_read_or_refused_by_every_command() {
    let mut random = Random(0x51f1_5eed_d00d_cafe);
    let mut damaged = 0;
    for name in ["mpi-io-test-x86_64-3.1.3.darshan", "mpi-io-test-x86_64-3.5.0.darshan"] {
        damaged +=
            damaged_copies_read_or_refused(&root().join("testdata/darshan").join(name), 12, &mut random);
    }
    // Most random damage lands in a compressed region and is found; the test is about those.
    assert!(damaged >= 16, "only {damaged} of 24 copies were found damaged");
}

#[test]
fn damaged_copies_of_the_corpus_logs_are_read_or_refused_by_every_command() {
    let Some(root) = ioscout_testkit::corpus("darshan/logs") else { return };
    let logs = ioscout_testkit::files_under(&root, "darshan");
    assert!(logs.len() >= 100, "{} logs", logs.len());
    let mut random = Random(0x00dd_ba11_5eed_1e55);
    for log in &logs {
        // One copy of each log, three of each DXT log (whose segments four commands read).
        let dxt = ioscout_darshan::DarshanLog::open(log, ioscout_darshan::ReadOptions::default()).is_ok_and(
            |whole| {
                [ioscout_darshan::id::DXT_POSIX, ioscout_darshan::id::DXT_MPIIO]
                    .iter()
                    .any(|module| whole.module(*module).is_some())
            },
        );
        damaged_copies_read_or_refused(log, if dxt { 3 } else { 1 }, &mut random);
    }
}

/// The concatenated zlib streams of a region, inflated.
fn inflate_region(region: &[u8]) -> Vec<u8> {
    use std::io::Read;
    let mut out = Vec::new();
    let mut rest = region;
    while !rest.is_empty() {
        let mut decoder = flate2::bufread::ZlibDecoder::new(rest);
        if decoder.read_to_end(&mut out).is_err() {
            break;
        }
        let used = usize::try_from(decoder.total_in()).unwrap_or(0);
        if used == 0 {
            break;
        }
        rest = &rest[used..];
    }
    out
}

/// A Darshan runtime bug or a bit flipped before compression leaves an impossible counter in a
/// region whose checksum holds (the IO500 logs summed `POSIX_WRITES` 7,621,927,833,723,676,937
/// into "small write requests"). The record is dropped and counted with its offset; the totals
/// are the other records'; no finding, page or query shows the value.
#[test]
fn a_counter_overwritten_with_an_impossible_value_drops_its_record_and_nothing_is_built_on_it() {
    use ioscout_darshan::{DarshanLog, ReadOptions, counter_names, id};
    const IMPOSSIBLE: i64 = 7_621_927_833_723_676_937;
    let source = root().join("testdata/darshan/mpi-io-test-x86_64-3.5.0.darshan");
    let original = std::fs::read(&source).unwrap_or_else(|error| panic!("{error}"));
    let whole = DarshanLog::from_bytes(&source, &original, ReadOptions::default())
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(whole.header.minor, 41, "the slot layout below is format 3.41's");
    let (names, float_names) = counter_names(id::POSIX).unwrap_or_default();
    let writes_at = names.iter().position(|name| *name == "POSIX_WRITES").unwrap_or(usize::MAX);
    let records = whole.counter_records(id::POSIX);
    let (victim, record) = records
        .iter()
        .enumerate()
        .max_by_key(|(_, record)| record.counters.get(writes_at).copied().unwrap_or(0))
        .unwrap_or_else(|| panic!("no POSIX record"));
    let victim_writes = record.counters[writes_at];
    assert!(victim_writes > 0, "the record overwritten has writes to lose");
    // The region inflated, the counter overwritten in place, the region compressed again and
    // appended, and the header's POSIX slot pointed at it.
    let map = whole.header.modules[id::POSIX];
    let start = usize::try_from(map.offset).unwrap_or(0);
    let end = start + usize::try_from(map.length).unwrap_or(0);
    let mut region = inflate_region(&original[start..end]);
    let size = 16 + 8 * (names.len() + float_names.len());
    let at = victim * size;
    assert_eq!(region[at..at + 8], record.id.to_le_bytes(), "record {victim} lies at byte {at}");
    region[at + 16 + 8 * writes_at..at + 24 + 8 * writes_at].copy_from_slice(&IMPOSSIBLE.to_le_bytes());
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut encoder, &region).unwrap_or_else(|error| panic!("{error}"));
    let compressed = encoder.finish().unwrap_or_else(|error| panic!("{error}"));
    let mut copy = original.clone();
    let slot = 48 + 16 * id::POSIX;
    let appended_at = copy.len() as u64;
    copy[slot..slot + 8].copy_from_slice(&appended_at.to_le_bytes());
    copy[slot + 8..slot + 16].copy_from_slice(&(compressed.len() as u64).to_le_bytes());
    copy.extend(&compressed);
    let folder = crate::temp_dir("impossible-counter");
    let path = folder.join("impossible.darshan");
    std::fs::write(&path, &copy).unwrap_or_else(|error| panic!("{error}"));
    let log = path.to_string_lossy().into_owned();

    // Dropped and counted, with its offset in the decompressed region.
    let value = crate::json(&["analyze", "--json", &log], 0);
    let problems = value["logs"][0]["problems"].to_string();
    assert!(
        problems.contains(&format!("record {victim} "))
            && problems.contains(&format!("decompressed byte {at}")),
        "{problems}"
    );
    // The fixture's one POSIX record is a shared one: with it dropped, POSIX is read as a
    // module with no records (no rule may take it for a job without POSIX calls).
    assert_eq!(records.len(), 1);
    let modules = value["logs"][0]["modules"].as_array().cloned().unwrap_or_default();
    assert!(modules.iter().all(|module| module["module"] != "POSIX"), "{value}");
    assert_eq!(value["logs"][0]["unread_modules"], serde_json::json!(["POSIX"]), "{value}");
    // No finding, proposal, page or summary holds the value, in any spelling.
    let spellings =
        [IMPOSSIBLE.to_string(), "7,621,927".to_string(), "7.62e18".to_string(), "7.6e18".to_string()];
    let diagnosed = crate::json(&["diagnose", "--rules", "drishti", "--json", &log], 0);
    assert!(diagnosed["context"]["problems"].to_string().contains("dropped"), "{}", diagnosed["context"]);
    let posix_facts: Vec<&str> = diagnosed["facts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|fact| fact["fact_type"].as_str())
        .filter(|code| code.starts_with('P'))
        .collect();
    assert!(posix_facts.is_empty(), "POSIX findings on a dropped record: {posix_facts:?}");
    let diagnosed = crate::json(&["diagnose", "--json", &log], 0);
    let page = root().join("target/impossible-counter.html");
    let _ = std::fs::remove_file(&page);
    let reported = ioscout(&["report", "-o", &page.to_string_lossy(), &log]);
    assert_eq!(reported.status.code(), Some(0), "{}", String::from_utf8_lossy(&reported.stderr));
    let html = std::fs::read_to_string(&page).unwrap_or_else(|error| panic!("{error}"));
    let outputs = [
        serde_json::to_string_pretty(&diagnosed).unwrap_or_default(),
        crate::stdout(&ioscout(&["diagnose", &log])),
        crate::stdout(&ioscout(&["advise", &log])),
        crate::stdout(&ioscout(&["darshan", "summary", "--partial", &log])),
        crate::stdout(&ioscout(&["analyze", &log])),
        html,
    ];
    for (index, output) in outputs.iter().enumerate() {
        assert!(!output.is_empty(), "output {index} is empty");
        // Only the problem that says what was dropped and why may name the value.
        for line in output.lines().filter(|line| !line.contains("dropped: POSIX_WRITES is")) {
            for spelling in &spellings {
                assert!(!line.contains(spelling.as_str()), "output {index} holds {spelling}: {line}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&folder);
}
