//! Differential tests: the fast path and the full `serde_json` parse must agree on every line the
//! fast path answers, and the counting path ([`decode_phase`]) must agree with [`decode_line`] on
//! validity and phase. Lines come from the bundled fixtures, the shared corpus when present, a
//! list of tricky cases, and generated lines (proptest).

#![allow(clippy::print_stderr, reason = "tests say on stderr why they skip")]

use std::io::Read;
use std::path::{Path, PathBuf};

use ioscout_read::event::decoders_agree;
use ioscout_read::metadata::metadata_paths_agree;
use proptest::prelude::*;

/// Checks one line and returns whether the fast path answered (the metadata path is checked
/// too: [`check_metadata_line`]).
fn check_line(line: &[u8]) -> bool {
    check_metadata_line(line);
    decoders_agree(line).unwrap_or_else(|problem| panic!("{problem}"))
}

/// Checks the metadata path on one line and returns whether it took the line.
fn check_metadata_line(line: &[u8]) -> bool {
    metadata_paths_agree(line).unwrap_or_else(|problem| panic!("{problem}"))
}

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata")
}

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/dftracer")
}

fn decompressed(path: &Path) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap_or_default();
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        // Truncated fixtures decode partially; what was decoded is still worth checking.
        let _ = flate2::read::MultiGzDecoder::new(bytes.as_slice()).read_to_end(&mut out);
        out
    } else {
        bytes
    }
}

fn trace_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(directory) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&directory) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.to_string_lossy().contains(".pfw") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn fixtures_agree_line_by_line() {
    let mut lines = 0;
    let mut fast = 0;
    for path in trace_files(&testdata()) {
        for line in decompressed(&path).split(|&byte| byte == b'\n') {
            lines += 1;
            if check_line(line) {
                fast += 1;
            }
        }
    }
    assert!(lines > 2000, "fixtures missing: {lines} lines");
    // The fast path must carry the common case, or the reader is slow for nothing.
    assert!(fast * 10 > lines * 9, "fast path answered only {fast} of {lines} lines");
}

#[test]
fn corpus_agrees_line_by_line() {
    let root = corpus();
    if !root.is_dir() {
        ioscout_testkit::skip(&format!(
            "{} is absent (the shared corpus is not beside this checkout)",
            root.display()
        ));
        return;
    }
    let (mut lines, mut metadata, mut taken) = (0, 0, 0);
    for path in trace_files(&root) {
        for line in decompressed(&path).split(|&byte| byte == b'\n') {
            lines += 1;
            check_line(line);
            if line.windows(8).any(|window| window == br#""ph":"M""# || window == br#","ph":4,"#) {
                metadata += 1;
                taken += u64::from(check_metadata_line(line));
            }
        }
    }
    assert!(lines > 500_000, "corpus unexpectedly small: {lines} lines");
    // The metadata path must carry the metadata lines DFTracer writes, or it saves nothing.
    assert!(taken * 10 > metadata * 9, "the metadata path took only {taken} of {metadata} metadata lines");
}

