//! `optimize`: the optimisation pipeline's loop in one command (the command line and the MCP
//! `optimize` tool alike). From a spec (`ioscout tune`'s, with an `[optimize]` section): make the
//! input data, get the baseline's evidence (its traces, or one run under DFTracer's preload
//! library), diagnose and advise, turn every proposal the spec can express into a variant (a
//! parameter that `implements` strategies, or a `[[optimize.variant]]`: a command, environment
//! variables), measure each against the baseline in alternated pairs
//! ([`ioscout_tune::optimize`]), record every measurement in the knowledge base, and rank the
//! proposals again by what was measured: wins first, by measured App Impact; a regression last,
//! its measurement quoted. Variants of strategies the advice did not propose are measured too,
//! so a fix the advice missed shows.

use std::path::{Path, PathBuf};

use ioscout_advise::{Advice, Proposal, kb};
use ioscout_diagnose::darshan::{DarshanContext, DarshanFacts, DrishtiThresholds, Module};
use ioscout_tune::executor::{Executor, Local, MockSurface};
use ioscout_tune::optimize::{Candidate, MeasuredVerdict, Paired, RankedVerdict, candidates, measure};
use ioscout_tune::spec::Spec;

use crate::advise::{AdviseRequest, Computed};
use crate::{Input, Outcome, Result, ServiceError};

/// What to optimise.
#[derive(Clone, Debug, Default)]
pub struct OptimizeRequest {
    /// The TOML spec (with `[optimize]`).
    pub spec: PathBuf,
    /// The knowledge base (default: `kb.jsonl` in the spec's runs directory).
    pub kb: Option<PathBuf>,
    /// Record nothing in a knowledge base.
    pub no_kb: bool,
    /// Pairs per variant, overriding the spec's.
    pub pairs: Option<u32>,
    /// File system, overriding detection.
    pub fs_type: Option<String>,
    /// DFTracer's `LD_PRELOAD` library: trace the baseline once on this machine instead of using
    /// the spec's `traces` (the report then says what tracing added).
    pub preload: Option<PathBuf>,
}

pub use ioscout_tune::optimize::{Measured, OptimizeReport, Ranked, TracerOverhead};

fn bad(error: &dyn std::fmt::Display) -> ServiceError {
    ServiceError::BadRequest(error.to_string())
}

/// `{work_dir}` replaced in every command of the spec.
fn with_work_dir(spec: &mut Spec, work_dir: &Path) {
    let work = work_dir.display().to_string();
    let replace = |parts: &mut Vec<String>| {
        for part in parts.iter_mut() {
            *part = part.replace("{work_dir}", &work);
        }
    };
    if let Some(workload) = spec.workload.as_mut() {
        replace(&mut workload.command);
    }
    if let Some(optimize) = spec.optimize.as_mut() {
        if let Some(prepare) = optimize.prepare.as_mut() {
            replace(prepare);
        }
        for variant in &mut optimize.variants {
            if let Some(command) = variant.command.as_mut() {
                replace(command);
            }
        }
    }
}

/// Runs `command` once in `directory` (the input data), failing on a non-zero exit.
fn prepare(command: &[String], directory: &Path) -> Result<()> {
    let Some((program, arguments)) = command.split_first() else { return Ok(()) };
    let status = std::process::Command::new(program)
        .args(arguments)
        .current_dir(directory)
        .status()
        .map_err(|error| ServiceError::BadRequest(format!("optimize.prepare: {program}: {error}")))?;
    if status.success() {
        Ok(())
    } else {
        Err(ServiceError::BadRequest(format!("optimize.prepare: {program} exited with {status}")))
    }
}

