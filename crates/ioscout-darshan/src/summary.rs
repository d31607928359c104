//! Totals over a log: the per-module record counts and counter totals of `ioscout darshan
//! summary`, and the aggregate record of `darshan-parser --total` (one record standing for all
//! of a module's records, with each counter combined by its meaning: counts and bytes summed,
//! highest offsets maximised, first timestamps minimised, the slowest call's size carried with it,
//! the four most common access sizes and strides merged).

use std::collections::HashMap;

use serde::Serialize;

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

/// The summary of a log (`ioscout darshan summary`): version, process count, run time, modules,
/// and per module its record count and what its records add up to. Serialised, the modules'
/// entries follow the fixed fields under the modules' names (PyDarshan's shape).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct LogSummary {
    /// The log format's version (`3.41`).
    pub version: String,
    /// Processes of the job.
    pub nprocs: i64,
    /// Run time in seconds.
    pub run_time: f64,
    /// The command line.
    pub exe: String,
    /// How the log's regions are compressed (`ZLIB`, `BZIP2`, `NONE`).
    pub compression: &'static str,
    /// Name records (file names) in the log.
    pub name_records: usize,
    /// The modules with data, in the log's order.
    pub modules: Vec<&'static str>,
    /// Modules whose records did not all fit in the log (Darshan's partial flag).
    pub partial_modules: Vec<&'static str>,
    /// Modules whose region is damaged with none of its records read.
    pub unread_modules: Vec<&'static str>,
    /// Modules whose region is damaged with some of its records read.
    pub damaged_modules: Vec<&'static str>,
    /// Each module's entry, in the log's order, keyed by the module's name.
    #[serde(flatten)]
    pub entries: ModuleEntries,
    /// What could not be read (absent when everything was).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
}

/// The modules' entries of a [`LogSummary`], serialised as an object keyed by module name in
/// the log's order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModuleEntries(pub Vec<(&'static str, ModuleSummary)>);

impl Serialize for ModuleEntries {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, entry) in &self.0 {
            map.serialize_entry(name, entry)?;
        }
        map.end()
    }
}

#[cfg(feature = "schemars")]
impl schemars::JsonSchema for ModuleEntries {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ModuleEntries".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "description": "Each module's entry, keyed by the module's name (POSIX, MPI-IO, STDIO, ...).",
            "additionalProperties": generator.subschema_for::<ModuleSummary>(),
        })
    }
}

/// One module's entry in a [`LogSummary`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct ModuleSummary {
    /// Records read.
    pub records: usize,
    /// The module's format version.
    pub version: u32,
    /// Records left out as impossible (absent when none).
    #[serde(skip_serializing_if = "is_zero")]
    pub skipped_records: usize,
    /// What the records add up to.
    #[serde(flatten)]
    pub contents: ModuleContents,
}

#[expect(clippy::trivially_copy_pass_by_ref, reason = "serde's skip_serializing_if passes a reference")]
fn is_zero(value: &usize) -> bool {
    *value == 0
}

