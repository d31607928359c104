//! Arbitrary bytes as a `.pfw.gz`: the member decoder and the scan never panic, and every
//! problem is counted as invalid exactly once.
#![no_main]

use std::ops::ControlFlow;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let path = std::env::temp_dir().join(format!("ioscout-fuzz-{}.pfw.gz", std::process::id()));
    if std::fs::write(&path, bytes).is_err() {
        return;
    }
    let (files, problems) = ioscout_read::discover(&[&path]);
    // One scanner (and so one worker pool) for every run: building a pool per run held the
    // target at about 80 runs a second.
    static SCANNER: std::sync::OnceLock<ioscout_read::Scanner> = std::sync::OnceLock::new();
    let scanner = SCANNER.get_or_init(|| {
        ioscout_read::Scanner::new(ioscout_read::ScanOptions {
            threads: 1,
            unit_bytes: 64,
            ..Default::default()
        })
    });
    let report =
        scanner.scan(&files, &problems, |_| ioscout_read::NoFold, |_, _, _| ControlFlow::Continue(()));
    assert_eq!(report.totals().invalid, report.problem_count());
});
