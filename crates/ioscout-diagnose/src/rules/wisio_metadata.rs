//! `WIS-METADATA`: POSIX time dominated by metadata calls.

use crate::rules::impact;
use crate::{Context, Finding, Rule, RuleDoc, rule};

rule! {
    pub struct MetadataTime {
        code: "WIS-METADATA",
        family: Wisio,
        title: "Excessive metadata access: most POSIX time goes to open, close, stat and seek calls",
        detects: "POSIX/STDIO time where metadata calls (open, close, stat, seek, readdir, ...) take at least half of the time of all POSIX calls.",
        why: "Metadata operations are served by the metadata server of a parallel file system (one MDS/MDT for many clients on Lustre): they serialise, they do not scale with the number of storage targets, and per-sample files multiply them.",
        evidence: "posix_metadata_time_frac (metadata time over POSIX time), metadata time and count, POSIX share of the job.",
        thresholds: "fires when metadata_time / posix_time >= 0.5 (WisIO METADATA_ACCESS_RATIO_THRESHOLD); score = clip01((f - 0.5) / 0.5 + 0.3) x impact, where impact = POSIX bottleneck time / job time / 0.2 clipped to 1 (I/O that takes a negligible share of the job is not a bottleneck).",
        references: "Yildirim et al., WisIO, ICS 2025 (wisio/rules.py KNOWN_RULES, excessive_metadata_access); shared/research/analysis-semantics.md 4.1.",
    }
}

impl Rule for MetadataTime {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &Context<'_>) -> Vec<Finding> {
        let (Some(posix), Some(metadata)) = (context.slot("posix"), context.slot("posix_metadata")) else {
            return Vec::new();
        };
        if posix.time_s <= 0.0 {
            return Vec::new();
        }
        let fraction = metadata.time_s / posix.time_s;
        if fraction < 0.5 {
            return Vec::new();
        }
        let weight = impact(context, "posix");
        let score = crate::clip01((fraction - 0.5) / 0.5 + 0.3) * weight;
        let why = format!(
            "{:.0}% of POSIX time ({:.3} s of {:.3} s) is metadata: {} calls",
            fraction * 100.0,
            metadata.time_s,
            posix.time_s,
            metadata.count
        );
        vec![
            Finding::new(&Self::DOC, score, "posix", why)
                .with("posix_metadata_time_frac", fraction, "fraction")
                .with("posix_metadata_time", metadata.time_s, "s")
                .with("posix_metadata_count", metadata.count as f64, "count")
                .with("posix_job_share_weight", weight, "fraction")
                .crossing("posix_metadata_time_frac >= 0.5"),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::{analysis, header, posix};

    fn trace(metadata_calls: i64) -> Vec<String> {
        let mut lines = header();
        let mut ts = 1_000_000;
        for _ in 0..metadata_calls {
            lines.push(posix(7, "open64", ts, 900, 0));
            ts += 1000;
        }
        for _ in 0..10 {
            lines.push(posix(7, "read", ts, 500, 1 << 20));
            ts += 1000;
        }
        lines
    }

    #[test]
    fn fires_when_metadata_dominates() {
        let analysis = analysis("metadata-positive", "posix", &trace(50));
        let findings = MetadataTime.evaluate(&Context::new(&analysis, crate::Parameters::default()));
        assert_eq!(findings.len(), 1);
        assert!(findings[0].score >= 0.3, "{findings:?}");
    }

    #[test]
    fn stays_quiet_when_data_dominates() {
        let analysis = analysis("metadata-negative", "posix", &trace(2));
        assert!(MetadataTime.evaluate(&Context::new(&analysis, crate::Parameters::default())).is_empty());
    }
}
