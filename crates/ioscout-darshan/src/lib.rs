//! A native reader for Darshan logs: the first stage of ioscout's pipeline for Darshan input,
//! beside the DFTracer reader. It decodes the binary log of every format from 3.00 to 3.41, in
//! either byte order, with zlib, bzip2 or no compression, into the job record, the name records
//! and each module's records (POSIX, MPI-IO, STDIO, H5F, H5D, `PnetCDF` file and variable,
//! LUSTRE, HEATMAP, DXT POSIX and MPI-IO, DFS, DAOS), with older module versions up-converted to
//! today's counters. [`dump`] prints `darshan-parser`'s text format and [`summary`] the counter
//! totals; diagnosis on the counters lives in `ioscout-diagnose`.
//!
//! Nothing in a log is trusted: a truncated file, a bad magic number, an unknown module or a
//! corrupt compressed region gives a [`DarshanError`] naming the region and its byte offset, or,
//! with [`ReadOptions::partial`], a [`DarshanLog`] holding whatever could be read and the list
//! of what could not.

pub mod breakdown;
pub mod counters;
pub mod derived;
pub mod dump;
pub mod dxt;
pub mod error;
pub mod header;
pub mod job;
pub mod job_summary;
pub mod module;
pub mod stats;
pub mod summary;
pub mod survey;
pub mod totals;

mod bytes;
mod descriptions;
mod region;
mod validate;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use crate::error::{DarshanError, Region};
pub use crate::header::{Compression, Header, RegionMap};
pub use crate::job::{Job, Mount};
pub use crate::module::{
    CounterRecord, DxtRecord, HeatmapRecord, LustreComponent, LustreRecord, Records, Segment, counter_names,
    id, module_name,
};

/// How to read a log.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadOptions {
    /// Keep going past a damaged region and report what could be read (the problems are listed
    /// in [`DarshanLog::problems`]); without it the first damaged region is an error.
    pub partial: bool,
}

/// One module of a log.
#[derive(Clone, Debug)]
pub struct Module {
    /// Module id.
    pub id: usize,
    /// Module name (`POSIX`, `MPI-IO`, ...).
    pub name: &'static str,
    /// Record version.
    pub version: u32,
    /// Where its compressed region lies.
    pub map: RegionMap,
    /// The runtime ran out of record memory for this module: its data are incomplete.
    pub partial: bool,
    /// Its records.
    pub records: Records,
    /// Records Darshan itself drops (POSIX version 1 records with stdio data mixed in).
    pub skipped_records: usize,
    /// Records dropped as impossible (a count below -1, a rank past the job's processes,
    /// access-size bins that do not sum to the operations, a time outside the job), each named
    /// in the log's problems.
    pub dropped_records: usize,
    /// Its region could not be read whole (a problem was reported for it): the records are
    /// what could be read, maybe none ([`Module::unread`]).
    pub damaged: bool,
    /// Compressed streams in the region (one per writing rank).
    pub streams: usize,
}

impl Module {
    /// The log has a region for this module but none of its records could be read (a damaged
    /// or truncated region): no rule may read its counters as if the job made no such calls.
    pub fn unread(&self) -> bool {
        self.damaged && self.map.length > 0 && self.records.is_empty()
    }

    /// The module has data this reader decoded: a region with at least one record read, or a
    /// module without a decoder ([`Records::Opaque`]) whose region is whole.
    pub fn has_data(&self) -> bool {
        self.map.length > 0
            && match self.records {
                Records::Opaque => !self.damaged,
                _ => !self.records.is_empty(),
            }
    }
}

