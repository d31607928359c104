//! Advice: from a diagnosis to cited, file-system-aware changes. The stage after diagnosis in
//! ioscout's pipeline, before autotuning.
//!
//! # Overview
//!
//! [`Catalog`] holds the strategies (every L1, L2 and L3 technique of the optimisation
//! pipeline's catalog, with the bottleneck codes each answers, the file systems it is valid on,
//! the change, its rollback, who may apply it and a citation). [`advise`] walks the twelve
//! dimensions of the checklist, proposes the strategies that answer a finding and pass their
//! gates, bounds each one's gain from the measured run ([`Measurements`]) and ranks them. Guards:
//! a strategy whose mechanism is doing less work is rejected; one that changes the application's
//! access pattern or request size is listed as a diagnostic bound, never as a recommendation.
//! [`compare`] compares two runs layer by layer and flags a faster run that did less work;
//! [`kb`] is the append-only knowledge base of measured results; [`artifacts`] writes the
//! pipeline's run-directory files.

pub mod artifacts;
pub mod catalog;
pub mod compare;
pub mod filesystem;
pub mod kb;
pub mod measure;
pub mod profile;
pub mod proposal_table;
pub mod search;

use serde::Serialize;

pub use crate::catalog::{Catalog, Citation, DIMENSIONS, Privilege, Strategy};
pub use crate::filesystem::{Detection, FsType};
pub use crate::measure::Measurements;

/// A checklist verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// A change of this dimension was applied and measured (a knowledge-base entry says so).
    AppliedMeasured,
    /// A change applies and has not been measured.
    ApplicableNotMeasured,
    /// Nothing here applies, for the stated reason.
    NotApplicable,
}

impl Verdict {
    /// Name, as in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::AppliedMeasured => "applied_measured",
            Verdict::ApplicableNotMeasured => "applicable_not_measured",
            Verdict::NotApplicable => "not_applicable",
        }
    }
}

/// One line of the checklist.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct ChecklistItem {
    /// `D1`..`D12`.
    pub dimension: &'static str,
    /// Its name.
    pub name: &'static str,
    /// Verdict.
    pub verdict: Verdict,
    /// Why, concretely.
    pub reason: String,
}

/// A citation as proposals print it.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct CitationRef {
    /// Authors.
    pub authors: String,
    /// Title.
    pub title: String,
    /// Venue.
    pub venue: String,
    /// Year.
    pub year: Option<u32>,
    /// DOI resolver address or URL.
    pub url: String,
}

/// A proposed change.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Proposal {
    /// Rank (1 = best score).
    pub rank: usize,
    /// Strategy name.
    pub strategy: String,
    /// Strategy id.
    pub id: String,
    /// What it does.
    pub description: String,
    /// `L1`, `L2`, `L3`.
    pub layer: String,
    /// Checklist dimension.
    pub dimension: String,
    /// Bounded gain in application wall time, percent.
    pub app_impact_pct: f64,
    /// Effect on the file system's load, percent (0 when not estimable).
    pub system_impact_pct: f64,
    /// 50/50 weighted score.
    pub weighted_score: f64,
    /// Reference.
    pub citation: CitationRef,
    /// The change.
    pub change: String,
    /// Its rollback.
    pub rollback: String,
    /// Who may apply it.
    pub privilege: Privilege,
    /// The findings it answers.
    pub answers: Vec<String>,
    /// How the app impact was bounded.
    pub basis: String,
}

/// A strategy that answered a finding but was not proposed.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Rejection {
    /// Strategy id.
    pub id: String,
    /// `filesystem`, `requires`, `doing-less`.
    pub gate: &'static str,
    /// Why.
    pub reason: String,
}

/// The whole advice.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Advice {
    /// File system decided.
    pub filesystem: Detection,
    /// What it was computed from.
    pub measurements: Measurements,
    /// The findings that drove it: code, score, label.
    pub findings: Vec<(String, f64, String)>,
    /// Rule findings the learned detector does not confirm (their pattern's probability below
    /// its threshold): code and probability. No strategy is proposed for them.
    pub not_confirmed: Vec<(String, f64)>,
    /// The twelve dimensions.
    pub checklist: Vec<ChecklistItem>,
    /// Ranked proposals.
    pub proposals: Vec<Proposal>,
    /// Changes of the access pattern or request size: what they would gain, never recommended.
    pub diagnostic_bounds: Vec<Proposal>,
    /// Strategies stopped by a gate or a guard.
    pub rejected: Vec<Rejection>,
}

/// A proposal whose App Impact is bounded under this share of the run (percent) cannot make the
/// job noticeably faster: it is ranked after every one that can, whatever its System Impact.
const NEGLIGIBLE_APP_IMPACT_PCT: f64 = 1.0;

/// Words that mark a mechanism of doing less work (the pipeline's forbidden class: fewer
/// checkpoints, less data, fewer epochs).
const DOING_LESS: [&str; 10] = [
    "fewer checkpoints",
    "checkpoint less",
    "reduce checkpoint frequency",
    "write less",
    "read less",
    "less data",
    "fewer epochs",
    "reduce the number of epochs",
    "skip ",
    "drop samples",
];

