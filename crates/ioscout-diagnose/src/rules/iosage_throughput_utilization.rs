//! `IOS-THROUGHPUT`: IOSage's throughput-utilisation pattern (synchronous flushes).

use crate::{Context, Finding, Rule, RuleDoc, rule};

rule! {
    pub struct ThroughputUtilization {
        code: "IOS-THROUGHPUT",
        family: Iosage,
        title: "Throughput utilisation: synchronous flushes (fsync and friends) hold up the writes",
        detects: "fsync, fdatasync, msync or sync calls taking at least 10 % of the POSIX time and at least 2 % of the job in the busiest process.",
        why: "Each flush waits until the data are on stable storage, serialising the writer with the storage servers and emptying the write-behind pipeline; one flush per write turns a streaming write into a series of round trips.",
        evidence: "sync calls and time, their share of POSIX time and of the job.",
        thresholds: "fires when sync / POSIX time >= 0.1 and sync time >= 2 % of the job; score = clip01(sync / POSIX time / 0.5) x clip01(job share / 0.1).",
        references: "IOSage throughput_utilization (ior_fsync_per_write, dlio_ckpt runs; shared/research/diagnosis.md 3.1).",
        change: "Flush once per file or per checkpoint instead of per write; let the file system's write-behind work (no O_SYNC); for checkpoints, write asynchronously or to node-local storage first and drain in the background.",
        not_when: "The flushes are required for crash consistency at that granularity (a database log, a commit protocol).",
    }
}

impl Rule for ThroughputUtilization {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &Context<'_>) -> Vec<Finding> {
        let (Some(posix), Some(sync)) = (context.slot("posix"), context.slot("posix_sync")) else {
            return Vec::new();
        };
        let job = context.job_time_s();
        if job <= 0.0 || posix.time_s <= 0.0 {
            return Vec::new();
        }
        let fraction = sync.time_s / posix.time_s;
        let share = sync.max_process_time_s() / job;
        if fraction < 0.1 || share < 0.02 {
            return Vec::new();
        }
        let why = format!(
            "{} sync calls take {:.0}% of POSIX time and {:.0}% of the job",
            sync.count,
            fraction * 100.0,
            share * 100.0
        );
        vec![
            Finding::new(
                &Self::DOC,
                crate::clip01(fraction / 0.5) * crate::clip01(share / 0.1),
                "posix",
                why,
            )
            .with("posix_sync_count", sync.count as f64, "count")
            .with("posix_sync_time_frac", fraction, "fraction")
            .with("posix_sync_job_share", share, "fraction")
            .crossing("sync / POSIX time >= 0.1")
            .crossing("sync time >= 2% of the job"),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::{analysis, header, posix};

    fn trace(fsync: i64) -> Vec<String> {
        let mut lines = header();
        for index in 0..50 {
            lines.push(posix(7, "write", 1_000_000 + index * 10_000, 500, 1 << 20));
            lines.push(posix(7, "fsync", 1_000_600 + index * 10_000, fsync, 0));
        }
        lines
    }

    #[test]
    fn fires_on_a_flush_per_write() {
        let analysis = analysis("throughput-positive", "posix", &trace(5000));
        assert_eq!(
            ThroughputUtilization.evaluate(&Context::new(&analysis, crate::Parameters::default())).len(),
            1
        );
    }

    #[test]
    fn stays_quiet_on_cheap_flushes() {
        let analysis = analysis("throughput-negative", "posix", &trace(5));
        assert!(
            ThroughputUtilization.evaluate(&Context::new(&analysis, crate::Parameters::default())).is_empty()
        );
    }
}
