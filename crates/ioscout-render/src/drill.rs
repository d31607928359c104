//! The report's drill-down: the data its script draws from (embedded in the page as JSON, so
//! the file stays self-contained) and the section that holds the views. The script
//! ([`SCRIPT`], `drill.js`) redraws every time chart of the page (the timeline, bandwidth and
//! operations over time, rank 0 against the others, offsets over time) for one shared time
//! window that wheel, drag and the buttons zoom and pan, filtered to one process when chosen; it
//! draws the flame graph of the call tree, clickable to zoom. Without a script the server-side
//! charts of [`crate::html`] stay as they are.
//!
//! What is embedded, and how it is bounded:
//! - per time bin ([`Bins`], a fixed number over the job), exact sums from every event, for all
//!   processes together and for each process shown;
//! - the sample of POSIX reads and writes of [`ioscout_evidence::sample`] (uniform by hash, plus
//!   the slowest), with the slowest 5 % marked;
//! - the call tree of [`ioscout_analysis::calltree`], exact, at most [`MOST_NODES`] nodes.

use std::fmt::Write as _;

use ioscout_analysis::calltree::CallTree;
use ioscout_evidence::sample::AccessSample;

use crate::svg::escape;

/// The drill-down's script.
pub const SCRIPT: &str = include_str!("drill.js");

/// Most call-tree nodes embedded (those with the most inclusive time; the rest are counted).
pub const MOST_NODES: usize = 5_000;

/// Per time bin sums of one process or of all.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bins {
    /// Seconds of compute.
    pub compute_s: Vec<f64>,
    /// Seconds of I/O (POSIX and STDIO calls).
    pub io_s: Vec<f64>,
    /// POSIX reads.
    pub read_ops: Vec<f64>,
    /// POSIX writes.
    pub write_ops: Vec<f64>,
    /// Other POSIX calls (metadata).
    pub metadata_ops: Vec<f64>,
    /// Bytes read by POSIX reads.
    pub read_bytes: Vec<f64>,
    /// Bytes written by POSIX writes.
    pub write_bytes: Vec<f64>,
}

impl Bins {
    /// `count` empty bins.
    pub fn new(count: usize) -> Bins {
        Bins {
            compute_s: vec![0.0; count],
            io_s: vec![0.0; count],
            read_ops: vec![0.0; count],
            write_ops: vec![0.0; count],
            metadata_ops: vec![0.0; count],
            read_bytes: vec![0.0; count],
            write_bytes: vec![0.0; count],
        }
    }

