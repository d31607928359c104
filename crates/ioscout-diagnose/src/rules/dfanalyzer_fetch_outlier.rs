//! `DFA-FETCH-OUTLIER`: some processes spend a much larger share of their loop fetching.

use crate::{Context, Finding, Rule, RuleDoc, rule};

rule! {
    pub struct FetchOutlier {
        code: "DFA-FETCH-OUTLIER",
        family: DfanalyzerFacts,
        title: "Fetch tail outlier: the worst process fetches a much larger share of its loop than the typical one",
        detects: "Per process of the training loop, fetch_frac = fetch / (fetch + compute); fires when the largest minus the median is at least 0.10 and the loop as a whole spends at least 10 % fetching, over at least two processes.",
        why: "A straggler in data loading (a slow node, a cold cache, an overloaded storage target) holds every rank at the next collective; the spread, unlike the ratio of DFA-FETCH-RANK-IMBALANCE, discounts ranks that fetch long only because they also compute long.",
        evidence: "fetch_frac of the worst process and the median, their spread, the loop's fetch_frac, the worst process.",
        thresholds: "fires when fetch_frac_tail_spread >= 0.10 and fetch_frac >= 0.10 (DFAnalyzer 0.0.9 dlio-global.yaml fetch_outlier); score = clip01(spread / 0.3) (ioscout's: a spread of 0.3 means the worst rank fetches 30 points more of its loop than the typical one).",
        references: "DFAnalyzer 0.0.9 configs/fact_rules/dlio-global.yaml (fetch_outlier); DFAnalyzer's fact rules as ioscout computes them: COMPATIBILITY.md.",
    }
}

/// The median of `values` (sorted in place).
pub(crate) fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let middle = values.len() / 2;
    if values.is_empty() {
        0.0
    } else if values.len() % 2 == 1 {
        values[middle]
    } else {
        f64::midpoint(values[middle - 1], values[middle])
    }
}

impl Rule for FetchOutlier {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &Context<'_>) -> Vec<Finding> {
        let (Some(fetch), Some(compute)) = (context.slot("fetch_data"), context.slot("compute")) else {
            return Vec::new();
        };
        let mut shares: Vec<(&str, f64)> = fetch
            .process_times
            .iter()
            .filter_map(|(process, fetch_time)| {
                let compute_time = compute.process_times.get(process).copied().unwrap_or(0.0);
                let active = fetch_time + compute_time;
                (active > 0.0).then(|| (process.as_str(), fetch_time / active))
            })
            .collect();
        if shares.len() < 2 {
            return Vec::new();
        }
        let total_fetch: f64 = fetch.process_times.values().sum();
        let total_compute: f64 = compute.process_times.values().sum();
        let loop_fetch_frac = total_fetch / (total_fetch + total_compute).max(f64::MIN_POSITIVE);
        shares.sort_by(|a, b| b.1.total_cmp(&a.1));
        let (worst, worst_share) = shares[0];
        let mut values: Vec<f64> = shares.iter().map(|(_, share)| *share).collect();
        let typical = median(&mut values);
        let spread = worst_share - typical;
        if spread < 0.1 || loop_fetch_frac < 0.1 {
            return Vec::new();
        }
        let why = format!(
            "{worst} fetches {:.0}% of its loop against a median of {:.0}% over {} processes",
            worst_share * 100.0,
            typical * 100.0,
            shares.len()
        );
        vec![
            Finding::new(&Self::DOC, spread / 0.3, format!("fetch_data/{worst}"), why)
                .with("fetch_frac_proc_max", worst_share, "fraction")
                .with("fetch_frac_proc_median", typical, "fraction")
                .with("fetch_frac_tail_spread", spread, "fraction")
                .with("fetch_frac", loop_fetch_frac, "fraction")
                .crossing("fetch_frac_tail_spread >= 0.10")
                .crossing("fetch_frac >= 0.10"),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_even_and_odd_counts() {
        assert!((median(&mut [3.0, 1.0, 2.0]) - 2.0).abs() < 1e-12);
        assert!((median(&mut [4.0, 1.0, 2.0, 3.0]) - 2.5).abs() < 1e-12);
        assert!(median(&mut []).abs() < 1e-12);
    }
}
