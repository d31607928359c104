//! Prints what the records of an index are made of (encoded bytes per part, before deflate):
//! `cargo run --release --example index_sizes -- DIR/.ioscout/index.redb`.

use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: index_sizes INDEX")?;
    let index = ioscout_index::TraceIndex::read(std::path::Path::new(&path))?.ok_or("no index")?;
    let mut totals = [0usize; 7];
    totals[6] =
        index.tables.files.values().chain(index.tables.hosts.values()).map(|text| text.len() + 16).sum();
    for record in index.files.values() {
        for chunk in &record.chunks {
            let stats = &chunk.stats;
            totals[0] += postcard::to_stdvec(&stats.calls)?.len();
            totals[1] += postcard::to_stdvec(&stats.file_bloom)?.len();
            totals[2] += postcard::to_stdvec(&stats.tid_bloom)?.len();
            totals[3] += postcard::to_stdvec(&stats.hosts)?.len();
            totals[4] += postcard::to_stdvec(&stats.pids)?.len();
            totals[5] += postcard::to_stdvec(stats)?.len();
        }
    }
    let mut out = std::io::stdout().lock();
    for (name, size) in
        ["calls", "file bloom", "tid bloom", "hosts", "pids", "chunk stats total", "hash tables"]
            .iter()
            .zip(totals)
    {
        writeln!(out, "{name:>18}: {size} bytes")?;
    }
    Ok(())
}
