//! `DFA-READ-CONTENTION`: read calls of the reader are much slower on average than at best.

use crate::{Context, Finding, Rule, RuleDoc, rule};

rule! {
    pub struct ReadContention {
        code: "DFA-READ-CONTENTION",
        family: DfanalyzerFacts,
        title: "Read contention: the reader's reads take far longer on average than the fastest one",
        detects: "POSIX reads of the data reader (reader_posix, else all POSIX) whose mean call time is more than 10 times the shortest call, over at least 100 reads by at least two processes: one process does not contend with itself (and its shortest read is often a 0-byte read at the end of a file).",
        why: "The same read costing ten times more on average than at best points at queueing: concurrent readers contending for the same storage targets, the metadata server or a saturated link, rather than at the size of the requests.",
        evidence: "mean, shortest and longest read call, their ratio, read count.",
        thresholds: "fires when mean / min > 10 (DFAnalyzer dlio.yaml read_contention); score = clip01((ratio - 5) / 40).",
        references: "DFAnalyzer 0.0.9 configs/fact_rules/dlio.yaml (read_contention: reader_posix_read_time_call_mean / call_min); DFAnalyzer's fact rules as ioscout computes them: COMPATIBILITY.md.",
    }
}

impl Rule for ReadContention {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &Context<'_>) -> Vec<Finding> {
        let (slot, reads) = match context.slot("reader_posix_read") {
            Some(reads) => ("reader_posix_read", reads),
            None => match context.slot("posix_read") {
                Some(reads) => ("posix_read", reads),
                None => return Vec::new(),
            },
        };
        let Some(mean) = reads.mean_call_s() else { return Vec::new() };
        if reads.count < 100 || reads.call_min_s <= 0.0 || reads.process_times.len() < 2 {
            return Vec::new();
        }
        let ratio = mean / reads.call_min_s;
        if ratio <= 10.0 {
            return Vec::new();
        }
        let why = format!(
            "reads take {:.1} us on average against {:.1} us at best ({ratio:.0}x) over {} calls",
            mean * 1e6,
            reads.call_min_s * 1e6,
            reads.count
        );
        vec![
            Finding::new(&Self::DOC, (ratio - 5.0) / 40.0, slot, why)
                .with("read_time_call_mean", mean, "s")
                .with("read_time_call_min", reads.call_min_s, "s")
                .with("read_time_call_max", reads.call_max_s, "s")
                .with("read_call_ratio", ratio, "ratio")
                .crossing("mean / min read time > 10"),
        ]
    }
}
