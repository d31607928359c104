//! ioscout's Python package, the native half: the module `ioscout._native` that the pure-Python
//! package `ioscout` (under `python/`) wraps into `DataFrames`, Arrow tables and result objects.
//! It sits beside the command line and the MCP server, over the same service layer, so the
//! three give the same numbers.
//!
//! - [`operations`]: the operations (count, info, analyze, diagnose, advise, compare, report,
//!   query, `scan_batches`, index, rules, explain);
//! - [`darshan`]: a Darshan log's parts for `ioscout.darshan.DarshanReport`;
//! - [`arrow`]: tables through the Arrow C data interface;
//! - [`call`]: long calls off the interpreter, with progress and Ctrl-C;
//! - [`errors`]: the exceptions under `ioscout.Error`.
//!
//! Built by maturin into one `abi3` wheel (`CPython` 3.9 and newer): `crates/ioscout-python/pyproject.toml`.

mod arrow;
mod call;
mod darshan;
mod errors;
mod operations;

use pyo3::prelude::*;

/// The native module.
#[pymodule]
#[pyo3(name = "_native")]
fn native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(module)?;
    operations::register(module)?;
    module.add_class::<arrow::ArrowStream>()?;
    module.add_class::<arrow::ArrowBatch>()?;
    module.add_class::<arrow::BatchStream>()?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
