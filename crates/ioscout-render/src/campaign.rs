//! A comparison of runs as users read it (`ioscout compare`): its text (the runs against the
//! baseline, one table per layer, the replicates), its CSV (`--csv`), and its HTML page
//! (`--html`): one self-contained file
//! (inline styles, server-side SVG, no network at view time) of small multiples. The job time of
//! every run first, then per layer up to four small charts (time, operations, bytes, bandwidth:
//! those some run has) with
//! one bar per run in the comparison's order, the baseline's value as a dashed line, and the
//! runs that did less work there than the baseline drawn grey and marked LESS (their speedup is
//! not credited). The service (`ioscout_service::compare`) compares; this module only writes.

use std::fmt::Write as _;

use ioscout_advise::compare::{Campaign, CampaignRun, SortMetric};

use crate::svg::{self, escape};

/// One run as the page names it: its label, path and kind (`trace` or `darshan`).
pub struct RunName<'n> {
    /// Label.
    pub label: &'n str,
    /// Path as given.
    pub path: &'n str,
    /// `trace` or `darshan`.
    pub kind: &'n str,
}

/// The colour of a bar: the baseline, a run compared, a run that did less work.
const BASELINE: &str = svg::COMPUTE;
const COMPARED: &str = svg::IO;
const LESS: &str = "#999999";

/// Short names for the runs in the charts: the labels without the start they all share (cut
/// at a `/`), the end of a long one kept (`…threads_4_one_epoch`).
fn short_labels(runs: &[&CampaignRun]) -> Vec<String> {
    let labels: Vec<&str> = runs.iter().map(|run| run.label.as_str()).collect();
    let first = labels.first().copied().unwrap_or_default();
    // The longest start every label shares, in bytes, at a character boundary.
    let mut shared = first.len();
    for label in &labels {
        let common = first.bytes().zip(label.bytes()).take_while(|(left, right)| left == right).count();
        shared = shared.min(common);
    }
    while !first.is_char_boundary(shared) {
        shared -= 1;
    }
    let cut = if labels.len() > 1 { first[..shared].rfind('/').map_or(0, |slash| slash + 1) } else { 0 };
    labels
        .iter()
        .map(|label| {
            let rest = label.get(cut..).filter(|rest| !rest.is_empty()).unwrap_or(label);
            let characters: Vec<char> = rest.chars().collect();
            if characters.len() > LABEL_CHARACTERS {
                let tail: String = characters[characters.len() - (LABEL_CHARACTERS - 1)..].iter().collect();
                format!("…{tail}")
            } else {
                rest.to_string()
            }
        })
        .collect()
}

/// The most characters of a run's name a chart shows.
const LABEL_CHARACTERS: usize = 20;

/// A value on a bar: integers whole (operations), the rest short.
fn bar_value(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e6 { format!("{value:.0}") } else { svg::short(value) }
}

