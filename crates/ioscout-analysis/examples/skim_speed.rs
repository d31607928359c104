//! Measures the first pass's skim ([`PrepassFold`] as the scan drives it, one line at a time) on
//! a decompressed trace held in memory, with the candidate presets of a default analysis:
//! `cargo run --release -p ioscout-analysis --example skim_speed -- FILE.jsonl`.

use std::collections::BTreeSet;
use std::time::Instant;

use ioscout_analysis::{PrepassFold, Preset, PresetName};
use ioscout_read::Fold;

fn main() -> std::io::Result<()> {
    let Some(path) = std::env::args().nth(1) else {
        return Err(std::io::Error::other("usage: skim_speed FILE"));
    };
    let data = std::fs::read(path)?;
    let lines: Vec<&[u8]> = data.split(|&byte| byte == b'\n').filter(|line| !line.is_empty()).collect();
    let empty = BTreeSet::new();
    let candidates: Vec<Preset> = ["dlio", "dlio-prev"]
        .iter()
        .filter_map(|name| PresetName::parse(name))
        .filter_map(|name| Preset::named(name, &empty))
        .collect();
    let mut out = std::io::stdout().lock();
    for round in 0..10 {
        let start = Instant::now();
        let mut fold = PrepassFold::new(&candidates);
        for line in &lines {
            fold.skim(line);
        }
        let seconds = start.elapsed().as_secs_f64();
        let text = format!(
            "round {round}: skim {} lines, {} categories, {} processes, {:.1} ns/line ({:.0} MB/s)\n",
            lines.len(),
            fold.categories.len(),
            fold.processes.len(),
            seconds * 1e9 / lines.len() as f64,
            data.len() as f64 / seconds / 1e6
        );
        std::io::Write::write_all(&mut out, text.as_bytes())?;
    }
    Ok(())
}
