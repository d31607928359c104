//! `P21`: Write imbalance across the ranks of individual files (Drishti's trigger on Darshan counters).

use crate::darshan::rules::pairs;
use crate::darshan::{DarshanContext, DarshanRule, Direction};
use crate::{Finding, RuleDoc, rule};

rule! {
    pub struct IndividualWriteImbalance {
        code: "P21",
        family: Drishti,
        title: "Write imbalance across the ranks of individual files",
        detects: "Files without a shared record, accessed by one or more ranks: the largest and smallest bytes written by a rank that wrote or has a record without reads of the file differ by more than 30 % of the largest.",
        why: "Uneven work per rank makes the job wait for the rank with the most; Drishti recommends balancing it, tuning striping, NO_FILL for netCDF/HDF5, and collective I/O when rank 0 alone does the I/O. A rank that only read the file is not one of the ranks compared (Drishti counts its 0 bytes, so every file one process wrote and another read is 100 % imbalanced; COMPATIBILITY.md D18); ranks without a record of the file are not seen, so IOS-PARALLELISM looks at rank balance across all ranks.",
        evidence: "files with the imbalance, the largest imbalance.",
        thresholds: "fires when (max - min) / max > imbalance_size (0.3) on one or more files; Drishti level HIGH.",
        references: "Bez, Ather, Byna, Drishti: Guiding End-Users in the I/O Optimization Journey, PDSW 2022; hpc-io/drishti-io 0.8 (drishti/includes/module.py, drishti/handlers/handle_darshan.py).",
    }
}

impl DarshanRule for IndividualWriteImbalance {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        pairs::individual_imbalance(context, &Self::DOC, Direction::Write)
    }
}
