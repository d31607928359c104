//! `IOS-GRANULARITY`: IOSage's access-granularity pattern.

use crate::{Context, Finding, Rule, RuleDoc, rule};

rule! {
    pub struct AccessGranularity {
        code: "IOS-GRANULARITY",
        family: Iosage,
        title: "Access granularity: data moves in requests far smaller than the file system's unit",
        detects: "Reads and writes that move less than 1 MiB per call on average while data calls take at least 5 % of the job in the busiest process (IOSage's access_granularity; TraceBench SML-R/W).",
        why: "Per-request overheads dominate small transfers; parallel file systems deliver their bandwidth to requests of a stripe (1 MiB or more).",
        evidence: "mean bytes per data call, data calls, the busiest process's share of the job in data calls.",
        thresholds: "fires when mean data transfer < 1 MiB and data time >= 5 % of the job; score = clip01((1 MiB - mean) / 1 MiB) x clip01(share / 0.2).",
        references: "IOSage (BanisharifM/IOSage, access_granularity, kb_access_granularity.json); TraceBench SML-R, SML-W (IOAgent, IPDPS 2025); shared/research/diagnosis.md 2, 3.1.",
        change: "Make each request move 1 MiB or more: buffer small writes and flush them together, read whole records or chunks (larger HDF5 chunks, larger TFRecord/record sizes), use collective I/O under MPI-IO so aggregators issue large requests.",
        not_when: "The data are small by nature per sample and the I/O takes a negligible share of the job (op-count-bound, PIPE-OP-COUNT): coalescing then costs more than it saves.",
    }
}

impl Rule for AccessGranularity {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &Context<'_>) -> Vec<Finding> {
        let Some(data) = context.slot("posix_data") else { return Vec::new() };
        let Some(mean) = data.mean_size() else { return Vec::new() };
        let job = context.job_time_s();
        if job <= 0.0 {
            return Vec::new();
        }
        let share = data.max_process_time_s() / job;
        if mean >= crate::rules::MIB || share < 0.05 {
            return Vec::new();
        }
        let score =
            crate::clip01((crate::rules::MIB - mean) / crate::rules::MIB) * crate::clip01(share / 0.2);
        let why = format!(
            "data calls move {:.1} KiB each on average and take {:.0}% of the job",
            mean / 1024.0,
            share * 100.0
        );
        vec![
            Finding::new(&Self::DOC, score, "posix", why)
                .with("posix_data_size_mean", mean, "bytes")
                .with("posix_data_count", data.count as f64, "count")
                .with("posix_data_job_share", share, "fraction")
                .crossing("mean data transfer < 1 MiB")
                .crossing("data time >= 5% of the job"),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::{analysis, event, header, posix};

    fn trace(size: i64) -> Vec<String> {
        let mut lines = header();
        lines.push(event(7, "main", "app", 1_000_000, 100_000, ""));
        for index in 0..100 {
            lines.push(posix(7, "read", 1_000_000 + index * 1000, 500, size));
        }
        lines
    }

    #[test]
    fn fires_on_small_transfers_that_cost_time() {
        let analysis = analysis("granularity-positive", "posix", &trace(8192));
        assert_eq!(
            AccessGranularity.evaluate(&Context::new(&analysis, crate::Parameters::default())).len(),
            1
        );
    }

    #[test]
    fn stays_quiet_on_large_transfers() {
        let analysis = analysis("granularity-negative", "posix", &trace(4 << 20));
        assert!(
            AccessGranularity.evaluate(&Context::new(&analysis, crate::Parameters::default())).is_empty()
        );
    }
}
