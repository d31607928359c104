//! The HTML job-summary page of one Darshan log (`ioscout report LOG`): one self-contained file
//! (inline styles, server-side SVG, no network at view time) with the job, the I/O cost per
//! module (time summed over processes and the slowest rank's, labelled), the operation counts,
//! the access sizes with reads and writes apart, the most common access sizes, the files by
//! use, the LUSTRE striping, the DXT segments' views (bytes per rank over time with reads and
//! writes apart; the trace report's drill-down over the POSIX segments: a timeline per rank,
//! bandwidth and operations over time, offsets per file with the slowest 5 % marked, rank 0
//! against the others, one zoomable time window and a rank filter), the learned detector's
//! decision on each pattern with the cards of those found, the findings with their evidence and
//! the proposals. The service
//! gathers what a [`DarshanPage`] holds from the log; this module only draws it.

use std::fmt::Write as _;

use ioscout_darshan::breakdown::Breakdown;
use ioscout_darshan::job_summary::{JobSummary, SIZE_BINS};

use crate::html::{STYLE, advice_and_end, table};
use crate::svg::{self, escape};
use crate::text::{bytes, thousands};

/// The drill-down over a log's DXT POSIX segments: the trace report's time charts, offsets and
/// rank 0 against the others, with time from the job's start and processes named by rank.
pub struct DxtDrill<'p> {
    /// The timeline and bytes by directory and rank.
    pub activity: crate::html::Activity,
    /// The zoomable views' data.
    pub drill: crate::drill::Drill<'p>,
    /// Most ranks shown in the timeline and the bytes heatmap.
    pub max_processes: usize,
}

/// What one log's page shows.
pub struct DarshanPage<'p> {
    /// The log, as the title names it.
    pub path: &'p str,
    /// Darshan's format version.
    pub version: &'p str,
    /// The executable and its arguments as the job record holds them.
    pub exe: &'p str,
    /// The scheduler's job id.
    pub job_id: i64,
    /// Start time, seconds since the epoch (0: unknown).
    pub start_time: i64,
    /// The module breakdown.
    pub breakdown: &'p Breakdown,
    /// Access sizes, common accesses, files by use.
    pub summary: &'p JobSummary,
    /// The findings listed.
    pub findings: &'p [ioscout_diagnose::Finding],
    /// The checklist and proposals.
    pub advice: &'p ioscout_advise::Advice,
    /// The one file the page is restricted to (`--file`), when it is.
    pub file: Option<&'p str>,
    /// The drill-down of the DXT POSIX segments, when the log has any.
    pub dxt: Option<DxtDrill<'p>>,
    /// What the learned detector made of the job's counters.
    pub patterns: Option<&'p DetectedPatterns>,
}

/// The learned detector's view of one job: its decision on each of IOSage's patterns, the job's
/// feature values, and the card of every pattern it found.
pub struct DetectedPatterns {
    /// Where the model came from.
    pub model: String,
    /// The decision on every pattern the model knows.
    pub decisions: Vec<ioscout_detect::Decision>,
    /// The job's features, as the model read them.
    pub features: ioscout_detect::Features,
    /// The cards of the patterns found (`healthy` left out), in the decisions' order.
    pub cards: Vec<ioscout_detect::Card>,
}

/// Darshan's size bins ([`SIZE_BINS`]) as a reader says them.
const BIN_LABELS: [&str; SIZE_BINS.len()] = [
    "0-100 B",
    "100 B-1 KiB",
    "1-10 KiB",
    "10-100 KiB",
    "100 KiB-1 MiB",
    "1-4 MiB",
    "4-10 MiB",
    "10-100 MiB",
    "100 MiB-1 GiB",
    "1 GiB+",
];

const READ: &str = "#0072b2";
const WRITE: &str = "#d55e00";
const META: &str = "#009e73";

