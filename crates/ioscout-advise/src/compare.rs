//! Comparison of two runs, layer by layer: time, operations, bytes, bandwidth and overlap before
//! and after, the speedup, and the "doing less" guard: when the second run moved fewer bytes or
//! issued fewer operations than the first, its speedup is not credited to the change.

use ioscout_analysis::{Analysis, ViewType};
use serde::Serialize;

/// One layer (or Darshan module) of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
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

    /// The summary of a Darshan log: one line per I/O module (POSIX, MPI-IO, STDIO).
    pub fn from_darshan(log: &ioscout_darshan::DarshanLog) -> RunSummary {
        let mut layers = Vec::new();
        for (module, prefix) in [
            (ioscout_darshan::id::POSIX, "POSIX"),
            (ioscout_darshan::id::MPIIO, "MPIIO"),
            (ioscout_darshan::id::STDIO, "STDIO"),
        ] {
            let records = log.counter_records(module);
            if records.is_empty() {
                continue;
            }
            let Some((names, float_names)) = ioscout_darshan::counter_names(module) else { continue };
            let sum = |suffixes: &[&str]| -> i64 {
                records
                    .iter()
                    .flat_map(|record| {
                        suffixes.iter().filter_map(|suffix| {
                            names
                                .iter()
                                .position(|name| *name == format!("{prefix}_{suffix}"))
                                .map(|index| record.counters[index].max(0))
                        })
                    })
                    .sum()
            };
            let time: f64 = records
                .iter()
                .flat_map(|record| {
                    ["F_READ_TIME", "F_WRITE_TIME", "F_META_TIME"].iter().filter_map(|suffix| {
                        float_names
                            .iter()
                            .position(|name| *name == format!("{prefix}_{suffix}"))
                            .map(|index| record.fcounters[index].max(0.0))
                    })
                })
                .sum();
            let bytes = sum(&["BYTES_READ", "BYTES_WRITTEN"]).max(0) as u64;
            let count = sum(&["READS", "WRITES", "INDEP_READS", "INDEP_WRITES", "COLL_READS", "COLL_WRITES"])
                .max(0) as u64;
            layers.push(LayerLine {
                name: prefix.to_string(),
                time_s: time,
                count,
                bytes,
                bandwidth_bps: (time > 0.0).then(|| bytes as f64 / time),
                overlap_pct: None,
            });
        }
        RunSummary { job_time_s: log.run_time(), layers }
    }
}

/// One layer compared.
#[derive(Clone, Debug, Serialize)]
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
            let dropped = |old: u64, new: u64| old > 0 && (new as f64) < old as f64 * 0.95;
            LayerChange {
                name: name.clone(),
                speedup: ratio(b.time_s, a.time_s),
                did_less: dropped(b.bytes, a.bytes) || (b.bytes == 0 && dropped(b.count, a.count)),
                work: match (b.count > 0, a.count > 0) {
                    (false, true) => Work::New,
                    (true, false) => Work::Gone,
                    _ if dropped(b.bytes, a.bytes) || (b.bytes == 0 && dropped(b.count, a.count)) => {
                        Work::Less
                    }
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
        (_, false) => format!("not credited: the second run did less work in {}", doing_less.join(", ")),
        (Some(speedup), true) if speedup >= 1.05 => format!("faster: {speedup:.2}x the job time, same work"),
        (Some(speedup), true) if speedup <= 1.0 / 1.05 => format!("slower: {speedup:.2}x the job time"),
        (Some(_), true) => "no change (within 5 %)".to_string(),
        (None, true) => "job time not comparable".to_string(),
    };
    Comparison { job_speedup, layers, doing_less, verdict }
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

    #[test]
    fn a_faster_run_that_read_half_the_data_is_flagged() {
        let comparison = compare(&run(10.0, 5.0, 1000, 1 << 30), &run(6.0, 2.0, 500, 1 << 29));
        assert_eq!(comparison.doing_less, ["posix"]);
        assert!(comparison.verdict.starts_with("not credited"));
    }
}
