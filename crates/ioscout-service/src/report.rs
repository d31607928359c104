//! The HTML report (`ioscout report`): one self-contained file (inline styles, server-side SVG,
//! no network at view time) with the summary and layer breakdown, a per-process timeline of
//! compute versus I/O, bandwidth and operations over time, a directory-by-process heatmap of the
//! bytes moved, the transfer-size histogram, the findings with their evidence, and the proposal
//! table.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::ops::ControlFlow;

use ioscout_analysis::{Analysis, AnalysisOptions, OverlapMode, ViewType};
use ioscout_model::{Event, HashTables, Phase};
use ioscout_read::Fold;
use ioscout_read::event::Args;

use crate::svg::{self, Series, escape};
use crate::text::thousands;
use crate::{Input, Result};

/// What to report on.
#[derive(Clone, Debug)]
pub struct ReportRequest {
    /// Layer preset.
    pub preset: String,
    /// Most processes shown in the timeline and the heatmap.
    pub max_processes: usize,
}

impl Default for ReportRequest {
    fn default() -> Self {
        ReportRequest { preset: "auto".into(), max_processes: 32 }
    }
}

/// A report.
#[derive(Debug)]
pub struct HtmlReport {
    /// The page.
    pub html: String,
    /// Charts drawn.
    pub charts: usize,
    /// Findings listed.
    pub findings: usize,
    /// The scan's report.
    pub scan: ioscout_read::ScanReport,
}

/// Bins of the timeline at most (wider bins beyond).
const TIMELINE_BINS: usize = 200;

/// Per process and time bin, compute and I/O seconds; per directory and process, bytes.
struct ReportFold<'t> {
    tables: &'t HashTables,
    first_ts: i64,
    bin_us: f64,
    bins: usize,
    busy: HashMap<i64, Vec<(f64, f64)>>,
    bytes: HashMap<(String, i64), u64>,
}

fn is_io(category: &str) -> bool {
    let lower = category.to_ascii_lowercase();
    lower.starts_with("posix") || lower.starts_with("stdio")
}

fn is_compute(category: &str, name: &str) -> bool {
    category.eq_ignore_ascii_case("compute") || name.ends_with(".compute") || name == "compute"
}

impl Fold for ReportFold<'_> {
    fn event(&mut self, event: &Event<'_>) {
        if event.phase != Some(Phase::Complete) {
            return;
        }
        let (Some(pid), Some(ts), Some(dur)) = (event.pid, event.ts, event.dur) else { return };
        let category = event.cat.as_deref().unwrap_or("");
        let name = event.name.as_deref().unwrap_or("");
        let io = is_io(category);
        if !io && !is_compute(category, name) {
            return;
        }
        let cells = self.busy.entry(pid).or_insert_with(|| vec![(0.0, 0.0); self.bins]);
        // Spread the event over the bins it covers.
        let mut start = (ts - self.first_ts).max(0) as f64;
        let end = start + dur.max(0) as f64;
        while start < end {
            let bin = ((start / self.bin_us) as usize).min(self.bins - 1);
            let bin_end = ((bin + 1) as f64 * self.bin_us).max(start + 1.0);
            let part = (end.min(bin_end) - start) / 1e6;
            if io {
                cells[bin].1 += part;
            } else {
                cells[bin].0 += part;
            }
            if bin == self.bins - 1 {
                break;
            }
            start = bin_end;
        }
        if io && (name.contains("read") || name.contains("write")) {
            let args = Args::of(event);
            let size = ["ret", "size", "size_sum"]
                .iter()
                .find_map(|key| args.get(key).and_then(ioscout_model::RawValue::as_i64));
            if let Some(size) = size.filter(|size| *size > 0) {
                let file = ioscout_read::resolve_file(&args, self.tables)
                    .map_or_else(|| "(unknown file)".into(), std::borrow::Cow::into_owned);
                let directory = std::path::Path::new(&file)
                    .parent()
                    .map_or_else(|| file.clone(), |parent| parent.display().to_string());
                *self.bytes.entry((directory, pid)).or_default() += size as u64;
            }
        }
    }
}

