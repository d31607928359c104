//! Aggregate queries: `--group-by` keys and `--agg` reducers, answered from the index's chunk
//! statistics when they suffice, else by a parallel scan with mergeable partial aggregates.
//!
//! # Overview
//!
//! [`GroupSpec::parse`] reads `--group-by name,cat` and `--agg count,sum:dur,mean:dur,p99:dur`.
//! [`GroupFold`] is the scan path: one fold per unit or chunk, each a map from group key to
//! [`Partial`] (count, sum, min, max and a [`Sketch`] per field), merged in any order
//! ([`Groups::merge`]), so the MPI issue can reduce the same partials across nodes.
//! [`Groups::from_statistics`] is the index path: when the keys are `name` and/or `cat`, no
//! reducer needs a percentile, and every chunk is either ruled out or matches whole, the
//! per-chunk (category, name) table answers without reading the trace.
//!
//! Fields: `dur` and `size` (bytes moved by POSIX/STDIO reads and writes, the index's rule).
//! Percentiles come from a DDSketch-style log histogram with 1 % relative accuracy.

use std::collections::BTreeMap;

use ioscout_index::ChunkStats;
use ioscout_index::stats::event_bytes;
use ioscout_model::{Event, HashTables};
use ioscout_read::Fold;
use ioscout_read::event::Args;
use ioscout_read::fields::EventFields;

use crate::Predicate;
use crate::prune::Truth;

/// A group key field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroupKey {
    /// `name`.
    Name,
    /// `cat`.
    Cat,
    /// `pid`.
    Pid,
    /// `tid`.
    Tid,
    /// `ph` (as its letter).
    Phase,
    /// `host` (resolved).
    Host,
    /// `file` (resolved).
    File,
    /// `args.<key>` (as text).
    Arg(String),
}

/// A value an aggregate reduces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// `dur`.
    Duration,
    /// Bytes moved.
    Size,
}

/// One reducer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reducer {
    /// Number of events.
    Count,
    /// Sum.
    Sum(Measure),
    /// Mean over the events that carry the value.
    Mean(Measure),
    /// Minimum.
    Min(Measure),
    /// Maximum.
    Max(Measure),
    /// Percentile (0-100).
    Percentile(Measure, f64),
}

impl Reducer {
    fn label(&self) -> String {
        let measure = |measure: &Measure| match measure {
            Measure::Duration => "dur",
            Measure::Size => "size",
        };
        match self {
            Reducer::Count => "count".into(),
            Reducer::Sum(value) => format!("sum:{}", measure(value)),
            Reducer::Mean(value) => format!("mean:{}", measure(value)),
            Reducer::Min(value) => format!("min:{}", measure(value)),
            Reducer::Max(value) => format!("max:{}", measure(value)),
            Reducer::Percentile(value, rank) => format!("p{rank}:{}", measure(value)),
        }
    }
}

/// A `--group-by` / `--agg` request.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupSpec {
    /// Keys, in order.
    pub keys: Vec<GroupKey>,
    /// Reducers, in order.
    pub reducers: Vec<Reducer>,
}

/// A malformed `--group-by` or `--agg`.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0}")]
pub struct SpecError(String);

