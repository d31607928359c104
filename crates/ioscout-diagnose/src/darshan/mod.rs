//! Diagnosis on Darshan counters: the same [`Finding`]s as the trace rules, decided from a
//! Darshan log's records instead of a DFTracer analysis.
//!
//! # Overview
//!
//! [`DarshanFacts`] holds what the rules read from a log (process count, run time, modules, the
//! POSIX, MPI-IO and STDIO records, the DXT traces, the names); [`DarshanContext`] adds the
//! thresholds and answers sums, maxima and shares by Darshan counter name. Rules live one per
//! file under [`rules`]: Drishti's triggers under Drishti's codes (`S01`, `P01`..`P22`,
//! `M01`..`M07`, and from DXT `D01`, `D02`), with Drishti's conditions and default thresholds
//! except where Drishti is wrong (`COMPATIBILITY.md` lists each case), and IOSage's patterns on
//! the same counters. A Drishti level becomes a score by how much of the job's process time the
//! I/O takes ([`DarshanContext::score`]), so a HIGH trigger on I/O that costs 0.1 % of the run is
//! reported as medium, not critical.

pub mod rules;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use ioscout_darshan::counters::{
    Counter, FloatCounter, MPIIO_COLL_READS, MPIIO_COLL_WRITES, MPIIO_INDEP_READS, MPIIO_INDEP_WRITES,
    MPIIO_NB_READS, MPIIO_NB_WRITES, POSIX_BYTES_READ, POSIX_BYTES_WRITTEN, POSIX_CONSEC_READS,
    POSIX_CONSEC_WRITES, POSIX_F_META_TIME, POSIX_F_READ_TIME, POSIX_F_WRITE_TIME, POSIX_MAX_BYTE_READ,
    POSIX_MAX_BYTE_WRITTEN, POSIX_READS, POSIX_SEQ_READS, POSIX_SEQ_WRITES, POSIX_SIZE_READ_BINS,
    POSIX_SIZE_WRITE_BINS, POSIX_WRITES, SMALL_SIZE_BINS, STDIO_F_META_TIME, STDIO_F_READ_TIME,
    STDIO_F_WRITE_TIME,
};
use ioscout_darshan::{CounterRecord, DarshanLog, DxtRecord, Records, id};

use crate::{Finding, RuleDoc, clip01};

/// The modules whose counters rules read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Module {
    /// POSIX.
    Posix,
    /// MPI-IO.
    MpiIo,
    /// STDIO.
    Stdio,
}

impl Module {
    fn id(self) -> usize {
        match self {
            Module::Posix => id::POSIX,
            Module::MpiIo => id::MPIIO,
            Module::Stdio => id::STDIO,
        }
    }

    /// The module of Darshan module id `id`, when rules read its counters.
    fn of_id(id: usize) -> Option<Module> {
        [Module::Posix, Module::MpiIo, Module::Stdio].into_iter().find(|module| module.id() == id)
    }
}

/// What the rules read from a Darshan log.
#[derive(Clone, Debug, Default)]
pub struct DarshanFacts {
    /// Processes.
    pub nprocs: i64,
    /// Run time in seconds.
    pub run_time: f64,
    /// Names of the modules with data read (`POSIX`, `MPI-IO`, `H5F`, `LUSTRE`, ...); a module
    /// whose region could not be read is not among them, so no rule fires on it.
    pub modules: BTreeSet<String>,
    /// Modules the log has a region for but whose records could not be read at all.
    pub unread_modules: BTreeSet<String>,
    /// Modules whose calls the source cannot see at all (a DFTracer trace records no MPI-IO
    /// calls): no rule reasons on their absence.
    pub not_visible: BTreeSet<String>,
    /// POSIX records.
    pub posix: Vec<CounterRecord>,
    /// MPI-IO records.
    pub mpiio: Vec<CounterRecord>,
    /// STDIO records.
    pub stdio: Vec<CounterRecord>,
    /// DXT POSIX segments per rank.
    pub dxt_posix: DxtRanks,
    /// DXT MPI-IO segments per rank.
    pub dxt_mpiio: DxtRanks,
    /// Record id to path.
    pub names: HashMap<u64, String>,
    /// Lustre stripe count by record id.
    pub stripe_counts: HashMap<u64, i64>,
    /// File-system type by record id, from the mount table.
    pub fs_types: HashMap<u64, String>,
    /// Darshan's estimate of the job's I/O time on its critical path, in seconds: the slowest
    /// rank's time in unique files plus each shared file's slowest rank, POSIX and STDIO
    /// (`darshan-parser --perf`'s `agg_time_by_slowest`). `None`: computed from the records.
    pub io_time_by_slowest: Option<f64>,
}

