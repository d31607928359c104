//! `PIPE-OP-COUNT`: many tiny POSIX operations that cost a negligible share of the job.

use crate::{Context, Finding, Rule, RuleDoc, rule};

rule! {
    pub struct OpCountBound {
        code: "PIPE-OP-COUNT",
        family: Pipeline,
        title: "Op-count-bound but negligible I/O: many tiny operations, little of the job's time",
        detects: "POSIX/STDIO activity of at least 10,000 calls averaging under 64 KiB per data call whose bottleneck time is under 5 % of the job.",
        why: "Such I/O is real but structurally negligible, and its shape is op-count-bound rather than bandwidth-bound: striping and MPI-IO hints target few large transfers and change nothing here; only coalescing writes in the application would, and it is rarely worth it. Reported so that the small-request findings on the same calls are read in proportion.",
        evidence: "POSIX calls, mean bytes per data call, POSIX share of the job.",
        thresholds: "fires when calls >= 10,000, mean data transfer < 64 KiB and POSIX time / job time < 0.05; score 0.1 (low: it explains, it does not accuse).",
        references: "Optimisation pipeline: 'Distinguish op-count-bound I/O from bandwidth-bound I/O before picking a lever' (GLANCED-IO, HPDC 2026; vpic-kokkos at 128 ranks: 340.85 M operations, 325 MB, 1.65 s of a 210.2 s job).",
    }
}

impl Rule for OpCountBound {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &Context<'_>) -> Vec<Finding> {
        let (Some(posix), Some(line)) = (context.slot("posix"), context.layer("posix")) else {
            return Vec::new();
        };
        let job = context.job_time_s();
        let Some(mean_size) = posix.mean_size() else { return Vec::new() };
        if job <= 0.0 {
            return Vec::new();
        }
        let share = line.time_s / job;
        if posix.count < 10_000 || mean_size >= 65_536.0 || share >= 0.05 {
            return Vec::new();
        }
        let why = format!(
            "{} POSIX calls of {} on average take {:.1}% of the job: not a bandwidth problem",
            posix.count,
            crate::human_bytes(mean_size),
            share * 100.0
        );
        vec![
            Finding::new(&Self::DOC, 0.1, "posix", why)
                .with("posix_count", posix.count as f64, "count")
                .with("posix_size_mean", mean_size, "bytes")
                .with("posix_job_share", share, "fraction")
                .crossing("posix_count >= 10000")
                .crossing("posix_size_mean < 64 KiB")
                .crossing("posix time / job time < 0.05"),
        ]
    }
}
