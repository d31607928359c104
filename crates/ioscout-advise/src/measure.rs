//! What advice is computed from: the job's times (I/O on the critical path, read, write,
//! metadata, small requests, time not hidden behind computation), operation counts, what
//! software it used, its files (for the file-system gate) and the findings of diagnosis, taken
//! from a DFTracer analysis or from a Darshan log.

use std::collections::BTreeSet;

use ioscout_analysis::{Analysis, ViewType};
use ioscout_darshan::counters::{
    POSIX_BYTES_READ, POSIX_BYTES_WRITTEN, POSIX_F_META_TIME, POSIX_F_READ_TIME, POSIX_F_WRITE_TIME,
    POSIX_OPENS, POSIX_READS, POSIX_SEEKS, POSIX_STATS, POSIX_WRITES,
};
use ioscout_diagnose::darshan::{DarshanContext, DarshanFacts, DrishtiThresholds};
use ioscout_diagnose::{Context, Direction, Finding, Parameters};
use serde::Serialize;

/// Measured facts of one run.
#[derive(Clone, Debug, Default, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Measurements {
    /// `trace` or `darshan`.
    pub source: &'static str,
    /// Job (run) time, seconds.
    pub job_time_s: f64,
    /// I/O time on the critical path (the bottleneck process per time bin; Darshan: the slowest
    /// rank), seconds.
    pub io_time_s: f64,
    /// Its read part.
    pub read_time_s: f64,
    /// Its write part.
    pub write_time_s: f64,
    /// Its metadata part.
    pub metadata_time_s: f64,
    /// The part spent in requests under 1 MiB (estimated from their share of data calls).
    pub small_io_time_s: f64,
    /// The part spent in reads under 1 MiB.
    pub small_read_time_s: f64,
    /// The part spent in writes under 1 MiB.
    pub small_write_time_s: f64,
    /// I/O not hidden behind computation (traces with asynchronous layers), seconds.
    pub unoverlapped_time_s: Option<f64>,
    /// Data operations.
    pub operations: u64,
    /// Data operations under 1 MiB.
    pub small_operations: u64,
    /// Metadata operations.
    pub metadata_operations: u64,
    /// Bytes moved.
    pub bytes: u64,
    /// Processes.
    pub processes: u64,
    /// Files.
    pub files: u64,
    /// What the job used: `mpi`, `hdf5`, `pnetcdf`, `dl`, `checkpoint`.
    pub uses: BTreeSet<String>,
    /// `(path, bytes, file-system type from a mount table)` of the job's files.
    #[serde(skip)]
    pub file_weights: Vec<(String, f64, Option<String>)>,
    /// Findings of diagnosis.
    #[serde(skip)]
    pub findings: Vec<Finding>,
    /// The shape of each data class (traces only): op-count-bound or bandwidth-bound. Written
    /// with the numbers that decide it ([`ShapeSummary`]).
    #[serde(serialize_with = "shape_summaries")]
    #[cfg_attr(feature = "schemars", schemars(with = "Vec<ShapeSummary<'static>>"))]
    pub shapes: Vec<ioscout_evidence::shape::Shape>,
    /// The run's Darshan counters (a log's, or those derived from a trace), for the detector.
    #[serde(skip)]
    pub facts: Option<DarshanFacts>,
    /// The access evidence the strategies' conditions are decided on.
    pub profile: crate::profile::Profile,
    /// The learned detector's decisions, once [`Measurements::detect`] ran.
    #[serde(skip)]
    pub detection: Option<ioscout_diagnose::detector::Detection>,
}

/// Whether `path` is a file an MPI library makes for its own use (Open MPI's session directory
/// and shared-memory segments, MPICH's): a trace that touched one ran under MPI.
pub fn is_mpi_runtime_file(path: &str) -> bool {
    ["/ompi.", "/openmpi-sessions", "vader_segment", "/dev/shm/mpich", "/mpich_shm", "sm_segment."]
        .iter()
        .any(|marker| path.contains(marker))
}

