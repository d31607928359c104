//! The HTML report's page: one self-contained file (inline styles, server-side SVG, no network at
//! view time) with the summary and layer breakdown, a per-process timeline of compute versus I/O,
//! bandwidth and operations over time, a directory-by-process heatmap of the bytes moved, the
//! transfer-size histogram, the derived access pattern and metadata tables, the findings with
//! their evidence, and the proposal table. The service (`ioscout report`) gathers what a
//! [`Page`] holds; this module only draws it.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use ioscout_analysis::{Analysis, ViewType};
use ioscout_read::ProcessKey;

use crate::svg::{self, Series, escape};
use crate::text::{MIB, thousands};

/// Per process and time bin, compute and I/O seconds; per (directory, process), bytes moved.
#[derive(Clone, Debug, Default)]
pub struct Activity {
    /// Per process, (compute, I/O) seconds in each time bin.
    pub busy: HashMap<ProcessKey, Vec<(f64, f64)>>,
    /// Bytes moved per (directory, process).
    pub bytes: HashMap<(String, ProcessKey), u64>,
    /// The width of a time bin in microseconds.
    pub bin_us: f64,
    /// What time 0 is, as the axes say it: `the first event` (a trace), `the job's start` (a
    /// Darshan log's DXT segments).
    pub origin: &'static str,
    /// Processes are ranks (a Darshan log's `pid` is the rank): labelled `rank R`.
    pub by_rank: bool,
}

/// What one report shows.
pub struct Page<'p> {
    /// The inputs, as the title names them.
    pub described: &'p str,
    /// When some files were still being written, what the page says about it.
    pub still_written: Option<&'p str>,
    /// Trace files read.
    pub file_count: usize,
    /// The analysis (time-range and file views).
    pub analysis: &'p Analysis,
    /// The Darshan records derived from the traces.
    pub derived: &'p ioscout_evidence::Derived,
    /// The findings listed.
    pub findings: &'p [ioscout_diagnose::Finding],
    /// The metric to optimise and why.
    pub metric: &'p ioscout_diagnose::MetricChoice,
    /// The checklist and proposals.
    pub advice: &'p ioscout_advise::Advice,
    /// The timeline and heatmap data.
    pub activity: Activity,
    /// Most processes shown in the timeline and the heatmap.
    pub max_processes: usize,
    /// What the drill-down draws from (zoomable time charts, offsets, rank 0, call tree).
    pub drill: Option<crate::drill::Drill<'p>>,
}

/// The page of `page`, and the number of charts drawn.
pub fn page(page: Page<'_>) -> (String, usize) {
    let Page {
        described,
        still_written,
        file_count,
        analysis,
        derived,
        findings,
        metric,
        advice,
        activity,
        max_processes,
        drill,
    } = page;
    let mut html = String::with_capacity(1 << 18);
    let title = format!("ioscout report: {described}");
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>{}</title><style>{STYLE}</style></head><body>\n<h1>I/O report</h1><p class=\"meta\">{} &middot; preset {} &middot; {} &middot; job {:.3} s &middot; {} events &middot; {} processes &middot; metric to optimise: <strong>{}</strong> ({})</p>\n",
        escape(&title),
        escape(described),
        escape(analysis.preset.name.name()),
        crate::text::count_of(file_count as u64, "file", "files"),
        analysis.raw.job_time_s,
        thousands(analysis.raw.trace_event_count),
        thousands(analysis.raw.unique_process_count),
        escape(metric.metric.name()),
        escape(&metric.reason)
    );
    if let Some(note) = still_written {
        let _ = writeln!(
            html,
            "<p class=\"meta still-written\"><strong>Still being written.</strong> {}</p>",
            escape(note)
        );
    }
    summary(&mut html, analysis);
    if let Some(drill) = &drill {
        crate::drill::controls(&mut html, drill);
    }
    let mut charts = timeline_section(&mut html, &activity, max_processes);
    charts += over_time_section(&mut html, analysis, drill.as_ref());
    if let Some(drill) = &drill {
        charts += crate::drill::section(&mut html, drill);
    }
    charts += bytes_section(&mut html, activity.bytes, max_processes, activity.by_rank);
    charts += sizes_section(&mut html, analysis);
    evidence_section(&mut html, derived);
    advice_and_end(&mut html, findings, advice);
    (html, charts)
}

