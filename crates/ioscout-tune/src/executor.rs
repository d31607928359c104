//! Executors: run one configuration and measure it. [`Local`] runs the workload as a child
//! process in its own process group and working directory, with a clean environment, its output
//! captured to files, and a time limit after which the whole group is killed and reaped.
//! [`MockSurface`] evaluates the spec's synthetic response surface, for deterministic tests of
//! the search strategies.

use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

use crate::spec::{Spec, render};

/// How an evaluation ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Measured.
    Ok,
    /// Exited with an error, or its output could not be read as the objective.
    Failed,
    /// Killed at the time limit.
    TimedOut,
}

/// One measured run.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Evaluation {
    /// The objective's raw value (not oriented).
    pub value: Option<f64>,
    /// How it ended.
    pub status: Status,
    /// Wall seconds.
    pub seconds: f64,
    /// What went wrong, or a note.
    pub message: String,
    /// Where it ran.
    pub run_dir: Option<PathBuf>,
    /// Per-layer shares of the job (and `overlap`), from its trace when it left one: what
    /// subset fidelity compares.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shares: Option<BTreeMap<String, f64>>,
}

impl Evaluation {
    fn failed(status: Status, seconds: f64, message: String, run_dir: Option<PathBuf>) -> Evaluation {
        Evaluation { value: None, status, seconds, message, run_dir, shares: None }
    }
}

/// Runs configurations.
pub trait Executor {
    /// Evaluates `params` (name → value) at subset size `size` (when the spec has a subset knob);
    /// `run` numbers the evaluation.
    fn evaluate(
        &self,
        spec: &Spec,
        params: &BTreeMap<String, Value>,
        size: Option<u64>,
        run: u64,
    ) -> Evaluation;
}

/// The synthetic surface of `[mock]`.
#[derive(Clone, Copy, Debug, Default)]
pub struct MockSurface;

impl Executor for MockSurface {
    fn evaluate(
        &self,
        spec: &Spec,
        params: &BTreeMap<String, Value>,
        size: Option<u64>,
        _run: u64,
    ) -> Evaluation {
        let Some(mock) = &spec.mock else {
            return Evaluation::failed(Status::Failed, 0.0, "no [mock] surface".into(), None);
        };
        let position = |name: &str| {
            let parameter = spec.parameter(name)?;
            let value = params.get(name)?;
            parameter.values.iter().position(|candidate| candidate == value)
        };
        for (name, failing) in &mock.failures {
            if params.get(name) == Some(failing) {
                return Evaluation::failed(
                    Status::Failed,
                    mock.seconds,
                    format!("{name}={} crashes the workload", render(failing)),
                    None,
                );
            }
        }
        let mut value = mock.base;
        for (name, effects) in &mock.effects {
            value += position(name).and_then(|index| effects.get(index)).copied().unwrap_or(0.0);
        }
        for interaction in &mock.interactions {
            if let (Some(row), Some(column)) = (position(&interaction.first), position(&interaction.second)) {
                value +=
                    interaction.table.get(row).and_then(|cells| cells.get(column)).copied().unwrap_or(0.0);
            }
        }
        if let (Some(size), Some(subset)) = (size, &spec.subset) {
            value *= 1.0 + mock.scale_bias * (1.0 - size as f64 / subset.full as f64);
        }
        Evaluation {
            value: Some(value),
            status: Status::Ok,
            seconds: mock.seconds,
            message: String::new(),
            run_dir: None,
            shares: None,
        }
    }
}

/// Local processes.
#[derive(Clone, Debug, Default)]
pub struct Local;

/// The environment every run gets from the tuner's (the rest is not passed on).
const BASE_ENVIRONMENT: [&str; 6] = ["PATH", "HOME", "LANG", "TMPDIR", "USER", "LD_LIBRARY_PATH"];

