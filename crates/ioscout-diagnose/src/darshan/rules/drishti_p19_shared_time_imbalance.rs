//! `P19`: Time imbalance on shared files (stragglers) (Drishti's trigger on Darshan counters).

use crate::darshan::rules::imbalance_finding;
use crate::darshan::{DarshanContext, DarshanRule, Module};
use crate::{Finding, RuleDoc, rule};
use ioscout_darshan::counters::{
    POSIX_F_FASTEST_RANK_TIME, POSIX_F_META_TIME, POSIX_F_READ_TIME, POSIX_F_SLOWEST_RANK_TIME,
    POSIX_F_WRITE_TIME,
};

rule! {
    pub struct SharedTimeImbalance {
        code: "P19",
        family: Drishti,
        title: "Time imbalance on shared files (stragglers)",
        detects: "Shared files (rank -1 records) where the slowest and fastest ranks' I/O times differ by more than 15 % of the file's total I/O time.",
        why: "The job waits for its slowest rank. Drishti fires this on most tiny test jobs, where a few milliseconds of jitter decide it (COMPATIBILITY.md D10): ioscout keeps the trigger and lets the score say how much the I/O weighs in the job.",
        evidence: "shared files with the imbalance, the largest imbalance.",
        thresholds: "fires when |slowest time - fastest time| / (read + write + metadata time) > imbalance_stragglers (0.15) on one or more shared files; Drishti level HIGH, scored by the I/O share of the job.",
        references: "Bez, Ather, Byna, Drishti: Guiding End-Users in the I/O Optimization Journey, PDSW 2022; hpc-io/drishti-io 0.8 (drishti/includes/module.py, drishti/handlers/handle_darshan.py).",
    }
}

impl DarshanRule for SharedTimeImbalance {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        let mut detected: Vec<(u64, f64)> = Vec::new();
        for record in context.records(Module::Posix).iter().filter(|record| record.rank == -1) {
            let total = context.fvalue(record, POSIX_F_WRITE_TIME)
                + context.fvalue(record, POSIX_F_READ_TIME)
                + context.fvalue(record, POSIX_F_META_TIME);
            if total == 0.0 {
                continue;
            }
            let gap = (context.fvalue(record, POSIX_F_SLOWEST_RANK_TIME)
                - context.fvalue(record, POSIX_F_FASTEST_RANK_TIME))
            .abs();
            let imbalance = gap / total;
            if imbalance > context.thresholds.imbalance_stragglers {
                detected.push((record.id, imbalance));
            }
        }
        imbalance_finding(context, &Self::DOC, &detected, "time")
    }
}
