//! `D02`: ranks far above the others in requests, bytes and time (DXT Explorer's insight).

/// Reads, writes, bytes and seconds of one rank.
type RankTotals = (i64, i64, i64, f64);
use crate::darshan::{DarshanContext, DarshanRule, Level};
use crate::{Finding, RuleDoc, rule};

rule! {
    pub struct RankOutliers {
        code: "D02",
        family: Drishti,
        title: "Unbalanced workload: ranks far above the mean in requests, bytes and time",
        detects: "From the DXT traces of one interface: ranks whose reads, writes, bytes and I/O time are each more than one standard deviation above the mean over all the job's ranks (a dimension that is zero on every rank is left out).",
        why: "The job waits for its most loaded rank; DXT Explorer and Drishti recommend balancing the work across ranks (and the striping advice of P21).",
        evidence: "interface, the outlying ranks, the mean and the outliers' bytes.",
        thresholds: "fires when one or more ranks exceed mean + 1 sigma in every non-zero dimension of reads, writes, bytes and time, over nprocs ranks (ranks without a trace count as zero); Drishti level HIGH.",
        references: "hpc-io/dxt-explorer explorer/insights.py; Drishti --json ingestion (D02).",
    }
}

fn mean_and_deviation(values: &[f64]) -> (f64, f64) {
    let count = values.len().max(1) as f64;
    let mean = values.iter().sum::<f64>() / count;
    let variance = values.iter().map(|value| (value - mean).powi(2)).sum::<f64>() / count;
    (mean, variance.sqrt())
}

impl DarshanRule for RankOutliers {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        let processes = context.facts.nprocs;
        if processes <= 1 || processes > 1 << 20 {
            return Vec::new();
        }
        let mut findings = Vec::new();
        for (interface, ranks) in [("POSIX", &context.facts.dxt_posix), ("MPI-IO", &context.facts.dxt_mpiio)]
        {
            if ranks.is_empty() {
                continue;
            }
            let dimension = |pick: &dyn Fn(&RankTotals) -> f64| -> Vec<f64> {
                (0..processes).map(|rank| ranks.get(&rank).map_or(0.0, pick)).collect()
            };
            let dimensions = [
                dimension(&|totals| totals.0 as f64),
                dimension(&|totals| totals.1 as f64),
                dimension(&|totals| totals.2 as f64),
                dimension(&|totals| totals.3),
            ];
            let limits: Vec<Option<f64>> = dimensions
                .iter()
                .map(|values| {
                    let (mean, deviation) = mean_and_deviation(values);
                    values.iter().any(|value| *value != 0.0).then_some(mean + deviation)
                })
                .collect();
            let outliers: Vec<i64> = (0..processes)
                .filter(|&rank| {
                    let index = rank as usize;
                    let mut checked = 0;
                    let all_above = dimensions.iter().zip(&limits).all(|(values, limit)| match limit {
                        Some(limit) => {
                            checked += 1;
                            values[index] > *limit
                        }
                        None => true,
                    });
                    all_above && checked > 0
                })
                .collect();
            if outliers.is_empty() {
                continue;
            }
            let shown: Vec<String> = outliers.iter().take(8).map(ToString::to_string).collect();
            let why = format!(
                "{} of {processes} ranks are more than one standard deviation above the mean in every {interface} dimension (ranks {}{})",
                outliers.len(),
                shown.join(", "),
                if outliers.len() > 8 { ", ..." } else { "" }
            );
            findings.push(
                context
                    .finding(&Self::DOC, Level::High, interface, why)
                    .with("outlier_ranks", outliers.len() as f64, "count")
                    .with("mean_bytes", mean_and_deviation(&dimensions[2]).0, "bytes"),
            );
        }
        findings
    }
}
