//! What a Darshan job-summary page shows beside the module breakdown ([`crate::breakdown`]):
//! per module the access-size histograms (reads and writes apart), the most common access sizes,
//! the files by how they were used (read only, written only, both, opened without data), and
//! each DXT module's bytes per rank and time bin (reads and writes apart), and per OST the files
//! striped over it and their bytes.
//! `ioscout report LOG` draws it (`ioscout-render`'s `darshan_page`); the numbers are the
//! records' counters summed, never estimated.

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use crate::module::counter_names;
use crate::summary::{index_of, merge_common};
use crate::{DarshanLog, Records};

/// Darshan's access-size bins, in order: the suffixes of `<MODULE>_SIZE_READ_*` (POSIX) and
/// `<MODULE>_SIZE_READ_AGG_*` (MPI-IO, HDF5 datasets, `PnetCDF` variables).
pub const SIZE_BINS: [&str; 10] =
    ["0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M", "1M_4M", "4M_10M", "10M_100M", "100M_1G", "1G_PLUS"];

/// The access sizes of one module: requests per size bin, reads and writes apart.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct SizeHistogram {
    /// The module (`POSIX`, `MPI-IO`, ...).
    pub module: String,
    /// Reads per bin of [`SIZE_BINS`].
    pub reads: Vec<u64>,
    /// Writes per bin of [`SIZE_BINS`].
    pub writes: Vec<u64>,
}

/// One of a module's most common access sizes (Darshan's `ACCESS1..4`, combined over records).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct CommonAccess {
    /// The module.
    pub module: String,
    /// The access size, bytes.
    pub size: i64,
    /// Requests of that size.
    pub count: i64,
}

/// A module's files by how they were used, with the bytes each group moved.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct FileUse {
    /// The module.
    pub module: String,
    /// Files only read: count, bytes read.
    pub read_only: (u64, u64),
    /// Files only written: count, bytes written.
    pub write_only: (u64, u64),
    /// Files read and written: count, bytes read and written.
    pub read_write: (u64, u64),
    /// Files with records and no bytes moved (opened, stat'ed).
    pub no_data: u64,
}

/// Most rows of a DXT heatmap: beyond this many ranks, each row holds a run of ranks.
pub const HEATMAP_ROWS: usize = 32;
/// Time bins of a DXT heatmap over the job.
pub const HEATMAP_BINS: usize = 40;

/// A DXT module's segments as bytes per rank (rows) and time bin (columns), reads and writes
/// apart. Each segment's bytes are spread over the bins its time overlaps.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct DxtHeatmap {
    /// The module (`DXT_POSIX`, `DXT_MPIIO`).
    pub module: String,
    /// Each row's ranks, first and last.
    pub rows: Vec<(i64, i64)>,
    /// The width of a time bin, seconds (the bins cover the run time, or the last segment's end
    /// when the run time is unknown).
    pub bin_s: f64,
    /// Bytes read per row and bin.
    pub read: Vec<Vec<f64>>,
    /// Bytes written per row and bin.
    pub written: Vec<Vec<f64>>,
    /// Segments drawn.
    pub segments: u64,
    /// Segments left out: a negative length, a time that is not a number or ends before it
    /// starts, a rank outside the job.
    pub left_out: u64,
}

/// The job-summary sections of one log.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct JobSummary {
    /// Access-size histograms of the modules that keep them.
    pub sizes: Vec<SizeHistogram>,
    /// The four most common access sizes of each module that keeps them.
    pub common: Vec<CommonAccess>,
    /// Files by use, per module with byte counters.
    pub files: Vec<FileUse>,
    /// The DXT modules' heatmaps.
    pub heatmaps: Vec<DxtHeatmap>,
    /// Per OST the LUSTRE module names, the files striped over it and their POSIX bytes
    /// (empty without LUSTRE records).
    pub osts: Vec<OstUse>,
    /// The I/O phases of the DXT segments (empty without DXT).
    pub phases: IoPhases,
    /// DXT records that could not be read again from the log's file (it changed or vanished
    /// since it was opened): the heatmaps and phases lack them.
    pub problems: Vec<String>,
}

