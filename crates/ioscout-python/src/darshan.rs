//! A Darshan log for `ioscout.darshan.DarshanReport`: the job, the modules, the name records and
//! every module's records, read by ioscout's own reader ([`ioscout_darshan`]) and handed over as
//! Arrow batches (counters, Lustre components, DXT segments) that the Python side turns into the
//! `DataFrames` `PyDarshan`'s `to_df()` returns.

use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::builder::{Int64Builder, ListBuilder};
use arrow_array::{
    Array, ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch, StringArray, UInt64Array,
};
use arrow_schema::{DataType, Field, Schema};
use ioscout_darshan::{DarshanLog, Records};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

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
        if is_darshan_log(&path) {
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

/// Whether `path` is a Darshan log (named `.darshan`, or a file whose first bytes say so)
/// rather than traces.
fn is_darshan_log(path: &std::path::Path) -> bool {
    use std::io::Read;
    if path.extension().is_some_and(|extension| extension == "darshan") {
        return true;
    }
    if !path.is_file() {
        return false;
    }
    let mut head = [0_u8; 16];
    let read = std::fs::File::open(path).and_then(|mut file| file.read(&mut head)).unwrap_or(0);
    ioscout_darshan::looks_like_darshan(&head[..read])
}

/// The Arrow batches of a log's records, made off the interpreter.
struct Tables {
    counters: Vec<(&'static str, RecordBatch, RecordBatch)>,
    lustre: Option<RecordBatch>,
    dxt: Vec<(&'static str, RecordBatch)>,
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
                        continue;
                    };
                    tables.counters.push((
                        module.name,
                        counter_batch(records, names, |record, index| record.counters.get(index).copied())?,
                        float_batch(records, float_names)?,
                    ));
                }
                Records::Lustre(records) => tables.lustre = Some(lustre_batch(records)?),
                Records::Dxt(records) => tables.dxt.push((module.name, segment_batch(records)?)),
                Records::Heatmap(_) | Records::Opaque => {}
            }
        }
        Ok(tables)
    }
}

fn arrow_failure(error: &arrow_schema::ArrowError) -> Failure {
    Failure::new(Kind::Other, format!("building an Arrow table: {error}"))
}

/// `rank`, `id`, then one Int64 column per counter.
fn counter_batch(
    records: &[ioscout_darshan::CounterRecord],
    names: &[&str],
    value: impl Fn(&ioscout_darshan::CounterRecord, usize) -> Option<i64>,
) -> Result<RecordBatch, Failure> {
    let mut fields =
        vec![Field::new("rank", DataType::Int64, false), Field::new("id", DataType::UInt64, false)];
    let mut columns: Vec<ArrayRef> = vec![
        Arc::new(records.iter().map(|record| record.rank).collect::<Int64Array>()),
        Arc::new(records.iter().map(|record| record.id).collect::<UInt64Array>()),
    ];
    for (index, name) in names.iter().enumerate() {
        fields.push(Field::new(*name, DataType::Int64, false));
        columns.push(Arc::new(
            records.iter().map(|record| value(record, index).unwrap_or(0)).collect::<Int64Array>(),
        ));
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).map_err(|error| arrow_failure(&error))
}

/// `rank`, `id`, then one Float64 column per floating-point counter.
fn float_batch(records: &[ioscout_darshan::CounterRecord], names: &[&str]) -> Result<RecordBatch, Failure> {
    let mut fields =
        vec![Field::new("rank", DataType::Int64, false), Field::new("id", DataType::UInt64, false)];
    let mut columns: Vec<ArrayRef> = vec![
        Arc::new(records.iter().map(|record| record.rank).collect::<Int64Array>()),
        Arc::new(records.iter().map(|record| record.id).collect::<UInt64Array>()),
    ];
    for (index, name) in names.iter().enumerate() {
        fields.push(Field::new(*name, DataType::Float64, false));
        columns.push(Arc::new(
            records
                .iter()
                .map(|record| record.fcounters.get(index).copied().unwrap_or(0.0))
                .collect::<Float64Array>(),
        ));
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).map_err(|error| arrow_failure(&error))
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

/// Every traced call of a DXT module: the record it belongs to (its index), whether it wrote,
/// offset, length, start and end time.
fn segment_batch(records: &[ioscout_darshan::DxtRecord]) -> Result<RecordBatch, Failure> {
    let (mut record_of, mut write, mut offset, mut length, mut start, mut end) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (index, record) in records.iter().enumerate() {
        for segment in &record.segments {
            record_of.push(index as i64);
            write.push(segment.write);
            offset.push(segment.offset);
            length.push(segment.length);
            start.push(segment.start);
            end.push(segment.end);
        }
    }
    let schema = Schema::new(vec![
        Field::new("record", DataType::Int64, false),
        Field::new("write", DataType::Boolean, false),
        Field::new("offset", DataType::Int64, false),
        Field::new("length", DataType::Int64, false),
        Field::new("start_time", DataType::Float64, false),
        Field::new("end_time", DataType::Float64, false),
    ]);
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(record_of)),
        Arc::new(BooleanArray::from(write)),
        Arc::new(Int64Array::from(offset)),
        Arc::new(Int64Array::from(length)),
        Arc::new(Float64Array::from(start)),
        Arc::new(Float64Array::from(end)),
    ];
    RecordBatch::try_new(Arc::new(schema), columns).map_err(|error| arrow_failure(&error))
}

/// The log as a dict: `job` and `exe` (PyDarshan's `metadata`), `mounts`, `modules`,
/// `name_records`, the record tables, heatmaps, and what could not be read.
fn describe<'py>(py: Python<'py>, log: &DarshanLog, tables: Tables) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
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
    out.set_item("job", job)?;
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
    for (module, integers, floats) in tables.counters {
        counters.set_item(module, (ArrowBatch::new(integers), ArrowBatch::new(floats)))?;
    }
    out.set_item("counters", counters)?;
    out.set_item("lustre", tables.lustre.map(ArrowBatch::new))?;
    let dxt = PyDict::new(py);
    for (module, segments) in tables.dxt {
        let Some(records) = log.modules.iter().find(|candidate| candidate.name == module) else { continue };
        let Records::Dxt(records) = &records.records else { continue };
        let described = PyList::empty(py);
        for record in records {
            let entry = PyDict::new(py);
            entry.set_item("id", record.id)?;
            entry.set_item("rank", record.rank)?;
            entry.set_item("hostname", &record.hostname)?;
            entry.set_item("write_count", record.write_count)?;
            entry.set_item("read_count", record.read_count)?;
            described.append(entry)?;
        }
        dxt.set_item(module, (described, ArrowBatch::new(segments)))?;
    }
    out.set_item("dxt", dxt)?;
    let heatmaps = PyList::empty(py);
    for module in &log.modules {
        let Records::Heatmap(records) = &module.records else { continue };
        for record in records {
            let entry = PyDict::new(py);
            entry.set_item("id", record.id)?;
            entry.set_item("name", log.name(record.id))?;
            entry.set_item("rank", record.rank)?;
            entry.set_item("bin_width_seconds", record.bin_width_seconds)?;
            entry.set_item("write_bins", record.write_bins.clone())?;
            entry.set_item("read_bins", record.read_bins.clone())?;
            heatmaps.append(entry)?;
        }
    }
    out.set_item("heatmaps", heatmaps)?;
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