impl GroupSpec {
    /// Parses `--group-by` (comma-separated keys, may be empty) and `--agg` (comma-separated
    /// reducers; `count` when empty).
    pub fn parse(keys: &str, reducers: &str) -> Result<GroupSpec, SpecError> {
        let keys = keys
            .split(',')
            .map(str::trim)
            .filter(|key| !key.is_empty())
            .map(|key| {
                Ok(match key {
                    "name" => GroupKey::Name,
                    "cat" => GroupKey::Cat,
                    "pid" => GroupKey::Pid,
                    "tid" => GroupKey::Tid,
                    "ph" => GroupKey::Phase,
                    "host" => GroupKey::Host,
                    "file" => GroupKey::File,
                    other => match other.strip_prefix("args.") {
                        Some(arg) if !arg.is_empty() => GroupKey::Arg(arg.to_string()),
                        _ => {
                            return Err(SpecError(format!(
                                "unknown --group-by key {other:?} (keys: name, cat, pid, tid, ph, host, file, args.<key>)"
                            )));
                        }
                    },
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut parsed = Vec::new();
        for reducer in reducers.split(',').map(str::trim).filter(|reducer| !reducer.is_empty()) {
            parsed.push(parse_reducer(reducer)?);
        }
        if parsed.is_empty() {
            parsed.push(Reducer::Count);
        }
        Ok(GroupSpec { keys, reducers: parsed })
    }

    /// Column names: keys then reducers.
    pub fn columns(&self) -> Vec<String> {
        let key = |key: &GroupKey| match key {
            GroupKey::Name => "name".to_string(),
            GroupKey::Cat => "cat".to_string(),
            GroupKey::Pid => "pid".to_string(),
            GroupKey::Tid => "tid".to_string(),
            GroupKey::Phase => "ph".to_string(),
            GroupKey::Host => "host".to_string(),
            GroupKey::File => "file".to_string(),
            GroupKey::Arg(arg) => format!("args.{arg}"),
        };
        self.keys.iter().map(key).chain(self.reducers.iter().map(Reducer::label)).collect()
    }

    fn needs_sketch(&self) -> bool {
        self.reducers.iter().any(|reducer| matches!(reducer, Reducer::Percentile(..)))
    }

    fn needs_args(&self) -> bool {
        self.keys.iter().any(|key| matches!(key, GroupKey::Host | GroupKey::File | GroupKey::Arg(_)))
            || self.reducers.iter().any(|reducer| {
                matches!(
                    reducer,
                    Reducer::Sum(Measure::Size)
                        | Reducer::Mean(Measure::Size)
                        | Reducer::Min(Measure::Size)
                        | Reducer::Max(Measure::Size)
                        | Reducer::Percentile(Measure::Size, _)
                )
            })
    }
}

fn parse_reducer(text: &str) -> Result<Reducer, SpecError> {
    if text == "count" {
        return Ok(Reducer::Count);
    }
    let Some((function, field)) = text.split_once(':') else {
        return Err(SpecError(format!(
            "bad --agg {text:?}: use count, sum:FIELD, mean:FIELD, min:FIELD, max:FIELD or pNN:FIELD"
        )));
    };
    let measure = match field {
        "dur" => Measure::Duration,
        "size" => Measure::Size,
        other => return Err(SpecError(format!("bad --agg field {other:?}: dur or size"))),
    };
    Ok(match function {
        "sum" => Reducer::Sum(measure),
        "mean" => Reducer::Mean(measure),
        "min" => Reducer::Min(measure),
        "max" => Reducer::Max(measure),
        percentile if percentile.starts_with('p') => {
            let rank: f64 =
                percentile[1..].parse().ok().filter(|rank: &f64| (0.0..=100.0).contains(rank)).ok_or_else(
                    || SpecError(format!("bad percentile {percentile:?}: p0 to p100, e.g. p99")),
                )?;
            Reducer::Percentile(measure, rank)
        }
        other => return Err(SpecError(format!("unknown --agg function {other:?}"))),
    })
}

/// A mergeable log histogram (DDSketch-style) of non-negative values, 1 % relative accuracy.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Sketch {
    zeros: u64,
    buckets: BTreeMap<i32, u64>,
}

const GAMMA: f64 = 1.02 / 0.98;

impl Sketch {
    fn add(&mut self, value: f64) {
        if value <= 0.0 {
            self.zeros += 1;
        } else {
            let bucket = (value.ln() / GAMMA.ln()).ceil() as i32;
            *self.buckets.entry(bucket).or_default() += 1;
        }
    }

    fn merge(&mut self, other: &Sketch) {
        self.zeros += other.zeros;
        for (bucket, count) in &other.buckets {
            *self.buckets.entry(*bucket).or_default() += count;
        }
    }

    /// The value at percentile `rank` (0-100), within 1 %.
    fn quantile(&self, rank: f64) -> Option<f64> {
        let total = self.zeros + self.buckets.values().sum::<u64>();
        if total == 0 {
            return None;
        }
        let target = ((rank / 100.0) * (total - 1) as f64).floor() as u64;
        if target < self.zeros {
            return Some(0.0);
        }
        let mut seen = self.zeros;
        for (bucket, count) in &self.buckets {
            seen += count;
            if seen > target {
                return Some(2.0 * GAMMA.powi(*bucket) / (GAMMA + 1.0));
            }
        }
        None
    }
}

/// Partial aggregates of one measure.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MeasurePartial {
    /// Events carrying the value.
    pub count: u64,
    /// Sum.
    pub sum: i128,
    /// Minimum.
    pub min: Option<i64>,
    /// Maximum.
    pub max: Option<i64>,
    /// Distribution, when a percentile is asked.
    pub sketch: Option<Sketch>,
}

impl MeasurePartial {
    fn add(&mut self, value: i64, sketch: bool) {
        self.count += 1;
        self.sum += i128::from(value);
        self.min = Some(self.min.map_or(value, |min| min.min(value)));
        self.max = Some(self.max.map_or(value, |max| max.max(value)));
        if sketch {
            self.sketch.get_or_insert_with(Sketch::default).add(value as f64);
        }
    }

    fn merge(&mut self, other: &MeasurePartial) {
        self.count += other.count;
        self.sum += other.sum;
        self.min = match (self.min, other.min) {
            (Some(left), Some(right)) => Some(left.min(right)),
            (left, right) => left.or(right),
        };
        self.max = match (self.max, other.max) {
            (Some(left), Some(right)) => Some(left.max(right)),
            (left, right) => left.or(right),
        };
        if let Some(sketch) = &other.sketch {
            self.sketch.get_or_insert_with(Sketch::default).merge(sketch);
        }
    }
}

/// Partial aggregates of one group.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Partial {
    /// Events.
    pub count: u64,
    /// `dur`.
    pub duration: MeasurePartial,
    /// Bytes moved.
    pub size: MeasurePartial,
}

impl Partial {
    fn merge(&mut self, other: &Partial) {
        self.count += other.count;
        self.duration.merge(&other.duration);
        self.size.merge(&other.size);
    }
}

/// Groups and their partial aggregates; mergeable in any order.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Groups {
    /// By key values (in `GroupSpec::keys` order).
    pub groups: BTreeMap<Vec<String>, Partial>,
}

