//! Measuring a change against the baseline, as `ioscout optimize` does for every proposal the
//! spec can express: runs alternated in pairs (baseline then variant, then variant then
//! baseline, so drift cancels), the ratio of each pair, their median and a distribution-free
//! interval for it (order statistics of the ratios), and a verdict that calls a change a win
//! only when the whole interval lies above 1 plus the noise margin. IOSage validates its
//! recommendations the same way (11 runs, the median of the pair ratios, the 3rd to 9th ratio
//! as a 93.5 % interval).
//!
//! Sits after advice: the service turns proposals into [`Candidate`]s and hands them here.

use std::collections::BTreeMap;
use std::path::PathBuf;

use ioscout_advise::Advice;
use serde::Serialize;
use serde_json::Value;

use crate::executor::{Evaluation, Executor, Status};
use crate::spec::Spec;

/// What a measurement concluded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum MeasuredVerdict {
    /// The interval of the pair ratios lies above 1 plus the noise margin.
    Win,
    /// The interval lies below 1 minus the noise margin: the change makes the job slower.
    Regression,
    /// Neither: no change that the noise lets us tell.
    NoChange,
    /// Too few pairs succeeded to measure (a run failed or timed out).
    NotMeasured,
}

impl MeasuredVerdict {
    /// Its name, as in JSON and the knowledge base.
    pub fn name(self) -> &'static str {
        match self {
            MeasuredVerdict::Win => "win",
            MeasuredVerdict::Regression => "regression",
            MeasuredVerdict::NoChange => "no_change",
            MeasuredVerdict::NotMeasured => "not_measured",
        }
    }
}

/// What became of a proposal after measurement: its measurement's verdict, or
/// `not_expressible` when no variant of the spec implements it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum RankedVerdict {
    /// Measured as a win.
    Win,
    /// Measured as a regression.
    Regression,
    /// Measured, within the noise.
    NoChange,
    /// Too few pairs succeeded to measure.
    NotMeasured,
    /// No variant of the spec implements it.
    NotExpressible,
}

impl RankedVerdict {
    /// Its name, as in JSON.
    pub fn name(self) -> &'static str {
        match self {
            RankedVerdict::Win => "win",
            RankedVerdict::Regression => "regression",
            RankedVerdict::NoChange => "no_change",
            RankedVerdict::NotMeasured => "not_measured",
            RankedVerdict::NotExpressible => "not_expressible",
        }
    }

    /// Where it ranks: wins first, then what could not be measured, then no change, then
    /// regressions.
    pub fn class(self) -> u8 {
        match self {
            RankedVerdict::Win => 0,
            RankedVerdict::NotExpressible | RankedVerdict::NotMeasured => 1,
            RankedVerdict::NoChange => 2,
            RankedVerdict::Regression => 3,
        }
    }
}

impl From<MeasuredVerdict> for RankedVerdict {
    fn from(verdict: MeasuredVerdict) -> RankedVerdict {
        match verdict {
            MeasuredVerdict::Win => RankedVerdict::Win,
            MeasuredVerdict::Regression => RankedVerdict::Regression,
            MeasuredVerdict::NoChange => RankedVerdict::NoChange,
            MeasuredVerdict::NotMeasured => RankedVerdict::NotMeasured,
        }
    }
}

impl std::fmt::Display for RankedVerdict {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.name())
    }
}

/// A measured change: the pairs, their ratios (greater than 1: the variant is better), the median
/// and its interval.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Paired {
    /// The objective of the baseline and of the variant in each pair, raw (not oriented).
    pub pairs: Vec<(f64, f64)>,
    /// Each pair's speedup: baseline / variant when smaller is better, variant / baseline when
    /// larger is.
    pub ratios: Vec<f64>,
    /// The median ratio.
    pub median: Option<f64>,
    /// The interval of the median: (low, high, its confidence), from the order statistics of
    /// the ratios; none under 5 pairs.
    pub interval: Option<(f64, f64, f64)>,
    /// The share of the baseline's objective the change removes (1 - 1 / median), in percent:
    /// the measured App Impact.
    pub measured_impact_pct: Option<f64>,
    /// The verdict.
    pub verdict: MeasuredVerdict,
    /// The runs that failed, with why.
    pub failures: Vec<String>,
}

