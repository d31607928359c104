//! DFDiagnoser's fact envelope (`analyzer.fact-envelope.v1`) as types: what `diagnose --json`
//! prints and the MCP `diagnose` tool returns, for traces ([`TraceContext`]) and for Darshan logs
//! ([`LogContext`]). The diagnosis fills them; serde writes them, fields in schema order.

use std::collections::BTreeMap;

use ioscout_diagnose::{Finding, MetricChoice, Recurrence};
use serde::Serialize;

/// The schema this envelope follows.
pub const SCHEMA_VERSION: &str = "analyzer.fact-envelope.v1";

/// One envelope: the context of the run, how many findings of each severity, the facts.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Envelope<C, F> {
    /// [`SCHEMA_VERSION`].
    pub schema_version: &'static str,
    /// What was diagnosed.
    pub context: C,
    /// Findings per severity label, every label present.
    pub severity_counts: BTreeMap<&'static str, u64>,
    /// The findings.
    pub facts: Vec<F>,
}

impl<C, F> Envelope<C, F> {
    /// The envelope of `facts` made from `findings`.
    pub fn new(context: C, findings: &[Finding], facts: Vec<F>) -> Envelope<C, F> {
        Envelope {
            schema_version: SCHEMA_VERSION,
            context,
            severity_counts: severity_counts(findings),
            facts,
        }
    }
}

/// The context of a diagnosed trace.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct TraceContext {
    /// Not known from a trace.
    pub run_id: Option<String>,
    /// The preset's layers.
    pub layers: Vec<String>,
    /// The views the rules read.
    pub view_types: [&'static str; 2],
    /// Width of a time bin in seconds.
    pub time_granularity: f64,
    /// The preset used.
    pub preset: ioscout_analysis::PresetName,
    /// Job time in seconds.
    pub job_time_s: f64,
    /// The learned detector's decision.
    pub detector: crate::detect::DetectorSection,
    /// The metric to optimise.
    pub metric_to_optimise: MetricChoice,
    /// Metadata time by operation, from the derived records (the first 10).
    pub metadata_operations: Vec<ioscout_evidence::metadata::Operation>,
    /// The shape of each data class.
    pub data_shapes: Vec<ioscout_evidence::shape::Shape>,
    /// How the Darshan records were derived from the trace.
    pub derived_records: crate::evidence::Derivation,
}

/// The context of a diagnosed Darshan log.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct LogContext {
    /// The log.
    pub log: String,
    /// Always `darshan`.
    pub source: &'static str,
    /// The log's format version.
    pub darshan_version: String,
    /// Processes of the job.
    pub nprocs: i64,
    /// Run time in seconds.
    pub run_time_s: f64,
    /// The job record could not be read: `nprocs` and `run_time_s` are lower bounds estimated
    /// from the records (the highest rank + 1, the latest end timestamp).
    pub job_estimated: bool,
    /// The modules the rules read.
    pub modules: Vec<String>,
    /// Modules not read (damaged regions).
    pub unread_modules: Vec<&'static str>,
    /// Modules read in part.
    pub damaged_modules: Vec<&'static str>,
    /// Share of the run time spent in I/O on the critical path.
    pub io_share: f64,
    /// The metric to optimise.
    pub metric_to_optimise: MetricChoice,
    /// What went wrong reading the log.
    pub problems: Vec<String>,
    /// The learned detector's decision.
    pub detector: crate::detect::DetectorSection,
}

/// A fact's time window (the whole trace).
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Window {
    /// Always `time_range`.
    pub view_type: &'static str,
    /// Not narrowed to an epoch.
    pub epoch: Option<u64>,
    /// Not narrowed to a step.
    pub step: Option<u64>,
    /// Not narrowed to a time bucket.
    pub time_bucket: Option<u64>,
    /// First event, nanoseconds.
    pub t0_ns: i64,
    /// Last end, nanoseconds.
    pub t1_ns: i64,
}

/// A trace fact's scope.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct TraceScope {
    /// The preset.
    pub workload: String,
    /// The layer or entity the finding is about.
    pub layer: String,
    /// Not narrowed.
    pub entity: Option<String>,
    /// Not narrowed.
    pub rank_set: Option<String>,
    /// Not narrowed.
    pub node: Option<String>,
}

