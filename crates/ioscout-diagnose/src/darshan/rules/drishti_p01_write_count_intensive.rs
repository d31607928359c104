//! `P01`: Write-operation intensive: writes outnumber reads by more than 10 % of operations (Drishti's trigger on Darshan counters).

use crate::darshan::rules::pairs;
use crate::darshan::{DarshanContext, DarshanRule};
use crate::{Finding, RuleDoc, rule};
use ioscout_darshan::counters::{POSIX_READS, POSIX_WRITES};

rule! {
    pub struct WriteCountIntensive {
        code: "P01",
        family: Drishti,
        title: "Write-operation intensive: writes outnumber reads by more than 10 % of operations",
        detects: "POSIX writes against reads over all records: the job is operation-intensive in one direction.",
        why: "A characterisation, not a problem: it says which direction the optimisation should look at first.",
        evidence: "writes, reads, their shares.",
        thresholds: "fires when the larger exceeds the smaller and |difference| / total > imbalance_operations (0.1); Drishti level INFO.",
        references: "Bez, Ather, Byna, Drishti: Guiding End-Users in the I/O Optimization Journey, PDSW 2022; hpc-io/drishti-io 0.8 (drishti/includes/module.py, drishti/handlers/handle_darshan.py).",
    }
}

impl DarshanRule for WriteCountIntensive {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        pairs::intensity(context, &Self::DOC, POSIX_WRITES, POSIX_READS, ("writes", "reads"))
    }
}
