//! `M03`: MPI-IO writes without collective operations (Drishti's trigger on Darshan counters).

use crate::darshan::rules::pairs;
use crate::darshan::{DarshanContext, DarshanRule, Direction};
use crate::{Finding, RuleDoc, rule};

rule! {
    pub struct NoCollectiveWrites {
        code: "M03",
        family: Drishti,
        title: "MPI-IO writes without collective operations",
        detects: "A job that issues more than 1,000 MPI-IO writes, all independent.",
        why: "Independent MPI-IO calls reach the file system one rank at a time; collective calls let ROMIO aggregate them into large contiguous requests (two-phase I/O). Drishti recommends collective calls and one aggregator per node.",
        evidence: "independent and collective writes.",
        thresholds: "fires when MPIIO_COLL_WRITES = 0 and independent + collective > collective_operations_absolute (1000); Drishti level HIGH.",
        references: "Bez, Ather, Byna, Drishti: Guiding End-Users in the I/O Optimization Journey, PDSW 2022; hpc-io/drishti-io 0.8 (drishti/includes/module.py, drishti/handlers/handle_darshan.py).",
    }
}

impl DarshanRule for NoCollectiveWrites {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        pairs::collective_usage(context, &Self::DOC, Direction::Write, false)
    }
}
