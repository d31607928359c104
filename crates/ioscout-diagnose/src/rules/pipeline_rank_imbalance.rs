//! `PIPE-RANK-IMBALANCE`: one process moves far more bytes than the others.

use crate::{Context, Finding, Rule, RuleDoc, rule};

rule! {
    pub struct RankImbalance {
        code: "PIPE-RANK-IMBALANCE",
        family: Pipeline,
        title: "Rank load imbalance: one process does far more of the POSIX I/O time than the average",
        detects: "Among the processes (host, pid; their threads summed) with POSIX/STDIO calls, at least two, the largest POSIX time is at least 1.5 times the mean (rank-0-heavy I/O, a serial reader or writer).",
        why: "Ranks that synchronise wait for the most loaded one; a single process doing the I/O also caps bandwidth at what one client can get. Spreading the I/O (collective I/O, every rank reading its shard) or moving it off the critical path fixes it.",
        evidence: "the most loaded process, its POSIX time, the mean over processes, their ratio.",
        thresholds: "fires when max / mean >= 1.5 over at least two processes and the POSIX layer takes at least 5 % of the job; score = clip01((ratio - 1) / 3) x impact of POSIX.",
        references: "Drishti D01/D02 and P21/P22 (rank imbalance; shared/research/diagnosis.md 1.3); TraceBench RLIM; IOSage parallelism_efficiency.",
    }
}

impl Rule for RankImbalance {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &Context<'_>) -> Vec<Finding> {
        let Some(posix) = context.slot("posix") else { return Vec::new() };
        let times = &posix.process_times;
        if times.len() < 2 {
            return Vec::new();
        }
        let mean = times.values().sum::<f64>() / times.len() as f64;
        let Some((process, largest)) = times.iter().max_by(|a, b| a.1.total_cmp(b.1)) else {
            return Vec::new();
        };
        let weight = crate::rules::impact(context, "posix");
        if mean <= 0.0 || weight < 0.25 {
            return Vec::new();
        }
        let ratio = largest / mean;
        if ratio < 1.5 {
            return Vec::new();
        }
        let why = format!(
            "{process} spends {largest:.3} s in POSIX calls, {ratio:.1}x the mean of {} processes",
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::{analysis, header, posix};

    fn trace(rank_zero: i64) -> Vec<String> {
        let mut lines = header();
        for pid in 1..=4 {
            let dur = if pid == 1 { rank_zero } else { 10_000 };
            for index in 0..10 {
                lines.push(posix(pid, "write", 1_000_000 + index * 100_000, dur, 1 << 20));
            }
        }
        lines
    }

    #[test]
    fn fires_on_rank_zero_heavy_io() {
        let analysis = analysis("rank-imbalance-positive", "posix", &trace(80_000));
        let findings = RankImbalance.evaluate(&Context::new(&analysis, crate::Parameters::default()));
        assert_eq!(findings.len(), 1);
        assert!(findings[0].scope.ends_with("#1"), "{findings:?}");
    }

    #[test]
    fn stays_quiet_on_balanced_ranks() {
        let analysis = analysis("rank-imbalance-negative", "posix", &trace(11_000));
        assert!(RankImbalance.evaluate(&Context::new(&analysis, crate::Parameters::default())).is_empty());
    }
}