/// The baseline's traces: the spec's, or one run of the baseline under DFTracer's preload library
/// (`preload` given to the request first, then the spec's `traces`, then its `preload`), with the
/// wall time of that traced run.
fn evidence(
    spec: &Spec,
    work_dir: &Path,
    executor: &dyn Executor,
    preload: Option<&Path>,
) -> Result<(PathBuf, Option<f64>)> {
    let Some(optimize) = &spec.optimize else { return Err(bad(&"no [optimize] section")) };
    if let (None, Some(traces)) = (preload, &optimize.traces) {
        let traces = spec.directory.join(traces);
        return Ok((traces.canonicalize().unwrap_or(traces), None));
    }
    let Some(preload) = preload
        .map(Path::to_path_buf)
        .or_else(|| optimize.preload.as_ref().map(|path| spec.directory.join(path)))
    else {
        return Err(bad(
            &"[optimize] needs `traces` (the baseline's DFTracer traces) or `preload` (DFTracer's LD_PRELOAD library, to trace the baseline once)",
        ));
    };
    let traces = work_dir.join("baseline-trace");
    let _ = std::fs::remove_dir_all(&traces);
    std::fs::create_dir_all(&traces).map_err(|error| ServiceError::io(&traces, error))?;
    let mut traced = spec.clone();
    if let Some(workload) = traced.workload.as_mut() {
        let variables = [
            ("LD_PRELOAD", preload.display().to_string()),
            ("DFTRACER_ENABLE", "1".into()),
            ("DFTRACER_INIT", "PRELOAD".into()),
            ("DFTRACER_INC_METADATA", "1".into()),
            ("DFTRACER_DATA_DIR", "all".into()),
            ("DFTRACER_TRACE_COMPRESSION", "1".into()),
            ("DFTRACER_LOG_FILE", traces.join("trace").display().to_string()),
        ];
        match traced_launch(&workload.command, &variables) {
            Some(command) => workload.command = command,
            None => {
                for (name, value) in variables {
                    workload.environment.insert(name.into(), value);
                }
            }
        }
    }
    let evaluation = executor.evaluate(&traced, &ioscout_tune::optimize::baseline_params(spec), None, 0);
    if evaluation.status != ioscout_tune::executor::Status::Ok {
        return Err(bad(&format!("the traced baseline run failed: {}", evaluation.message)));
    }
    Ok((traces, Some(evaluation.seconds)))
}

/// Open MPI's launchers: their ranks get the tracer's variables by `-x NAME=VALUE`, and the
/// launcher itself is not traced (a traced launcher is one more process in the trace, so a file
/// every rank shares is no longer shared by every process, and Darshan's reduced record of it
/// is not made).
const OPEN_MPI_LAUNCHERS: [&str; 3] = ["mpirun", "orterun", "prterun"];

/// `command` with the tracer's `variables` passed to the ranks of an Open MPI launch, or `None`
/// when the command is not one (the variables then go in the environment).
fn traced_launch(command: &[String], variables: &[(&str, String)]) -> Option<Vec<String>> {
    let launcher = Path::new(command.first()?).file_name()?.to_str()?;
    if !OPEN_MPI_LAUNCHERS.contains(&launcher) {
        return None;
    }
    let mut traced = vec![command[0].clone()];
    for (name, value) in variables {
        traced.push("-x".into());
        traced.push(format!("{name}={value}"));
    }
    traced.extend(command[1..].iter().cloned());
    Some(traced)
}

/// The ROMIO hints of the strategies ioscout can apply itself, by strategy id: a hints file
/// (named by `ROMIO_HINTS`) under Open MPI's ROMIO component (`OMPI_MCA_io=romio321`; MPICH uses
/// ROMIO already and ignores the variable).
const ROMIO_HINTS: [(&str, &str); 2] = [
    (
        "l2-romio-data-sieving",
        "romio_ds_read enable\nromio_ds_write enable\nind_rd_buffer_size 4194304\nind_wr_buffer_size 4194304\n",
    ),
    (
        "l2-romio-collective-buffering",
        "romio_cb_read enable\nromio_cb_write enable\ncb_buffer_size 67108864\n",
    ),
];

/// The variants ioscout makes itself for the proposals that are environment changes (ROMIO
/// hints) and that no variant of the spec implements: each a hints file in the work directory.
fn automatic(advice: &Advice, given: &[Candidate], work_dir: &Path) -> Result<Vec<Candidate>> {
    let mut made = Vec::new();
    for proposal in &advice.proposals {
        let Some((_, hints)) = ROMIO_HINTS.iter().find(|(id, _)| *id == proposal.id) else { continue };
        if given.iter().any(|candidate| candidate.implements.contains(&proposal.id)) {
            continue;
        }
        let path = work_dir.join(format!("{}.hints", proposal.id));
        std::fs::write(&path, hints).map_err(|error| ServiceError::io(&path, error))?;
        made.push(Candidate {
            name: format!("{} (ROMIO hints file, applied by ioscout)", proposal.id),
            implements: vec![proposal.id.clone()],
            command: None,
            environment: std::collections::BTreeMap::from([
                ("ROMIO_HINTS".to_string(), path.display().to_string()),
                ("OMPI_MCA_io".to_string(), "romio321".to_string()),
            ]),
            params: std::collections::BTreeMap::new(),
        });
    }
    Ok(made)
}

