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
        references: "DFAnalyzer 0.0.9 configs/fact_rules/dlio.yaml (fetch_pressure); shared/research/analysis-semantics.md 3.7.",
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::rules::testing::{analysis, event};

    pub(crate) fn loop_trace(fetch: i64, compute: i64) -> Vec<String> {
        let mut lines = Vec::new();
        let mut ts = 1_000_000;
        for _ in 0..20 {
            lines.push(event(7, "fetch.iter", "dataloader", ts, fetch, ""));
            ts += fetch;
            lines.push(event(7, "TorchFramework.compute", "compute", ts, compute, ""));
            ts += compute;
        }
        lines
    }

    #[test]
    fn fires_when_the_loop_waits_on_data() {
        let analysis = analysis("fetch-positive", "dlio", &loop_trace(30_000, 10_000));
        let findings = FetchPressure.evaluate(&Context::new(&analysis, crate::Parameters::default()));
        assert_eq!(findings.len(), 1);
        assert!(findings[0].score >= 0.85, "{findings:?}");
    }

    #[test]
    fn stays_quiet_when_compute_dominates() {
        let analysis = analysis("fetch-negative", "dlio", &loop_trace(1_000, 30_000));
        assert!(FetchPressure.evaluate(&Context::new(&analysis, crate::Parameters::default())).is_empty());
    }
}