/// The page of `page`, and the number of charts drawn.
pub fn page(page: DarshanPage<'_>) -> (String, usize) {
    let DarshanPage {
        path,
        version,
        exe,
        job_id,
        start_time,
        breakdown,
        summary,
        findings,
        advice,
        file,
        dxt,
        patterns,
    } = page;
    let mut html = String::with_capacity(1 << 16);
    let at_least = if breakdown.job_estimated { "at least " } else { "" };
    let run_time = breakdown.run_time_s.map_or_else(
        || "unknown (neither the job record nor the records give one)".to_string(),
        |seconds| format!("{at_least}{} s", crate::text::seconds(seconds, 3)),
    );
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>{}</title><style>{STYLE}</style></head><body>\n<h1>Darshan job summary</h1><p class=\"meta\">{} &middot; Darshan {} &middot; {at_least}{} &middot; run time {}</p>\n",
        escape(&format!("ioscout report: {path}")),
        escape(path),
        escape(version),
        crate::text::count_of(breakdown.nprocs.max(0) as u64, "process", "processes"),
        escape(&run_time)
    );
    if let Some(file) = file {
        let _ = writeln!(
            html,
            "<p class=\"meta scope\"><strong>One file:</strong> the records of {} only (its module records, LUSTRE striping and DXT segments; HDF5 datasets and PnetCDF variables of it included). The job's figures (processes, run time) are the whole job's; the findings and proposals are about this file's I/O.</p>",
            escape(file)
        );
    }
    let mut job = vec![
        vec!["Executable".to_string(), exe.to_string()],
        vec!["Job id".to_string(), job_id.to_string()],
        vec!["Processes".to_string(), format!("{at_least}{}", thousands(breakdown.nprocs.max(0) as u64))],
        vec!["Run time".to_string(), run_time.clone()],
    ];
    if start_time > 0 {
        job.push(vec!["Start (seconds since the epoch)".to_string(), start_time.to_string()]);
    }
    let modules: Vec<&str> = breakdown.modules.iter().map(|line| line.module.as_str()).collect();
    job.push(vec!["Modules with records".to_string(), modules.join(", ")]);
    if breakdown.job_estimated {
        job.push(vec![
            "Job record".to_string(),
            "unreadable: processes and run time are lower bounds from the records, so shares of the run are upper bounds".to_string(),
        ]);
    }
    if !breakdown.unread_modules.is_empty() {
        job.push(vec!["Not read (region unreadable)".to_string(), breakdown.unread_modules.join(", ")]);
    }
    if !breakdown.damaged_modules.is_empty() {
        job.push(vec![
            "Partly read (damaged records dropped and counted)".to_string(),
            breakdown.damaged_modules.join(", "),
        ]);
    }
    html.push_str("<h2>Job</h2>\n");
    table(&mut html, &["Field", "Value"], &job);
    let mut charts = cost_section(&mut html, breakdown);
    charts += operations_section(&mut html, breakdown);
    charts += sizes_section(&mut html, summary);
    charts += heatmap_section(&mut html, summary);
    phases_section(&mut html, summary);
    if let Some(DxtDrill { activity, drill, max_processes }) = dxt {
        crate::drill::controls(&mut html, &drill);
        charts += crate::html::timeline_section(&mut html, &activity, max_processes);
        charts +=
            crate::html::over_time_charts(&mut html, crate::html::over_time_of_bins(&drill), drill.origin);
        charts += crate::drill::section(&mut html, &drill);
        charts += crate::html::bytes_section(&mut html, activity.bytes, max_processes, activity.by_rank);
    }
    common_section(&mut html, summary);
    files_section(&mut html, summary);
    if let Some(striping) = &breakdown.striping {
        let _ = writeln!(
            html,
            "<h2>LUSTRE striping</h2>\n<p>{}</p>",
            escape(&crate::darshan::striping_line(striping))
        );
        charts += ost_section(&mut html, summary);
    }
    if let Some(patterns) = patterns {
        patterns_section(&mut html, patterns);
    }
    advice_and_end(&mut html, findings, advice);
    (html, charts)
}

/// Features named beside each decision (those that moved its log-odds most).
const CONTRIBUTIONS_SHOWN: usize = 3;