/// A DXT module's segments per rank: reads, writes, bytes and seconds (durations summed).
pub type DxtRanks = BTreeMap<i64, (i64, i64, i64, f64)>;

/// Adds the segments of `record` to its rank's totals.
pub fn add_dxt_record(ranks: &mut DxtRanks, record: &DxtRecord) {
    let entry = ranks.entry(record.rank).or_default();
    for segment in &record.segments {
        if segment.write {
            entry.1 += 1;
        } else {
            entry.0 += 1;
        }
        entry.2 = entry.2.saturating_add(segment.length.max(0));
        entry.3 += (segment.end - segment.start).max(0.0);
    }
}

impl DarshanFacts {
    /// The facts of a decoded log.
    pub fn from_log(log: &DarshanLog) -> DarshanFacts {
        let mut facts = DarshanFacts {
            nprocs: log.job.nprocs,
            run_time: log.run_time(),
            modules: log
                .modules
                .iter()
                .filter(|module| module.has_data())
                .map(|module| module.name.to_string())
                .collect(),
            unread_modules: log.unread_modules().into_iter().map(str::to_string).collect(),
            names: log.names.iter().cloned().collect(),
            ..DarshanFacts::default()
        };
        for module in &log.modules {
            match (&module.records, module.id) {
                (Records::Counters(records), id::POSIX) => facts.posix.clone_from(records),
                (Records::Counters(records), id::MPIIO) => facts.mpiio.clone_from(records),
                (Records::Counters(records), id::STDIO) => facts.stdio.clone_from(records),
                (Records::Dxt(_) | Records::DxtOnDisk(_), id::DXT_POSIX | id::DXT_MPIIO) => {
                    let ranks =
                        if module.id == id::DXT_POSIX { &mut facts.dxt_posix } else { &mut facts.dxt_mpiio };
                    let read = log.for_each_dxt_record(module.id, |record| {
                        add_dxt_record(ranks, record);
                        std::ops::ControlFlow::Continue(())
                    });
                    if read.is_err() {
                        // Read again from a file that changed or vanished: no rule reasons on it.
                        ranks.clear();
                        facts.unread_modules.insert(module.name.to_string());
                    }
                }
                (Records::Lustre(records), _) => {
                    for record in records {
                        let stripes = record.components.first().map_or(0, |component| component.counters[1]);
                        facts.stripe_counts.insert(record.id, stripes);
                    }
                }
                _ => {}
            }
        }
        for (record_id, path) in &log.names {
            if let Some(mount) = log.job.mount_of(path) {
                facts.fs_types.insert(*record_id, mount.fs_type.clone());
            }
        }
        facts
    }

    fn records(&self, module: Module) -> &[CounterRecord] {
        match module {
            Module::Posix => &self.posix,
            Module::MpiIo => &self.mpiio,
            Module::Stdio => &self.stdio,
        }
    }
}

pub use crate::Direction;

