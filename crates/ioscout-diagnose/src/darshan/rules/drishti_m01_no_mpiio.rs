//! `M01`: The job does not use MPI-IO (Drishti's trigger on Darshan counters).

use crate::darshan::{DarshanContext, DarshanRule, Level};
use crate::{Finding, RuleDoc, rule};

rule! {
    pub struct NoMpiIo {
        code: "M01",
        family: Drishti,
        title: "The job does not use MPI-IO",
        detects: "A log without an MPI-IO module; never on a DFTracer trace, which records no MPI-IO calls (their absence there is not visible, not absent).",
        why: "Without MPI-IO a parallel job cannot use collective buffering or data sieving; Drishti recommends MPI-IO (or a library over it). For a single process (a Python data loader, a serial tool) the advice does not apply: ioscout still reports the fact, at INFO level, and says so.",
        evidence: "processes.",
        thresholds: "fires when MPI-IO is absent; Drishti level WARN for parallel jobs, INFO for a single process (Drishti warns on every non-MPI job: COMPATIBILITY.md D10).",
        references: "Bez, Ather, Byna, Drishti: Guiding End-Users in the I/O Optimization Journey, PDSW 2022; hpc-io/drishti-io 0.8 (drishti/includes/module.py, drishti/handlers/handle_darshan.py).",
    }
}

impl DarshanRule for NoMpiIo {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        // An MPI-IO region that could not be read is not "no MPI-IO", nor is a source that
        // cannot see MPI-IO calls (a DFTracer trace).
        if context.has_module("MPI-IO")
            || context.facts.unread_modules.contains("MPI-IO")
            || context.facts.not_visible.contains("MPI-IO")
        {
            return Vec::new();
        }
        let processes = context.facts.nprocs;
        let (level, why) = if processes > 1 {
            (
                Level::Warn,
                format!(
                    "{processes} processes do I/O without MPI-IO (no collective buffering or data sieving)"
                ),
            )
        } else {
            (
                Level::Info,
                "one process, no MPI-IO: switching to MPI-IO would not help a single process".to_string(),
            )
        };
        vec![context.finding(&Self::DOC, level, "MPI-IO", why).with("processes", processes as f64, "count")]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::darshan::testing::{facts, facts_single};
    use crate::darshan::{DarshanFacts, DrishtiThresholds};

    // The findings of both cases are pinned in `table_tests`; this checks the order between them.
    #[test]
    fn a_single_process_scores_below_a_parallel_job() {
        let score = |facts: DarshanFacts| {
            NoMpiIo.evaluate(&DarshanContext::new(&facts, DrishtiThresholds::default()))[0].score
        };
        assert!(score(facts_single()) < score(facts(64, 10.0, &["POSIX"])));
    }

    /// A DFTracer trace cannot see MPI-IO calls: its derived records never say "without MPI-IO".
    #[test]
    fn a_source_that_cannot_see_mpi_io_gets_no_finding() {
        let mut traced = facts(64, 10.0, &["POSIX"]);
        traced.not_visible.insert("MPI-IO".to_string());
        assert!(NoMpiIo.evaluate(&DarshanContext::new(&traced, DrishtiThresholds::default())).is_empty());
    }
}
