//! Totals over a log: the per-module record counts and counter totals of `ioscout darshan
//! summary`, and the aggregate record of `darshan-parser --total` (one record standing for all
//! of a module's records, with each counter combined by its meaning: counts and bytes summed,
//! highest offsets maximised, first timestamps minimised, the slowest call's size carried with it,
//! the four most common access sizes and strides merged).

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use crate::DarshanLog;
use crate::module::{CounterRecord, Records, counter_names};

/// How a counter combines across records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Combine {
    Sum,
    Last,
    Max,
    MinNonZero,
    /// Set together with another counter (max time with its size, fastest/slowest rank, common values).
    Derived,
    Zero,
}

fn combine_of(name: &str) -> Combine {
    let short = name.split_once('_').map_or(name, |(_, rest)| rest);
    if short.starts_with("F_") {
        return if short.ends_with("_START_TIMESTAMP") {
            Combine::MinNonZero
        } else if short.ends_with("_END_TIMESTAMP")
            || short.starts_with("F_MAX_") && !short.ends_with("_TIME")
        {
            Combine::Max
        } else if short.starts_with("F_VARIANCE") {
            Combine::Zero
        } else if short.starts_with("F_MAX_") || short.contains("RANK_TIME") {
            Combine::Derived
        } else {
            Combine::Sum
        };
    }
    if short.starts_with("MAX_BYTE_") {
        Combine::Max
    } else if matches!(short, "MODE" | "RENAMED_FROM" | "MEM_ALIGNMENT" | "FILE_ALIGNMENT")
        || short.starts_with("MAX_") && short.ends_with("_TIME_SIZE")
    {
        if short.starts_with("MAX_") { Combine::Derived } else { Combine::Last }
    } else if short.contains("FASTEST_RANK")
        || short.contains("SLOWEST_RANK")
        || (short.starts_with("STRIDE") || short.starts_with("ACCESS")) && !short.starts_with("ACCESS_")
    {
        Combine::Derived
    } else {
        Combine::Sum
    }
}

pub(crate) fn index_of(names: &[&str], name: &str) -> Option<usize> {
    names.iter().position(|candidate| *candidate == name)
}

/// Merges the `{prefix}{1..4}_{value_suffix}` / `{prefix}{1..4}_COUNT` common-value counters of
/// every record into the four most frequent values overall (ties: larger value first). A count
/// whose sum does not fit 64 bits is kept at `i64::MAX` and its counter named in `overflowed`.
pub(crate) fn merge_common(
    names: &[&str],
    records: &[CounterRecord],
    module: &str,
    prefix: &str,
    value_suffix: &str,
    out: &mut [i64],
    overflowed: &mut Vec<String>,
) {
    let value_indices: Vec<usize> = (1..=4)
        .filter_map(|slot| index_of(names, &format!("{module}_{prefix}{slot}_{value_suffix}")))
        .collect();
    let count_indices: Vec<usize> =
        (1..=4).filter_map(|slot| index_of(names, &format!("{module}_{prefix}{slot}_COUNT"))).collect();
    if value_indices.len() != 4 || count_indices.len() != 4 {
        return;
    }
    let mut counts: HashMap<i64, i64> = HashMap::new();
    let mut saturated: Vec<i64> = Vec::new();
    for record in records {
        for (value_index, count_index) in value_indices.iter().zip(&count_indices) {
            let (Some(&value), Some(&count)) =
                (record.counters.get(*value_index), record.counters.get(*count_index))
            else {
                continue;
            };
            if count > 0 {
                let total = counts.entry(value).or_default();
                *total = total.checked_add(count).unwrap_or_else(|| {
                    saturated.push(value);
                    i64::MAX
                });
            }
        }
    }
    let mut ranked: Vec<(i64, i64)> = counts.into_iter().collect();
    ranked.sort_by(|left, right| right.1.cmp(&left.1).then(right.0.cmp(&left.0)));
    for slot in 0..4 {
        let (value, count) = ranked.get(slot).copied().unwrap_or((0, 0));
        out[value_indices[slot]] = value;
        out[count_indices[slot]] = count;
        if count > 0 && saturated.contains(&value) {
            overflowed.push(names[count_indices[slot]].to_string());
        }
    }
}

/// Adds `values` exactly; `None` when the sum does not fit 64 bits.
fn checked_sum(values: impl Iterator<Item = i64>) -> Option<i64> {
    values.into_iter().try_fold(0_i64, i64::checked_add)
}