/// The knowledge-base entry of one measurement.
fn entry(
    catalog: &ioscout_advise::Catalog,
    spec: &Spec,
    candidate: &Candidate,
    proposal: Option<&Proposal>,
    measurement: &Paired,
    strategy: &str,
) -> std::result::Result<kb::EntryInput, kb::KbError> {
    let before =
        ioscout_tune::optimize::median(&measurement.pairs.iter().map(|pair| pair.0).collect::<Vec<_>>());
    let after =
        ioscout_tune::optimize::median(&measurement.pairs.iter().map(|pair| pair.1).collect::<Vec<_>>());
    let interval = measurement.interval.map_or_else(
        || "no interval".to_string(),
        |(low, high, confidence)| format!("{low:.2}x-{high:.2}x at {:.1} %", confidence * 100.0),
    );
    let layer = proposal
        .map_or_else(|| strategy_layer(catalog, strategy), |proposal| proposal.layer.clone())
        .parse::<kb::Layer>()?;
    Ok(kb::EntryInput {
        system: spec.system.clone(),
        workload: spec.name.clone(),
        higher_is_better: spec.maximize(),
        citation: proposal.map(|proposal| proposal.citation.title.clone()).unwrap_or_default(),
        caveats: format!(
            "ioscout optimize: median of {} alternated pairs, speedup {}, interval {interval}: {}",
            measurement.ratios.len(),
            measurement.median.map_or_else(|| "-".to_string(), |median| format!("{median:.2}x")),
            measurement.verdict.name()
        ),
        strategy: Some(strategy.to_string()),
        bottleneck: proposal.map(|proposal| proposal.answers.join(",")).unwrap_or_default(),
        ..kb::EntryInput::measured(
            layer,
            spec.objective.metric.clone(),
            before.unwrap_or(0.0),
            after.unwrap_or(0.0),
            candidate.name.clone(),
        )
    })
}

fn strategy_layer(catalog: &ioscout_advise::Catalog, id: &str) -> String {
    catalog
        .strategies
        .iter()
        .find(|strategy| strategy.id == id)
        .map_or_else(|| "L1".to_string(), |strategy| strategy.layer.clone())
}

