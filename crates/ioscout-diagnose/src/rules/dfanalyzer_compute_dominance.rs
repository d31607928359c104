//! `DFA-COMPUTE-DOMINANCE`: the loop computes nearly all the time; I/O is not what it waits on.

use crate::{Context, Finding, Rule, RuleDoc, rule};

rule! {
    pub struct ComputeDominance {
        code: "DFA-COMPUTE-DOMINANCE",
        family: DfanalyzerFacts,
        title: "Compute dominance: the training loop is compute-bound, data arrives in time",
        detects: "A DLIO-style training loop where compute is at least 90 % of fetch plus compute and fetching at most 10 %.",
        why: "A context fact, not a bottleneck: when the accelerator computes nearly all the time, faster I/O cannot shorten the loop by more than the fetch share; I/O changes should be judged on what else they free (the file system's load, other jobs).",
        evidence: "compute_frac, fetch_frac, compute and fetch times; DFAnalyzer's severity as dfanalyzer_severity.",
        thresholds: "fires when compute_frac >= 0.90 and fetch_frac <= 0.10 (DFAnalyzer 0.0.9 dlio.yaml compute_dominance, whose severity clip01((compute_frac - 0.85) / 0.2) is kept as evidence); ioscout scores it at most 0.29 (low): it says the I/O is not the problem.",
        references: "DFAnalyzer 0.0.9 configs/fact_rules/dlio.yaml (compute_dominance); DFAnalyzer's fact rules as ioscout computes them: COMPATIBILITY.md.",
    }
}

impl Rule for ComputeDominance {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &Context<'_>) -> Vec<Finding> {
        let Some((compute, fetch, compute_frac)) = super::dfanalyzer_open_pressure::loop_times(context)
        else {
            return Vec::new();
        };
        let fetch_frac = 1.0 - compute_frac;
        if compute_frac < 0.9 || fetch_frac > 0.1 {
            return Vec::new();
        }
        let severity = crate::clip01((compute_frac - 0.85) / 0.2);
        let why = format!(
            "the loop computes {:.0}% of the time ({compute:.3} s) and fetches {:.0}% ({fetch:.3} s): I/O is not what it waits on",
            compute_frac * 100.0,
            fetch_frac * 100.0
        );
        vec![
            Finding::new(&Self::DOC, 0.29 * severity, "compute", why)
                .with("compute_frac", compute_frac, "fraction")
                .with("fetch_frac", fetch_frac, "fraction")
                .with("compute_time", compute, "s")
                .with("fetch_time", fetch, "s")
                .with("dfanalyzer_severity", severity, "score")
                .crossing("compute_frac >= 0.90")
                .crossing("fetch_frac <= 0.10"),
        ]
    }
}