/// A decoded Darshan log.
#[derive(Clone, Debug)]
pub struct DarshanLog {
    /// Where it was read from.
    pub path: PathBuf,
    /// Size of the file in bytes.
    pub file_size: u64,
    /// The header.
    pub header: Header,
    /// The job record.
    pub job: Job,
    /// Name records `(record id, path)`, in file order.
    pub names: Vec<(u64, String)>,
    name_index: HashMap<u64, usize>,
    /// Modules with data (or flagged partial), by id.
    pub modules: Vec<Module>,
    /// What could not be read (only with [`ReadOptions::partial`]; otherwise the first one is an
    /// error).
    pub problems: Vec<String>,
    /// The job record could not be read (only with [`ReadOptions::partial`]): `job` holds lower
    /// bounds estimated from the records, the processes as the highest rank + 1 and the run
    /// time as the latest end timestamp, and every output built on them must say so.
    pub job_estimated: bool,
}

impl DarshanLog {
    /// Names of the modules whose region is in the log but could not be read at all.
    pub fn unread_modules(&self) -> Vec<&'static str> {
        self.modules.iter().filter(|module| module.unread()).map(|module| module.name).collect()
    }

    /// Names of the modules read only in part (a problem in their region, some records read).
    pub fn damaged_modules(&self) -> Vec<&'static str> {
        self.modules
            .iter()
            .filter(|module| module.damaged && !module.unread())
            .map(|module| module.name)
            .collect()
    }

    /// Reads the log at `path`.
    pub fn open(path: &Path, options: ReadOptions) -> Result<DarshanLog, DarshanError> {
        let bytes =
            std::fs::read(path).map_err(|source| DarshanError::Io { path: path.to_path_buf(), source })?;
        DarshanLog::from_bytes(path, &bytes, options)
    }

    /// Reads the log at `path` region by region, leaving the DXT segments in the file: each DXT
    /// region is checked once (its records and segments counted, its problems reported as
    /// [`DarshanLog::open`] reports them) and its records are [`Records::DxtOnDisk`], decoded
    /// again one at a time by [`DarshanLog::for_each_dxt_record`]. Memory holds the other
    /// modules' records and one DXT record at a time, however many segments the log has.
    pub fn open_streaming(path: &Path, options: ReadOptions) -> Result<DarshanLog, DarshanError> {
        let io = |source| DarshanError::Io { path: path.to_path_buf(), source };
        let file = std::fs::File::open(path).map_err(io)?;
        let size = file.metadata().map_err(io)?.len();
        DarshanLog::decode(path, &Source::File { file, size }, options)
    }

    /// Decodes a log held in memory (`path` names it in errors).
    pub fn from_bytes(path: &Path, bytes: &[u8], options: ReadOptions) -> Result<DarshanLog, DarshanError> {
        DarshanLog::decode(path, &Source::Memory(bytes), options)
    }

    /// Decodes the log whose bytes `source` gives.
    fn decode(path: &Path, source: &Source<'_>, options: ReadOptions) -> Result<DarshanLog, DarshanError> {
        let file_size = source.size();
        let io = |source| DarshanError::Io { path: path.to_path_buf(), source };
        let header_bytes = source.read(0, header::CURRENT_HEADER_SIZE as u64).map_err(io)?;
        let header = header::parse(path, &header_bytes, file_size)?;
        let mut problems = Problems { path, partial: options.partial, found: Vec::new() };
        let (mut job, job_read) = read_job(source, &header, &mut problems)?;
        let names = read_names(source, &header, &mut problems)?;
        let name_index = names.iter().enumerate().map(|(index, (id, _))| (*id, index)).collect();

        let modules = read_modules(source, &header, job_read.then_some(&job), &mut problems)?;
        let mut problems = problems.found;
        if !job_read {
            let (nprocs, run_time) = estimate_job(&modules);
            job.nprocs = nprocs;
            job.start_time = 0;
            if header.minor >= 41 {
                job.end_time = run_time.trunc() as i64;
                job.end_time_nsec = (run_time.fract() * 1e9) as i64;
            } else {
                // Older formats count whole seconds, end minus start plus one.
                job.end_time = (run_time.ceil() as i64 - 1).max(0);
            }
            problems.push(format!(
                "job region: unreadable, so the processes are estimated as at least {nprocs} (the highest rank + 1) and the run time as at least {:.3} s (the latest end timestamp of a record)",
                job.run_time(header.minor)
            ));
        }
        Ok(DarshanLog {
            path: path.to_path_buf(),
            file_size,
            header,
            job,
            names,
            name_index,
            modules,
            problems,
            job_estimated: !job_read,
        })
    }

    /// A log assembled in memory rather than read from a file: the Darshan records derived from
    /// a DFTracer trace (`ioscout-evidence`), so that everything that reads a log (the summary,
    /// `darshan-parser`'s text, the Darshan rules) reads them alike. `path` names the source.
    /// The header says format 3.41 without compression, and each module's region is marked as
    /// present (length 1) so that [`Module::has_data`] holds for modules with records.
    pub fn in_memory(
        path: &Path,
        job: Job,
        names: Vec<(u64, String)>,
        modules: Vec<(usize, Records)>,
        problems: Vec<String>,
    ) -> DarshanLog {
        let mut header = Header {
            version: "3.41".to_string(),
            minor: 41,
            swapped: false,
            compression: Compression::None,
            partial_flag: 0,
            job: RegionMap::default(),
            names: RegionMap::default(),
            modules: [RegionMap::default(); header::MODULE_SLOTS],
            module_versions: [0; header::MODULE_SLOTS],
        };
        let modules = modules
            .into_iter()
            .map(|(module_id, records)| {
                let map = RegionMap { offset: 0, length: u64::from(!records.is_empty()) };
                if let Some(slot) = header.modules.get_mut(module_id) {
                    *slot = map;
                }
                if let Some(version) = header.module_versions.get_mut(module_id) {
                    *version = module::current_version(module_id);
                }
                Module {
                    id: module_id,
                    name: module_name(module_id),
                    version: module::current_version(module_id),
                    map,
                    partial: false,
                    records,
                    skipped_records: 0,
                    dropped_records: 0,
                    damaged: false,
                    streams: 0,
                }
            })
            .collect();
        let name_index = names.iter().enumerate().map(|(index, (id, _))| (*id, index)).collect();
        DarshanLog {
            path: path.to_path_buf(),
            file_size: 0,
            header,
            job,
            names,
            name_index,
            modules,
            problems,
            job_estimated: false,
        }
    }

    /// The path of record `id`, when the log names it.
    pub fn name(&self, id: u64) -> Option<&str> {
        self.name_index.get(&id).map(|&index| self.names[index].1.as_str())
    }

    /// The path of record `id`, or the id in hex when the log names no path for it.
    pub fn name_or_id(&self, id: u64) -> String {
        self.name(id).map_or_else(|| format!("{id:#018x}"), str::to_string)
    }

    /// The module with id `module_id`, when the log has it.
    pub fn module(&self, module_id: usize) -> Option<&Module> {
        self.modules.iter().find(|module| module.id == module_id)
    }

    /// Hands each record of DXT module `module_id` to `each`, in the log's order, until it
    /// breaks: from memory, or, for a log opened with [`DarshanLog::open_streaming`], decoded
    /// again from the file one at a time (the records the check on opening kept). Nothing for a
    /// module the log does not have.
    pub fn for_each_dxt_record(
        &self,
        module_id: usize,
        mut each: impl FnMut(&DxtRecord) -> std::ops::ControlFlow<()>,
    ) -> Result<(), DarshanError> {
        let Some(module) = self.module(module_id) else { return Ok(()) };
        match &module.records {
            Records::Dxt(records) => {
                for record in records {
                    if each(record).is_break() {
                        break;
                    }
                }
                Ok(())
            }
            Records::DxtOnDisk(on_disk) if on_disk.records > 0 => dxt::replay(
                &self.path,
                module.map,
                self.header.compression,
                (module_id, module.version, self.header.swapped),
                on_disk.records,
                &mut each,
            ),
            _ => Ok(()),
        }
    }

    /// The counter records of a fixed-layout module (empty when absent).
    pub fn counter_records(&self, module_id: usize) -> &[CounterRecord] {
        match self.module(module_id).map(|module| &module.records) {
            Some(Records::Counters(records)) => records,
            _ => &[],
        }
    }

    /// Run time in seconds, as Darshan computes it.
    pub fn run_time(&self) -> f64 {
        self.job.run_time(self.header.minor)
    }

    /// The log with only the records of the file named `path` (an HDF5 dataset or `PnetCDF`
    /// variable counts as its file's), and the modules holding none left out; HEATMAP, whose
    /// records are per rank and not per file, and the modules without a decoder are left out
    /// too. `None` when no name record is
    /// `path`.
    pub fn only_file(&self, path: &str) -> Option<DarshanLog> {
        let ids: std::collections::HashSet<u64> =
            self.names.iter().filter(|(_, name)| name == path).map(|(id, _)| *id).collect();
        if ids.is_empty() {
            return None;
        }
        let mut log = self.clone();
        // One file's DXT records are held in memory.
        for module in &mut log.modules {
            if matches!(module.records, Records::DxtOnDisk(_)) {
                let mut kept = Vec::new();
                let read = self.for_each_dxt_record(module.id, |record| {
                    if ids.contains(&record.id) {
                        kept.push(record.clone());
                    }
                    std::ops::ControlFlow::Continue(())
                });
                if let Err(error) = read {
                    log.problems.push(error.to_string());
                }
                module.records = Records::Dxt(kept);
            }
        }
        for module in &mut log.modules {
            match &mut module.records {
                Records::Counters(records) => records.retain(|record| {
                    ids.contains(&record.id) || record.file_record_id.is_some_and(|file| ids.contains(&file))
                }),
                Records::Lustre(records) => records.retain(|record| ids.contains(&record.id)),
                Records::Dxt(records) => records.retain(|record| ids.contains(&record.id)),
                Records::Heatmap(records) => records.clear(),
                // A module without a decoder holds nothing per file; DXT left in the file was
                // brought into memory above.
                Records::DxtOnDisk(_) | Records::Opaque => {}
            }
        }
        // A module without a decoder holds nothing per file.
        log.modules.retain(|module| !module.records.is_empty());
        Some(log)
    }
}

