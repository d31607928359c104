//! Arbitrary bytes as an index file: reading it gives an index or a clear error, never a panic,
//! a hang or gigabytes of memory. The bytes come without the checksum ioscout writes beside an
//! index, so they are refused before the store opens them (a file that made redb allocate 4 GiB
//! while opening is among the reproducers); a damaged index with a matching checksum is the
//! CLI test's case (`an_index_with_one_byte_changed_is_reported_never_a_panic`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let path = std::env::temp_dir().join(format!("ioscout-fuzz-index-{}.redb", std::process::id()));
    if std::fs::write(&path, bytes).is_err() {
        return;
    }
    let _ = ioscout_index::TraceIndex::read(&path);
});