/// Runs the loop of `request.spec`.
pub fn optimize(request: &OptimizeRequest) -> Result<Outcome> {
    let mut spec = Spec::load(&request.spec).map_err(|error| bad(&error))?;
    let Some(options) = spec.optimize.clone() else {
        return Err(bad(&format!("{}: no [optimize] section", request.spec.display())));
    };
    let pairs = request.pairs.unwrap_or(options.pairs);
    if pairs < 5 {
        return Err(bad(&format!("{pairs} pairs: at least 5 make a measurement")));
    }
    let work_dir = work_dir_of(&mut spec)?;
    let executor: &dyn Executor = if spec.objective.source == "mock" { &MockSurface } else { &Local };
    let (traces, traced_wall_s) = evidence(&spec, &work_dir, executor, request.preload.as_deref())?;
    let kb_path = if request.no_kb {
        None
    } else {
        Some(request.kb.clone().unwrap_or_else(|| work_dir.join("kb.jsonl")))
    };
    let advise_request = AdviseRequest {
        fs_type: request.fs_type.clone(),
        system: Some(spec.system.clone()),
        workload: Some(spec.name.clone()),
        kb: kb_path.clone().filter(|path| path.exists()),
        ..AdviseRequest::default()
    };
    let Computed { advice, metric, report, mut warnings } =
        crate::advise::compute(&Input::of(vec![traces.clone()]), &advise_request)?;
    let catalog = ioscout_advise::Catalog::bundled()?;
    // Measure: the variants of each proposal in the advice's order, then the rest.
    let mut next_run = 0;
    let mut measured: Vec<Measured> = Vec::new();
    let mut kb_entries = Vec::new();
    let mut all = candidates(&spec);
    if spec.optimize.as_ref().is_some_and(|optimize| optimize.automatic) {
        all.extend(automatic(&advice, &all, &work_dir)?);
    }
    let order = measurement_order(&advice, &all);
    for (candidate, proposal) in order {
        let measurement = measure(&spec, executor, candidate, pairs, &mut next_run);
        let strategy = proposal.map_or_else(
            || candidate.implements.first().cloned().unwrap_or_default(),
            |proposal| proposal.id.clone(),
        );
        kb_entries.push(entry(&catalog, &spec, candidate, proposal, &measurement, &strategy));
        measured.push(Measured {
            variant: candidate.name.clone(),
            implements: candidate.implements.clone(),
            proposal: proposal.map(|proposal| proposal.id.clone()),
            measurement,
        });
    }
    if let Some(path) = &kb_path {
        record_in_kb(path, kb_entries, &mut warnings)?;
    }
    let ranked = rank(&advice, &measured);
    let missed_wins = measured
        .iter()
        .filter(|found| found.proposal.is_none() && found.measurement.verdict == MeasuredVerdict::Win)
        .map(|found| format!("{} ({})", found.variant, found.implements.join(", ")))
        .collect();
    // The advice again with what was measured: the dimensions measured are `applied_measured`
    // with their effect, and a measured regression is ranked last.
    let measured_by_strategy = measured_by_strategy(&advice, &measured);
    // The busiest process's events, counted only when the baseline was traced here.
    let events = match (traced_wall_s, &advice.measurements.facts) {
        (Some(_), Some(facts)) => busiest_process_events(facts),
        _ => 0,
    };
    let tracer = tracer_overhead(&spec.objective.source, traced_wall_s, events, &measured);
    let advice = ioscout_advise::advise(
        &catalog,
        advice.measurements.clone(),
        advice.filesystem.clone(),
        &measured_by_strategy,
    );
    let artifacts = ioscout_advise::artifacts::write(&work_dir, &advice, metric)
        .map_err(|error| ServiceError::io(&work_dir, error))?;
    let result = OptimizeReport {
        spec: request.spec.clone(),
        work_dir,
        evidence: traces,
        pairs,
        noise_margin: spec.objective.noise_margin,
        advice,
        measured,
        ranked,
        tracer,
        missed_wins,
        kb: kb_path,
        artifacts: Some(artifacts.clone()),
    };
    let value =
        serde_json::to_value(&result).map_err(|error| ServiceError::output("the optimize report", error))?;
    let written = artifacts.join("opt_measured.json");
    std::fs::write(&written, format!("{value:#}\n")).map_err(|error| ServiceError::io(&written, error))?;
    let text = ioscout_render::optimize::text(&result);
    let flagged = !result.ranked.iter().any(|ranked| ranked.verdict == RankedVerdict::Win);
    Ok(Outcome { value, text, report, flagged, warnings })
}

/// The spec's work directory for the loop (`<runs_dir>/optimize`, created), set as the runs'
/// directory, with the spec's `prepare` command run in it.
fn work_dir_of(spec: &mut Spec) -> Result<PathBuf> {
    let runs = spec
        .workload
        .as_ref()
        .map_or_else(|| PathBuf::from("tune-runs"), |workload| workload.runs_dir.clone());
    let work_dir = spec.directory.join(runs).join("optimize");
    std::fs::create_dir_all(&work_dir).map_err(|error| ServiceError::io(&work_dir, error))?;
    let work_dir = work_dir.canonicalize().unwrap_or(work_dir);
    with_work_dir(spec, &work_dir);
    if let Some(command) = spec.optimize.as_ref().and_then(|optimize| optimize.prepare.clone()) {
        let spec_dir = spec.directory.canonicalize().unwrap_or_else(|_| spec.directory.clone());
        let command: Vec<String> =
            command.iter().map(|part| part.replace("{spec_dir}", &spec_dir.display().to_string())).collect();
        prepare(&command, &work_dir)?;
    }
    Ok(work_dir)
}

/// The order candidates are measured in: those implementing each proposal, in the advice's
/// order, then the rest.
fn measurement_order<'a>(
    advice: &'a Advice,
    all: &'a [Candidate],
) -> Vec<(&'a Candidate, Option<&'a Proposal>)> {
    let mut order: Vec<(&Candidate, Option<&Proposal>)> = Vec::new();
    for proposal in &advice.proposals {
        for candidate in all.iter().filter(|candidate| candidate.implements.contains(&proposal.id)) {
            if !order.iter().any(|(done, _)| std::ptr::eq(*done, candidate)) {
                order.push((candidate, Some(proposal)));
            }
        }
    }
    for candidate in all {
        if !order.iter().any(|(done, _)| std::ptr::eq(*done, candidate)) {
            order.push((candidate, None));
        }
    }
    order
}

