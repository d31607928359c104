//! `P11`: High number of random read operations (Drishti's trigger on Darshan counters).

use crate::darshan::rules::pairs;
use crate::darshan::{DarshanContext, DarshanRule, Direction};
use crate::{Finding, RuleDoc, rule};

rule! {
    pub struct RandomReads {
        code: "P11",
        family: Drishti,
        title: "High number of random read operations",
        detects: "POSIX reads that were neither consecutive nor sequential: per record, the reads after the first minus POSIX_SEQ_READS (which includes the consecutive ones). Drishti counts every file's first read as random, so a file read once is random access to it; here it is not (COMPATIBILITY.md).",
        why: "Random requests defeat read-ahead and write-behind and turn streaming into seeks; Drishti recommends changing the data model towards consecutive or sequential access (or collective I/O to reorder it).",
        evidence: "reads, their consecutive, sequential and random shares.",
        thresholds: "fires when random / reads > random_operations (0.2) and random > random_operations_absolute (1000); Drishti level HIGH.",
        references: "Bez, Ather, Byna, Drishti: Guiding End-Users in the I/O Optimization Journey, PDSW 2022; hpc-io/drishti-io 0.8 (drishti/includes/module.py, drishti/handlers/handle_darshan.py).",
    }
}

impl DarshanRule for RandomReads {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        pairs::access_order(context, &Self::DOC, Direction::Read, true)
    }
}
