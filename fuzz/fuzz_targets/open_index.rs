//! Arbitrary bytes as an index file: reading it gives an index or a clear error, never a panic
//! or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let path = std::env::temp_dir().join(format!("ioscout-fuzz-index-{}.redb", std::process::id()));
    if std::fs::write(&path, bytes).is_err() {
        return;
    }
    let _ = ioscout_index::TraceIndex::read(&path);
});
