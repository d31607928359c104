//! `P05`: High number of small read requests (under 1 MiB) (Drishti's trigger on Darshan counters).

use crate::darshan::rules::pairs;
use crate::darshan::{DarshanContext, DarshanRule, Direction};
use crate::{Finding, RuleDoc, rule};

rule! {
    pub struct SmallReads {
        code: "P05",
        family: Drishti,
        title: "High number of small read requests (under 1 MiB)",
        detects: "POSIX reads in the five size buckets under 1 MiB, over all records; the files with more than half of those requests are named.",
        why: "Each small request pays the whole per-request cost (system call, RPC, lock) for little data; Drishti recommends buffering into larger contiguous requests, or MPI-IO collective operations when MPI-IO is in use.",
        evidence: "small reads, their share of reads, the files with most of them.",
        thresholds: "fires when small / reads > small_requests (0.1) and small > small_requests_absolute (1000); Drishti level HIGH.",
        references: "Bez, Ather, Byna, Drishti: Guiding End-Users in the I/O Optimization Journey, PDSW 2022; hpc-io/drishti-io 0.8 (drishti/includes/module.py, drishti/handlers/handle_darshan.py).",
    }
}

impl DarshanRule for SmallReads {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        pairs::small_requests(context, &Self::DOC, Direction::Read, false)
    }
}
