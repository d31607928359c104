//! Measures line decoding speed on a decompressed trace held in memory, for the full event path
//! ([`decode_line`]) and the counting path ([`decode_phase`]):
//! `cargo run --release --example decode_speed -- FILE.jsonl`.

use std::time::Instant;

use ioscout_read::event::{Line, LinePhase, decode_line, decode_phase};

fn main() -> std::io::Result<()> {
    let Some(path) = std::env::args().nth(1) else {
        return Err(std::io::Error::other("usage: decode_speed FILE"));
    };
    let data = std::fs::read(path)?;
    let lines: Vec<&[u8]> = data.split(|&byte| byte == b'\n').collect();
    let mut out = std::io::stdout().lock();
    for round in 0..3 {
        let start = Instant::now();
        let events = lines.iter().filter(|line| matches!(decode_line(line), Ok(Line::Event(_)))).count();
        let full = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let phases =
            lines.iter().filter(|line| matches!(decode_phase(line), Ok(LinePhase::Event(..)))).count();
        let phase = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let mut decoded = 0usize;
        for line in &lines {
            let mut fields = ioscout_read::fields::EventFields::empty();
            if ioscout_read::fields::decode_fields_into(line, &mut fields) {
                decoded += usize::from(fields.ts.is_some());
            }
        }
        let field = start.elapsed().as_secs_f64();
        let per_line = |seconds: f64| seconds * 1e9 / lines.len() as f64;
        std::io::Write::write_all(
            &mut out,
            format!(
                "round {round}: {events} events: decode_line {:.0} ns/line ({:.0} MB/s); decode_phase {phases} events {:.0} ns/line ({:.0} MB/s); decode_fields {decoded} events {:.0} ns/line ({:.0} MB/s)\n",
                per_line(full),
                data.len() as f64 / full / 1e6,
                per_line(phase),
                data.len() as f64 / phase / 1e6,
                per_line(field),
                data.len() as f64 / field / 1e6
            )
            .as_bytes(),
        )?;
    }
    Ok(())
}
