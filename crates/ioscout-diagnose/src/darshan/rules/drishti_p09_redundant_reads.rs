//! `P09`: Highest offset read beyond the bytes read (Drishti's "redundant read traffic") (Drishti's trigger on Darshan counters).

use crate::darshan::rules::pairs;
use crate::darshan::{DarshanContext, DarshanRule, Direction};
use crate::{Finding, RuleDoc, rule};

rule! {
    pub struct RedundantReads {
        code: "P09",
        family: Drishti,
        title: "Highest offset read beyond the bytes read (Drishti's \"redundant read traffic\")",
        detects: "Drishti's condition, kept for its code: the highest offset read in any file exceeds the bytes read over all files. Drishti reports it as redundant traffic, but the test says the opposite: the job read sparsely or with strides (holes between requests), not the same data twice (COMPATIBILITY.md D9). ioscout keeps the code so reports compare, says what the condition means, and detects real re-reads per file in PIPE-REDUNDANT-READ.",
        why: "Sparse or strided access is not itself a problem; it matters when it comes with small requests (P05/P06) or random access (P11/P13).",
        evidence: "highest offset read, bytes read.",
        thresholds: "fires when max(POSIX_MAX_BYTE_READ) > sum(POSIX_BYTES_READ); Drishti level WARN, reported by ioscout at INFO (a characterisation).",
        references: "Bez, Ather, Byna, Drishti: Guiding End-Users in the I/O Optimization Journey, PDSW 2022; hpc-io/drishti-io 0.8 (drishti/includes/module.py, drishti/handlers/handle_darshan.py).",
    }
}

impl DarshanRule for RedundantReads {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        pairs::sparse_access(context, &Self::DOC, Direction::Read, "PIPE-REDUNDANT-READ")
    }
}