/// The problems met reading a log: kept with `--partial`, otherwise the first is the error.
struct Problems<'p> {
    path: &'p Path,
    partial: bool,
    found: Vec<String>,
}

impl Problems<'_> {
    /// The error of a file that cannot be read.
    fn io(&self, source: std::io::Error) -> DarshanError {
        DarshanError::Io { path: self.path.to_path_buf(), source }
    }

    fn report(&mut self, region: Region, offset: u64, message: String) -> Result<(), DarshanError> {
        if self.partial {
            self.found.push(format!("{region} at byte {offset}: {message}"));
            Ok(())
        } else {
            Err(DarshanError::format(self.path, region, offset, message))
        }
    }
}

/// Where a log's bytes come from: memory, or its file read region by region.
enum Source<'b> {
    /// The whole log in memory.
    Memory(&'b [u8]),
    /// The log's file, `size` bytes long.
    File {
        /// The open file.
        file: std::fs::File,
        /// Its length.
        size: u64,
    },
}

impl Source<'_> {
    /// The log's length in bytes.
    fn size(&self) -> u64 {
        match self {
            Source::Memory(bytes) => bytes.len() as u64,
            Source::File { size, .. } => *size,
        }
    }

    /// Up to `length` bytes from `offset` (fewer where the file ends).
    fn read(&self, offset: u64, length: u64) -> std::io::Result<std::borrow::Cow<'_, [u8]>> {
        use std::io::{Read, Seek};
        match self {
            Source::Memory(bytes) => {
                let start = usize::try_from(offset).unwrap_or(usize::MAX).min(bytes.len());
                let end =
                    usize::try_from(offset.saturating_add(length)).unwrap_or(usize::MAX).min(bytes.len());
                Ok(std::borrow::Cow::Borrowed(&bytes[start..end]))
            }
            Source::File { file, .. } => {
                let mut handle = file;
                handle.seek(std::io::SeekFrom::Start(offset))?;
                let mut bytes = Vec::new();
                handle.take(length).read_to_end(&mut bytes)?;
                Ok(std::borrow::Cow::Owned(bytes))
            }
        }
    }

    /// A reader over `length` bytes from `offset`.
    fn reader(&self, offset: u64, length: u64) -> std::io::Result<Box<dyn std::io::BufRead + '_>> {
        use std::io::{Read, Seek};
        match self {
            Source::Memory(_) => match self.read(offset, length)? {
                std::borrow::Cow::Borrowed(bytes) => Ok(Box::new(bytes)),
                std::borrow::Cow::Owned(bytes) => Ok(Box::new(std::io::Cursor::new(bytes))),
            },
            Source::File { file, .. } => {
                let mut handle = file;
                handle.seek(std::io::SeekFrom::Start(offset))?;
                Ok(Box::new(std::io::BufReader::with_capacity(256 * 1024, handle.take(length))))
            }
        }
    }

    /// How many bytes of region `map` the file holds: all of them, those up to its end when it
    /// ends inside the region (a truncated log), or `None` when the region starts past its end.
    fn present(&self, map: RegionMap) -> Option<u64> {
        let size = self.size();
        if map.offset.checked_add(map.length).is_some_and(|end| end <= size) {
            Some(map.length)
        } else {
            (map.offset < size).then(|| size - map.offset)
        }
    }

    /// Whether the file holds all of region `map`.
    fn whole(&self, map: RegionMap) -> bool {
        map.offset.checked_add(map.length).is_some_and(|end| end <= self.size())
    }
}