/// The job's I/O phases: the times some rank has a DXT segment under way, a phase ending where
/// every rank has been idle for longer than [`IoPhases::gap_s`].
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct IoPhases {
    /// The DXT module the phases come from (`DXT_POSIX`, else `DXT_MPIIO`).
    pub module: String,
    /// The idle time that separates two phases: the larger of 0.1 s and 1 % of the span.
    pub gap_s: f64,
    /// The phases, in time order.
    pub phases: Vec<IoPhase>,
}

/// One I/O phase.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct IoPhase {
    /// Start, seconds since the job started.
    pub start_s: f64,
    /// End, seconds since the job started.
    pub end_s: f64,
    /// Segments in it.
    pub segments: u64,
    /// Bytes read.
    pub read_bytes: u64,
    /// Bytes written.
    pub written_bytes: u64,
    /// Ranks with a segment in it.
    pub ranks: u64,
    /// The rank with the most I/O time in it (its segments' durations summed).
    pub slowest_rank: i64,
    /// That rank's I/O time, seconds.
    pub slowest_s: f64,
    /// The median over the phase's ranks of their I/O time, seconds.
    pub median_s: f64,
}

/// The DXT module the I/O phases come from: POSIX's, else MPI-IO's.
fn phases_module(log: &DarshanLog) -> Option<&crate::Module> {
    log.module(crate::id::DXT_POSIX)
        .filter(|module| !module.records.is_empty())
        .or_else(|| log.module(crate::id::DXT_MPIIO))
        .filter(|module| matches!(module.records, Records::Dxt(_) | Records::DxtOnDisk(_)))
}

/// A segment as the phases see it: (start, end, rank, bytes, write).
type PhaseSegment = (f64, f64, i64, u64, bool);

/// The least idle time that ends a phase (the gap is the larger of it and 1 % of the span).
const PHASE_MIN_GAP_S: f64 = 0.1;

/// Segments gathered into phases in any order, in memory that grows with the job's length and
/// ranks, not its segments: segments are merged on arrival into clusters separated by more
/// than [`PHASE_MIN_GAP_S`] of idle time; once the span is known, clusters closer than the
/// final gap are joined. A cluster at the least gap lies inside one phase at any larger gap,
/// so the phases are those of sorting every segment by start and splitting at the gaps.
#[derive(Default)]
struct PhaseFold {
    /// Clusters by their start ([`order_key`]), disjoint and in time order.
    clusters: BTreeMap<i64, Cluster>,
    /// Earliest start and latest end of any segment.
    span: Option<(f64, f64)>,
}

/// Segments linked by idle times of at most the gap, and their figures.
#[derive(Default)]
struct Cluster {
    start: f64,
    end: f64,
    segments: u64,
    read_bytes: u64,
    written_bytes: u64,
    /// I/O time per rank (its segments' durations summed).
    per_rank: BTreeMap<i64, f64>,
}

impl Cluster {
    fn of((start, end, rank, bytes, write): PhaseSegment) -> Cluster {
        let (read_bytes, written_bytes) = if write { (0, bytes) } else { (bytes, 0) };
        Cluster {
            start,
            end,
            segments: 1,
            read_bytes,
            written_bytes,
            per_rank: BTreeMap::from([(rank, end - start)]),
        }
    }

    fn add(&mut self, (start, end, rank, bytes, write): PhaseSegment) {
        self.start = self.start.min(start);
        self.end = self.end.max(end);
        self.segments += 1;
        if write {
            self.written_bytes = self.written_bytes.saturating_add(bytes);
        } else {
            self.read_bytes = self.read_bytes.saturating_add(bytes);
        }
        *self.per_rank.entry(rank).or_default() += end - start;
    }

    fn absorb(&mut self, other: Cluster) {
        self.start = self.start.min(other.start);
        self.end = self.end.max(other.end);
        self.segments += other.segments;
        self.read_bytes = self.read_bytes.saturating_add(other.read_bytes);
        self.written_bytes = self.written_bytes.saturating_add(other.written_bytes);
        for (rank, seconds) in other.per_rank {
            *self.per_rank.entry(rank).or_default() += seconds;
        }
    }

