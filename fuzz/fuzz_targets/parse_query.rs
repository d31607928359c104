//! Any `--where` text parses or fails with a located error; never a panic. A parsed predicate
//! evaluates on a fixed event without panicking. The same text split at `|` as `--group-by` and
//! `--agg` parses or fails cleanly.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(predicate) = ioscout_query::Predicate::parse(text) {
        let line = br#"{"id":1,"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":5,"dur":2,"ph":1,"args":{"hhash":"a","fhash":"b","ret":4}}"#;
        if let Ok(ioscout_read::event::Line::Event(event)) = ioscout_read::event::decode_line(line) {
            let _ = predicate.matches(&event, &Default::default());
        }
    } else if let Err(error) = ioscout_query::Predicate::parse(text) {
        assert!(error.position <= text.len());
    }
    // --group-by and --agg specifications parse or fail cleanly.
    let (keys, reducers) = text.split_once('|').unwrap_or((text, ""));
    let _ = ioscout_query::aggregate::GroupSpec::parse(keys, reducers);
});
