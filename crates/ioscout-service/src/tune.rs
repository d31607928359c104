//! `tune`: runs a tuning spec (`ioscout_tune`) with its executor (the mock surface for
//! `objective.source = "mock"`, local processes otherwise), for the command line and the MCP
//! `tune` tool alike. The structured result is the tuning report; the outcome is flagged when
//! no configuration could be scored.

use std::path::PathBuf;

use ioscout_tune::TuneOptions;
use ioscout_tune::executor::{Executor, Local, MockSurface};
use ioscout_tune::spec::Spec;

use crate::{Outcome, Result, ServiceError};

/// What to tune.
#[derive(Clone, Debug, Default)]
pub struct TuneRequest {
    /// The TOML spec.
    pub spec: PathBuf,
    /// Search options (strategy, budget, seed, subset, validation); `kb` is set from
    /// `kb`/`no_kb` below.
    pub options: TuneOptions,
    /// The knowledge base that records every evaluation (default: `kb.jsonl` in the spec's
    /// runs directory).
    pub kb: Option<PathBuf>,
    /// Record nothing.
    pub no_kb: bool,
}

/// Tunes the workload of `request.spec`.
pub fn tune(request: &TuneRequest) -> Result<Outcome> {
    let bad = |error: &dyn std::fmt::Display| ServiceError::BadRequest(error.to_string());
    let spec = Spec::load(&request.spec).map_err(|error| bad(&error))?;
    let kb = if request.no_kb {
        None
    } else {
        let default = || {
            let runs = spec
                .workload
                .as_ref()
                .map_or_else(|| "tune-runs".into(), |workload| workload.runs_dir.clone());
            spec.directory.join(runs).join("kb.jsonl")
        };
        let path = request.kb.clone().unwrap_or_else(default);
        if let Some(parent) = path.parent().filter(|parent| !parent.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|error| ServiceError::io(parent, error))?;
        }
        Some(path)
    };
    let options = TuneOptions { kb, ..request.options.clone() };
    let executor: &dyn Executor = if spec.objective.source == "mock" { &MockSurface } else { &Local };
    let report = ioscout_tune::tune(&spec, executor, &options).map_err(|error| bad(&error))?;
    let flagged = report.best.is_none();
    Ok(Outcome { flagged, ..Outcome::typed(&report, ioscout_render::tune::text(&report)) })
}