/// The aggregate record of a module (`darshan-parser --total`), and the counters whose totals
/// could not be right: sums that do not fit 64 bits (a damaged or hostile log), printed
/// saturated at `i64::MAX` and named here so no output passes them off as true.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Aggregate {
    /// `(counter name, printed value)` pairs, in counter order.
    pub values: Vec<(String, String)>,
    /// Counters whose sum overflowed.
    pub overflowed: Vec<String>,
}

/// The aggregate of a module's records as `(counter name, printed value)` pairs, in counter
/// order (what `darshan-parser --total` prints after `total_`).
pub fn aggregate(module_id: usize, records: &[CounterRecord]) -> Aggregate {
    let Some((names, float_names)) = counter_names(module_id) else { return Aggregate::default() };
    let mut combined = Combined::of(names, float_names, records);
    combined.slowest_requests(records);
    // Fastest and slowest rank: meaningful only when every record is of the same file.
    combined.fastest_and_slowest_ranks(records);
    let Combined { module, mut integers, floats, mut overflowed, .. } = combined;
    merge_common(names, records, module, "STRIDE", "STRIDE", &mut integers, &mut overflowed);
    merge_common(names, records, module, "ACCESS", "ACCESS", &mut integers, &mut overflowed);
    let mut values: Vec<(String, String)> =
        names.iter().zip(&integers).map(|(name, value)| ((*name).to_string(), value.to_string())).collect();
    values.extend(
        float_names.iter().zip(&floats).map(|(name, value)| ((*name).to_string(), format!("{value:.6}"))),
    );
    Aggregate { values, overflowed }
}

/// A module's counters combined over records, as [`aggregate`] builds them step by step.
struct Combined {
    names: &'static [&'static str],
    float_names: &'static [&'static str],
    /// The counters' prefix (`POSIX`).
    module: &'static str,
    integers: Vec<i64>,
    floats: Vec<f64>,
    overflowed: Vec<String>,
}

