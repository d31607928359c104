//! `DFA-FETCH-PRESSURE`: the training loop waits on data more than it computes.

use crate::{Context, Finding, Rule, RuleDoc, rule};

rule! {
    pub struct FetchPressure {
        code: "DFA-FETCH-PRESSURE",
        family: DfanalyzerFacts,
        title: "Fetch pressure: fetching batches takes a large share of the training loop",
        detects: "A DLIO-style training loop (presets dlio, dlio-prev) where fetch_data time is at least 20 % of fetch plus compute time and compute is less than 85 % of it.",
        why: "While the loop fetches the next batch the accelerator idles: time in fetch_data is time the data pipeline (loader workers, reader, storage) did not hide behind compute.",
        evidence: "fetch_frac = fetch / (fetch + compute), compute_frac, fetch and compute times (bottleneck-process seconds over time bins).",
        thresholds: "fires when fetch_frac >= 0.20 and compute_frac < 0.85; score = clip01((fetch_frac - 0.10) / 0.25) (DFAnalyzer 0.0.9 dlio.yaml fetch_pressure).",
        references: "DFAnalyzer 0.0.9 configs/fact_rules/dlio.yaml (fetch_pressure); DFAnalyzer's fact rules as ioscout computes them: COMPATIBILITY.md.",
    }
}

impl Rule for FetchPressure {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &Context<'_>) -> Vec<Finding> {
        let (Some(fetch), Some(compute)) = (context.layer("fetch_data"), context.layer("compute")) else {
            return Vec::new();
        };
        let active = fetch.time_s + compute.time_s;
        if active <= 0.0 {
            return Vec::new();
        }
        let fetch_frac = fetch.time_s / active;
        let compute_frac = compute.time_s / active;
        if fetch_frac < 0.2 || compute_frac >= 0.85 {
            return Vec::new();
        }
        let why = format!(
            "fetching batches takes {:.0}% of the loop ({:.3} s fetch against {:.3} s compute)",
            fetch_frac * 100.0,
            fetch.time_s,
            compute.time_s
        );
        vec![
            Finding::new(&Self::DOC, (fetch_frac - 0.10) / 0.25, "fetch_data", why)
                .with("fetch_frac", fetch_frac, "fraction")
                .with("compute_frac", compute_frac, "fraction")
                .with("fetch_time", fetch.time_s, "s")
                .with("compute_time", compute.time_s, "s")
                .crossing("fetch_frac >= 0.20")
                .crossing("compute_frac < 0.85"),
        ]
    }
}