impl Direction {
    /// `read` or `write`.
    pub fn word(self) -> &'static str {
        match self {
            Direction::Read => "read",
            Direction::Write => "write",
        }
    }

    /// `read` or `written`.
    pub fn past(self) -> &'static str {
        match self {
            Direction::Read => "read",
            Direction::Write => "written",
        }
    }

    /// `POSIX_BYTES_READ` or `POSIX_BYTES_WRITTEN`.
    pub fn posix_bytes(self) -> Counter {
        match self {
            Direction::Read => POSIX_BYTES_READ,
            Direction::Write => POSIX_BYTES_WRITTEN,
        }
    }

    /// `POSIX_MAX_BYTE_READ` or `POSIX_MAX_BYTE_WRITTEN`.
    pub fn posix_max_byte(self) -> Counter {
        match self {
            Direction::Read => POSIX_MAX_BYTE_READ,
            Direction::Write => POSIX_MAX_BYTE_WRITTEN,
        }
    }

    /// `POSIX_F_READ_TIME` or `POSIX_F_WRITE_TIME`.
    pub fn posix_time(self) -> FloatCounter {
        match self {
            Direction::Read => POSIX_F_READ_TIME,
            Direction::Write => POSIX_F_WRITE_TIME,
        }
    }

    /// `POSIX_READS` or `POSIX_WRITES`.
    pub fn posix_operations(self) -> Counter {
        match self {
            Direction::Read => POSIX_READS,
            Direction::Write => POSIX_WRITES,
        }
    }

    /// `POSIX_CONSEC_READS` or `POSIX_CONSEC_WRITES`.
    pub fn posix_consecutive(self) -> Counter {
        match self {
            Direction::Read => POSIX_CONSEC_READS,
            Direction::Write => POSIX_CONSEC_WRITES,
        }
    }

    /// `POSIX_SEQ_READS` or `POSIX_SEQ_WRITES`.
    pub fn posix_sequential(self) -> Counter {
        match self {
            Direction::Read => POSIX_SEQ_READS,
            Direction::Write => POSIX_SEQ_WRITES,
        }
    }

    /// `MPIIO_INDEP_READS` or `MPIIO_INDEP_WRITES`.
    pub fn mpiio_independent(self) -> Counter {
        match self {
            Direction::Read => MPIIO_INDEP_READS,
            Direction::Write => MPIIO_INDEP_WRITES,
        }
    }

    /// `MPIIO_COLL_READS` or `MPIIO_COLL_WRITES`.
    pub fn mpiio_collective(self) -> Counter {
        match self {
            Direction::Read => MPIIO_COLL_READS,
            Direction::Write => MPIIO_COLL_WRITES,
        }
    }

    /// `MPIIO_NB_READS` or `MPIIO_NB_WRITES`.
    pub fn mpiio_non_blocking(self) -> Counter {
        match self {
            Direction::Read => MPIIO_NB_READS,
            Direction::Write => MPIIO_NB_WRITES,
        }
    }
}

/// Drishti's thresholds (`drishti/includes/config.py`), configurable.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct DrishtiThresholds {
    /// Read/write operation or size imbalance (P01-P04).
    pub imbalance_operations: f64,
    /// Share of small requests (P05, P06, P15, P16).
    pub small_requests: f64,
    /// Count of small requests (P05, P06, P15, P16).
    pub small_requests_absolute: i64,
    /// Share of misaligned requests (P07, P08).
    pub misaligned_requests: f64,
    /// Metadata seconds on one rank (P17).
    pub metadata_time_rank: f64,
    /// Share of random operations (P11, P13).
    pub random_operations: f64,
    /// Count of random operations (P11, P13).
    pub random_operations_absolute: i64,
    /// Straggler imbalance on shared files (P18, P19).
    pub imbalance_stragglers: f64,
    /// Per-file size imbalance over ranks (P21, P22).
    pub imbalance_size: f64,
    /// Share of bytes through STDIO (S01).
    pub interface_stdio: f64,
    /// Share of independent operations on a file (M02, M03 detail).
    pub collective_operations: f64,
    /// Count of MPI-IO operations (M02, M03).
    pub collective_operations_absolute: i64,
}

impl Default for DrishtiThresholds {
    fn default() -> Self {
        DrishtiThresholds {
            imbalance_operations: 0.1,
            small_requests: 0.1,
            small_requests_absolute: 1000,
            misaligned_requests: 0.1,
            metadata_time_rank: 30.0,
            random_operations: 0.2,
            random_operations_absolute: 1000,
            imbalance_stragglers: 0.15,
            imbalance_size: 0.3,
            interface_stdio: 0.1,
            collective_operations: 0.5,
            collective_operations_absolute: 1000,
        }
    }
}