impl Groups {
    /// Adds the groups of `other`.
    pub fn merge(&mut self, other: Groups) {
        for (key, partial) in other.groups {
            self.groups.entry(key).or_default().merge(&partial);
        }
    }

    /// The answer from chunk statistics alone, or `None` when they cannot give it (keys other
    /// than `name`/`cat`, a percentile, a chunk that matches only in part, or a chunk whose table
    /// overflowed).
    pub fn from_statistics<'c>(
        spec: &GroupSpec,
        predicate: Option<&Predicate>,
        chunks: impl IntoIterator<Item = &'c ChunkStats>,
        tables: &HashTables,
    ) -> Option<Groups> {
        if spec.needs_sketch() || spec.keys.iter().any(|key| !matches!(key, GroupKey::Name | GroupKey::Cat)) {
            return None;
        }
        let mut groups = Groups::default();
        for stats in chunks {
            let truth = predicate.map_or(Truth::True, |predicate| predicate.chunk_truth(stats, tables));
            match truth {
                Truth::False => continue,
                Truth::Unknown => return None,
                Truth::True if stats.calls_overflow => return None,
                Truth::True => {}
            }
            for (cat, names) in &stats.calls {
                for (name, call) in names {
                    let key = spec
                        .keys
                        .iter()
                        .map(|key| if *key == GroupKey::Name { name.clone() } else { cat.clone() })
                        .collect();
                    let partial = groups.groups.entry(key).or_default();
                    partial.count += call.count;
                    partial.duration.merge(&MeasurePartial {
                        count: call.with_duration,
                        sum: call.duration_sum,
                        min: call.duration_min,
                        max: call.duration_max,
                        sketch: None,
                    });
                    // Bytes are recorded only as a sum per pair: min/max/mean of size need a scan.
                    partial.size.count += call.count;
                    partial.size.sum += i128::from(call.bytes);
                }
            }
        }
        let size_beyond_sum = spec.reducers.iter().any(|reducer| {
            matches!(
                reducer,
                Reducer::Mean(Measure::Size) | Reducer::Min(Measure::Size) | Reducer::Max(Measure::Size)
            )
        });
        if size_beyond_sum {
            return None;
        }
        Some(groups)
    }

    /// Rows: key values then reducer results (as JSON values), sorted by key.
    pub fn rows(&self, spec: &GroupSpec) -> Vec<Vec<serde_json::Value>> {
        self.groups
            .iter()
            .map(|(key, partial)| {
                let mut row: Vec<serde_json::Value> =
                    key.iter().map(|value| serde_json::Value::from(value.clone())).collect();
                row.extend(spec.reducers.iter().map(|reducer| reduce(reducer, partial)));
                row
            })
            .collect()
    }
}

fn reduce(reducer: &Reducer, partial: &Partial) -> serde_json::Value {
    let measure = |measure: &Measure| match measure {
        Measure::Duration => &partial.duration,
        Measure::Size => &partial.size,
    };
    let number = |value: Option<f64>| value.map_or(serde_json::Value::Null, serde_json::Value::from);
    match reducer {
        Reducer::Count => partial.count.into(),
        Reducer::Sum(value) => {
            i64::try_from(measure(value).sum).map_or(serde_json::Value::Null, serde_json::Value::from)
        }
        Reducer::Mean(value) => {
            let value = measure(value);
            number((value.count > 0).then(|| value.sum as f64 / value.count as f64))
        }
        Reducer::Min(value) => measure(value).min.map_or(serde_json::Value::Null, serde_json::Value::from),
        Reducer::Max(value) => measure(value).max.map_or(serde_json::Value::Null, serde_json::Value::from),
        Reducer::Percentile(value, rank) => {
            number(measure(value).sketch.as_ref().and_then(|sketch| sketch.quantile(*rank)))
        }
    }
}

