//! `WIS-OP-MIX` on Darshan counters: POSIX operations lean strongly to reads or to writes.

use crate::darshan::rules::pairs;
use crate::darshan::{DarshanContext, DarshanRule};
use crate::{Finding, RuleDoc, rule};

rule! {
    pub struct OperationMix {
        code: "WIS-OP-MIX",
        family: Wisio,
        title: "Read/write operation imbalance: POSIX operations lean strongly to one direction",
        detects: "|POSIX_WRITES - POSIX_READS| / (POSIX_READS + POSIX_WRITES) over all POSIX records (WisIO's read/write operation imbalance, from Darshan counters).",
        why: "Context rather than a bottleneck: it says which direction to optimise first (read-ahead and caching, or write-behind and aggregation).",
        evidence: "reads and writes (operation), the imbalance.",
        thresholds: "fires when the imbalance > 0.1 (WisIO); score = 0.29 x (x - 0.1) / 0.9 (never above low).",
        references: "Yildirim et al., WisIO, ICS 2025 (wisio/rules.py); Drishti P01-P04.",
    }
}

impl DarshanRule for OperationMix {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        pairs::wisio_mix(context, &Self::DOC, "POSIX_READS", "POSIX_WRITES")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::darshan::Module;
    use crate::darshan::testing::{codes, facts, record};

    #[test]
    fn fires_on_a_lopsided_mix() {
        let mut facts = facts(1, 10.0, &["POSIX"]);
        facts.posix.push(record(Module::Posix, 1, 0, &[("POSIX_READS", 900.0), ("POSIX_WRITES", 100.0)]));
        assert_eq!(codes(&OperationMix, &facts), ["WIS-OP-MIX"]);
    }

    #[test]
    fn stays_quiet_on_a_balanced_mix() {
        let mut facts = facts(1, 10.0, &["POSIX"]);
        facts.posix.push(record(Module::Posix, 1, 0, &[("POSIX_READS", 520.0), ("POSIX_WRITES", 480.0)]));
        assert!(codes(&OperationMix, &facts).is_empty());
    }
}