/// Whether a strategy's mechanism is doing less work.
pub fn is_doing_less(strategy: &Strategy) -> bool {
    let text = format!("{} {} {}", strategy.name, strategy.description, strategy.change).to_ascii_lowercase();
    DOING_LESS.iter().any(|marker| text.contains(marker))
}

/// Why a bandwidth lever (striping, collective buffering, read-ahead, a faster tier) is not
/// proposed: every data class it would act on is op-count-bound, so a fixed cost per call, not
/// the bytes, takes the time (the optimisation pipeline: "distinguish op-count-bound I/O from
/// bandwidth-bound I/O before picking a lever"). `None` when it may be proposed.
fn op_count_bound(measurements: &Measurements, strategy: &catalog::Strategy) -> Option<String> {
    use catalog::Basis;
    if strategy.system_effect != catalog::SystemEffect::Bandwidth {
        return None;
    }
    let classes: &[&str] = match strategy.basis {
        Basis::Read | Basis::SmallRead | Basis::OverlappableRead | Basis::Reread => &["posix_read"],
        Basis::Write | Basis::SmallWrite | Basis::OverlappableWrite => &["posix_write"],
        Basis::Io | Basis::SmallIo | Basis::Unoverlapped | Basis::SharedSmallIo => {
            &["posix_read", "posix_write"]
        }
        Basis::Metadata | Basis::RepeatedMetadata | Basis::Sync => return None,
    };
    let shapes: Vec<&ioscout_evidence::shape::Shape> =
        measurements.shapes.iter().filter(|shape| classes.contains(&shape.class.as_str())).collect();
    if shapes.is_empty()
        || !shapes.iter().all(|shape| shape.verdict == ioscout_evidence::shape::Verdict::OpCountBound)
    {
        return None;
    }
    let said: Vec<String> = shapes
        .iter()
        .map(|shape| {
            format!(
                "{} ({} calls of {:.0} B on average, a fixed cost per call {:.0} % of their time)",
                shape.class.replace('_', " "),
                shape.calls,
                shape.mean_bytes,
                shape.fixed_share * 100.0
            )
        })
        .collect();
    Some(format!(
        "a bandwidth lever, and the I/O it would act on is op-count-bound: {}; fewer, larger calls help, more bandwidth does not",
        said.join(", ")
    ))
}

/// The time a strategy can remove, and what it is: its basis measured on this run, never above
/// the I/O time on the critical path (a change to the I/O cannot remove more than the I/O).
fn basis_time(measurements: &Measurements, basis: catalog::Basis) -> (f64, String) {
    let profile = &measurements.profile;
    let gaps = profile.gaps.as_ref();
    let (seconds, said) = match basis {
        catalog::Basis::Io => (measurements.io_time_s, "I/O time on the critical path"),
        catalog::Basis::Read => (measurements.read_time_s, "read time"),
        catalog::Basis::Write => (measurements.write_time_s, "write time"),
        catalog::Basis::Metadata => (measurements.metadata_time_s, "metadata time"),
        catalog::Basis::SmallIo => (measurements.small_io_time_s, "time in requests under 1 MiB"),
        catalog::Basis::SmallRead => (measurements.small_read_time_s, "time in reads under 1 MiB"),
        catalog::Basis::SmallWrite => (measurements.small_write_time_s, "time in writes under 1 MiB"),
        catalog::Basis::Unoverlapped => match measurements.unoverlapped_time_s {
            Some(seconds) => (seconds, "I/O time not hidden behind computation"),
            None => (measurements.io_time_s, "I/O time on the critical path (overlap not measured)"),
        },
        catalog::Basis::Sync => match profile.sync_time_s {
            Some(seconds) => (seconds, "time in fsync/fdatasync"),
            None => (measurements.write_time_s, "write time (which holds the fsync time in a Darshan log)"),
        },
        catalog::Basis::RepeatedMetadata => {
            let calls = profile.opens + profile.stats.unwrap_or(0);
            let repeated = if calls > 0 {
                calls.saturating_sub(profile.files_opened) as f64 / calls as f64
            } else {
                0.0
            };
            (
                measurements.metadata_time_s * repeated,
                "metadata time of the opens and stats that repeat on a file",
            )
        }
        catalog::Basis::OverlappableRead => (
            gaps.map_or(0.0, |gaps| gaps.read_ahead_s),
            "read time the work before each read could hide (the busiest process's reads, each stretch up to the work since the one before)",
        ),
        catalog::Basis::OverlappableWrite => (
            gaps.map_or(0.0, |gaps| gaps.write_behind_s),
            "write time the work after each write could hide (the busiest process's writes, each stretch up to the work until the next)",
        ),
        catalog::Basis::SharedSmallIo => (
            profile.shared.as_ref().map_or(0.0, |shared| shared.small_io_time_s + shared.small_caller_s),
            "time of the requests under 1 MiB to files shared by several processes, with the caller's time between them (the slowest process's time in each shared file, and the rest of the file's window where its calls are dense)",
        ),
        catalog::Basis::Reread => {
            let share = if profile.bytes_read > 0 {
                (profile.reread_bytes as f64 / profile.bytes_read as f64).min(1.0)
            } else {
                0.0
            };
            let work = gaps.map_or(0.0, |gaps| gaps.other_work_s);
            (
                share * (measurements.read_time_s + work),
                "the re-read share of the read time and of the work between the reads (decoding the same bytes again)",
            )
        }
    };
    // A change that issues fewer calls also saves the caller's own time around each call (the
    // short gaps between the busiest process's calls), per process.
    let processes = measurements.processes.max(1) as f64;
    let overhead = gaps.map_or(0.0, ioscout_diagnose::darshan::rules::IoGaps::overhead_per_call_s);
    let saved_calls = match basis {
        catalog::Basis::SmallWrite => profile.small_writes,
        catalog::Basis::SmallRead => profile.small_reads,
        catalog::Basis::SmallIo => profile.small_reads + profile.small_writes,
        catalog::Basis::Sync => profile.syncs,
        // Each open saved saves its close too (Darshan counts no closes).
        catalog::Basis::Metadata => 2 * profile.opens + profile.stats.unwrap_or(0),
        catalog::Basis::RepeatedMetadata => {
            let repeated_opens = profile.opens.saturating_sub(profile.files_opened);
            2 * repeated_opens + profile.stats.unwrap_or(0)
        }
        _ => 0,
    };
    let caller = saved_calls as f64 / processes * overhead;
    let (seconds, said) = if caller > 0.0 {
        (
            seconds + caller,
            format!(
                "{said}, with the caller's own time around the {saved_calls} calls it saves ({:.1} us each, from the short gaps between calls)",
                overhead * 1e6
            ),
        )
    } else {
        (seconds, said.to_string())
    };
    // Never above what the I/O costs on the critical path: its time, and the caller's own time
    // around its calls, in its own files and in the files it shares (for re-reads: and the work
    // on the bytes read again).
    let repeated_work =
        if basis == catalog::Basis::Reread { gaps.map_or(0.0, |gaps| gaps.other_work_s) } else { 0.0 };
    let shared_caller = profile.shared.as_ref().map_or(0.0, |shared| shared.small_caller_s);
    let ceiling = measurements.io_time_s.max(0.0)
        + gaps.map_or(0.0, |gaps| gaps.short_gaps_s)
        + shared_caller
        + repeated_work;
    (seconds.max(0.0).min(if ceiling > 0.0 { ceiling } else { seconds }), said)
}

