//! `PIPE-RANK-IMBALANCE`: one process moves far more bytes than the others.

use crate::{Context, Finding, Rule, RuleDoc, rule};

rule! {
    pub struct RankImbalance {
        code: "PIPE-RANK-IMBALANCE",
        family: Pipeline,
        title: "Rank load imbalance: one process does far more of the POSIX I/O time than the average",
        detects: "Among the processes (host, pid; their threads summed) with POSIX/STDIO calls, at least two, the largest time in POSIX reads, writes and metadata calls (not process control such as waitpid) is at least 1.5 times the mean (rank-0-heavy I/O, a serial reader or writer).",
        why: "Ranks that synchronise wait for the most loaded one; a single process doing the I/O also caps bandwidth at what one client can get. Spreading the I/O (collective I/O, every rank reading its shard) or moving it off the critical path fixes it.",
        evidence: "the most loaded process, its POSIX time, the mean over processes, their ratio.",
        thresholds: "fires when max / mean >= 1.5 over at least two processes and the most loaded process's I/O takes at least 5 % of the job; score = clip01((ratio - 1) / 3) x clip01(its share of the job / 0.2).",
        references: "Drishti D01/D02 and P21/P22 (rank imbalance); TraceBench RLIM; IOSage parallelism_efficiency.",
    }
}

impl Rule for RankImbalance {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &Context<'_>) -> Vec<Finding> {
        // Reads, writes and metadata calls: not process control (a parent's `waitpid` on its
        // workers is POSIX time in DFAnalyzer's layers, but it is no I/O load).
        let mut io_times: std::collections::BTreeMap<String, f64> = std::collections::BTreeMap::new();
        for slot in ["posix_read", "posix_write", "posix_metadata"] {
            for (process, seconds) in
                context.slot(slot).map(|totals| &totals.process_times).into_iter().flatten()
            {
                *io_times.entry(process.clone()).or_default() += seconds;
            }
        }
        let times = if io_times.is_empty() {
            let Some(posix) = context.slot("posix") else { return Vec::new() };
            posix.process_times.clone()
        } else {
            io_times
        };
        let times = &times;
        if times.len() < 2 {
            return Vec::new();
        }
        let mean = times.values().sum::<f64>() / times.len() as f64;
        let Some((process, largest)) = times.iter().max_by(|a, b| a.1.total_cmp(b.1)) else {
            return Vec::new();
        };
        // The weight: the most loaded process's I/O time against the job (20 % counts fully).
        let job = context.job_time_s();
        let weight = if job > 0.0 { crate::clip01(largest / job / 0.2) } else { 0.0 };
        if mean <= 0.0 || weight < 0.25 {
            return Vec::new();
        }
        let ratio = largest / mean;
        if ratio < 1.5 {
            return Vec::new();
        }
        let why = format!(
            "{process} spends {largest:.3} s in POSIX reads, writes and metadata calls, {ratio:.1}x the mean of {} processes",
            times.len()
        );
        vec![
            Finding::new(&Self::DOC, (ratio - 1.0) / 3.0 * weight, format!("posix/{process}"), why)
                .with("posix_time_proc_max", *largest, "s")
                .with("posix_time_proc_mean", mean, "s")
                .with("posix_time_proc_ratio", ratio, "ratio")
                .crossing("max / mean POSIX time >= 1.5"),
        ]
    }
}
