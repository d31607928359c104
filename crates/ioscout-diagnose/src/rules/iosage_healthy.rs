//! `IOS-HEALTHY`: IOSage's healthy class: nothing in the I/O calls for a change.

use crate::{Context, Finding, Rule, RuleDoc, rule};

rule! {
    pub struct Healthy {
        code: "IOS-HEALTHY",
        family: Iosage,
        title: "Healthy I/O: the I/O takes little of the job, or moves large requests with little metadata",
        detects: "A run whose POSIX I/O takes less than 10 % of the job in the busiest process, or less than 30 % with data calls of 1 MiB or more on average and metadata under 20 % of the POSIX time. Reported at severity none, as a positive statement (shown with --min-severity none).",
        why: "Saying so prevents over-diagnosis (IOAgent reported 110 false positives against 93 true ones on TraceBench): optimisation effort belongs elsewhere (compute, communication).",
        evidence: "the busiest process's POSIX share of the job, mean bytes per data call, metadata share of POSIX time.",
        thresholds: "fires when POSIX share of the job < 0.1, or < 0.3 with mean data transfer >= 1 MiB and metadata / POSIX time < 0.2; score 0.",
        references: "IOSage healthy class (shared/research/diagnosis.md 3.1); IOAgent over-diagnosis on TraceBench (3.3).",
        change: "None for I/O; look at compute and communication.",
        not_when: "Another rule reports a high or critical finding: the share may hide a straggler or a single slow phase.",
    }
}

impl Rule for Healthy {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &Context<'_>) -> Vec<Finding> {
        let job = context.job_time_s();
        let Some(posix) = context.slot("posix") else { return Vec::new() };
        if job <= 0.0 || posix.time_s <= 0.0 {
            return Vec::new();
        }
        let share = posix.max_process_time_s() / job;
        let mean = context.slot("posix_data").and_then(crate::SlotTotals::mean_size).unwrap_or(0.0);
        let metadata = context.slot("posix_metadata").map_or(0.0, |totals| totals.time_s) / posix.time_s;
        let large = mean >= crate::rules::MIB && metadata < 0.2 && share < 0.3;
        if share >= 0.1 && !large {
            return Vec::new();
        }
        let why = if share < 0.1 {
            format!("POSIX I/O takes {:.1}% of the job", share * 100.0)
        } else {
            format!(
                "data calls move {:.1} MiB on average with {:.0}% metadata",
                mean / crate::rules::MIB,
                metadata * 100.0
            )
        };
        vec![
            Finding::new(&Self::DOC, 0.0, "posix", why)
                .with("posix_job_share", share, "fraction")
                .with("posix_data_size_mean", mean, "bytes")
                .with("posix_metadata_time_frac", metadata, "fraction"),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::{analysis, event, header, posix};

    /// Reads of `size` bytes inside a 1-s main event: 0.25 s of reads, 25 % of the job.
    fn trace(size: i64, open: i64) -> Vec<String> {
        let mut lines = header();
        lines.push(event(7, "main", "app", 1_000_000, 1_000_000, ""));
        for index in 0..50 {
            lines.push(posix(7, "open64", 1_000_000 + index * 10_000, open, 0));
            lines.push(posix(7, "read", 1_001_000 + index * 10_000, 5_000, size));
        }
        lines
    }

    #[test]
    fn fires_on_large_sequential_reads() {
        let analysis = analysis("healthy-positive", "posix", &trace(8 << 20, 10));
        let findings = Healthy.evaluate(&Context::new(&analysis, crate::Parameters::default()));
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].label, crate::Label::None);
    }

    #[test]
    fn stays_quiet_on_small_metadata_heavy_io() {
        let analysis = analysis("healthy-negative", "posix", &trace(4096, 4_000));
        assert!(Healthy.evaluate(&Context::new(&analysis, crate::Parameters::default())).is_empty());
    }
}
