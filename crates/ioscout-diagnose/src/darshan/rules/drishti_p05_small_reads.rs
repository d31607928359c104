//! `P05`: High number of small read requests (under 1 MiB) (Drishti's trigger on Darshan counters).

use crate::darshan::rules::pairs;
use crate::darshan::{DarshanContext, DarshanRule, Direction};
use crate::{Finding, RuleDoc, rule};

rule! {
    pub struct SmallReads {
        code: "P05",
        family: Drishti,
        title: "High number of small read requests (under 1 MiB)",
        detects: "POSIX reads in the five size buckets under 1 MiB, over all records; the files with more than half of those requests are named.",
        why: "Each small request pays the whole per-request cost (system call, RPC, lock) for little data; Drishti recommends buffering into larger contiguous requests, or MPI-IO collective operations when MPI-IO is in use.",
        evidence: "small reads, their share of reads, the files with most of them.",
        thresholds: "fires when small / reads > small_requests (0.1) and small > small_requests_absolute (1000); Drishti level HIGH.",
        references: "Bez, Ather, Byna, Drishti: Guiding End-Users in the I/O Optimization Journey, PDSW 2022; hpc-io/drishti-io 0.8 (drishti/includes/module.py, drishti/handlers/handle_darshan.py); shared/research/diagnosis.md 1.2-1.5.",
    }
}

impl DarshanRule for SmallReads {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        pairs::small_requests(context, &Self::DOC, Direction::Read, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::darshan::Module;
    use crate::darshan::testing::{codes, facts, record};

    #[test]
    fn fires_on_many_small_requests() {
        let mut facts = facts(4, 10.0, &["POSIX"]);
        facts.posix.push(record(
            Module::Posix,
            1,
            0,
            &[("POSIX_READS", 5000.0), ("POSIX_SIZE_READ_1K_10K", 4000.0)],
        ));
        assert_eq!(codes(&SmallReads, &facts), ["P05"]);
    }

    #[test]
    fn stays_quiet_on_few_or_large_requests() {
        let mut facts = facts(4, 10.0, &["POSIX"]);
        facts.posix.push(record(
            Module::Posix,
            1,
            0,
            &[("POSIX_READS", 900.0), ("POSIX_SIZE_READ_1K_10K", 900.0)],
        ));
        assert!(codes(&SmallReads, &facts).is_empty());
        facts.posix[0] =
            record(Module::Posix, 1, 0, &[("POSIX_READS", 50000.0), ("POSIX_SIZE_READ_1K_10K", 2000.0)]);
        assert!(codes(&SmallReads, &facts).is_empty());
    }
}
