//! Plain-text tables for the terminal: a title, a header, a rule, aligned columns.
//!
//! When a width is set ([`crate::text::set_width`]: the command line sets the terminal's), a
//! table wider than it is fitted: the widest text columns are wrapped at spaces, and when that
//! is not enough the widest text column moves to indented lines below its row. Without a width (pipes, MCP) tables stay wide.

/// A table to print.
#[derive(Debug, Default)]
pub struct Table {
    title: String,
    headers: Vec<String>,
    right: Vec<bool>,
    rows: Vec<Vec<String>>,
}

/// The narrowest a wrapped column gets.
const MIN_WRAPPED: usize = 16;

/// The narrowest the widest text column is wrapped to before it moves below its rows instead.
const MIN_KEPT: usize = 32;

impl Table {
    /// A table titled `title` with `headers`; `right[i]` right-aligns column `i`.
    pub fn new(title: &str, headers: &[&str], right: &[bool]) -> Table {
        Table {
            title: title.to_string(),
            headers: headers.iter().map(|header| (*header).to_string()).collect(),
            right: right.to_vec(),
            rows: Vec::new(),
        }
    }

    /// Adds a row.
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// The table as text, ending with a newline; fitted to the width when one is set.
    pub fn render(&self) -> String {
        let columns = self.headers.len();
        let mut widths: Vec<usize> = self.headers.iter().map(|header| header.chars().count()).collect();
        for row in &self.rows {
            for (index, cell) in row.iter().enumerate().take(columns) {
                widths[index] = widths[index].max(cell.chars().count());
            }
        }
        match crate::text::width() {
            Some(limit) if line_width(&widths) > limit => {
                self.render_fitted(self.header_wrapped(&widths), limit)
            }
            _ => self.render_wide(&widths),
        }
    }

    /// Widths with each header wrapped at its spaces down to its cells' width (its longest
    /// word at least): a table too wide first gives up the room its headers took ("Run time
    /// (s)" over "37.0"), before any cell is wrapped or moved.
    fn header_wrapped(&self, natural: &[usize]) -> Vec<usize> {
        natural
            .iter()
            .enumerate()
            .map(|(index, width)| {
                let cells = self
                    .rows
                    .iter()
                    .filter_map(|row| row.get(index))
                    .map(|cell| cell.chars().count())
                    .max()
                    .unwrap_or(0);
                let word = self
                    .headers
                    .get(index)
                    .and_then(|header| header.split(' ').map(|word| word.chars().count()).max())
                    .unwrap_or(0);
                cells.max(word).min(*width)
            })
            .collect()
    }

    fn is_right(&self, index: usize) -> bool {
        self.right.get(index).copied().unwrap_or(false)
    }

    /// The table fitted into `limit` columns.
    fn render_fitted(&self, natural: Vec<usize>, limit: usize) -> String {
        let (widths, below) = self.fitted_widths(natural, limit);
        let cell_lines = |index: usize, cell: &str| -> Vec<String> {
            let width = widths[index];
            if cell.chars().count() <= width {
                vec![cell.to_string()]
            } else {
                crate::text::wrap_exact(cell, width)
            }
        };
        let mut out = format!("{}\n", self.title);
        let emit = |cells: &[String], out: &mut String| {
            let pieces: Vec<Vec<String>> = (0..widths.len())
                .map(|index| {
                    if Some(index) == below {
                        Vec::new()
                    } else {
                        cell_lines(index, cells.get(index).map_or("", String::as_str))
                    }
                })
                .collect();
            let height = pieces.iter().map(Vec::len).max().unwrap_or(1);
            for line_index in 0..height {
                let line: Vec<String> =
                    pieces.iter().map(|cell| cell.get(line_index).cloned().unwrap_or_default()).collect();
                out.push_str(&self.line(&widths, &line, below));
            }
            if let Some(column) = below
                && let Some(cell) = cells.get(column).filter(|cell| !cell.is_empty())
            {
                let label = self.headers.get(column).map_or(String::new(), |header| format!("{header}: "));
                for (index, piece) in crate::text::wrap_hanging(
                    &format!("{label}{cell}"),
                    limit.saturating_sub(4),
                    limit.saturating_sub(6),
                )
                .into_iter()
                .enumerate()
                {
                    out.push_str(if index == 0 { "    " } else { "      " });
                    out.push_str(&piece);
                    out.push('\n');
                }
            }
        };
        let headers: Vec<String> = self
            .headers
            .iter()
            .enumerate()
            .map(|(index, header)| if Some(index) == below { String::new() } else { header.clone() })
            .collect();
        emit(&headers, &mut out);
        let rule: Vec<String> = widths.iter().map(|width| "─".repeat(*width)).collect();
        out.push_str(&self.line(&widths, &rule, below));
        for row in &self.rows {
            emit(row, &mut out);
        }
        out
    }

