//! `ioscout index`: build or refresh the sidecar index of each trace directory (the work is
//! `ioscout_service::index`).

use std::io::Write;
use std::process::ExitCode;

use ioscout_service::index::IndexRequest;

use crate::cli::IndexArguments;
use crate::common;

/// `ioscout index`: one index per trace directory.
pub(crate) fn run(arguments: &IndexArguments) -> anyhow::Result<ExitCode> {
    let (input, bar) = common::service_input_with_progress(&arguments.input, "indexing");
    let request = IndexRequest {
        index_dir: arguments.index_dir.clone(),
        force: arguments.force,
        chunk_bytes: arguments.chunk_kib * 1024,
    };
    let outcome = ioscout_service::index::index(&input, &request)?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let failed = outcome.value["failed"].as_array().cloned().unwrap_or_default();
    for failure in &failed {
        writeln!(
            std::io::stderr(),
            "ioscout: error: {}: {}",
            failure["directory"].as_str().unwrap_or_default(),
            failure["error"].as_str().unwrap_or_default()
        )?;
    }
    common::print(&outcome, arguments.json, arguments.input.quiet)?;
    if !failed.is_empty() {
        return Ok(ExitCode::from(2));
    }
    let code =
        outcome.report.as_ref().map_or(ExitCode::SUCCESS, |report| common::finish(report, &arguments.input));
    Ok(code)
}