    /// The phase's figures.
    fn phase(self) -> IoPhase {
        let mut phase = IoPhase {
            start_s: self.start,
            end_s: self.end,
            segments: self.segments,
            read_bytes: self.read_bytes,
            written_bytes: self.written_bytes,
            ranks: self.per_rank.len() as u64,
            ..IoPhase::default()
        };
        if let Some((rank, seconds)) =
            self.per_rank.iter().max_by(|left, right| left.1.total_cmp(right.1).then(right.0.cmp(left.0)))
        {
            phase.slowest_rank = *rank;
            phase.slowest_s = *seconds;
        }
        let mut times: Vec<f64> = self.per_rank.into_values().collect();
        times.sort_by(f64::total_cmp);
        let middle = times.len() / 2;
        phase.median_s = match times.len() {
            0 => 0.0,
            length if length % 2 == 1 => times[middle],
            _ => f64::midpoint(times[middle - 1], times[middle]),
        };
        phase
    }
}

/// A key that orders finite floats as numbers.
fn order_key(value: f64) -> i64 {
    let bits = value.to_bits() as i64;
    bits ^ (((bits >> 63) as u64) >> 1) as i64
}

impl PhaseFold {
    /// Adds a segment with a finite start and an end at or after it.
    fn add(&mut self, segment: PhaseSegment) {
        let (start, end, ..) = segment;
        self.span = Some(self.span.map_or((start, end), |(first, last)| (first.min(start), last.max(end))));
        // The clusters it links: starting at most the gap after its end and ending at most the
        // gap before its start. Clusters are disjoint, so their ends grow with their starts.
        let mut linked = self
            .clusters
            .range(..=order_key(end + PHASE_MIN_GAP_S))
            .rev()
            .take_while(|(_, other)| start <= other.end + PHASE_MIN_GAP_S)
            .map(|(key, _)| *key);
        let (first, second) = (linked.next(), linked.next());
        match (first, second) {
            (None, _) => {
                self.clusters.insert(order_key(start), Cluster::of(segment));
            }
            // Most segments fall in the cluster under way, at or after its start.
            (Some(key), None) if self.clusters.get(&key).is_some_and(|cluster| cluster.start <= start) => {
                if let Some(cluster) = self.clusters.get_mut(&key) {
                    cluster.add(segment);
                }
            }
            (Some(_), _) => {
                let keys: Vec<i64> = self
                    .clusters
                    .range(..=order_key(end + PHASE_MIN_GAP_S))
                    .rev()
                    .take_while(|(_, other)| start <= other.end + PHASE_MIN_GAP_S)
                    .map(|(key, _)| *key)
                    .collect();
                let mut cluster = Cluster::of(segment);
                for key in keys {
                    if let Some(other) = self.clusters.remove(&key) {
                        cluster.absorb(other);
                    }
                }
                self.clusters.insert(order_key(cluster.start), cluster);
            }
        }
    }

    /// The gap and the phases, in time order.
    fn finish(self) -> (f64, Vec<IoPhase>) {
        let Some((first, last)) = self.span else { return (0.0, Vec::new()) };
        let gap_s = (0.01 * (last - first)).max(PHASE_MIN_GAP_S);
        let mut phases: Vec<Cluster> = Vec::new();
        for cluster in self.clusters.into_values() {
            match phases.last_mut() {
                Some(current) if cluster.start <= current.end + gap_s => current.absorb(cluster),
                _ => phases.push(cluster),
            }
        }
        (gap_s, phases.into_iter().map(Cluster::phase).collect())
    }
}

/// One OST's share of the job's files.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct OstUse {
    /// The OST's index.
    pub ost: i64,
    /// Files striped over it (a file counts once per OST it uses).
    pub files: u64,
    /// Bytes read and written through POSIX to those files, each file's bytes spread evenly
    /// over its OSTs: what a file striped round-robin with requests larger than a stripe puts
    /// on each (an estimate otherwise; Darshan does not record bytes per OST).
    pub bytes: f64,
}

