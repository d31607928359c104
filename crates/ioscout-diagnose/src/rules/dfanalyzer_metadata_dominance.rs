//! `DFA-METADATA-DOMINANCE`: the reader's POSIX time is mostly metadata.

use crate::{Context, Finding, Rule, RuleDoc, rule};

rule! {
    pub struct MetadataDominance {
        code: "DFA-METADATA-DOMINANCE",
        family: DfanalyzerFacts,
        title: "Metadata dominance in the reader: more than half of the reader's POSIX time is metadata",
        detects: "POSIX calls made for the data reader (reader_posix: files under /data) where metadata calls take more than half of the time.",
        why: "The reader opens, stats and closes more than it reads: typical of one file per sample, or of reopening files per sample; the metadata server sets the pace of the input pipeline.",
        evidence: "reader metadata time, reader POSIX time, their ratio.",
        thresholds: "fires when reader_posix_metadata_time / reader_posix_time > 0.5; score = (f - 0.5) / 0.5 (DFAnalyzer dlio.yaml metadata_dominance).",
        references: "DFAnalyzer 0.0.9 configs/fact_rules/dlio.yaml (metadata_dominance); DFDiagnoser motif metadata_bound (shared/research/analysis-semantics.md 3.7, 4.2).",
    }
}

impl Rule for MetadataDominance {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &Context<'_>) -> Vec<Finding> {
        let (Some(reader), Some(metadata)) =
            (context.slot("reader_posix"), context.slot("reader_posix_metadata"))
        else {
            return Vec::new();
        };
        if reader.time_s <= 0.0 {
            return Vec::new();
        }
        let fraction = metadata.time_s / reader.time_s;
        if fraction <= 0.5 {
            return Vec::new();
        }
        let why = format!(
            "{:.0}% of the reader's POSIX time ({:.3} s) is metadata ({} calls)",
            fraction * 100.0,
            reader.time_s,
            metadata.count
        );
        vec![
            Finding::new(&Self::DOC, (fraction - 0.5) / 0.5, "reader_posix", why)
                .with("reader_posix_metadata_time_frac", fraction, "fraction")
                .with("reader_posix_metadata_time", metadata.time_s, "s")
                .crossing("reader metadata time / reader POSIX time > 0.5"),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::{analysis, header, posix};

    fn trace(open: i64) -> Vec<String> {
        let mut lines = header();
        for index in 0..50 {
            lines.push(posix(7, "open64", 1_000_000 + index * 10_000, open, 0));
            lines.push(posix(7, "read", 1_005_000 + index * 10_000, 100, 1 << 20));
        }
        lines
    }

    #[test]
    fn fires_when_the_reader_mostly_opens() {
        let analysis = analysis("reader-metadata-positive", "dlio", &trace(900));
        let findings = MetadataDominance.evaluate(&Context::new(&analysis, crate::Parameters::default()));
        assert_eq!(findings.len(), 1);
        assert!(findings[0].score >= 0.6, "{findings:?}");
    }

    #[test]
    fn stays_quiet_when_the_reader_mostly_reads() {
        let analysis = analysis("reader-metadata-negative", "dlio", &trace(20));
        assert!(
            MetadataDominance.evaluate(&Context::new(&analysis, crate::Parameters::default())).is_empty()
        );
    }
}
