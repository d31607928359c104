//! Comparison of runs, layer by layer: time, operations, bytes, bandwidth and overlap before
//! and after, the speedup, and the "doing less" guard: when a run moved fewer bytes or issued
//! fewer operations than the one it is compared with, its speedup is not credited to the change.
//! [`compare`] sets two runs side by side; [`compare_runs`] sets a campaign of two or more
//! against one baseline (each run compared with it as by [`compare`]) and sorts them.

use ioscout_analysis::{Analysis, ViewType};
use serde::Serialize;

/// One layer (or Darshan module) of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct LayerLine {
    /// Layer name.
    pub name: String,
    /// Time, seconds.
    pub time_s: f64,
    /// Operations.
    pub count: u64,
    /// Bytes moved.
    pub bytes: u64,
    /// Bandwidth, bytes per second.
    pub bandwidth_bps: Option<f64>,
    /// Share of the layer's time hidden behind computation, percent.
    pub overlap_pct: Option<f64>,
}

/// What a run is compared by.
#[derive(Clone, Debug, Default, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct RunSummary {
    /// Job time, seconds.
    pub job_time_s: f64,
    /// Layers.
    pub layers: Vec<LayerLine>,
}

impl RunSummary {
    /// The summary of a trace analysis.
    pub fn from_analysis(analysis: &Analysis) -> RunSummary {
        let layers = analysis
            .view(ViewType::TimeRange)
            .into_iter()
            .flat_map(|view| view.summary.iter())
            .map(|layer| LayerLine {
                name: layer.layer.clone(),
                time_s: layer.time_s,
                count: layer.count,
                bytes: layer.size_bytes.unwrap_or(0.0).max(0.0) as u64,
                bandwidth_bps: layer.bandwidth_bps,
                overlap_pct: layer.overlap_time().map(|share| share * 100.0),
            })
            .collect();
        RunSummary { job_time_s: analysis.raw.job_time_s, layers }
    }

    /// The summary of a Darshan log: one line per I/O module with records, as `ioscout analyze
    /// LOG` gives it ([`ioscout_darshan::breakdown::Breakdown`]): the time is the slowest rank's
    /// I/O time (Darshan's `agg_time_by_slowest`), not the sum over processes, which exceeds the
    /// run time when processes do I/O at once; the bandwidth is the bytes over it.
    pub fn from_darshan(log: &ioscout_darshan::DarshanLog) -> RunSummary {
        let breakdown = ioscout_darshan::breakdown::Breakdown::of(log);
        let layers = breakdown
            .modules
            .iter()
            .map(|module| LayerLine {
                name: module.module.clone(),
                time_s: module.io_time_slowest_rank_s,
                count: module.reads.saturating_add(module.writes),
                bytes: module.bytes(),
                bandwidth_bps: module.bandwidth_bytes_per_s,
                overlap_pct: None,
            })
            .collect();
        RunSummary { job_time_s: log.run_time(), layers }
    }
}

/// One layer compared.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct LayerChange {
    /// Layer.
    pub name: String,
    /// Before.
    pub before: LayerLine,
    /// After.
    pub after: LayerLine,
    /// before / after time (above 1: faster).
    pub speedup: Option<f64>,
    /// Operations or bytes dropped by more than 5 %: the second run did less work here.
    pub did_less: bool,
    /// The work done here: `same`, `less` (the guard), `new` (only the second run has this
    /// layer) or `gone` (only the first run has it; also `did_less`).
    pub work: Work,
}

/// How a layer's work changed between the runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Work {
    /// Both runs have it, within 5 % of the operations and bytes (or more).
    Same,
    /// The second run moved more than 5 % fewer bytes or operations.
    Less,
    /// Only the second run has this layer.
    New,
    /// Only the first run has this layer.
    Gone,
}

impl Work {
    /// The word the table prints.
    pub fn word(self) -> &'static str {
        match self {
            Work::Same => "same",
            Work::Less => "LESS",
            Work::New => "new",
            Work::Gone => "gone",
        }
    }
}

