//! `PIPE-SMALL-FILES`: the data is spread over many small files.

use crate::{Context, Finding, Rule, RuleDoc, rule};

rule! {
    pub struct SmallFiles {
        code: "PIPE-SMALL-FILES",
        family: Pipeline,
        title: "Many small files: thousands of files of under 1 MiB each",
        detects: "At least 1,000 distinct files touched by POSIX/STDIO calls with less than 1 MiB moved per file on average, and at least one open per file (per-sample files, the metadata storm of ML datasets).",
        why: "Every small file costs an open, a stat and a close on the metadata server plus at least one small request; with per-sample files the metadata path, not bandwidth, sets the pace, and striping cannot help a file smaller than a stripe. Packing samples into larger container files (TFRecord, HDF5, WebDataset shards) or staging them to node-local storage removes the storm.",
        evidence: "files touched, bytes per file, opens per file.",
        thresholds: "fires when files >= 1000, bytes / files < 1 MiB and opens >= files; score = clip01(log10(files) / 5) x clip01(metadata share of POSIX time / 0.3) x impact of POSIX on the job.",
        references: "Optimisation pipeline technique catalog (many small files, stripe count 1; GLANCED-IO, HPDC 2026); IOSage file_strategy; TraceBench (IOAgent, IPDPS 2025).",
    }
}

impl Rule for SmallFiles {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &Context<'_>) -> Vec<Finding> {
        let (Some(line), Some(posix)) = (context.layer("posix"), context.slot("posix")) else {
            return Vec::new();
        };
        let files = line.num_files;
        let opens = context.slot("posix_open").map_or(0, |totals| totals.count);
        if files < 1000 || opens < files {
            return Vec::new();
        }
        let per_file = posix.size as f64 / files as f64;
        if per_file >= crate::rules::MIB {
            return Vec::new();
        }
        let metadata_share = context.slot("posix_metadata").map_or(0.0, |totals| totals.time_s)
            / posix.time_s.max(f64::MIN_POSITIVE);
        let weight = crate::rules::impact(context, "posix");
        let score =
            crate::clip01((files as f64).log10() / 5.0) * crate::clip01(metadata_share / 0.3) * weight;
        let why = format!(
            "{files} files of {} on average, {opens} opens; metadata is {:.0}% of POSIX time",
            crate::human_bytes(per_file),
            metadata_share * 100.0
        );
        vec![
            Finding::new(&Self::DOC, score, "posix", why)
                .with("files", files as f64, "count")
                .with("bytes_per_file", per_file, "bytes")
                .with("opens_per_file", opens as f64 / files as f64, "ratio")
                .with("posix_metadata_time_frac", metadata_share, "fraction")
                .with("posix_job_share_weight", weight, "fraction")
                .crossing("files >= 1000")
                .crossing("bytes per file < 1 MiB"),
        ]
    }
}
