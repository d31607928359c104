//! Bad input never panics and never gives a silently wrong counter: a data call without `ret`,
//! a `pread` without `offset`, a call without `fhash`, a negative or absurd offset, a read before
//! any open, a close without an open, a `SEEK_END` without a return value. Each is counted, with
//! the trace file and the line named (and the event, for a call tied to no file).

use std::path::PathBuf;

use ioscout_darshan::{counter_names, id};
use ioscout_read::{ScanOptions, Scanner, discover};

fn derive(name: &str, lines: &[&str]) -> (ioscout_evidence::Derived, PathBuf) {
    derive_with(name, lines, ScanOptions::default())
}

fn derive_with(name: &str, lines: &[&str], options: ScanOptions) -> (ioscout_evidence::Derived, PathBuf) {
    let folder = std::env::temp_dir().join(format!("ioscout-evidence-bad-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    let _ = std::fs::create_dir_all(&folder);
    let mut text = String::from(
        r#"{"name":"FH","cat":"dftracer","pid":1,"tid":1,"ph":"M","args":{"name":"/data/a","value":"fa"}}"#,
    );
    text.push('\n');
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    let path = folder.join("trace.pfw");
    let _ = std::fs::write(&path, text);
    let (files, problems) = discover(&[&folder]);
    let (derived, _) = ioscout_evidence::derive(&Scanner::new(options), &files, &problems, &folder);
    (derived, path)
}

fn counter(derived: &ioscout_evidence::Derived, name: &str) -> i64 {
    let (names, _) = counter_names(id::POSIX).unwrap_or_default();
    let index = names.iter().position(|candidate| *candidate == name).unwrap_or(usize::MAX);
    derived
        .log
        .counter_records(id::POSIX)
        .iter()
        .map(|record| record.counters.get(index).copied().unwrap_or(0))
        .sum()
}

fn event(id: i64, name: &str, args: &str) -> String {
    format!(
        r#"{{"id":{id},"name":"{name}","cat":"POSIX","pid":1,"tid":1,"ts":{},"dur":2,"ph":"X","args":{{{args}}}}}"#,
        100 + id * 10
    )
}

#[test]
fn a_read_without_ret_is_counted_as_a_call_of_unknown_size_and_named() {
    let lines = [event(1, "open64", r#""fhash":"fa""#), event(2, "read", r#""fhash":"fa","count":10"#)];
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let (derived, path) = derive("no-ret", &lines);
    assert_eq!(counter(&derived, "POSIX_READS"), 1);
    assert_eq!(counter(&derived, "POSIX_BYTES_READ"), 0);
    assert_eq!(derived.approximations.missing_ret, 1);
    let record = &derived.approximated_records[0];
    assert_eq!(
        (record.path.as_str(), record.line, record.trace.as_deref()),
        ("/data/a", Some(3), Some(path.as_path())),
        "the FH record is line 1, the open line 2, the read line 3"
    );
}

#[test]
fn lines_are_named_exactly_when_the_file_is_read_in_many_small_units() {
    // Units of 300 bytes cut most lines in two: the merge stitches them, and the line of every
    // call still counts from the start of the file.
    let mut lines = vec![event(1, "open64", r#""fhash":"fa""#)];
    for id in 2..200 {
        lines.push(event(id, "pread64", r#""fhash":"fa","ret":8,"offset":0,"count":8"#));
    }
    lines.push(event(200, "pread64", r#""fhash":"fa","ret":8,"count":8"#));
    lines.push(event(201, "read", r#""ret":4"#));
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    for unit_bytes in [300, 301, 4096] {
        let options =
            ScanOptions { unit_bytes, threads: 2, window_units_per_thread: 1, ..ScanOptions::default() };
        let (derived, _) = derive_with(&format!("units-{unit_bytes}"), &lines, options);
        assert_eq!(derived.approximations.missing_offset, 1, "units of {unit_bytes} bytes");
        assert_eq!(derived.approximated_records[0].line, Some(201), "units of {unit_bytes} bytes");
        assert_eq!(derived.unusable_examples[0].line, 202, "units of {unit_bytes} bytes");
    }
}

#[test]
fn a_call_without_a_file_is_counted_with_its_event() {
    let lines = [event(1, "read", r#""ret":4"#), event(2, "open64", r#""fhash":"fa""#)];
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let (derived, path) = derive("no-file", &lines);
    assert_eq!(derived.unusable_calls, 1);
    let example = &derived.unusable_examples[0];
    assert_eq!(
        (example.trace.as_path(), example.line, example.event_id, example.name.as_str()),
        (path.as_path(), 2, Some(1), "read")
    );
    assert_eq!(counter(&derived, "POSIX_READS"), 0);
}

#[test]
fn negative_and_absurd_offsets_are_ignored_and_counted() {
    let lines = [
        event(1, "open64", r#""fhash":"fa""#),
        event(2, "pread64", r#""fhash":"fa","ret":4,"offset":-5"#),
        event(3, "pwrite64", r#""fhash":"fa","ret":4,"offset":9223372036854775000"#),
        event(4, "pread64", r#""fhash":"fa","ret":4"#),
    ];
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let (derived, _) = derive("absurd", &lines);
    assert_eq!(derived.approximations.absurd, 2);
    assert_eq!(derived.approximations.missing_offset, 1);
    assert_eq!(counter(&derived, "POSIX_READS"), 1);
    assert_eq!(counter(&derived, "POSIX_WRITES"), 0);
}

#[test]
fn a_read_before_any_open_and_a_close_without_open_are_approximations_not_panics() {
    let lines = [
        event(1, "read", r#""fhash":"fa","ret":100"#),
        event(2, "close", r#""fhash":"fa","ret":0"#),
        event(3, "close", r#""fhash":"fa","ret":0"#),
        event(4, "lseek64", r#""fhash":"fa","whence":2,"offset":0"#),
        event(5, "read", r#""fhash":"fa","ret":100"#),
    ];
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let (derived, _) = derive("before-open", &lines);
    assert_eq!(derived.approximations.before_open, 1);
    assert_eq!(derived.approximations.unknown_seek, 1);
    assert_eq!(derived.approximations.unknown_position, 1);
    assert_eq!(counter(&derived, "POSIX_READS"), 2);
    assert_eq!(counter(&derived, "POSIX_SEEKS"), 1);
}

mod garbage {
    use proptest::prelude::*;

    use super::*;

    fn value() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("0".to_string()),
            Just("-1".to_string()),
            Just("9223372036854775807".to_string()),
            Just("-9223372036854775808".to_string()),
            Just("18446744073709551615".to_string()),
            Just("1e300".to_string()),
            Just("\"12\"".to_string()),
            Just("\"x\"".to_string()),
            Just("null".to_string()),
            (-5_i64..5_000_000).prop_map(|number| number.to_string()),
        ]
    }

    fn line() -> impl Strategy<Value = String> {
        let names = prop::sample::select(vec![
            "open64",
            "close",
            "read",
            "pread64",
            "write",
            "pwrite64",
            "lseek64",
            "__xstat64",
            "fsync",
            "rename",
            "unlink",
            "dup2",
            "mmap",
            "fopen",
            "fread",
            "fwrite",
            "fseek",
            "ftell",
            "rewind",
            "fclose",
            "fgets",
            "waitpid",
            "start",
        ]);
        let cats = prop::sample::select(vec!["POSIX", "STDIO", "dftracer", "posix"]);
        let keys = prop::sample::select(vec![
            "fhash",
            "ret",
            "offset",
            "whence",
            "size",
            "count",
            "newpath_hash",
            "fname",
        ]);
        (names, cats, 0_i64..4, value(), value(), proptest::collection::vec((keys, value()), 0..6)).prop_map(
            |(name, cat, pid, ts, dur, args)| {
                let args: Vec<String> = args
                    .into_iter()
                    .map(|(key, value)| {
                        if key == "fhash" || key == "newpath_hash" {
                            format!(r#""{key}":"f{}""#, value.len() % 3)
                        } else {
                            format!(r#""{key}":{value}"#)
                        }
                    })
                    .collect();
                format!(
                    r#"{{"id":1,"name":"{name}","cat":"{cat}","pid":{pid},"tid":1,"ts":{ts},"dur":{dur},"ph":"X","args":{{{}}}}}"#,
                    args.join(",")
                )
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// Any sequence of calls, in any order and with any values, derives without a panic, and
        /// every derived counter of a record is a count, never negative (save Darshan's -1).
        #[test]
        fn any_calls_derive_without_a_panic(lines in proptest::collection::vec(line(), 1..80)) {
            let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
            let (derived, _) = derive(&format!("garbage-{}", lines.len()), &lines);
            for record in derived.log.counter_records(id::POSIX) {
                let (names, _) = counter_names(id::POSIX).unwrap_or_default();
                for (name, value) in names.iter().zip(&record.counters) {
                    let id_or_bytes = name.contains("MAX_BYTE") || *name == "POSIX_RENAMED_FROM";
                    prop_assert!(*value >= -1 || id_or_bytes, "{name} = {value}");
                }
            }
        }
    }
}

#[test]
fn writes_after_an_append_open_and_mapped_files_are_said_to_be_approximated() {
    // open(O_WRONLY | O_CREAT | O_APPEND) = 1089: the writes land at the file's end, which the
    // trace does not give; Darshan counts them from 0 and so do the records, but say so.
    let lines = [
        event(1, "open64", r#""fhash":"fa","flags":1089,"mode":420"#),
        event(2, "write", r#""fhash":"fa","ret":10,"count":10"#),
        event(3, "write", r#""fhash":"fa","ret":10,"count":10"#),
        event(4, "mmap", r#""fhash":"fa","ret":0"#),
        event(5, "close", r#""fhash":"fa""#),
        event(6, "open64", r#""fhash":"fa","flags":1,"mode":420"#),
        event(7, "write", r#""fhash":"fa","ret":10,"count":10"#),
    ];
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let (derived, _) = derive("append", &lines);
    assert_eq!(counter(&derived, "POSIX_WRITES"), 3);
    assert_eq!(counter(&derived, "POSIX_BYTES_WRITTEN"), 30);
    assert_eq!(
        (derived.approximations.append_position, derived.approximations.mapped),
        (2, 1),
        "the write after a plain open is exact"
    );
    assert_eq!(derived.approximated_records[0].line, Some(3), "the first write after the append open");
}

#[test]
fn fwrite_after_fopen_for_appending_is_said_to_be_approximated() {
    let stdio = |id: i64, name: &str, args: &str| {
        event(id, name, args).replace(r#""cat":"POSIX""#, r#""cat":"STDIO""#)
    };
    let lines = [
        stdio(1, "fopen", r#""fhash":"fa","mode":"a""#),
        stdio(2, "fwrite", r#""fhash":"fa","ret":1,"size":100"#),
        stdio(3, "fread", r#""fhash":"fa","ret":1,"size":100"#),
    ];
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let (derived, _) = derive("fopen-append", &lines);
    assert_eq!(derived.approximations.append_position, 1, "the write only: reads use the position");
}