    fn columns(&self) -> [(&'static str, &Vec<f64>, usize); 7] {
        [
            ("compute", &self.compute_s, 6),
            ("io", &self.io_s, 6),
            ("read", &self.read_ops, 0),
            ("write", &self.write_ops, 0),
            ("metadata", &self.metadata_ops, 0),
            ("read_bytes", &self.read_bytes, 0),
            ("write_bytes", &self.write_bytes, 0),
        ]
    }

    fn columns_mut(&mut self) -> [&mut Vec<f64>; 7] {
        [
            &mut self.compute_s,
            &mut self.io_s,
            &mut self.read_ops,
            &mut self.write_ops,
            &mut self.metadata_ops,
            &mut self.read_bytes,
            &mut self.write_bytes,
        ]
    }

    /// Adds `other` bin by bin.
    pub fn add(&mut self, other: &Bins) {
        for (mine, theirs) in self.columns_mut().into_iter().zip(other.columns()) {
            for (target, value) in mine.iter_mut().zip(theirs.1) {
                *target += value;
            }
        }
    }

    /// Seconds of I/O in all bins.
    pub fn io_total_s(&self) -> f64 {
        self.io_s.iter().sum()
    }
}

/// One process shown.
#[derive(Clone, Debug, PartialEq)]
pub struct Process {
    /// Its `pid`.
    pub pid: i64,
    /// Its host, when the processes shown run on more than one (a pid alone does not name a
    /// process then).
    pub host: Option<String>,
    /// Its rank, when known.
    pub rank: Option<i64>,
    /// Its sums.
    pub bins: Bins,
}

impl Process {
    /// How the page names it: `rank R (pid P)`, or `pid P` without a rank; `pid P on H` when
    /// the host is named; `rank R` (`on H`) alone when its `pid` is its rank (`by_rank`: a
    /// Darshan log's DXT segments).
    pub fn label(&self, by_rank: bool) -> String {
        if by_rank {
            return match &self.host {
                Some(host) => format!("rank {} on {host}", self.pid),
                None => format!("rank {}", self.pid),
            };
        }
        let pid = match &self.host {
            Some(host) => format!("pid {} on {host}", self.pid),
            None => format!("pid {}", self.pid),
        };
        match self.rank {
            Some(rank) => format!("rank {rank} ({pid})"),
            None => pid,
        }
    }
}

/// Rank 0's I/O against the other processes'.
#[derive(Clone, Debug, PartialEq)]
pub struct RankZero {
    /// Rank 0's `pid`.
    pub pid: i64,
    /// Rank 0's seconds of I/O in each bin (a sum, as in [`Bins`]: the script divides by the
    /// width it draws, once).
    pub io_s: Vec<f64>,
    /// The mean over the other processes of their seconds of I/O in each bin.
    pub others_mean_s: Vec<f64>,
    /// The most seconds of I/O of any other process in each bin.
    pub others_most_s: Vec<f64>,
    /// Other processes.
    pub others: usize,
    /// Totals as (what, rank 0, median of the others, most of the others).
    pub totals: Vec<(&'static str, f64, f64, f64)>,
}

/// What the drill-down draws from.
pub struct Drill<'d> {
    /// The job's length from the origin, seconds.
    pub job_s: f64,
    /// What time 0 is, as the axes say it: `the first event` (a trace), `the job's start` (a
    /// Darshan log).
    pub origin: &'static str,
    /// The processes are ranks of a Darshan log's DXT segments (no compute is known): the
    /// captions say ranks, the timeline has no compute.
    pub by_rank: bool,
    /// The width of a bin, seconds.
    pub bin_s: f64,
    /// The first event's time (µs), the origin of every time drawn.
    pub first_ts_us: i64,
    /// All processes together.
    pub total: Bins,
    /// Processes traced.
    pub process_count: usize,
    /// The processes shown (the busiest, rank 0 among them), by `pid`.
    pub processes: Vec<Process>,
    /// Rank 0 against the others (with two processes or more).
    pub rank_zero: Option<RankZero>,
    /// Why there is no rank-0 chart, said on the page (when `rank_zero` is `None`).
    pub rank_zero_absent: Option<String>,
    /// The sample of reads and writes.
    pub accesses: Option<&'d AccessSample>,
    /// The call tree of the nested events.
    pub tree: &'d CallTree,
    /// The data as [`data_json`] writes it, when written ahead (the report writes it on a thread
    /// of its own while the page's findings are made); written by [`section`] when `None`.
    pub data: Option<String>,
}

/// Writes `values` as a JSON array, `decimals` places, zeros short.
fn numbers(out: &mut String, values: impl Iterator<Item = f64>, decimals: usize) {
    out.push('[');
    // One buffer for every number's digits.
    let mut digits = String::new();
    for (index, value) in values.enumerate() {
        if index > 0 {
            out.push(',');
        }
        number(out, &mut digits, value, decimals);
    }
    out.push(']');
}

/// Writes `value` with `decimals` places, zeros short (`digits` is scratch space).
fn number(out: &mut String, digits: &mut String, value: f64, decimals: usize) {
    if value == 0.0 || !value.is_finite() {
        out.push('0');
    } else if decimals == 0 {
        push_integer(out, value.round() as i64);
    } else {
        digits.clear();
        let _ = write!(digits, "{value:.decimals$}");
        let text = digits.trim_end_matches('0').trim_end_matches('.');
        out.push_str(if text.is_empty() || text == "-" { "0" } else { text });
    }
}

/// Writes `value` as `Display` writes it, without the formatting machinery (the drill-down's
/// data holds some hundred thousand integers).
fn push_integer(out: &mut String, value: i64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = value.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if value < 0 {
        out.push('-');
    }
    out.extend(digits[at..].iter().map(|&digit| char::from(digit)));
}

/// Microseconds written as seconds, exactly as [`numbers`] writes `micros / 1e6` with six
/// places. A whole number of microseconds below 10^15 is written from its digits: its quotient
/// by 10^6 is within half a unit in the last place of it, less than half a millionth, so six
/// places round it back to those digits. Any other value goes through [`number`].
fn seconds_of_micros(out: &mut String, values: impl Iterator<Item = f64>) {
    out.push('[');
    let mut digits = String::new();
    for (index, micros) in values.enumerate() {
        if index > 0 {
            out.push(',');
        }
        if micros.fract() != 0.0 || micros.abs() >= 1e15 {
            number(out, &mut digits, micros / 1e6, 6);
            continue;
        }
        let whole = micros as i64;
        if whole == 0 {
            out.push('0');
            continue;
        }
        if whole < 0 {
            out.push('-');
        }
        let magnitude = whole.unsigned_abs();
        push_integer(out, (magnitude / 1_000_000) as i64);
        let mut fraction = magnitude % 1_000_000;
        if fraction > 0 {
            let mut places = [b'0'; 6];
            for place in places.iter_mut().rev() {
                *place = b'0' + (fraction % 10) as u8;
                fraction /= 10;
            }
            let kept = places.iter().rposition(|&place| place != b'0').map_or(0, |last| last + 1);
            out.push('.');
            out.extend(places[..kept].iter().map(|&place| char::from(place)));
        }
    }
    out.push(']');
}

fn bins_json(out: &mut String, bins: &Bins) {
    out.push('{');
    for (index, (name, values, decimals)) in bins.columns().into_iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        let _ = write!(out, "\"{name}\":");
        numbers(out, values.iter().copied(), decimals);
    }
    out.push('}');
}