impl Combined {
    /// Each counter combined by its rule ([`combine_of`]): summed (an overflow saturates and is
    /// named), the last, the largest or the smallest nonzero; derived ones left at 0.
    fn of(
        names: &'static [&'static str],
        float_names: &'static [&'static str],
        records: &[CounterRecord],
    ) -> Combined {
        let mut overflowed = Vec::new();
        let module = names.first().and_then(|name| name.split('_').next()).unwrap_or_default();
        let mut integers = vec![0_i64; names.len()];
        let mut floats = vec![0.0_f64; float_names.len()];
        for (index, name) in names.iter().enumerate() {
            let mut values = records.iter().filter_map(|record| record.counters.get(index).copied());
            integers[index] = match combine_of(name) {
                Combine::Sum => match checked_sum(values) {
                    Some(total) if total < 0 => -1,
                    Some(total) => total,
                    None => {
                        overflowed.push((*name).to_string());
                        i64::MAX
                    }
                },
                Combine::Last => values.next_back().unwrap_or(0),
                Combine::Max => values.max().unwrap_or(0).max(0),
                Combine::MinNonZero | Combine::Derived | Combine::Zero => 0,
            };
        }
        for (index, name) in float_names.iter().enumerate() {
            let values = records.iter().filter_map(|record| record.fcounters.get(index).copied());
            floats[index] = match combine_of(name) {
                Combine::Sum => values.sum(),
                Combine::Max => values.fold(0.0, f64::max),
                Combine::MinNonZero => values
                    .filter(|value| *value > 0.0)
                    .fold(0.0, |low, value| if low == 0.0 || value < low { value } else { low }),
                Combine::Last | Combine::Derived | Combine::Zero => 0.0,
            };
        }
        Combined { names, float_names, module, integers, floats, overflowed }
    }

    /// The slowest read and write, each with its request size.
    fn slowest_requests(&mut self, records: &[CounterRecord]) {
        let module = self.module;
        for kind in ["READ", "WRITE"] {
            let (Some(time), Some(size)) = (
                index_of(self.float_names, &format!("{module}_F_MAX_{kind}_TIME")),
                index_of(self.names, &format!("{module}_MAX_{kind}_TIME_SIZE")),
            ) else {
                continue;
            };
            let mut best = 0.0;
            for record in records {
                let value = record.fcounters.get(time).copied().unwrap_or(0.0);
                if value > best {
                    best = value;
                    self.integers[size] = record.counters.get(size).copied().unwrap_or(0);
                }
            }
            self.floats[time] = best;
        }
    }

    /// The fastest and slowest rank with their bytes and times: from each shared record's own
    /// and each rank's record, when every record is of the same file; -1 otherwise.
    fn fastest_and_slowest_ranks(&mut self, records: &[CounterRecord]) {
        let (names, float_names, module) = (self.names, self.float_names, self.module);
        let rank_fields = (
            index_of(names, &format!("{module}_FASTEST_RANK")),
            index_of(names, &format!("{module}_FASTEST_RANK_BYTES")),
            index_of(names, &format!("{module}_SLOWEST_RANK")),
            index_of(names, &format!("{module}_SLOWEST_RANK_BYTES")),
            index_of(float_names, &format!("{module}_F_FASTEST_RANK_TIME")),
            index_of(float_names, &format!("{module}_F_SLOWEST_RANK_TIME")),
        );
        let (Some(fast), Some(fast_bytes), Some(slow), Some(slow_bytes), Some(fast_time), Some(slow_time)) =
            rank_fields
        else {
            return;
        };
        let same_file = records.windows(2).all(|pair| pair[0].id == pair[1].id);
        let (integers, floats) = (&mut self.integers, &mut self.floats);
        if !same_file || records.is_empty() {
            integers[fast] = -1;
            integers[fast_bytes] = -1;
            integers[slow] = -1;
            integers[slow_bytes] = -1;
            return;
        }
        let bytes_of = |record: &CounterRecord| {
            ["BYTES_READ", "BYTES_WRITTEN"]
                .iter()
                .filter_map(|suffix| index_of(names, &format!("{module}_{suffix}")))
                .map(|index| record.counters.get(index).copied().unwrap_or(0))
                .fold(0_i64, i64::saturating_add)
        };
        let time_of = |record: &CounterRecord| {
            ["F_READ_TIME", "F_WRITE_TIME", "F_META_TIME"]
                .iter()
                .filter_map(|suffix| index_of(float_names, &format!("{module}_{suffix}")))
                .map(|index| record.fcounters.get(index).copied().unwrap_or(0.0))
                .sum::<f64>()
        };
        let mut first = true;
        for record in records {
            let (fast_candidate, slow_candidate) = if record.rank == -1 {
                (
                    (record.counters[fast], record.counters[fast_bytes], record.fcounters[fast_time]),
                    (record.counters[slow], record.counters[slow_bytes], record.fcounters[slow_time]),
                )
            } else {
                let own = (record.rank, bytes_of(record), time_of(record));
                (own, own)
            };
            if first || fast_candidate.2 < floats[fast_time] {
                integers[fast] = fast_candidate.0;
                integers[fast_bytes] = fast_candidate.1;
                floats[fast_time] = fast_candidate.2;
            }
            if first || slow_candidate.2 > floats[slow_time] {
                integers[slow] = slow_candidate.0;
                integers[slow_bytes] = slow_candidate.1;
                floats[slow_time] = slow_candidate.2;
            }
            first = false;
        }
    }
}

/// Whether a counter's total over records means something (counts, bytes, times spent), as
/// opposed to offsets, modes, ranks, timestamps or common values.
pub fn is_additive(name: &str) -> bool {
    combine_of(name) == Combine::Sum
}