/// The detector's decision on every pattern, then each found pattern's card with the job's
/// feature values beside the training runs' typical ones.
fn patterns_section(html: &mut String, patterns: &DetectedPatterns) {
    let _ = writeln!(
        html,
        "<h2>I/O patterns (learned detector)</h2>\n<p class=\"meta\">A classifier per pattern of IOSage's taxonomy, trained on labelled IOR and mdtest runs, gives the job's counters (as normalised features) a probability; a pattern is found at or above its threshold. The features named moved the decision most (their value in this job, and what they added to the log-odds). Model: {}.</p>",
        escape(&patterns.model)
    );
    let rows: Vec<Vec<String>> = patterns
        .decisions
        .iter()
        .map(|decision| {
            let moved: Vec<String> = decision
                .contributions
                .iter()
                .take(CONTRIBUTIONS_SHOWN)
                .map(|moved| format!("{} = {:.3} ({:+.2})", moved.feature, moved.value, moved.contribution))
                .collect();
            vec![
                decision.pattern.to_string(),
                format!("{:.2}", decision.probability),
                format!("{:.2}", decision.threshold),
                if decision.present { "found" } else { "-" }.to_string(),
                moved.join("; "),
            ]
        })
        .collect();
    table(html, &["Pattern", "Probability", "Threshold", "Found", "Features that moved it most"], &rows);
    if patterns.cards.is_empty() {
        let _ =
            writeln!(html, "<p>No pattern found: the counters look like the training runs without one.</p>");
    }
    for card in &patterns.cards {
        let _ = writeln!(
            html,
            "<h3 id=\"pattern-{name}\">Pattern card: {name}</h3>\n<table><tbody><tr><th>Behaviour</th><td>{}</td></tr><tr><th>Induced by</th><td>{}</td></tr><tr><th>Change</th><td>{}</td></tr><tr><th>Not when</th><td>{}</td></tr></tbody></table>",
            escape(card.behaviour),
            escape(card.induced_by),
            escape(card.change),
            escape(card.not_when),
            name = escape(card.pattern.name()),
        );
        if card.typical.is_empty() {
            continue;
        }
        let typical: Vec<Vec<String>> = card
            .typical
            .iter()
            .map(|typical| {
                vec![
                    typical.feature.clone(),
                    patterns
                        .features
                        .get(&typical.feature)
                        .map_or_else(|| "-".to_string(), |value| format!("{value:.3}")),
                    format!("{:.3} [{:.3}, {:.3}]", typical.median, typical.q1, typical.q3),
                    format!("{:.3}", typical.others_median),
                ]
            })
            .collect();
        let runs = thousands(card.runs);
        table(
            html,
            &[
                "Feature",
                "This job",
                &format!("Median [q1, q3] of the {runs} training runs with it"),
                "Median of the other runs",
            ],
            &typical,
        );
    }
}

/// Most I/O phases listed (in time order; the rest counted).
const PHASE_ROWS: usize = 40;

/// The I/O phases of the DXT segments: when, how much, and the slowest rank against the median.
fn phases_section(html: &mut String, summary: &JobSummary) {
    let phases = &summary.phases;
    if phases.phases.is_empty() {
        return;
    }
    let _ = writeln!(
        html,
        "<h2>I/O phases (DXT)</h2>\n<p class=\"meta\">{} {} from the {} segments: a phase runs while some rank has a segment under way and ends once every rank has been idle for {:.3} s (the larger of 0.1 s and 1 % of the span). Per phase, the rank with the most I/O time (its segments' durations summed) against the median rank: a ratio well above 1 is a straggler.</p>",
        thousands(phases.phases.len() as u64),
        if phases.phases.len() == 1 { "phase" } else { "phases" },
        escape(&phases.module),
        phases.gap_s
    );
    let rows: Vec<Vec<String>> = phases
        .phases
        .iter()
        .enumerate()
        .take(PHASE_ROWS)
        .map(|(index, phase)| {
            vec![
                (index + 1).to_string(),
                format!("{:.3}", phase.start_s),
                format!("{:.3}", phase.end_s - phase.start_s),
                thousands(phase.segments),
                bytes(phase.read_bytes),
                bytes(phase.written_bytes),
                thousands(phase.ranks),
                format!("{} ({:.3} s)", phase.slowest_rank, phase.slowest_s),
                format!("{:.3}", phase.median_s),
                if phase.median_s > 0.0 {
                    format!("{:.2}x", phase.slowest_s / phase.median_s)
                } else {
                    "-".into()
                },
            ]
        })
        .collect();
    table(
        html,
        &[
            "Phase",
            "Start (s)",
            "Length (s)",
            "Segments",
            "Read",
            "Written",
            "Ranks",
            "Slowest rank (its I/O time)",
            "Median rank's I/O time (s)",
            "Slowest / median",
        ],
        &rows,
    );
    if phases.phases.len() > PHASE_ROWS {
        let _ = writeln!(
            html,
            "<p class=\"meta\">The first {PHASE_ROWS} phases of {} are listed.</p>",
            thousands(phases.phases.len() as u64)
        );
    }
}