/// What the advice's JSON says of a data class's shape.
#[derive(Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
struct ShapeSummary<'a> {
    class: &'a str,
    verdict: &'static str,
    calls: u64,
    mean_bytes: f64,
    fixed_cost_s: f64,
    fixed_share: f64,
    method: &'static str,
}

fn shape_summaries<S: serde::Serializer>(
    shapes: &[ioscout_evidence::shape::Shape],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(shapes.iter().map(|shape| ShapeSummary {
        class: &shape.class,
        verdict: shape.verdict.name(),
        calls: shape.calls,
        mean_bytes: shape.mean_bytes,
        fixed_cost_s: shape.fixed_cost_s,
        fixed_share: shape.fixed_share,
        method: shape.method,
    }))
}

impl Measurements {
    /// Share of the job in `seconds`, 0..=1.
    pub fn share(&self, seconds: f64) -> f64 {
        if self.job_time_s > 0.0 { ioscout_diagnose::clip01(seconds / self.job_time_s) } else { 0.0 }
    }

    /// The measurements of a trace analysis (which must include the `file_name` view or the file
    /// totals, [`ioscout_analysis::AnalysisOptions::file_totals`], for the file-system gate) and
    /// of the Darshan records derived from the same trace (`records`; `None` runs the trace rules
    /// alone).
    pub fn from_analysis(
        analysis: &Analysis,
        parameters: Parameters,
        records: Option<&ioscout_evidence::Derived>,
    ) -> Measurements {
        let context = Context::new(analysis, parameters);
        let (findings, shapes, facts) = match records {
            Some(derived) => {
                let facts = ioscout_diagnose::trace_facts(&context, derived);
                let findings =
                    ioscout_diagnose::diagnose_trace(&context, derived, &facts, DrishtiThresholds::default());
                (findings, derived.shapes.clone(), Some(facts))
            }
            None => (ioscout_diagnose::diagnose(&context), Vec::new(), None),
        };
        let slot = |name: &str| context.slot(name).cloned().unwrap_or_default();
        let posix = slot("posix");
        let io_time_s = context.layer("posix").map_or(posix.time_s, |layer| layer.time_s);
        let part =
            |name: &str| if posix.time_s > 0.0 { slot(name).time_s / posix.time_s * io_time_s } else { 0.0 };
        let (small, sized) = context.small_calls("posix").unwrap_or((0, 0));
        let data_time = part("posix_data").max(part("posix_read") + part("posix_write"));
        let small_io_time_s = if sized > 0 { data_time * small as f64 / sized as f64 } else { 0.0 };
        let small_part = |slot_name: &str, seconds: f64| match context.small_calls(slot_name) {
            Some((small, sized)) if sized > 0 => seconds * small as f64 / sized as f64,
            _ => 0.0,
        };
        let small_read_time_s = small_part("posix_read", part("posix_read"));
        let small_write_time_s = small_part("posix_write", part("posix_write"));
        let unoverlapped_time_s = analysis
            .view(ViewType::TimeRange)
            .into_iter()
            .flat_map(|view| view.summary.iter())
            .filter_map(|layer| layer.u_time_s)
            .reduce(f64::max);
        let file_weights = file_weights(analysis);
        let uses = trace_uses(analysis, &context, &file_weights);
        let sync_time_s = records.map(|derived| {
            derived
                .operations
                .iter()
                .filter(|operation| operation.family == ioscout_evidence::metadata::Family::Sync)
                .map(|operation| operation.time_s)
                .sum::<f64>()
        });
        // DFTracer 2.2 does not see glibc's `stat` (it calls the system directly): a trace's zero
        // stat count is not a count.
        let profile = facts
            .as_ref()
            .map(|facts| crate::profile::Profile::of(facts, false, sync_time_s, uses.contains("mpi")))
            .unwrap_or_default();
        Measurements {
            source: "trace",
            job_time_s: context.job_time_s(),
            io_time_s,
            read_time_s: part("posix_read"),
            write_time_s: part("posix_write"),
            metadata_time_s: part("posix_metadata"),
            small_io_time_s,
            small_read_time_s,
            small_write_time_s,
            unoverlapped_time_s,
            operations: sized,
            small_operations: small,
            metadata_operations: slot("posix_metadata").count,
            bytes: posix.size,
            processes: analysis.raw.unique_process_count,
            files: analysis.raw.unique_file_count,
            uses,
            file_weights,
            findings,
            shapes,
            facts,
            profile,
            detection: None,
        }
    }

