//! `M07`: MPI-IO writes are all blocking (Drishti's trigger on Darshan counters).

use crate::darshan::rules::pairs;
use crate::darshan::{DarshanContext, DarshanRule, Direction};
use crate::{Finding, RuleDoc, rule};

rule! {
    pub struct BlockingWrites {
        code: "M07",
        family: Drishti,
        title: "MPI-IO writes are all blocking",
        detects: "An MPI-IO job with no non-blocking write (MPIIO_NB_WRITES = 0).",
        why: "Non-blocking calls (MPI_File_i*, split collectives, the HDF5 asynchronous VOL connector) let computation overlap the I/O. Drishti warns on every MPI-IO job without them, whatever the I/O costs (COMPATIBILITY.md D10): ioscout keeps the trigger and scores it by the I/O share of the job.",
        evidence: "non-blocking writes (zero), whether HDF5 is in use.",
        thresholds: "fires when MPI-IO is used and MPIIO_NB_WRITES = 0; Drishti level WARN, scored by the I/O share.",
        references: "Bez, Ather, Byna, Drishti: Guiding End-Users in the I/O Optimization Journey, PDSW 2022; hpc-io/drishti-io 0.8 (drishti/includes/module.py, drishti/handlers/handle_darshan.py).",
    }
}

impl DarshanRule for BlockingWrites {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        pairs::blocking(context, &Self::DOC, Direction::Write)
    }
}