fn system_impact(measurements: &Measurements, strategy: &Strategy) -> f64 {
    let ratio = |part: u64, whole: u64| if whole > 0 { part as f64 / whole as f64 } else { 0.0 };
    let share = match strategy.system_effect {
        catalog::SystemEffect::Ops => {
            // A strategy for one direction removes that direction's share of the small requests
            // (by the time they take, which is what the measurements split).
            let direction = match strategy.basis {
                catalog::Basis::SmallRead if measurements.small_io_time_s > 0.0 => {
                    measurements.small_read_time_s / measurements.small_io_time_s
                }
                catalog::Basis::SmallWrite if measurements.small_io_time_s > 0.0 => {
                    measurements.small_write_time_s / measurements.small_io_time_s
                }
                catalog::Basis::SmallRead | catalog::Basis::SmallWrite => 0.0,
                _ => 1.0,
            };
            ratio(measurements.small_operations, measurements.operations) * direction.min(1.0)
        }
        catalog::SystemEffect::MetadataOps => ratio(
            measurements.metadata_operations,
            measurements.metadata_operations + measurements.operations,
        ),
        catalog::SystemEffect::Bandwidth => {
            let evidence = |metric: &str| {
                measurements
                    .findings
                    .iter()
                    .filter(|finding| strategy.answers.iter().any(|code| answers(code, finding)))
                    .flat_map(|finding| finding.evidence.iter())
                    .find(|evidence| evidence.metric == metric)
                    .map(|evidence| evidence.value)
            };
            // Bytes moved again (redundant traffic), or bytes funnelled through one server (a
            // shared file on a single stripe): the load the change takes off the file system.
            let redundant = evidence("redundant_read_share").or_else(|| evidence("redundant_write_share"));
            let funnelled = evidence("shared_file_bytes")
                .filter(|_| measurements.bytes > 0)
                .map(|bytes| bytes / measurements.bytes as f64);
            redundant.into_iter().chain(funnelled).fold(0.0, f64::max)
        }
        catalog::SystemEffect::None => 0.0,
    };
    100.0 * strategy.efficacy * ioscout_diagnose::clip01(share)
}