/// The confidence that the median lies between the `k`-th smallest and the `k`-th largest of
/// `n` independent ratios: 1 - 2 P(Binomial(n, 1/2) < k).
fn coverage(n: usize, k: usize) -> f64 {
    let mut below = 0.0;
    let mut choose = 1.0_f64;
    for i in 0..k {
        if i > 0 {
            choose = choose * (n - i + 1) as f64 / i as f64;
        }
        below += choose;
    }
    1.0 - 2.0 * below / 2.0_f64.powi(i32::try_from(n).unwrap_or(i32::MAX))
}

/// The interval of the median of `ratios`: the widest-ranked order statistics whose coverage is
/// still at least 90 % (5 pairs: the smallest and the largest, 93.8 %; 11 pairs: the 3rd and the
/// 9th, 93.5 %), with its coverage; none under 5 ratios.
pub fn median_interval(ratios: &[f64]) -> Option<(f64, f64, f64)> {
    let n = ratios.len();
    if n < 5 {
        return None;
    }
    let mut sorted = ratios.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mut k = 1;
    while k < n / 2 && coverage(n, k + 1) >= 0.9 {
        k += 1;
    }
    Some((sorted[k - 1], sorted[n - k], coverage(n, k)))
}

pub use ioscout_advise::compare::median;

/// The measurement of `pairs` (baseline, variant): `maximize` says which way is better,
/// `margin` is the noise margin (0.03: changes within 3 % are noise).
pub fn paired(pairs: Vec<(f64, f64)>, maximize: bool, margin: f64, failures: Vec<String>) -> Paired {
    let ratios: Vec<f64> = pairs
        .iter()
        .filter(|(baseline, variant)| *baseline > 0.0 && *variant > 0.0)
        .map(|(baseline, variant)| if maximize { variant / baseline } else { baseline / variant })
        .collect();
    let middle = median(&ratios);
    let interval = median_interval(&ratios);
    let verdict = match interval {
        None => MeasuredVerdict::NotMeasured,
        Some((low, _, _)) if low > 1.0 + margin => MeasuredVerdict::Win,
        Some((_, high, _)) if high < 1.0 / (1.0 + margin) => MeasuredVerdict::Regression,
        Some(_) => MeasuredVerdict::NoChange,
    };
    Paired {
        pairs,
        measured_impact_pct: middle.map(|ratio| 100.0 * (1.0 - 1.0 / ratio)),
        median: middle,
        interval,
        ratios,
        verdict,
        failures,
    }
}

/// A change the spec can express, to be measured: a variant of the workload.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Candidate {
    /// Its name in reports.
    pub name: String,
    /// The strategies it implements.
    pub implements: Vec<String>,
    /// The command it runs instead of the workload's.
    pub command: Option<Vec<String>>,
    /// Environment variables it adds.
    pub environment: BTreeMap<String, String>,
    /// Parameter values it sets (the others stay at their defaults).
    pub params: BTreeMap<String, Value>,
}

/// Every change `spec` can express: its `[[optimize.variant]]`s, and each non-default value of
/// a parameter that implements strategies.
pub fn candidates(spec: &Spec) -> Vec<Candidate> {
    let mut found: Vec<Candidate> = spec
        .optimize
        .iter()
        .flat_map(|optimize| optimize.variants.iter())
        .map(|variant| Candidate {
            name: variant.name.clone(),
            implements: variant.implements.clone(),
            command: variant.command.clone(),
            environment: variant.environment.clone(),
            params: variant.params.clone(),
        })
        .collect();
    for parameter in spec.parameters.iter().filter(|parameter| !parameter.implements.is_empty()) {
        let baseline = parameter.baseline();
        for value in parameter.values.iter().filter(|value| **value != baseline) {
            found.push(Candidate {
                name: format!("{}={}", parameter.name, crate::spec::render(value)),
                implements: parameter.implements.clone(),
                command: None,
                environment: BTreeMap::new(),
                params: BTreeMap::from([(parameter.name.clone(), value.clone())]),
            });
        }
    }
    found
}

/// The baseline's parameter values (every parameter at its default).
pub fn baseline_params(spec: &Spec) -> BTreeMap<String, Value> {
    spec.parameters.iter().map(|parameter| (parameter.name.clone(), parameter.baseline())).collect()
}

/// `spec` as `candidate` runs it: its command and environment in place of the workload's.
pub fn variant_spec(spec: &Spec, candidate: &Candidate) -> Spec {
    let mut variant = spec.clone();
    if let Some(workload) = variant.workload.as_mut() {
        if let Some(command) = &candidate.command {
            workload.command.clone_from(command);
        }
        workload.environment.extend(candidate.environment.clone());
    }
    variant
}