/// Most OSTs drawn as bars (the busiest; more would crowd their labels).
const OST_BARS: usize = 24;

/// OST usage: per OST the files striped over it and their bytes, the busiest drawn, the spread
/// said against the mean; the charts drawn.
fn ost_section(html: &mut String, summary: &JobSummary) -> usize {
    let osts = &summary.osts;
    if osts.is_empty() {
        return 0;
    }
    let total: f64 = osts.iter().map(|ost| ost.bytes).sum();
    let mean = total / osts.len() as f64;
    let mut busiest: Vec<&ioscout_darshan::job_summary::OstUse> = osts.iter().collect();
    busiest.sort_by(|left, right| right.bytes.total_cmp(&left.bytes).then(left.ost.cmp(&right.ost)));
    let files_most = osts.iter().map(|ost| ost.files).max().unwrap_or(0);
    let files_mean = osts.iter().map(|ost| ost.files).sum::<u64>() as f64 / osts.len() as f64;
    let first = busiest[0];
    let least = busiest[busiest.len() - 1];
    let ratio = if mean > 0.0 { format!("{:.2}x the mean", first.bytes / mean) } else { "-".into() };
    let rows = vec![
        vec!["OSTs used".to_string(), thousands(osts.len() as u64)],
        vec!["Bytes per OST, mean".to_string(), bytes(mean.round() as u64)],
        vec![
            format!("Busiest OST ({})", first.ost),
            format!("{} ({ratio})", bytes(first.bytes.round() as u64)),
        ],
        vec![format!("Least used OST ({})", least.ost), bytes(least.bytes.round() as u64)],
        vec!["Files per OST, mean and most".to_string(), format!("{files_mean:.1}, {files_most}")],
    ];
    html.push_str("<h2>OST usage</h2>\n");
    table(html, &["OST usage", "Value"], &rows);
    html.push_str("<p class=\"meta\">Darshan records each file's OSTs, not the bytes each OST served: a file's POSIX bytes are spread evenly over its OSTs, which is what round-robin striping gives requests larger than a stripe.</p>\n");
    if total <= 0.0 {
        return 0;
    }
    let shown = busiest.len().min(OST_BARS);
    let bars: Vec<(String, f64)> =
        busiest.iter().take(OST_BARS).map(|ost| (ost.ost.to_string(), ost.bytes / 1_048_576.0)).collect();
    html.push_str(&svg::bar_chart(
        "ost-bytes",
        "Bytes per OST",
        &if shown < osts.len() {
            format!("the {shown} busiest of {} OSTs, most first", osts.len())
        } else {
            format!("all {} OSTs, most first", osts.len())
        },
        "OST index",
        "MiB (estimate)",
        &bars,
        READ,
    ));
    1
}

