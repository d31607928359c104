//! Arbitrary bytes as a `.pfw.gz` entered at an arbitrary checkpoint (bit offset, output offset,
//! window, line range): decoding a resumed chunk never panics, and every problem is counted as
//! invalid exactly once.
#![no_main]

use std::ops::ControlFlow;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let Some((head, rest)) = bytes.split_at_checked(6) else { return };
    let window_length = usize::from(head[4]) * 8;
    let Some((window, file)) = rest.split_at_checked(window_length.min(rest.len())) else { return };
    let path = std::env::temp_dir().join(format!("ioscout-fuzz-resumed-{}.pfw.gz", std::process::id()));
    if file.is_empty() || std::fs::write(&path, file).is_err() {
        return;
    }
    let bit_offset = u64::from(u16::from_le_bytes([head[0], head[1]])) % (file.len() as u64 * 8);
    let output_start = u64::from(head[2]) * 64;
    let line_start = output_start + u64::from(head[3] % 16);
    let line_end = (head[5] != 0).then(|| line_start + u64::from(head[5]) * 32);
    let (files, problems) = ioscout_read::discover(&[&path]);
    let chunk = ioscout_read::Chunk {
        file: 0,
        start: bit_offset / 8,
        end: file.len() as u64,
        line_base: 0,
        offset_base: line_start,
        resume: Some(Box::new(ioscout_read::Resume {
            bit_offset,
            output_start,
            line_start,
            line_end,
            window: window.to_vec(),
        })),
    };
    let scanner = ioscout_read::Scanner::new(ioscout_read::ScanOptions { threads: 1, ..Default::default() });
    let report = scanner.scan_chunks(
        &files,
        &problems,
        &[chunk],
        |_| ioscout_read::NoFold,
        |_, _| ControlFlow::Continue(()),
    );
    assert_eq!(report.totals().invalid, report.problem_count());
});