    /// The column widths for `limit`, and the column moved below the rows if one is. The widest
    /// text column is wrapped when it keeps at least [`MIN_KEPT`] characters beside the others
    /// at their natural widths; otherwise it moves below its rows (every row then says it on
    /// indented lines) and the other text columns are wrapped, widest first, down to
    /// [`MIN_WRAPPED`] each if they must.
    fn fitted_widths(&self, mut widths: Vec<usize>, limit: usize) -> (Vec<usize>, Option<usize>) {
        let text_columns: Vec<usize> = (0..widths.len()).filter(|index| !self.is_right(*index)).collect();
        let Some(&widest) = text_columns.iter().max_by_key(|index| widths[**index]) else {
            return (widths, None);
        };
        let mut without = widths.clone();
        without[widest] = 0;
        let room = limit.saturating_sub(line_width(&without) + 2);
        if room >= MIN_KEPT {
            widths[widest] = room.min(widths[widest]);
            return (widths, None);
        }
        widths[widest] = 0;
        while line_width(&widths) > limit {
            let next = text_columns
                .iter()
                .copied()
                .filter(|index| widths[*index] > MIN_WRAPPED)
                .max_by_key(|index| widths[*index]);
            let Some(column) = next else { break };
            let excess = line_width(&widths) - limit;
            widths[column] = widths[column].saturating_sub(excess).max(MIN_WRAPPED);
        }
        (widths, Some(widest))
    }

    /// One line of cells padded to `widths`, column `skip` left out.
    fn line(&self, widths: &[usize], cells: &[String], skip: Option<usize>) -> String {
        let mut text = String::from(" ");
        for (index, width) in widths.iter().enumerate() {
            if Some(index) == skip {
                continue;
            }
            let cell = cells.get(index).map_or("", String::as_str);
            let pad = width.saturating_sub(cell.chars().count());
            text.push(' ');
            if self.is_right(index) {
                text.push_str(&" ".repeat(pad));
                text.push_str(cell);
            } else {
                text.push_str(cell);
                text.push_str(&" ".repeat(pad));
            }
            text.push(' ');
        }
        text.truncate(text.trim_end().len());
        text.push('\n');
        text
    }

    /// The table at its natural widths.
    fn render_wide(&self, widths: &[usize]) -> String {
        let mut out = format!("{}\n", self.title);
        out.push_str(&self.line(widths, &self.headers, None));
        let rule: Vec<String> = widths.iter().map(|width| "─".repeat(*width)).collect();
        out.push_str(&self.line(widths, &rule, None));
        for row in &self.rows {
            out.push_str(&self.line(widths, row, None));
        }
        out
    }
}

/// The printed width of a row of columns of `widths`: a leading space, and a space either
/// side of each cell (a column moved below its rows has width 0 and is left out).
fn line_width(widths: &[usize]) -> usize {
    1 + widths.iter().filter(|width| **width > 0).map(|width| width + 2).sum::<usize>()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `darshan summary --group-by exe` at 100 columns collapsed its columns to single spaces
    /// and wrapped "I/O share" away from its numbers: headers wrap first, every line fits, and
    /// each number stays under its heading.
    #[test]
    fn a_table_too_wide_wraps_its_headers_before_anything_else() {
        let mut table = Table::new(
            "By program",
            &[
                "Logs",
                "Processes",
                "Run time (s)",
                "Longest (s)",
                "I/O time (s)",
                "Meta time (s)",
                "Read (MiB)",
                "Written (MiB)",
                "I/O share",
                "Program",
            ],
            &[true, true, true, true, true, true, true, true, true, false],
        );
        table.row(
            [
                "2",
                "2048",
                "1764.0",
                "1023.0",
                "485822.076",
                "13.326",
                "0.3",
                "1374397.9",
                "26.9 %",
                "h5bench_openpmd_write",
            ]
            .map(String::from)
            .to_vec(),
        );
        crate::text::set_width(Some(100));
        let text = table.render();
        crate::text::set_width(None);
        assert!(text.lines().all(|line| line.chars().count() <= 100), "{text}");
        let lines: Vec<&str> = text.lines().collect();
        // Two header lines ("Run" over "time (s)"), the rule, the row with the program in it.
        assert!(lines[1].contains("Run") && lines[2].contains("(s)"), "{text}");
        let row = lines.iter().find(|line| line.contains("485822.076")).copied().unwrap_or_default();
        assert!(row.contains("26.9 %") && row.contains("  1764.0  "), "{text}");
        // The share ends where its heading does; the program, too long for the room left, is
        // said under its row.
        let heading_end = lines[2].rfind("share").map(|at| at + "share".len());
        assert_eq!(row.find("26.9 %").map(|at| at + "26.9 %".len()), heading_end, "{text}");
        assert!(text.contains("\n    Program: h5bench_openpmd_write\n"), "{text}");
    }

    #[test]
    fn columns_align() {
        let mut table = Table::new("T", &["a", "bb"], &[false, true]);
        table.row(vec!["xyz".into(), "1".into()]);
        assert_eq!(table.render(), "T\n  a    bb\n  ───  ──\n  xyz   1\n");
    }
}