/// Time, operations and bytes per module, with time summed and the slowest rank's apart.
fn cost_section(html: &mut String, breakdown: &Breakdown) -> usize {
    html.push_str("<h2>I/O cost per module</h2>\n");
    if breakdown.modules.is_empty() {
        html.push_str("<p>No I/O module has records.</p>\n");
        return 0;
    }
    let rows: Vec<Vec<String>> = breakdown
        .modules
        .iter()
        .map(|line| {
            vec![
                line.module.clone(),
                thousands(line.files as u64),
                bytes(line.bytes_read),
                bytes(line.bytes_written),
                format!("{:.3}", line.read_time_summed_s),
                format!("{:.3}", line.write_time_summed_s),
                format!("{:.3}", line.meta_time_summed_s),
                format!("{:.3}", line.io_time_slowest_rank_s),
                line.bandwidth_bytes_per_s
                    .map_or("-".to_string(), |rate| format!("{}/s", bytes(rate as u64))),
                line.share_of_run_time_pct.map_or("-".to_string(), |share| format!("{share:.1} %")),
            ]
        })
        .collect();
    table(
        html,
        &[
            "Module",
            "Files",
            "Read",
            "Written",
            "Read time, summed (s)",
            "Write time, summed (s)",
            "Metadata time, summed (s)",
            "I/O time, slowest rank (s)",
            "Bandwidth (slowest rank)",
            "Slowest rank, of run",
        ],
        &rows,
    );
    html.push_str("<p class=\"meta\">Summed: over processes, as Darshan's counters hold them (above the run time when processes do I/O at once). Slowest rank: the slowest rank through the files it alone opened plus each shared file's slowest rank; bandwidth is the bytes over that time.</p>\n");
    // Each module's time split as read, write and metadata, per process on average: comparable
    // with the run time.
    let processes = breakdown.nprocs.max(1) as f64;
    let mut bars = Vec::new();
    for line in &breakdown.modules {
        bars.push((format!("{} read", line.module), line.read_time_summed_s / processes));
        bars.push((format!("{} write", line.module), line.write_time_summed_s / processes));
        bars.push((format!("{} meta", line.module), line.meta_time_summed_s / processes));
    }
    html.push_str(&svg::bar_chart(
        "module-time",
        "I/O time per module, per process on average",
        "the summed time over the processes, by read, write and metadata",
        "module and kind",
        "seconds",
        &bars,
        META,
    ));
    1
}

/// Operation counts per module.
fn operations_section(html: &mut String, breakdown: &Breakdown) -> usize {
    if breakdown.modules.is_empty() {
        return 0;
    }
    html.push_str("<h2>Operation counts</h2>\n");
    let mut bars = Vec::new();
    for line in &breakdown.modules {
        for (kind, count) in [
            ("read", line.reads),
            ("write", line.writes),
            ("open", line.opens),
            ("stat", line.stats),
            ("seek", line.seeks),
            ("sync", line.syncs),
        ] {
            if count > 0 {
                bars.push((format!("{} {kind}", line.module), count as f64));
            }
        }
    }
    if bars.is_empty() {
        html.push_str("<p>No operations counted.</p>\n");
        return 0;
    }
    html.push_str(&svg::bar_chart(
        "operation-counts",
        "Operations per module",
        "calls counted by Darshan, all processes",
        "module and operation",
        "calls",
        &bars,
        READ,
    ));
    1
}

/// Access sizes per module, reads and writes in charts of their own.
fn sizes_section(html: &mut String, summary: &JobSummary) -> usize {
    let mut charts = 0;
    html.push_str("<h2>Access sizes</h2>\n");
    for histogram in &summary.sizes {
        for (direction, counts, colour) in
            [("read", &histogram.reads, READ), ("write", &histogram.writes, WRITE)]
        {
            let total: u64 = counts.iter().sum();
            if total == 0 {
                let _ = writeln!(html, "<p>{}: no {direction}s.</p>", escape(&histogram.module));
                continue;
            }
            let bars: Vec<(String, f64)> = BIN_LABELS
                .iter()
                .zip(counts)
                .map(|(label, count)| ((*label).to_string(), *count as f64))
                .collect();
            let id = format!(
                "sizes-{}-{direction}",
                histogram.module.to_ascii_lowercase().replace(['-', ' '], "")
            );
            html.push_str(&svg::bar_chart(
                &id,
                &format!("{} {direction} sizes", histogram.module),
                &format!("{} {direction}s by request size", thousands(total)),
                "request size",
                &format!("{direction}s"),
                &bars,
                colour,
            ));
            charts += 1;
        }
    }
    if summary.sizes.is_empty() {
        html.push_str("<p>No module of this log keeps access sizes.</p>\n");
    }
    charts
}

