//! `ioscout organize` and `ioscout reconstruct` (`ioscout_service::organize`).

use std::io::Write;
use std::process::ExitCode;

use crate::cli::{OrganizeArguments, ReconstructArguments};
use crate::common;

pub(crate) fn run(arguments: &OrganizeArguments) -> anyhow::Result<ExitCode> {
    let input = common::service_input(&arguments.input, None);
    let provenance = ioscout_service::organize::organize(
        &input,
        &arguments.output,
        &arguments.groups,
        !arguments.no_index,
    )?;
    if !arguments.input.quiet {
        let mut stderr = std::io::stderr().lock();
        for problem in &provenance.problems {
            let _ = writeln!(stderr, "ioscout: warning: {problem}");
        }
        let groups: Vec<String> =
            provenance.groups.iter().map(|group| format!("{} {}", group.name, group.lines)).collect();
        let _ = writeln!(
            stderr,
            "ioscout: organized {} into {} (lines per group: {})",
            ioscout_service::text::count_of(provenance.sources.len() as u64, "file", "files"),
            arguments.output.display(),
            groups.join(", ")
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn reconstruct(arguments: &ReconstructArguments) -> anyhow::Result<ExitCode> {
    let written = ioscout_service::organize::reconstruct(&arguments.organized, &arguments.output)?;
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "ioscout: rebuilt {} files under {}", written.len(), arguments.output.display());
    Ok(ExitCode::SUCCESS)
}
