//! `DFA-OPEN-PRESSURE`: opening sample files costs more than the computation they feed.

use crate::{Context, Finding, Rule, RuleDoc, rule};

rule! {
    pub struct OpenPressure {
        code: "DFA-OPEN-PRESSURE",
        family: DfanalyzerFacts,
        title: "Open pressure: the reader spends longer opening files than the loop computes",
        detects: "A DLIO-style training loop whose reader's POSIX open time (busiest process) exceeds 1.05 times the compute time while compute is less than 85 % of fetch plus compute.",
        why: "Every sample file opened is a metadata round trip to the file system (an MDS on Lustre); when opening alone takes longer than the computation, the loader cannot keep the accelerator fed however many workers it has.",
        evidence: "reader_open_time (busiest process), compute_time, their ratio, compute_frac.",
        thresholds: "fires when reader_open_time / compute_time > 1.05 and compute_frac < 0.85; score = clip01((ratio - 1) / 0.5) (DFAnalyzer 0.0.9 dlio.yaml open_pressure).",
        references: "DFAnalyzer 0.0.9 configs/fact_rules/dlio.yaml (open_pressure); DFAnalyzer's fact rules as ioscout computes them: COMPATIBILITY.md.",
    }
}

/// Compute time and compute's share of fetch plus compute, when the loop has both.
pub(crate) fn loop_times(context: &Context<'_>) -> Option<(f64, f64, f64)> {
    let compute = context.layer("compute")?.time_s;
    let fetch = context.layer("fetch_data").map_or(0.0, |line| line.time_s);
    let active = fetch + compute;
    if compute <= 0.0 || active <= 0.0 {
        return None;
    }
    Some((compute, fetch, compute / active))
}

impl Rule for OpenPressure {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &Context<'_>) -> Vec<Finding> {
        let (Some((compute, _, compute_frac)), Some(opens)) =
            (loop_times(context), context.slot("reader_posix_open"))
        else {
            return Vec::new();
        };
        let open_time = opens.max_process_time_s();
        let ratio = open_time / compute;
        if ratio <= 1.05 || compute_frac >= 0.85 {
            return Vec::new();
        }
        let why = format!(
            "the reader spends {open_time:.3} s opening {} {}, {ratio:.2}x the {compute:.3} s of compute",
            opens.count,
            if opens.count == 1 { "file" } else { "files" }
        );
        vec![
            Finding::new(&Self::DOC, (ratio - 1.0) / 0.5, "reader_posix", why)
                .with("reader_open_time", open_time, "s")
                .with("compute_time", compute, "s")
                .with("open_compute_ratio", ratio, "ratio")
                .with("compute_frac", compute_frac, "fraction")
                .crossing("reader_open_time / compute_time > 1.05")
                .crossing("compute_frac < 0.85"),
        ]
    }
}
