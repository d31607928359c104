//! `PIPE-METADATA`: metadata calls take a significant share of the job.

use crate::{Context, Finding, Rule, RuleDoc, rule};

rule! {
    pub struct MetadataShare {
        code: "PIPE-METADATA",
        family: Pipeline,
        title: "High metadata load: open, stat, close and friends take a significant share of the job",
        detects: "POSIX/STDIO metadata calls on which the busiest process spends at least 5 % of the job time (IOSage's metadata_intensity, TraceBench's HMD), judged against the run rather than against an absolute number of seconds.",
        why: "Metadata requests go to the metadata server, which serialises them across all clients; a share of the job spent there grows with the number of files and ranks, and no data-path tuning (striping, buffering) reduces it.",
        evidence: "metadata time and calls, their share of the job, opens and stats among them.",
        thresholds: "fires when the busiest process's metadata time / job time >= 0.05; score = clip01(metadata time / job time / 0.3). Drishti's P17 uses an absolute 30 s per rank instead, which never fires on short runs (IOSage measured an F1 of 0 for it).",
        references: "IOSage (BanisharifM/IOSage, metadata_intensity); TraceBench HMD label (IOAgent, IPDPS 2025); Drishti P17 (COMPATIBILITY.md D11).",
    }
}

impl Rule for MetadataShare {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &Context<'_>) -> Vec<Finding> {
        let Some(metadata) = context.slot("posix_metadata") else { return Vec::new() };
        let job = context.job_time_s();
        if job <= 0.0 {
            return Vec::new();
        }
        let share = metadata.max_process_time_s() / job;
        if share < 0.05 {
            return Vec::new();
        }
        let opens = context.slot("posix_open").map_or(0, |totals| totals.count);
        let stats = context.slot("posix_stat").map_or(0, |totals| totals.count);
        // DFTracer 2.2 does not intercept glibc's stat (glibc 2.33 and later call the system
        // directly): a trace's zero is "not visible", not "none".
        let stats = if stats == 0 {
            "stat calls not visible in this trace".to_string()
        } else {
            format!("{stats} stats")
        };
        let why = format!(
            "{} metadata calls ({opens} opens, {stats}); the busiest process spends {:.3} s in them, {:.0}% of the job",
            metadata.count,
            metadata.max_process_time_s(),
            share * 100.0
        );
        vec![
            Finding::new(&Self::DOC, share / 0.3, "posix", why)
                .with("posix_metadata_time", metadata.time_s, "s")
                .with("posix_metadata_count", metadata.count as f64, "count")
                .with("posix_metadata_job_share", share, "fraction")
                .with("posix_open_count", opens as f64, "count")
                .with(
                    "posix_stat_count",
                    context.slot("posix_stat").map_or(0, |totals| totals.count) as f64,
                    "count",
                )
                .crossing("metadata time / job time >= 0.05"),
        ]
    }
}