/// The findings, the proposals and the page's end: the file system, the version, the layout
/// check's script (every page draws them the same way).
pub(crate) fn advice_and_end(
    html: &mut String,
    findings: &[ioscout_diagnose::Finding],
    advice: &ioscout_advise::Advice,
) {
    findings_section(html, findings);
    proposals_section(html, advice);
    let _ = write!(
        html,
        "<p class=\"meta\">File system: {} ({}). Generated by ioscout {}.</p>\n<pre id=\"layout\" hidden></pre>\n<script>{LAYOUT_SCRIPT}</script>\n</body></html>\n",
        escape(advice.filesystem.fs_type.name()),
        escape(advice.filesystem.source),
        env!("CARGO_PKG_VERSION")
    );
}

pub(crate) fn table(out: &mut String, headers: &[&str], rows: &[Vec<String>]) {
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

pub(crate) const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2rem auto;max-width:980px;color:#222;line-height:1.4}h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ddd}table{border-collapse:collapse;font-size:.85rem;margin:.5rem 0}td,th{border-bottom:1px solid #eee;padding:.2rem .6rem;text-align:left;vertical-align:top}th{background:#f6f6f6}td:nth-child(n+2){font-variant-numeric:tabular-nums}.meta{color:#666}.chart{margin:1rem 0}.chart svg{max-width:100%;height:auto;background:#fff}figcaption{font-size:.9rem;margin-bottom:.3rem}.plot{fill:#fafafa;stroke:#ccc}.grid{stroke:#e6e6e6}.tick{font-size:11px;fill:#555}.axis{font-size:12px;fill:#333}.legend{font-size:12px;fill:#333}.label-critical{color:#b00020;font-weight:600}.label-high{color:#d55e00;font-weight:600}.label-medium{color:#a07000}.label-low{color:#4d6b8a}.controls{position:sticky;top:0;background:#fff;padding:.3rem 0;z-index:1;font-size:.85rem}.controls select{max-width:22rem}svg.zoomable{cursor:grab}g.frame{cursor:pointer}";

/// The page's own check of what it drew, written into `#layout` for the headless-browser test
/// (`tests/report/check.py`): each chart's place on the page; legends that run past their
/// picture; labels of one chart whose boxes overlap (row and column labels); timeline rows with
/// no visible mark; charts whose data marks (line points, dots, bars, offset marks) leave the
/// plot, or whose highest mark stays under 45 % of the axis (an axis scaled for other data;
/// marks within 3.5 px of the base are data at 0, as reads all at offset 0, drawn 4 px tall).
const LAYOUT_SCRIPT: &str = "(function(){function box(e){var r=e.getBoundingClientRect();return {left:r.left,right:r.right,top:r.top,bottom:r.bottom,width:r.width,height:r.height};}\
function meet(a,b){return a.left<b.right-0.5&&b.left<a.right-0.5&&a.top<b.bottom-0.5&&b.top<a.bottom-0.5;}\
var charts=[],clipped=[],overlaps=[],empty=[];\
document.querySelectorAll('figure.chart svg').forEach(function(s){var r=box(s);charts.push({id:s.parentNode.id,x:r.left+window.scrollX,y:r.top+window.scrollY,width:r.width,height:r.height,y_ticks:Array.from(s.querySelectorAll('text.tick[text-anchor=end]:not(.row-label)')).map(function(t){return t.textContent;})});\
var w=s.viewBox.baseVal.width,h=s.viewBox.baseVal.height;s.querySelectorAll('text.legend').forEach(function(t){var b=t.getBBox();if(b.x<0||b.x+b.width>w+0.5||b.y<0||b.y+b.height>h+0.5){clipped.push(s.parentNode.id+': '+t.textContent);}});\
['row-label','col-label'].forEach(function(kind){var labels=Array.from(s.querySelectorAll('text.'+kind));for(var i=0;i<labels.length;i++){for(var j=i+1;j<labels.length;j++){if(meet(box(labels[i]),box(labels[j]))){overlaps.push(s.parentNode.id+': '+labels[i].textContent+' / '+labels[j].textContent);}}}});\
s.querySelectorAll('g.row').forEach(function(g){var seen=Array.from(g.querySelectorAll('rect')).some(function(rect){var b=box(rect);return b.height>=1&&b.width>=0.5;});if(!seen){empty.push(s.parentNode.id+': '+g.getAttribute('data-label'));}});});\
var axes=[];document.querySelectorAll('figure.chart svg').forEach(function(s){var p=s.querySelector('rect.plot');if(!p){return;}\
var px=+p.getAttribute('x'),py=+p.getAttribute('y'),pw=+p.getAttribute('width'),ph=+p.getAttribute('height'),base=py+ph,marks=[];\
s.querySelectorAll('polyline').forEach(function(l){(l.getAttribute('points')||'').trim().split(/\\s+/).forEach(function(pair){var v=pair.split(',');if(v.length===2){marks.push([+v[0],+v[1],+v[1]]);}});});\
s.querySelectorAll('circle').forEach(function(c){marks.push([+c.getAttribute('cx'),+c.getAttribute('cy'),+c.getAttribute('cy')]);});\
s.querySelectorAll('rect').forEach(function(r){if(r.closest('g.row')||!(r.classList.contains('point')||r.querySelector('title'))){return;}var y=+r.getAttribute('y');marks.push([+r.getAttribute('x'),y,y+(+r.getAttribute('height'))]);});\
if(!marks.length){return;}var id=s.parentNode.id,out=marks.filter(function(m){return m[0]<px-4||m[0]>px+pw+4||m[1]<py-4||m[2]>base+4||isNaN(m[0]+m[1]+m[2]);});\
if(out.length){axes.push(id+': '+out.length+' of '+marks.length+' marks outside the plot');return;}\
var high=Math.min.apply(null,marks.map(function(m){return m[1];}));if(high<base-3.5&&base-high<0.45*ph-4){axes.push(id+': the data reach '+((base-high)/ph*100).toFixed(1)+' % of the axis');}});\
document.getElementById('layout').textContent=JSON.stringify({charts:charts,clipped_legends:clipped,overlapping_labels:overlaps,rows_without_marks:empty,axes_off:axes});})();";

/// How many hosts `processes` run on.
pub fn hosts_of<'k>(processes: impl Iterator<Item = &'k ProcessKey>) -> usize {
    processes.map(|key| key.host.as_str()).collect::<std::collections::BTreeSet<_>>().len()
}

