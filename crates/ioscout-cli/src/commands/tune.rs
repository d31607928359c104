//! `ioscout tune`: autotuning (`ioscout_tune`) with the mock surface or local processes.

use std::io::Write;
use std::process::ExitCode;

use ioscout_tune::executor::{Executor, Local, MockSurface};
use ioscout_tune::{TuneOptions, spec::Spec};

use crate::cli::TuneArguments;

pub(crate) fn run(arguments: &TuneArguments) -> anyhow::Result<ExitCode> {
    let spec = Spec::load(&arguments.spec)?;
    let kb = if arguments.no_kb {
        None
    } else {
        let default = || {
            let runs = spec
                .workload
                .as_ref()
                .map_or_else(|| "tune-runs".into(), |workload| workload.runs_dir.clone());
            spec.directory.join(runs).join("kb.jsonl")
        };
        let path = arguments.kb.clone().unwrap_or_else(default);
        if let Some(parent) = path.parent().filter(|parent| !parent.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)?;
        }
        Some(path)
    };
    let options = TuneOptions {
        strategy: arguments.strategy.clone(),
        budget: arguments.budget,
        seed: arguments.seed,
        subset: !arguments.no_subset,
        validate: !arguments.no_validate,
        kb,
    };
    let executor: &dyn Executor = if spec.objective.source == "mock" { &MockSurface } else { &Local };
    let report = ioscout_tune::tune(&spec, executor, &options)?;
    let mut stdout = std::io::stdout().lock();
    if arguments.json {
        serde_json::to_writer_pretty(&mut stdout, &report)?;
        writeln!(stdout)?;
    } else {
        write!(stdout, "{}", report.render())?;
    }
    Ok(if report.best.is_some() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
