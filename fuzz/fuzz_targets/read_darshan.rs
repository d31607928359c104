//! Any bytes, as a Darshan log, are read or refused with an error; never a panic or a hang. With
//! the partial option, damaged regions become listed problems; whatever is read goes through the
//! text dump, the summary and the derived metrics.
#![no_main]

use std::path::Path;

use ioscout_darshan::{DarshanLog, ReadOptions, dump, summary};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for partial in [false, true] {
        if let Ok(log) = DarshanLog::from_bytes(Path::new("fuzz.darshan"), data, ReadOptions { partial }) {
            let _ = dump::dump(&log, dump::DumpOptions::all());
            let _ = dump::dxt(&log);
            let _ = summary::summary(&log);
        }
    }
});
