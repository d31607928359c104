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
    for tick in 0..=4 {
        let index = (points.saturating_sub(1)) * tick / 4;
        let _ = write!(
            body,
            "<text x=\"{:.1}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"middle\">{}</text>",
            x_at(index),
            top + plot_height + 16.0,
            short(index as f64 * x_step)
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
    for tick in 0..=4 {
        let value = maximum * f64::from(tick) / 4.0;
        let y = top + plot_height - plot_height * f64::from(tick) / 4.0;
        let _ = write!(
            body,
            "<line x1=\"{left}\" x2=\"{:.1}\" y1=\"{y:.1}\" y2=\"{y:.1}\" class=\"grid\"/><text x=\"{:.1}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"end\">{}</text>",
            left + plot_width,
            left - 6.0,
            y + 4.0,
            short(value)
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

/// A timeline: one row per process, per time bin the share of the bin spent computing and in
/// I/O (stacked, height proportional).
pub fn timeline(
    id: &str,
    title: &str,
    caption: &str,
    rows: &[(String, Vec<(f64, f64)>)],
    bin_seconds: f64,
) -> String {
    let row_height = 18.0;
    let (left, right, top, bottom) = (150.0, 20.0, 34.0, 46.0);
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
    for (row, (label, cells)) in rows.iter().enumerate() {
        let y = top + row_height * row as f64;
        let _ = write!(
            body,
            "<text x=\"{:.1}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"end\">{}</text>",
            left - 6.0,
            y + 13.0,
            escape(label)
        );
        for (bin, (compute, io)) in cells.iter().enumerate() {
            let x = left + cell_width * bin as f64;
            let compute_height = (compute.clamp(0.0, 1.0)) * (row_height - 2.0);
            let io_height = (io.clamp(0.0, 1.0)) * (row_height - 2.0);
            if compute_height > 0.05 {
                let _ = write!(
                    body,
                    "<rect x=\"{x:.2}\" y=\"{:.2}\" width=\"{:.2}\" height=\"{compute_height:.2}\" fill=\"{COMPUTE}\"/>",
                    y + row_height - 1.0 - compute_height,
                    cell_width.max(0.5)
                );
            }
            if io_height > 0.05 {
                let _ = write!(
                    body,
                    "<rect x=\"{x:.2}\" y=\"{:.2}\" width=\"{:.2}\" height=\"{io_height:.2}\" fill=\"{IO}\" fill-opacity=\"0.85\"/>",
                    y + 1.0,
                    cell_width.max(0.5)
                );
            }
        }
    }
    for tick in 0..=4 {
        let bin = bins * tick / 4;
        let _ = write!(
            body,
            "<text x=\"{:.1}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"middle\">{}</text>",
            left + cell_width * bin as f64,
            height - bottom + 16.0,
            short(bin as f64 * bin_seconds)
        );
    }
    let _ = write!(
        body,
        "<text x=\"{:.1}\" y=\"{:.1}\" class=\"axis\" text-anchor=\"middle\">time since the first event (s)</text>",
        left + plot_width / 2.0,
        height - 8.0
    );
    legend(
        &mut body,
        left,
        10.0,
        &[
            (COMPUTE, "compute (share of the bin, from the bottom)"),
            (IO, "I/O (share of the bin, from the top)"),
        ],
    );
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
    let (left, top, right, bottom) = (260.0, 40.0, 20.0, 90.0);
    let width = (left + right + cell * columns.len().max(1) as f64).max(500.0);
    let height = top + bottom + cell * rows.len().max(1) as f64;
    let maximum = values.iter().flatten().copied().fold(0.0, f64::max).max(1.0);
    let mut body = String::new();
    for (row, label) in rows.iter().enumerate() {
        let y = top + cell * row as f64;
        let shown: String = if label.chars().count() > 38 {
            format!(
                "…{}",
                label.chars().rev().take(37).collect::<Vec<_>>().into_iter().rev().collect::<String>()
            )
        } else {
            label.clone()
        };
        let _ = write!(
            body,
            "<text x=\"{:.1}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"end\">{}</text>",
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
            "<text transform=\"translate({:.1} {:.1}) rotate(60)\" class=\"tick\">{}</text>",
            left + cell * column as f64 + 6.0,
            top + cell * rows.len() as f64 + 8.0,
            escape(label)
        );
    }
    let _ = write!(
        body,
        "<text x=\"{left}\" y=\"20\" class=\"legend\">darker = more {} (log scale; max {})</text>",
        escape(unit),
        short(maximum)
    );
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
        let lines = timeline("t", "T", "c", &[("pid 1".into(), vec![(0.5, 0.5), (1.0, 0.0)])], 1.0);
        assert!(lines.contains(COMPUTE) && lines.contains(IO));
        let map = heatmap("h", "T", "c", &["/data".into()], &["pid 1".into()], &[vec![10.0]], "bytes");
        assert!(map.contains("rgb("));
    }
}
