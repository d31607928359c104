//! `WIS-OP-MIX` on Darshan counters: POSIX operations lean strongly to reads or to writes.

use crate::darshan::rules::pairs;
use crate::darshan::{DarshanContext, DarshanRule};
use crate::{Finding, RuleDoc, rule};
use ioscout_darshan::counters::{POSIX_READS, POSIX_WRITES};

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
        pairs::wisio_mix(context, &Self::DOC, POSIX_READS, POSIX_WRITES)
    }
}