/// The comparison.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Comparison {
    /// Job time before / after.
    pub job_speedup: Option<f64>,
    /// Per layer.
    pub layers: Vec<LayerChange>,
    /// The layers where the second run did less work (the speedup there is not credited).
    pub doing_less: Vec<String>,
    /// The verdict in one line.
    pub verdict: String,
}

/// Whether a layer holds I/O calls (a POSIX, STDIO or MPI-IO layer of a trace preset, or a
/// Darshan module), whose work is the bytes they move, not how many calls move them.
fn is_io_layer(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    ["posix", "stdio", "mpiio", "mpi-io"].iter().any(|io| name.contains(io))
}

fn ratio(before: f64, after: f64) -> Option<f64> {
    (after > 0.0 && before > 0.0).then(|| before / after)
}

/// Compares `after` with `before`.
pub fn compare(before: &RunSummary, after: &RunSummary) -> Comparison {
    let mut names: Vec<String> = before.layers.iter().map(|layer| layer.name.clone()).collect();
    for layer in &after.layers {
        if !names.contains(&layer.name) {
            names.push(layer.name.clone());
        }
    }
    let find = |run: &RunSummary, name: &str| {
        run.layers.iter().find(|layer| layer.name == name).cloned().unwrap_or_default()
    };
    let layers: Vec<LayerChange> = names
        .iter()
        .map(|name| {
            let (b, a) = (find(before, name), find(after, name));
            // The work of an I/O layer is the bytes it moved: fewer calls for the same bytes
            // (coalesced writes, cached stat results, fewer syncs) is the optimisation, not less
            // work. An application layer without bytes (epochs, steps, compute, fetches) does
            // less when it has fewer events.
            let dropped = |old: u64, new: u64| old > 0 && (new as f64) < old as f64 * 0.95;
            let less = dropped(b.bytes, a.bytes)
                || (!is_io_layer(name) && b.bytes == 0 && dropped(b.count, a.count));
            LayerChange {
                name: name.clone(),
                speedup: ratio(b.time_s, a.time_s),
                did_less: less,
                work: match (b.count > 0, a.count > 0) {
                    (false, true) => Work::New,
                    (true, false) => Work::Gone,
                    _ if less => Work::Less,
                    _ => Work::Same,
                },
                before: b,
                after: a,
            }
        })
        .collect();
    let doing_less: Vec<String> =
        layers.iter().filter(|layer| layer.did_less).map(|layer| layer.name.clone()).collect();
    let job_speedup = ratio(before.job_time_s, after.job_time_s);
    let verdict = match (job_speedup, doing_less.is_empty()) {
        (_, false) => format!("not credited: less work than the baseline in {}", doing_less.join(", ")),
        (Some(speedup), true) if speedup >= 1.05 => format!("faster: {speedup:.2}x the job time, same work"),
        (Some(speedup), true) if speedup <= 1.0 / 1.05 => format!("slower: {speedup:.2}x the job time"),
        (Some(_), true) => "no change (within 5 %)".to_string(),
        (None, true) => "job time not comparable".to_string(),
    };
    Comparison { job_speedup, layers, doing_less, verdict }
}

/// The runs given one label (repeated runs of one configuration): their job times and what they
/// say together against the baseline's.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Replicates {
    /// The label.
    pub label: String,
    /// Whether these are the baseline's runs.
    pub baseline: bool,
    /// Each run's job time, seconds, in the order given.
    pub job_times_s: Vec<f64>,
    /// Their median.
    pub median_s: f64,
    /// Their shortest and longest.
    pub range_s: (f64, f64),
    /// The baseline's median over this label's.
    pub speedup: Option<f64>,
    /// Every ratio of a baseline run to a run of this label lies in here.
    pub interval: Option<(f64, f64)>,
    /// The verdict in one line.
    pub verdict: String,
}