/// The job record, and whether it could be read (a default one, with the problem reported,
/// when it cannot).
fn read_job(
    source: &Source<'_>,
    header: &Header,
    problems: &mut Problems<'_>,
) -> Result<(Job, bool), DarshanError> {
    let job_bytes = if source.whole(header.job) {
        source.read(header.job.offset, header.job.length).map_err(|error| problems.io(error))?
    } else {
        std::borrow::Cow::Borrowed(&[][..])
    };
    let inflated = region::inflate(&job_bytes, header.compression);
    if let Some(problem) = inflated.problem {
        problems.report(Region::Job, header.job.offset, problem)?;
    }
    if let Some(job) = job::parse_job(&inflated.bytes, header.swapped, header.minor) {
        return Ok((job, true));
    }
    problems.report(
        Region::Job,
        header.job.offset,
        format!("{} bytes decompressed, too few for a job record", inflated.bytes.len()),
    )?;
    Ok((Job::default(), false))
}

/// Lower bounds of the processes and the run time from the records, for a log whose job record
/// is unreadable: the highest rank + 1 (at least 1), and the latest end timestamp of a counter
/// record or DXT segment, seconds after the job started.
fn estimate_job(modules: &[Module]) -> (i64, f64) {
    let mut highest_rank = 0_i64;
    let mut latest = 0.0_f64;
    let mut see = |rank: i64, end: f64| {
        highest_rank = highest_rank.max(rank);
        if end.is_finite() {
            latest = latest.max(end);
        }
    };
    for module in modules {
        match &module.records {
            Records::Counters(records) => {
                let Some((_, float_names)) = counter_names(module.id) else { continue };
                let ends: Vec<usize> = float_names
                    .iter()
                    .enumerate()
                    .filter(|(_, name)| name.ends_with("_END_TIMESTAMP"))
                    .map(|(index, _)| index)
                    .collect();
                for record in records {
                    let end = ends
                        .iter()
                        .filter_map(|index| record.fcounters.get(*index))
                        .fold(0.0_f64, |a, b| a.max(*b));
                    see(record.rank, end);
                }
            }
            Records::Dxt(records) => {
                for record in records {
                    let end = record.segments.iter().fold(0.0_f64, |a, segment| a.max(segment.end));
                    see(record.rank, end);
                }
            }
            Records::DxtOnDisk(on_disk) if on_disk.records > 0 => {
                see(on_disk.highest_rank, on_disk.latest_record_end);
            }
            _ => {}
        }
    }
    (highest_rank.saturating_add(1).max(1), latest)
}

