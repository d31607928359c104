//! The groups of `ioscout query --group-by` as users read them: a table fitted to the terminal
//! (headings wrapped, then the widest key column wrapped or moved below its row; a pipe gets the
//! plain layout), JSON lines, or CSV. The query stage computes the groups and hands their rows
//! here.

use std::io::Write;

use crate::rows::Format;

/// Writes the groups `rows` (one value per column of `columns`, the first `keys` columns the
/// groups' keys) as a table fitted to the terminal (`format` `None`), JSON lines or CSV.
pub fn write(
    columns: &[String],
    rows: &[Vec<serde_json::Value>],
    keys: usize,
    format: Option<Format>,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let mut stdout = std::io::BufWriter::new(out);
    let cell = |value: &serde_json::Value| match value {
        serde_json::Value::String(text) => text.clone(),
        serde_json::Value::Null => String::new(),
        serde_json::Value::Number(number) => match number.as_f64() {
            Some(float) if number.is_f64() => format!("{float:.3}"),
            _ => number.to_string(),
        },
        other => other.to_string(),
    };
    match format {
        Some(Format::Jsonl) => {
            for row in rows {
                let object: serde_json::Map<String, serde_json::Value> =
                    columns.iter().cloned().zip(row.iter().cloned()).collect();
                serde_json::to_writer(&mut stdout, &object).map_err(std::io::Error::other)?;
                writeln!(stdout)?;
            }
        }
        Some(Format::Parquet | Format::Chrome | Format::Values | Format::Arrow) => {
            return Err(std::io::Error::other("--group-by prints a table, JSON lines or CSV; not Parquet"));
        }
        Some(Format::Csv) => {
            writeln!(stdout, "{}", columns.join(","))?;
            for row in rows {
                let cells: Vec<String> = row
                    .iter()
                    .map(|value| {
                        let text = cell(value);
                        if text.contains([',', '"', '\n']) {
                            format!("\"{}\"", text.replace('"', "\"\""))
                        } else {
                            text
                        }
                    })
                    .collect();
                writeln!(stdout, "{}", cells.join(","))?;
            }
        }
        None => {
            let cells: Vec<Vec<String>> = rows.iter().map(|row| row.iter().map(cell).collect()).collect();
            let widths: Vec<usize> = columns
                .iter()
                .enumerate()
                .map(|(index, column)| {
                    cells.iter().map(|row| row[index].len()).chain([column.len()]).max().unwrap_or(0)
                })
                .collect();
            // Wider than the terminal: the fitted table (headings wrapped first, then the
            // widest key column wrapped or moved below its row). A pipe gets the plain layout.
            let natural = widths.iter().sum::<usize>() + 2 * widths.len().saturating_sub(1);
            if crate::text::width().is_some_and(|limit| natural > limit) {
                let headers: Vec<&str> = columns.iter().map(String::as_str).collect();
                let right: Vec<bool> = (0..columns.len()).map(|index| index >= keys).collect();
                let mut table = crate::table::Table::new(
                    &format!("{} groups", crate::text::thousands(cells.len() as u64)),
                    &headers,
                    &right,
                );
                for row in cells {
                    table.row(row);
                }
                stdout.write_all(table.render().as_bytes())?;
                stdout.flush()?;
                return Ok(());
            }
            let line = |out: &mut dyn Write, values: &[String]| -> std::io::Result<()> {
                for (index, value) in values.iter().enumerate() {
                    let width = widths[index];
                    if index > 0 {
                        write!(out, "  ")?;
                    }
                    if index < keys {
                        write!(out, "{value:<width$}")?;
                    } else {
                        write!(out, "{value:>width$}")?;
                    }
                }
                writeln!(out)
            };
            line(&mut stdout, columns)?;
            for row in &cells {
                line(&mut stdout, row)?;
            }
        }
    }
    stdout.flush()?;
    Ok(())
}