/// The median of `values` (the mean of the middle two for an even count); none when empty. The
/// one median of replicates here and of `ioscout optimize`'s pairs.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some(f64::midpoint(sorted[n / 2 - 1], sorted[n / 2])),
    }
}

/// Fewer runs than this per label cannot tell a change from the noise.
pub const MIN_REPLICATES: usize = 3;

/// The replicates of every label (`groups`: label and its runs' job times, in order) against the
/// baseline's: medians, the range of every baseline-to-run ratio, and a verdict that calls a
/// label faster only when the whole range lies above 1 plus `margin`.
pub fn replicates(groups: &[(String, Vec<f64>)], baseline: &str, margin: f64) -> Vec<Replicates> {
    let summary = |times: &[f64]| {
        let mut sorted: Vec<f64> = times.iter().copied().filter(|time| *time > 0.0).collect();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        (
            median(&sorted).unwrap_or(0.0),
            sorted.first().copied().unwrap_or(0.0),
            sorted.last().copied().unwrap_or(0.0),
            n,
        )
    };
    let base = groups.iter().find(|(label, _)| label == baseline).map(|(_, times)| summary(times));
    groups
        .iter()
        .map(|(label, times)| {
            let (median, low, high, n) = summary(times);
            let is_baseline = label == baseline;
            let (speedup, interval) = match base {
                Some((base_median, base_low, base_high, _)) if !is_baseline && median > 0.0 && low > 0.0 => {
                    (Some(base_median / median), Some((base_low / high, base_high / low)))
                }
                _ => (None, None),
            };
            let base_runs = base.map_or(0, |(_, _, _, runs)| runs);
            let verdict = match (is_baseline, speedup, interval) {
                (true, _, _) => "baseline".to_string(),
                (false, Some(_), Some(_)) if n < MIN_REPLICATES || base_runs < MIN_REPLICATES => format!(
                    "too few runs to tell ({n} here, {base_runs} of the baseline; {MIN_REPLICATES} or more each)"
                ),
                (false, Some(speedup), Some((low, high))) if low > 1.0 + margin => {
                    format!("faster: {speedup:.2}x (every run pair {low:.2}x-{high:.2}x)")
                }
                (false, Some(speedup), Some((low, high))) if high < 1.0 / (1.0 + margin) => {
                    format!("slower: {speedup:.2}x (every run pair {low:.2}x-{high:.2}x)")
                }
                (false, Some(speedup), Some((low, high))) => {
                    format!("no change the spread lets us tell: {speedup:.2}x (run pairs {low:.2}x-{high:.2}x)")
                }
                _ => "job time not comparable".to_string(),
            };
            Replicates {
                label: label.clone(),
                baseline: is_baseline,
                job_times_s: times.clone(),
                median_s: median,
                range_s: (low, high),
                speedup,
                interval,
                verdict,
            }
        })
        .collect()
}

/// What the runs of a campaign are sorted by. Time is best first (least first), speedup and
/// bandwidth best first (most first), operations and bytes most first; `reverse` flips it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum SortMetric {
    /// The order the runs were given in.
    #[default]
    Input,
    /// The job's time (wall clock of the run).
    JobTime,
    /// The job's speedup over the baseline.
    Speedup,
    /// The sort layer's time.
    Time,
    /// The sort layer's operations.
    Operations,
    /// The sort layer's bytes.
    Bytes,
    /// The sort layer's bandwidth.
    Bandwidth,
}

impl SortMetric {
    /// Whether the metric is one of a layer's (it then needs a sort layer).
    pub fn of_layer(self) -> bool {
        matches!(self, SortMetric::Time | SortMetric::Operations | SortMetric::Bytes | SortMetric::Bandwidth)
    }
}

