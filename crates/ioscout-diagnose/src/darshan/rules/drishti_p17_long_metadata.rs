//! `P17`: Ranks spending more than 30 s in metadata (Drishti's trigger on Darshan counters).

use crate::darshan::{DarshanContext, DarshanRule, Level, Module};
use crate::{Finding, RuleDoc, rule};
use ioscout_darshan::counters::POSIX_F_META_TIME;

rule! {
    pub struct LongMetadata {
        code: "P17",
        family: Drishti,
        title: "Ranks spending more than 30 s in metadata",
        detects: "POSIX records whose metadata time (open, stat, seek, close...) exceeds 30 seconds, counted as ranks (Drishti counts file x rank records and calls them ranks: COMPATIBILITY.md D11).",
        why: "Metadata operations serialise on the metadata server; a rank that spends tens of seconds there is waiting, not computing. Drishti recommends combining files, reducing or caching metadata operations.",
        evidence: "ranks over the threshold, the longest metadata time.",
        thresholds: "fires when one or more ranks (a shared record counts as one) have POSIX_F_META_TIME > metadata_time_rank (30 s); Drishti level HIGH.",
        references: "Bez, Ather, Byna, Drishti: Guiding End-Users in the I/O Optimization Journey, PDSW 2022; hpc-io/drishti-io 0.8 (drishti/includes/module.py, drishti/handlers/handle_darshan.py).",
    }
}

impl DarshanRule for LongMetadata {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        let limit = context.thresholds.metadata_time_rank;
        let slow: Vec<&ioscout_darshan::CounterRecord> = context
            .records(Module::Posix)
            .iter()
            .filter(|record| context.fvalue(record, POSIX_F_META_TIME) > limit)
            .collect();
        if slow.is_empty() {
            return Vec::new();
        }
        let mut ranks: Vec<i64> = slow.iter().map(|record| record.rank).collect();
        ranks.sort_unstable();
        ranks.dedup();
        let longest = slow.iter().map(|record| context.fvalue(record, POSIX_F_META_TIME)).fold(0.0, f64::max);
        let why = format!(
            "{} rank(s) spend more than {limit} s in metadata operations (longest {longest:.1} s)",
            ranks.len()
        );
        vec![
            context
                .finding(&Self::DOC, Level::High, "POSIX metadata", why)
                .with("ranks_over_threshold", ranks.len() as f64, "count")
                .with("longest_metadata_time", longest, "s"),
        ]
    }
}
