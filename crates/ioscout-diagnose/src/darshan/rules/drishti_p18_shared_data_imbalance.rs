//! `P18`: Data transfer imbalance on shared files (stragglers) (Drishti's trigger on Darshan counters).

use crate::darshan::rules::imbalance_finding;
use crate::darshan::{DarshanContext, DarshanRule, Module};
use crate::{Finding, RuleDoc, rule};
use ioscout_darshan::counters::{
    POSIX_BYTES_READ, POSIX_BYTES_WRITTEN, POSIX_FASTEST_RANK_BYTES, POSIX_SLOWEST_RANK_BYTES,
};

rule! {
    pub struct SharedDataImbalance {
        code: "P18",
        family: Drishti,
        title: "Data transfer imbalance on shared files (stragglers)",
        detects: "Shared files (rank -1 records) where the slowest and fastest ranks moved amounts of data that differ by more than 15 % of the file's bytes.",
        why: "The job waits for its slowest rank; uneven data per rank makes one rank the straggler. Drishti recommends balancing the data across ranks and tuning the stripe size and count.",
        evidence: "shared files with the imbalance, the largest imbalance.",
        thresholds: "fires when |slowest bytes - fastest bytes| / bytes > imbalance_stragglers (0.15) on one or more shared files; Drishti level HIGH.",
        references: "Bez, Ather, Byna, Drishti: Guiding End-Users in the I/O Optimization Journey, PDSW 2022; hpc-io/drishti-io 0.8 (drishti/includes/module.py, drishti/handlers/handle_darshan.py).",
    }
}

impl DarshanRule for SharedDataImbalance {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        let mut detected: Vec<(u64, f64)> = Vec::new();
        for record in context.records(Module::Posix).iter().filter(|record| record.rank == -1) {
            let total = context.value(record, POSIX_BYTES_WRITTEN) + context.value(record, POSIX_BYTES_READ);
            if total == 0 {
                continue;
            }
            let gap = (context.value(record, POSIX_SLOWEST_RANK_BYTES)
                - context.value(record, POSIX_FASTEST_RANK_BYTES))
            .abs();
            let imbalance = gap as f64 / total as f64;
            if imbalance > context.thresholds.imbalance_stragglers {
                detected.push((record.id, imbalance));
            }
        }
        imbalance_finding(context, &Self::DOC, &detected, "data transfer")
    }
}
