//! `WIS-SIZE-MIX` on Darshan counters: POSIX bytes lean strongly to reads or to writes.

use crate::darshan::rules::pairs;
use crate::darshan::{DarshanContext, DarshanRule};
use crate::{Finding, RuleDoc, rule};
use ioscout_darshan::counters::{POSIX_BYTES_READ, POSIX_BYTES_WRITTEN};

rule! {
    pub struct SizeMix {
        code: "WIS-SIZE-MIX",
        family: Wisio,
        title: "Read/write size imbalance: POSIX bytes lean strongly to one direction",
        detects: "|POSIX_BYTES_WRITTEN - POSIX_BYTES_READ| / (POSIX_BYTES_READ + POSIX_BYTES_WRITTEN) over all POSIX records (WisIO's read/write size imbalance, from Darshan counters).",
        why: "Context rather than a bottleneck: it says which direction to optimise first (read-ahead and caching, or write-behind and aggregation).",
        evidence: "reads and writes (size), the imbalance.",
        thresholds: "fires when the imbalance > 0.1 (WisIO); score = 0.29 x (x - 0.1) / 0.9 (never above low).",
        references: "Yildirim et al., WisIO, ICS 2025 (wisio/rules.py); Drishti P01-P04.",
    }
}

impl DarshanRule for SizeMix {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        pairs::wisio_mix(context, &Self::DOC, POSIX_BYTES_READ, POSIX_BYTES_WRITTEN)
    }
}
