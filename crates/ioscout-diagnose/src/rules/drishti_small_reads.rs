//! `DRI-SMALL-READ`: many reads smaller than 1 MiB (Drishti P05 on DFTracer counters).

use crate::rules::many_small_requests;
use crate::{Context, Finding, Rule, RuleDoc, rule};

rule! {
    pub struct ManySmallReads {
        code: "DRI-SMALL-READ",
        family: Drishti,
        title: "High number of small reads: more than 10 % of reads move less than 1 MiB",
        detects: "POSIX/STDIO reads where more than 10 % of the calls that moved bytes moved less than 1 MiB, and more than 1,000 did (the transfer-size histogram of the analysis).",
        why: "Each small request pays the full per-request cost (system call, RPC, lock) for little data; Drishti's P05 recommends buffering them into larger, contiguous requests (or collective I/O under MPI-IO).",
        evidence: "small reads, their share of reads, the share of the job that reads take.",
        thresholds: "fires when small / reads > 0.1 and small > 1000 (Drishti small_requests, small_requests_absolute); score = small share x clip01(read time / job time / 0.1), so small reads that cost little of the run stay low (Drishti fires on 98 % of jobs without that weight).",
        references: "Bez, Ather, Byna, Drishti, PDSW 2022 (drishti/includes/module.py, P05); shared/research/diagnosis.md 1.2-1.4.",
    }
}

impl Rule for ManySmallReads {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &Context<'_>) -> Vec<Finding> {
        many_small_requests(context, &Self::DOC, "read")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::{analysis, header, posix};

    fn trace(calls: i64, size: i64) -> Vec<String> {
        let mut lines = header();
        for index in 0..calls {
            lines.push(posix(7, "read", 1_000_000 + index * 100, 80, size));
        }
        lines
    }

    #[test]
    fn fires_on_many_small_reads() {
        let analysis = analysis("many-small-read-positive", "posix", &trace(1500, 4096));
        let findings = ManySmallReads.evaluate(&Context::new(&analysis, crate::Parameters::default()));
        assert_eq!(findings.len(), 1);
        assert!(findings[0].score >= 0.6, "{findings:?}");
    }

    #[test]
    fn stays_quiet_on_few_or_large_reads() {
        let few = analysis("many-small-read-few", "posix", &trace(500, 4096));
        assert!(ManySmallReads.evaluate(&Context::new(&few, crate::Parameters::default())).is_empty());
        let large = analysis("many-small-read-large", "posix", &trace(1500, 4 << 20));
        assert!(ManySmallReads.evaluate(&Context::new(&large, crate::Parameters::default())).is_empty());
    }
}
