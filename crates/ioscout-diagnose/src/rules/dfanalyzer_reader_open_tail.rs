//! `DFA-READER-OPEN-TAIL`: one reader process spends much longer opening files than the others.

use crate::{Context, Finding, Rule, RuleDoc, rule};

rule! {
    pub struct ReaderOpenTail {
        code: "DFA-READER-OPEN-TAIL",
        family: DfanalyzerFacts,
        title: "Reader open tail: the slowest reader spends far longer opening files than the typical one",
        detects: "Over the processes that open files in the reader (at least two), the largest open time is more than 1.25 times the median, and opens are more than 10 % of the reader's POSIX time.",
        why: "Opens that are slow on one process only point at a hot metadata server or directory (many workers opening in one directory, a node with a cold dentry cache): the straggling worker delays its batches and every rank waits for them.",
        evidence: "the slowest and median per-process open times, their ratio, opens' share of the reader's POSIX time, the process.",
        thresholds: "fires when reader_open_tail_ratio > 1.25 and reader_open_frac > 0.10 (DFAnalyzer 0.0.9 dlio-global.yaml reader_open_tail_outlier); score = clip01((ratio - 1) / 2) x clip01(reader_open_frac / 0.3) (ioscout's).",
        references: "DFAnalyzer 0.0.9 configs/fact_rules/dlio-global.yaml (reader_open_tail_outlier); DFAnalyzer's fact rules as ioscout computes them: COMPATIBILITY.md.",
    }
}

impl Rule for ReaderOpenTail {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &Context<'_>) -> Vec<Finding> {
        let (Some(opens), Some(reader)) = (context.slot("reader_posix_open"), context.slot("reader_posix"))
        else {
            return Vec::new();
        };
        if opens.process_times.len() < 2 || reader.time_s <= 0.0 {
            return Vec::new();
        }
        let open_frac = opens.time_s / reader.time_s;
        let (slowest, slowest_time) = opens
            .process_times
            .iter()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map_or(("", 0.0), |(process, time)| (process.as_str(), *time));
        let mut times: Vec<f64> = opens.process_times.values().copied().collect();
        let typical = super::dfanalyzer_fetch_outlier::median(&mut times);
        if typical <= 0.0 {
            return Vec::new();
        }
        let ratio = slowest_time / typical;
        if ratio <= 1.25 || open_frac <= 0.1 {
            return Vec::new();
        }
        let why = format!(
            "{slowest} spends {slowest_time:.3} s opening files, {ratio:.1}x the median reader ({typical:.3} s); opens are {:.0}% of the reader's POSIX time",
            open_frac * 100.0
        );
        let score = crate::clip01((ratio - 1.0) / 2.0) * crate::clip01(open_frac / 0.3);
        vec![
            Finding::new(&Self::DOC, score, format!("reader_posix/{slowest}"), why)
                .with("reader_open_time_proc_max", slowest_time, "s")
                .with("reader_open_time_proc_median", typical, "s")
                .with("reader_open_tail_ratio", ratio, "ratio")
                .with("reader_open_frac", open_frac, "fraction")
                .crossing("reader_open_tail_ratio > 1.25")
                .crossing("reader_open_frac > 0.10"),
        ]
    }
}