impl DrishtiThresholds {
    /// Thresholds from Drishti's `--config` JSON (`{"small": {"requests": 0.1}}`: category, then
    /// name, joined by `_`); keys it does not name keep their defaults.
    pub fn from_drishti_json(text: &str) -> Result<DrishtiThresholds, String> {
        let value: serde_json::Value = serde_json::from_str(text).map_err(|error| error.to_string())?;
        let mut flat = serde_json::Map::new();
        let Some(categories) = value.as_object() else { return Err("expected a JSON object".into()) };
        for (category, names) in categories {
            match names.as_object() {
                Some(names) => {
                    for (name, value) in names {
                        flat.insert(format!("{category}_{name}"), value.clone());
                    }
                }
                None => {
                    flat.insert(category.clone(), names.clone());
                }
            }
        }
        let mut merged =
            serde_json::to_value(DrishtiThresholds::default()).map_err(|error| error.to_string())?;
        if let Some(object) = merged.as_object_mut() {
            for (key, value) in flat {
                if !object.contains_key(&key) {
                    return Err(format!("unknown threshold {key:?}"));
                }
                object.insert(key, value);
            }
        }
        serde_json::from_value(merged).map_err(|error| error.to_string())
    }
}

/// Drishti's message levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// High probability of harming performance.
    High,
    /// Could cause significant impact; low confidence.
    Warn,
    /// Relevant configuration information.
    Info,
    /// Best practice followed.
    Ok,
}

impl Level {
    /// The score of the level when I/O dominates the job.
    fn base(self) -> f64 {
        match self {
            Level::High => 0.9,
            Level::Warn => 0.5,
            Level::Info => 0.15,
            Level::Ok => 0.0,
        }
    }
}

/// What Darshan rules evaluate on.
pub struct DarshanContext<'a> {
    /// The log's facts.
    pub facts: &'a DarshanFacts,
    /// Drishti's thresholds.
    pub thresholds: DrishtiThresholds,
    io_time_by_slowest: f64,
}

