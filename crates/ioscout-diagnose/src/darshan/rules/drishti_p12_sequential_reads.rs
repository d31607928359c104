//! `P12`: Mostly consecutive and sequential reads (Drishti's trigger on Darshan counters).

use crate::darshan::rules::pairs;
use crate::darshan::{DarshanContext, DarshanRule, Direction};
use crate::{Finding, RuleDoc, rule};

rule! {
    pub struct SequentialReads {
        code: "P12",
        family: Drishti,
        title: "Mostly consecutive and sequential reads",
        detects: "The job issues reads and the random-read trigger does not fire: a best practice followed.",
        why: "Not a problem: streaming access is what file systems serve best. Reported as Drishti does (level OK), with score 0.",
        evidence: "reads, their consecutive, sequential and random shares.",
        thresholds: "fires whenever there are reads and the random trigger does not (Drishti: no threshold of its own); level OK.",
        references: "Bez, Ather, Byna, Drishti: Guiding End-Users in the I/O Optimization Journey, PDSW 2022; hpc-io/drishti-io 0.8 (drishti/includes/module.py, drishti/handlers/handle_darshan.py).",
    }
}

impl DarshanRule for SequentialReads {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        pairs::access_order(context, &Self::DOC, Direction::Read, false)
    }
}
