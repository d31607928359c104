//! Server-side SVG charts for the HTML report: no script, no network at view time. Each chart
//! is a titled `<figure>` with axes, units and a legend, drawn from plain numbers.

use std::fmt::Write as _;

/// Escapes text for HTML and SVG.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            other => out.push(other),
        }
    }
    out
}

/// Colours: compute, I/O, and a sequential ramp for heatmaps (colour-blind safe).
pub const COMPUTE: &str = "#0072b2";
/// I/O.
pub const IO: &str = "#e69f00";
/// A second series.
pub const SECOND: &str = "#009e73";

fn figure(id: &str, title: &str, caption: &str, body: &str, width: f64, height: f64) -> String {
    format!(
        "<figure class=\"chart\" id=\"{id}\"><figcaption><strong>{}</strong> {}</figcaption><svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {height}\" width=\"{width}\" height=\"{height}\" role=\"img\" aria-label=\"{}\">{body}</svg></figure>\n",
        escape(title),
        escape(caption),
        escape(title)
    )
}

/// A round number at or above `value` for an axis maximum.
fn nice_max(value: f64) -> f64 {
    if value <= 0.0 || !value.is_finite() {
        return 1.0;
    }
    let magnitude = 10_f64.powf(value.log10().floor());
    for step in [1.0, 2.0, 2.5, 5.0, 10.0] {
        if step * magnitude >= value {
            return step * magnitude;
        }
    }
    10.0 * magnitude
}

/// Round tick values from 0 up to `maximum`: a step of 1, 2, 2.5 or 5 times a power of ten,
/// four to eight ticks (never 1.94, 3.88).
pub fn ticks(maximum: f64) -> Vec<f64> {
    if maximum <= 0.0 || !maximum.is_finite() {
        return vec![0.0];
    }
    let raw = maximum / 5.0;
    let magnitude = 10_f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|factor| factor * magnitude)
        .find(|step| *step >= raw)
        .unwrap_or(10.0 * magnitude);
    (0..=64)
        .map(|index| f64::from(index) * step)
        .take_while(|value| *value <= maximum * (1.0 + 1e-9))
        .collect()
}