fn substitute(template: &str, values: &BTreeMap<String, String>) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        match after.find('}') {
            Some(end) if values.contains_key(&after[..end]) => {
                out.push_str(&values[&after[..end]]);
                rest = &after[end + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Runs `command` in `directory` with `environment`, output to `name`.stdout/.stderr there,
/// killing its process group at `limit`.
fn run_command(
    command: &[String],
    directory: &Path,
    environment: &BTreeMap<String, String>,
    limit: Duration,
    name: &str,
) -> Result<(), (Status, String)> {
    use std::os::unix::process::CommandExt as _;
    let Some((program, arguments)) = command.split_first() else {
        return Err((Status::Failed, "empty command".into()));
    };
    let open = |suffix: &str| {
        std::fs::File::create(directory.join(format!("{name}.{suffix}")))
            .map_err(|error| (Status::Failed, format!("creating the {suffix} file: {error}")))
    };
    let mut child = Command::new(program)
        .args(arguments)
        .current_dir(directory)
        .env_clear()
        .envs(environment)
        .stdin(Stdio::null())
        .stdout(open("stdout")?)
        .stderr(open("stderr")?)
        .process_group(0)
        .spawn()
        .map_err(|error| (Status::Failed, format!("{program}: {error}")))?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(status)) => {
                let mut tail = String::new();
                if let Ok(mut file) = std::fs::File::open(directory.join(format!("{name}.stderr"))) {
                    let _ = file.read_to_string(&mut tail);
                }
                let tail: String = tail
                    .lines()
                    .rev()
                    .take(3)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect::<Vec<_>>()
                    .join(" | ");
                return Err((Status::Failed, format!("{program} exited with {status}: {tail}")));
            }
            Ok(None) if started.elapsed() >= limit => {
                if let Ok(pid) = i32::try_from(child.id()) {
                    let _ = nix::sys::signal::killpg(
                        nix::unistd::Pid::from_raw(pid),
                        nix::sys::signal::Signal::SIGKILL,
                    );
                }
                let _ = child.kill();
                let _ = child.wait();
                return Err((
                    Status::TimedOut,
                    format!("killed after {:.0} s (time limit)", limit.as_secs_f64()),
                ));
            }
            // Poll often at first, then at 2 % of the time so far (up to 20 ms): the run's wall
            // time is read to within that.
            Ok(None) => std::thread::sleep(
                (started.elapsed() / 50).clamp(Duration::from_millis(1), Duration::from_millis(20)),
            ),
            Err(error) => return Err((Status::Failed, format!("waiting for {program}: {error}"))),
        }
    }
}

/// A number at `path` (dot-separated keys) in `value`; a list of numbers gives its mean.
pub fn json_number(value: &Value, path: &str) -> Option<f64> {
    let mut current = value;
    for key in path.split('.') {
        current = current.get(key)?;
    }
    match current {
        Value::Number(number) => number.as_f64(),
        Value::Array(items) => {
            let numbers: Vec<f64> = items.iter().filter_map(Value::as_f64).collect();
            (!numbers.is_empty() && numbers.len() == items.len())
                .then(|| numbers.iter().sum::<f64>() / numbers.len() as f64)
        }
        Value::String(text) => text.trim().parse().ok(),
        _ => None,
    }
}

