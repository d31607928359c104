//! `ioscout advise`, `ioscout compare`, `ioscout kb record|lookup|render` and `ioscout runs
//! validate|reorganize`: the advice stage on the command line.

use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use ioscout_advise::compare::RunSummary;
use ioscout_advise::{Advice, Catalog, FsType, Measurements, artifacts, kb};
use ioscout_analysis::{AnalysisOptions, OverlapMode, ViewType};
use ioscout_darshan::{DarshanLog, ReadOptions};

use crate::cli::{AdviseArguments, CompareArguments, InputArguments, KbCommand, RunsCommand};
use crate::common;
use crate::table::Table;

/// A run to advise on or compare: a trace analysis or a Darshan log.
enum Run {
    Trace(Box<ioscout_analysis::Analysis>),
    Darshan(Box<DarshanLog>),
}

fn load(input: &InputArguments, preset: &str) -> anyhow::Result<Run> {
    if let Some(logs) = common::darshan_inputs(&input.paths)? {
        if logs.len() != 1 {
            anyhow::bail!("give one Darshan log (a run) at a time; got {}", logs.len());
        }
        let log = DarshanLog::open(&logs[0], ReadOptions { partial: !input.strict })?;
        return Ok(Run::Darshan(Box::new(log)));
    }
    let options = AnalysisOptions {
        preset: preset.to_string(),
        views: vec![ViewType::TimeRange, ViewType::FileName],
        overlap: OverlapMode::Exact,
        ..AnalysisOptions::default()
    };
    let (files, problems) = common::discover(input);
    if files.is_empty() {
        anyhow::bail!(
            "no trace files under {}",
            input.paths.iter().map(|path| common::display_path(path)).collect::<Vec<_>>().join(", ")
        );
    }
    let (scanner, bar) = common::scanner_with_progress(input, &files, "analyse");
    let (analysis, report) = ioscout_analysis::analyze(&scanner, &files, &problems, &options)?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let _ = common::finish(&report, input);
    Ok(Run::Trace(Box::new(analysis)))
}

fn input_of(path: &Path) -> InputArguments {
    InputArguments {
        paths: vec![path.to_path_buf()],
        strict: false,
        threads: 0,
        max_problems: 10,
        quiet: true,
    }
}