/// Appends the measurements to the knowledge base at `path`; an entry it refuses is a warning.
fn record_in_kb(
    path: &std::path::Path,
    kb_entries: Vec<std::result::Result<kb::EntryInput, kb::KbError>>,
    warnings: &mut Vec<String>,
) -> Result<()> {
    let ts = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    for input in kb_entries {
        match input.and_then(|input| kb::evaluate(input, ts)) {
            Ok(entry) => kb::append(path, &entry).map_err(|error| bad(&error))?,
            Err(error) => warnings.push(format!("knowledge base: {error}")),
        }
    }
    Ok(())
}

/// What was measured, by strategy, as the advice takes it from the knowledge base: the verdict,
/// the measured App Impact and the proposal's citation.
fn measured_by_strategy(advice: &Advice, measured: &[Measured]) -> ioscout_advise::Measured {
    let mut measured_by_strategy = ioscout_advise::Measured::new();
    for found in measured {
        let Some(strategy) = found.proposal.clone().or_else(|| found.implements.first().cloned()) else {
            continue;
        };
        let measurement = &found.measurement;
        let effect = measurement.measured_impact_pct;
        let citation = advice
            .proposals
            .iter()
            .find(|proposal| proposal.id == strategy)
            .map(|proposal| proposal.citation.title.clone())
            .unwrap_or_default();
        let outcome = match measurement.verdict {
            MeasuredVerdict::Win => ioscout_advise::Outcome::Win,
            MeasuredVerdict::NoChange => ioscout_advise::Outcome::NoChange,
            MeasuredVerdict::Regression => ioscout_advise::Outcome::Regression,
            MeasuredVerdict::NotMeasured => ioscout_advise::Outcome::NotMeasured,
        };
        measured_by_strategy.entry(strategy).or_insert(ioscout_advise::Prior {
            outcome,
            delta_pct: effect,
            citation,
        });
    }
    measured_by_strategy
}

/// What tracing cost the baseline: its traced run's wall time against the median of its untraced
/// runs in the pairs, when the objective is the wall time and the baseline was traced here (the
/// spec's committed traces come from another run, often at another scale).
fn tracer_overhead(
    objective_source: &str,
    traced_wall_s: Option<f64>,
    events: u64,
    measured: &[Measured],
) -> Option<TracerOverhead> {
    let traced_wall_s = traced_wall_s?;
    if objective_source != "wall_time" {
        return None;
    }
    let baselines: Vec<f64> = measured
        .iter()
        .flat_map(|found| found.measurement.pairs.iter().map(|(baseline, _)| *baseline))
        .filter(|seconds| seconds.is_finite() && *seconds > 0.0)
        .collect();
    let median = ioscout_tune::optimize::median(&baselines)?;
    Some(TracerOverhead::new(traced_wall_s, median, events))
}

/// The calls of the process with the most: POSIX and STDIO reads, writes, opens (and a close for
/// each), stats, seeks, syncs and flushes, by rank.
fn busiest_process_events(facts: &DarshanFacts) -> u64 {
    use ioscout_darshan::counters::{self, Counter};
    let context = DarshanContext::new(facts, DrishtiThresholds::default());
    let mut by_rank: std::collections::BTreeMap<i64, i64> = std::collections::BTreeMap::new();
    let counted: [(Module, &[(Counter, i64)]); 2] = [
        (
            Module::Posix,
            &[
                (counters::POSIX_READS, 1),
                (counters::POSIX_WRITES, 1),
                (counters::POSIX_OPENS, 2),
                (counters::POSIX_STATS, 1),
                (counters::POSIX_SEEKS, 1),
                (counters::POSIX_FSYNCS, 1),
                (counters::POSIX_FDSYNCS, 1),
            ],
        ),
        (
            Module::Stdio,
            &[
                (counters::STDIO_READS, 1),
                (counters::STDIO_WRITES, 1),
                (counters::STDIO_OPENS, 2),
                (counters::STDIO_SEEKS, 1),
                (counters::STDIO_FLUSHES, 1),
            ],
        ),
    ];
    for (module, names) in counted {
        for record in context.records(module) {
            let calls = names
                .iter()
                .map(|(counter, each)| context.value(record, *counter).max(0).saturating_mul(*each))
                .fold(0_i64, i64::saturating_add);
            let entry = by_rank.entry(record.rank).or_default();
            *entry = entry.saturating_add(calls);
        }
    }
    by_rank.into_values().max().unwrap_or(0).max(0) as u64
}