/// Per OST the files and bytes of the LUSTRE records, by OST index.
fn ost_usage(log: &DarshanLog) -> Vec<OstUse> {
    let Some(lustre) = log.module(crate::id::LUSTRE) else { return Vec::new() };
    let Records::Lustre(records) = &lustre.records else { return Vec::new() };
    let mut bytes_of: BTreeMap<u64, u64> = BTreeMap::new();
    let posix = log.counter_records(crate::id::POSIX);
    for record in posix {
        let value = |counter: crate::counters::Counter| positive(counter.of(record));
        let entry = bytes_of.entry(record.id).or_default();
        *entry = entry
            .saturating_add(value(crate::counters::POSIX_BYTES_READ))
            .saturating_add(value(crate::counters::POSIX_BYTES_WRITTEN));
    }
    let mut osts: BTreeMap<i64, OstUse> = BTreeMap::new();
    // A file's record may repeat per rank: its OSTs count once.
    let mut seen = std::collections::HashSet::new();
    for record in records {
        if !seen.insert(record.id) {
            continue;
        }
        let mut used: Vec<i64> = record.ost_ids.iter().copied().filter(|ost| *ost >= 0).collect();
        used.sort_unstable();
        used.dedup();
        if used.is_empty() {
            continue;
        }
        let share = bytes_of.get(&record.id).copied().unwrap_or(0) as f64 / used.len() as f64;
        for ost in used {
            let entry = osts.entry(ost).or_insert_with(|| OstUse { ost, ..OstUse::default() });
            entry.files += 1;
            entry.bytes += share;
        }
    }
    osts.into_values().collect()
}

/// The heatmap of one DXT module's records, over `nprocs` ranks and `span_s` seconds, gathered
/// record by record.
struct HeatmapFold {
    map: DxtHeatmap,
    ranks: i64,
    per_row: i64,
}

impl HeatmapFold {
    fn new(module: &str, nprocs: i64, span_s: f64) -> HeatmapFold {
        let ranks = nprocs.max(1);
        let per_row = (ranks as usize).div_ceil(HEATMAP_ROWS).max(1) as i64;
        let row_count = (ranks as usize).div_ceil(per_row as usize);
        let rows: Vec<(i64, i64)> = (0..row_count as i64)
            .map(|row| (row * per_row, ((row + 1) * per_row - 1).min(ranks - 1)))
            .collect();
        let bin_s = (span_s / HEATMAP_BINS as f64).max(f64::MIN_POSITIVE);
        let map = DxtHeatmap {
            module: module.to_string(),
            rows,
            bin_s,
            read: vec![vec![0.0; HEATMAP_BINS]; row_count],
            written: vec![vec![0.0; HEATMAP_BINS]; row_count],
            ..DxtHeatmap::default()
        };
        HeatmapFold { map, ranks, per_row }
    }

    fn record(&mut self, record: &crate::module::DxtRecord) {
        let map = &mut self.map;
        let bin_s = map.bin_s;
        for segment in &record.segments {
            let valid = segment.is_possible() && (0..self.ranks).contains(&record.rank);
            if !valid {
                map.left_out += 1;
                continue;
            }
            map.segments += 1;
            let row = (record.rank / self.per_row) as usize;
            let target = if segment.write { &mut map.written[row] } else { &mut map.read[row] };
            let bytes = segment.length as f64;
            let bin_of = |time: f64| ((time / bin_s).floor().max(0.0) as usize).min(HEATMAP_BINS - 1);
            let (first, last) = (bin_of(segment.start), bin_of(segment.end));
            let duration = segment.end - segment.start;
            if first == last || duration <= 0.0 {
                target[first] += bytes;
                continue;
            }
            for (bin, cell) in target.iter_mut().enumerate().take(last + 1).skip(first) {
                let from = segment.start.max(bin as f64 * bin_s);
                let to = if bin == HEATMAP_BINS - 1 {
                    segment.end
                } else {
                    segment.end.min((bin + 1) as f64 * bin_s)
                };
                *cell += bytes * ((to - from).max(0.0) / duration);
            }
        }
    }
}