/// A tick label: integers without decimals, other round values without trailing zeros.
pub fn tick_label(value: f64) -> String {
    let magnitude = value.abs();
    if magnitude >= 1e3 {
        return short(value);
    }
    if value.fract() == 0.0 {
        return format!("{value:.0}");
    }
    let text = format!("{value:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A short number for axis labels.
pub fn short(value: f64) -> String {
    let magnitude = value.abs();
    if magnitude >= 1e9 {
        format!("{:.1}G", value / 1e9)
    } else if magnitude >= 1e6 {
        format!("{:.1}M", value / 1e6)
    } else if magnitude >= 1e3 {
        format!("{:.1}k", value / 1e3)
    } else if magnitude >= 10.0 || value == 0.0 {
        format!("{value:.0}")
    } else {
        format!("{value:.2}")
    }
}

fn legend(out: &mut String, x: f64, y: f64, entries: &[(&str, &str)]) {
    let mut offset = 0.0;
    for (colour, label) in entries {
        let _ = write!(
            out,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"12\" height=\"12\" fill=\"{colour}\"/><text x=\"{:.1}\" y=\"{:.1}\" class=\"legend\">{}</text>",
            x + offset,
            y,
            x + offset + 16.0,
            y + 10.0,
            escape(label)
        );
        offset += 24.0 + 7.0 * label.len() as f64;
    }
}

/// One series of a line or bar chart.
pub struct Series<'a> {
    /// Legend label.
    pub label: &'a str,
    /// Colour.
    pub colour: &'a str,
    /// Values, one per x position.
    pub values: &'a [f64],
}

/// A line chart over evenly spaced x positions (time bins), one y axis.
pub fn line_chart(
    id: &str,
    title: &str,
    caption: &str,
    x_label: &str,
    y_label: &str,
    x_step: f64,
    series: &[Series<'_>],
) -> String {
    let (width, height, left, right, top, bottom) = (860.0, 280.0, 70.0, 20.0, 30.0, 50.0);
    let points = series.iter().map(|series| series.values.len()).max().unwrap_or(0);
    let maximum =
        nice_max(series.iter().flat_map(|series| series.values.iter().copied()).fold(0.0, f64::max));
    let plot_width = width - left - right;
    let plot_height = height - top - bottom;
    let x_at = |index: usize| {
        left + if points > 1 { index as f64 / (points - 1) as f64 * plot_width } else { plot_width / 2.0 }
    };
    let y_at = |value: f64| top + plot_height - value / maximum * plot_height;
    let mut body = String::new();
    axes(&mut body, left, top, plot_width, plot_height, maximum, (x_label, y_label, 38.0));
    let span = points.saturating_sub(1) as f64 * x_step;
    for value in ticks(span) {
        let x = if span > 0.0 { left + value / span * plot_width } else { left + plot_width / 2.0 };
        let _ = write!(
            body,
            "<text x=\"{x:.1}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"middle\">{}</text>",
            top + plot_height + 16.0,
            tick_label(value)
        );
    }
    for series in series {
        let path: Vec<String> = series
            .values
            .iter()
            .enumerate()
            .map(|(index, value)| format!("{:.1},{:.1}", x_at(index), y_at(*value)))
            .collect();
        if path.len() == 1 {
            let _ = write!(
                body,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{}\"/>",
                x_at(0),
                y_at(series.values[0]),
                series.colour
            );
        } else if !path.is_empty() {
            let _ = write!(
                body,
                "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"/>",
                series.colour,
                path.join(" ")
            );
        }
    }
    let entries: Vec<(&str, &str)> = series.iter().map(|series| (series.colour, series.label)).collect();
    legend(&mut body, left, 8.0, &entries);
    figure(id, title, caption, &body, width, height)
}

fn axes(
    body: &mut String,
    left: f64,
    top: f64,
    plot_width: f64,
    plot_height: f64,
    maximum: f64,
    labels: (&str, &str, f64),
) {
    let (x_label, y_label, x_label_offset) = labels;
    let _ = write!(
        body,
        "<rect x=\"{left}\" y=\"{top}\" width=\"{plot_width}\" height=\"{plot_height}\" class=\"plot\"/>"
    );
    for value in ticks(maximum) {
        let y = top + plot_height - plot_height * value / maximum;
        let _ = write!(
            body,
            "<line x1=\"{left}\" x2=\"{:.1}\" y1=\"{y:.1}\" y2=\"{y:.1}\" class=\"grid\"/><text x=\"{:.1}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"end\">{}</text>",
            left + plot_width,
            left - 6.0,
            y + 4.0,
            tick_label(value)
        );
    }
    let _ = write!(
        body,
        "<text x=\"{:.1}\" y=\"{:.1}\" class=\"axis\" text-anchor=\"middle\">{}</text><text transform=\"translate(16 {:.1}) rotate(-90)\" class=\"axis\" text-anchor=\"middle\">{}</text>",
        left + plot_width / 2.0,
        top + plot_height + x_label_offset,
        escape(x_label),
        top + plot_height / 2.0,
        escape(y_label)
    );
}

/// A bar chart with one bar per labelled category.
pub fn bar_chart(
    id: &str,
    title: &str,
    caption: &str,
    x_label: &str,
    y_label: &str,
    bars: &[(String, f64)],
    colour: &str,
) -> String {
    let (width, height, left, right, top, bottom) = (860.0, 310.0, 70.0, 20.0, 30.0, 90.0);
    let plot_width = width - left - right;
    let plot_height = height - top - bottom;
    let maximum = nice_max(bars.iter().map(|(_, value)| *value).fold(0.0, f64::max));
    let mut body = String::new();
    axes(&mut body, left, top, plot_width, plot_height, maximum, (x_label, y_label, 74.0));
    let slot = plot_width / bars.len().max(1) as f64;
    for (index, (label, value)) in bars.iter().enumerate() {
        let bar_height = value / maximum * plot_height;
        let x = left + slot * index as f64;
        let _ = write!(
            body,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{bar_height:.1}\" fill=\"{colour}\"><title>{}: {}</title></rect><text transform=\"translate({:.1} {:.1}) rotate(40)\" class=\"tick\">{}</text>",
            x + slot * 0.15,
            top + plot_height - bar_height,
            slot * 0.7,
            escape(label),
            short(*value),
            x + slot * 0.3,
            top + plot_height + 12.0,
            escape(label)
        );
    }
    figure(id, title, caption, &body, width, height)
}

/// Width of a character of an 11 px label, at most, for the room a label needs.
const LABEL_CHARACTER_PX: f64 = 6.6;

/// The widest room for a timeline's row labels.
const LABEL_MOST_PX: f64 = 320.0;

/// How many characters of a row label fit in a left margin of `left` pixels (the margin less
/// 12 px of padding; a hair of slack so a margin made for `n` characters holds them).
fn label_fits(left: f64) -> usize {
    ((left - 12.0) / LABEL_CHARACTER_PX + 1e-6) as usize
}

/// `label` cut on the left to `fits` characters with an ellipsis (the end of a process label,
/// its pid and host, tells rows apart).
fn cut_left(label: &str, fits: usize) -> String {
    let count = label.chars().count();
    if count <= fits || fits < 2 {
        return label.to_string();
    }
    let kept: String = label.chars().skip(count - (fits - 1)).collect();
    format!("\u{2026}{kept}")
}

/// A timeline: one row per process, per time bin the share of the bin spent computing and in
/// I/O (stacked, height proportional).
pub fn timeline(
    id: &str,
    title: &str,
    caption: &str,
    rows: &[(String, Vec<(f64, f64)>)],
    bin_seconds: f64,
    origin: &str,
    compute: bool,
) -> String {
    let row_height = 18.0;
    // Room for the longest label (11 px type: under 6.6 px a character), within bounds; a
    // longer label is cut on the left with an ellipsis and named whole by its tooltip.
    let longest = rows.iter().map(|(label, _)| label.chars().count()).max().unwrap_or(0);
    let left = (12.0 + LABEL_CHARACTER_PX * longest as f64).ceil().clamp(90.0, LABEL_MOST_PX);
    let fits = label_fits(left);
    let (right, top, bottom) = (20.0, 34.0, 46.0);
    let width = 860.0;
    let height = top + bottom + row_height * rows.len().max(1) as f64;
    let plot_width = width - left - right;
    let bins = rows.iter().map(|(_, cells)| cells.len()).max().unwrap_or(0).max(1);
    let cell_width = plot_width / bins as f64;
    let mut body = String::new();
    let _ = write!(
        body,
        "<rect x=\"{left}\" y=\"{top}\" width=\"{plot_width}\" height=\"{:.1}\" class=\"plot\"/>",
        row_height * rows.len().max(1) as f64
    );
    // Any activity is drawn at least this tall: a worker busy 1 % of a bin stays visible.
    let least = 2.0;
    let room = row_height - 2.0;
    for (row, (label, cells)) in rows.iter().enumerate() {
        let y = top + row_height * row as f64;
        let _ = write!(
            body,
            "<g class=\"row\" data-label=\"{}\"><text x=\"{:.1}\" y=\"{:.1}\" class=\"tick row-label\" text-anchor=\"end\"><title>{}</title>{}</text>",
            escape(label),
            left - 6.0,
            y + 13.0,
            escape(label),
            escape(&cut_left(label, fits))
        );
        for (bin, (compute, io)) in cells.iter().enumerate() {
            let x = left + cell_width * bin as f64;
            let visible =
                |share: f64| if share > 0.0 { (share.clamp(0.0, 1.0) * room).max(least) } else { 0.0 };
            let (mut compute_height, mut io_height) = (visible(*compute), visible(*io));
            if compute_height + io_height > room {
                // Both at full share: split the row between them.
                let scale = room / (compute_height + io_height);
                compute_height = (compute_height * scale).max(least / 2.0);
                io_height = (io_height * scale).max(least / 2.0);
            }
            if compute_height > 0.0 {
                let _ = write!(
                    body,
                    "<rect x=\"{x:.2}\" y=\"{:.2}\" width=\"{:.2}\" height=\"{compute_height:.2}\" fill=\"{COMPUTE}\"/>",
                    y + row_height - 1.0 - compute_height,
                    cell_width.max(1.0)
                );
            }
            if io_height > 0.0 {
                let _ = write!(
                    body,
                    "<rect x=\"{x:.2}\" y=\"{:.2}\" width=\"{:.2}\" height=\"{io_height:.2}\" fill=\"{IO}\" fill-opacity=\"0.85\"/>",
                    y + 1.0,
                    cell_width.max(1.0)
                );
            }
        }
        body.push_str("</g>");
    }
    let span = bins as f64 * bin_seconds;
    for value in ticks(span) {
        let _ = write!(
            body,
            "<text x=\"{:.1}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"middle\">{}</text>",
            left + if span > 0.0 { value / span * plot_width } else { 0.0 },
            height - bottom + 16.0,
            tick_label(value)
        );
    }
    let _ = write!(
        body,
        "<text x=\"{:.1}\" y=\"{:.1}\" class=\"axis\" text-anchor=\"middle\">time since {origin} (s)</text>",
        left + plot_width / 2.0,
        height - 8.0
    );
    let entries = [
        (COMPUTE, "compute (share of the bin, from the bottom)"),
        (IO, "I/O (from the top; any activity at least 2 px)"),
    ];
    legend(&mut body, left, 10.0, if compute { &entries } else { &entries[1..] });
    figure(id, title, caption, &body, width, height)
}

/// A heatmap: rows × columns of values, colour by value (log scale), with labels.
pub fn heatmap(
    id: &str,
    title: &str,
    caption: &str,
    rows: &[String],
    columns: &[String],
    values: &[Vec<f64>],
    unit: &str,
) -> String {
    let cell = 20.0;
    let (left, top, right) = (260.0, 40.0, 20.0);
    let longest_column = columns.iter().map(|label| label.chars().count()).max().unwrap_or(0);
    // Column labels run downwards (vertical), one per 20 px cell: they never overlap.
    let bottom = 16.0 + 6.5 * longest_column as f64;
    let maximum = values.iter().flatten().copied().fold(0.0, f64::max).max(1.0);
    let legend_text = format!("darker = more {unit} (log scale; max {})", short(maximum));
    // The legend starts at the left edge and the picture is at least as wide as it.
    let legend_width = 16.0 + 7.0 * legend_text.chars().count() as f64;
    let width = (left + right + cell * columns.len().max(1) as f64).max(500.0).max(legend_width);
    let height = top + bottom + cell * rows.len().max(1) as f64;
    let mut body = String::new();
    for (row, label) in rows.iter().enumerate() {
        let y = top + cell * row as f64;
        let label = if label.is_empty() { "(no directory)" } else { label.as_str() };
        let shown: String = if label.chars().count() > 38 {
            format!(
                "…{}",
                label.chars().rev().take(37).collect::<Vec<_>>().into_iter().rev().collect::<String>()
            )
        } else {
            label.to_string()
        };
        let _ = write!(
            body,
            "<text x=\"{:.1}\" y=\"{:.1}\" class=\"tick row-label\" text-anchor=\"end\">{}</text>",
            left - 6.0,
            y + 14.0,
            escape(&shown)
        );
        for (column, value) in values.get(row).map_or(&[][..], Vec::as_slice).iter().enumerate() {
            let intensity =
                if *value > 0.0 { (value.ln_1p() / maximum.ln_1p()).clamp(0.05, 1.0) } else { 0.0 };
            let colour = if intensity == 0.0 {
                "#f4f4f4".to_string()
            } else {
                format!(
                    "rgb({:.0},{:.0},{:.0})",
                    255.0 - 200.0 * intensity,
                    245.0 - 150.0 * intensity,
                    230.0 - 60.0 * intensity
                )
            };
            let _ = write!(
                body,
                "<rect x=\"{:.1}\" y=\"{y:.1}\" width=\"{}\" height=\"{}\" fill=\"{colour}\" stroke=\"#fff\"><title>{} / {}: {} {}</title></rect>",
                left + cell * column as f64,
                cell,
                cell,
                escape(label),
                escape(columns.get(column).map_or("", String::as_str)),
                short(*value),
                escape(unit)
            );
        }
    }
    for (column, label) in columns.iter().enumerate() {
        let _ = write!(
            body,
            "<text transform=\"translate({:.1} {:.1}) rotate(90)\" class=\"tick col-label\">{}</text>",
            left + cell * column as f64 + 6.0,
            top + cell * rows.len() as f64 + 6.0,
            escape(label)
        );
    }
    let _ = write!(body, "<text x=\"8\" y=\"20\" class=\"legend\">{}</text>", escape(&legend_text));
    figure(id, title, caption, &body, width, height)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_and_axis_helpers() {
        assert_eq!(escape("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
        assert!((nice_max(73.0) - 100.0).abs() < 1e-9);
        assert!((nice_max(0.0) - 1.0).abs() < 1e-9);
        assert_eq!(short(1_500_000.0), "1.5M");
    }

    /// Axis ticks fell on 1.94, 3.88: they are round now, from 0 up to the maximum.
    #[test]
    fn ticks_are_round_numbers() {
        let labels: Vec<String> = ticks(7.76).into_iter().map(tick_label).collect();
        assert_eq!(labels, ["0", "2", "4", "6"]);
        let labels: Vec<String> = ticks(145.364).into_iter().map(tick_label).collect();
        assert_eq!(labels, ["0", "50", "100"]);
        let labels: Vec<String> = ticks(2.26).into_iter().map(tick_label).collect();
        assert_eq!(labels, ["0", "0.5", "1", "1.5", "2"]);
        assert_eq!(ticks(0.0), [0.0]);
    }

    /// Timeline marks were 0.05-5 px tall (workers invisible): any activity is at least 2 px.
    #[test]
    fn a_little_activity_is_still_visible_in_the_timeline() {
        let drawn =
            timeline("t", "T", "c", &[("pid 1".into(), vec![(0.001, 0.002)])], 1.0, "the first event", true);
        let heights: Vec<f64> = drawn
            .split("height=\"")
            .skip(1)
            .filter_map(|rest| rest.split('"').next()?.parse().ok())
            .collect();
        assert!(heights.iter().filter(|height| **height < 18.0).all(|height| *height >= 1.0), "{heights:?}");
        assert!(drawn.contains("<g class=\"row\""));
    }

    /// Process labels were cut on the left at a fixed 150 px ("nk 0 (pid 9000 on node01)"): the
    /// margin now fits the longest label whole, and a label past the widest margin is cut with
    /// an ellipsis and named whole by its tooltip.
    #[test]
    fn timeline_labels_are_whole_or_cut_with_an_ellipsis() {
        let shown = |drawn: &str| -> Vec<String> {
            drawn
                .split("</title>")
                .skip(1)
                .filter_map(|rest| rest.split("</text>").next().map(str::to_string))
                .collect()
        };
        // 21 characters around the host: up to 46 fit in the widest margin.
        for length in 1..=25 {
            let label = format!("rank 0 (pid 9000 on {})", "n".repeat(length));
            let drawn =
                timeline("t", "T", "c", &[(label.clone(), vec![(0.5, 0.5)])], 1.0, "the first event", true);
            assert_eq!(shown(&drawn), vec![label], "length {length}");
        }
        let long = format!("rank 0 (pid 9000 on {})", "n".repeat(80));
        let drawn =
            timeline("t", "T", "c", &[(long.clone(), vec![(0.5, 0.5)])], 1.0, "the first event", true);
        let cut = shown(&drawn).remove(0);
        assert!(cut.starts_with('\u{2026}') && long.ends_with(&cut[3..]), "{cut}");
        assert!(drawn.contains(&format!("<title>{long}</title>")));
    }

    #[test]
    fn charts_are_self_contained_svg() {
        let line = line_chart(
            "l",
            "T",
            "c",
            "x",
            "y",
            1.0,
            &[Series { label: "s", colour: IO, values: &[1.0, 3.0, 2.0] }],
        );
        assert!(
            line.contains("<polyline") && !line.contains("http://")
                || line.contains("xmlns=\"http://www.w3.org/2000/svg\"")
        );
        let bars = bar_chart("b", "T", "c", "x", "y", &[("a".into(), 1.0), ("b<".into(), 2.0)], IO);
        assert!(bars.contains("b&lt;") && bars.matches("<rect").count() >= 3);
        let lines = timeline(
            "t",
            "T",
            "c",
            &[("pid 1".into(), vec![(0.5, 0.5), (1.0, 0.0)])],
            1.0,
            "the first event",
            true,
        );
        assert!(lines.contains(COMPUTE) && lines.contains(IO));
        let map = heatmap("h", "T", "c", &["/data".into()], &["pid 1".into()], &[vec![10.0]], "bytes");
        assert!(map.contains("rgb("));
    }
}