/// The trace metric `metric` of the traces under `directory`, and the layer shares of the job.
pub fn trace_metric(directory: &Path, metric: &str) -> Result<(f64, BTreeMap<String, f64>), String> {
    let (files, problems) = ioscout_read::discover(&[directory]);
    if files.is_empty() {
        return Err(format!("no traces under {}", directory.display()));
    }
    let scanner = ioscout_read::Scanner::new(ioscout_read::ScanOptions::default());
    let options = ioscout_analysis::AnalysisOptions::default();
    let (analysis, _) = ioscout_analysis::analyze(&scanner, &files, &problems, &options)
        .map_err(|error| error.to_string())?;
    let job = analysis.raw.job_time_s;
    let mut shares = BTreeMap::new();
    let mut io_time = 0.0;
    let mut unoverlapped = 0.0;
    let mut bytes = 0.0;
    for line in analysis.summary().iter().filter(|line| line.count > 0) {
        if job > 0.0 {
            shares.insert(line.layer.clone(), line.time_s / job);
        }
        if line.layer == "posix" {
            io_time = line.time_s;
            unoverlapped = line.u_time_s.unwrap_or(line.time_s);
            bytes = line.size_bytes.unwrap_or(0.0);
            if let Some(overlap) = line.overlap_time() {
                shares.insert("overlap".into(), overlap);
            }
        }
    }
    let value = match metric {
        "io_time" => io_time,
        "unoverlapped_io" => unoverlapped,
        "bandwidth" if io_time > 0.0 => bytes / io_time,
        "bandwidth" => 0.0,
        _ => job,
    };
    Ok((value, shares))
}

/// The environment of a run: the base variables and those the workload passes through, the
/// workload's own (with placeholders filled), and each parameter that sets a variable.
fn environment(
    spec: &Spec,
    workload: &crate::spec::Workload,
    values: &BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    let mut environment: BTreeMap<String, String> = BASE_ENVIRONMENT
        .iter()
        .chain(workload.pass_environment.iter().map(String::as_str).collect::<Vec<_>>().iter())
        .filter_map(|name| std::env::var(name).ok().map(|value| ((*name).to_string(), value)))
        .collect();
    for (name, value) in &workload.environment {
        environment.insert(name.clone(), substitute(value, values));
    }
    for parameter in &spec.parameters {
        if let (Some(variable), Some(value)) = (&parameter.env, values.get(&parameter.name)) {
            environment.insert(variable.clone(), value.clone());
        }
    }
    environment
}

/// The objective of one repetition: a number in the run's JSON file, or a metric of its traces
/// (whose layer shares then go to `shares`).
fn objective_value(
    spec: &Spec,
    run_dir: &Path,
    traces: Option<&Path>,
    values: &BTreeMap<String, String>,
    shares: &mut Option<BTreeMap<String, f64>>,
) -> Result<f64, String> {
    let objective = &spec.objective;
    match objective.source.as_str() {
        "json" => {
            let file = run_dir.join(substitute(objective.file.as_deref().unwrap_or_default(), values));
            std::fs::read_to_string(&file)
                .map_err(|error| format!("{}: {error}", file.display()))
                .and_then(|text| {
                    serde_json::from_str::<Value>(&text)
                        .map_err(|error| format!("{}: not JSON ({error})", file.display()))
                })
                .and_then(|value| {
                    json_number(&value, &objective.metric)
                        .ok_or_else(|| format!("{}: no number at {}", file.display(), objective.metric))
                })
        }
        _ => trace_metric(traces.unwrap_or(run_dir), &objective.metric).map(|(value, found)| {
            *shares = Some(found);
            value
        }),
    }
}