impl<'a> DarshanContext<'a> {
    /// A context over `facts` with `thresholds`.
    pub fn new(facts: &'a DarshanFacts, thresholds: DrishtiThresholds) -> DarshanContext<'a> {
        let io_time_by_slowest = facts.io_time_by_slowest.unwrap_or_else(|| {
            [(id::POSIX, &facts.posix), (id::STDIO, &facts.stdio)]
                .iter()
                .map(|(module, records)| {
                    ioscout_darshan::derived::Metrics::of(*module, records.iter(), facts.nprocs)
                        .agg_time_by_slowest
                })
                .sum()
        });
        DarshanContext { facts, thresholds, io_time_by_slowest }
    }

    /// The records of a module.
    pub fn records(&self, module: Module) -> &[CounterRecord] {
        self.facts.records(module)
    }

    /// The records holding `counter`: those of its module (none for a module rules do not read).
    fn records_of(&self, module: usize) -> &[CounterRecord] {
        Module::of_id(module).map_or(&[], |module| self.records(module))
    }

    /// Integer counter `counter` of `record`, a record of its module.
    pub fn value(&self, record: &CounterRecord, counter: Counter) -> i64 {
        counter.of(record)
    }

    /// Floating-point counter `counter` of `record`, a record of its module.
    pub fn fvalue(&self, record: &CounterRecord, counter: FloatCounter) -> f64 {
        counter.of(record)
    }

    /// Sum of integer counter `counter` over its module's records, as Drishti sums them (raw
    /// values).
    pub fn total(&self, counter: Counter) -> i64 {
        self.records_of(counter.module()).iter().map(|record| counter.of(record)).fold(0, i64::saturating_add)
    }

    /// The POSIX requests of `direction` that were not sequential, counting each record's first
    /// request as neither: a request with no request before it in the file (Darshan's "last
    /// byte" is 0 after an open) has no order to break, so a file written or read once is not
    /// random access. Darshan's `POSIX_SEQ_*` never counts it, and Drishti counts it as random.
    pub fn not_sequential(&self, direction: Direction) -> i64 {
        let (operations, sequential) = match direction {
            Direction::Read => (POSIX_READS, POSIX_SEQ_READS),
            Direction::Write => (POSIX_WRITES, POSIX_SEQ_WRITES),
        };
        self.records(Module::Posix)
            .iter()
            .map(|record| {
                let total = operations.of(record);
                if total <= 0 { 0 } else { (total - sequential.of(record) - 1).max(0) }
            })
            .fold(0, i64::saturating_add)
    }

    /// Sum of `counter` over the records of its module that `keep` selects.
    pub fn total_where(&self, counter: Counter, keep: impl Fn(&CounterRecord) -> bool) -> i64 {
        self.records_of(counter.module())
            .iter()
            .filter(|record| keep(record))
            .map(|record| counter.of(record))
            .fold(0, i64::saturating_add)
    }

    /// Sum of floating-point counter `counter` over its module's records.
    pub fn ftotal(&self, counter: FloatCounter) -> f64 {
        self.records_of(counter.module()).iter().map(|record| counter.of(record)).sum()
    }

    /// POSIX requests of `direction` smaller than 1 MiB in a record (the five smallest size
    /// bins).
    pub fn small(&self, record: &CounterRecord, direction: Direction) -> i64 {
        let bins = match direction {
            Direction::Read => &POSIX_SIZE_READ_BINS,
            Direction::Write => &POSIX_SIZE_WRITE_BINS,
        };
        bins[..SMALL_SIZE_BINS].iter().map(|bin| bin.of(record)).fold(0, i64::saturating_add)
    }

    /// Whether the log has module `name` (`MPI-IO`, `H5F`, `LUSTRE`, ...).
    pub fn has_module(&self, name: &str) -> bool {
        self.facts.modules.contains(name)
    }

    /// The path of a record.
    pub fn name(&self, record_id: u64) -> &str {
        self.facts.names.get(&record_id).map_or("(unnamed)", String::as_str)
    }

    /// The job's I/O time on its critical path, in seconds (see
    /// [`DarshanFacts::io_time_by_slowest`]).
    pub fn io_time_by_slowest(&self) -> f64 {
        self.io_time_by_slowest
    }

    /// Seconds the job's processes spent in POSIX and STDIO calls (reads, writes, metadata),
    /// summed over processes.
    pub fn io_seconds(&self) -> f64 {
        let posix: f64 = [POSIX_F_READ_TIME, POSIX_F_WRITE_TIME, POSIX_F_META_TIME]
            .iter()
            .map(|&counter| self.ftotal(counter))
            .sum();
        let stdio: f64 = [STDIO_F_READ_TIME, STDIO_F_WRITE_TIME, STDIO_F_META_TIME]
            .iter()
            .map(|&counter| self.ftotal(counter))
            .sum();
        (posix + stdio).max(0.0)
    }

    /// The share of the run time that the job's I/O takes on its critical path (the slowest
    /// ranks), 0..=1.
    pub fn io_share(&self) -> f64 {
        let run_time = self.facts.run_time;
        if run_time > 0.0 { clip01(self.io_time_by_slowest() / run_time) } else { 0.0 }
    }

    /// The score of a trigger at `level`: the level's weight, scaled from 25 % (I/O takes none of
    /// the run time) to 100 % (I/O takes a fifth of it or more).
    pub fn score(&self, level: Level) -> f64 {
        level.base() * (0.25 + 0.75 * clip01(self.io_share() / 0.2))
    }

    /// A finding of `doc` at `level`.
    pub fn finding(&self, doc: &RuleDoc, level: Level, scope: &str, why: String) -> Finding {
        Finding::new(doc, self.score(level), scope, why).with("io_share", self.io_share(), "fraction")
    }

    /// A finding of `doc` at `level` whose score also follows how strongly the trigger holds
    /// (`strength` in 0..=1: the share of small requests, of misaligned ones, the imbalance):
    /// from half the level's score at 0 to all of it at 1.
    pub fn weighted_finding(
        &self,
        doc: &RuleDoc,
        level: Level,
        strength: f64,
        scope: &str,
        why: String,
    ) -> Finding {
        let score = self.score(level) * (0.5 + 0.5 * clip01(strength));
        Finding::new(doc, score, scope, why).with("io_share", self.io_share(), "fraction")
    }
}

/// A rule on Darshan counters.
pub trait DarshanRule: Sync {
    /// Its documentation.
    fn doc(&self) -> &'static RuleDoc;
    /// Its findings.
    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding>;
}

/// Evaluates every Darshan rule (or those of `families`) and returns the findings, most severe
/// first.
///
/// A module whose region could not be read is never reasoned on: no finding is scoped to it,
/// and when no counter module (POSIX, MPI-IO, STDIO) was read at all there are no findings (an
/// unread log is not a healthy one, nor one "without MPI-IO").
pub fn diagnose(context: &DarshanContext<'_>) -> Vec<Finding> {
    let facts = context.facts;
    let counter_modules = ["POSIX", "MPI-IO", "STDIO"];
    let nothing_read = !counter_modules.iter().any(|name| facts.modules.contains(*name))
        && counter_modules.iter().any(|name| facts.unread_modules.contains(*name));
    if nothing_read {
        return Vec::new();
    }
    let mut findings: Vec<Finding> = rules::all()
        .iter()
        .flat_map(|rule| rule.evaluate(context))
        .filter(|finding| !facts.unread_modules.contains(finding.scope.as_str()))
        .collect();
    findings.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.code.cmp(b.code)).then(a.scope.cmp(&b.scope)));
    findings
}

