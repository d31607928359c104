//! A Darshan log for `ioscout.darshan.DarshanReport`: the job, the modules, the name records and
//! every module's records, read by ioscout's own reader ([`ioscout_darshan`]) and handed over as
//! counter blocks (bytes numpy reads in place) and Arrow batches (Lustre components, DXT
//! segments) that the Python side turns into the
//! `DataFrames` `PyDarshan`'s `to_df()` returns.

use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::builder::{Int64Builder, ListBuilder};
use arrow_array::{Array, ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray, UInt64Array};
use arrow_schema::{DataType, Field, Schema};
use ioscout_darshan::{DarshanLog, Records};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use crate::arrow::ArrowBatch;
use crate::errors::{Failure, Kind};

/// Reads the log at `path` (with `partial`, past damaged regions), or derives the records of
/// the DFTracer traces at `path`, and returns the parts.
#[pyfunction]
#[pyo3(signature = (path, partial=false, threads=0, progress=None))]
pub(crate) fn read_darshan<'py>(
    py: Python<'py>,
    path: PathBuf,
    partial: bool,
    threads: usize,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let paths = [path.clone()];
    let (log, tables, derivation) = crate::call::run(py, progress, &paths, move |hooks| {
        if ioscout_service::is_darshan_log(&path) {
            let log = ioscout_darshan::DarshanLog::open(&path, ioscout_darshan::ReadOptions { partial })?;
            let tables = Tables::of(&log)?;
            return Ok((log, tables, None));
        }
        let scan = crate::call::Scan { paths: vec![path.clone()], strict: !partial, threads };
        let input = hooks.input(&scan);
        let (derived, report) = ioscout_service::evidence::derive(&input)?;
        if scan.strict {
            crate::errors::strict_problems(&report)?;
        }
        let mut derivation = ioscout_service::evidence::derivation_json(&derived);
        derivation["scan"] = ioscout_service::scan_json(&report);
        let tables = Tables::of(&derived.log)?;
        Ok((derived.log, tables, Some(derivation.to_string())))
    })?;
    let out = describe(py, &log, tables)?;
    out.set_item("derivation", derivation)?;
    Ok(out)
}

/// Where each DXT record's rows lie in its module's segment table: writes from the first to the
/// second bound, reads from the second to the third.
type Bounds = (usize, usize, usize);

/// The Arrow batches of a log's records, made off the interpreter.
struct Tables {
    counters: Vec<CounterBlock>,
    lustre: Option<RecordBatch>,
    dxt: Vec<(&'static str, RecordBatch, Vec<Bounds>)>,
    /// Modules with records but no table here.
    undecoded: Vec<&'static str>,
}

impl Tables {
    fn of(log: &DarshanLog) -> Result<Tables, Failure> {
        let mut tables =
            Tables { counters: Vec::new(), lustre: None, dxt: Vec::new(), undecoded: Vec::new() };
        for module in &log.modules {
            match &module.records {
                Records::Counters(records) => {
                    let Some((names, float_names)) = ioscout_darshan::counter_names(module.id) else {
                        tables.undecoded.push(module.name);
                        continue;
                    };
                    tables.counters.push(CounterBlock::of(log, module.name, records, names, float_names)?);
                }
                Records::Lustre(records) => tables.lustre = Some(lustre_batch(records)?),
                Records::Dxt(records) => {
                    let (segments, bounds) = segment_batch(records)?;
                    tables.dxt.push((module.name, segments, bounds));
                }
                // Logs are read whole here (`DarshanLog::open`): no DXT module is left in the file.
                Records::Heatmap(_) | Records::DxtOnDisk(_) | Records::Opaque => {}
            }
        }
        Ok(tables)
    }
}

fn arrow_failure(error: &arrow_schema::ArrowError) -> Failure {
    Failure::new(Kind::Other, format!("building an Arrow table: {error}"))
}

/// A counter module's records as row-major blocks of native-endian bytes, which numpy takes
/// without a conversion per value: ranks, ids, the integer counters (records x names) and the
/// floating-point ones.
struct CounterBlock {
    module: &'static str,
    rows: usize,
    ranks: Vec<u8>,
    ids: Vec<u8>,
    integers: Vec<u8>,
    floats: Vec<u8>,
    names: &'static [&'static str],
    float_names: &'static [&'static str],
}