/// The scan path: filters events and folds them into [`Groups`].
pub struct GroupFold<'s> {
    spec: &'s GroupSpec,
    predicate: Option<&'s Predicate>,
    tables: &'s HashTables,
    /// The groups so far.
    pub groups: Groups,
}

impl<'s> GroupFold<'s> {
    /// A fold for `spec`, keeping the events `predicate` matches.
    pub fn new(spec: &'s GroupSpec, predicate: Option<&'s Predicate>, tables: &'s HashTables) -> Self {
        GroupFold { spec, predicate, tables, groups: Groups::default() }
    }
}

impl Fold for GroupFold<'_> {
    fn event(&mut self, event: &Event<'_>) {
        let needs_args = self.spec.needs_args() || self.predicate.is_some_and(Predicate::uses_args);
        let args = if needs_args { Args::of(event) } else { Args::default() };
        if let Some(predicate) = self.predicate
            && !predicate.matches_with_args(event, &args, self.tables)
        {
            return;
        }
        let key: Vec<String> = self
            .spec
            .keys
            .iter()
            .map(|key| match key {
                GroupKey::Name => event.name.as_deref().unwrap_or_default().to_string(),
                GroupKey::Cat => event.cat.as_deref().unwrap_or_default().to_string(),
                GroupKey::Pid => event.pid.map(|pid| pid.to_string()).unwrap_or_default(),
                GroupKey::Tid => event.tid.map(|tid| tid.to_string()).unwrap_or_default(),
                GroupKey::Phase => event.phase.map(|phase| phase.letter().to_string()).unwrap_or_default(),
                GroupKey::Host => ioscout_read::resolve_host(&args, self.tables)
                    .map(std::borrow::Cow::into_owned)
                    .unwrap_or_default(),
                GroupKey::File => ioscout_read::resolve_file(&args, self.tables)
                    .map(std::borrow::Cow::into_owned)
                    .unwrap_or_default(),
                GroupKey::Arg(arg) => {
                    args.get(arg).map(|value| value.as_text().into_owned()).unwrap_or_default()
                }
            })
            .collect();
        let sketch = self.spec.needs_sketch();
        let bytes = if self.spec.needs_args() {
            EventFields::from_event(event).map_or(0, |fields| event_bytes(&fields))
        } else {
            0
        };
        let partial = self.groups.groups.entry(key).or_default();
        partial.count += 1;
        if let Some(duration) = event.dur {
            partial.duration.add(duration, sketch);
        }
        partial.size.add(i64::try_from(bytes).unwrap_or(i64::MAX), sketch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_reject_nonsense() {
        let spec = GroupSpec::parse("name,cat", "count,sum:dur,p99:dur,mean:size")
            .unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(spec.columns(), ["name", "cat", "count", "sum:dur", "p99:dur", "mean:size"]);
        assert!(GroupSpec::parse("nope", "").is_err());
        assert!(GroupSpec::parse("name", "sum:ts").is_err());
        assert!(GroupSpec::parse("name", "p101:dur").is_err());
        assert!(GroupSpec::parse("name", "median").is_err());
        assert_eq!(GroupSpec::parse("", "").map(|spec| spec.reducers), Ok(vec![Reducer::Count]));
    }

    #[test]
    fn the_sketch_is_within_one_percent() {
        let mut sketch = Sketch::default();
        for value in 1..=10_000 {
            sketch.add(f64::from(value));
        }
        for (rank, exact) in [(50.0, 5000.0), (99.0, 9900.0), (100.0, 10_000.0)] {
            let found = sketch.quantile(rank).unwrap_or(0.0);
            assert!((found - exact).abs() / exact < 0.021, "p{rank}: {found} vs {exact}");
        }
        let mut left = Sketch::default();
        let mut right = Sketch::default();
        for value in 0..100 {
            if value % 2 == 0 {
                left.add(f64::from(value));
            } else {
                right.add(f64::from(value));
            }
            sketch.add(0.0);
        }
        left.merge(&right);
        assert_eq!(left.zeros + left.buckets.values().sum::<u64>(), 100);
    }
}