/// One layer of one run of a campaign, against the baseline's.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct LayerAgainstBaseline {
    /// The run's own figures (zero when the run does not have the layer).
    #[serde(flatten)]
    pub line: LayerLine,
    /// This run's time minus the baseline's, seconds.
    pub time_delta_s: f64,
    /// This run's operations minus the baseline's.
    pub count_delta: i64,
    /// This run's bytes minus the baseline's.
    pub bytes_delta: i64,
    /// The baseline's time over this run's (above 1: faster).
    pub speedup: Option<f64>,
    /// The work done here against the baseline (the guard: `less` when this run did less).
    pub work: Work,
}

/// One run of a campaign.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct CampaignRun {
    /// The run's label.
    pub label: String,
    /// Whether this is the baseline.
    pub baseline: bool,
    /// Job time, seconds.
    pub job_time_s: f64,
    /// The baseline's job time over this run's.
    pub job_speedup: Option<f64>,
    /// Every layer of the campaign, in the campaign's order.
    pub layers: Vec<LayerAgainstBaseline>,
    /// The layers where this run did less work than the baseline (its speedup there is not
    /// credited).
    pub doing_less: Vec<String>,
    /// The verdict against the baseline in one line.
    pub verdict: String,
}

/// A campaign of runs against one baseline.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Campaign {
    /// The baseline's label.
    pub baseline: String,
    /// What the runs are sorted by.
    pub sort: SortMetric,
    /// The layer a layer metric is taken from.
    pub sort_layer: Option<String>,
    /// Whether the order is reversed.
    pub reverse: bool,
    /// The layers of every run, in the order first seen (the baseline's first).
    pub layers: Vec<String>,
    /// The runs, sorted.
    pub runs: Vec<CampaignRun>,
    /// The labels of the runs that did less work than the baseline somewhere.
    pub doing_less: Vec<String>,
}