/// How a chart names a process: `pid P`, or `pid P on H` when the trace's processes run on
/// more than one host.
fn process_label(key: &ProcessKey, many_hosts: bool, by_rank: bool) -> String {
    let word = if by_rank { "rank" } else { "pid" };
    if many_hosts { format!("{word} {} on {}", key.pid, key.host) } else { format!("{word} {}", key.pid) }
}

/// The timeline of the busiest processes; the charts drawn.
pub(crate) fn timeline_section(html: &mut String, activity: &Activity, max_processes: usize) -> usize {
    let Activity { busy, bin_us, origin, by_rank, .. } = activity;
    let bin_us = *bin_us;
    let mut charts = 0;
    html.push_str("<h2>Timeline</h2>\n");
    let many_hosts = hosts_of(busy.keys()) > 1;
    let mut processes: Vec<(&ProcessKey, f64)> =
        busy.iter().map(|(key, cells)| (key, cells.iter().map(|(c, i)| c + i).sum())).collect();
    processes.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    processes.truncate(max_processes);
    processes.sort_by_key(|(key, _)| *key);
    let bin_seconds = bin_us / 1e6;
    let rows: Vec<(String, Vec<(f64, f64)>)> = processes
        .iter()
        .map(|(key, _)| {
            let cells = busy
                .get(*key)
                .map(|cells| {
                    cells.iter().map(|(compute, io)| (compute / bin_seconds, io / bin_seconds)).collect()
                })
                .unwrap_or_default();
            (process_label(key, many_hosts, *by_rank), cells)
        })
        .collect();
    if !rows.is_empty() {
        html.push_str(&svg::timeline(
            "chart-timeline",
            if *by_rank {
                "I/O per rank over time (DXT POSIX segments)"
            } else {
                "Compute and I/O per process over time"
            },
            &format!(
                "(the {} busiest {}; bins of {:.3} s)",
                rows.len(),
                if *by_rank { "ranks" } else { "processes" },
                bin_seconds
            ),
            &rows,
            bin_seconds,
            origin,
            !*by_rank,
        ));
        charts += 1;
    }
    charts
}