/// The name records (record id, path).
fn read_names(
    source: &Source<'_>,
    header: &Header,
    problems: &mut Problems<'_>,
) -> Result<Vec<(u64, String)>, DarshanError> {
    let mut names = Vec::new();
    if header.names.length > 0 {
        if source.whole(header.names) {
            let region_bytes =
                source.read(header.names.offset, header.names.length).map_err(|error| problems.io(error))?;
            let inflated = region::inflate(&region_bytes, header.compression);
            if let Some(problem) = inflated.problem {
                problems.report(Region::Names, header.names.offset, problem)?;
            }
            let (decoded, leftover) = job::parse_names(&inflated.bytes, header.swapped, header.minor);
            if leftover > 0 {
                problems.report(
                    Region::Names,
                    header.names.offset,
                    format!("{leftover} trailing bytes do not form a name record"),
                )?;
            }
            names = decoded;
        } else {
            problems.report(
                Region::Names,
                header.names.offset,
                "region lies past the end of the file".into(),
            )?;
        }
    }
    Ok(names)
}

/// Every module with a region (or flagged partial) in the header, decoded.
fn read_modules(
    source: &Source<'_>,
    header: &Header,
    job: Option<&Job>,
    problems: &mut Problems<'_>,
) -> Result<Vec<Module>, DarshanError> {
    // Without a job record the records are held to what needs neither.
    let nprocs = job.map_or(0, |job| job.nprocs);
    let run_time_s =
        job.map(|job| job.run_time(header.minor)).filter(|run_time| run_time.is_finite() && *run_time > 0.0);
    let mut modules = Vec::new();
    for (module_id, map) in header.modules.iter().enumerate() {
        let partial = header.is_partial(module_id);
        if map.length == 0 && !partial {
            continue;
        }
        let version = header.module_versions[module_id];
        let name = module_name(module_id);
        let region_name = || {
            Region::Module(if module_id < module::MODULE_NAMES.len() {
                name.to_string()
            } else {
                format!("unknown (id {module_id})")
            })
        };
        let RegionRead { decoded, streams, mut damaged } =
            read_region(source, header, module_id, map, &region_name, problems)?;
        if module_id >= module::MODULE_NAMES.len() {
            damaged = true;
            problems.report(
                region_name(),
                map.offset,
                format!(
                    "module id {module_id} is unknown to this reader (a newer Darshan?); its {} bytes are skipped",
                    map.length
                ),
            )?;
        }
        if let Some(problem) = decoded.problem {
            damaged = true;
            problems.report(region_name(), map.offset, problem)?;
        }
        if decoded.leftover > 0 {
            damaged = true;
            problems.report(
                region_name(),
                map.offset,
                format!(
                    "the last record is cut: {} decompressed bytes at the end do not form a whole record and are dropped",
                    decoded.leftover
                ),
            )?;
        }
        let mut records = decoded.records;
        let mut dropped_records = 0;
        if let Some(checks) = validate::Checks::of(module_id, nprocs, run_time_s) {
            let reasons = drop_impossible(&mut records, &checks, &decoded.offsets);
            dropped_records = reasons.len();
            for reason in reasons {
                damaged = true;
                problems.report(region_name(), map.offset, reason)?;
            }
        }
        modules.push(Module {
            id: module_id,
            name,
            version,
            map: *map,
            partial,
            records,
            skipped_records: decoded.skipped,
            dropped_records,
            streams,
            damaged,
        });
    }
    Ok(modules)
}