fn round2(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

/// The first gate `strategy` fails for this run, if any: doing less work, the wrong file system,
/// a requirement the run does not use, a bandwidth lever for op-count-bound I/O.
fn gate(strategy: &Strategy, measurements: &Measurements, filesystem: &Detection) -> Option<Rejection> {
    let fs = filesystem.fs_type;
    let reject =
        |gate: &'static str, reason: String| Some(Rejection { id: strategy.id.clone(), gate, reason });
    if is_doing_less(strategy) {
        return reject(
            "doing-less",
            "its mechanism is doing less work (fewer checkpoints, less data, fewer epochs): never an optimisation"
                .into(),
        );
    }
    if !strategy.valid_on(fs) {
        return reject(
            "filesystem",
            format!(
                "the data are on {} ({}); it is valid on {}",
                fs.name(),
                filesystem.source,
                strategy.fs_types.join(", ")
            ),
        );
    }
    if let Some(missing) =
        strategy.requires.iter().find(|requirement| !measurements.uses.contains(*requirement))
    {
        return reject("requires", format!("it needs {missing}, which the run does not use"));
    }
    if let Some(reason) = op_count_bound(measurements, strategy) {
        return reject("shape", reason);
    }
    evidence_gate(strategy, &measurements.profile).and_then(|reason| reject("evidence", reason))
}

/// Why the run's own evidence stops `strategy`: a condition it needs does not hold, or one that
/// rules it out does (it would not help, or would hurt, this access). A condition the run cannot
/// decide stops nothing.
fn evidence_gate(strategy: &Strategy, profile: &profile::Profile) -> Option<String> {
    for condition in &strategy.needs {
        if let (Some(false), said) = profile.holds(*condition) {
            return Some(format!("it needs {}, and this run does not show it: {said}", condition.name()));
        }
    }
    for condition in &strategy.ruled_out_by {
        if let (Some(true), said) = profile.holds(*condition) {
            return Some(format!(
                "{} rules it out (it would not help, or would hurt, this access): {said}",
                condition.name()
            ));
        }
    }
    None
}

/// A strategy's change as this run needs it: a clause for MPI programs (`; MPI: ...`) is left
/// out of a run that does not use MPI.
fn change_for(change: &str, measurements: &Measurements) -> String {
    if measurements.uses.contains("mpi") {
        return change.to_string();
    }
    change.split("; ").filter(|clause| !clause.starts_with("MPI: ")).collect::<Vec<_>>().join("; ")
}

/// The citation of `strategy` as a proposal shows it (its catalog entry, or its citation text).
fn citation_of(catalog: &Catalog, strategy: &Strategy) -> CitationRef {
    catalog.citation(strategy).map_or_else(
        || CitationRef {
            authors: String::new(),
            title: strategy.citation.clone(),
            venue: String::new(),
            year: None,
            url: String::new(),
        },
        |citation| CitationRef {
            authors: citation.authors.clone(),
            title: citation.title.clone(),
            venue: citation.venue.clone().unwrap_or_default(),
            year: citation.year,
            url: citation.link().unwrap_or_default(),
        },
    )
}

/// How a strategy measured before on this system and workload: the knowledge base's verdict, or
/// that `ioscout optimize` could not measure it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Better.
    Win,
    /// Within the noise.
    NoChange,
    /// Worse (or the application regressed).
    Regression,
    /// Not decidable from the values recorded.
    Unknown,
    /// Too few runs succeeded to measure.
    NotMeasured,
}

impl Outcome {
    /// Its name, as the knowledge base and optimize write it.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Win => "win",
            Outcome::NoChange => "no_change",
            Outcome::Regression => "regression",
            Outcome::Unknown => "unknown",
            Outcome::NotMeasured => "not_measured",
        }
    }

    /// Which speaks for a dimension first: a win, then no change, then the rest.
    fn precedence(self) -> u8 {
        match self {
            Outcome::Win => 0,
            Outcome::NoChange => 1,
            Outcome::Regression | Outcome::Unknown | Outcome::NotMeasured => 2,
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.name())
    }
}

impl From<kb::Verdict> for Outcome {
    fn from(verdict: kb::Verdict) -> Outcome {
        match verdict {
            kb::Verdict::Win => Outcome::Win,
            kb::Verdict::NoChange => Outcome::NoChange,
            kb::Verdict::Regression => Outcome::Regression,
            kb::Verdict::Unknown => Outcome::Unknown,
        }
    }
}

/// A strategy's earlier measurement: its outcome, the change in percent, the citation.
#[derive(Clone, Debug, PartialEq)]
pub struct Prior {
    /// How it measured.
    pub outcome: Outcome,
    /// The change, percent (`None` when not computable).
    pub delta_pct: Option<f64>,
    /// What it cites.
    pub citation: String,
}

/// Earlier measurements on this system and workload, by strategy id.
pub type Measured = std::collections::BTreeMap<String, Prior>;

/// Whether a strategy that answers rule `code` answers `finding`: its own code, or, for the
/// detector's finding of a pattern no rule explained, the IOSage rule of that pattern.
fn answers(code: &str, finding: &ioscout_diagnose::Finding) -> bool {
    code == finding.code
        || (finding.family == ioscout_diagnose::Family::Detector
            && finding.pattern.and_then(ioscout_diagnose::detector::rule_code) == Some(code))
}