/// What a module's records add up to, by the kind of records.
#[derive(Clone, Debug, PartialEq)]
pub enum ModuleContents {
    /// Counter records: the total of each additive counter over the records, under Darshan's
    /// names (-1 when no record monitored it; `i64::MAX` when the sum overflowed, the counter
    /// then named in `overflowed`), then the float counters' totals.
    Counters {
        /// Integer counters' totals, in the module's counter order.
        totals: Vec<(&'static str, i64)>,
        /// Counters whose sum did not fit 64 bits.
        overflowed: Vec<&'static str>,
        /// Float counters' totals, in the module's counter order.
        float_totals: Vec<(&'static str, f64)>,
    },
    /// DXT records: their segments.
    Segments(u64),
    /// LUSTRE records: their stripes.
    Stripes(usize),
    /// Heatmap records: the bytes in their bins.
    Heatmap {
        /// Bytes read.
        bytes_read: i64,
        /// Bytes written.
        bytes_written: i64,
    },
    /// A module this reader does not decode.
    NotDecoded,
    /// A module without counter names (nothing added up).
    Nothing,
}

impl Serialize for ModuleContents {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let mut map = serializer.serialize_map(None)?;
        match self {
            ModuleContents::Counters { totals, overflowed, float_totals } => {
                for (name, total) in totals {
                    map.serialize_entry(name, total)?;
                }
                if !overflowed.is_empty() {
                    map.serialize_entry("overflowed_counters", overflowed)?;
                }
                for (name, total) in float_totals {
                    map.serialize_entry(name, total)?;
                }
            }
            ModuleContents::Segments(segments) => map.serialize_entry("segments", segments)?,
            ModuleContents::Stripes(stripes) => map.serialize_entry("stripes", stripes)?,
            ModuleContents::Heatmap { bytes_read, bytes_written } => {
                map.serialize_entry("bytes_read", bytes_read)?;
                map.serialize_entry("bytes_written", bytes_written)?;
            }
            ModuleContents::NotDecoded => map.serialize_entry("decoded", &false)?,
            ModuleContents::Nothing => {}
        }
        map.end()
    }
}

#[cfg(feature = "schemars")]
impl schemars::JsonSchema for ModuleContents {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ModuleContents".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "description": "Counter records: each additive counter's total under Darshan's name (integers; -1 when no record monitored it) and `overflowed_counters`; DXT: `segments`; LUSTRE: `stripes`; heatmaps: `bytes_read` and `bytes_written`; a module not decoded: `decoded: false`.",
            "properties": {
                "overflowed_counters": {"type": "array", "items": {"type": "string"}},
                "segments": {"type": "integer"},
                "stripes": {"type": "integer"},
                "bytes_read": {"type": "integer"},
                "bytes_written": {"type": "integer"},
                "decoded": {"type": "boolean"}
            },
            "additionalProperties": {"type": "number"},
        })
    }
}

/// What the records of one module add up to.
fn contents(module: &crate::Module) -> ModuleContents {
    match &module.records {
        Records::Counters(records) => {
            let Some((names, float_names)) = counter_names(module.id) else { return ModuleContents::Nothing };
            let mut overflowed = Vec::new();
            let mut totals = Vec::new();
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
                totals.push((*name, total));
            }
            let float_totals = float_names
                .iter()
                .enumerate()
                .filter(|(_, name)| is_additive(name))
                .map(|(index, name)| {
                    let total: f64 = records
                        .iter()
                        .filter_map(|record| record.fcounters.get(index).copied())
                        .filter(|value| *value >= 0.0)
                        .sum();
                    (*name, total)
                })
                .collect();
            ModuleContents::Counters { totals, overflowed, float_totals }
        }
        Records::Dxt(records) => {
            ModuleContents::Segments(records.iter().map(|record| record.segments.len() as u64).sum())
        }
        Records::DxtOnDisk(on_disk) => ModuleContents::Segments(on_disk.segments),
        Records::Lustre(records) => {
            ModuleContents::Stripes(records.iter().map(|record| record.ost_ids.len()).sum())
        }
        Records::Heatmap(records) => {
            let sum = |bins: fn(&crate::module::HeatmapRecord) -> &Vec<i64>| {
                records.iter().flat_map(bins).fold(0_i64, |sum, value| sum.saturating_add(*value))
            };
            ModuleContents::Heatmap {
                bytes_read: sum(|record| &record.read_bins),
                bytes_written: sum(|record| &record.write_bins),
            }
        }
        Records::Opaque => ModuleContents::NotDecoded,
    }
}

/// The summary of a log: version, process count, run time, modules, and per module with counter
/// records its record count and the totals of its additive counters, under Darshan's names.
pub fn summary(log: &DarshanLog) -> LogSummary {
    let names_of = |keep: fn(&crate::Module) -> bool| -> Vec<&'static str> {
        log.modules.iter().filter(|module| keep(module)).map(|module| module.name).collect()
    };
    let entries = log
        .modules
        .iter()
        .map(|module| {
            let entry = ModuleSummary {
                records: module.records.len(),
                version: module.version,
                skipped_records: module.skipped_records,
                contents: contents(module),
            };
            (module.name, entry)
        })
        .collect();
    LogSummary {
        version: log.header.version.clone(),
        nprocs: log.job.nprocs,
        run_time: log.run_time(),
        exe: log.job.exe.clone(),
        compression: log.header.compression.name(),
        name_records: log.names.len(),
        modules: names_of(|module| module.map.length > 0),
        partial_modules: names_of(|module| module.partial),
        // Modules whose regions are damaged: none of their records read, or only some.
        unread_modules: log.unread_modules(),
        damaged_modules: log.damaged_modules(),
        entries: ModuleEntries(entries),
        problems: log.problems.clone(),
    }
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
