//! Number and path formatting shared by the text renderings.

/// The display form of a path.
pub fn display_path(path: &std::path::Path) -> String {
    path.display().to_string()
}

/// A count with thousands separators.
pub fn thousands(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::new();
    for (index, character) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(character);
    }
    out
}

/// Bytes in a mebibyte. Every size and bandwidth ioscout prints is in binary units and says so:
/// MiB and MiB/s in tables and charts, KiB/MiB/GiB in sentences ([`bytes`]), bytes or bytes
/// per second in the JSON (`_bytes`, `_bps` in the field names). DFAnalyzer prints the same
/// MiB as "MB": that label is kept only under `--compat dfanalyzer`. The rules' own constant,
/// one definition for every crate.
pub use ioscout_diagnose::rules::MIB;

/// The units of a size and a bandwidth column: `("MiB", "MiB/s")`, or DFAnalyzer's labels for
/// the same numbers under `--compat dfanalyzer`.
pub fn mib_units(dfanalyzer_labels: bool) -> (&'static str, &'static str) {
    if dfanalyzer_labels { ("MB", "MB/s") } else { ("MiB", "MiB/s") }
}

/// `bytes` in MiB with one decimal place, as the tables print them.
pub fn mib(bytes: f64) -> String {
    format!("{:.1}", bytes / MIB)
}

/// Seconds with `decimals` places, or, when that would print a positive time as zero (a few
/// milliseconds estimated from a damaged log's records, "at least 0.0 s"), with two
/// significant digits: `seconds(0.0042, 1)` is "0.0042".
pub fn seconds(value: f64, decimals: usize) -> String {
    let shown = format!("{value:.decimals$}");
    if value > 0.0 && value.is_finite() && shown.trim_start_matches(['0', '.']).is_empty() {
        // Two significant digits: 0.0042 has its first at the third place.
        let first = (-value.log10()).ceil().max(0.0) as usize;
        let places = (first + 1).min(12);
        format!("{value:.places$}")
    } else {
        shown
    }
}

/// A byte count in binary units.
pub fn bytes(value: u64) -> String {
    // One rule for sizes in every text, the findings' included.
    ioscout_diagnose::human_bytes(value as f64)
}

/// `count` and the noun, singular or plural as the count asks: "1 file", "2 files".
pub fn count_of(count: impl Into<u64>, singular: &str, plural: &str) -> String {
    let count = count.into();
    format!("{} {}", thousands(count), if count == 1 { singular } else { plural })
}

/// The width the text renderings fit (0: no limit). The command line sets it from the
/// terminal (or `COLUMNS`); plain output to a pipe, and MCP results, stay unlimited.
static WIDTH: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Sets the width text is fitted to (`None`: no limit).
pub fn set_width(width: Option<usize>) {
    WIDTH.store(width.unwrap_or(0), std::sync::atomic::Ordering::Relaxed);
}

/// The width text is fitted to, when one is set.
pub fn width() -> Option<usize> {
    match WIDTH.load(std::sync::atomic::Ordering::Relaxed) {
        0 => None,
        width => Some(width),
    }
}

/// `text` cut into lines of at most `width` characters at spaces (a word longer than the line
/// is cut where it must).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    wrap_hanging(text, width, width)
}

/// [`wrap`] with a first line of at most `first` characters and the others of at most `rest`
/// (8 at least, so prose never runs a word a line).
pub fn wrap_hanging(text: &str, first: usize, rest: usize) -> Vec<String> {
    wrap_lines(text, first.max(8), rest.max(8))
}

/// `text` cut into lines of at most `width` characters exactly, however narrow (a table's
/// heading over a column of short numbers).
pub fn wrap_exact(text: &str, width: usize) -> Vec<String> {
    wrap_lines(text, width.max(1), width.max(1))
}