impl CounterBlock {
    /// The block of `records`; a record whose counters are not today's layout is an error (the
    /// reader up-converts every version, so this names a reader defect instead of padding).
    fn of(
        log: &DarshanLog,
        module: &'static str,
        records: &[ioscout_darshan::CounterRecord],
        names: &'static [&'static str],
        float_names: &'static [&'static str],
    ) -> Result<CounterBlock, Failure> {
        let mut block = CounterBlock {
            module,
            rows: records.len(),
            ranks: Vec::with_capacity(records.len() * 8),
            ids: Vec::with_capacity(records.len() * 8),
            integers: Vec::with_capacity(records.len() * names.len() * 8),
            floats: Vec::with_capacity(records.len() * float_names.len() * 8),
            names,
            float_names,
        };
        for record in records {
            if record.counters.len() != names.len() || record.fcounters.len() != float_names.len() {
                return Err(Failure::new(
                    Kind::Darshan,
                    format!(
                        "{}: a {module} record of {} and {} counters where today's layout has {} and {} (record {})",
                        log.path.display(),
                        record.counters.len(),
                        record.fcounters.len(),
                        names.len(),
                        float_names.len(),
                        record.id
                    ),
                ));
            }
            block.ranks.extend_from_slice(&record.rank.to_ne_bytes());
            block.ids.extend_from_slice(&record.id.to_ne_bytes());
            for value in &record.counters {
                block.integers.extend_from_slice(&value.to_ne_bytes());
            }
            for value in &record.fcounters {
                block.floats.extend_from_slice(&value.to_ne_bytes());
            }
        }
        Ok(block)
    }
}

/// One row per layout component: `rank`, `id`, the seven `LUSTRE_COMP_*` counters, the pool
/// name and the component's OST ids (its stripe count of them, in order).
fn lustre_batch(records: &[ioscout_darshan::LustreRecord]) -> Result<RecordBatch, Failure> {
    let names = ioscout_darshan::counters::LUSTRE_COMP_NAMES;
    let (mut ranks, mut ids, mut pools) = (Vec::new(), Vec::new(), Vec::new());
    let mut values: Vec<Vec<i64>> = vec![Vec::new(); names.len()];
    let mut osts = ListBuilder::new(Int64Builder::new());
    for record in records {
        let mut next = 0_usize;
        for component in &record.components {
            ranks.push(record.rank);
            ids.push(record.id);
            pools.push(component.pool.clone());
            for (column, value) in values.iter_mut().zip(component.counters) {
                column.push(value);
            }
            let stripes = usize::try_from(component.counters[1].max(0)).unwrap_or(0);
            let end = next.saturating_add(stripes).min(record.ost_ids.len());
            for ost in record.ost_ids.get(next..end).unwrap_or_default() {
                osts.values().append_value(*ost);
            }
            osts.append(true);
            next = end;
        }
    }
    let mut fields =
        vec![Field::new("rank", DataType::Int64, false), Field::new("id", DataType::UInt64, false)];
    let mut columns: Vec<ArrayRef> =
        vec![Arc::new(Int64Array::from(ranks)), Arc::new(UInt64Array::from(ids))];
    for (name, column) in names.iter().zip(values) {
        fields.push(Field::new(*name, DataType::Int64, false));
        columns.push(Arc::new(Int64Array::from(column)));
    }
    fields.push(Field::new("LUSTRE_POOL_NAME", DataType::Utf8, false));
    columns.push(Arc::new(StringArray::from(pools)));
    let osts = osts.finish();
    fields.push(Field::new("LUSTRE_OST_IDS", osts.data_type().clone(), true));
    columns.push(Arc::new(osts));
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).map_err(|error| arrow_failure(&error))
}