/// `ioscout advise`.
pub(crate) fn run(arguments: &AdviseArguments) -> anyhow::Result<ExitCode> {
    let catalog = Catalog::bundled()?;
    let user_fs = match &arguments.fs_type {
        Some(name) => Some(FsType::parse(name).with_context(|| {
            format!("unknown file-system type {name:?} (known: lustre, gpfs, beegfs, nfs, vast, daos, xfs, ext4, tmpfs, other)")
        })?),
        None => None,
    };
    let measurements = match load(&arguments.input, &arguments.preset)? {
        Run::Trace(analysis) => {
            Measurements::from_analysis(&analysis, ioscout_diagnose::Parameters::default())
        }
        Run::Darshan(log) => {
            Measurements::from_darshan(&log, ioscout_diagnose::darshan::DrishtiThresholds::default())
        }
    };
    let filesystem = ioscout_advise::filesystem::detect(&measurements.file_weights, user_fs);
    let mut measured = ioscout_advise::Measured::new();
    if let Some(path) = &arguments.kb {
        let (entries, skipped) = kb::read(path)?;
        warn_skipped(path, &skipped);
        for found in kb::lookup(&entries, arguments.system.as_deref(), arguments.workload.as_deref(), None) {
            if let Some(strategy) = &found.entry.input.strategy {
                measured.entry(strategy.clone()).or_insert((
                    found.entry.verdict.clone(),
                    found.entry.delta_pct,
                    found.entry.input.citation.clone(),
                ));
            }
        }
    }
    let metric = ioscout_diagnose::choose_metric(&measurements.findings).metric;
    let advice = ioscout_advise::advise(&catalog, measurements, filesystem, &measured);
    let written = match &arguments.run_dir {
        Some(directory) => Some(
            artifacts::write(directory, &advice, metric)
                .with_context(|| format!("writing artifacts under {}", directory.display()))?,
        ),
        None => None,
    };
    let mut stdout = std::io::stdout().lock();
    if arguments.json {
        let mut value = serde_json::to_value(&advice)?;
        value["metric_to_optimise"] = serde_json::json!(metric);
        if let Some(directory) = &written {
            value["artifacts"] = serde_json::json!(common::display_path(directory));
        }
        serde_json::to_writer_pretty(&mut stdout, &value)?;
        writeln!(stdout)?;
    } else {
        write!(stdout, "{}", render(&advice, metric))?;
        if let Some(directory) = &written {
            writeln!(stdout, "Artifacts: {}", common::display_path(directory))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn render(advice: &Advice, metric: &str) -> String {
    let measurements = &advice.measurements;
    let mut out = format!(
        "Run: {} ({:.3} s job, I/O on the critical path {:.1} %), file system {} ({}), metric to optimise: {metric}\n\n",
        measurements.source,
        measurements.job_time_s,
        measurements.share(measurements.io_time_s) * 100.0,
        advice.filesystem.fs_type.name(),
        advice.filesystem.source
    );
    let mut checklist =
        Table::new("Checklist (12 dimensions)", &["Dimension", "Verdict", "Reason"], &[false, false, false]);
    for item in &advice.checklist {
        checklist.row(vec![
            format!("{} {}", item.dimension, item.name),
            item.verdict.name().to_string(),
            item.reason.clone(),
        ]);
    }
    out.push_str(&checklist.render());
    out.push('\n');
    if advice.proposals.is_empty() {
        out.push_str("No proposals: no finding that a technique answers passed its gates.\n");
    } else {
        let mut table = Table::new(
            &format!("Proposals ({})", advice.proposals.len()),
            &["#", "Strategy", "Layer", "App Impact", "System Impact", "Weighted Score", "Answers"],
            &[true, false, false, true, true, true, false],
        );
        for proposal in &advice.proposals {
            table.row(vec![
                proposal.rank.to_string(),
                proposal.strategy.clone(),
                proposal.layer.clone(),
                format!("{:.2} %", proposal.app_impact_pct),
                format!("{:.2} %", proposal.system_impact_pct),
                format!("{:.2}", proposal.weighted_score),
                proposal.answers.join(", "),
            ]);
        }
        out.push_str(&table.render());
        out.push_str("\nChanges\n");
        for proposal in &advice.proposals {
            let _ = write!(
                out,
                "  #{} {} ({}, {:?})\n     change:   {}\n     rollback: {}\n     bound:    {}\n     cite:     {}, \"{}\", {} {} {}\n",
                proposal.rank,
                proposal.id,
                proposal.layer,
                proposal.privilege,
                proposal.change,
                proposal.rollback,
                proposal.basis,
                proposal.citation.authors,
                proposal.citation.title,
                proposal.citation.venue,
                proposal.citation.year.map(|year| year.to_string()).unwrap_or_default(),
                proposal.citation.url
            );
        }
    }
    if !advice.diagnostic_bounds.is_empty() {
        out.push_str("\nDiagnostic bounds (they change what the application does: never recommended)\n");
        for bound in &advice.diagnostic_bounds {
            let _ = writeln!(
                out,
                "  {}: up to {:.2} % of the run ({})",
                bound.strategy, bound.app_impact_pct, bound.basis
            );
        }
    }
    if !advice.rejected.is_empty() {
        out.push_str("\nNot proposed\n");
        for rejection in &advice.rejected {
            let _ = writeln!(out, "  {} [{}]: {}", rejection.id, rejection.gate, rejection.reason);
        }
    }
    out
}

fn summary_of(path: &Path, preset: &str) -> anyhow::Result<RunSummary> {
    Ok(match load(&input_of(path), preset)? {
        Run::Trace(analysis) => RunSummary::from_analysis(&analysis),
        Run::Darshan(log) => RunSummary::from_darshan(&log),
    })
}

/// `ioscout compare`.
pub(crate) fn compare(arguments: &CompareArguments) -> anyhow::Result<ExitCode> {
    let before = summary_of(&arguments.before, &arguments.preset)?;
    let after = summary_of(&arguments.after, &arguments.preset)?;
    let comparison = ioscout_advise::compare::compare(&before, &after);
    let mut stdout = std::io::stdout().lock();
    if arguments.json {
        serde_json::to_writer_pretty(&mut stdout, &comparison)?;
        writeln!(stdout)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut table = Table::new(
        "Per layer (before -> after)",
        &["Layer", "Time (s)", "Ops", "Size (MB)", "Bandwidth (MB/s)", "Overlap", "Speedup", "Work"],
        &[false, true, true, true, true, true, true, false],
    );
    let megabytes = |bytes: u64| bytes as f64 / 1e6;
    for layer in comparison.layers.iter().filter(|layer| layer.before.count + layer.after.count > 0) {
        let (b, a) = (&layer.before, &layer.after);
        table.row(vec![
            layer.name.clone(),
            format!("{:.3} -> {:.3}", b.time_s, a.time_s),
            format!("{} -> {}", b.count, a.count),
            format!("{:.1} -> {:.1}", megabytes(b.bytes), megabytes(a.bytes)),
            format!(
                "{} -> {}",
                b.bandwidth_bps.map_or("-".into(), |value| format!("{:.1}", value / 1e6)),
                a.bandwidth_bps.map_or("-".into(), |value| format!("{:.1}", value / 1e6))
            ),
            format!(
                "{} -> {}",
                b.overlap_pct.map_or("-".into(), |value| format!("{value:.0} %")),
                a.overlap_pct.map_or("-".into(), |value| format!("{value:.0} %"))
            ),
            layer.speedup.map_or("-".into(), |value| format!("{value:.2}x")),
            if layer.did_less { "LESS".into() } else { "same".into() },
        ]);
    }
    write!(stdout, "{}", table.render())?;
    writeln!(
        stdout,
        "\nJob time {:.3} s -> {:.3} s; {}",
        before.job_time_s, after.job_time_s, comparison.verdict
    )?;
    Ok(ExitCode::SUCCESS)
}

fn warn_skipped(path: &Path, skipped: &[(usize, String)]) {
    for (line, reason) in skipped {
        #[allow(clippy::print_stderr)]
        {
            eprintln!("warning: {}:{line}: skipped an unreadable entry ({reason})", path.display());
        }
    }
}

/// `ioscout kb`.
pub(crate) fn kb(command: &KbCommand) -> anyhow::Result<ExitCode> {
    let mut stdout = std::io::stdout().lock();
    match command {
        KbCommand::Record(arguments) => {
            let text = if arguments.entry == "-" {
                std::io::read_to_string(std::io::stdin())?
            } else {
                std::fs::read_to_string(&arguments.entry)
                    .with_context(|| format!("reading {}", arguments.entry))?
            };
            let input: kb::EntryInput = serde_json::from_str(&text)
                .context("the entry is not valid JSON for a knowledge-base entry")?;
            let ts = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |elapsed| elapsed.as_secs());
            let entry = kb::evaluate(input, ts)?;
            kb::append(&arguments.kb, &entry)?;
            if arguments.json {
                serde_json::to_writer_pretty(&mut stdout, &entry)?;
                writeln!(stdout)?;
            } else {
                let delta = entry.delta_pct.map_or_else(|| "-".to_string(), |delta| format!("{delta:+.1} %"));
                let guard = if entry.guard_triggered {
                    " (non-degradation guard: the application regressed)"
                } else {
                    ""
                };
                writeln!(stdout, "recorded: {} {delta}{guard}", entry.verdict)?;
            }
        }
        KbCommand::Lookup(arguments) => {
            let (entries, skipped) = kb::read(&arguments.kb)?;
            warn_skipped(&arguments.kb, &skipped);
            let found = kb::lookup(
                &entries,
                arguments.system.as_deref(),
                arguments.workload.as_deref(),
                arguments.software.as_deref(),
            );
            if arguments.json {
                serde_json::to_writer_pretty(&mut stdout, &found)?;
                writeln!(stdout)?;
            } else {
                let entries: Vec<kb::Entry> = found.into_iter().map(|found| found.entry).collect();
                write!(stdout, "{}", kb::render(&entries))?;
            }
        }
        KbCommand::Render(arguments) => {
            let (entries, skipped) = kb::read(&arguments.kb)?;
            warn_skipped(&arguments.kb, &skipped);
            write!(stdout, "{}", kb::render(&entries))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `ioscout runs`.
pub(crate) fn runs(command: &RunsCommand) -> anyhow::Result<ExitCode> {
    let mut stdout = std::io::stdout().lock();
    match command {
        RunsCommand::Validate(arguments) => {
            let problems = artifacts::validate(&arguments.directory);
            for problem in &problems {
                writeln!(stdout, "{problem}")?;
            }
            if problems.is_empty() {
                writeln!(stdout, "{}: clean", arguments.directory.display())?;
                return Ok(ExitCode::SUCCESS);
            }
            Ok(ExitCode::from(1))
        }
        RunsCommand::Reorganize(arguments) => {
            let moves: Vec<(PathBuf, PathBuf)> =
                artifacts::reorganize(&arguments.directory, arguments.dry_run)?;
            for (from, to) in &moves {
                writeln!(
                    stdout,
                    "{}{} -> {}",
                    if arguments.dry_run { "would move " } else { "" },
                    from.display(),
                    to.display()
                )?;
            }
            if moves.is_empty() {
                writeln!(stdout, "nothing to move")?;
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