/// One module's region as read: what it decoded to, its compressed streams, and whether a
/// problem was reported in it.
struct RegionRead {
    decoded: module::Decoded,
    streams: usize,
    damaged: bool,
}

/// Reads and decodes the region `map` of module `module_id`: from memory, or, for a log read from
/// its file, its DXT segments checked and left there; a region cut by the end of the file keeps
/// what it holds, a region past the end decodes nothing. Problems go to `problems` under the
/// name `region_name` gives.
fn read_region(
    source: &Source<'_>,
    header: &Header,
    module_id: usize,
    map: &RegionMap,
    region_name: &dyn Fn() -> Region,
    problems: &mut Problems<'_>,
) -> Result<RegionRead, DarshanError> {
    let version = header.module_versions[module_id];
    // Read from its file, a log's DXT segments stay there (checked here, read again on demand).
    let dxt_on_disk = matches!(source, Source::File { .. });
    let mut streams = 0;
    // Set when any problem is reported in this module's region.
    let mut damaged = false;
    let decoded = if map.length == 0 {
        module::decode(module_id, version, &[], header.swapped)
    } else if let Some(present) = source.present(*map) {
        if present != map.length {
            damaged = true;
            problems.report(
                region_name(),
                map.offset,
                format!(
                    "the file ends inside the region (a truncated log): {present} of its {} bytes are present; what they hold is read",
                    map.length
                ),
            )?;
        }
        if dxt_on_disk && matches!(module_id, id::DXT_POSIX | id::DXT_MPIIO) {
            let mut reader = source.reader(map.offset, present).map_err(|error| problems.io(error))?;
            let checked = dxt::check(&mut reader, header.compression, module_id, version, header.swapped);
            streams = checked.streams;
            if let Some(problem) = checked.inflate_problem {
                damaged = true;
                problems.report(region_name(), map.offset, problem)?;
            }
            let (problem, leftover) =
                checked.cut.map_or((None, 0), |(problem, leftover)| (Some(problem), leftover));
            module::Decoded {
                records: Records::DxtOnDisk(checked.on_disk),
                offsets: Vec::new(),
                skipped: 0,
                leftover,
                problem,
            }
        } else {
            let region_bytes = source.read(map.offset, present).map_err(|error| problems.io(error))?;
            let inflated = region::inflate(&region_bytes, header.compression);
            streams = inflated.streams;
            if let Some(problem) = inflated.problem {
                damaged = true;
                problems.report(region_name(), map.offset, problem)?;
            }
            module::decode(module_id, version, &inflated.bytes, header.swapped)
        }
    } else {
        damaged = true;
        problems.report(
            region_name(),
            map.offset,
            format!(
                "region claims bytes {}..{} but the file has {} bytes (truncated log?)",
                map.offset,
                map.offset.saturating_add(map.length),
                source.size()
            ),
        )?;
        module::decode(module_id, version, &[], header.swapped)
    };
    Ok(RegionRead { decoded, streams, damaged })
}

/// Drops the records of `records` that break Darshan's invariants (`checks`); the reason for
/// each, naming the record and its decompressed offset (`offsets`, in record order).
fn drop_impossible(records: &mut Records, checks: &validate::Checks, offsets: &[usize]) -> Vec<String> {
    let Records::Counters(counter_records) = records else { return Vec::new() };
    let mut reasons = Vec::new();
    let mut kept = Vec::with_capacity(counter_records.len());
    for (index, record) in std::mem::take(counter_records).into_iter().enumerate() {
        match checks.impossible(&record) {
            Some(reason) => reasons.push(format!(
                "record {index} (id {:#018x}, rank {}, decompressed byte {}) dropped: {reason}",
                record.id,
                record.rank,
                offsets.get(index).copied().unwrap_or_default()
            )),
            None => kept.push(record),
        }
    }
    *counter_records = kept;
    reasons
}
