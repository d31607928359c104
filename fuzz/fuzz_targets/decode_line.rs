//! Every line decodes without panicking, and the fast path, the full parse and the counting path
//! agree on it (`ioscout_read::event::decoders_agree`), as do the metadata paths
//! (`ioscout_read::metadata::metadata_paths_agree`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|line: &[u8]| {
    if let Err(problem) = ioscout_read::event::decoders_agree(line) {
        panic!("{problem}");
    }
    if let Err(problem) = ioscout_read::metadata::metadata_paths_agree(line) {
        panic!("{problem}");
    }
});