/// Every traced call of a DXT module, record by record and within a record its writes, then
/// its reads: offset, length, start and end time. Each record's writes are rows
/// `bounds[i].0..bounds[i].1` and its reads `bounds[i].1..bounds[i].2`.
fn segment_batch(records: &[ioscout_darshan::DxtRecord]) -> Result<(RecordBatch, Vec<Bounds>), Failure> {
    let (mut offset, mut length, mut start, mut end) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut bounds = Vec::with_capacity(records.len());
    for record in records {
        let first = offset.len();
        let mut middle = first;
        for writes in [true, false] {
            for segment in record.segments.iter().filter(|segment| segment.write == writes) {
                offset.push(segment.offset);
                length.push(segment.length);
                start.push(segment.start);
                end.push(segment.end);
            }
            if writes {
                middle = offset.len();
            }
        }
        bounds.push((first, middle, offset.len()));
    }
    let schema = Schema::new(vec![
        Field::new("offset", DataType::Int64, false),
        Field::new("length", DataType::Int64, false),
        Field::new("start_time", DataType::Float64, false),
        Field::new("end_time", DataType::Float64, false),
    ]);
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(offset)),
        Arc::new(Int64Array::from(length)),
        Arc::new(Float64Array::from(start)),
        Arc::new(Float64Array::from(end)),
    ];
    let batch = RecordBatch::try_new(Arc::new(schema), columns).map_err(|error| arrow_failure(&error))?;
    Ok((batch, bounds))
}

/// The log as a dict: `job` and `exe` (PyDarshan's `metadata`), `mounts`, `modules`,
/// `name_records`, the record tables, heatmaps, and what could not be read.
fn describe<'py>(py: Python<'py>, log: &DarshanLog, tables: Tables) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("job", job_dict(py, log)?)?;
    out.set_item("exe", &log.job.exe)?;
    let mounts: Vec<(String, String)> =
        log.job.mounts.iter().map(|mount| (mount.path.clone(), mount.fs_type.clone())).collect();
    out.set_item("mounts", mounts)?;
    let modules = PyDict::new(py);
    for module in &log.modules {
        let entry = PyDict::new(py);
        entry.set_item("len", module.map.length)?;
        entry.set_item("ver", module.version)?;
        entry.set_item("idx", module.id)?;
        entry.set_item("partial_flag", module.partial)?;
        if !matches!(module.records, Records::Heatmap(_) | Records::Opaque) {
            entry.set_item("num_records", module.records.len())?;
        }
        modules.set_item(module.name, entry)?;
    }
    out.set_item("modules", modules)?;
    let names = PyDict::new(py);
    for (id, name) in &log.names {
        names.set_item(id, name)?;
    }
    out.set_item("name_records", names)?;
    let counters = PyDict::new(py);
    for block in tables.counters {
        let entry = PyDict::new(py);
        entry.set_item("rows", block.rows)?;
        entry.set_item("ranks", PyBytes::new(py, &block.ranks))?;
        entry.set_item("ids", PyBytes::new(py, &block.ids))?;
        entry.set_item("counters", PyBytes::new(py, &block.integers))?;
        entry.set_item("fcounters", PyBytes::new(py, &block.floats))?;
        entry.set_item("names", block.names.to_vec())?;
        entry.set_item("float_names", block.float_names.to_vec())?;
        counters.set_item(block.module, entry)?;
    }
    out.set_item("counters", counters)?;
    out.set_item("lustre", tables.lustre.map(ArrowBatch::new))?;
    let dxt = PyDict::new(py);
    for (module, segments, bounds) in tables.dxt {
        let Some(records) = log.modules.iter().find(|candidate| candidate.name == module) else { continue };
        let Records::Dxt(records) = &records.records else { continue };
        let described = PyList::empty(py);
        for (record, rows) in records.iter().zip(&bounds) {
            let entry = PyDict::new(py);
            entry.set_item("id", record.id)?;
            entry.set_item("rank", record.rank)?;
            entry.set_item("hostname", &record.hostname)?;
            entry.set_item("write_count", record.write_count)?;
            entry.set_item("read_count", record.read_count)?;
            described.append((entry, *rows))?;
        }
        dxt.set_item(module, (described, ArrowBatch::new(segments)))?;
    }
    out.set_item("dxt", dxt)?;
    out.set_item("heatmaps", heatmap_columns(py, log)?)?;
    let mut opaque: Vec<&str> = log
        .modules
        .iter()
        .filter(|module| matches!(module.records, Records::Opaque) && module.map.length > 0)
        .map(|module| module.name)
        .collect();
    opaque.extend(tables.undecoded.iter().copied());
    out.set_item("undecoded_modules", opaque)?;
    out.set_item("unread_modules", log.unread_modules())?;
    out.set_item("damaged_modules", log.damaged_modules())?;
    out.set_item("problems", log.problems.clone())?;
    out.set_item("byte_order", if log.header.swapped { "swapped" } else { "native" })?;
    Ok(out)
}