fn string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".into())
}

/// The slowest share marked.
pub const SLOW_SHARE: f64 = 0.05;

/// The sampled calls to embed (uniform and slowest together, each once, by start) and the
/// duration (µs) from which a call is among the slowest 5 %.
fn points(sample: &AccessSample) -> (Vec<ioscout_evidence::sample::Access>, Option<f64>) {
    let mut all: Vec<_> = sample.uniform.iter().chain(&sample.slowest).copied().collect();
    all.sort_by_key(|access| (access.start_us, access.pid, access.offset, access.duration_us, access.file));
    all.dedup();
    (all, sample.duration_quantile_us(SLOW_SHARE))
}

/// The data of `drill` as JSON (with `</` escaped, to sit in a script element).
pub fn data_json(drill: &Drill<'_>) -> String {
    let mut out = String::with_capacity(1 << 16);
    let _ = write!(
        out,
        "{{\"job_s\":{},\"origin\":{},\"by_rank\":{},\"bin_s\":{},\"bins\":{},\"process_count\":{},\"total\":",
        drill.job_s,
        string(drill.origin),
        drill.by_rank,
        drill.bin_s,
        drill.total.io_s.len(),
        drill.process_count
    );
    bins_json(&mut out, &drill.total);
    out.push_str(",\"processes\":[");
    for (index, process) in drill.processes.iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        let label = process.label(drill.by_rank);
        let _ = write!(out, "{{\"pid\":{},\"label\":{},\"bins\":", process.pid, string(&label));
        bins_json(&mut out, &process.bins);
        out.push('}');
    }
    out.push(']');
    if let Some(zero) = &drill.rank_zero {
        let _ = write!(out, ",\"rank_zero\":{{\"pid\":{},\"others\":{},\"io\":", zero.pid, zero.others);
        numbers(&mut out, zero.io_s.iter().copied(), 6);
        out.push_str(",\"others_mean\":");
        numbers(&mut out, zero.others_mean_s.iter().copied(), 6);
        out.push_str(",\"others_most\":");
        numbers(&mut out, zero.others_most_s.iter().copied(), 6);
        out.push('}');
    }
    if let Some(sample) = drill.accesses {
        let (points, slow_us) = points(sample);
        let origin = drill.first_ts_us;
        let slow = |access: &ioscout_evidence::sample::Access| {
            slow_us.is_some_and(|threshold| access.duration_us as f64 >= threshold)
        };
        let _ = write!(
            out,
            ",\"accesses\":{{\"calls\":{},\"uniform\":{},\"slowest\":{},\"slow_s\":{},\"files\":[",
            sample.calls,
            sample.uniform.len(),
            sample.slowest.len(),
            slow_us.map_or(-1.0, |threshold| threshold / 1e6)
        );
        for (index, path) in sample.paths.iter().enumerate() {
            if index > 0 {
                out.push(',');
            }
            out.push_str(&string(path));
        }
        out.push_str("],\"t\":");
        seconds_of_micros(&mut out, points.iter().map(|access| (access.start_us - origin) as f64));
        out.push_str(",\"d\":");
        seconds_of_micros(&mut out, points.iter().map(|access| access.duration_us as f64));
        for (key, values) in [
            ("p", points.iter().map(|access| access.pid as f64).collect::<Vec<_>>()),
            ("f", points.iter().map(|access| f64::from(access.file)).collect()),
            ("o", points.iter().map(|access| access.offset as f64).collect()),
            ("b", points.iter().map(|access| access.bytes as f64).collect()),
            ("w", points.iter().map(|access| if access.read { 0.0 } else { 1.0 }).collect()),
            ("s", points.iter().map(|access| if slow(access) { 1.0 } else { 0.0 }).collect()),
        ] {
            let _ = write!(out, ",\"{key}\":");
            numbers(&mut out, values.into_iter(), 0);
        }
        out.push('}');
    }
    let (nodes, left_out) = kept_nodes(drill.tree);
    let _ = write!(
        out,
        ",\"tree\":{{\"events\":{},\"threads\":{},\"left_out\":{left_out},\"names\":[",
        drill.tree.events, drill.tree.threads
    );
    for (index, name) in drill.tree.names.iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        out.push_str(&string(name));
    }
    out.push_str("],\"n\":");
    numbers(&mut out, nodes.iter().map(|(_, node)| f64::from(node.name)), 0);
    out.push_str(",\"p\":");
    numbers(&mut out, nodes.iter().map(|(parent, _)| parent.map_or(-1.0, f64::from)), 0);
    out.push_str(",\"i\":");
    seconds_of_micros(&mut out, nodes.iter().map(|(_, node)| node.inclusive_us));
    out.push_str(",\"e\":");
    seconds_of_micros(&mut out, nodes.iter().map(|(_, node)| node.exclusive_us));
    out.push_str(",\"c\":");
    numbers(&mut out, nodes.iter().map(|(_, node)| node.count as f64), 0);
    out.push_str("}}");
    out.replace("</", "<\\/")
}