/// One small chart: a bar per run (horizontal, labels at the left), the baseline's value as a
/// dashed line; `less[i]` marks run `i` as having done less work.
fn small_chart(
    id: &str,
    title: &str,
    unit: &str,
    runs: &[&CampaignRun],
    names: &[String],
    values: &[Option<f64>],
    less: &[bool],
) -> String {
    let (width, label_width, row, top, bottom) = (300.0, 124.0, 18.0, 6.0, 22.0);
    let plot_width = width - label_width - 62.0;
    let height = top + row * runs.len() as f64 + bottom;
    let maximum = values.iter().flatten().copied().fold(0.0, f64::max);
    let scale = if maximum > 0.0 { plot_width / maximum } else { 0.0 };
    let mut body = String::new();
    let _ = write!(
        body,
        "<rect class=\"plot\" x=\"{label_width}\" y=\"{top}\" width=\"{plot_width:.1}\" height=\"{:.1}\"/>",
        row * runs.len() as f64
    );
    for (index, run) in runs.iter().enumerate() {
        let y = top + row * index as f64;
        let label = names.get(index).map_or(run.label.as_str(), String::as_str);
        let _ = write!(
            body,
            "<text class=\"tick row-label\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            label_width - 4.0,
            y + row * 0.7,
            escape(label)
        );
        let Some(value) = values.get(index).copied().flatten() else {
            let _ = write!(
                body,
                "<text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\">-</text>",
                label_width + 3.0,
                y + row * 0.7
            );
            continue;
        };
        let colour = if run.baseline {
            BASELINE
        } else if less.get(index).copied().unwrap_or(false) {
            LESS
        } else {
            COMPARED
        };
        let bar = (value * scale).max(if value > 0.0 { 1.0 } else { 0.0 });
        let mark = if less.get(index).copied().unwrap_or(false) { " LESS" } else { "" };
        let _ = write!(
            body,
            "<rect class=\"bar\" data-run=\"{}\" x=\"{label_width}\" y=\"{:.1}\" width=\"{bar:.1}\" height=\"{:.1}\" fill=\"{colour}\"><title>{}: {} {unit}{mark}</title></rect><text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\">{}{mark}</text>",
            escape(&run.label),
            y + 2.0,
            row - 4.0,
            escape(&run.label),
            bar_value(value),
            label_width + bar + 3.0,
            y + row * 0.7,
            bar_value(value)
        );
    }
    if let Some(base) =
        runs.iter().position(|run| run.baseline).and_then(|index| values.get(index).copied().flatten())
        && base > 0.0
    {
        let x = label_width + base * scale;
        let _ = write!(
            body,
            "<line class=\"baseline\" x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{top}\" y2=\"{:.1}\" stroke=\"#333\" stroke-dasharray=\"3 3\"/>",
            top + row * runs.len() as f64
        );
    }
    let _ = write!(
        body,
        "<text class=\"axis\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
        label_width + plot_width / 2.0,
        height - 6.0,
        escape(unit)
    );
    format!(
        "<figure class=\"chart small\" id=\"{id}\"><figcaption><strong>{}</strong></figcaption><svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {height:.0}\" width=\"{width}\" height=\"{height:.0}\" role=\"img\" aria-label=\"{}\">{body}</svg></figure>\n",
        escape(title),
        escape(title)
    )
}

/// An element id from a layer name.
fn slug(name: &str) -> String {
    name.chars()
        .map(|character| if character.is_ascii_alphanumeric() { character.to_ascii_lowercase() } else { '-' })
        .collect()
}

