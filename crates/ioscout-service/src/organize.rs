//! Lossless trace clustering in the service (`ioscout organize`, `ioscout reconstruct`): checks
//! the groups, finds the input's trace files and hands them to [`ioscout_organize`], which
//! writes one indexed file per group with the provenance that rebuilds the originals.

use std::path::{Path, PathBuf};

pub use ioscout_organize::{
    DEFAULT_GROUPS, FORMAT, Group, OrganizeError, PROVENANCE, Provenance, REST, Source, parse_groups,
};

use crate::{Input, Result, ServiceError};

impl From<OrganizeError> for ServiceError {
    fn from(error: OrganizeError) -> ServiceError {
        match error {
            OrganizeError::Refused(message) => ServiceError::BadRequest(message),
            OrganizeError::Query(error) => ServiceError::Query(error),
            OrganizeError::Io { path, source } => ServiceError::Io { path, source },
            OrganizeError::Output { what, message } => ServiceError::Output { what, message },
        }
    }
}

/// Organizes the traces of `input` into `output` (absent or empty) by the `NAME:EXPR` groups
/// `definitions` (the defaults when there are none), indexing the result when `index` is set
/// ([`ioscout_organize::organize`]).
pub fn organize(input: &Input, output: &Path, definitions: &[String], index: bool) -> Result<Provenance> {
    let groups = parse_groups(definitions)?;
    let (files, problems) = input.discover()?;
    if files.is_empty() {
        return Err(input.no_traces(&problems));
    }
    let sources = ioscout_organize::Sources {
        inputs: &input.paths,
        files: &files,
        problems: &problems,
        scan: &input.scan,
    };
    Ok(ioscout_organize::organize(&sources, output, &groups, index)?)
}

/// Rebuilds the original files of an organized directory under `output`.
pub fn reconstruct(organized: &Path, output: &Path) -> Result<Vec<PathBuf>> {
    Ok(ioscout_organize::reconstruct(organized, output)?)
}