/// The nodes embedded (a parent before its children, parents renumbered) and how many were
/// left out: the [`MOST_NODES`] of most inclusive time, with their ancestors.
fn kept_nodes(tree: &CallTree) -> (Vec<(Option<u32>, &ioscout_analysis::calltree::CallNode)>, usize) {
    let mut order: Vec<u32> = (0..tree.nodes.len() as u32).collect();
    order.sort_by(|a, b| {
        tree.nodes[*b as usize].inclusive_us.total_cmp(&tree.nodes[*a as usize].inclusive_us).then(a.cmp(b))
    });
    let mut keep = vec![false; tree.nodes.len()];
    for node in order.into_iter().take(MOST_NODES) {
        // An ancestor has at least its child's inclusive time, so it is kept too.
        let mut at = Some(node);
        while let Some(index) = at {
            keep[index as usize] = true;
            at = tree.nodes[index as usize].parent;
        }
    }
    let mut number = vec![None; tree.nodes.len()];
    let mut kept = Vec::new();
    for (index, node) in tree.nodes.iter().enumerate() {
        if keep[index] {
            number[index] = Some(kept.len() as u32);
            kept.push((node.parent.and_then(|parent| number[parent as usize]), node));
        }
    }
    let left_out = tree.nodes.len() - kept.len();
    (kept, left_out)
}

/// The call tree as table rows, depth first (children by inclusive time), at most `most`:
/// (depth, name, inclusive s, exclusive s, count).
pub fn tree_rows(tree: &CallTree, most: usize) -> Vec<(usize, String, f64, f64, u64)> {
    let mut rows = Vec::new();
    let mut stack: Vec<(usize, u32)> = tree.roots().into_iter().rev().map(|node| (0, node)).collect();
    while let Some((depth, node)) = stack.pop() {
        if rows.len() >= most {
            break;
        }
        let entry = &tree.nodes[node as usize];
        rows.push((
            depth,
            tree.name_of(node).to_string(),
            entry.inclusive_us / 1e6,
            entry.exclusive_us / 1e6,
            entry.count,
        ));
        for child in tree.children_of(Some(node)).into_iter().rev() {
            stack.push((depth + 1, child));
        }
    }
    rows
}

