//! `IOS-ACCESS-PATTERN`: IOSage's access-pattern pattern, from seeks between transfers.

use crate::{Context, Finding, Rule, RuleDoc, rule};

rule! {
    pub struct AccessPattern {
        code: "IOS-ACCESS-PATTERN",
        family: Iosage,
        title: "Non-sequential access: seeks between transfers",
        detects: "At least one explicit seek (lseek, fseek) for every five reads and writes, over more than 1,000 seeks, while data calls take at least 2 % of the job. DFTracer records no sequential/random counters (its acc_pat is always 0, so WisIO's random-operations rule cannot fire on it); explicit seeks between transfers are the trace's own evidence of non-sequential access.",
        why: "Random or strided access defeats read-ahead and write-behind, turns large transfers into small ones and, on shared files, into lock contention between clients.",
        evidence: "seeks, data calls, seeks per data call.",
        thresholds: "fires when seeks / data calls >= 0.2, seeks > 1000 and data time >= 2 % of the job; score = clip01(seeks per data call) x clip01(data share of the job / 0.2).",
        references: "IOSage (access_pattern; dlio_shuffle runs); Drishti P11/P13 (random > 20 % and > 1000; shared/research/diagnosis.md 1.3); TraceBench RMA-R/W.",
        change: "Read in file order (sort the index of samples per file, read whole chunks and shuffle in memory), use pread/pwrite at computed offsets instead of seek+read, or lay data out so each process reads a contiguous range.",
        not_when: "The seeks are the header reads of a self-describing format (HDF5, NetCDF) before large contiguous reads, or the shuffled order is required by the training algorithm and the data fit the page cache.",
    }
}

impl Rule for AccessPattern {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &Context<'_>) -> Vec<Finding> {
        let (Some(seeks), Some(data)) = (context.slot("posix_seek"), context.slot("posix_data")) else {
            return Vec::new();
        };
        let job = context.job_time_s();
        if job <= 0.0 || data.count == 0 {
            return Vec::new();
        }
        let per_call = seeks.count as f64 / data.count as f64;
        let share = data.max_process_time_s() / job;
        if per_call < 0.2 || seeks.count <= 1000 || share < 0.02 {
            return Vec::new();
        }
        let why =
            format!("{} seeks for {} reads and writes ({per_call:.2} per transfer)", seeks.count, data.count);
        vec![
            Finding::new(&Self::DOC, crate::clip01(per_call) * crate::clip01(share / 0.2), "posix", why)
                .with("posix_seek_count", seeks.count as f64, "count")
                .with("posix_data_count", data.count as f64, "count")
                .with("seeks_per_transfer", per_call, "ratio")
                .crossing("seeks / data calls >= 0.2")
                .crossing("seeks > 1000"),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::{analysis, header, posix};

    fn trace(seek_every: i64) -> Vec<String> {
        let mut lines = header();
        for index in 0..3000 {
            if index % seek_every == 0 {
                lines.push(posix(7, "lseek64", 1_000_000 + index * 100, 2, 0));
            }
            lines.push(posix(7, "read", 1_000_050 + index * 100, 40, 4096));
        }
        lines
    }

    #[test]
    fn fires_on_seek_per_read() {
        let analysis = analysis("pattern-positive", "posix", &trace(1));
        assert_eq!(AccessPattern.evaluate(&Context::new(&analysis, crate::Parameters::default())).len(), 1);
    }

    #[test]
    fn stays_quiet_on_sequential_reads() {
        let analysis = analysis("pattern-negative", "posix", &trace(100));
        assert!(AccessPattern.evaluate(&Context::new(&analysis, crate::Parameters::default())).is_empty());
    }
}