impl Executor for Local {
    fn evaluate(
        &self,
        spec: &Spec,
        params: &BTreeMap<String, Value>,
        size: Option<u64>,
        run: u64,
    ) -> Evaluation {
        let Some(workload) = &spec.workload else {
            return Evaluation::failed(Status::Failed, 0.0, "no [workload]".into(), None);
        };
        let runs = spec.directory.join(&workload.runs_dir);
        let run_dir = runs.join(format!("run-{run:04}"));
        let _ = std::fs::remove_dir_all(&run_dir);
        if let Err(error) = std::fs::create_dir_all(&run_dir) {
            return Evaluation::failed(Status::Failed, 0.0, format!("{}: {error}", run_dir.display()), None);
        }
        let run_dir = run_dir.canonicalize().unwrap_or(run_dir);
        let mut values: BTreeMap<String, String> =
            params.iter().map(|(name, value)| (name.clone(), render(value))).collect();
        values.insert("run_dir".into(), run_dir.display().to_string());
        values.insert(
            "spec_dir".into(),
            spec.directory.canonicalize().unwrap_or_else(|_| spec.directory.clone()).display().to_string(),
        );
        if let (Some(size), Some(subset)) = (size, &spec.subset) {
            values.insert(subset.parameter.clone(), size.to_string());
        }
        let environment = environment(spec, workload, &values);
        let limit = Duration::from_secs_f64(workload.time_limit_s.max(0.001));
        let started = Instant::now();
        for parameter in &spec.parameters {
            let Some(setup) = &parameter.setup else { continue };
            let mut with_value = values.clone();
            with_value.insert("value".into(), values.get(&parameter.name).cloned().unwrap_or_default());
            let command: Vec<String> = setup.iter().map(|part| substitute(part, &with_value)).collect();
            if let Err((status, message)) =
                run_command(&command, &run_dir, &environment, limit, &format!("setup-{}", parameter.name))
            {
                return Evaluation::failed(
                    status,
                    started.elapsed().as_secs_f64(),
                    format!("setup of {}: {message}", parameter.name),
                    Some(run_dir),
                );
            }
        }
        let command: Vec<String> = workload.command.iter().map(|part| substitute(part, &values)).collect();
        let mut measured = Vec::new();
        let mut shares = None;
        for repetition in 0..workload.repetitions.max(1) {
            let run_started = Instant::now();
            if let Err((status, message)) =
                run_command(&command, &run_dir, &environment, limit, &format!("workload-{repetition}"))
            {
                return Evaluation::failed(status, started.elapsed().as_secs_f64(), message, Some(run_dir));
            }
            if spec.objective.source == "wall_time" {
                measured.push(run_started.elapsed().as_secs_f64());
                continue;
            }
            let traces =
                spec.objective.traces.as_deref().map(|traces| run_dir.join(substitute(traces, &values)));
            let result = objective_value(spec, &run_dir, traces.as_deref(), &values, &mut shares);
            match result {
                Ok(value) if value.is_finite() => measured.push(value),
                Ok(value) => {
                    return Evaluation::failed(
                        Status::Failed,
                        started.elapsed().as_secs_f64(),
                        format!("objective is {value}"),
                        Some(run_dir),
                    );
                }
                Err(message) => {
                    return Evaluation::failed(
                        Status::Failed,
                        started.elapsed().as_secs_f64(),
                        message,
                        Some(run_dir),
                    );
                }
            }
            if shares.is_none()
                && let Some(traces) = &traces
                && let Ok((_, found)) = trace_metric(traces, "job_time")
            {
                shares = Some(found);
            }
        }
        let value = measured.iter().sum::<f64>() / measured.len().max(1) as f64;
        Evaluation {
            value: Some(value),
            status: Status::Ok,
            seconds: started.elapsed().as_secs_f64(),
            message: String::new(),
            run_dir: Some(run_dir),
            shares,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_replaced_and_unknown_braces_kept() {
        let values: BTreeMap<String, String> =
            [("reader.read_threads".to_string(), "4".to_string()), ("run_dir".to_string(), "/r".to_string())]
                .into();
        assert_eq!(
            substitute("++workload.reader.read_threads={reader.read_threads}", &values),
            "++workload.reader.read_threads=4"
        );
        assert_eq!(substitute("{run_dir}/out {x} {", &values), "/r/out {x} {");
    }

    #[test]
    fn json_numbers_follow_dotted_paths_and_average_lists() {
        let value = serde_json::json!({"metric": {"throughput": [10.0, 20.0], "au": "0.5"}});
        assert_eq!(json_number(&value, "metric.throughput"), Some(15.0));
        assert_eq!(json_number(&value, "metric.au"), Some(0.5));
        assert_eq!(json_number(&value, "metric.missing"), None);
    }
}