/// The page, and the number of charts drawn.
pub fn page(campaign: &Campaign, names: &[RunName<'_>]) -> (String, usize) {
    let runs: Vec<&CampaignRun> = campaign.runs.iter().collect();
    let short = short_labels(&runs);
    let mut html = String::with_capacity(1 << 16);
    let title = format!("ioscout comparison: {} runs against {}", runs.len(), campaign.baseline);
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>{}</title><style>{}{MULTIPLES}</style></head><body>\n<h1>Runs compared</h1><p class=\"meta\">{} runs against the baseline <strong>{}</strong>. Bars: <span style=\"color:{BASELINE}\">&#9632;</span> baseline, <span style=\"color:{COMPARED}\">&#9632;</span> run compared, <span style=\"color:{LESS}\">&#9632;</span> LESS: the run did less work in that layer than the baseline, so its speedup there is not credited. The dashed line is the baseline's value.</p>\n",
        escape(&title),
        crate::html::STYLE,
        runs.len(),
        escape(&campaign.baseline)
    );
    // The path only when some run's label is not its path.
    let paths_differ = names.iter().any(|name| name.path != name.label);
    let _ = write!(
        html,
        "<h2>Runs</h2>\n<table><thead><tr><th>Run</th><th>Kind</th>{}<th>Job time (s)</th><th>Speedup</th><th>Did less in</th><th>Verdict</th></tr></thead><tbody>",
        if paths_differ { "<th>Path</th>" } else { "" }
    );
    for run in &runs {
        let name = names.iter().find(|name| name.label == run.label);
        // The layers are in the column before: the verdict says only that it is not credited.
        let verdict = if run.doing_less.is_empty() { run.verdict.as_str() } else { "not credited" };
        let _ = write!(
            html,
            "<tr><td>{}</td><td>{}</td>{}<td>{:.3}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&run.label),
            escape(name.map_or("", |name| name.kind)),
            if paths_differ {
                format!("<td>{}</td>", escape(name.map_or("", |name| name.path)))
            } else {
                String::new()
            },
            run.job_time_s,
            run.job_speedup.map_or("-".into(), |value| format!("{value:.2}x")),
            escape(&if run.doing_less.is_empty() { "-".to_string() } else { run.doing_less.join(", ") }),
            escape(verdict)
        );
    }
    html.push_str("</tbody></table>\n<div class=\"multiples\">");
    let none = vec![false; runs.len()];
    let job: Vec<Option<f64>> = runs.iter().map(|run| Some(run.job_time_s)).collect();
    html.push_str(&small_chart("job-time", "Job time", "seconds", &runs, &short, &job, &none));
    html.push_str("</div>\n");
    let mut charts = 1;
    for (index, layer) in campaign.layers.iter().enumerate() {
        let lines: Vec<_> = runs.iter().map(|run| run.layers.get(index)).collect();
        if lines.iter().all(|line| line.is_none_or(|line| line.line.count == 0)) {
            continue;
        }
        let less: Vec<bool> = runs.iter().map(|run| run.doing_less.contains(layer)).collect();
        let value = |pick: &dyn Fn(&ioscout_advise::compare::LayerAgainstBaseline) -> Option<f64>| -> Vec<Option<f64>> {
            lines.iter().map(|line| line.and_then(pick)).collect()
        };
        let _ = write!(
            html,
            "<h2 id=\"layer-{}\">Layer {}</h2>\n<div class=\"multiples\">",
            slug(layer),
            escape(layer)
        );
        let id = slug(layer);
        let metrics: [(&str, &str, &str, Vec<Option<f64>>); 4] = [
            ("time", "Time", "seconds", value(&|line| Some(line.line.time_s))),
            ("operations", "Operations", "operations", value(&|line| Some(line.line.count as f64))),
            ("bytes", "Bytes", "MiB", value(&|line| Some(line.line.bytes as f64 / crate::text::MIB))),
            (
                "bandwidth",
                "Bandwidth",
                "MiB/s",
                value(&|line| line.line.bandwidth_bps.map(|value| value / crate::text::MIB)),
            ),
        ];
        for (key, title, unit, values) in metrics {
            // A metric no run has (bytes of a compute layer, bandwidth without bytes) is no chart.
            if values.iter().flatten().all(|value| *value <= 0.0) {
                continue;
            }
            let id = format!("{id}-{key}");
            html.push_str(&small_chart(
                &id,
                &format!("{layer}: {title}"),
                unit,
                &runs,
                &short,
                &values,
                &less,
            ));
            charts += 1;
        }
        html.push_str("</div>\n");
    }
    let _ = write!(
        html,
        "<p class=\"meta\">Generated by ioscout {}.</p>\n</body></html>\n",
        env!("CARGO_PKG_VERSION")
    );
    (html, charts)
}

/// The grid of small multiples.
const MULTIPLES: &str = ".multiples{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:.4rem 1rem}.chart.small{margin:.3rem 0}.chart.small figcaption{font-size:.85rem}";

/// The replicates table, with the tracer's overhead noted for traces.
pub fn replicates_text(found: &[ioscout_advise::compare::Replicates], traces: bool) -> String {
    let mut table = crate::table::Table::new(
        "Replicates (runs given one label)",
        &["Label", "Runs", "Median (s)", "Range (s)", "Speedup", "Verdict"],
        &[false, true, true, false, true, false],
    );
    for group in found {
        table.row(vec![
            group.label.clone(),
            group.job_times_s.len().to_string(),
            format!("{:.3}", group.median_s),
            format!("{:.3}-{:.3}", group.range_s.0, group.range_s.1),
            group.speedup.map_or_else(|| "-".to_string(), |speedup| format!("{speedup:.2}x")),
            group.verdict.clone(),
        ]);
    }
    let mut out = format!("\n{}", table.render());
    if traces {
        out.push_str(
            "Traced runs: the tracer's cost per call makes call-heavy runs slower than they are, so a change that removes calls reads faster here than untraced; time untraced runs for the effect (ioscout optimize does).\n",
        );
    }
    out
}