/// POSIX bandwidth and operations over time; the charts drawn. With the drill-down's bins the
/// charts are drawn from them (joined to at most [`OVER_TIME_COLUMNS`]), so the page without its
/// script shows what the script draws for the whole run; without them, from the analysis' time
/// ranges (its time granularity).
fn over_time_section(
    html: &mut String,
    analysis: &Analysis,
    drill: Option<&crate::drill::Drill<'_>>,
) -> usize {
    let over = drill.map_or_else(|| over_time(analysis), over_time_of_bins);
    over_time_charts(html, over, drill.map_or("the first event", |drill| drill.origin))
}

/// The bandwidth and operations charts of `over` (none without it), time since `origin`; the
/// charts drawn.
pub(crate) fn over_time_charts(html: &mut String, over: Option<OverTime>, origin: &str) -> usize {
    let Some(over) = over else { return 0 };
    let step_text = if over.joined > 1 {
        format!(
            "columns of {:.3} s, {} bins of {:.4} s joined",
            over.step_s,
            over.joined,
            over.step_s / over.joined as f64
        )
    } else {
        format!("bins of {:.3} s", over.step_s)
    };
    html.push_str(&svg::line_chart(
        "chart-bandwidth",
        "POSIX bandwidth over time",
        &format!("(bytes moved per second of wall time; {step_text})"),
        &format!("time since {origin} (s)"),
        "MiB/s",
        over.step_s,
        &series(&over.bandwidth),
    ));
    html.push_str(&svg::line_chart(
        "chart-operations",
        "POSIX operations over time",
        &format!("(calls per second of wall time; {step_text})"),
        &format!("time since {origin} (s)"),
        "operations/s",
        over.step_s,
        &series(&over.operations),
    ));
    2
}

/// Most columns of the bandwidth and operations charts drawn without the script.
const OVER_TIME_COLUMNS: usize = 200;

/// POSIX rates per column over time: (label, colour, values) for each series.
pub(crate) struct OverTime {
    /// Seconds a column spans.
    step_s: f64,
    /// Bins joined into a column (1 when the columns are the bins).
    joined: usize,
    /// MiB per second.
    bandwidth: Vec<(&'static str, &'static str, Vec<f64>)>,
    /// Calls per second.
    operations: Vec<(&'static str, &'static str, Vec<f64>)>,
}

impl OverTime {
    fn any_calls(self) -> Option<OverTime> {
        self.operations.iter().any(|(_, _, values)| values.iter().any(|value| *value > 0.0)).then_some(self)
    }
}

