//! `P04`: Read-size intensive: more bytes read than written, by more than 10 % of the bytes (Drishti's trigger on Darshan counters).

use crate::darshan::rules::pairs;
use crate::darshan::{DarshanContext, DarshanRule};
use crate::{Finding, RuleDoc, rule};
use ioscout_darshan::counters::{POSIX_BYTES_READ, POSIX_BYTES_WRITTEN};

rule! {
    pub struct ReadSizeIntensive {
        code: "P04",
        family: Drishti,
        title: "Read-size intensive: more bytes read than written, by more than 10 % of the bytes",
        detects: "POSIX bytes read against bytes written over all records: the job is size-intensive in one direction.",
        why: "A characterisation, not a problem: it says which direction the optimisation should look at first.",
        evidence: "bytes read, bytes written, their shares.",
        thresholds: "fires when the larger exceeds the smaller and |difference| / total > imbalance_operations (0.1); Drishti level INFO.",
        references: "Bez, Ather, Byna, Drishti: Guiding End-Users in the I/O Optimization Journey, PDSW 2022; hpc-io/drishti-io 0.8 (drishti/includes/module.py, drishti/handlers/handle_darshan.py).",
    }
}

impl DarshanRule for ReadSizeIntensive {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        pairs::intensity(
            context,
            &Self::DOC,
            POSIX_BYTES_READ,
            POSIX_BYTES_WRITTEN,
            ("bytes read", "bytes written"),
        )
    }
}
