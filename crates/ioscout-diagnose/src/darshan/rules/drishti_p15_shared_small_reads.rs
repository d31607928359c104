//! `P15`: High number of small reads to shared files (Drishti's trigger on Darshan counters).

use crate::darshan::{DarshanContext, DarshanRule, Level, Module, percent};
use crate::{Finding, RuleDoc, rule};

rule! {
    pub struct SharedSmallReads {
        code: "P15",
        family: Drishti,
        title: "High number of small reads to shared files",
        detects: "Small (< 1 MiB) reads on shared files only (Darshan's reduced records, rank -1).",
        why: "Many ranks issuing small requests to one file contend for its locks and stripes; Drishti recommends coalescing them with MPI-IO collective operations.",
        evidence: "small reads to shared files, their share.",
        thresholds: "fires when small / shared requests > small_requests (0.1) and small > small_requests_absolute (1000); Drishti level HIGH.",
        references: "Bez, Ather, Byna, Drishti: Guiding End-Users in the I/O Optimization Journey, PDSW 2022; hpc-io/drishti-io 0.8 (drishti/includes/module.py, drishti/handlers/handle_darshan.py); shared/research/diagnosis.md 1.2-1.5.",
    }
}

impl DarshanRule for SharedSmallReads {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        let shared = |record: &ioscout_darshan::CounterRecord| record.rank == -1;
        let total = context.total_where(Module::Posix, "POSIX_READS", shared);
        let small: i64 = context
            .records(Module::Posix)
            .iter()
            .filter(|record| shared(record))
            .map(|record| context.small(record, "READ"))
            .sum();
        if total <= 0
            || (small as f64 / total as f64) <= context.thresholds.small_requests
            || small <= context.thresholds.small_requests_absolute
        {
            return Vec::new();
        }
        let why = format!(
            "{small} small read requests to shared files, {:.2} % of their reads",
            percent(small as f64, total as f64)
        );
        vec![
            context
                .weighted_finding(
                    &Self::DOC,
                    Level::High,
                    small as f64 / total as f64,
                    "POSIX shared files",
                    why,
                )
                .with("shared_small_reads", small as f64, "count")
                .with("shared_small_read_share", small as f64 / total as f64, "fraction"),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::darshan::testing::{codes, facts, record};

    #[test]
    fn fires_on_small_requests_to_a_shared_file() {
        let mut facts = facts(8, 10.0, &["POSIX"]);
        facts.posix.push(record(
            Module::Posix,
            1,
            -1,
            &[("POSIX_READS", 3000.0), ("POSIX_SIZE_READ_100_1K", 3000.0)],
        ));
        assert_eq!(codes(&SharedSmallReads, &facts), ["P15"]);
    }

    #[test]
    fn stays_quiet_on_unshared_files() {
        let mut facts = facts(8, 10.0, &["POSIX"]);
        facts.posix.push(record(
            Module::Posix,
            1,
            3,
            &[("POSIX_READS", 3000.0), ("POSIX_SIZE_READ_100_1K", 3000.0)],
        ));
        assert!(codes(&SharedSmallReads, &facts).is_empty());
    }
}