/// The heatmap of DXT module `module` of `log` (when it has segments and a span) and, with
/// `phases`, its I/O phases, in one reading of its records (segments with an impossible length
/// or time are left out of both); a problem reading them again from the file is pushed to
/// `problems`.
fn dxt_views(
    log: &DarshanLog,
    module: &crate::Module,
    phases: Option<&mut IoPhases>,
    problems: &mut Vec<String>,
) -> Option<DxtHeatmap> {
    let (last_end, any) = match &module.records {
        Records::Dxt(records) => (
            records
                .iter()
                .flat_map(|record| &record.segments)
                .map(|segment| segment.end)
                .filter(|end| end.is_finite())
                .fold(0.0, f64::max),
            records.iter().any(|record| !record.segments.is_empty()),
        ),
        Records::DxtOnDisk(on_disk) => (on_disk.latest_segment_end, on_disk.segments > 0),
        _ => return None,
    };
    let run_time = log.run_time();
    let span = if run_time.is_finite() && run_time > 0.0 { run_time.max(last_end) } else { last_end };
    let mut heatmap = (any && span > 0.0).then(|| HeatmapFold::new(module.name, log.job.nprocs, span));
    let mut phase_fold = phases.is_some().then(PhaseFold::default);
    if heatmap.is_some() || phase_fold.is_some() {
        let read = log.for_each_dxt_record(module.id, |record| {
            if let Some(heatmap) = &mut heatmap {
                heatmap.record(record);
            }
            if let Some(fold) = &mut phase_fold {
                for segment in record.segments.iter().filter(|segment| segment.is_possible()) {
                    fold.add((
                        segment.start,
                        segment.end,
                        record.rank,
                        segment.length.unsigned_abs(),
                        segment.write,
                    ));
                }
            }
            ControlFlow::Continue(())
        });
        if let Err(error) = read {
            problems.push(error.to_string());
        }
    }
    if let (Some(phases), Some(fold)) = (phases, phase_fold) {
        let (gap_s, found) = fold.finish();
        *phases = IoPhases { module: module.name.to_string(), gap_s, phases: found };
    }
    heatmap.map(|fold| fold.map)
}

