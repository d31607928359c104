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
//! Percentiles are exact (linear interpolation between the closest ranks, as numpy and pandas
//! compute them) while a group holds at most [`EXACT_PERCENTILE_LIMIT`] values, and past that come
//! from a DDSketch-style log histogram with 1 % relative error, clamped to the group's observed
//! `[min, max]`; p0 is the minimum and p100 the maximum always. [`Groups::approximate`] says
//! which groups' percentiles are approximate, so the output can say so.

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
                    // The second names are a DXT segment's words for the same fields.
                    "name" | "op" => GroupKey::Name,
                    "cat" | "module" => GroupKey::Cat,
                    "pid" | "rank" => GroupKey::Pid,
                    "tid" => GroupKey::Tid,
                    "ph" => GroupKey::Phase,
                    "host" => GroupKey::Host,
                    "file" => GroupKey::File,
                    other => match other.strip_prefix("args.") {
                        Some(arg) if !arg.is_empty() => GroupKey::Arg(arg.to_string()),
                        _ => {
                            return Err(SpecError(format!(
                                "unknown --group-by key {other:?} (keys: name, cat, pid, tid, ph, host, file, args.<key>; for DXT segments also op, module, rank)"
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

/// How many values a group keeps exactly for its percentiles; past it the group's values go into
/// a [`Sketch`] (memory per group stays bounded).
pub const EXACT_PERCENTILE_LIMIT: usize = 100_000;

/// The relative error of a percentile from a [`Sketch`] (stated in the output and `--help`).
pub const SKETCH_RELATIVE_ERROR: f64 = 0.01;

/// The values of one measure in one group, for percentiles: every value while there are at most
/// [`EXACT_PERCENTILE_LIMIT`], then a sketch. Mergeable in any order with the same answer for the
/// exact form (values are sorted before a percentile is read).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Distribution {
    /// Every value (unordered).
    Exact(Vec<i64>),
    /// A log histogram, past the limit.
    Sketch(Sketch),
}

impl Default for Distribution {
    fn default() -> Self {
        Distribution::Exact(Vec::new())
    }
}

impl Distribution {
    fn add(&mut self, value: i64) {
        match self {
            Distribution::Exact(values) => {
                values.push(value);
                if values.len() > EXACT_PERCENTILE_LIMIT {
                    self.spill();
                }
            }
            Distribution::Sketch(sketch) => sketch.add(value as f64),
        }
    }

    fn spill(&mut self) {
        if let Distribution::Exact(values) = self {
            let mut sketch = Sketch::default();
            for value in values.iter() {
                sketch.add(*value as f64);
            }
            *self = Distribution::Sketch(sketch);
        }
    }

    fn merge(&mut self, other: &Distribution) {
        match (&mut *self, other) {
            (Distribution::Exact(values), Distribution::Exact(more)) => {
                values.extend_from_slice(more);
                if values.len() > EXACT_PERCENTILE_LIMIT {
                    self.spill();
                }
            }
            (Distribution::Sketch(sketch), Distribution::Sketch(more)) => sketch.merge(more),
            (Distribution::Sketch(sketch), Distribution::Exact(more)) => {
                for value in more {
                    sketch.add(*value as f64);
                }
            }
            (Distribution::Exact(_), Distribution::Sketch(more)) => {
                self.spill();
                if let Distribution::Sketch(sketch) = self {
                    sketch.merge(more);
                }
            }
        }
    }

    /// Whether the percentiles come from the sketch (approximate) rather than every value.
    pub fn is_approximate(&self) -> bool {
        matches!(self, Distribution::Sketch(_))
    }

    /// The value at percentile `rank` (0-100), inside `[min, max]`: exact (linear interpolation
    /// between the two closest ranks, numpy's and pandas' default) while every value is kept;
    /// from the sketch after, clamped to the observed range. p0 is the minimum and p100 the
    /// maximum either way.
    fn percentile(&self, rank: f64, min: i64, max: i64) -> Option<f64> {
        if rank <= 0.0 {
            return Some(min as f64);
        }
        if rank >= 100.0 {
            return Some(max as f64);
        }
        match self {
            Distribution::Exact(values) => {
                let mut sorted = values.clone();
                sorted.sort_unstable();
                exact_percentile(&sorted, rank)
            }
            Distribution::Sketch(sketch) => {
                sketch.quantile(rank).map(|value| value.clamp(min as f64, max as f64))
            }
        }
    }
}

/// Percentile `rank` (0-100) of `sorted` by linear interpolation between the closest ranks.
pub fn exact_percentile(sorted: &[i64], rank: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let position = rank.clamp(0.0, 100.0) / 100.0 * last as f64;
    let below = position.floor() as usize;
    let above = (below + 1).min(last);
    let low = sorted[below.min(last)] as f64;
    let high = sorted[above] as f64;
    Some(low + (position - below as f64) * (high - low))
}

/// A mergeable log histogram (DDSketch-style) of non-negative values: every answer is within
/// [`SKETCH_RELATIVE_ERROR`] (1 %) of a value of the right rank.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Sketch {
    zeros: u64,
    buckets: BTreeMap<i32, u64>,
}

const GAMMA: f64 = (1.0 + SKETCH_RELATIVE_ERROR) / (1.0 - SKETCH_RELATIVE_ERROR);

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

    /// The value at percentile `rank` (0-100), within 1 % (the lower of the two closest ranks).
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
    pub distribution: Option<Distribution>,
}

impl MeasurePartial {
    fn add(&mut self, value: i64, sketch: bool) {
        self.count += 1;
        self.sum += i128::from(value);
        self.min = Some(self.min.map_or(value, |min| min.min(value)));
        self.max = Some(self.max.map_or(value, |max| max.max(value)));
        if sketch {
            self.distribution.get_or_insert_with(Distribution::default).add(value);
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
        if let Some(distribution) = &other.distribution {
            self.distribution.get_or_insert_with(Distribution::default).merge(distribution);
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
                        distribution: None,
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

    /// How many groups give approximate percentiles (more than [`EXACT_PERCENTILE_LIMIT`] values
    /// of a measure).
    pub fn approximate(&self) -> usize {
        self.groups
            .values()
            .filter(|partial| {
                [&partial.duration, &partial.size]
                    .iter()
                    .any(|measure| measure.distribution.as_ref().is_some_and(Distribution::is_approximate))
            })
            .count()
    }

    /// What the output says of its percentiles, when `spec` asks for any: exact, or how many
    /// groups are approximate and how far off they can be.
    pub fn percentile_note(&self, spec: &GroupSpec) -> Option<String> {
        if !spec.needs_sketch() {
            return None;
        }
        Some(match self.approximate() {
            0 => "percentiles are exact (linear interpolation between the closest ranks)".into(),
            groups => format!(
                "percentiles of {groups} of {} groups are approximate (over {EXACT_PERCENTILE_LIMIT} values: \
                 log histogram, relative error at most {} %, clamped to the group's min and max); the rest exact",
                self.groups.len(),
                SKETCH_RELATIVE_ERROR * 100.0
            ),
        })
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
            let value = measure(value);
            let (Some(min), Some(max)) = (value.min, value.max) else { return serde_json::Value::Null };
            number(
                value.distribution.as_ref().and_then(|distribution| distribution.percentile(*rank, min, max)),
            )
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

    fn percentile_of(values: &[i64], rank: f64) -> Option<f64> {
        let mut partial = MeasurePartial::default();
        for value in values {
            partial.add(*value, true);
        }
        let (min, max) = (partial.min?, partial.max?);
        partial.distribution.as_ref()?.percentile(rank, min, max)
    }

    /// The four values: p99 was 1670 (below the third value, from the sketch); it is the
    /// exact interpolated value now, and p0/p100 are the minimum and maximum.
    #[test]
    fn percentiles_of_small_groups_are_exact_and_inside_min_max() {
        let values = [113, 134, 1674, 9877];
        assert_eq!(percentile_of(&values, 0.0), Some(113.0));
        assert_eq!(percentile_of(&values, 100.0), Some(9877.0));
        assert_eq!(percentile_of(&values, 50.0), Some(904.0));
        let p99 = percentile_of(&values, 99.0).unwrap_or(0.0);
        assert!((p99 - 9630.91).abs() < 1e-6, "{p99}");
        assert_eq!(
            percentile_of(&[188_680, 286_492, 200_000], 99.9).map(|value| value <= 286_492.0),
            Some(true)
        );
    }

    proptest::proptest! {
        /// Against an independent model: percentiles of exact groups equal a sort-and-interpolate
        /// computation, whatever the merge order; every answer lies in [min, max].
        #[test]
        fn exact_percentiles_equal_the_model_in_any_merge_order(
            values in proptest::collection::vec(-1_000_000_i64..1_000_000_000, 1..300),
            rank in 0.0_f64..=100.0,
            split in 0usize..300,
        ) {
            let mut sorted = values.clone();
            sorted.sort_unstable();
            let position = rank / 100.0 * (sorted.len() - 1) as f64;
            let (low, high) = (position.floor() as usize, position.ceil() as usize);
            let model = sorted[low] as f64 + (position - low as f64) * (sorted[high] - sorted[low]) as f64;
            let split = split.min(values.len());
            let (mut left, mut right) = (MeasurePartial::default(), MeasurePartial::default());
            for value in &values[..split] {
                left.add(*value, true);
            }
            for value in &values[split..] {
                right.add(*value, true);
            }
            right.merge(&left);
            let (min, max) = (right.min.unwrap_or(0), right.max.unwrap_or(0));
            let found = right.distribution.as_ref().and_then(|distribution| distribution.percentile(rank, min, max));
            let found = found.unwrap_or(f64::NAN);
            proptest::prop_assert!((found - model).abs() <= 1e-6 * model.abs().max(1.0), "{} vs {}", found, model);
            proptest::prop_assert!(found >= min as f64 && found <= max as f64);
        }
    }

    /// Past the limit a group's percentiles come from the sketch: within 1 % of the exact value,
    /// clamped to [min, max], p0 and p100 exact, and the groups say they are approximate.
    #[test]
    fn large_groups_use_the_sketch_within_its_stated_error() {
        let mut partial = MeasurePartial::default();
        let count = EXACT_PERCENTILE_LIMIT as i64 + 5_000;
        for value in 1..=count {
            partial.add(value * 7 + 3, true);
        }
        let (min, max) = (partial.min.unwrap_or(0), partial.max.unwrap_or(0));
        let distribution = partial.distribution.clone().unwrap_or_default();
        assert!(distribution.is_approximate());
        assert_eq!(distribution.percentile(0.0, min, max), Some(min as f64));
        assert_eq!(distribution.percentile(100.0, min, max), Some(max as f64));
        let sorted: Vec<i64> = (1..=count).map(|value| value * 7 + 3).collect();
        for rank in [1.0, 25.0, 50.0, 90.0, 99.0, 99.9] {
            let exact = exact_percentile(&sorted, rank).unwrap_or(0.0);
            let found = distribution.percentile(rank, min, max).unwrap_or(0.0);
            assert!(
                (found - exact).abs() / exact <= SKETCH_RELATIVE_ERROR + 1e-3,
                "p{rank}: {found} vs {exact}"
            );
            assert!(found >= min as f64 && found <= max as f64);
        }
        let mut groups = Groups::default();
        groups.groups.insert(
            vec!["read".into()],
            Partial { count: 1, duration: partial, size: MeasurePartial::default() },
        );
        let spec = GroupSpec::parse("name", "p99:dur").unwrap_or_else(|error| panic!("{error:?}"));
        assert_eq!(groups.approximate(), 1);
        assert!(
            groups.percentile_note(&spec).is_some_and(|note| note.contains("relative error at most 1 %"))
        );
    }

    #[test]
    fn the_sketch_is_within_one_percent() {
        let mut sketch = Sketch::default();
        for value in 1..=10_000 {
            sketch.add(f64::from(value));
        }
        for (rank, exact) in [(50.0, 5000.0), (99.0, 9900.0), (100.0, 10_000.0)] {
            let found = sketch.quantile(rank).unwrap_or(0.0);
            assert!((found - exact).abs() / exact < 0.011, "p{rank}: {found} vs {exact}");
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
