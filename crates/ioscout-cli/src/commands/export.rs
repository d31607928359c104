//! `ioscout export`: events to a Parquet or Chrome trace-event file (through
//! `ioscout_service::query`, so the index prunes what the filter rules out), or a Darshan
//! log's DXT segments as events (`ioscout_service::segments`).

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context as _;
use ioscout_service::query::QueryRequest;
use ioscout_service::view::ViewFormat;

use crate::cli::{ExportArguments, ExportFormat};
use crate::common;

pub(crate) fn run(arguments: &ExportArguments) -> anyhow::Result<ExitCode> {
    let format = match arguments.format {
        ExportFormat::Parquet => ViewFormat::Parquet,
        ExportFormat::ChromeJson => ViewFormat::Chrome,
    };
    let request = QueryRequest {
        filter: arguments.filter.clone(),
        format: Some(format),
        no_index: arguments.no_index,
        aggregate: "count".into(),
        ..QueryRequest::default()
    };
    // Written beside the output and renamed into place, so a refused or failed export leaves
    // no file behind and an existing one untouched.
    let mut partial = arguments.output.clone().into_os_string();
    partial.push(".partial");
    let partial = std::path::PathBuf::from(partial);
    let file = std::fs::File::create(&partial).with_context(|| format!("creating {}", partial.display()))?;
    if let Some(logs) = ioscout_service::darshan_inputs(&arguments.input.paths)? {
        let report = match ioscout_service::segments::query(
            &logs,
            !arguments.input.strict,
            &request,
            Box::new(file),
        ) {
            Ok((report, _)) => report,
            Err(error) => {
                let _ = std::fs::remove_file(&partial);
                return Err(error.into());
            }
        };
        std::fs::rename(&partial, &arguments.output)
            .with_context(|| format!("renaming {} to {}", partial.display(), arguments.output.display()))?;
        let code = common::finish_segments(&report, arguments.input.quiet);
        if !arguments.input.quiet {
            let _ = writeln!(std::io::stderr().lock(), "ioscout: wrote {}", arguments.output.display());
        }
        return Ok(code);
    }
    let (input, bar) = common::service_input_with_progress(&arguments.input, "export");
    let report = match ioscout_service::query::query(&input, &request, Box::new(file)) {
        Ok(report) => report,
        Err(error) => {
            let _ = std::fs::remove_file(&partial);
            return Err(error.into());
        }
    };
    std::fs::rename(&partial, &arguments.output)
        .with_context(|| format!("renaming {} to {}", partial.display(), arguments.output.display()))?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if !arguments.input.quiet {
        let mut stderr = std::io::stderr().lock();
        for note in &report.notes {
            let _ = writeln!(stderr, "ioscout: {note}");
        }
        let _ = writeln!(stderr, "ioscout: wrote {}", arguments.output.display());
    }
    Ok(common::finish(&report.scan, &arguments.input))
}