/// Runs the baseline and `candidate` alternated, `pairs` times (odd pairs variant first), and
/// measures the change. `next_run` numbers the runs (their directories).
pub fn measure(
    spec: &Spec,
    executor: &dyn Executor,
    candidate: &Candidate,
    pairs: u32,
    next_run: &mut u64,
) -> Paired {
    let baseline_params = baseline_params(spec);
    let mut variant_params = baseline_params.clone();
    variant_params.extend(candidate.params.clone());
    let variant = variant_spec(spec, candidate);
    let mut measured = Vec::new();
    let mut failures = Vec::new();
    let mut run = |which: &Spec, params: &BTreeMap<String, Value>| -> Evaluation {
        *next_run += 1;
        executor.evaluate(which, params, None, *next_run)
    };
    for pair in 0..pairs {
        let (base, changed) = if pair % 2 == 0 {
            let base = run(spec, &baseline_params);
            (base, run(&variant, &variant_params))
        } else {
            let changed = run(&variant, &variant_params);
            (run(spec, &baseline_params), changed)
        };
        match (base.status, base.value, changed.status, changed.value) {
            (Status::Ok, Some(before), Status::Ok, Some(after)) => measured.push((before, after)),
            _ => {
                for (label, evaluation) in [("baseline", &base), ("variant", &changed)] {
                    if evaluation.status != Status::Ok || evaluation.value.is_none() {
                        failures.push(format!("pair {}: {label}: {}", pair + 1, evaluation.message));
                    }
                }
            }
        }
    }
    paired(measured, spec.maximize(), spec.objective.noise_margin, failures)
}

/// One change measured against the baseline.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Measured {
    /// The variant.
    pub variant: String,
    /// The strategies it implements.
    pub implements: Vec<String>,
    /// The proposal it measured (its id), when the advice proposed one of its strategies.
    pub proposal: Option<String>,
    /// The measurement.
    pub measurement: Paired,
}

/// A proposal after measurement.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Ranked {
    /// Rank after measurement.
    pub rank: usize,
    /// Rank the advice gave it.
    pub advised_rank: usize,
    /// Strategy id.
    pub id: String,
    /// Strategy name.
    pub strategy: String,
    /// Predicted App Impact, percent (the advice's bound).
    pub predicted_impact_pct: f64,
    /// Measured App Impact, percent (1 - 1 / median speedup), when measured.
    pub measured_impact_pct: Option<f64>,
    /// Median speedup and its interval, when measured.
    pub speedup: Option<f64>,
    /// The interval of the median speedup.
    pub interval: Option<(f64, f64, f64)>,
    /// What the measurement concluded, or that no variant of the spec implements it.
    pub verdict: RankedVerdict,
    /// The variant that measured it.
    pub variant: Option<String>,
}

/// The traced baseline run against its untraced runs: what the tracer added. App Impact stays a
/// share of the traced job: the tracer's cost sits in the calls and the short gaps between them,
/// which the shares of the job scale together (the scenario suite measured this closer to the
/// untraced outcome than a per-event correction, which the I/O's own variance between runs
/// confounds: BENCHMARKS.md).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct TracerOverhead {
    /// Wall time of the traced run, seconds.
    pub traced_wall_s: f64,
    /// Median wall time of the untraced baseline runs, seconds.
    pub untraced_wall_s: f64,
    /// What tracing added, percent of the untraced time (negative: within the runs' noise).
    pub added_pct: f64,
    /// Events the busiest process wrote.
    pub events: u64,
    /// What tracing added per event, seconds (0 when it added nothing).
    pub per_event_s: f64,
}

impl TracerOverhead {
    /// The overhead of a traced run of `traced_wall_s` whose busiest process wrote `events`
    /// events, against untraced runs of median `untraced_wall_s`.
    pub fn new(traced_wall_s: f64, untraced_wall_s: f64, events: u64) -> TracerOverhead {
        let added = traced_wall_s - untraced_wall_s;
        TracerOverhead {
            traced_wall_s,
            untraced_wall_s,
            added_pct: if untraced_wall_s > 0.0 { 100.0 * added / untraced_wall_s } else { 0.0 },
            events,
            per_event_s: if events > 0 { added.max(0.0) / events as f64 } else { 0.0 },
        }
    }
}