/// The runs of `runs` (label and summary; two or more) against `runs[baseline]`, sorted by
/// `sort` (a layer metric taken from `sort_layer`, or the baseline's first layer). Runs without
/// the sort layer, or without the metric, come last, in the order given.
pub fn compare_runs(
    runs: &[(String, RunSummary)],
    baseline: usize,
    sort: SortMetric,
    sort_layer: Option<&str>,
    reverse: bool,
) -> Campaign {
    let base = runs.get(baseline).map(|(_, summary)| summary.clone()).unwrap_or_default();
    let mut layers: Vec<String> = base.layers.iter().map(|layer| layer.name.clone()).collect();
    for (_, summary) in runs {
        for layer in &summary.layers {
            if !layers.contains(&layer.name) {
                layers.push(layer.name.clone());
            }
        }
    }
    let mut lines: Vec<CampaignRun> = runs
        .iter()
        .enumerate()
        .map(|(index, (label, summary))| {
            let comparison = compare(&base, summary);
            let find = |name: &str| comparison.layers.iter().find(|layer| layer.name == *name);
            let layer_lines = layers
                .iter()
                .map(|name| {
                    let change = find(name);
                    let line = change.map_or_else(
                        || LayerLine { name: name.clone(), ..LayerLine::default() },
                        |change| change.after.clone(),
                    );
                    let before = change.map(|change| change.before.clone()).unwrap_or_default();
                    LayerAgainstBaseline {
                        time_delta_s: line.time_s - before.time_s,
                        count_delta: line.count as i64 - before.count as i64,
                        bytes_delta: line.bytes as i64 - before.bytes as i64,
                        speedup: change.and_then(|change| change.speedup),
                        work: change.map_or(Work::Same, |change| change.work),
                        line: LayerLine { name: name.clone(), ..line },
                    }
                })
                .collect();
            let is_baseline = index == baseline;
            CampaignRun {
                label: label.clone(),
                baseline: is_baseline,
                job_time_s: summary.job_time_s,
                job_speedup: comparison.job_speedup,
                layers: layer_lines,
                doing_less: comparison.doing_less.clone(),
                verdict: if is_baseline { "baseline".to_string() } else { comparison.verdict },
            }
        })
        .collect();
    let sort_layer = if sort.of_layer() {
        sort_layer.map(str::to_string).or_else(|| layers.first().cloned())
    } else {
        None
    };
    if sort != SortMetric::Input {
        let key = |run: &CampaignRun| -> Option<f64> {
            let layer = || {
                sort_layer
                    .as_deref()
                    .and_then(|name| run.layers.iter().find(|layer| layer.line.name == name))
                    .filter(|layer| layer.line.count > 0 || layer.line.time_s > 0.0)
            };
            // Each key is negated where more is better, so that ascending is best first.
            match sort {
                SortMetric::Input => None,
                SortMetric::JobTime => Some(run.job_time_s),
                SortMetric::Speedup => run.job_speedup.map(|speedup| -speedup),
                SortMetric::Time => layer().map(|layer| layer.line.time_s),
                SortMetric::Operations => layer().map(|layer| -(layer.line.count as f64)),
                SortMetric::Bytes => layer().map(|layer| -(layer.line.bytes as f64)),
                SortMetric::Bandwidth => {
                    layer().and_then(|layer| layer.line.bandwidth_bps).map(|value| -value)
                }
            }
        };
        lines.sort_by(|left, right| match (key(left), key(right)) {
            (Some(left), Some(right)) => {
                let order = left.total_cmp(&right);
                if reverse { order.reverse() } else { order }
            }
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        });
    }
    let doing_less =
        lines.iter().filter(|run| !run.doing_less.is_empty()).map(|run| run.label.clone()).collect();
    Campaign {
        baseline: runs.get(baseline).map(|(label, _)| label.clone()).unwrap_or_default(),
        sort,
        sort_layer,
        reverse,
        layers,
        runs: lines,
        doing_less,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(job: f64, time: f64, count: u64, bytes: u64) -> RunSummary {
        RunSummary {
            job_time_s: job,
            layers: vec![LayerLine {
                name: "posix".into(),
                time_s: time,
                count,
                bytes,
                bandwidth_bps: None,
                overlap_pct: None,
            }],
        }
    }

    #[test]
    fn a_faster_run_with_the_same_work_is_credited() {
        let comparison = compare(&run(10.0, 5.0, 1000, 1 << 30), &run(6.0, 2.0, 1000, 1 << 30));
        assert!(comparison.doing_less.is_empty());
        assert!(comparison.verdict.starts_with("faster"));
        assert!(comparison.layers[0].speedup.is_some_and(|speedup| (speedup - 2.5).abs() < 1e-9));
    }

    /// The work is the bytes: fewer calls for the same bytes (coalesced writes, cached stat
    /// results, fewer syncs) is credited; a metadata-only layer with fewer calls is the same work.
    #[test]
    fn fewer_calls_for_the_same_bytes_is_not_doing_less() {
        let coalesced = compare(&run(10.0, 5.0, 100_000, 1 << 30), &run(3.0, 1.0, 256, 1 << 30));
        assert!(coalesced.doing_less.is_empty(), "{coalesced:?}");
        assert!(coalesced.verdict.starts_with("faster"));
        let cached = compare(&run(10.0, 5.0, 60_000, 0), &run(2.0, 0.5, 2_000, 0));
        assert!(cached.doing_less.is_empty(), "{cached:?}");
        assert_eq!(cached.layers[0].work, Work::Same);
        // An application layer without bytes that has fewer events (fewer epochs) did less.
        let mut fewer_epochs = (run(10.0, 5.0, 2, 0), run(5.0, 2.5, 1, 0));
        fewer_epochs.0.layers[0].name = "epoch".into();
        fewer_epochs.1.layers[0].name = "epoch".into();
        assert_eq!(compare(&fewer_epochs.0, &fewer_epochs.1).doing_less, ["epoch"]);
    }

    /// Replicates: a faster label is called faster only when every run pair says so; one noisy
    /// pair makes it "no change"; two runs are too few.
    #[test]
    fn replicates_give_medians_and_a_verdict_only_the_spread_allows() {
        let groups = vec![
            ("base".to_string(), vec![10.0, 10.4, 9.8, 10.1]),
            ("fix".to_string(), vec![3.0, 3.1, 2.9]),
            ("noisy".to_string(), vec![8.0, 10.5, 7.5]),
            ("two".to_string(), vec![3.0, 3.1]),
        ];
        let found = replicates(&groups, "base", 0.03);
        assert_eq!(found[0].verdict, "baseline");
        assert!((found[0].median_s - 10.05).abs() < 1e-9);
        assert!(found[1].verdict.starts_with("faster"), "{}", found[1].verdict);
        assert!(found[1].interval.is_some_and(|(low, high)| low > 3.0 && high < 3.7));
        assert!(found[2].verdict.starts_with("no change"), "{}", found[2].verdict);
        assert!(found[3].verdict.starts_with("too few runs"), "{}", found[3].verdict);
    }

    #[test]
    fn a_faster_run_that_read_half_the_data_is_flagged() {
        let comparison = compare(&run(10.0, 5.0, 1000, 1 << 30), &run(6.0, 2.0, 500, 1 << 29));
        assert_eq!(comparison.doing_less, ["posix"]);
        assert!(comparison.verdict.starts_with("not credited"));
    }
    fn campaign() -> Vec<(String, RunSummary)> {
        vec![
            ("base".to_string(), run(10.0, 5.0, 1000, 1 << 30)),
            ("faster".to_string(), run(6.0, 2.0, 1000, 1 << 30)),
            ("less".to_string(), run(4.0, 1.0, 400, 1 << 28)),
            ("slower".to_string(), run(12.0, 6.0, 1000, 1 << 30)),
        ]
    }

    #[test]
    fn every_run_is_compared_with_the_baseline_and_the_one_that_did_less_is_marked() {
        let campaign = compare_runs(&campaign(), 0, SortMetric::Input, None, false);
        assert_eq!(campaign.baseline, "base");
        let labels: Vec<&str> = campaign.runs.iter().map(|run| run.label.as_str()).collect();
        assert_eq!(labels, ["base", "faster", "less", "slower"]);
        assert_eq!(campaign.doing_less, ["less"]);
        assert!(campaign.runs[0].baseline && campaign.runs[0].verdict == "baseline");
        assert_eq!(campaign.runs[2].layers[0].work, Work::Less);
        assert_eq!(campaign.runs[2].layers[0].count_delta, -600);
        assert!(campaign.runs[1].verdict.starts_with("faster"));
        assert!(campaign.runs[3].verdict.starts_with("slower"));
        let speedup = campaign.runs[1].job_speedup.unwrap_or_default();
        assert!((speedup - 10.0 / 6.0).abs() < 1e-12);
    }

    #[test]
    fn runs_sort_best_first_by_each_metric_and_reverse() {
        let order = |sort, reverse| -> Vec<String> {
            compare_runs(&campaign(), 0, sort, None, reverse).runs.into_iter().map(|run| run.label).collect()
        };
        assert_eq!(order(SortMetric::JobTime, false), ["less", "faster", "base", "slower"]);
        assert_eq!(order(SortMetric::JobTime, true), ["slower", "base", "faster", "less"]);
        assert_eq!(order(SortMetric::Speedup, false), ["less", "faster", "base", "slower"]);
        assert_eq!(order(SortMetric::Time, false), ["less", "faster", "base", "slower"]);
        assert_eq!(order(SortMetric::Bytes, false), ["base", "faster", "slower", "less"]);
    }

    #[test]
    fn a_run_without_the_sort_layer_comes_last() {
        let mut runs = campaign();
        runs[1].1.layers[0].name = "stdio".into();
        let campaign = compare_runs(&runs, 0, SortMetric::Time, Some("posix"), false);
        assert_eq!(campaign.runs.last().map(|run| run.label.as_str()), Some("faster"));
        assert_eq!(campaign.layers, ["posix", "stdio"]);
        assert_eq!(campaign.sort_layer.as_deref(), Some("posix"));
    }
}
