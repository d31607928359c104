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
        references: "DFAnalyzer 0.0.9 configs/fact_rules/dlio.yaml (metadata_dominance); DFDiagnoser motif metadata_bound.",
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
