//! `DFA-FETCH-RANK-IMBALANCE`: some processes wait much longer for data than others.

use crate::{Context, Finding, Rule, RuleDoc, rule};

rule! {
    pub struct FetchRankImbalance {
        code: "DFA-FETCH-RANK-IMBALANCE",
        family: DfanalyzerFacts,
        title: "Fetch rank imbalance: the slowest process spends far longer fetching data than the fastest",
        detects: "Across the processes that run the training loop, the largest fetch_data time is at least 1.5 times the smallest.",
        why: "Synchronous data-parallel training advances at the pace of its slowest rank: every other rank waits at the next collective for the straggler's batch.",
        evidence: "the largest and smallest per-process fetch times, their ratio, the processes.",
        thresholds: "fires when max / min >= 1.5 over at least two processes; score = clip01((x - 1) / 2.5) (DFAnalyzer 0.0.9 dlio.yaml fetch_rank_imbalance, proc_name view).",
        references: "DFAnalyzer 0.0.9 configs/fact_rules/dlio.yaml (fetch_rank_imbalance); DFAnalyzer's fact rules as ioscout computes them: COMPATIBILITY.md.",
    }
}

impl Rule for FetchRankImbalance {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &Context<'_>) -> Vec<Finding> {
        let Some(fetch) = context.slot("fetch_data") else { return Vec::new() };
        if fetch.process_times.len() < 2 {
            return Vec::new();
        }
        let (slowest, slowest_time) = fetch
            .process_times
            .iter()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map_or(("", 0.0), |(name, time)| (name.as_str(), *time));
        let (fastest, fastest_time) = fetch
            .process_times
            .iter()
            .min_by(|a, b| a.1.total_cmp(b.1))
            .map_or(("", 0.0), |(name, time)| (name.as_str(), *time));
        if fastest_time <= 0.0 {
            return Vec::new();
        }
        let ratio = slowest_time / fastest_time;
        if ratio < 1.5 {
            return Vec::new();
        }
        let why =
            format!("{slowest} fetches for {slowest_time:.3} s, {ratio:.1}x {fastest} ({fastest_time:.3} s)");
        vec![
            Finding::new(&Self::DOC, (ratio - 1.0) / 2.5, format!("fetch_data/{slowest}"), why)
                .with("fetch_time_proc_max", slowest_time, "s")
                .with("fetch_time_proc_min", fastest_time, "s")
                .with("fetch_time_proc_ratio", ratio, "ratio")
                .crossing("max / min fetch time >= 1.5"),
        ]
    }
}