fn wrap_lines(text: &str, first: usize, rest: usize) -> Vec<String> {
    let limit = |lines: &Vec<String>| if lines.is_empty() { first } else { rest };
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|word| !word.is_empty()) {
        let mut word = word.to_string();
        loop {
            let width = limit(&lines);
            let used = line.chars().count();
            if used + word.chars().count() + usize::from(used > 0) <= width {
                if used > 0 {
                    line.push(' ');
                }
                line.push_str(&word);
                break;
            }
            if used > 0 {
                lines.push(std::mem::take(&mut line));
                continue;
            }
            // A word longer than a whole line: cut it.
            let head: String = word.chars().take(width).collect();
            word = word.chars().skip(width).collect();
            lines.push(head);
            if word.is_empty() {
                break;
            }
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// Every line of `text` longer than `width` (when one is set) wrapped at spaces, the
/// continuation lines indented like the line and two more. Tables fit themselves
/// ([`crate::table::Table`]); this is for prose.
pub fn fit(text: &str) -> std::borrow::Cow<'_, str> {
    let Some(width) = width() else { return std::borrow::Cow::Borrowed(text) };
    if text.lines().all(|line| line.chars().count() <= width) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for line in text.split_inclusive('\n') {
        let (body, newline) = line.strip_suffix('\n').map_or((line, ""), |body| (body, "\n"));
        if body.chars().count() <= width {
            out.push_str(line);
            continue;
        }
        let indent = body.len() - body.trim_start().len();
        let pieces =
            wrap_hanging(body.trim_start(), width.saturating_sub(indent), width.saturating_sub(indent + 2));
        for (index, piece) in pieces.iter().enumerate() {
            if index > 0 {
                out.push('\n');
            }
            out.push_str(&" ".repeat(if index == 0 { indent } else { indent + 2 }));
            out.push_str(piece);
        }
        out.push_str(newline);
    }
    std::borrow::Cow::Owned(out)
}

/// A path shortened from the left to at most `width` characters (`…/to/file.pfw.gz`): the end
/// of a path names the file, its start is the same for every row.
pub fn abbreviate_left(path: &str, width: usize) -> String {
    let length = path.chars().count();
    if length <= width || width < 2 {
        return path.to_string();
    }
    let tail: String = path.chars().skip(length - (width - 1)).collect();
    format!("…{tail}")
}

/// A finding's why as printed: marked when the learned detector does not confirm its pattern.
pub fn why_of(finding: &ioscout_diagnose::Finding) -> String {
    match finding.model {
        Some(check) if !check.confirmed => {
            format!("[not confirmed by the model, p = {:.2}] {}", check.probability, finding.why)
        }
        _ => finding.why.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_positive_time_is_never_printed_as_zero() {
        assert_eq!(seconds(12.34, 1), "12.3");
        assert_eq!(seconds(0.0, 1), "0.0");
        assert_eq!(seconds(0.04, 1), "0.040");
        assert_eq!(seconds(0.0042, 1), "0.0042");
        assert_eq!(seconds(0.0042, 3), "0.004");
        assert_eq!(seconds(0.00042, 3), "0.00042");
    }

    #[test]
    fn counts_take_the_right_noun() {
        assert_eq!(count_of(1_u64, "file", "files"), "1 file");
        assert_eq!(count_of(0_u64, "file", "files"), "0 files");
        assert_eq!(count_of(1200_u64, "member", "members"), "1,200 members");
    }

    #[test]
    fn wrapping_keeps_words_and_fits() {
        let lines = wrap("the quick brown fox jumps over the lazy dog", 10);
        assert!(lines.iter().all(|line| line.chars().count() <= 10), "{lines:?}");
        assert_eq!(lines.join(" "), "the quick brown fox jumps over the lazy dog");
        let cut = wrap("abcdefghijklmnopqrstuvwxyz", 10);
        assert_eq!(cut, ["abcdefghij", "klmnopqrst", "uvwxyz"]);
        assert_eq!(abbreviate_left("/a/very/long/path/file.pfw.gz", 12), "…file.pfw.gz");
        assert_eq!(abbreviate_left("short", 12), "short");
    }

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(18_039), "18,039");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn bytes_use_binary_units() {
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(1536), "1.5 KiB");
    }
}
