//! The optimisation pipeline's run-directory artifacts: under `opt<n>/` of a run directory,
//! `optimization_context.json` (metric, bottlenecks, papers), `opt_l1_results.json`,
//! `opt_l2_results.json` with `opt_l2_env.sh` (the L2 environment to source before each run),
//! and `opt_l3_results.json` (with rollback commands). `validate` checks the layout; `reorganize`
//! moves artifacts found outside an `opt<n>/` directory into the newest one.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::Advice;

/// The files every `opt<n>/` directory holds.
pub const FILES: [&str; 5] = [
    "optimization_context.json",
    "opt_l1_results.json",
    "opt_l2_results.json",
    "opt_l2_env.sh",
    "opt_l3_results.json",
];

fn iterations(run_directory: &Path) -> Vec<(u32, PathBuf)> {
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir(run_directory)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| entry.path().is_dir())
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            name.strip_prefix("opt")
                .and_then(|number| number.parse::<u32>().ok())
                .map(|number| (number, entry.path()))
        })
        .collect();
    found.sort();
    found
}

/// `optimization_context.json`: the metric optimised, the file system, the bottlenecks found, the
/// papers the proposals cite, the checklist and what the advice was computed from.
#[derive(Serialize)]
struct Context<'a> {
    metric: ioscout_diagnose::Dimension,
    filesystem: &'a crate::Detection,
    bottlenecks: Vec<Bottleneck<'a>>,
    papers: Vec<&'a crate::CitationRef>,
    checklist: &'a [crate::ChecklistItem],
    measurements: &'a crate::Measurements,
}

/// A finding with a score above zero.
#[derive(Serialize)]
struct Bottleneck<'a> {
    code: &'a str,
    score: f64,
    label: &'a str,
}

/// `opt_l<n>_results.json`: the proposals of one layer, and for L2 the environment file.
#[derive(Serialize)]
struct LayerResults<'a> {
    proposals: Vec<ProposedChange<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    env_file: Option<&'static str>,
}

/// One proposal as the pipeline records it before it is measured.
#[derive(Serialize)]
struct ProposedChange<'a> {
    strategy: &'a str,
    name: &'a str,
    status: &'static str,
    change: &'a str,
    rollback: &'a str,
    privilege: crate::Privilege,
    app_impact_pct: f64,
    system_impact_pct: f64,
    citation: &'a crate::CitationRef,
    files_modified: [String; 0],
}

/// Writes `value` as pretty JSON, with a final newline, to `path`.
fn write_json(path: &Path, value: &impl Serialize) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(value).map_err(std::io::Error::other)?;
    std::fs::write(path, text + "\n")
}

/// Writes the artifacts of `advice` (optimising `metric`) into a new `opt<n>/` of `run_directory`
/// and returns its path.
pub fn write(
    run_directory: &Path,
    advice: &Advice,
    metric: ioscout_diagnose::Dimension,
) -> std::io::Result<PathBuf> {
    let next = iterations(run_directory).last().map_or(1, |(number, _)| number + 1);
    let directory = run_directory.join(format!("opt{next}"));
    std::fs::create_dir_all(&directory)?;
    let bottlenecks: Vec<Bottleneck<'_>> = advice
        .findings
        .iter()
        .filter(|(_, score, _)| *score > 0.0)
        .map(|(code, score, label)| Bottleneck { code, score: *score, label })
        .collect();
    let mut papers: Vec<&crate::CitationRef> =
        advice.proposals.iter().map(|proposal| &proposal.citation).collect();
    papers.dedup_by(|a, b| a.title == b.title);
    let context = Context {
        metric,
        filesystem: &advice.filesystem,
        bottlenecks,
        papers,
        checklist: &advice.checklist,
        measurements: &advice.measurements,
    };
    let layer = |name: &str, env_file: Option<&'static str>| LayerResults {
        proposals: advice
            .proposals
            .iter()
            .filter(|proposal| proposal.layer == name)
            .map(|proposal| ProposedChange {
                strategy: &proposal.id,
                name: &proposal.strategy,
                status: "proposed",
                change: &proposal.change,
                rollback: &proposal.rollback,
                privilege: proposal.privilege,
                app_impact_pct: proposal.app_impact_pct,
                system_impact_pct: proposal.system_impact_pct,
                citation: &proposal.citation,
                files_modified: [],
            })
            .collect(),
        env_file,
    };
    write_json(&directory.join("optimization_context.json"), &context)?;
    write_json(&directory.join("opt_l1_results.json"), &layer("L1", None))?;
    write_json(&directory.join("opt_l2_results.json"), &layer("L2", Some("opt_l2_env.sh")))?;
    write_json(&directory.join("opt_l3_results.json"), &layer("L3", None))?;
    let mut env = String::from("# L2 settings of the proposals; source before each run (ioscout advise)\n");
    for proposal in advice.proposals.iter().filter(|proposal| proposal.layer == "L2") {
        if let Some(settings) = proposal.change.strip_prefix("env: ") {
            let _ = writeln!(env, "# {}: {}", proposal.id, settings.replace('\n', " "));
            for word in settings.split_whitespace() {
                let word = word.trim_end_matches([';', ',']);
                if let Some((key, _)) = word.split_once('=')
                    && !key.is_empty()
                    && key.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                {
                    let _ = writeln!(env, "export {word}");
                }
            }
        }
    }
    std::fs::write(directory.join("opt_l2_env.sh"), env)?;
    Ok(directory)
}

/// The layout problems of a run directory (empty: clean).
pub fn validate(run_directory: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let found = iterations(run_directory);
    if found.is_empty() {
        problems.push(format!("{}: no opt<n>/ directory", run_directory.display()));
    }
    for (_, directory) in &found {
        for file in FILES {
            let path = directory.join(file);
            if !path.is_file() {
                problems.push(format!("{}: missing", path.display()));
            } else if Path::new(file)
                .extension()
                .is_some_and(|extension| extension.eq_ignore_ascii_case("json"))
                && std::fs::read_to_string(&path)
                    .ok()
                    .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
                    .is_none()
            {
                problems.push(format!("{}: not valid JSON", path.display()));
            }
        }
    }
    for file in FILES {
        let stray = run_directory.join(file);
        if stray.is_file() {
            problems.push(format!("{}: outside any opt<n>/ directory", stray.display()));
        }
    }
    problems
}

/// Moves artifacts lying at the top of `run_directory` into its newest `opt<n>/` (creating
/// `opt1/` when there is none); returns the moves, done unless `dry_run`.
pub fn reorganize(run_directory: &Path, dry_run: bool) -> std::io::Result<Vec<(PathBuf, PathBuf)>> {
    let target =
        iterations(run_directory).last().map_or_else(|| run_directory.join("opt1"), |(_, path)| path.clone());
    let mut moves = Vec::new();
    for file in FILES {
        let stray = run_directory.join(file);
        if stray.is_file() {
            let destination = target.join(file);
            if !dry_run {
                std::fs::create_dir_all(&target)?;
                if destination.exists() {
                    let kept = target.join(format!("{file}.from-top"));
                    std::fs::rename(&stray, &kept)?;
                    moves.push((stray, kept));
                    continue;
                }
                std::fs::rename(&stray, &destination)?;
            }
            moves.push((stray, destination));
        }
    }
    Ok(moves)
}