fn seconds(value: f64) -> String {
    format!("{value:.3}")
}

fn signed(value: f64, decimals: usize) -> String {
    if value == 0.0 { "0".to_string() } else { format!("{value:+.decimals$}") }
}

fn ratio(value: Option<f64>) -> String {
    value.map_or("-".into(), |value| format!("{value:.2}x"))
}

/// The layers worth a table: those some run has.
fn shown_layers(campaign: &Campaign) -> impl Iterator<Item = (usize, &String)> {
    campaign.layers.iter().enumerate().filter(|(index, _)| {
        campaign.runs.iter().any(|run| run.layers.get(*index).is_some_and(|layer| layer.line.count > 0))
    })
}

/// The text: the runs with their job time and verdict, then one table per layer.
pub fn text(campaign: &Campaign) -> String {
    let order = match campaign.sort {
        SortMetric::Input => String::from("in the order given"),
        sort => format!(
            "sorted by {}{}{}",
            serde_json::to_value(sort)
                .ok()
                .and_then(|value| value.as_str().map(str::to_string))
                .unwrap_or_default(),
            campaign.sort_layer.as_deref().map_or(String::new(), |layer| format!(" of {layer}")),
            if campaign.reverse { ", reversed" } else { "" }
        ),
    };
    let mut table = crate::table::Table::new(
        &format!("Runs against {} ({order})", campaign.baseline),
        &["Run", "Job time (s)", "Change (s)", "Speedup", "Did less in", "Verdict"],
        &[false, true, true, true, false, false],
    );
    let baseline_time = campaign.runs.iter().find(|run| run.baseline).map_or(0.0, |run| run.job_time_s);
    for run in &campaign.runs {
        table.row(vec![
            if run.baseline { format!("{} (baseline)", run.label) } else { run.label.clone() },
            seconds(run.job_time_s),
            signed(run.job_time_s - baseline_time, 3),
            ratio(run.job_speedup),
            if run.doing_less.is_empty() { "-".into() } else { run.doing_less.join(", ") },
            run.verdict.clone(),
        ]);
    }
    let mut out = table.render();
    for (index, name) in shown_layers(campaign) {
        let mut table = crate::table::Table::new(
            &format!("Layer {name}"),
            &[
                "Run",
                "Time (s)",
                "Change (s)",
                "Ops",
                "Change",
                "Size (MiB)",
                "Bandwidth (MiB/s)",
                "Overlap",
                "Speedup",
                "Work",
            ],
            &[false, true, true, true, true, true, true, true, true, false],
        );
        for run in &campaign.runs {
            let Some(layer) = run.layers.get(index) else { continue };
            table.row(vec![
                run.label.clone(),
                seconds(layer.line.time_s),
                signed(layer.time_delta_s, 3),
                layer.line.count.to_string(),
                signed(layer.count_delta as f64, 0),
                crate::text::mib(layer.line.bytes as f64),
                layer.line.bandwidth_bps.map_or("-".into(), crate::text::mib),
                layer.line.overlap_pct.map_or("-".into(), |value| format!("{value:.0} %")),
                ratio(layer.speedup),
                if run.baseline { "baseline".into() } else { layer.work.word().into() },
            ]);
        }
        out.push('\n');
        out.push_str(&table.render());
    }
    if !campaign.doing_less.is_empty() {
        let _ = writeln!(
            out,
            "\nNot credited: {} did less work than {} (LESS above); their speedups there are not the change's.",
            campaign.doing_less.join(", "),
            campaign.baseline
        );
    }
    out
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

fn number(value: Option<f64>) -> String {
    value.map_or(String::new(), |value| value.to_string())
}

/// The CSV header of [`csv`].
pub const CSV_HEADER: &str = "run,path,kind,baseline,job_time_s,job_speedup,layer,time_s,time_delta_s,count,count_delta,bytes,bytes_delta,bandwidth_bps,overlap_pct,speedup,work,did_less,verdict";

/// The comparison as CSV: one row per run and layer (every layer of the campaign), in the
/// campaign's order.
pub fn csv(campaign: &Campaign, names: &[RunName<'_>]) -> String {
    let mut out = String::from(CSV_HEADER);
    out.push('\n');
    for run in &campaign.runs {
        let (path, kind) =
            names.iter().find(|name| name.label == run.label).map_or(("", ""), |name| (name.path, name.kind));
        for layer in &run.layers {
            let cells = [
                field(&run.label),
                field(path),
                kind.to_string(),
                run.baseline.to_string(),
                run.job_time_s.to_string(),
                number(run.job_speedup),
                field(&layer.line.name),
                layer.line.time_s.to_string(),
                layer.time_delta_s.to_string(),
                layer.line.count.to_string(),
                layer.count_delta.to_string(),
                layer.line.bytes.to_string(),
                layer.bytes_delta.to_string(),
                number(layer.line.bandwidth_bps),
                number(layer.line.overlap_pct),
                number(layer.speedup),
                serde_json::to_value(layer.work)
                    .ok()
                    .and_then(|work| work.as_str().map(str::to_string))
                    .unwrap_or_default(),
                run.doing_less.contains(&layer.line.name).to_string(),
                field(&run.verdict),
            ];
            out.push_str(&cells.join(","));
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use ioscout_advise::compare::{LayerLine, RunSummary, SortMetric, compare_runs};

    use super::*;

    fn run(job: f64, time: f64, count: u64, bytes: u64) -> RunSummary {
        RunSummary {
            job_time_s: job,
            layers: vec![LayerLine {
                name: "posix".into(),
                time_s: time,
                count,
                bytes,
                bandwidth_bps: Some(bytes as f64 / time),
                overlap_pct: None,
            }],
        }
    }

    #[test]
    fn short_labels_drop_the_shared_folder_and_keep_the_end() {
        let runs: Vec<CampaignRun> =
            ["sweep/threads_1", "sweep/threads_4", "sweep/threads_4_one_epoch_and_more"]
                .iter()
                .map(|label| CampaignRun {
                    label: (*label).to_string(),
                    baseline: false,
                    job_time_s: 1.0,
                    job_speedup: None,
                    layers: Vec::new(),
                    doing_less: Vec::new(),
                    verdict: String::new(),
                })
                .collect();
        let references: Vec<&CampaignRun> = runs.iter().collect();
        assert_eq!(short_labels(&references), ["threads_1", "threads_4", "…_one_epoch_and_more"]);
        assert_eq!(short_labels(&references[..1]), ["sweep/threads_1"]);
    }

    #[test]
    fn each_layer_has_four_small_charts_and_the_run_that_did_less_is_marked() {
        let runs = vec![
            ("base".to_string(), run(10.0, 5.0, 1000, 1 << 30)),
            ("faster".to_string(), run(6.0, 2.0, 1000, 1 << 30)),
            ("<less>".to_string(), run(4.0, 1.0, 400, 1 << 28)),
        ];
        let campaign = compare_runs(&runs, 0, SortMetric::Input, None, false);
        let names: Vec<RunName<'_>> =
            runs.iter().map(|(label, _)| RunName { label, path: label, kind: "trace" }).collect();
        let (html, charts) = page(&campaign, &names);
        assert_eq!(charts, 5);
        for id in ["job-time", "posix-time", "posix-operations", "posix-bytes", "posix-bandwidth"] {
            assert!(html.contains(&format!("id=\"{id}\"")), "{id}");
        }
        assert_eq!(html.matches("<rect class=\"bar\"").count(), 15);
        assert_eq!(html.matches(&format!("fill=\"{LESS}\"")).count(), 4);
        assert!(html.contains("&lt;less&gt;") && !html.contains("<less>"));
        assert_eq!(html.matches("class=\"baseline\"").count(), 5);
        assert!(
            !html.contains("http://")
                || html.matches("http://").count()
                    == html.matches("xmlns=\"http://www.w3.org/2000/svg\"").count()
        );
    }
}