#[test]
fn tricky_lines_agree() {
    let cases: &[&[u8]] = &[
        br#"{"id":1,"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":1,"dur":2,"ph":"X"}"#,
        br#"  {"id":"0","name":"open","cat":"POSIX","pid":"0","tid":"1","ts":"10","dur":"3","ph":"X"},"#,
        br#"[{"ph":1,"ts":1}"#,
        br#"{"ph":1,"ts":1}]"#,
        br#"{"ph":1,"ts":-1,"dur":1e3}"#,
        br#"{"ph":1,"ts":1.5}"#,
        br#"{"ph":1,"ts":1e400}"#,
        br#"{"ph":1,"ts":99999999999999999999}"#,
        br#"{"ph":1,"ts":"12a"}"#,
        br#"{"ph":1,"ts":null,"dur":null,"args":null}"#,
        br#"{"ph":1,"args":[1,2]}"#,
        br#"{"ph":"C","args":{"dft_cnt":1}}"#,
        br#"{"ph":"C","args":{"nested":{"dft_cnt":1}}}"#,
        br#"{"ph":"C","args":{"x":"dft_cnt"}}"#,
        br#"{"ph":"C"}"#,
        br#"{"ph":5}"#,
        br#"{"ph":1.0}"#,
        br#"{"ph":true}"#,
        br#"{"ph":"X","ph":4}"#,
        br#"{"name":"a\"b","ph":"X"}"#,
        br#"{"name":"caf\u00e9","ph":"X"}"#,
        "{\"name\":\"café\",\"ph\":\"X\"}".as_bytes(),
        b"{\"name\":\"a\tb\",\"ph\":\"X\"}",
        b"{\"name\":\"x\",\t\"ph\":\"X\"}",
        br#"{"ph":"X","args":{"a":{"b":{"c":[{"d":[]}]}}}}"#,
        br#"{"ph":"X","args":{"a":01}}"#,
        br#"{"ph":"X","args":{"a":1,}}"#,
        br#"{"ph":"X","args":{"a":[1,]}}"#,
        br#"{"ph":"X","args":{"a":-}}"#,
        br#"{"ph":"X","args":{"a":tru}}"#,
        br#"{"ph":"X","args":{"a" 1}}"#,
        br#"{"ph":"X"} {"ph":"X"}"#,
        br#"{"ph":"X"}}"#,
        br#"{"ph":"X""#,
        b"{}",
        br#"{"id":1}"#,
        b"",
        b"   ",
        b"[",
        b"]",
        b"],",
        b"\xff\xfe",
        b"{\"ph\":\"X\",\"name\":\"\xc3\"}",
        br#"{"ph":"X","args":{"hhash":17868160079272185648}}"#,
        // DFTracer's layout with args its compact reader leaves to the general one part-way.
        br#"{"id":1,"name":"open","cat":"POSIX","pid":1,"tid":1,"ts":1,"dur":2,"ph":"X","args":{"fhash":"a","ret":3,"flag":true,"size":4}}"#,
        br#"{"id":1,"name":"open","cat":"POSIX","pid":1,"tid":1,"ts":1,"dur":2,"ph":"X","args":{"ret":3,"nested":{"size":9},"size":4}}"#,
        br#"{"id":1,"name":"open","cat":"POSIX","pid":1,"tid":1,"ts":1,"dur":2,"ph":"X","args":{"ret": 3,"size":4}}"#,
        br#"{"id":1,"name":"open","cat":"POSIX","pid":1,"tid":1,"ts":1,"dur":2,"ph":"X","args":{"ret":3,"ret":null}}"#,
        br#"{"id":1,"name":"open","cat":"POSIX","pid":1,"tid":1,"ts":1,"dur":2,"ph":"X","args":{"ret":3,"ret":5,"offset":-1.5e3}}"#,
        br#"{"id":1,"name":"open","cat":"POSIX","pid":1,"tid":1,"ts":1,"dur":2,"ph":"X","args":{ }}"#,
        br#"{"id":1,"name":"open","cat":"POSIX","pid":1,"tid":1,"ts":1,"dur":2,"ph":"X","args":{}}"#,
        br#"{"id":1,"name":"open","cat":"POSIX","pid":1,"tid":1,"ts":1,"dur":2,"ph":"X","args":{"ret":3,}}"#,
        br#"{"id":1,"name":"open","cat":"POSIX","pid":1,"tid":1,"ts":1,"dur":2,"ph":"X","args":{"ret":3}"#,
        br#"{"id":1,"name":"open","cat":"POSIX","pid":1,"tid":1,"ts":1,"dur":2,"ph":"X","args":{"ret":3} }"#,
        br#"{ "ph" : 1 , "ts" : 5 , "args" : { "a" : [ 1 , 2 ] } }"#,
        // A metadata line whose host hash, which the metadata path skips, is not UTF-8 (found by
        // the decode_line fuzz target).
        b"{\"name\":\"HH\",\"cat\":\"dftracer\",\"type\":1,\"pid\":777,\"tid\":777,\"ph\":4,\"args\":{\"hhash\":\"177f\xba7d\",\"name\":\"tuolumne3\",\"value\":\"177f\"}}",
    ];
    for case in cases {
        check_line(case);
    }
    let nested = format!("{{\"ph\":1,\"args\":{}1{}}}", "[".repeat(70), "]".repeat(70));
    check_line(nested.as_bytes());
}

fn json_string() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9_./ -]{0,12}",
        "[a-f0-9]{16}",
        ".{0,6}",
        Just("quote\"inside".to_string()),
        Just("back\\slash".to_string()),
        Just("tab\there".to_string()),
    ]
}

fn json_scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|value| value.to_string()),
        any::<u64>().prop_map(|value| value.to_string()),
        any::<f64>().prop_filter("finite", |value| value.is_finite()).prop_map(|value| format!("{value:e}")),
        json_string().prop_map(|text| serde_json::to_string(&text).unwrap_or_default()),
        Just("true".to_string()),
        Just("null".to_string()),
        Just("[1,\"a\",{\"b\":null}]".to_string()),
    ]
}

