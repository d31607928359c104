//! `IOS-METADATA`: IOSage's metadata-intensity pattern.

use crate::{Context, Finding, Rule, RuleDoc, rule};

rule! {
    pub struct MetadataIntensity {
        code: "IOS-METADATA",
        family: Iosage,
        title: "Metadata intensity: metadata calls are a large part of the I/O and of the job",
        detects: "Metadata calls taking at least 30 % of the POSIX time and at least 5 % of the job in the busiest process (IOSage's metadata_intensity; TraceBench HMD).",
        why: "Metadata requests serialise on the metadata server and grow with files and ranks; no data-path tuning removes them.",
        evidence: "metadata share of POSIX time, share of the job, opens and stats.",
        thresholds: "fires when metadata / POSIX time >= 0.3 and metadata time >= 5 % of the job; score = clip01(metadata / POSIX time) x clip01(job share / 0.2).",
        references: "IOSage (metadata_intensity, kb_metadata_intensity.json; mdtest runs); TraceBench HMD; shared/research/diagnosis.md 2, 3.1.",
        change: "Open each file once and reuse the handle; cache stat results instead of asking per access; pack many small files into fewer large ones; stage the dataset to node-local storage or a memory file system; on Lustre, put small files on the MDT (Data-on-MDT).",
        not_when: "The metadata calls are a one-time set-up (opening a few files at start) whose share of a long job is small, or the calls go to a local file system where they are cheap.",
    }
}

impl Rule for MetadataIntensity {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &Context<'_>) -> Vec<Finding> {
        let (Some(posix), Some(metadata)) = (context.slot("posix"), context.slot("posix_metadata")) else {
            return Vec::new();
        };
        let job = context.job_time_s();
        if job <= 0.0 || posix.time_s <= 0.0 {
            return Vec::new();
        }
        let fraction = metadata.time_s / posix.time_s;
        let share = metadata.max_process_time_s() / job;
        if fraction < 0.3 || share < 0.05 {
            return Vec::new();
        }
        let why = format!(
            "metadata is {:.0}% of POSIX time and {:.0}% of the job",
            fraction * 100.0,
            share * 100.0
        );
        vec![
            Finding::new(&Self::DOC, crate::clip01(fraction) * crate::clip01(share / 0.2), "posix", why)
                .with("posix_metadata_time_frac", fraction, "fraction")
                .with("posix_metadata_job_share", share, "fraction")
                .crossing("metadata / POSIX time >= 0.3")
                .crossing("metadata time >= 5% of the job"),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::{analysis, event, header, posix};

    fn trace(stat: i64) -> Vec<String> {
        let mut lines = header();
        lines.push(event(7, "main", "app", 1_000_000, 100_000, ""));
        for index in 0..50 {
            lines.push(posix(7, "__xstat64", 1_000_000 + index * 2000, stat, 0));
            lines.push(posix(7, "read", 1_001_000 + index * 2000, 100, 1 << 20));
        }
        lines
    }

    #[test]
    fn fires_on_metadata_heavy_io() {
        let analysis = analysis("metadata-intensity-positive", "posix", &trace(800));
        assert_eq!(
            MetadataIntensity.evaluate(&Context::new(&analysis, crate::Parameters::default())).len(),
            1
        );
    }

    #[test]
    fn stays_quiet_on_data_heavy_io() {
        let analysis = analysis("metadata-intensity-negative", "posix", &trace(10));
        assert!(
            MetadataIntensity.evaluate(&Context::new(&analysis, crate::Parameters::default())).is_empty()
        );
    }
}