/// The drill-down's controls and method, above the time charts.
pub fn controls(html: &mut String, drill: &Drill<'_>) {
    html.push_str("<h2 id=\"drill\">Drill down</h2>\n");
    html.push_str("<div id=\"drill-controls\" class=\"controls\"><label>Process <select id=\"drill-process\"><option value=\"\">all processes</option>");
    for (index, process) in drill.processes.iter().enumerate() {
        let label = process.label(drill.by_rank);
        let _ = write!(html, "<option value=\"{index}\">{}</option>", escape(&label));
    }
    html.push_str(
        "</select></label> <label>File <select id=\"drill-file\"><option value=\"\">all files</option>",
    );
    if let Some(sample) = drill.accesses {
        let mut by_calls = vec![0u64; sample.paths.len()];
        for access in sample.uniform.iter().chain(&sample.slowest) {
            if let Some(count) = by_calls.get_mut(access.file as usize) {
                *count += 1;
            }
        }
        let mut files: Vec<usize> = (0..sample.paths.len()).collect();
        files.sort_by_key(|file| (std::cmp::Reverse(by_calls[*file]), *file));
        for file in files.into_iter().take(200) {
            let _ = write!(html, "<option value=\"{file}\">{}</option>", escape(&sample.paths[file]));
        }
    }
    html.push_str("</select></label> <button type=\"button\" id=\"drill-in\">zoom in</button> <button type=\"button\" id=\"drill-out\">zoom out</button> <button type=\"button\" id=\"drill-reset\">whole run</button> <span id=\"drill-window\" class=\"meta\"></span></div>\n");
    let _ = write!(
        html,
        "<p class=\"meta\">Every time chart of this page follows one time window: scroll over a chart to zoom, drag to pan, double-click or <em>whole run</em> to reset; the process filter applies to the timeline, bandwidth, operations and offsets. Time charts sum every event exactly in {} bins of {:.4} s (zoomed in, bins are joined to fit the width, never split).",
        drill.total.io_s.len(),
        drill.bin_s
    );
    if let Some(sample) = drill.accesses {
        let (points, slow_us) = points(sample);
        let _ = write!(
            html,
            " Offsets: {} of {} POSIX reads and writes are drawn, a uniform sample (the {} calls of least hash) and the {} slowest; the slowest 5 % of all calls (at least {}) are marked red.",
            crate::text::thousands(points.len() as u64),
            crate::text::thousands(sample.calls),
            crate::text::thousands(sample.uniform.len() as u64),
            crate::text::thousands(sample.slowest.len() as u64),
            slow_us.map_or_else(|| "-".into(), |threshold| format!("{:.3} ms", threshold / 1e3))
        );
    }
    if drill.tree.nodes.is_empty() {
        html.push_str("</p>\n");
    } else {
        let (_, left_out) = kept_nodes(drill.tree);
        let _ = writeln!(
            html,
            " Call tree: all {} events of {} threads, nested by time per thread and merged by path{}.</p>",
            crate::text::thousands(drill.tree.events),
            crate::text::thousands(drill.tree.threads),
            if left_out > 0 {
                format!(" ({left_out} nodes of least time left out of the flame graph)")
            } else {
                String::new()
            }
        );
    }
    html.push_str(
        "<noscript><p class=\"meta\">The drill-down views need the page's script.</p></noscript>\n",
    );
}

