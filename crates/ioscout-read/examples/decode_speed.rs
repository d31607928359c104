//! Measures line decoding speed on a decompressed trace held in memory, for the full event path
//! ([`decode_line`]), the counting path ([`decode_phase`]) and the field decoder
//! ([`ioscout_read::fields::decode_fields_into`]):
//! `cargo run --release --example decode_speed -- FILE.jsonl [fields]` (with `fields`, only the
//! field decoder, for ten rounds: the path the analysis's second pass takes for every line).

use std::time::Instant;

use ioscout_read::event::{Line, LinePhase, decode_line, decode_phase};

fn main() -> std::io::Result<()> {
    let Some(path) = std::env::args().nth(1) else {
        return Err(std::io::Error::other("usage: decode_speed FILE"));
    };
    let data = std::fs::read(path)?;
    let lines: Vec<&[u8]> = data.split(|&byte| byte == b'\n').collect();
    let mut out = std::io::stdout().lock();
    if std::env::args().nth(2).as_deref() == Some("head") {
        for round in 0..10 {
            let start = Instant::now();
            let mut sum = 0i64;
            for line in &lines {
                if line.first() == Some(&b'{') {
                    let mut cursor = ioscout_read::json::Ordered::new(line);
                    if let Some(head) = cursor.head() {
                        sum = sum
                            .wrapping_add(head.ts.unwrap_or(0))
                            .wrapping_add(head.name.map_or(0, |name| name.len() as i64));
                    }
                }
            }
            let seconds = start.elapsed().as_secs_f64();
            let line =
                format!("round {round}: head {sum} {:.1} ns/line\n", seconds * 1e9 / lines.len() as f64);
            std::io::Write::write_all(&mut out, line.as_bytes())?;
        }
        return Ok(());
    }
    if std::env::args().nth(2).as_deref() == Some("fields") {
        for round in 0..10 {
            let start = Instant::now();
            let decoded = decode_all_fields(&lines);
            let field = start.elapsed().as_secs_f64();
            let line = format!(
                "round {round}: decode_fields {decoded} events {:.1} ns/line ({:.0} MB/s)\n",
                field * 1e9 / lines.len() as f64,
                data.len() as f64 / field / 1e6
            );
            std::io::Write::write_all(&mut out, line.as_bytes())?;
        }
        return Ok(());
    }
    for round in 0..3 {
        let start = Instant::now();
        let events = lines.iter().filter(|line| matches!(decode_line(line), Ok(Line::Event(_)))).count();
        let full = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let phases =
            lines.iter().filter(|line| matches!(decode_phase(line), Ok(LinePhase::Event(..)))).count();
        let phase = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let decoded = decode_all_fields(&lines);
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

/// Decodes the fields of every line; the number with a `ts` (so that none of the work is dropped).
fn decode_all_fields(lines: &[&[u8]]) -> usize {
    let mut decoded = 0usize;
    for line in lines {
        let mut fields = ioscout_read::fields::EventFields::empty();
        if ioscout_read::fields::decode_fields_into(line, &mut fields) {
            decoded += usize::from(fields.ts.is_some()) + usize::from(fields.args.fhash.is_some());
        }
    }
    decoded
}
