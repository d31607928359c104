//! `ioscout advise`, `ioscout compare`, `ioscout kb record|lookup|render` and `ioscout runs
//! validate|reorganize`: the advice stage on the command line (the work is
//! `ioscout_service::advise`).

use std::process::ExitCode;

use anyhow::Context as _;
use ioscout_service::advise::{AdviseRequest, KbLookupRequest};

use crate::cli::{AdviseArguments, CompareArguments, KbCommand, RunsCommand};
use crate::common;

/// `ioscout advise`.
pub(crate) fn run(arguments: &AdviseArguments) -> anyhow::Result<ExitCode> {
    let request = AdviseRequest {
        preset: arguments.preset,
        fs_type: arguments.fs_type.clone(),
        run_dir: arguments.run_dir.clone(),
        kb: arguments.kb.clone(),
        system: arguments.system.clone(),
        workload: arguments.workload.clone(),
        detector: arguments.detector,
        model: arguments.model.clone(),
    };
    let (input, bar) = common::service_input_with_progress(&arguments.input, "analyse");
    let outcome = ioscout_service::advise::advise(&input, &request)?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    // The exit code of the scan (2 when a named input could not be read), as every command.
    let code =
        outcome.report.as_ref().map_or(ExitCode::SUCCESS, |report| common::finish(report, &arguments.input));
    common::print(&outcome, arguments.json, arguments.input.quiet)?;
    Ok(code)
}

/// `ioscout compare`.
pub(crate) fn compare(arguments: &CompareArguments) -> anyhow::Result<ExitCode> {
    use ioscout_service::compare::{CompareOptions, CompareRequest, manifest, runs_of_arguments};
    let (mut runs, mut baseline) = match &arguments.manifest {
        Some(path) => manifest(path)?,
        None => (Vec::new(), None),
    };
    let mut named = runs_of_arguments(&arguments.runs)?;
    if !arguments.labels.is_empty() {
        anyhow::ensure!(
            arguments.labels.len() == named.len(),
            "--labels gives {} labels for {} runs named on the command line",
            arguments.labels.len(),
            named.len()
        );
        for (run, label) in named.iter_mut().zip(&arguments.labels) {
            run.label = Some(label.clone());
        }
    }
    runs.append(&mut named);
    if arguments.baseline.is_some() {
        baseline.clone_from(&arguments.baseline);
    }
    let options = CompareOptions {
        sort: arguments.sort,
        sort_layer: arguments.sort_layer.clone(),
        reverse: arguments.reverse,
        preset: arguments.preset,
    };
    let request = CompareRequest { runs, baseline, options };
    let compared = ioscout_service::compare::compare_runs(&request)?;
    if let Some(path) = &arguments.html {
        ioscout_service::compare::write_html(&compared, path)?;
    }
    if arguments.csv {
        for warning in &compared.outcome.warnings {
            #[allow(clippy::print_stderr)]
            {
                eprintln!("ioscout: warning: {warning}");
            }
        }
        let text = ioscout_service::compare::csv(&compared);
        std::io::Write::write_all(&mut std::io::stdout().lock(), text.as_bytes())?;
    } else {
        common::print(&compared.outcome, arguments.json, false)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `ioscout kb`.
pub(crate) fn kb(command: &KbCommand) -> anyhow::Result<ExitCode> {
    let (outcome, json) = match command {
        KbCommand::Record(arguments) => {
            let text = if arguments.entry == "-" {
                std::io::read_to_string(std::io::stdin())?
            } else {
                std::fs::read_to_string(&arguments.entry)
                    .with_context(|| format!("reading {}", arguments.entry))?
            };
            let entry: ioscout_service::advise::AgentEntry = serde_json::from_str(&text)
                .context("the entry is not a knowledge-base entry (`ioscout kb schema` prints the schema)")?;
            (ioscout_service::advise::kb_record(&arguments.kb, entry.into_entry()?)?, arguments.json)
        }
        KbCommand::Lookup(arguments) => {
            let request = KbLookupRequest {
                system: arguments.system.clone(),
                workload: arguments.workload.clone(),
                software: arguments.software.clone(),
                ..KbLookupRequest::default()
            };
            (ioscout_service::advise::kb_lookup(&arguments.kb, &request)?, arguments.json)
        }
        KbCommand::Render(arguments) => (ioscout_service::advise::kb_render(&arguments.kb, None)?, false),
        KbCommand::Schema => {
            // JSON, never fitted to the terminal's width.
            let schema = ioscout_service::advise::kb_entry_schema();
            (ioscout_service::Outcome::new(schema, String::new()), true)
        }
    };
    common::print(&outcome, json, false)?;
    Ok(ExitCode::SUCCESS)
}

/// `ioscout runs`.
pub(crate) fn runs(command: &RunsCommand) -> anyhow::Result<ExitCode> {
    let outcome = match command {
        RunsCommand::Validate(arguments) => ioscout_service::advise::runs_validate(&arguments.directory),
        RunsCommand::Reorganize(arguments) => {
            ioscout_service::advise::runs_reorganize(&arguments.directory, arguments.dry_run)?
        }
    };
    common::print(&outcome, false, false)?;
    Ok(if outcome.flagged { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