/// The drill-down's exact per-bin sums, joined to at most [`OVER_TIME_COLUMNS`] columns.
pub(crate) fn over_time_of_bins(drill: &crate::drill::Drill<'_>) -> Option<OverTime> {
    let bins = &drill.total;
    let count = bins.read_ops.len();
    if count == 0 || drill.bin_s <= 0.0 {
        return None;
    }
    let joined = count.div_ceil(OVER_TIME_COLUMNS);
    let step_s = drill.bin_s * joined as f64;
    let rate = |values: &[f64], scale: f64| -> Vec<f64> {
        values.chunks(joined).map(|chunk| chunk.iter().sum::<f64>() / step_s / scale).collect()
    };
    OverTime {
        step_s,
        joined,
        bandwidth: vec![
            ("read MiB/s", svg::COMPUTE, rate(&bins.read_bytes, MIB)),
            ("write MiB/s", svg::IO, rate(&bins.write_bytes, MIB)),
        ],
        operations: vec![
            ("reads/s", svg::COMPUTE, rate(&bins.read_ops, 1.0)),
            ("writes/s", svg::IO, rate(&bins.write_ops, 1.0)),
            ("metadata/s", svg::SECOND, rate(&bins.metadata_ops, 1.0)),
        ],
    }
    .any_calls()
}

/// The chart series of `entries`.
fn series<'a>(entries: &'a [(&'static str, &'static str, Vec<f64>)]) -> Vec<Series<'a>> {
    entries.iter().map(|(label, colour, values)| Series { label, colour, values }).collect()
}

/// Where the bytes go: directories by process, system paths left out and counted; the charts
/// drawn.
pub(crate) fn bytes_section(
    html: &mut String,
    mut bytes: HashMap<(String, ProcessKey), u64>,
    max_processes: usize,
    by_rank: bool,
) -> usize {
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
        let mut processes: Vec<ProcessKey> = bytes.keys().map(|(_, key)| key.clone()).collect();
        processes.sort_unstable();
        processes.dedup();
        let many_hosts = hosts_of(processes.iter()) > 1;
        processes.truncate(max_processes);
        let values: Vec<Vec<f64>> = top
            .iter()
            .map(|(directory, _)| {
                processes
                    .iter()
                    .map(|key| bytes.get(&(directory.clone(), key.clone())).copied().unwrap_or(0) as f64)
                    .collect()
            })
            .collect();
        let row_labels: Vec<String> = top.iter().map(|(directory, _)| directory.clone()).collect();
        let column_labels: Vec<String> =
            processes.iter().map(|key| process_label(key, many_hosts, by_rank)).collect();
        html.push_str(&svg::heatmap(
            "chart-heatmap",
            if by_rank {
                "Bytes read and written, by directory and rank"
            } else {
                "Bytes read and written, by directory and process"
            },
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
                    crate::text::why_of(finding),
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

/// POSIX rates per time range of the analysis (its time granularity; reads, writes and the
/// other calls apart).
fn over_time(analysis: &Analysis) -> Option<OverTime> {
    let view = analysis.view(ViewType::TimeRange)?;
    let step = analysis.raw.time_granularity_s;
    let last = view.rows.iter().map(|row| row.order).max()?;
    let length = usize::try_from(last + 1).ok()?.min(100_000);
    let mut bandwidth = vec![0.0; length];
    let mut operations = vec![0.0; length];
    for row in view.rows.iter().filter(|row| row.layer == "posix" && row.derived.is_none()) {
        let Ok(index) = usize::try_from(row.order) else { continue };
        if index < length {
            bandwidth[index] += row.metrics.size_sum.unwrap_or(0) as f64 / step / MIB;
            operations[index] += row.metrics.count_sum as f64 / step;
        }
    }
    OverTime {
        step_s: step,
        joined: 1,
        bandwidth: vec![("MiB/s", svg::IO, bandwidth)],
        operations: vec![("operations/s", svg::SECOND, operations)],
    }
    .any_calls()
}
