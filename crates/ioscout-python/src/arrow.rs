//! Arrow tables handed to Python through the Arrow C data interface (the `PyCapsule` protocol:
//! `__arrow_c_stream__` and `__arrow_c_array__`), so pyarrow takes the columns without a row
//! ever becoming a Python object. [`ArrowStream`] holds a finished table's batches,
//! [`ArrowBatch`] one batch, and [`BatchStream`] yields the batches of a scan as it runs, in
//! bounded memory (the scan waits while the reader is two batches behind).

use std::sync::Mutex;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use arrow_array::{Array, RecordBatch, RecordBatchIterator, StructArray};
use arrow_schema::SchemaRef;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};

use crate::errors::{Failure, Kind};

/// Record batches of one schema, taken once by pyarrow (`pyarrow.table(stream)`).
#[pyclass(module = "ioscout._native")]
pub(crate) struct ArrowStream {
    schema: SchemaRef,
    batches: Option<Vec<RecordBatch>>,
}

impl ArrowStream {
    pub(crate) fn new(schema: SchemaRef, batches: Vec<RecordBatch>) -> ArrowStream {
        ArrowStream { schema, batches: Some(batches) }
    }
}

#[pymethods]
impl ArrowStream {
    /// The batches as an `ArrowArrayStream` capsule (they can be taken once).
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &mut self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let batches = self
            .batches
            .take()
            .ok_or_else(|| Failure::new(Kind::Other, "this Arrow stream was already read").into_py_err(py))?;
        let reader = RecordBatchIterator::new(batches.into_iter().map(Ok), self.schema.clone());
        let stream = arrow_array::ffi_stream::FFI_ArrowArrayStream::new(Box::new(reader));
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }
}

/// One record batch, taken by pyarrow (`pyarrow.record_batch(batch)`).
#[pyclass(module = "ioscout._native")]
pub(crate) struct ArrowBatch {
    batch: RecordBatch,
}

impl ArrowBatch {
    pub(crate) fn new(batch: RecordBatch) -> ArrowBatch {
        ArrowBatch { batch }
    }
}

#[pymethods]
impl ArrowBatch {
    /// The batch as a struct array: the `ArrowSchema` and `ArrowArray` capsules.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let _ = requested_schema;
        let data = StructArray::from(self.batch.clone()).into_data();
        let (array, schema) = arrow_array::ffi::to_ffi(&data)
            .map_err(|error| Failure::new(Kind::Other, format!("Arrow export: {error}")).into_py_err(py))?;
        let schema = PyCapsule::new_with_value(py, schema, c"arrow_schema")?;
        let array = PyCapsule::new_with_value(py, array, c"arrow_array")?;
        PyTuple::new(py, [schema.into_any(), array.into_any()])
    }

    /// Rows in the batch.
    fn __len__(&self) -> usize {
        self.batch.num_rows()
    }
}

/// What a finished scan behind a [`BatchStream`] says: its `scan` JSON (what was read and what
/// could not be), the planning notes, and the warnings about input it skipped.
pub(crate) struct Ended {
    pub(crate) scan: String,
    pub(crate) notes: Vec<String>,
    pub(crate) warnings: Vec<String>,
}

/// What the scan behind a [`BatchStream`] sends: a batch, or the end (or why it failed).
pub(crate) enum Item {
    Batch(RecordBatch),
    End(Result<Ended, Failure>),
}

/// The batches of a running scan, yielded as they are made. The scan runs at most two batches
/// ahead of the reader (it then waits, holding the folds of its current window); `close()`
/// stops it and waits for it to end, and dropping the stream stops it.
#[pyclass(module = "ioscout._native")]
pub(crate) struct BatchStream {
    receiver: Option<Mutex<Receiver<Item>>>,
    cancel: ioscout_read::Cancel,
    ended: Option<Ended>,
}

impl BatchStream {
    pub(crate) fn new(receiver: Receiver<Item>, cancel: ioscout_read::Cancel) -> BatchStream {
        BatchStream { receiver: Some(Mutex::new(receiver)), cancel, ended: None }
    }

    /// The next item, waiting with the interpreter released (50 ms at a time).
    fn receive(py: Python<'_>, receiver: &Mutex<Receiver<Item>>) -> Result<Item, RecvTimeoutError> {
        py.detach(|| match receiver.lock() {
            Ok(receiver) => receiver.recv_timeout(Duration::from_millis(50)),
            Err(_) => Err(RecvTimeoutError::Disconnected),
        })
    }
}

#[pymethods]
impl BatchStream {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next batch; waits with the interpreter released, and stops the scan on Ctrl-C.
    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<ArrowBatch>> {
        let Some(receiver) = &self.receiver else { return Ok(None) };
        loop {
            match Self::receive(py, receiver) {
                Ok(Item::Batch(batch)) => return Ok(Some(ArrowBatch::new(batch))),
                Ok(Item::End(result)) => {
                    self.receiver = None;
                    return match result {
                        Ok(ended) => {
                            self.ended = Some(ended);
                            Ok(None)
                        }
                        Err(failure) => Err(failure.into_py_err(py)),
                    };
                }
                Err(RecvTimeoutError::Disconnected) => {
                    self.receiver = None;
                    let failure = Failure::new(Kind::Other, "the scan ended without saying how");
                    return Err(failure.into_py_err(py));
                }
                Err(RecvTimeoutError::Timeout) => {
                    if let Err(error) = py.check_signals() {
                        self.close(py);
                        return Err(error);
                    }
                }
            }
        }
    }

    /// Stops the scan and waits for it to end (batches not yet read are dropped); the
    /// stream's `scan` then says it stopped early. Does nothing once the stream has ended.
    fn close(&mut self, py: Python<'_>) {
        self.cancel.cancel();
        let Some(receiver) = self.receiver.take() else { return };
        loop {
            match Self::receive(py, &receiver) {
                Ok(Item::Batch(_)) | Err(RecvTimeoutError::Timeout) => {}
                Ok(Item::End(result)) => {
                    self.ended = result.ok();
                    return;
                }
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
    }

    /// What the scan read and could not (its `scan` JSON), once the stream has ended.
    #[getter]
    fn scan(&self) -> Option<String> {
        self.ended.as_ref().map(|ended| ended.scan.clone())
    }

    /// How the scan was planned (index use, chunks read), once the stream has ended.
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.ended.as_ref().map(|ended| ended.notes.clone()).unwrap_or_default()
    }

    /// The input the scan skipped (bad lines, unreadable files), once the stream has ended.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.ended.as_ref().map(|ended| ended.warnings.clone()).unwrap_or_default()
    }
}

impl Drop for BatchStream {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}