/// The drill-down's own views (drawn by the script), rank 0's totals and the call tree table;
/// then the data and the script. Returns the figures placed.
pub fn section(html: &mut String, drill: &Drill<'_>) -> usize {
    let mut figures = 0;
    html.push_str(if drill.tree.nodes.is_empty() {
        "<h2>Offsets and rank 0</h2>\n"
    } else {
        "<h2>Offsets, rank 0 and the call tree</h2>\n"
    });
    if drill.accesses.is_some_and(|sample| sample.calls > 0) {
        html.push_str("<figure class=\"chart\" id=\"chart-offsets\"><figcaption><strong>Offsets over time</strong> (each POSIX read and write drawn at its start and offset; slowest 5 % in red)</figcaption></figure>\n");
        figures += 1;
    }
    if let (None, Some(reason)) = (&drill.rank_zero, &drill.rank_zero_absent) {
        let _ = writeln!(html, "<p class=\"meta\">No rank-0 chart: {}.</p>", crate::svg::escape(reason));
    }
    if let Some(zero) = &drill.rank_zero {
        html.push_str("<figure class=\"chart\" id=\"chart-rank-zero\"><figcaption><strong>Rank 0 against the others</strong> (seconds of I/O per second in each bin, its threads summed, so above 1 when calls overlap: rank 0 against the mean and the most of the other processes)</figcaption></figure>\n");
        figures += 1;
        let rows: Vec<Vec<String>> = zero
            .totals
            .iter()
            .map(|(what, rank0, median, most)| {
                vec![
                    (*what).to_string(),
                    crate::svg::short(*rank0),
                    crate::svg::short(*median),
                    crate::svg::short(*most),
                    if *median > 0.0 { format!("{:.2}x", rank0 / median) } else { "-".into() },
                ]
            })
            .collect();
        crate::html::table(
            html,
            &[
                "Rank 0 against the others",
                "Rank 0",
                "Median of the others",
                "Most of the others",
                "Rank 0 / median",
            ],
            &rows,
        );
    }
    if !drill.tree.nodes.is_empty() {
        html.push_str("<figure class=\"chart\" id=\"chart-flame\"><figcaption><strong>Flame graph of the nested events</strong> (width is inclusive time summed over threads; click a frame to zoom into it, click the top bar to go back)</figcaption></figure>\n");
        figures += 1;
        let rows: Vec<Vec<String>> = tree_rows(drill.tree, 60)
            .into_iter()
            .map(|(depth, name, inclusive, exclusive, count)| {
                vec![
                    format!("{}{}", "\u{a0}\u{a0}".repeat(depth), name),
                    format!("{inclusive:.3}"),
                    format!("{exclusive:.3}"),
                    crate::text::thousands(count),
                ]
            })
            .collect();
        html.push_str("<h3>Call tree (first 60 lines, most inclusive time first)</h3>\n");
        crate::html::table(html, &["Event", "Inclusive (s)", "Exclusive (s)", "Count"], &rows);
    }
    let data = match &drill.data {
        Some(data) => std::borrow::Cow::Borrowed(data.as_str()),
        None => std::borrow::Cow::Owned(data_json(drill)),
    };
    let _ = writeln!(
        html,
        "<script type=\"application/json\" id=\"drill-data\">{data}</script>\n<pre id=\"drill-check\" hidden></pre>\n<script>{SCRIPT}</script>"
    );
    figures
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn through_numbers(values: &[f64], decimals: usize) -> String {
        let mut out = String::new();
        numbers(&mut out, values.iter().copied(), decimals);
        out
    }

    #[test]
    fn integers_are_written_as_display_writes_them() {
        for value in [0, 1, -1, 9, 10, -10, 1_234_567, i64::MAX, i64::MIN, i64::MIN + 1] {
            let mut out = String::new();
            push_integer(&mut out, value);
            assert_eq!(out, value.to_string());
        }
    }

    #[test]
    fn seconds_of_micros_at_the_edges_are_those_of_the_division() {
        let values = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            999_999.0,
            1_000_000.0,
            1_000_001.0,
            -2_500_000.0,
            0.5,
            1.5e-3,
            999_999_999_999_999.0,
            1e15,
            -1e15,
            1e18,
            f64::NAN,
            f64::INFINITY,
            123_456_789_012.0,
        ];
        for micros in values {
            let mut out = String::new();
            seconds_of_micros(&mut out, std::iter::once(micros));
            assert_eq!(out, through_numbers(&[micros / 1e6], 6), "{micros}");
        }
    }

    proptest! {
        #[test]
        fn integers_match_display(value in any::<i64>()) {
            let mut out = String::new();
            push_integer(&mut out, value);
            prop_assert_eq!(out, value.to_string());
        }

        /// Whole microseconds written from their digits are what six places of the quotient
        /// give, over the whole range that path takes; fractions go through the division.
        #[test]
        fn seconds_of_micros_match_the_division(
            whole in -999_999_999_999_999i64..1_000_000_000_000_000,
            small in -5_000_000i64..5_000_000,
            fraction in 0.0f64..1.0,
        ) {
            let values = [whole as f64, small as f64, small as f64 + fraction];
            let mut out = String::new();
            seconds_of_micros(&mut out, values.iter().copied());
            let divided: Vec<f64> = values.iter().map(|micros| micros / 1e6).collect();
            prop_assert_eq!(out, through_numbers(&divided, 6));
        }
    }
}