fn event_line() -> impl Strategy<Value = String> {
    let keys = prop_oneof![
        Just("id"),
        Just("name"),
        Just("cat"),
        Just("pid"),
        Just("tid"),
        Just("ts"),
        Just("dur"),
        Just("ph"),
        Just("type"),
        Just("other"),
    ];
    let phase = prop_oneof![
        Just("\"X\"".to_string()),
        Just("\"M\"".to_string()),
        Just("\"C\"".to_string()),
        Just("1".to_string()),
        Just("3".to_string()),
        Just("4".to_string()),
        json_scalar(),
    ];
    let args = proptest::collection::vec(
        (prop_oneof![Just("dft_cnt".to_string()), Just("hhash".to_string()), json_string()], json_scalar()),
        0..5,
    );
    (proptest::collection::vec((keys, json_scalar()), 0..8), phase, args, any::<bool>(), any::<bool>())
        .prop_map(|(fields, phase, args, with_args, spaced)| {
            let mut parts: Vec<String> =
                fields.into_iter().map(|(key, value)| format!("\"{key}\":{value}")).collect();
            parts.push(format!("\"ph\":{phase}"));
            if with_args {
                let inner: Vec<String> = args
                    .into_iter()
                    .map(|(key, value)| {
                        format!("{}:{value}", serde_json::to_string(&key).unwrap_or_default())
                    })
                    .collect();
                parts.push(format!("\"args\":{{{}}}", inner.join(",")));
            }
            let separator = if spaced { " , " } else { "," };
            format!("{{{}}}", parts.join(separator))
        })
}

/// Lines in the layout DFTracer writes (the keys in its order, no spaces), with the values and
/// small departures the ordered paths must either read as the general paths do or leave to them:
/// keys left out, string and null numbers, leading zeros, every phase form, `args` flat, nested,
/// spaced, cut or followed by another key.
fn dftracer_line() -> impl Strategy<Value = String> {
    let number = prop_oneof![
        4 => "[1-9][0-9]{0,15}",
        1 => Just("0".to_string()),
        1 => Just("007".to_string()),
        1 => Just("-3".to_string()),
        1 => Just("1.5".to_string()),
        1 => Just("null".to_string()),
        1 => Just("\"12\"".to_string()),
        1 => Just("1234567890123456789".to_string()),
    ];
    let text = prop_oneof![
        4 => "[a-zA-Z_.]{0,8}".prop_map(|text| format!("\"{text}\"")),
        1 => Just("\"a\\\"b\"".to_string()),
        1 => Just("7".to_string()),
        1 => Just("null".to_string()),
    ];
    let phase = prop_oneof![
        Just("1".to_string()),
        Just("2".to_string()),
        Just("3".to_string()),
        Just("4".to_string()),
        Just("12".to_string()),
        Just("\"X\"".to_string()),
        Just("\"M\"".to_string()),
        Just("\"C\"".to_string()),
        Just("\"A\"".to_string()),
        Just("\"Q\"".to_string()),
        Just("1e0".to_string()),
        Just("true".to_string()),
    ];
    let args = prop_oneof![
        Just(String::new()),
        Just(",\"args\":{}".to_string()),
        Just(",\"args\":null".to_string()),
        Just(
            ",\"args\":{\"hhash\":\"a60eb172e96847ee\",\"ret\":48,\"offset\":0,\"fhash\":\"a36f\"}"
                .to_string()
        ),
        Just(
            ",\"args\":{\"hhash\":5692,\"p_idx\":-1,\"fhash\":23704,\"level\":1,\"mode\":\"r\"}".to_string()
        ),
        Just(
            ",\"args\":{\"ppid\":12022,\"cmd_hash\":\"86\",\"date\":\"Sun Nov 29\",\"x\":[1,{\"y\":null}]}"
                .to_string()
        ),
        Just(",\"args\":{ \"size\" : 1.5e3 , \"epoch\":true}".to_string()),
        Just(",\"args\":{\"name\":\"/a\",\"value\":50461}".to_string()),
        Just(",\"args\":{\"a\":1,}".to_string()),
        Just(",\"args\":{\"a\":1".to_string()),
        Just(",\"args\":{\"a\":1},\"extra\":2".to_string()),
        Just(",\"args\":{\"a\":1},\"args\":{\"fhash\":\"f\"}".to_string()),
        Just(",\"args\":[1]".to_string()),
    ];
    let present = proptest::collection::vec(any::<bool>(), 8);
    let numbers = proptest::collection::vec(number, 6);
    (present, numbers, text.clone(), text, phase, args).prop_map(
        |(present, numbers, name, category, phase, args)| {
            let mut parts = Vec::new();
            if present[0] {
                parts.push(format!("\"id\":{}", numbers[0]));
            }
            if present[1] {
                parts.push(format!("\"name\":{name}"));
            }
            if present[2] {
                parts.push(format!("\"cat\":{category}"));
            }
            for (index, key) in ["type", "pid", "tid", "ts", "dur"].iter().enumerate() {
                if present[3 + index] || index != 0 {
                    parts.push(format!("\"{key}\":{}", numbers[index + 1]));
                }
            }
            parts.push(format!("\"ph\":{phase}"));
            format!("{{{}{args}}}", parts.join(","))
        },
    )
}

