//! `DFA-IO-CONTENTION`: many loader workers read while the loop computes: they compete for I/O.

use crate::{Context, Finding, Rule, RuleDoc, rule};

rule! {
    pub struct IoContention {
        code: "DFA-IO-CONTENTION",
        family: DfanalyzerFacts,
        title: "I/O contention: more than two loader workers read behind a compute-bound loop",
        detects: "A DLIO-style training loop where compute is at least 70 % of fetch plus compute, fetching under 15 %, and more than two processes issue the reader's POSIX calls (the loader's workers).",
        why: "Fetching is hidden today, but the workers contend with each other (and with other jobs) for the same file-system bandwidth and metadata service: the loop is one slower storage day away from waiting on data, and the extra workers cost memory and file-system load without shortening it.",
        evidence: "compute_frac, fetch_frac, the number of reader processes (workers).",
        thresholds: "fires when compute_frac >= 0.70, fetch_frac < 0.15 and workers > 2; score = clip01((compute_frac - 0.6) / 0.3) (DFAnalyzer 0.0.9 dlio.yaml io_contention), times 0.59 (at most medium: the loop is not waiting yet).",
        references: "DFAnalyzer 0.0.9 configs/fact_rules/dlio.yaml (io_contention); DFAnalyzer's fact rules as ioscout computes them: COMPATIBILITY.md.",
    }
}

impl Rule for IoContention {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &Context<'_>) -> Vec<Finding> {
        let (Some((_, _, compute_frac)), Some(reader)) =
            (super::dfanalyzer_open_pressure::loop_times(context), context.slot("reader_posix"))
        else {
            return Vec::new();
        };
        let fetch_frac = 1.0 - compute_frac;
        let workers = reader.process_times.len();
        if compute_frac < 0.7 || fetch_frac >= 0.15 || workers <= 2 {
            return Vec::new();
        }
        let why = format!(
            "{workers} processes read for a loop that computes {:.0}% of the time: they compete for the file system while fetching stays hidden",
            compute_frac * 100.0
        );
        vec![
            Finding::new(&Self::DOC, 0.59 * crate::clip01((compute_frac - 0.6) / 0.3), "reader_posix", why)
                .with("compute_frac", compute_frac, "fraction")
                .with("fetch_frac", fetch_frac, "fraction")
                .with("reader_workers", workers as f64, "count")
                .crossing("compute_frac >= 0.70")
                .crossing("fetch_frac < 0.15")
                .crossing("reader workers > 2"),
        ]
    }
}
