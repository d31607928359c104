//! `DFA-READ-PRESSURE`: the reader's POSIX time dwarfs the computation, without any opens.

use crate::{Context, Finding, Rule, RuleDoc, rule};

rule! {
    pub struct ReadPressure {
        code: "DFA-READ-PRESSURE",
        family: DfanalyzerFacts,
        title: "Read pressure: the reader's POSIX I/O takes far longer than the loop computes",
        detects: "A DLIO-style training loop whose reader POSIX time (busiest process) exceeds 1.5 times the compute time, with no opens in the reader (files kept open: the cost is the reads), while compute is less than 85 % of fetch plus compute.",
        why: "The reads themselves, not metadata, hold up the data pipeline: bandwidth per reader or request sizes are the lever, and more loader parallelism only helps if the file system has bandwidth to spare.",
        evidence: "reader_posix_time (busiest process), compute_time, their ratio, compute_frac.",
        thresholds: "fires when reader_posix_time / compute_time > 1.5, no reader opens and compute_frac < 0.85; score = clip01((ratio - 1) / 2) (DFAnalyzer 0.0.9 dlio.yaml read_pressure).",
        references: "DFAnalyzer 0.0.9 configs/fact_rules/dlio.yaml (read_pressure); DFAnalyzer's fact rules as ioscout computes them: COMPATIBILITY.md.",
    }
}

impl Rule for ReadPressure {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &Context<'_>) -> Vec<Finding> {
        let (Some((compute, _, compute_frac)), Some(reader)) =
            (super::dfanalyzer_open_pressure::loop_times(context), context.slot("reader_posix"))
        else {
            return Vec::new();
        };
        if context.slot("reader_posix_open").is_some() {
            return Vec::new();
        }
        let reader_time = reader.max_process_time_s();
        let ratio = reader_time / compute;
        if ratio <= 1.5 || compute_frac >= 0.85 {
            return Vec::new();
        }
        let why = format!(
            "the reader's POSIX calls take {reader_time:.3} s, {ratio:.2}x the {compute:.3} s of compute"
        );
        vec![
            Finding::new(&Self::DOC, (ratio - 1.0) / 2.0, "reader_posix", why)
                .with("reader_posix_time", reader_time, "s")
                .with("compute_time", compute, "s")
                .with("read_compute_ratio", ratio, "ratio")
                .with("compute_frac", compute_frac, "fraction")
                .crossing("reader_posix_time / compute_time > 1.5")
                .crossing("reader opens == 0")
                .crossing("compute_frac < 0.85"),
        ]
    }
}
