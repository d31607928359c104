//! `P08`: High share of requests misaligned in file (Drishti's trigger on Darshan counters).

use crate::darshan::rules::pairs;
use crate::darshan::{DarshanContext, DarshanRule};
use crate::{Finding, RuleDoc, rule};
use ioscout_darshan::counters::POSIX_FILE_NOT_ALIGNED;

rule! {
    pub struct MisalignedFile {
        code: "P08",
        family: Drishti,
        title: "High share of requests misaligned in file",
        detects: "POSIX requests not aligned in file (POSIX_FILE_NOT_ALIGNED) against all POSIX reads and writes.",
        why: "Requests that straddle file-system block or stripe boundaries touch two blocks (or two servers) and serialise on their locks; Drishti recommends aligning requests to the block or stripe size (on Lustre, a stripe size that matches the request size).",
        evidence: "misaligned requests, their share, whether the LUSTRE module is present.",
        thresholds: "fires when misaligned / (reads + writes) > misaligned_requests (0.1); Drishti level HIGH.",
        references: "Bez, Ather, Byna, Drishti: Guiding End-Users in the I/O Optimization Journey, PDSW 2022; hpc-io/drishti-io 0.8 (drishti/includes/module.py, drishti/handlers/handle_darshan.py).",
    }
}

impl DarshanRule for MisalignedFile {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        pairs::misaligned(context, &Self::DOC, POSIX_FILE_NOT_ALIGNED, "file")
    }
}