    /// The measurements of a Darshan log.
    pub fn from_darshan(log: &ioscout_darshan::DarshanLog, thresholds: DrishtiThresholds) -> Measurements {
        let facts = DarshanFacts::from_log(log);
        let context = DarshanContext::new(&facts, thresholds);
        let findings = ioscout_diagnose::darshan::diagnose(&context);
        let module = ioscout_diagnose::darshan::Module::Posix;
        let read = context.ftotal(POSIX_F_READ_TIME).max(0.0);
        let write = context.ftotal(POSIX_F_WRITE_TIME).max(0.0);
        let meta = context.ftotal(POSIX_F_META_TIME).max(0.0);
        let total = read + write + meta;
        let io_time_s = context.io_time_by_slowest();
        let scale = if total > 0.0 { io_time_s / total } else { 0.0 };
        let positive = |value: i64| u64::try_from(value).unwrap_or(0);
        let reads = positive(context.total(POSIX_READS));
        let writes = positive(context.total(POSIX_WRITES));
        let small: u64 = context
            .records(module)
            .iter()
            .map(|record| {
                positive(context.small(record, Direction::Read))
                    + positive(context.small(record, Direction::Write))
            })
            .sum();
        let operations = reads + writes;
        let small_io_time_s =
            if operations > 0 { (read + write) * scale * small as f64 / operations as f64 } else { 0.0 };
        let small_of = |direction: Direction| -> u64 {
            context.records(module).iter().map(|record| positive(context.small(record, direction))).sum()
        };
        let share = |part: u64, whole: u64| if whole > 0 { part as f64 / whole as f64 } else { 0.0 };
        let small_read_time_s = read * scale * share(small_of(Direction::Read), reads);
        let small_write_time_s = write * scale * share(small_of(Direction::Write), writes);
        let mut uses = BTreeSet::new();
        for (module_name, tag) in [
            ("MPI-IO", "mpi"),
            ("H5F", "hdf5"),
            ("H5D", "hdf5"),
            ("PNETCDF_FILE", "pnetcdf"),
            ("PNETCDF_VAR", "pnetcdf"),
        ] {
            if facts.modules.contains(module_name) {
                uses.insert(tag.to_string());
            }
        }
        if log.job.exe.contains("python") || log.job.exe.contains("dlio") {
            uses.insert("dl".to_string());
        }
        let mut bytes_by_file: std::collections::BTreeMap<u64, f64> = std::collections::BTreeMap::new();
        for record in context.records(module) {
            *bytes_by_file.entry(record.id).or_default() += (context.value(record, POSIX_BYTES_READ)
                + context.value(record, POSIX_BYTES_WRITTEN))
            .max(0) as f64;
        }
        let file_weights = bytes_by_file
            .iter()
            .filter_map(|(id, bytes)| {
                let path = log.name(*id)?;
                let mount = log.job.mount_of(path).map(|mount| mount.fs_type.clone());
                Some((path.to_string(), *bytes, mount))
            })
            .collect();
        let profile = crate::profile::Profile::of(&facts, true, None, uses.contains("mpi"));
        let opens = positive(context.total(POSIX_OPENS));
        let stats = positive(context.total(POSIX_STATS));
        let seeks = positive(context.total(POSIX_SEEKS));
        Measurements {
            source: "darshan",
            job_time_s: log.run_time().max(0.0),
            io_time_s,
            read_time_s: read * scale,
            write_time_s: write * scale,
            metadata_time_s: meta * scale,
            small_io_time_s,
            small_read_time_s,
            small_write_time_s,
            unoverlapped_time_s: None,
            operations,
            small_operations: small,
            metadata_operations: opens + stats + seeks,
            bytes: positive(context.total(POSIX_BYTES_READ)) + positive(context.total(POSIX_BYTES_WRITTEN)),
            processes: positive(log.job.nprocs),
            files: bytes_by_file.len() as u64,
            uses,
            file_weights,
            findings,
            shapes: Vec::new(),
            facts: Some(facts),
            profile,
            detection: None,
        }
    }

