//! `PIPE-IO-SHARE`: I/O takes a large share of the job.

use crate::{Context, Finding, Rule, RuleDoc, rule};

rule! {
    pub struct IoShare {
        code: "PIPE-IO-SHARE",
        family: Pipeline,
        title: "I/O-bound run: POSIX I/O takes a large share of the job",
        detects: "POSIX/STDIO bottleneck-process time (summed over time bins) of at least 20 % of the job time.",
        why: "It sizes every other finding: the pipeline first checks whether I/O is a meaningful fraction of the job at all, because tuning I/O that takes 1 % of the run cannot pay back.",
        evidence: "POSIX time, job time, their ratio.",
        thresholds: "fires when POSIX time / job time >= 0.2; score = 0.3 + 0.29 x clip01((share - 0.2) / 0.6), always medium: a large share of I/O sizes the other findings but is not a fault by itself (large sequential I/O at full speed also takes time).",
        references: "Optimisation pipeline checklist (GLANCED-IO, HPDC 2026: I/O share of job time before choosing a lever); DFAnalyzer time_proc_frac over the boundary layer.",
    }
}

impl Rule for IoShare {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &Context<'_>) -> Vec<Finding> {
        let Some(line) = context.layer("posix") else { return Vec::new() };
        let job = context.job_time_s();
        if job <= 0.0 {
            return Vec::new();
        }
        let share = line.time_s / job;
        if share < 0.2 {
            return Vec::new();
        }
        let why =
            format!("POSIX I/O takes {:.3} s of the {:.3} s job ({:.0}%)", line.time_s, job, share * 100.0);
        vec![
            Finding::new(&Self::DOC, 0.3 + 0.29 * crate::clip01((share - 0.2) / 0.6), "posix", why)
                .with("posix_time", line.time_s, "s")
                .with("job_time", job, "s")
                .with("posix_job_share", share, "fraction")
                .crossing("POSIX time / job time >= 0.2"),
        ]
    }
}
