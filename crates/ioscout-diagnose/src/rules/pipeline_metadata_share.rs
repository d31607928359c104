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
        references: "IOSage (BanisharifM/IOSage, metadata_intensity); TraceBench HMD label (IOAgent, IPDPS 2025); shared/research/diagnosis.md 1.5 (P17 defect), 2.",
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
        let why = format!(
            "{} metadata calls ({opens} opens, {stats} stats); the busiest process spends {:.3} s in them, {:.0}% of the job",
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
                .with("posix_stat_count", stats as f64, "count")
                .crossing("metadata time / job time >= 0.05"),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::{analysis, event, header, posix};

    fn trace(stat: i64) -> Vec<String> {
        let mut lines = header();
        lines.push(event(7, "main", "app", 1_000_000, 1_000_000, ""));
        for index in 0..100 {
            lines.push(posix(7, "__xstat64", 1_000_000 + index * 5000, stat, 0));
        }
        lines
    }

    #[test]
    fn fires_when_metadata_takes_a_share_of_the_job() {
        let analysis = analysis("metadata-share-positive", "posix", &trace(2000));
        let findings = MetadataShare.evaluate(&Context::new(&analysis, crate::Parameters::default()));
        assert_eq!(findings.len(), 1);
        assert!(findings[0].score >= 0.6, "{findings:?}");
    }

    #[test]
    fn stays_quiet_when_metadata_is_cheap() {
        let analysis = analysis("metadata-share-negative", "posix", &trace(20));
        assert!(MetadataShare.evaluate(&Context::new(&analysis, crate::Parameters::default())).is_empty());
    }
}