/// The proposals ranked by what was measured: wins by measured App Impact, then those not
/// measured (by predicted App Impact), then no change, then regressions.
fn rank(advice: &Advice, measured: &[Measured]) -> Vec<Ranked> {
    let mut ranked: Vec<Ranked> = advice
        .proposals
        .iter()
        .map(|proposal| {
            let best = measured
                .iter()
                .filter(|found| found.proposal.as_deref() == Some(proposal.id.as_str()))
                .max_by(|a, b| {
                    let key = |found: &Measured| found.measurement.median.unwrap_or(0.0);
                    key(a).total_cmp(&key(b))
                });
            let verdict =
                best.map_or(RankedVerdict::NotExpressible, |found| found.measurement.verdict.into());
            Ranked {
                rank: 0,
                advised_rank: proposal.rank,
                id: proposal.id.clone(),
                strategy: proposal.strategy.clone(),
                predicted_impact_pct: proposal.app_impact_pct,
                measured_impact_pct: best.and_then(|found| found.measurement.measured_impact_pct),
                speedup: best.and_then(|found| found.measurement.median),
                interval: best.and_then(|found| found.measurement.interval),
                verdict,
                variant: best.map(|found| found.variant.clone()),
            }
        })
        .collect();
    ranked.sort_by(|a, b| {
        a.verdict.class().cmp(&b.verdict.class()).then_with(|| {
            let impact = |ranked: &Ranked| ranked.measured_impact_pct.unwrap_or(ranked.predicted_impact_pct);
            impact(b).total_cmp(&impact(a))
        })
    });
    for (index, ranked) in ranked.iter_mut().enumerate() {
        ranked.rank = index + 1;
    }
    ranked
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(pairs: Vec<(f64, f64)>) -> Measured {
        Measured {
            variant: "fix".into(),
            implements: vec!["l1-buffer-small-writes".into()],
            proposal: None,
            measurement: ioscout_tune::optimize::paired(pairs, false, 0.03, Vec::new()),
        }
    }

    #[test]
    fn an_open_mpi_launch_passes_the_tracer_to_its_ranks_and_is_not_traced_itself() {
        let variables = [("LD_PRELOAD", "/lib/preload.so".to_string()), ("DFTRACER_ENABLE", "1".to_string())];
        let command: Vec<String> =
            ["/usr/bin/mpirun", "-n", "2", "python3", "job.py"].iter().map(ToString::to_string).collect();
        assert_eq!(
            traced_launch(&command, &variables),
            Some(
                [
                    "/usr/bin/mpirun",
                    "-x",
                    "LD_PRELOAD=/lib/preload.so",
                    "-x",
                    "DFTRACER_ENABLE=1",
                    "-n",
                    "2",
                    "python3",
                    "job.py"
                ]
                .iter()
                .map(ToString::to_string)
                .collect()
            )
        );
        let plain: Vec<String> = ["python3", "job.py"].iter().map(ToString::to_string).collect();
        assert_eq!(traced_launch(&plain, &variables), None);
        assert_eq!(traced_launch(&[], &variables), None);
    }

    #[test]
    fn the_tracer_overhead_is_the_traced_run_against_the_median_untraced_baseline() {
        // Baselines of two variants: 1.0, 1.2, 0.9, 1.1, 1.0 (median 1.0); the traced run 1.5 s.
        let runs =
            [measured(vec![(1.0, 0.5), (1.2, 0.6), (0.9, 0.5)]), measured(vec![(1.1, 1.0), (1.0, 1.0)])];
        let overhead = tracer_overhead("wall_time", Some(1.5), 100_000, &runs)
            .unwrap_or_else(|| panic!("no overhead measured"));
        assert!((overhead.untraced_wall_s - 1.0).abs() < 1e-12, "{overhead:?}");
        assert!((overhead.added_pct - 50.0).abs() < 1e-9, "{overhead:?}");
        assert!((overhead.per_event_s - 5e-6).abs() < 1e-15, "{overhead:?}");
        // A traced run faster than the untraced ones is noise: nothing added per event.
        let faster = tracer_overhead("wall_time", Some(0.8), 100_000, &runs)
            .unwrap_or_else(|| panic!("no overhead measured"));
        assert!(faster.added_pct < 0.0 && faster.per_event_s == 0.0, "{faster:?}");
        // Not traced here, or an objective that is not the wall time: nothing to compare.
        assert_eq!(tracer_overhead("wall_time", None, 100_000, &runs), None);
        assert_eq!(tracer_overhead("mock", Some(1.5), 100_000, &runs), None);
    }
}
