//! `WIS-SMALL-WRITE`: POSIX time dominated by writes smaller than 1 MiB.

use crate::rules::small_requests;
use crate::{Context, Finding, Rule, RuleDoc, rule};

rule! {
    pub struct SmallWrites {
        code: "WIS-SMALL-WRITE",
        family: Wisio,
        title: "Small writes: most POSIX time goes to writes of less than 1 MiB",
        detects: "POSIX/STDIO write calls that take more than half of the POSIX time while moving less than 1 MiB per call on average.",
        why: "Each request pays a fixed cost (system call, RPC to the storage server, lock) that small transfers cannot amortise; parallel file systems reach their bandwidth with transfers of 1 MiB and more, aligned to the stripe.",
        evidence: "posix_write_time_frac (write time over POSIX time), posix_write_size_mean (bytes per write that moved bytes), the write count, POSIX share of the job.",
        thresholds: "fires when write_time / posix_time > 0.5 and write_size / write_count < 1 MiB (WisIO small_writes); score = (0.5 x (f - 0.5) / 0.5 + 0.5 x (1 MiB - s) / 1 MiB) x impact (DFAnalyzer's small_write_dominance formula, weighted by the POSIX share of the job).",
        references: "Yildirim et al., WisIO, ICS 2025 (wisio/rules.py, small_writes); DFAnalyzer 0.0.9 configs/fact_rules/dlio.yaml small_write_dominance; shared/research/analysis-semantics.md 3.7, 4.1.",
    }
}

impl Rule for SmallWrites {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &Context<'_>) -> Vec<Finding> {
        small_requests(context, &Self::DOC, "write")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::{analysis, header, posix};

    fn trace(size: i64) -> Vec<String> {
        let mut lines = header();
        for index in 0..40 {
            lines.push(posix(7, "write", 1_000_000 + index * 1000, 800, size));
            lines.push(posix(7, "lseek", 1_000_500 + index * 1000, 10, 0));
        }
        lines
    }

    #[test]
    fn fires_on_small_writes() {
        let analysis = analysis("small-write-positive", "posix", &trace(4096));
        let findings = SmallWrites.evaluate(&Context::new(&analysis, crate::Parameters::default()));
        assert_eq!(findings.len(), 1);
        assert!(findings[0].score >= 0.6, "{findings:?}");
    }

    #[test]
    fn stays_quiet_on_large_writes() {
        let analysis = analysis("small-write-negative", "posix", &trace(4 << 20));
        assert!(SmallWrites.evaluate(&Context::new(&analysis, crate::Parameters::default())).is_empty());
    }
}