/// The advice for a run: `measurements` (with its findings), the file system, and what the
/// knowledge base measured for this workload before.
pub fn advise(
    catalog: &Catalog,
    measurements: Measurements,
    filesystem: Detection,
    measured: &Measured,
) -> Advice {
    let active: Vec<&ioscout_diagnose::Finding> = measurements
        .findings
        .iter()
        .filter(|finding| finding.label >= ioscout_diagnose::Label::Low)
        // A rule finding whose pattern the learned detector rejects is not acted on.
        .filter(|finding| finding.model.is_none_or(|check| check.confirmed))
        .collect();
    let mut proposals = Vec::new();
    let mut bounds = Vec::new();
    let mut rejected = Vec::new();
    for strategy in &catalog.strategies {
        let answers: Vec<String> = active
            .iter()
            .filter(|finding| strategy.answers.iter().any(|code| code == finding.code))
            .map(|finding| finding.code.to_string())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        if answers.is_empty() {
            continue;
        }
        if let Some(rejection) = gate(strategy, &measurements, &filesystem) {
            rejected.push(rejection);
            continue;
        }
        let proposal = proposal_of(catalog, strategy, &measurements, answers);
        if strategy.changes_access_pattern {
            bounds.push(proposal);
        } else {
            proposals.push(proposal);
        }
    }
    rank(&mut proposals, &mut bounds, measured);
    let checklist = checklist(catalog, &measurements, &filesystem, &proposals, &rejected, measured);
    let findings = measurements
        .findings
        .iter()
        .map(|finding| (finding.code.to_string(), finding.score, finding.label.name().to_string()))
        .collect();
    let not_confirmed = not_confirmed(&measurements);
    Advice {
        filesystem,
        measurements,
        findings,
        not_confirmed,
        checklist,
        proposals,
        diagnostic_bounds: bounds,
        rejected,
    }
}

/// The proposal of `strategy`, which answers the findings `answers` of `measurements`: its App
/// Impact on the time it can remove, its System Impact, the change for this run and the citation.
fn proposal_of(
    catalog: &Catalog,
    strategy: &catalog::Strategy,
    measurements: &Measurements,
    answers: Vec<String>,
) -> Proposal {
    let (seconds, basis) = basis_time(measurements, strategy.basis);
    let app_impact_pct = round2(100.0 * strategy.efficacy * measurements.share(seconds));
    let system_impact_pct = round2(system_impact(measurements, strategy));
    let citation = citation_of(catalog, strategy);
    Proposal {
        rank: 0,
        strategy: strategy.name.clone(),
        id: strategy.id.clone(),
        description: strategy.description.clone(),
        layer: strategy.layer.clone(),
        dimension: strategy.dimension.clone(),
        app_impact_pct,
        system_impact_pct,
        weighted_score: round2(0.5 * app_impact_pct + 0.5 * system_impact_pct),
        citation,
        change: change_for(&strategy.change, measurements),
        rollback: strategy.rollback.clone(),
        privilege: strategy.privilege,
        answers,
        basis: format!(
            "{:.0} % of {basis} ({seconds:.3} s of a {:.3} s job)",
            strategy.efficacy * 100.0,
            measurements.job_time_s
        ),
    }
}

/// Ranks `proposals` and `bounds` in place: by the 50/50 weighted score, a change under
/// [`NEGLIGIBLE_APP_IMPACT_PCT`] after every change that can make the job faster, and a strategy
/// the knowledge base measured as a regression here last, with its measurement quoted.
fn rank(proposals: &mut [Proposal], bounds: &mut [Proposal], measured: &Measured) {
    // By the 50/50 weighted score, except that a change bounded under 1 % of the run (it only
    // relieves the file system) comes after every change that can make the job faster.
    let negligible = |proposal: &Proposal| proposal.app_impact_pct < NEGLIGIBLE_APP_IMPACT_PCT;
    let order = |a: &Proposal, b: &Proposal| {
        negligible(a)
            .cmp(&negligible(b))
            .then(b.weighted_score.total_cmp(&a.weighted_score))
            .then(a.id.cmp(&b.id))
    };
    proposals.sort_by(order);
    bounds.sort_by(order);
    // A strategy measured as a regression on this system and workload goes below the rest, with
    // its measurement quoted (the knowledge base's non-degradation guard).
    for proposal in proposals.iter_mut() {
        if let Some(prior) = measured.get(&proposal.id).filter(|prior| prior.outcome == Outcome::Regression) {
            let verdict = prior.outcome;
            let delta = prior
                .delta_pct
                .map_or_else(|| "not computable".to_string(), |delta| format!("{delta:+.1} %"));
            proposal.basis = format!(
                "{}; measured before on this system and workload: {verdict}, {delta}: ranked last",
                proposal.basis
            );
        }
    }
    let regressed = |proposal: &Proposal| {
        measured.get(&proposal.id).is_some_and(|prior| prior.outcome == Outcome::Regression)
    };
    proposals.sort_by_key(regressed);
    for (index, proposal) in proposals.iter_mut().enumerate() {
        proposal.rank = index + 1;
    }
    for (index, proposal) in bounds.iter_mut().enumerate() {
        proposal.rank = index + 1;
    }
}

/// The rule findings at low or above that the learned detector does not confirm.
fn not_confirmed(measurements: &Measurements) -> Vec<(String, f64)> {
    measurements
        .findings
        .iter()
        .filter(|finding| finding.label >= ioscout_diagnose::Label::Low)
        .filter_map(|finding| {
            finding
                .model
                .filter(|check| !check.confirmed)
                .map(|check| (finding.code.to_string(), check.probability))
        })
        .collect()
}