    /// Lets the learned detector decide the run's patterns (`--detector both`): rule findings
    /// of a pattern the model rejects are marked not confirmed (and no strategy answers them),
    /// patterns the model finds that no rule explains become findings of their own. Without
    /// Darshan counters (a trace measured without its derived records) nothing changes.
    pub fn detect(&mut self, model: &ioscout_detect::Model) {
        let Some(facts) = &self.facts else { return };
        let detection = ioscout_diagnose::detector::Detection::of(model, facts);
        let io_share = DarshanContext::new(facts, DrishtiThresholds::default()).io_share();
        let findings = std::mem::take(&mut self.findings);
        self.findings = ioscout_diagnose::detector::join(
            findings,
            Some(&detection),
            ioscout_diagnose::detector::Detector::Both,
            io_share,
        );
        self.detection = Some(detection);
    }
}

/// The trace's files weighted by bytes and time (the `file_name` view's rows, or the file totals
/// without it), for the file-system gate.
fn file_weights(analysis: &Analysis) -> Vec<(String, f64, Option<String>)> {
    analysis
        .file_totals
        .iter()
        .map(|total| (total.path.clone(), total.size.unwrap_or(0) as f64 + total.time_s, None))
        .collect()
}

/// What a traced run uses, by its layers, categories and files: `dl`, `checkpoint`, `mpi`,
/// `hdf5`.
fn trace_uses(
    analysis: &Analysis,
    context: &Context<'_>,
    file_weights: &[(String, f64, Option<String>)],
) -> BTreeSet<String> {
    let mut uses = BTreeSet::new();
    let layers: Vec<&str> = analysis.preset.layers.iter().map(|layer| layer.name.as_str()).collect();
    let has_calls = |name: &str| context.layer(name).is_some_and(|layer| layer.count > 0);
    if layers.iter().any(|name| matches!(*name, "data_loader" | "fetch_data" | "reader"))
        && has_calls("fetch_data")
    {
        uses.insert("dl".to_string());
    }
    if has_calls("checkpoint_posix") || has_calls("checkpoint") {
        uses.insert("checkpoint".to_string());
    }
    let categories = &analysis.categories;
    if categories.keys().any(|name| name.contains("mpi")) {
        uses.insert("mpi".to_string());
    }
    if categories.keys().any(|name| name.contains("h5") || name.contains("hdf5")) {
        uses.insert("hdf5".to_string());
    }
    // DFTracer records no MPI calls, but an MPI library leaves its files behind: Open MPI's
    // session directory (`ompi.<host>.<job>`), its shared-memory segments, MPICH's.
    if file_weights.iter().any(|(path, _, _)| is_mpi_runtime_file(path)) {
        uses.insert("mpi".to_string());
    }
    if file_weights.iter().any(|(path, _, _)| {
        std::path::Path::new(path).extension().is_some_and(|extension| {
            extension.eq_ignore_ascii_case("h5") || extension.eq_ignore_ascii_case("hdf5")
        })
    }) {
        uses.insert("hdf5".to_string());
    }
    uses
}

#[cfg(test)]
mod tests {
    use super::is_mpi_runtime_file;

    #[test]
    fn mpi_runtimes_are_known_by_their_files() {
        assert!(is_mpi_runtime_file("/var/tmp/haridev/ompi.corona173.35619/jf.0/0/9"));
        assert!(is_mpi_runtime_file("/dev/shm/vader_segment.node1.5f3e0001.2"));
        assert!(!is_mpi_runtime_file("/lustre/data/ompi_results.h5"));
        assert!(!is_mpi_runtime_file("/home/user/train/img_0001.npz"));
    }
}