/// A Darshan fact's scope.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct LogScope {
    /// The module, file or ranks the finding is about.
    pub layer: String,
}

/// What a fact rests on.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Evidence {
    /// The measured values, by metric name, in the rule's order (`null` for a value that is
    /// not a finite number).
    pub metrics: serde_json::Map<String, serde_json::Value>,
    /// The thresholds crossed.
    pub crossed: Vec<String>,
    /// Why, in one sentence.
    pub why: String,
}

/// How severe a fact is and how that was decided.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Severity {
    /// From 0 to 1.
    pub score: f64,
    /// The label of the score.
    pub label: &'static str,
    /// By a rule, by the model, or by a rule the model does not confirm.
    pub method: &'static str,
}

/// One finding on a trace.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct TraceFact {
    /// The rule code.
    pub fact_type: &'static str,
    /// Where in time.
    pub window: Window,
    /// Where in the run.
    pub scope: TraceScope,
    /// What it rests on.
    pub evidence: Evidence,
    /// How severe.
    pub severity: Severity,
    /// Always 1 (rules are deterministic).
    pub confidence: f64,
    /// IOSage's pattern.
    pub pattern: Option<ioscout_detect::Pattern>,
    /// The learned model's check.
    pub model: Option<ioscout_diagnose::detector::ModelCheck>,
    /// None yet.
    pub opportunity_tags: Vec<String>,
    /// None yet.
    pub suppresses_tags: Vec<String>,
    /// Code and position.
    pub fact_id: String,
    /// The rule's family.
    pub family: &'static str,
    /// The rule's title.
    pub title: &'static str,
    /// How often the rule fired over time windows.
    pub recurrence: Option<Recurrence>,
}

/// One finding on a Darshan log.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct LogFact {
    /// The rule code.
    pub fact_type: &'static str,
    /// Code and position.
    pub fact_id: String,
    /// The rule's family.
    pub family: &'static str,
    /// The rule's title.
    pub title: &'static str,
    /// Where in the run.
    pub scope: LogScope,
    /// What it rests on.
    pub evidence: Evidence,
    /// How severe.
    pub severity: Severity,
    /// Always 1.
    pub confidence: f64,
    /// IOSage's pattern.
    pub pattern: Option<ioscout_detect::Pattern>,
    /// The learned model's check.
    pub model: Option<ioscout_diagnose::detector::ModelCheck>,
}

impl Evidence {
    /// The evidence of `finding`.
    pub fn of(finding: &Finding) -> Evidence {
        Evidence {
            metrics: finding
                .evidence
                .iter()
                .map(|evidence| (evidence.metric.clone(), serde_json::Value::from(evidence.value)))
                .collect(),
            crossed: finding.crossed.clone(),
            why: finding.why.clone(),
        }
    }
}

impl Severity {
    /// The severity of `finding`.
    pub fn of(finding: &Finding) -> Severity {
        Severity { score: finding.score, label: finding.label.name(), method: method_of(finding) }
    }
}

impl LogFact {
    /// The `index`-th finding of a log.
    pub fn of(index: usize, finding: &Finding) -> LogFact {
        LogFact {
            fact_type: finding.code,
            fact_id: format!("{}-{index}", finding.code),
            family: finding.family.name(),
            title: finding.title,
            scope: LogScope { layer: finding.scope.clone() },
            evidence: Evidence::of(finding),
            severity: Severity::of(finding),
            confidence: 1.0,
            pattern: finding.pattern,
            model: finding.model,
        }
    }
}

/// How a finding's severity was decided: by a rule, by the model, or by a rule the model does
/// not confirm.
pub fn method_of(finding: &Finding) -> &'static str {
    match finding.model {
        _ if finding.family == ioscout_diagnose::Family::Detector => "model",
        Some(check) if !check.confirmed => "rule, not confirmed by the model",
        Some(_) => "rule, confirmed by the model",
        None => "rule",
    }
}

/// How many findings of each label.
fn severity_counts(findings: &[Finding]) -> BTreeMap<&'static str, u64> {
    let mut counts: BTreeMap<&'static str, u64> =
        ["none", "low", "medium", "high", "critical"].iter().map(|label| (*label, 0)).collect();
    for finding in findings {
        *counts.entry(finding.label.name()).or_default() += 1;
    }
    counts
}