fn checklist(
    catalog: &Catalog,
    measurements: &Measurements,
    filesystem: &Detection,
    proposals: &[Proposal],
    rejected: &[Rejection],
    measured: &Measured,
) -> Vec<ChecklistItem> {
    let io_share = measurements.share(measurements.io_time_s);
    DIMENSIONS
        .iter()
        .map(|(dimension, name)| {
            let in_dimension: Vec<&Strategy> = catalog.strategies.iter().filter(|strategy| strategy.dimension == *dimension).collect();
            // Of the dimension's measured strategies, the best outcome speaks for it (a win before
            // no change before a regression, then the larger effect); the others are counted.
            let mut in_measured: Vec<_> =
                measured.iter().filter(|(id, _)| in_dimension.iter().any(|strategy| &strategy.id == *id)).collect();
            in_measured.sort_by(|(_, a), (_, b)| {
                a.outcome.precedence().cmp(&b.outcome.precedence()).then_with(|| {
                    b.delta_pct.unwrap_or(f64::MIN).total_cmp(&a.delta_pct.unwrap_or(f64::MIN))
                })
            });
            if let Some((id, Prior { outcome: verdict, delta_pct, citation })) = in_measured.first() {
                let delta =
                    delta_pct.map_or_else(|| "not computable".to_string(), |delta| format!("{delta:+.1} %"));
                let others = match in_measured.len() - 1 {
                    0 => String::new(),
                    1 => "; 1 other strategy of this dimension measured".to_string(),
                    count => format!("; {count} other strategies of this dimension measured"),
                };
                return ChecklistItem {
                    dimension,
                    name,
                    verdict: Verdict::AppliedMeasured,
                    reason: format!("{id} was applied and measured: {verdict}, {delta} (citation: {citation}){others}"),
                };
            }
            let proposed: Vec<&Proposal> = proposals.iter().filter(|proposal| proposal.dimension == *dimension).collect();
            if let Some(best) = proposed.first() {
                return ChecklistItem {
                    dimension,
                    name,
                    verdict: Verdict::ApplicableNotMeasured,
                    reason: format!(
                        "proposal #{} ({}) answers {}; bounded gain {:.2} % of the run; not measured yet",
                        best.rank,
                        best.id,
                        best.answers.join(", "),
                        best.app_impact_pct
                    ),
                };
            }
            let stopped: Vec<&Rejection> =
                rejected.iter().filter(|rejection| in_dimension.iter().any(|strategy| strategy.id == rejection.id)).collect();
            let unconfirmed: Vec<(String, f64)> = not_confirmed(measurements)
                .into_iter()
                .filter(|(code, _)| in_dimension.iter().any(|strategy| strategy.answers.iter().any(|answer| answer == code)))
                .collect();
            let reason = if let Some(rejection) = stopped.first() {
                format!("{} answers a finding but {}", rejection.id, rejection.reason)
            } else if !unconfirmed.is_empty() {
                let named: Vec<String> =
                    unconfirmed.iter().map(|(code, probability)| format!("{code} (p = {probability:.2})")).collect();
                format!(
                    "its techniques answer {}, which the learned detector does not confirm: not acted on (`--detector rules` acts on every rule finding)",
                    named.join(", ")
                )
            } else if measurements.findings.iter().all(|finding| finding.label < ioscout_diagnose::Label::Low) {
                format!("no finding at low severity or above (I/O takes {:.1} % of the run)", io_share * 100.0)
            } else {
                let codes: Vec<&str> = in_dimension.iter().flat_map(|strategy| strategy.answers.iter().map(String::as_str)).collect();
                let mut codes: Vec<&str> = codes.into_iter().collect::<std::collections::BTreeSet<_>>().into_iter().collect();
                codes.truncate(6);
                format!(
                    "none of the findings its techniques answer ({}, ...) was raised on this run (file system {}, I/O {:.1} % of the run)",
                    codes.join(", "),
                    filesystem.fs_type.name(),
                    io_share * 100.0
                )
            };
            ChecklistItem { dimension, name, verdict: Verdict::NotApplicable, reason }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ioscout_diagnose::{Family, Finding, RuleDoc};

    const DOC: RuleDoc = RuleDoc {
        code: "P06",
        family: Family::Drishti,
        title: "small writes",
        detects: "",
        why: "",
        evidence: "",
        thresholds: "",
        references: "",
        change: "",
        not_when: "",
    };

    fn measured_run(codes: &[&'static str]) -> Measurements {
        Measurements {
            source: "darshan",
            job_time_s: 100.0,
            io_time_s: 40.0,
            read_time_s: 5.0,
            write_time_s: 30.0,
            metadata_time_s: 5.0,
            small_io_time_s: 25.0,
            small_read_time_s: 2.0,
            small_write_time_s: 23.0,
            operations: 10_000,
            small_operations: 9_000,
            metadata_operations: 500,
            processes: 64,
            findings: codes
                .iter()
                .map(|code| Finding::new(&RuleDoc { code, ..DOC }, 0.9, "POSIX", String::new()))
                .collect(),
            ..Measurements::default()
        }
    }

    fn on(fs: FsType) -> Detection {
        filesystem::detect(&[], Some(fs))
    }

    #[test]
    fn the_bundled_catalog_is_valid_and_covers_every_dimension() {
        let catalog = Catalog::bundled().unwrap_or_else(|error| panic!("{error}"));
        for (dimension, _) in DIMENSIONS {
            assert!(catalog.strategies.iter().any(|strategy| strategy.dimension == dimension), "{dimension}");
        }
        for layer in ["L1", "L2", "L3"] {
            assert!(catalog.strategies.iter().any(|strategy| strategy.layer == layer));
        }
        // Every code a strategy answers is a rule code.
        let mut codes: Vec<&str> =
            ioscout_diagnose::rules::all().iter().map(|rule| rule.doc().code).collect();
        codes.extend(ioscout_diagnose::darshan::rules::all().iter().map(|rule| rule.doc().code));
        for strategy in &catalog.strategies {
            for code in &strategy.answers {
                assert!(codes.contains(&code.as_str()), "{}: unknown code {code}", strategy.id);
            }
            assert!(!is_doing_less(strategy), "{} is doing less", strategy.id);
        }
    }

    #[test]
    fn proposals_are_cited_ranked_and_every_dimension_has_a_verdict() {
        let catalog = Catalog::bundled().unwrap_or_else(|error| panic!("{error}"));
        let advice = advise(
            &catalog,
            measured_run(&["P06", "IOS-FILE-STRATEGY"]),
            on(FsType::Lustre),
            &Measured::new(),
        );
        assert_eq!(advice.checklist.len(), 12);
        assert!(!advice.proposals.is_empty());
        assert!(
            advice
                .proposals
                .iter()
                .all(|proposal| !proposal.citation.title.is_empty() && !proposal.citation.url.is_empty())
        );
        assert!(advice.proposals.windows(2).all(|pair| pair[0].weighted_score >= pair[1].weighted_score));
        assert!(advice.proposals.iter().any(|proposal| proposal.id == "l3-lustre-stripe-shared"));
        assert!(advice.checklist.iter().all(|item| !item.reason.is_empty()));
    }

    fn shaped(verdict: &str) -> Vec<ioscout_evidence::shape::Shape> {
        use ioscout_evidence::shape::{Shape, Verdict};
        let bound = verdict == "op-count-bound";
        ["posix_read", "posix_write"]
            .iter()
            .map(|class| Shape {
                class: (*class).to_string(),
                calls: 20_000,
                bytes: 1_280_000,
                time_s: 0.02,
                mean_bytes: 64.0,
                fixed_cost_s: 1e-6,
                bandwidth_bps: None,
                fixed_share: if bound { 1.0 } else { 0.2 },
                small_calls: 20_000,
                small_time_share: 1.0,
                verdict: if bound { Verdict::OpCountBound } else { Verdict::BandwidthBound },
                method: "fit",
            })
            .collect()
    }

    /// The optimisation pipeline's rule: no bandwidth lever for op-count-bound I/O.
    #[test]
    fn no_bandwidth_lever_is_proposed_for_op_count_bound_io() {
        let catalog = Catalog::bundled().unwrap_or_else(|error| panic!("{error}"));
        let bandwidth_levers: Vec<&str> = catalog
            .strategies
            .iter()
            .filter(|strategy| strategy.system_effect == catalog::SystemEffect::Bandwidth)
            .map(|strategy| strategy.id.as_str())
            .collect();
        assert!(bandwidth_levers.contains(&"l3-lustre-stripe-shared"), "{bandwidth_levers:?}");
        let run = |verdict: &str| {
            let mut measurements =
                measured_run(&["P06", "IOS-FILE-STRATEGY", "PIPE-IO-SHARE", "PIPE-CHECKPOINT"]);
            measurements.shapes = shaped(verdict);
            advise(&catalog, measurements, on(FsType::Lustre), &Measured::new())
        };
        let bound = run("op-count-bound");
        assert!(
            bound.proposals.iter().all(|proposal| !bandwidth_levers.contains(&proposal.id.as_str())),
            "{:?}",
            bound.proposals.iter().map(|proposal| &proposal.id).collect::<Vec<_>>()
        );
        assert!(bound.rejected.iter().any(|rejection| rejection.gate == "shape"));
        let free = run("bandwidth-bound");
        assert!(free.proposals.iter().any(|proposal| bandwidth_levers.contains(&proposal.id.as_str())));
        assert!(free.rejected.iter().all(|rejection| rejection.gate != "shape"));
    }

    #[test]
    fn the_filesystem_gate_stops_lustre_striping_on_nfs() {
        let catalog = Catalog::bundled().unwrap_or_else(|error| panic!("{error}"));
        let advice =
            advise(&catalog, measured_run(&["IOS-FILE-STRATEGY", "P06"]), on(FsType::Nfs), &Measured::new());
        assert!(advice.proposals.iter().all(|proposal| proposal.id != "l3-lustre-stripe-shared"));
        assert!(
            advice
                .rejected
                .iter()
                .any(|rejection| rejection.id == "l3-lustre-stripe-shared" && rejection.gate == "filesystem")
        );
        for proposal in &advice.proposals {
            let strategy = catalog.strategies.iter().find(|strategy| strategy.id == proposal.id);
            assert!(strategy.is_some_and(|strategy| strategy.valid_on(FsType::Nfs)), "{}", proposal.id);
        }
    }

    #[test]
    fn the_doing_less_guard_rejects_and_access_pattern_changes_are_only_bounds() {
        let mut catalog = Catalog::bundled().unwrap_or_else(|error| panic!("{error}"));
        let mut fewer = catalog.strategies[0].clone();
        fewer.id = "checkpoint-less".into();
        fewer.name = "Write fewer checkpoints".into();
        catalog.strategies.push(fewer);
        let advice =
            advise(&catalog, measured_run(&["P06", "IOS-GRANULARITY"]), on(FsType::Lustre), &Measured::new());
        assert!(
            advice
                .rejected
                .iter()
                .any(|rejection| rejection.id == "checkpoint-less" && rejection.gate == "doing-less")
        );
        assert!(advice.proposals.iter().all(|proposal| proposal.id != "checkpoint-less"));
        assert!(advice.diagnostic_bounds.iter().any(|bound| bound.id == "diagnostic-request-size"));
        assert!(advice.proposals.iter().all(|proposal| {
            catalog
                .strategies
                .iter()
                .find(|strategy| strategy.id == proposal.id)
                .is_some_and(|strategy| !strategy.changes_access_pattern)
        }));
    }

    #[test]
    fn a_requirement_the_run_lacks_stops_a_strategy() {
        let catalog = Catalog::bundled().unwrap_or_else(|error| panic!("{error}"));
        let advice = advise(&catalog, measured_run(&["P17"]), on(FsType::Lustre), &Measured::new());
        assert!(
            advice.rejected.iter().any(
                |rejection| rejection.id == "l2-hdf5-collective-metadata" && rejection.gate == "requires"
            )
        );
    }

    #[test]
    fn a_strategy_measured_as_a_regression_is_ranked_last() {
        let catalog = Catalog::bundled().unwrap_or_else(|error| panic!("{error}"));
        let fresh = advise(
            &catalog,
            measured_run(&["P06", "IOS-FILE-STRATEGY"]),
            on(FsType::Lustre),
            &Measured::new(),
        );
        let first = fresh.proposals.first().map(|proposal| proposal.id.clone()).unwrap_or_default();
        assert!(fresh.proposals.len() > 1, "{:?}", fresh.proposals);
        let mut measured = Measured::new();
        let prior =
            |outcome, delta_pct, citation: &str| Prior { outcome, delta_pct, citation: citation.into() };
        measured.insert(first.clone(), prior(Outcome::Regression, Some(-40.0), "drishti22"));
        let advice =
            advise(&catalog, measured_run(&["P06", "IOS-FILE-STRATEGY"]), on(FsType::Lustre), &measured);
        let last = advice.proposals.last().unwrap_or_else(|| panic!("no proposals"));
        assert_eq!(last.id, first);
        assert!(last.basis.contains("regression, -40.0 %"), "{}", last.basis);
        assert_eq!(
            advice.proposals.iter().map(|proposal| proposal.rank).collect::<Vec<_>>(),
            (1..=advice.proposals.len()).collect::<Vec<_>>()
        );
    }

    /// An MPI clause of a change is shown only to a run that uses MPI.
    #[test]
    fn an_mpi_clause_is_left_out_of_a_run_without_mpi() {
        let change = "code: a reader thread reading ahead; MPI: MPI_File_iread_at with MPI_Wait";
        let mut run = measured_run(&[]);
        assert_eq!(change_for(change, &run), "code: a reader thread reading ahead");
        run.uses.insert("mpi".into());
        assert_eq!(change_for(change, &run), change);
        let catalog = Catalog::bundled().unwrap_or_else(|error| panic!("{error}"));
        let overlap = catalog.strategies.iter().find(|strategy| strategy.id == "l1-overlap-compute-io");
        assert!(overlap.is_some_and(|strategy| strategy.change.contains("; MPI: ")));
    }

    #[test]
    fn a_measured_result_marks_its_dimension_applied() {
        let catalog = Catalog::bundled().unwrap_or_else(|error| panic!("{error}"));
        let mut measured = Measured::new();
        let prior =
            |outcome, delta_pct, citation: &str| Prior { outcome, delta_pct, citation: citation.into() };
        measured.insert("l1-buffer-small-writes".into(), prior(Outcome::Win, Some(23.0), "drishti22"));
        let advice = advise(&catalog, measured_run(&["P06"]), on(FsType::Lustre), &measured);
        assert_eq!(advice.checklist[0].verdict, Verdict::AppliedMeasured);
        // A second strategy of the same dimension measured as no change (and first by name): the
        // win still speaks for the dimension, and the other is counted.
        measured.insert("l1-buffer-small-reads".into(), prior(Outcome::NoChange, Some(1.0), "hermes18"));
        let advice = advise(&catalog, measured_run(&["P06"]), on(FsType::Lustre), &measured);
        let reason = &advice.checklist[0].reason;
        assert!(
            reason.starts_with("l1-buffer-small-writes was applied and measured: win, +23.0 %"),
            "{reason}"
        );
        assert!(reason.ends_with("; 1 other strategy of this dimension measured"), "{reason}");
    }
}
