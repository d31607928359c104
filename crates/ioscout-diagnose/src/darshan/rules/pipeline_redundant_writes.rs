//! `PIPE-REDUNDANT-WRITE`: files written more than once (the re-write test Drishti's P10 means but does not do).

use crate::darshan::rules::pairs;
use crate::darshan::{DarshanContext, DarshanRule, Direction};
use crate::{Finding, RuleDoc, rule};

rule! {
    pub struct RedundantWriteTraffic {
        code: "PIPE-REDUNDANT-WRITE",
        family: Pipeline,
        title: "Redundant write traffic: the same file data written more than once",
        detects: "Per file, bytes written beyond the file's extent (highest offset written + 1), summed over files: data moved again, by the same rank or by several ranks written the same file.",
        why: "Moving the same bytes again costs file-system bandwidth and time that caching, staging to node-local storage, or one collective write and a broadcast save. Multi-epoch training re-reads its dataset by design: the finding then measures what a cache would remove.",
        evidence: "redundant bytes, their share of the bytes written, the file with the most.",
        thresholds: "fires when redundant bytes > 10 % of the bytes written and > 1 MiB; severity as a Drishti WARN, scored by the I/O share of the job.",
        references: "Drishti's intent for P10 (PDSW 2022, 'redundant traffic'); COMPATIBILITY.md D9; the optimisation pipeline's caching and staging techniques (GLANCED-IO, HPDC 2026).",
    }
}

impl DarshanRule for RedundantWriteTraffic {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        pairs::redundant_traffic(context, &Self::DOC, Direction::Write)
    }
}
