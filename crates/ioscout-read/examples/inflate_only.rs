//! Inflates every gzip trace file under a directory with the reader's inflater and nothing else
//! (no line is split or parsed), on all cores, one file per task: the "inflate only" row of the
//! share-of-limit table in BENCHMARKS.md. With `--stream` every member is inflated by zlib-rs
//! streaming, as before libdeflate; without it, members known whole go to libdeflate in one call.
//! `cargo run --release -p ioscout-read --example inflate_only -- DIR [--stream] [--threads N]`.

use std::time::Instant;

use rayon::prelude::*;

fn main() -> std::io::Result<()> {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let Some(directory) = arguments.first() else {
        return Err(std::io::Error::other("usage: inflate_only DIR [--stream] [--threads N]"));
    };
    let stream = arguments.iter().any(|argument| argument == "--stream");
    let threads = arguments
        .iter()
        .position(|argument| argument == "--threads")
        .and_then(|at| arguments.get(at + 1))
        .and_then(|value| value.parse().ok())
        .unwrap_or(0);
    let (files, _) = ioscout_read::discover(&[std::path::PathBuf::from(directory)]);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().map_err(std::io::Error::other)?;
    let started = Instant::now();
    let totals: Vec<std::io::Result<(u64, u64, usize)>> = pool.install(|| {
        files
            .par_iter()
            .filter(|file| file.compression == ioscout_read::Compression::Gzip)
            .map(|file| {
                let handle = std::fs::File::open(&file.path)?;
                let candidates = if stream {
                    Vec::new()
                } else {
                    ioscout_read::gzip::member_candidates(&handle, file.size)?
                };
                let mut bytes = 0u64;
                let outcome = ioscout_read::gzip::inflate_range(
                    &handle,
                    file.size,
                    0,
                    file.size,
                    &candidates,
                    |block| {
                        bytes += block.len() as u64;
                    },
                );
                Ok((bytes, outcome.members, outcome.problems.len()))
            })
            .collect()
    });
    let seconds = started.elapsed().as_secs_f64();
    let (mut bytes, mut members, mut problems) = (0u64, 0u64, 0usize);
    for total in totals {
        let (file_bytes, file_members, file_problems) = total?;
        bytes += file_bytes;
        members += file_members;
        problems += file_problems;
    }
    let line = format!(
        "{} files, {members} members, {bytes} bytes out, {problems} problems, {seconds:.3} s wall, {:.0} MB/s ({})\n",
        files.len(),
        bytes as f64 / seconds / 1e6,
        if stream { "zlib-rs streaming" } else { "libdeflate one-shot where the member is known whole" }
    );
    std::io::Write::write_all(&mut std::io::stdout().lock(), line.as_bytes())
}
