//! `M04`: MPI-IO collective reads in use (Drishti's trigger on Darshan counters).

use crate::darshan::rules::pairs;
use crate::darshan::{DarshanContext, DarshanRule, Direction};
use crate::{Finding, RuleDoc, rule};

rule! {
    pub struct CollectiveReads {
        code: "M04",
        family: Drishti,
        title: "MPI-IO collective reads in use",
        detects: "MPI-IO reads with at least one collective call: a best practice followed.",
        why: "Not a problem: collective buffering lets MPI-IO aggregate requests across ranks. Reported as Drishti does (level OK), with score 0.",
        evidence: "independent and collective reads.",
        thresholds: "fires when MPIIO_COLL_READS > 0; level OK.",
        references: "Bez, Ather, Byna, Drishti: Guiding End-Users in the I/O Optimization Journey, PDSW 2022; hpc-io/drishti-io 0.8 (drishti/includes/module.py, drishti/handlers/handle_darshan.py).",
    }
}

impl DarshanRule for CollectiveReads {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        pairs::collective_usage(context, &Self::DOC, Direction::Read, true)
    }
}
