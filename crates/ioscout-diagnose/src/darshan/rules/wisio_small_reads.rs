//! `WIS-SMALL-READ` on Darshan counters: most POSIX time goes to reads averaging under 1 MiB.

use crate::darshan::rules::pairs;
use crate::darshan::{DarshanContext, DarshanRule, Direction};
use crate::{Finding, RuleDoc, rule};

rule! {
    pub struct SmallReads {
        code: "WIS-SMALL-READ",
        family: Wisio,
        title: "Small reads: most POSIX time goes to reads of less than 1 MiB",
        detects: "POSIX read time over read + write + metadata time above one half, with the mean read (POSIX_BYTES_READ / POSIX_READS) under 1 MiB (WisIO's small_reads, from Darshan counters).",
        why: "Small requests pay the whole per-request cost for little data; when they also take most of the I/O time they are the bottleneck.",
        evidence: "read time share, mean read size, I/O share of the run.",
        thresholds: "fires when read time / POSIX time > 0.5 and mean size < 1 MiB; score = (0.5 x (f - 0.5) / 0.5 + 0.5 x (1 MiB - s) / 1 MiB) x clip01(I/O share / 0.2) (DFAnalyzer's small_read_dominance formula).",
        references: "Yildirim et al., WisIO, ICS 2025 (wisio/rules.py); DFAnalyzer rules/posix.yaml; shared/research/diagnosis.md 4.",
    }
}

impl DarshanRule for SmallReads {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        pairs::wisio_small(context, &Self::DOC, Direction::Read)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::darshan::Module;
    use crate::darshan::testing::{codes, facts, record};

    #[test]
    fn fires_on_small_reads_that_take_the_time() {
        let mut facts = facts(1, 10.0, &["POSIX"]);
        facts.posix.push(record(
            Module::Posix,
            1,
            0,
            &[("POSIX_READS", 1e4), ("POSIX_BYTES_READ", 4096e4), ("POSIX_F_READ_TIME", 3.0)],
        ));
        assert_eq!(codes(&SmallReads, &facts), ["WIS-SMALL-READ"]);
    }

    #[test]
    fn stays_quiet_on_large_reads() {
        let mut facts = facts(1, 10.0, &["POSIX"]);
        facts.posix.push(record(
            Module::Posix,
            1,
            0,
            &[("POSIX_READS", 10.0), ("POSIX_BYTES_READ", 1e8), ("POSIX_F_READ_TIME", 3.0)],
        ));
        assert!(codes(&SmallReads, &facts).is_empty());
    }
}