/// The summary of a log: version, process count, run time, modules, and per module with counter
/// records its record count and the totals of its additive counters, under Darshan's names.
pub fn summary(log: &DarshanLog) -> Value {
    let mut out = Map::new();
    out.insert("version".into(), json!(log.header.version));
    out.insert("nprocs".into(), json!(log.job.nprocs));
    out.insert("run_time".into(), json!(log.run_time()));
    out.insert("exe".into(), json!(log.job.exe));
    out.insert("compression".into(), json!(log.header.compression.name()));
    out.insert("name_records".into(), json!(log.names.len()));
    let modules: Vec<&str> =
        log.modules.iter().filter(|module| module.map.length > 0).map(|module| module.name).collect();
    out.insert("modules".into(), json!(modules));
    let partial: Vec<&str> =
        log.modules.iter().filter(|module| module.partial).map(|module| module.name).collect();
    out.insert("partial_modules".into(), json!(partial));
    // Modules whose regions are damaged: none of their records read, or only some.
    out.insert("unread_modules".into(), json!(log.unread_modules()));
    out.insert("damaged_modules".into(), json!(log.damaged_modules()));
    for module in &log.modules {
        let mut entry = Map::new();
        entry.insert("records".into(), json!(module.records.len()));
        entry.insert("version".into(), json!(module.version));
        if module.skipped_records > 0 {
            entry.insert("skipped_records".into(), json!(module.skipped_records));
        }
        match &module.records {
            Records::Counters(records) => {
                if let Some((names, float_names)) = counter_names(module.id) {
                    let mut overflowed = Vec::new();
                    for (index, name) in names.iter().enumerate().filter(|(_, name)| is_additive(name)) {
                        let values = records.iter().filter_map(|record| record.counters.get(index).copied());
                        let monitored: Vec<i64> = values.filter(|value| *value >= 0).collect();
                        let total = if monitored.is_empty() && !records.is_empty() {
                            -1
                        } else {
                            checked_sum(monitored.iter().copied()).unwrap_or_else(|| {
                                overflowed.push(*name);
                                i64::MAX
                            })
                        };
                        entry.insert((*name).to_string(), json!(total));
                    }
                    if !overflowed.is_empty() {
                        entry.insert("overflowed_counters".into(), json!(overflowed));
                    }
                    for (index, name) in float_names.iter().enumerate().filter(|(_, name)| is_additive(name))
                    {
                        let total: f64 = records
                            .iter()
                            .filter_map(|record| record.fcounters.get(index).copied())
                            .filter(|value| *value >= 0.0)
                            .sum();
                        entry.insert((*name).to_string(), json!(total));
                    }
                }
            }
            Records::Dxt(records) => {
                let segments: usize = records.iter().map(|record| record.segments.len()).sum();
                entry.insert("segments".into(), json!(segments));
            }
            Records::DxtOnDisk(on_disk) => {
                entry.insert("segments".into(), json!(on_disk.segments));
            }
            Records::Lustre(records) => {
                let stripes: usize = records.iter().map(|record| record.ost_ids.len()).sum();
                entry.insert("stripes".into(), json!(stripes));
            }
            Records::Heatmap(records) => {
                let read: i64 = records
                    .iter()
                    .flat_map(|record| &record.read_bins)
                    .fold(0_i64, |sum, value| sum.saturating_add(*value));
                let written: i64 = records
                    .iter()
                    .flat_map(|record| &record.write_bins)
                    .fold(0_i64, |sum, value| sum.saturating_add(*value));
                entry.insert("bytes_read".into(), json!(read));
                entry.insert("bytes_written".into(), json!(written));
            }
            Records::Opaque => {
                entry.insert("decoded".into(), json!(false));
            }
        }
        out.insert(module.name.to_string(), Value::Object(entry));
    }
    if !log.problems.is_empty() {
        out.insert("problems".into(), json!(log.problems));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module::id;

    #[test]
    fn counters_combine_by_meaning() {
        assert_eq!(combine_of("POSIX_OPENS"), Combine::Sum);
        assert_eq!(combine_of("POSIX_BYTES_READ"), Combine::Sum);
        assert_eq!(combine_of("POSIX_MAX_BYTE_READ"), Combine::Max);
        assert_eq!(combine_of("POSIX_MODE"), Combine::Last);
        assert_eq!(combine_of("POSIX_MAX_READ_TIME_SIZE"), Combine::Derived);
        assert_eq!(combine_of("POSIX_STRIDE1_STRIDE"), Combine::Derived);
        assert_eq!(combine_of("POSIX_ACCESS4_COUNT"), Combine::Derived);
        assert_eq!(combine_of("POSIX_F_OPEN_START_TIMESTAMP"), Combine::MinNonZero);
        assert_eq!(combine_of("POSIX_F_CLOSE_END_TIMESTAMP"), Combine::Max);
        assert_eq!(combine_of("POSIX_F_READ_TIME"), Combine::Sum);
        assert_eq!(combine_of("POSIX_F_MAX_WRITE_TIME"), Combine::Derived);
        assert_eq!(combine_of("POSIX_F_VARIANCE_RANK_TIME"), Combine::Zero);
        assert_eq!(combine_of("MPIIO_SIZE_READ_AGG_0_100"), Combine::Sum);
        assert_eq!(combine_of("STDIO_F_META_TIME"), Combine::Sum);
        assert_eq!(combine_of("MPIIO_ACCESS1_ACCESS"), Combine::Derived);
        assert_eq!(combine_of("POSIX_FASTEST_RANK_BYTES"), Combine::Derived);
    }

    #[test]
    fn common_values_merge_across_records() {
        let Some((names, floats)) = counter_names(id::POSIX) else { panic!("POSIX names") };
        let record = |access: [i64; 4], counts: [i64; 4]| {
            let mut counters = vec![0_i64; names.len()];
            for slot in 0..4 {
                counters[index_of(names, &format!("POSIX_ACCESS{}_ACCESS", slot + 1)).unwrap_or(0)] =
                    access[slot];
                counters[index_of(names, &format!("POSIX_ACCESS{}_COUNT", slot + 1)).unwrap_or(0)] =
                    counts[slot];
            }
            CounterRecord {
                id: 1,
                rank: 0,
                file_record_id: None,
                counters,
                fcounters: vec![0.0; floats.len()],
            }
        };
        let records = [record([4096, 8, 0, 0], [10, 1, 0, 0]), record([8, 100, 0, 0], [20, 5, 0, 0])];
        let total = aggregate(id::POSIX, &records);
        let value =
            |name: &str| total.values.iter().find(|(key, _)| key == name).map(|(_, value)| value.clone());
        assert_eq!(value("POSIX_ACCESS1_ACCESS").as_deref(), Some("8"));
        assert_eq!(value("POSIX_ACCESS1_COUNT").as_deref(), Some("21"));
        assert_eq!(value("POSIX_ACCESS2_ACCESS").as_deref(), Some("4096"));
        assert_eq!(value("POSIX_ACCESS3_ACCESS").as_deref(), Some("100"));
    }

    #[test]
    fn access_counts_that_overflow_are_saturated_and_named() {
        let Some((names, floats)) = counter_names(id::POSIX) else { panic!("POSIX names") };
        let access = index_of(names, "POSIX_ACCESS1_ACCESS").unwrap_or(0);
        let count = index_of(names, "POSIX_ACCESS1_COUNT").unwrap_or(0);
        let opens = index_of(names, "POSIX_OPENS").unwrap_or(0);
        let record = || {
            let mut counters = vec![0_i64; names.len()];
            counters[access] = 4096;
            counters[count] = i64::MAX - 1;
            counters[opens] = i64::MAX - 1;
            CounterRecord {
                id: 1,
                rank: 0,
                file_record_id: None,
                counters,
                fcounters: vec![0.0; floats.len()],
            }
        };
        let total = aggregate(id::POSIX, &[record(), record()]);
        assert!(total.overflowed.iter().any(|name| name == "POSIX_ACCESS1_COUNT"), "{:?}", total.overflowed);
        assert!(total.overflowed.iter().any(|name| name == "POSIX_OPENS"), "{:?}", total.overflowed);
        let value =
            |name: &str| total.values.iter().find(|(key, _)| key == name).map(|(_, value)| value.clone());
        assert_eq!(value("POSIX_ACCESS1_COUNT"), Some(i64::MAX.to_string()));
    }

    /// The fuzz reproducer `read_darshan/access-count-add-overflow.darshan`: its totals overflowed
    /// (a panic with overflow checks, a silently wrapped total without). Its records hold
    /// impossible counts: read in part they are dropped and named, so nothing sums them;
    /// read whole the log is refused.
    #[test]
    fn fuzz_reproducer_access_count_overflow_is_reported_not_wrapped() {
        let path = std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/fuzz-repro/read_darshan/access-count-add-overflow.darshan"
        ));
        let Ok(bytes) = std::fs::read(path) else { panic!("{} is missing", path.display()) };
        assert!(DarshanLog::from_bytes(path, &bytes, crate::ReadOptions { partial: false }).is_err());
        let Ok(log) = DarshanLog::from_bytes(path, &bytes, crate::ReadOptions { partial: true }) else {
            panic!("read in part, the log must read")
        };
        assert!(log.problems.iter().any(|problem| problem.contains("dropped")), "{:?}", log.problems);
        let text = crate::dump::dump(&log, crate::dump::DumpOptions::all());
        assert!(!text.contains("does not fit 64 bits"), "an impossible record was summed");
        let _ = summary(&log);
    }
}
