//! The HTML report (`ioscout report`): the analysis, the derived records, the diagnosis and the
//! advice of the inputs, and one more pass for the per-process timeline and the bytes by
//! directory; the page itself is drawn by [`ioscout_render::html`].

use std::collections::HashMap;
use std::ops::ControlFlow;

use ioscout_analysis::{Analysis, AnalysisOptions, OverlapMode, ViewType};
use ioscout_model::{Event, HashTables, Phase};
use ioscout_read::Fold;
use ioscout_read::event::Args;
use ioscout_render::html::{Activity, Page};

use crate::{Input, Result};

/// What to report on. Also the parameters of the MCP `report` tool (beside its paths).
#[derive(Clone, Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct ReportRequest {
    /// Layer preset: auto, posix, dlio, dlio-prev, generic.
    pub preset: ioscout_analysis::PresetName,
    /// Most processes shown in the timeline and the heatmap.
    pub max_processes: usize,
}

impl Default for ReportRequest {
    fn default() -> Self {
        ReportRequest { preset: ioscout_analysis::PresetName::Auto, max_processes: 32 }
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

/// Builds the report of `input`.
pub fn report(input: &Input, request: &ReportRequest) -> Result<HtmlReport> {
    let options = AnalysisOptions {
        preset: request.preset,
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

    // A run still being written says so at the top of the page.
    let coverage = scan.coverage(std::time::SystemTime::now(), ioscout_read::SETTLE);
    let still_written = (!coverage.growing.is_empty()).then(|| {
        format!(
            "{} of {} files were still being written when read (changed in the last {} s, grown, or ending in an unfinished gzip member): this report covers what they held then.",
            coverage.growing.len(),
            coverage.files,
            ioscout_read::SETTLE.as_secs()
        )
    });
    let (html, charts) = ioscout_render::html::page(Page {
        described: &input.describe(),
        still_written: still_written.as_deref(),
        file_count,
        analysis: &analysis,
        derived: &derived,
        findings: &findings,
        metric: &metric,
        advice: &advice,
        activity: activity(input, &analysis),
        max_processes: request.max_processes,
    });
    Ok(HtmlReport { html, charts, findings: findings.len(), scan })
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