/// Each DXT module's bytes per rank and time bin, reads and writes in heatmaps of their own.
fn heatmap_section(html: &mut String, summary: &JobSummary) -> usize {
    if summary.heatmaps.is_empty() {
        return 0;
    }
    let mut charts = 0;
    html.push_str("<h2>I/O over time per rank (DXT)</h2>\n");
    for map in &summary.heatmaps {
        let rows: Vec<String> = map
            .rows
            .iter()
            .map(
                |(first, last)| {
                    if first == last { format!("rank {first}") } else { format!("ranks {first}-{last}") }
                },
            )
            .collect();
        let columns: Vec<String> = (0..map.read.first().map_or(0, Vec::len))
            .map(|bin| {
                // Enough decimals that neighbouring bins never read the same.
                let decimals = match map.bin_s {
                    width if width >= 10.0 => 0,
                    width if width >= 1.0 => 1,
                    width if width >= 0.1 => 2,
                    _ => 3,
                };
                format!("{:.*} s", decimals, bin as f64 * map.bin_s)
            })
            .collect();
        let left_out = if map.left_out > 0 {
            format!("; {} segments left out (an impossible length, time or rank)", thousands(map.left_out))
        } else {
            String::new()
        };
        for (direction, values) in [("read", &map.read), ("written", &map.written)] {
            let total: f64 = values.iter().flatten().sum();
            if total <= 0.0 {
                let _ = writeln!(html, "<p>{}: no bytes {direction}.</p>", escape(&map.module));
                continue;
            }
            let id = format!("heatmap-{}-{direction}", map.module.to_ascii_lowercase().replace('_', "-"));
            html.push_str(&svg::heatmap(
                &id,
                &format!("{} bytes {direction} per rank over time", map.module),
                &format!(
                    "{} in {} segments; bins of {} s, each segment's bytes spread over the time it took{left_out}",
                    bytes(total as u64),
                    thousands(map.segments),
                    svg::short(map.bin_s)
                ),
                &rows,
                &columns,
                values,
                "bytes",
            ));
            charts += 1;
        }
    }
    charts
}

/// The most common access sizes.
fn common_section(html: &mut String, summary: &JobSummary) {
    if summary.common.is_empty() {
        return;
    }
    html.push_str("<h2>Most common access sizes</h2>\n");
    let rows: Vec<Vec<String>> = summary
        .common
        .iter()
        .map(|access| {
            vec![
                access.module.clone(),
                bytes(access.size.max(0) as u64),
                thousands(access.count.max(0) as u64),
            ]
        })
        .collect();
    table(html, &["Module", "Access size", "Count"], &rows);
}

/// Files by use.
fn files_section(html: &mut String, summary: &JobSummary) {
    if summary.files.is_empty() {
        return;
    }
    html.push_str("<h2>Files</h2>\n");
    let rows: Vec<Vec<String>> = summary
        .files
        .iter()
        .map(|files| {
            let total = files.read_only.0 + files.write_only.0 + files.read_write.0 + files.no_data;
            vec![
                files.module.clone(),
                thousands(total),
                format!("{} ({})", thousands(files.read_only.0), bytes(files.read_only.1)),
                format!("{} ({})", thousands(files.write_only.0), bytes(files.write_only.1)),
                format!("{} ({})", thousands(files.read_write.0), bytes(files.read_write.1)),
                thousands(files.no_data),
            ]
        })
        .collect();
    table(
        html,
        &[
            "Module",
            "Files",
            "Read only (bytes)",
            "Written only (bytes)",
            "Read and written (bytes)",
            "No data moved",
        ],
        &rows,
    );
}