fn table(out: &mut String, headers: &[&str], rows: &[Vec<String>]) {
    table_with_classes(out, headers, rows, None);
}

/// A table whose column `severity` (when given) holds severity labels, coloured by them.
fn table_with_classes(out: &mut String, headers: &[&str], rows: &[Vec<String>], severity: Option<usize>) {
    out.push_str("<table><thead><tr>");
    for header in headers {
        let _ = write!(out, "<th>{}</th>", escape(header));
    }
    out.push_str("</tr></thead><tbody>");
    for row in rows {
        out.push_str("<tr>");
        for (index, cell) in row.iter().enumerate() {
            if Some(index) == severity {
                let _ = write!(
                    out,
                    "<td class=\"label-{}\">{}</td>",
                    escape(&cell.to_ascii_lowercase()),
                    escape(cell)
                );
            } else {
                let _ = write!(out, "<td>{}</td>", escape(cell));
            }
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>\n");
}

const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2rem auto;max-width:980px;color:#222;line-height:1.4}h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ddd}table{border-collapse:collapse;font-size:.85rem;margin:.5rem 0}td,th{border-bottom:1px solid #eee;padding:.2rem .6rem;text-align:left;vertical-align:top}th{background:#f6f6f6}td:nth-child(n+2){font-variant-numeric:tabular-nums}.meta{color:#666}.chart{margin:1rem 0}.chart svg{max-width:100%;height:auto;background:#fff}figcaption{font-size:.9rem;margin-bottom:.3rem}.plot{fill:#fafafa;stroke:#ccc}.grid{stroke:#e6e6e6}.tick{font-size:11px;fill:#555}.axis{font-size:12px;fill:#333}.legend{font-size:12px;fill:#333}.label-critical{color:#b00020;font-weight:600}.label-high{color:#d55e00;font-weight:600}.label-medium{color:#a07000}.label-low{color:#4d6b8a}";

/// The page's own check of what it drew, written into `#layout` for the headless-browser test
/// (`tests/report/check.py`): each chart's place on the page; legends that run past their
/// picture; labels of one chart whose boxes overlap (row and column labels); timeline rows with
/// no visible mark.
const LAYOUT_SCRIPT: &str = "(function(){function box(e){var r=e.getBoundingClientRect();return {left:r.left,right:r.right,top:r.top,bottom:r.bottom,width:r.width,height:r.height};}\
function meet(a,b){return a.left<b.right-0.5&&b.left<a.right-0.5&&a.top<b.bottom-0.5&&b.top<a.bottom-0.5;}\
var charts=[],clipped=[],overlaps=[],empty=[];\
document.querySelectorAll('figure.chart svg').forEach(function(s){var r=box(s);charts.push({id:s.parentNode.id,x:r.left+window.scrollX,y:r.top+window.scrollY,width:r.width,height:r.height});\
var w=s.viewBox.baseVal.width,h=s.viewBox.baseVal.height;s.querySelectorAll('text.legend').forEach(function(t){var b=t.getBBox();if(b.x<0||b.x+b.width>w+0.5||b.y<0||b.y+b.height>h+0.5){clipped.push(s.parentNode.id+': '+t.textContent);}});\
['row-label','col-label'].forEach(function(kind){var labels=Array.from(s.querySelectorAll('text.'+kind));for(var i=0;i<labels.length;i++){for(var j=i+1;j<labels.length;j++){if(meet(box(labels[i]),box(labels[j]))){overlaps.push(s.parentNode.id+': '+labels[i].textContent+' / '+labels[j].textContent);}}}});\
s.querySelectorAll('g.row').forEach(function(g){var seen=Array.from(g.querySelectorAll('rect')).some(function(rect){var b=box(rect);return b.height>=1&&b.width>=0.5;});if(!seen){empty.push(s.parentNode.id+': '+g.getAttribute('data-label'));}});});\
document.getElementById('layout').textContent=JSON.stringify({charts:charts,clipped_legends:clipped,overlapping_labels:overlaps,rows_without_marks:empty});})();";

/// Builds the report of `input`.
pub fn report(input: &Input, request: &ReportRequest) -> Result<HtmlReport> {
    let options = AnalysisOptions {
        preset: request.preset.clone(),
        views: vec![ViewType::TimeRange, ViewType::FileName],
        overlap: OverlapMode::Exact,
        ..AnalysisOptions::default()
    };
    let (analysis, scan, file_count, derived) = crate::analyze::run_with_records(input, &options)?;
    // The measurements carry the diagnosis: the rules run once.
    let catalog = ioscout_advise::Catalog::bundled()?;
    let mut measurements = ioscout_advise::Measurements::from_analysis(
        &analysis,
        ioscout_diagnose::Parameters::default(),
        Some(&derived),
    );
    measurements.detect(&crate::detect::load(None)?);
    let findings = crate::diagnose::select(measurements.findings.clone(), ioscout_diagnose::Label::Low, None);
    let metric = ioscout_diagnose::choose_metric(&findings);
    let filesystem = ioscout_advise::filesystem::detect(&measurements.file_weights, None);
    let advice = ioscout_advise::advise(&catalog, measurements, filesystem, &ioscout_advise::Measured::new());

    let activity = activity(input, &analysis);
    let mut html = String::with_capacity(1 << 18);
    let title = format!("ioscout report: {}", input.describe());
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>{}</title><style>{STYLE}</style></head><body>\n<h1>I/O report</h1><p class=\"meta\">{} &middot; preset {} &middot; {} &middot; job {:.3} s &middot; {} events &middot; {} processes &middot; metric to optimise: <strong>{}</strong> ({})</p>\n",
        escape(&title),
        escape(&input.describe()),
        escape(&analysis.preset.name),
        crate::text::count_of(file_count as u64, "file", "files"),
        analysis.raw.job_time_s,
        thousands(analysis.raw.trace_event_count),
        thousands(analysis.raw.unique_process_count),
        escape(metric.metric),
        escape(&metric.reason)
    );
    summary(&mut html, &analysis);
    let mut charts = timeline_section(&mut html, &activity, request.max_processes);
    charts += over_time_section(&mut html, &analysis);
    charts += bytes_section(&mut html, activity.bytes, request.max_processes);
    charts += sizes_section(&mut html, &analysis);
    evidence_section(&mut html, &derived);
    findings_section(&mut html, &findings);
    proposals_section(&mut html, &advice);
    let _ = write!(
        html,
        "<p class=\"meta\">File system: {} ({}). Generated by ioscout {}.</p>\n<pre id=\"layout\" hidden></pre>\n<script>{LAYOUT_SCRIPT}</script>\n</body></html>\n",
        escape(advice.filesystem.fs_type.name()),
        escape(advice.filesystem.source),
        env!("CARGO_PKG_VERSION")
    );
    Ok(HtmlReport { html, charts, findings: findings.len(), scan })
}

/// Per process and time bin, compute and I/O seconds; per (directory, process), bytes moved;
/// from one more pass over the traces.
struct Activity {
    busy: HashMap<i64, Vec<(f64, f64)>>,
    bytes: HashMap<(String, i64), u64>,
    bin_us: f64,
}

/// The timeline and heatmap pass.
fn activity(input: &Input, analysis: &Analysis) -> Activity {
    let (files, problems) = input.discover();
    let scanner = input.scanner();
    let metadata = scanner.metadata(&files);
    let job_us = (analysis.raw.last_end - analysis.raw.first_ts).max(1) as f64;
    let bins =
        TIMELINE_BINS.min((job_us / 1e6 / analysis.raw.time_granularity_s).ceil().max(1.0) as usize).max(1);
    let bin_us = job_us / bins as f64;
    let mut busy: HashMap<i64, Vec<(f64, f64)>> = HashMap::new();
    let mut bytes: HashMap<(String, i64), u64> = HashMap::new();
    scanner.scan(
        &files,
        &problems,
        |_| ReportFold {
            tables: &metadata.tables,
            first_ts: analysis.raw.first_ts,
            bin_us,
            bins,
            busy: HashMap::new(),
            bytes: HashMap::new(),
        },
        |_, fold, _| {
            for (pid, cells) in fold.busy {
                let mine = busy.entry(pid).or_insert_with(|| vec![(0.0, 0.0); bins]);
                for (target, (compute, io)) in mine.iter_mut().zip(cells) {
                    target.0 += compute;
                    target.1 += io;
                }
            }
            for (key, value) in fold.bytes {
                *bytes.entry(key).or_default() += value;
            }
            ControlFlow::Continue(())
        },
    );

    Activity { busy, bytes, bin_us }
}

/// The timeline of the busiest processes; the charts drawn.
fn timeline_section(html: &mut String, activity: &Activity, max_processes: usize) -> usize {
    let Activity { busy, bin_us, .. } = activity;
    let bin_us = *bin_us;
    let mut charts = 0;
    html.push_str("<h2>Timeline</h2>\n");
    let mut processes: Vec<(i64, f64)> =
        busy.iter().map(|(pid, cells)| (*pid, cells.iter().map(|(c, i)| c + i).sum())).collect();
    processes.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    processes.truncate(max_processes);
    processes.sort_by_key(|(pid, _)| *pid);
    let bin_seconds = bin_us / 1e6;
    let rows: Vec<(String, Vec<(f64, f64)>)> = processes
        .iter()
        .map(|(pid, _)| {
            let cells = busy
                .get(pid)
                .map(|cells| {
                    cells.iter().map(|(compute, io)| (compute / bin_seconds, io / bin_seconds)).collect()
                })
                .unwrap_or_default();
            (format!("pid {pid}"), cells)
        })
        .collect();
    if !rows.is_empty() {
        html.push_str(&svg::timeline(
            "chart-timeline",
            "Compute and I/O per process over time",
            &format!("(the {} busiest processes; bins of {:.3} s)", rows.len(), bin_seconds),
            &rows,
            bin_seconds,
        ));
        charts += 1;
    }
    charts
}

/// POSIX bandwidth and operations over time; the charts drawn.
fn over_time_section(html: &mut String, analysis: &Analysis) -> usize {
    let mut charts = 0;
    if let Some((bandwidth, operations, step)) = over_time(analysis) {
        html.push_str(&svg::line_chart(
            "chart-bandwidth",
            "POSIX bandwidth over time",
            "(bytes moved per second of wall time, per time bin)",
            "time since the first event (s)",
            "MB/s",
            step,
            &[Series { label: "MB/s", colour: svg::IO, values: &bandwidth }],
        ));
        html.push_str(&svg::line_chart(
            "chart-operations",
            "POSIX operations over time",
            "(calls per second of wall time, per time bin)",
            "time since the first event (s)",
            "operations/s",
            step,
            &[Series { label: "operations/s", colour: svg::SECOND, values: &operations }],
        ));
        charts += 2;
    }
    charts
}

/// Where the bytes go: directories by process, system paths left out and counted; the charts
/// drawn.
fn bytes_section(html: &mut String, mut bytes: HashMap<(String, i64), u64>, max_processes: usize) -> usize {
    let mut charts = 0;
    html.push_str("<h2>Where the bytes go</h2>\n");
    // System paths (/proc, /sys, /dev, ...) are left out as the analysis leaves them out, and
    // counted apart so nothing is hidden.
    let mut system_bytes = 0;
    bytes.retain(|(directory, _), value| {
        let system = ioscout_analysis::row::ignored_path(&format!("{directory}/"));
        if system {
            system_bytes += *value;
        }
        !system
    });
    if system_bytes > 0 {
        let _ = writeln!(
            html,
            "<p class=\"meta\">{} moved in system paths (/proc, /sys, /dev, /etc, Python's libraries; ignored by the analysis) are not shown below.</p>",
            crate::text::bytes(system_bytes)
        );
    }
    if !bytes.is_empty() {
        let mut directories: BTreeMap<String, u64> = BTreeMap::new();
        for ((directory, _), value) in &bytes {
            *directories.entry(directory.clone()).or_default() += value;
        }
        let mut top: Vec<(String, u64)> = directories.into_iter().collect();
        top.sort_by_key(|entry| std::cmp::Reverse(entry.1));
        top.truncate(20);
        let mut pids: Vec<i64> = bytes.keys().map(|(_, pid)| *pid).collect();
        pids.sort_unstable();
        pids.dedup();
        pids.truncate(max_processes);
        let values: Vec<Vec<f64>> = top
            .iter()
            .map(|(directory, _)| {
                pids.iter()
                    .map(|pid| bytes.get(&(directory.clone(), *pid)).copied().unwrap_or(0) as f64)
                    .collect()
            })
            .collect();
        let row_labels: Vec<String> = top.iter().map(|(directory, _)| directory.clone()).collect();
        let column_labels: Vec<String> = pids.iter().map(|pid| format!("pid {pid}")).collect();
        html.push_str(&svg::heatmap(
            "chart-heatmap",
            "Bytes read and written, by directory and process",
            "(the 20 directories moving the most bytes)",
            &row_labels,
            &column_labels,
            &values,
            "bytes",
        ));
        charts += 1;
    }
    charts
}

/// The transfer-size histogram; the charts drawn.
fn sizes_section(html: &mut String, analysis: &Analysis) -> usize {
    let mut charts = 0;
    let histogram: Vec<(String, f64)> = ioscout_analysis::SIZE_BINS
        .iter()
        .enumerate()
        .map(|(index, (label, _))| {
            let count: u64 = analysis
                .sizes
                .iter()
                .filter(|histogram| histogram.slot == "posix_read" || histogram.slot == "posix_write")
                .map(|histogram| histogram.counts[index])
                .sum();
            ((*label).replace('_', "-"), count as f64)
        })
        .collect();
    if histogram.iter().any(|(_, count)| *count > 0.0) {
        html.push_str(&svg::bar_chart(
            "chart-sizes",
            "Transfer sizes of POSIX reads and writes",
            "(calls per size bin)",
            "bytes per call",
            "calls",
            &histogram,
            svg::COMPUTE,
        ));
        charts += 1;
    }
    charts
}

/// The findings with their evidence, severities coloured.
/// What the Darshan records derived from the trace add: metadata time by operation, the shape of
/// each data class, and the access pattern of the files with the most bytes.
fn evidence_section(html: &mut String, derived: &ioscout_evidence::Derived) {
    use crate::evidence::{
        FILE_HEADERS, METADATA_HEADERS, SHAPE_HEADERS, file_rows, metadata_rows, shape_rows,
    };
    html.push_str("<h2>Access pattern and metadata</h2>\n");
    let metadata = metadata_rows(derived, 8);
    if !metadata.is_empty() {
        html.push_str("<h3>Metadata time by operation</h3>\n");
        table(html, &METADATA_HEADERS, &metadata);
    }
    let shapes = shape_rows(derived);
    if !shapes.is_empty() {
        html.push_str("<h3>Data shape: time per call against bytes per call</h3>\n");
        table(html, &SHAPE_HEADERS, &shapes);
    }
    let files = file_rows(derived, 20);
    if !files.is_empty() {
        let _ = writeln!(
            html,
            "<h3>Access pattern by file ({} of {}, most bytes first)</h3>",
            files.len(),
            derived.files.len()
        );
        table(html, &FILE_HEADERS, &files);
    }
}

fn findings_section(html: &mut String, findings: &[ioscout_diagnose::Finding]) {
    html.push_str("<h2>Findings</h2>\n");
    if findings.is_empty() {
        html.push_str("<p>No findings.</p>\n");
    } else {
        let rows: Vec<Vec<String>> = findings
            .iter()
            .map(|finding| {
                let evidence: Vec<String> = finding
                    .evidence
                    .iter()
                    .map(|evidence| format!("{} = {}", evidence.metric, svg::short(evidence.value)))
                    .collect();
                vec![
                    finding.label.name().to_string(),
                    format!("{:.2}", finding.score),
                    finding.code.to_string(),
                    finding.scope.clone(),
                    crate::diagnose::why_of(finding),
                    evidence.join("; "),
                ]
            })
            .collect();
        table_with_classes(html, &["Severity", "Score", "Rule", "Scope", "Why", "Evidence"], &rows, Some(0));
    }
}

/// The proposal table.
fn proposals_section(html: &mut String, advice: &ioscout_advise::Advice) {
    html.push_str("<h2>Proposals</h2>\n");
    if advice.proposals.is_empty() {
        html.push_str("<p>No proposals: no finding that a technique answers passed its gates.</p>\n");
    } else {
        let rows: Vec<Vec<String>> = advice
            .proposals
            .iter()
            .map(|proposal| {
                vec![
                    proposal.rank.to_string(),
                    proposal.strategy.clone(),
                    proposal.layer.clone(),
                    format!("{:.2} %", proposal.app_impact_pct),
                    format!("{:.2} %", proposal.system_impact_pct),
                    proposal.change.clone(),
                    format!("{}, \"{}\"", proposal.citation.authors, proposal.citation.title),
                ]
            })
            .collect();
        table(html, &["#", "Strategy", "Layer", "App impact", "System impact", "Change", "Citation"], &rows);
    }
}

/// The summary and layer breakdown tables.
fn summary(html: &mut String, analysis: &Analysis) {
    html.push_str("<h2>Layer breakdown</h2>\n");
    let Some(view) = analysis.views.first() else { return };
    let rows: Vec<Vec<String>> = view
        .summary
        .iter()
        .filter(|line| line.count > 0)
        .map(|line| {
            vec![
                line.label.clone(),
                format!("{:.3}", line.time_s),
                line.overlap_time().map_or_else(|| "-".into(), |share| format!("{:.0} %", share * 100.0)),
                thousands(line.count),
                line.size_bytes
                    .filter(|size| *size > 0.0)
                    .map_or_else(|| "-".into(), |size| format!("{:.3}", size / 1_048_576.0)),
                line.bandwidth_bps
                    .map_or_else(|| "-".into(), |bandwidth| format!("{:.3}", bandwidth / 1_048_576.0)),
            ]
        })
        .collect();
    table(
        html,
        &["Layer", "Time (s)", "Hidden under other work", "Operations", "Size (MiB)", "Bandwidth (MiB/s)"],
        &rows,
    );
}

/// POSIX bandwidth (MB/s) and operations per second per time bin, and the bin width.
fn over_time(analysis: &Analysis) -> Option<(Vec<f64>, Vec<f64>, f64)> {
    let view = analysis.view(ViewType::TimeRange)?;
    let step = analysis.raw.time_granularity_s;
    let last = view.rows.iter().map(|row| row.order).max()?;
    let length = usize::try_from(last + 1).ok()?.min(100_000);
    let mut bandwidth = vec![0.0; length];
    let mut operations = vec![0.0; length];
    for row in view.rows.iter().filter(|row| row.layer == "posix" && row.derived.is_none()) {
        let Ok(index) = usize::try_from(row.order) else { continue };
        if index < length {
            bandwidth[index] += row.metrics.size_sum.unwrap_or(0) as f64 / step / 1e6;
            operations[index] += row.metrics.count_sum as f64 / step;
        }
    }
    operations.iter().any(|value| *value > 0.0).then_some((bandwidth, operations, step))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sample_report_is_self_contained_with_every_chart() {
        let sample = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/sample");
        let report = report(&Input::of(vec![sample]), &ReportRequest::default())
            .unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(report.charts, 5);
        for section in ["Access pattern and metadata", "Data shape", "Access pattern by file"] {
            assert!(report.html.contains(section), "{section}");
        }
        for id in ["chart-timeline", "chart-bandwidth", "chart-operations", "chart-heatmap", "chart-sizes"] {
            assert!(report.html.contains(&format!("id=\"{id}\"")), "{id}");
        }
        let without_namespace = report.html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
        assert!(
            !without_namespace.contains("http://") && !without_namespace.contains("https://")
                || without_namespace.contains("doi.org")
        );
        assert!(!report.html.contains("<script src") && !report.html.contains("<link"));
        assert!(report.html.contains("DFA-FETCH-PRESSURE"));
        assert!(report.html.ends_with("</html>\n"));
    }
}
