//! Plain-text tables for the terminal: a title, a header, a rule, aligned columns.

/// A table to print.
#[derive(Debug, Default)]
pub struct Table {
    title: String,
    headers: Vec<String>,
    right: Vec<bool>,
    rows: Vec<Vec<String>>,
}

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

    /// The table as text, ending with a newline.
    pub fn render(&self) -> String {
        let columns = self.headers.len();
        let mut widths: Vec<usize> = self.headers.iter().map(|header| header.chars().count()).collect();
        for row in &self.rows {
            for (index, cell) in row.iter().enumerate().take(columns) {
                widths[index] = widths[index].max(cell.chars().count());
            }
        }
        let line = |cells: &[String]| {
            let mut text = String::from(" ");
            for (index, width) in widths.iter().enumerate() {
                let cell = cells.get(index).map_or("", String::as_str);
                let pad = width.saturating_sub(cell.chars().count());
                text.push(' ');
                if self.right.get(index).copied().unwrap_or(false) {
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
        };
        let mut out = format!("{}\n", self.title);
        out.push_str(&line(&self.headers));
        let rule: Vec<String> = widths.iter().map(|width| "─".repeat(*width)).collect();
        out.push_str(&line(&rule));
        for row in &self.rows {
            out.push_str(&line(row));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_align() {
        let mut table = Table::new("T", &["a", "bb"], &[false, true]);
        table.row(vec!["xyz".into(), "1".into()]);
        assert_eq!(table.render(), "T\n  a    bb\n  ───  ──\n  xyz   1\n");
    }
}
