//! `P07`: High share of requests misaligned in memory (Drishti's trigger on Darshan counters).

use crate::darshan::rules::pairs;
use crate::darshan::{DarshanContext, DarshanRule};
use crate::{Finding, RuleDoc, rule};
use ioscout_darshan::counters::POSIX_MEM_NOT_ALIGNED;

rule! {
    pub struct MisalignedMemory {
        code: "P07",
        family: Drishti,
        title: "High share of requests misaligned in memory",
        detects: "POSIX requests not aligned in memory (POSIX_MEM_NOT_ALIGNED) against all POSIX reads and writes.",
        why: "Buffers not aligned in memory force extra copies in the kernel and defeat direct I/O.",
        evidence: "misaligned requests, their share, whether the LUSTRE module is present.",
        thresholds: "fires when misaligned / (reads + writes) > misaligned_requests (0.1); Drishti level HIGH.",
        references: "Bez, Ather, Byna, Drishti: Guiding End-Users in the I/O Optimization Journey, PDSW 2022; hpc-io/drishti-io 0.8 (drishti/includes/module.py, drishti/handlers/handle_darshan.py).",
    }
}

impl DarshanRule for MisalignedMemory {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        pairs::misaligned(context, &Self::DOC, POSIX_MEM_NOT_ALIGNED, "memory")
    }
}