/// The whole result.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct OptimizeReport {
    /// The spec.
    pub spec: PathBuf,
    /// Where the runs went.
    pub work_dir: PathBuf,
    /// The traces the advice came from.
    pub evidence: PathBuf,
    /// Pairs per variant.
    pub pairs: u32,
    /// The noise margin.
    pub noise_margin: f64,
    /// The advice with what was measured: the measured dimensions `applied_measured` with their
    /// effect, a measured regression ranked last.
    pub advice: Advice,
    /// Every measured variant.
    pub measured: Vec<Measured>,
    /// The proposals ranked by what was measured.
    pub ranked: Vec<Ranked>,
    /// What tracing added to the baseline, when it was traced here (`preload`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tracer: Option<TracerOverhead>,
    /// Variants of strategies the advice did not propose that measured as wins: fixes it missed.
    pub missed_wins: Vec<String>,
    /// The knowledge base written.
    pub kb: Option<PathBuf>,
    /// The `opt<n>/` artifacts.
    pub artifacts: Option<PathBuf>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_of_five_pairs_is_their_range_and_of_eleven_the_third_to_the_ninth() {
        let five = [1.3, 1.1, 1.5, 1.2, 1.4];
        let (low, high, confidence) = median_interval(&five).unwrap_or_else(|| panic!("none"));
        assert_eq!((low, high), (1.1, 1.5));
        assert!((confidence - 0.9375).abs() < 1e-9, "{confidence}");
        let eleven: Vec<f64> = (1..=11).map(f64::from).collect();
        let (low, high, confidence) = median_interval(&eleven).unwrap_or_else(|| panic!("none"));
        assert_eq!((low, high), (3.0, 9.0));
        assert!((confidence - 0.9346).abs() < 1e-3, "{confidence}");
        assert!(median_interval(&five[..4]).is_none());
    }

    #[test]
    fn a_win_needs_the_whole_interval_above_the_margin() {
        let pairs = |ratios: &[f64]| ratios.iter().map(|ratio| (ratio * 1.0, 1.0)).collect::<Vec<_>>();
        // Time: baseline / variant; each pair's variant takes 1 s.
        assert_eq!(
            paired(pairs(&[2.0, 2.1, 1.9, 2.2, 2.0]), false, 0.03, Vec::new()).verdict,
            MeasuredVerdict::Win
        );
        // One noisy pair below the margin keeps it from being a win.
        assert_eq!(
            paired(pairs(&[2.0, 2.1, 1.0, 2.2, 2.0]), false, 0.03, Vec::new()).verdict,
            MeasuredVerdict::NoChange
        );
        assert_eq!(
            paired(pairs(&[0.5, 0.6, 0.55, 0.4, 0.5]), false, 0.03, Vec::new()).verdict,
            MeasuredVerdict::Regression
        );
        assert_eq!(paired(pairs(&[2.0, 2.0]), false, 0.03, Vec::new()).verdict, MeasuredVerdict::NotMeasured);
        let win = paired(pairs(&[2.0, 2.0, 2.0, 2.0, 2.0]), false, 0.03, Vec::new());
        assert!((win.measured_impact_pct.unwrap_or(0.0) - 50.0).abs() < 1e-9);
        // Larger is better: variant / baseline.
        let throughput = paired(vec![(100.0, 150.0); 5], true, 0.03, Vec::new());
        assert_eq!(throughput.median, Some(1.5));
    }

    /// Property: the interval holds the median, and the verdict is never a win when any
    /// ratio set has its median at or below 1.
    #[test]
    fn the_interval_holds_the_median_and_a_slower_median_is_never_a_win() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..2000 {
            let n = 5 + (next() * 12.0) as usize;
            let ratios: Vec<f64> = (0..n).map(|_| 0.3 + 2.0 * next()).collect();
            let (low, high, confidence) = median_interval(&ratios).unwrap_or_else(|| panic!("none"));
            let middle = median(&ratios).unwrap_or(0.0);
            assert!(low <= middle && middle <= high, "{ratios:?}");
            assert!(confidence >= 0.9, "{n}: {confidence}");
            let measured =
                paired(ratios.iter().map(|ratio| (*ratio, 1.0)).collect(), false, 0.02, Vec::new());
            if middle <= 1.0 {
                assert_ne!(measured.verdict, MeasuredVerdict::Win, "{ratios:?}");
            }
        }
    }
}
