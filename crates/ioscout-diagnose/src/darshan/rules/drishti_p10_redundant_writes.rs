//! `P10`: Highest offset written beyond the bytes written (Drishti's "redundant write traffic") (Drishti's trigger on Darshan counters).

use crate::darshan::rules::pairs;
use crate::darshan::{DarshanContext, DarshanRule, Direction};
use crate::{Finding, RuleDoc, rule};

rule! {
    pub struct RedundantWrites {
        code: "P10",
        family: Drishti,
        title: "Highest offset written beyond the bytes written (Drishti's \"redundant write traffic\")",
        detects: "Drishti's condition, kept for its code: the highest offset written in any file exceeds the bytes written over all files. Drishti reports it as redundant traffic, but the test says the opposite: the job written sparsely or with strides (holes between requests), not the same data twice (COMPATIBILITY.md D9). ioscout keeps the code so reports compare, says what the condition means, and detects real re-writes per file in PIPE-REDUNDANT-WRITE.",
        why: "Sparse or strided access is not itself a problem; it matters when it comes with small requests (P05/P06) or random access (P11/P13).",
        evidence: "highest offset written, bytes written.",
        thresholds: "fires when max(POSIX_MAX_BYTE_WRITTEN) > sum(POSIX_BYTES_WRITTEN); Drishti level WARN, reported by ioscout at INFO (a characterisation).",
        references: "Bez, Ather, Byna, Drishti: Guiding End-Users in the I/O Optimization Journey, PDSW 2022; hpc-io/drishti-io 0.8 (drishti/includes/module.py, drishti/handlers/handle_darshan.py).",
    }
}

impl DarshanRule for RedundantWrites {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        pairs::sparse_access(context, &Self::DOC, Direction::Write, "PIPE-REDUNDANT-WRITE")
    }
}