/// Metadata lines in DFTracer's layout and near it: every kind the tables and processes keep, and
/// unknown ones; string and integer values; paths with non-ASCII, escaped, control and tab
/// characters; other keys, another order, spaces; both phase forms.
fn metadata_line() -> impl Strategy<Value = String> {
    let kind = prop::sample::select(vec!["FH", "HH", "SH", "PR", "CM", "process_name", "thread_name", "XX"]);
    let name = prop::sample::select(vec![
        "\"/data/file.h5\"",
        "\"rank\"",
        "\"time_metric\"",
        "\"caf\u{e9}/x\"",
        "\"a\\\"b\"",
        "\"a\tb\"",
        "\"\"",
        "7",
        "null",
    ]);
    let value = prop::sample::select(vec![
        "50461",
        "\"2a702c695247d487\"",
        "-1",
        "1.5",
        "007",
        "\"US\"",
        "null",
        "\"x\\ny\"",
    ]);
    let phase = prop::sample::select(vec!["\"M\"", "4", "\"X\"", "1", "\"m\""]);
    let args = prop::sample::select(vec![
        "{{\"name\":{name},\"value\":{value}}}",
        "{{\"value\":{value},\"name\":{name}}}",
        "{{\"hhash\":\"aa\",\"name\":{name},\"value\":{value}}}",
        "{{\"name\":{name},\"value\":{value},\"x\":1}}",
        "{{\"name\":{name}, \"value\":{value}}}",
        "{{\"name\":{name},\"value\":{value}}} ",
        "{{\"name\":{name}}}",
    ]);
    (kind, name, value, phase, args, any::<bool>(), "[1-9][0-9]{0,6}").prop_map(
        |(kind, name, value, phase, args, typed, pid)| {
            let args = args.replace("{name}", name).replace("{value}", value).replace("{{", "{").replace("}}", "}");
            let kind_key = if typed { ",\"type\":0" } else { "" };
            format!(
                "{{\"id\":3,\"name\":\"{kind}\",\"cat\":\"dftracer\"{kind_key},\"pid\":{pid},\"tid\":{pid},\"ph\":{phase},\"args\":{args}}}"
            )
        },
    )
}

/// `line` with the byte at `position` replaced by `byte`, or cut there when `cut`.
fn mutated(line: String, position: prop::sample::Index, byte: u8, cut: bool) -> Vec<u8> {
    let mut bytes = line.into_bytes();
    let at = position.index(bytes.len());
    if cut {
        bytes.truncate(at);
    } else {
        bytes[at] = byte;
    }
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn generated_metadata_lines_agree(line in metadata_line()) {
        check_line(line.as_bytes());
    }

    #[test]
    fn mutated_metadata_lines_agree(line in metadata_line(), position in any::<prop::sample::Index>(), byte in any::<u8>(), cut in any::<bool>()) {
        check_line(&mutated(line, position, byte, cut));
    }

    #[test]
    fn generated_dftracer_lines_agree(line in dftracer_line()) {
        check_line(line.as_bytes());
    }

    #[test]
    fn mutated_dftracer_lines_agree(line in dftracer_line(), position in any::<prop::sample::Index>(), byte in any::<u8>(), cut in any::<bool>()) {
        check_line(&mutated(line, position, byte, cut));
    }

    #[test]
    fn generated_events_agree(line in event_line()) {
        check_line(line.as_bytes());
    }

    #[test]
    fn mutated_events_agree(line in event_line(), position in any::<prop::sample::Index>(), byte in any::<u8>(), cut in any::<bool>()) {
        let mut bytes = line.into_bytes();
        let at = position.index(bytes.len().max(1)).min(bytes.len().saturating_sub(1));
        if cut {
            bytes.truncate(at);
        } else if !bytes.is_empty() {
            bytes[at] = byte;
        }
        check_line(&bytes);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        check_line(&bytes);
    }
}
