//! `DFA-BW-SATURATION`: a process reads at close to what the file system gives one client.

use crate::{Context, Finding, Rule, RuleDoc, rule};

rule! {
    pub struct BandwidthSaturation {
        code: "DFA-BW-SATURATION",
        family: DfanalyzerFacts,
        title: "Bandwidth saturation: the busiest reader runs at the file system's per-client ceiling",
        detects: "POSIX reads (of the reader, else all) whose bytes over the read time of the busiest process reach 80 % of the bandwidth one client can get (--bandwidth-ceiling, a parameter of the system, not a constant).",
        why: "At the ceiling, more threads, prefetching or larger requests do not help that client: the fix is spreading reads over more clients or storage targets (striping, more ranks reading), caching, or faster storage.",
        evidence: "the busiest process's read bandwidth, the ceiling, their ratio.",
        thresholds: "needs --bandwidth-ceiling (silent without it: DFAnalyzer's dlio.yaml hard-codes 171 MB/s for one Lustre system, which page-cache reads exceed tenfold); fires when read bandwidth / ceiling >= 0.8; score = clip01((ratio - 0.7) / 0.3).",
        references: "DFAnalyzer 0.0.9 configs/fact_rules/dlio.yaml (bw_saturation); DFAnalyzer's fact rules as ioscout computes them: COMPATIBILITY.md.",
    }
}

impl Rule for BandwidthSaturation {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &Context<'_>) -> Vec<Finding> {
        let Some(ceiling) = context.parameters.bandwidth_ceiling_bps else { return Vec::new() };
        let reads = context.slot("reader_posix_read").or_else(|| context.slot("posix_read"));
        let Some(reads) = reads else { return Vec::new() };
        let Some((process, time)) = reads.process_times.iter().max_by(|a, b| a.1.total_cmp(b.1)) else {
            return Vec::new();
        };
        if *time <= 0.0 || ceiling <= 0.0 || reads.size == 0 {
            return Vec::new();
        }
        // Bytes of the busiest process, assuming bytes follow time across processes.
        let share = time / reads.time_s.max(f64::MIN_POSITIVE);
        let bandwidth = reads.size as f64 * share / time;
        let ratio = bandwidth / ceiling;
        if ratio < 0.8 {
            return Vec::new();
        }
        let why = format!(
            "{process} reads at {:.0} MiB/s, {:.0}% of the {:.0} MiB/s ceiling",
            bandwidth / super::MIB,
            ratio * 100.0,
            ceiling / super::MIB
        );
        vec![
            Finding::new(&Self::DOC, (ratio - 0.7) / 0.3, format!("posix_read/{process}"), why)
                .with("read_bandwidth_proc_max", bandwidth, "bytes/s")
                .with("bandwidth_ceiling", ceiling, "bytes/s")
                .with("bandwidth_utilisation", ratio, "fraction")
                .crossing("read bandwidth / ceiling >= 0.8"),
        ]
    }
}