/// The job as PyDarshan's `metadata["job"]` holds it.
fn job_dict<'py>(py: Python<'py>, log: &DarshanLog) -> PyResult<Bound<'py, PyDict>> {
    let job = PyDict::new(py);
    job.set_item("uid", log.job.uid)?;
    job.set_item("start_time_sec", log.job.start_time)?;
    job.set_item("start_time_nsec", log.job.start_time_nsec)?;
    job.set_item("end_time_sec", log.job.end_time)?;
    job.set_item("end_time_nsec", log.job.end_time_nsec)?;
    job.set_item("nprocs", log.job.nprocs)?;
    job.set_item("jobid", log.job.jobid)?;
    job.set_item("run_time", log.run_time())?;
    job.set_item("log_ver", &log.header.version)?;
    let metadata = PyDict::new(py);
    for (key, value) in &log.job.metadata {
        metadata.set_item(key, value)?;
    }
    job.set_item("metadata", metadata)?;
    Ok(job)
}

/// Heatmap records as columns of bytes (the Python side makes the per-record dicts when they are
/// first asked for): ids, ranks, bin widths, and each record's bins, one record's after the
/// other, with where each record's run ends.
fn heatmap_columns<'py>(py: Python<'py>, log: &DarshanLog) -> PyResult<Bound<'py, PyDict>> {
    let mut columns: [Vec<u8>; 7] = Default::default();
    let [ids, ranks, widths, writes, reads, write_ends, read_ends] = &mut columns;
    for module in &log.modules {
        let Records::Heatmap(records) = &module.records else { continue };
        for record in records {
            ids.extend_from_slice(&record.id.to_ne_bytes());
            ranks.extend_from_slice(&record.rank.to_ne_bytes());
            widths.extend_from_slice(&record.bin_width_seconds.to_ne_bytes());
            writes.extend(record.write_bins.iter().flat_map(|value| value.to_ne_bytes()));
            reads.extend(record.read_bins.iter().flat_map(|value| value.to_ne_bytes()));
            write_ends.extend_from_slice(&((writes.len() / 8) as i64).to_ne_bytes());
            read_ends.extend_from_slice(&((reads.len() / 8) as i64).to_ne_bytes());
        }
    }
    let heatmaps = PyDict::new(py);
    let keys = ["ids", "ranks", "bin_widths", "write_bins", "read_bins", "write_ends", "read_ends"];
    for (key, column) in keys.iter().zip(&columns) {
        heatmaps.set_item(key, PyBytes::new(py, column))?;
    }
    Ok(heatmaps)
}
