//! `P16`: High number of small writes to shared files (Drishti's trigger on Darshan counters).

use crate::darshan::rules::pairs;
use crate::darshan::{DarshanContext, DarshanRule, Direction};
use crate::{Finding, RuleDoc, rule};

rule! {
    pub struct SharedSmallWrites {
        code: "P16",
        family: Drishti,
        title: "High number of small writes to shared files",
        detects: "Small (< 1 MiB) writes on shared files only (Darshan's reduced records, rank -1).",
        why: "Many ranks issuing small requests to one file contend for its locks and stripes; Drishti recommends coalescing them with MPI-IO collective operations.",
        evidence: "small writes to shared files, their share.",
        thresholds: "fires when small / shared requests > small_requests (0.1) and small > small_requests_absolute (1000); Drishti level HIGH.",
        references: "Bez, Ather, Byna, Drishti: Guiding End-Users in the I/O Optimization Journey, PDSW 2022; hpc-io/drishti-io 0.8 (drishti/includes/module.py, drishti/handlers/handle_darshan.py).",
    }
}

impl DarshanRule for SharedSmallWrites {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        pairs::small_requests(context, &Self::DOC, Direction::Write, true)
    }
}
