//! `PIPE-REDUNDANT-READ`: files read more than once (the re-read test Drishti's P09 means but does not do).

use crate::darshan::rules::pairs;
use crate::darshan::{DarshanContext, DarshanRule, Direction};
use crate::{Finding, RuleDoc, rule};

rule! {
    pub struct RedundantReadTraffic {
        code: "PIPE-REDUNDANT-READ",
        family: Pipeline,
        title: "Redundant read traffic: the same file data read more than once",
        detects: "Per file, bytes read beyond the file's extent (highest offset read + 1), summed over files: data moved again, by the same rank or by several ranks read the same file.",
        why: "Moving the same bytes again costs file-system bandwidth and time that caching, staging to node-local storage, or one collective read and a broadcast save. Multi-epoch training re-reads its dataset by design: the finding then measures what a cache would remove.",
        evidence: "redundant bytes, their share of the bytes read, the file with the most.",
        thresholds: "fires when redundant bytes > 10 % of the bytes read and > 1 MiB; severity as a Drishti WARN, scored by the I/O share of the job.",
        references: "Drishti's intent for P09 (PDSW 2022, 'redundant traffic'); COMPATIBILITY.md D9; the optimisation pipeline's caching and staging techniques (GLANCED-IO, HPDC 2026).",
    }
}

impl DarshanRule for RedundantReadTraffic {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        pairs::redundant_traffic(context, &Self::DOC, Direction::Read)
    }
}