/// Percent with two decimals, as Drishti prints.
pub(crate) fn percent(part: f64, whole: f64) -> f64 {
    if whole == 0.0 { 0.0 } else { part / whole * 100.0 }
}

#[cfg(test)]
pub(crate) mod testing {
    //! Builders of synthetic Darshan facts for the rule tests.

    use super::*;

    /// A record of `module` for file `id` on `rank` with the named counters set.
    pub(crate) fn record(module: Module, id: u64, rank: i64, values: &[(&str, f64)]) -> CounterRecord {
        CounterRecord::with_values(module.id(), id, rank, values).unwrap_or_else(|error| panic!("{error}"))
    }

    /// Facts of a job of `nprocs` processes over `run_time` seconds with these modules.
    pub(crate) fn facts(nprocs: i64, run_time: f64, modules: &[&str]) -> DarshanFacts {
        DarshanFacts {
            nprocs,
            run_time,
            modules: modules.iter().map(|name| (*name).to_string()).collect(),
            ..DarshanFacts::default()
        }
    }

    /// A job of one process with no records.
    pub(crate) fn facts_single() -> DarshanFacts {
        facts(1, 10.0, &["POSIX"])
    }

    /// A DXT record of `rank` with `(write, length)` segments one millisecond each.
    pub(crate) fn dxt(rank: i64, segments: &[(bool, i64)]) -> DxtRecord {
        let segments: Vec<ioscout_darshan::Segment> = segments
            .iter()
            .enumerate()
            .map(|(index, (write, length))| ioscout_darshan::Segment {
                write: *write,
                offset: index as i64 * length,
                length: *length,
                start: index as f64 * 0.001,
                end: (index + 1) as f64 * 0.001,
                pthread_id: None,
            })
            .collect();
        let writes = segments.iter().filter(|segment| segment.write).count() as i64;
        DxtRecord {
            id: 1,
            rank,
            shared_record: 0,
            hostname: String::new(),
            write_count: writes,
            read_count: segments.len() as i64 - writes,
            segments,
        }
    }

    /// The codes `rule` reports on `facts` with default thresholds.
    pub(crate) fn codes(rule: &dyn DarshanRule, facts: &DarshanFacts) -> Vec<&'static str> {
        rule.evaluate(&DarshanContext::new(facts, DrishtiThresholds::default()))
            .iter()
            .map(|f| f.code)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drishti_config_json_overrides_named_thresholds() {
        let thresholds =
            DrishtiThresholds::from_drishti_json(r#"{"small": {"requests": 0.2, "requests_absolute": 50}}"#)
                .unwrap_or_else(|error| panic!("{error}"));
        assert!((thresholds.small_requests - 0.2).abs() < 1e-12);
        assert_eq!(thresholds.small_requests_absolute, 50);
        assert!((thresholds.imbalance_size - 0.3).abs() < 1e-12);
        assert!(DrishtiThresholds::from_drishti_json(r#"{"small": {"typo": 1}}"#).is_err());
    }

    #[test]
    fn the_score_follows_the_share_of_time_in_io() {
        let mut facts = testing::facts(2, 10.0, &["POSIX"]);
        facts.posix.push(testing::record(Module::Posix, 1, 0, &[("POSIX_F_READ_TIME", 0.001)]));
        let quiet = DarshanContext::new(&facts, DrishtiThresholds::default()).score(Level::High);
        facts.posix.push(testing::record(Module::Posix, 1, 1, &[("POSIX_F_READ_TIME", 5.0)]));
        assert!((DarshanContext::new(&facts, DrishtiThresholds::default()).io_share() - 0.5).abs() < 1e-9);
        let busy = DarshanContext::new(&facts, DrishtiThresholds::default()).score(Level::High);
        assert!(quiet < 0.3 && quiet > 0.2, "{quiet}");
        assert!(busy >= 0.85, "{busy}");
    }
}