fn positive(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

impl JobSummary {
    /// The sections of `log`, from its readable counter records.
    pub fn of(log: &DarshanLog) -> JobSummary {
        let mut summary = JobSummary::default();
        let phases_from = phases_module(log).map(|module| module.id);
        for module in &log.modules {
            if matches!(module.records, Records::Dxt(_) | Records::DxtOnDisk(_)) {
                let phases = (phases_from == Some(module.id)).then_some(&mut summary.phases);
                summary.heatmaps.extend(dxt_views(log, module, phases, &mut summary.problems));
                continue;
            }
            let Records::Counters(records) = &module.records else { continue };
            let Some((names, _)) = counter_names(module.id) else { continue };
            if records.is_empty() {
                continue;
            }
            let prefix = names.first().and_then(|name| name.split('_').next()).unwrap_or_default();
            let index = |name: &str| index_of(names, name);
            let sum = |at: Option<usize>| {
                at.map_or(0, |at| {
                    records
                        .iter()
                        .filter_map(|record| record.counters.get(at).copied())
                        .fold(0_u64, |total, value| total.saturating_add(positive(value)))
                })
            };
            // Size bins: POSIX names them plainly, the layers above with `_AGG_`.
            let bin_index = |direction: &str, bin: &str| {
                index(&format!("{prefix}_SIZE_{direction}_{bin}"))
                    .or_else(|| index(&format!("{prefix}_SIZE_{direction}_AGG_{bin}")))
            };
            if SIZE_BINS.iter().any(|bin| bin_index("READ", bin).is_some()) {
                summary.sizes.push(SizeHistogram {
                    module: module.name.to_string(),
                    reads: SIZE_BINS.iter().map(|bin| sum(bin_index("READ", bin))).collect(),
                    writes: SIZE_BINS.iter().map(|bin| sum(bin_index("WRITE", bin))).collect(),
                });
            }
            // The four most common access sizes, merged over the records as `darshan-parser
            // --total` merges them.
            let mut merged = vec![0_i64; names.len()];
            merge_common(names, records, prefix, "ACCESS", "ACCESS", &mut merged, &mut Vec::new());
            for slot in 1..=4 {
                let size = index(&format!("{prefix}_ACCESS{slot}_ACCESS")).map(|at| merged[at]);
                let count = index(&format!("{prefix}_ACCESS{slot}_COUNT")).map(|at| merged[at]);
                if let (Some(size), Some(count)) = (size, count)
                    && count > 0
                {
                    summary.common.push(CommonAccess { module: module.name.to_string(), size, count });
                }
            }
            let (read_at, written_at) =
                (index(&format!("{prefix}_BYTES_READ")), index(&format!("{prefix}_BYTES_WRITTEN")));
            if read_at.is_none() && written_at.is_none() {
                continue;
            }
            // Per file (record id): the bytes over every rank's record of it.
            let mut per_file: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
            for record in records {
                let read = read_at.and_then(|at| record.counters.get(at).copied()).map_or(0, positive);
                let written = written_at.and_then(|at| record.counters.get(at).copied()).map_or(0, positive);
                let entry = per_file.entry(record.id).or_default();
                entry.0 = entry.0.saturating_add(read);
                entry.1 = entry.1.saturating_add(written);
            }
            let mut files = FileUse { module: module.name.to_string(), ..FileUse::default() };
            for (read, written) in per_file.into_values() {
                match (read > 0, written > 0) {
                    (true, false) => {
                        files.read_only = (files.read_only.0 + 1, files.read_only.1.saturating_add(read));
                    }
                    (false, true) => {
                        files.write_only =
                            (files.write_only.0 + 1, files.write_only.1.saturating_add(written));
                    }
                    (true, true) => {
                        files.read_write = (
                            files.read_write.0 + 1,
                            files.read_write.1.saturating_add(read).saturating_add(written),
                        );
                    }
                    (false, false) => files.no_data += 1,
                }
            }
            summary.files.push(files);
        }
        summary.osts = ost_usage(log);
        summary
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Against a model: two segments share a phase exactly when a chain of segments links
        /// them, each starting at most the gap after the latest end before it (union-find over
        /// every pair); every segment and byte is in one phase, phases in time order.
        #[test]
        fn phases_are_the_gap_linked_groups_of_segments(
            raw in proptest::collection::vec((0u32..2_000, 0u32..300, 0i64..8, 0u64..1_000, any::<bool>()), 1..60)
        ) {
            let segments: Vec<PhaseSegment> = raw
                .iter()
                .map(|(start, length, rank, bytes, write)| {
                    let start = f64::from(*start) / 100.0;
                    (start, start + f64::from(*length) / 100.0, *rank, *bytes, *write)
                })
                .collect();
            let mut fold = PhaseFold::default();
            for segment in &segments {
                fold.add(*segment);
            }
            let (gap, phases) = fold.finish();
            // The model: sorted by start, a segment joins the group before it when it starts
            // within the gap of the largest end so far.
            let mut order: Vec<usize> = (0..segments.len()).collect();
            order.sort_by(|a, b| segments[*a].0.total_cmp(&segments[*b].0));
            let mut groups = 1;
            let mut reach = segments[order[0]].1;
            for index in order.iter().skip(1) {
                let (start, end, ..) = segments[*index];
                if start > reach + gap {
                    groups += 1;
                    reach = end;
                } else {
                    reach = reach.max(end);
                }
            }
            prop_assert_eq!(phases.len(), groups);
            // Each group's segments, bytes and extent, from the model's grouping.
            let mut model: Vec<(u64, u64, f64, f64)> = Vec::new();
            let mut reach = f64::NEG_INFINITY;
            for index in &order {
                let (start, end, _, bytes, _) = segments[*index];
                match model.last_mut() {
                    Some(group) if start <= reach + gap => {
                        *group = (group.0 + 1, group.1 + bytes, group.2.min(start), group.3.max(end));
                        reach = reach.max(end);
                    }
                    _ => {
                        model.push((1, bytes, start, end));
                        reach = end;
                    }
                }
            }
            let folded: Vec<(u64, u64, f64, f64)> = phases
                .iter()
                .map(|phase| (phase.segments, phase.read_bytes + phase.written_bytes, phase.start_s, phase.end_s))
                .collect();
            prop_assert_eq!(folded, model);
            prop_assert_eq!(phases.iter().map(|phase| phase.segments).sum::<u64>(), segments.len() as u64);
            let bytes: u64 = segments.iter().map(|segment| segment.3).sum();
            prop_assert_eq!(phases.iter().map(|phase| phase.read_bytes + phase.written_bytes).sum::<u64>(), bytes);
            for pair in phases.windows(2) {
                prop_assert!(pair[1].start_s > pair[0].end_s + gap, "phases overlap or touch: {:?}", pair);
            }
            for phase in &phases {
                prop_assert!(phase.slowest_s >= phase.median_s);
            }
        }
    }
}
