//! `IOS-HEALTHY` on Darshan counters: I/O is a small part of the run.

use crate::darshan::{DarshanContext, DarshanRule};
use crate::{Finding, RuleDoc, rule};

rule! {
    pub struct Healthy {
        code: "IOS-HEALTHY",
        family: Iosage,
        title: "Healthy: I/O takes under 5 % of the run on its critical path",
        detects: "Darshan's estimate of the job's I/O time on its critical path (the slowest rank in unique files plus each shared file's slowest rank, POSIX and STDIO) is under 5 % of the run time (IOSage's healthy label).",
        why: "Not a problem: whatever the request sizes and patterns, I/O cannot be what the job waits on; the other findings are then low severity.",
        evidence: "I/O share of the run.",
        thresholds: "fires when I/O share < 0.05; score 0.",
        references: "IOSage healthy label; darshan-parser --perf agg_time_by_slowest.",
        change: "None for I/O; look at compute and communication.",
        not_when: "Darshan did not instrument the job's main I/O path (a library it does not intercept, or partial data).",
    }
}

impl DarshanRule for Healthy {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        let share = context.io_share();
        if share >= 0.05 || context.facts.run_time <= 0.0 {
            return Vec::new();
        }
        let why = format!(
            "I/O on the critical path takes {:.2} s, {:.1} % of the {:.1} s run",
            context.io_time_by_slowest(),
            share * 100.0,
            context.facts.run_time
        );
        vec![Finding::new(&Self::DOC, 0.0, "job", why).with("io_share", share, "fraction")]
    }
}
