//! `WIS-OP-MIX`: POSIX operations lean strongly to reads or to writes.

use crate::rules::read_write_mix;
use crate::{Context, Finding, Rule, RuleDoc, rule};

rule! {
    pub struct OperationMix {
        code: "WIS-OP-MIX",
        family: Wisio,
        title: "Read/write operation imbalance: POSIX operations lean strongly to one direction",
        detects: "POSIX/STDIO operations where the difference between reads and writes is more than 10 % of the total (WisIO's operation_imbalance: a read/write mix, not an imbalance between ranks).",
        why: "It characterises the workload rather than slowing it by itself: a read-dominated job profits from read-ahead, caching and prefetching, a write-dominated one from write-behind, aggregation and asynchronous flushes; advice that assumes the other direction does not apply. It is reported at low severity only.",
        evidence: "reads, writes, |writes - reads| / total, the dominant direction.",
        thresholds: "fires when |write_count - read_count| / total > 0.1 (WisIO); score = 0.29 x (x - 0.1) / 0.9 (never above low: a mix is context, not a bottleneck).",
        references: "Yildirim et al., WisIO, ICS 2025 (wisio/rules.py, operation_imbalance); DFAnalyzer 0.0.9 fact operation_imbalance; shared/research/diagnosis.md 4.",
    }
}

impl Rule for OperationMix {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &Context<'_>) -> Vec<Finding> {
        read_write_mix(
            context,
            &Self::DOC,
            "operation",
            "count",
            |totals| totals.count as f64,
            |dominant, percent| format!("{dominant} are {percent:.0}% of the POSIX read and write calls"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::{analysis, header, posix};

    fn trace(writes: i64) -> Vec<String> {
        let mut lines = header();
        for index in 0..10 {
            lines.push(posix(7, "read", 1_000_000 + index * 1000, 100, 65536));
        }
        for index in 0..writes {
            lines.push(posix(7, "write", 2_000_000 + index * 1000, 100, 65536));
        }
        lines
    }

    #[test]
    fn fires_when_one_direction_dominates() {
        let analysis = analysis("operation-mix-positive", "posix", &trace(0));
        let findings = OperationMix.evaluate(&Context::new(&analysis, crate::Parameters::default()));
        assert_eq!(findings.len(), 1);
        assert!(findings[0].score < 0.3, "a mix is never above low");
    }

    #[test]
    fn stays_quiet_on_a_balanced_mix() {
        let analysis = analysis("operation-mix-negative", "posix", &trace(10));
        assert!(OperationMix.evaluate(&Context::new(&analysis, crate::Parameters::default())).is_empty());
    }
}
