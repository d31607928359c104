//! Diagnosis: bottleneck rules over an analysis, each with a stable code, a severity, the
//! evidence it measured and the thresholds it crossed.
//!
//! # Overview
//!
//! [`diagnose`] evaluates every [`Rule`] of [`rules::all`] on a [`Context`] (an
//! [`ioscout_analysis::Analysis`] plus [`Parameters`] such as the bandwidth ceiling of the file
//! system) and returns the [`Finding`]s, most severe first. Rules live one per file under
//! [`rules`]; each is declared with [`rule!`], which writes its structured documentation (what it
//! detects, why it hurts I/O, the evidence it reports, its thresholds, its references) once, as the
//! type's doc comment and as the [`RuleDoc`] that `ioscout explain` prints. Severity is a score
//! in 0..=1 with DFAnalyzer's labels ([`Label::of`]).

pub mod context;
pub mod darshan;
pub mod detector;
pub mod rules;

use serde::Serialize;

pub use crate::context::{Context, Parameters, SlotTotals};

/// A rule family (where the rule comes from), named as on the command line (`--rules`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// WisIO's bottleneck rules (ICS 2025).
    Wisio,
    /// DFAnalyzer's fact rules (`dlio`, `posix` rule sets).
    // Printed as `dfanalyzer_facts` in JSON (as before the typed vocabulary); read as either.
    #[serde(rename(serialize = "dfanalyzer_facts", deserialize = "dfanalyzer"), alias = "dfanalyzer_facts")]
    #[cfg_attr(feature = "clap", value(name = "dfanalyzer"))]
    DfanalyzerFacts,
    /// Drishti's triggers, on the counters a trace gives.
    Drishti,
    /// IOSage's I/O patterns, with their change templates.
    Iosage,
    /// The optimisation pipeline's own checks (`shared/research/seeds/000_*`).
    Pipeline,
    /// The learned detector's findings: a pattern the model detects that no rule explains.
    Detector,
}

impl Family {
    /// Every family, in the order `rules` lists them.
    pub const ALL: [Family; 6] = [
        Family::Wisio,
        Family::DfanalyzerFacts,
        Family::Drishti,
        Family::Iosage,
        Family::Pipeline,
        Family::Detector,
    ];

    /// The family named `name` (case-insensitive).
    pub fn parse(name: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|family| family.name().eq_ignore_ascii_case(name.trim()))
    }

    /// Name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Family::Wisio => "wisio",
            Family::DfanalyzerFacts => "dfanalyzer",
            Family::Drishti => "drishti",
            Family::Iosage => "iosage",
            Family::Pipeline => "pipeline",
            Family::Detector => "detector",
        }
    }
}

/// Severity labels (DFAnalyzer's fact engine: critical ≥ 0.85, high ≥ 0.6, medium ≥ 0.3, low > 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum Label {
    /// Score 0.
    None,
    /// Above 0.
    Low,
    /// 0.3 or more.
    Medium,
    /// 0.6 or more.
    High,
    /// 0.85 or more.
    Critical,
}

impl Label {
    /// The label of a score.
    pub fn of(score: f64) -> Label {
        if score >= 0.85 {
            Label::Critical
        } else if score >= 0.6 {
            Label::High
        } else if score >= 0.3 {
            Label::Medium
        } else if score > 0.0 {
            Label::Low
        } else {
            Label::None
        }
    }

    /// The label named `name`.
    pub fn parse(name: &str) -> Option<Label> {
        Some(match name {
            "none" => Label::None,
            "low" => Label::Low,
            "medium" => Label::Medium,
            "high" => Label::High,
            "critical" => Label::Critical,
            _ => return None,
        })
    }

    /// Name.
    pub fn name(self) -> &'static str {
        match self {
            Label::None => "none",
            Label::Low => "low",
            Label::Medium => "medium",
            Label::High => "high",
            Label::Critical => "critical",
        }
    }
}

/// `value` clipped to 0..=1 (NaN gives 0).
pub fn clip01(value: f64) -> f64 {
    if value.is_nan() { 0.0 } else { value.clamp(0.0, 1.0) }
}

/// A size in bytes as a finding says it: whole bytes under 1 KiB, else KiB, MiB or GiB with one
/// decimal (binary units, as every text output of ioscout).
pub fn human_bytes(bytes: f64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if !bytes.is_finite() || bytes.abs() < 1024.0 {
        return format!("{bytes:.0} B");
    }
    let mut value = bytes / 1024.0;
    let mut unit = 0;
    while value.abs() >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod human_bytes_tests {
    use super::human_bytes;

    /// A 1-byte read is "1 B", not "0.0 KiB"; larger sizes take the largest unit under 1024.
    #[test]
    fn sizes_read_in_their_own_unit() {
        assert_eq!(human_bytes(1.0), "1 B");
        assert_eq!(human_bytes(1023.0), "1023 B");
        assert_eq!(human_bytes(4300.0), "4.2 KiB");
        assert_eq!(human_bytes(3.5 * 1_048_576.0), "3.5 MiB");
        assert_eq!(human_bytes(266_129_016_488.0), "247.9 GiB");
    }
}

/// The documentation of a rule.
#[derive(Clone, Copy, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct RuleDoc {
    /// Stable code (`WIS-SMALL-READ`).
    pub code: &'static str,
    /// Family.
    pub family: Family,
    /// One line.
    pub title: &'static str,
    /// What it detects.
    pub detects: &'static str,
    /// Why it hurts I/O.
    pub why: &'static str,
    /// The evidence it reports.
    pub evidence: &'static str,
    /// Thresholds and the severity formula.
    pub thresholds: &'static str,
    /// References.
    pub references: &'static str,
    /// The change that answers it, when the rule's source gives one (IOSage's pattern cards).
    pub change: &'static str,
    /// When that change does not apply.
    pub not_when: &'static str,
}

impl RuleDoc {
    /// The full documentation as text (what `ioscout explain` prints).
    pub fn render(&self) -> String {
        let mut text = format!(
            "{} ({}): {}\n\nWhat it detects\n  {}\n\nWhy it hurts I/O\n  {}\n\nEvidence\n  {}\n\nThresholds and severity\n  {}\n\nReferences\n  {}\n",
            self.code,
            self.family.name(),
            self.title,
            self.detects,
            self.why,
            self.evidence,
            self.thresholds,
            self.references
        );
        if !self.change.is_empty() {
            text.push_str("\nChange\n  ");
            text.push_str(self.change);
            text.push_str("\n\nWhen the change does not apply\n  ");
            text.push_str(self.not_when);
            text.push('\n');
        }
        text
    }
}

/// One measured value behind a finding.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Evidence {
    /// Metric name (`posix_read_time_frac`).
    pub metric: String,
    /// Value.
    pub value: f64,
    /// Unit (`fraction`, `bytes`, `s`, `count`).
    pub unit: &'static str,
}

/// A detected problem.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Finding {
    /// Rule code.
    pub code: &'static str,
    /// Rule family.
    pub family: Family,
    /// Rule title.
    pub title: &'static str,
    /// Severity in 0..=1.
    pub score: f64,
    /// Severity label.
    pub label: Label,
    /// Where: the layer (and entity, when the rule looks at one).
    pub scope: String,
    /// Measured values.
    pub evidence: Vec<Evidence>,
    /// The thresholds that were crossed.
    pub crossed: Vec<String>,
    /// One line of why, with the numbers.
    pub why: String,
    /// IOSage's pattern the finding speaks for ([`detector::pattern_of`]); `None` for findings
    /// about something else.
    pub pattern: Option<ioscout_detect::Pattern>,
    /// What the learned detector said about that pattern, when it was asked.
    pub model: Option<detector::ModelCheck>,
}

impl Finding {
    /// A finding of `rule` with `score` (clipped to 0..=1).
    pub fn new(rule: &RuleDoc, score: f64, scope: impl Into<String>, why: String) -> Finding {
        let score = clip01(score);
        Finding {
            code: rule.code,
            family: rule.family,
            title: rule.title,
            score,
            label: Label::of(score),
            scope: scope.into(),
            evidence: Vec::new(),
            crossed: Vec::new(),
            why,
            pattern: detector::pattern_of(rule.code),
            model: None,
        }
    }

    /// Adds a measured value.
    #[must_use]
    pub fn with(mut self, metric: &str, value: f64, unit: &'static str) -> Finding {
        self.evidence.push(Evidence { metric: metric.to_string(), value, unit });
        self
    }

    /// Adds a crossed threshold.
    #[must_use]
    pub fn crossing(mut self, threshold: &str) -> Finding {
        self.crossed.push(threshold.to_string());
        self
    }
}

/// A bottleneck rule.
pub trait Rule: Sync {
    /// Its documentation.
    fn doc(&self) -> &'static RuleDoc;
    /// Its findings on `context` (none when it does not apply or does not fire).
    fn evaluate(&self, context: &Context<'_>) -> Vec<Finding>;
}

/// Declares a rule type with its documentation, written once: as the type's doc comment and as
/// its [`RuleDoc`] (`Type::DOC`).
#[macro_export]
macro_rules! rule {
    (
        $(#[$attribute:meta])*
        pub struct $name:ident {
            code: $code:literal,
            family: $family:ident,
            title: $title:literal,
            detects: $detects:literal,
            why: $why:literal,
            evidence: $evidence:literal,
            thresholds: $thresholds:literal,
            references: $references:literal
            $(, change: $change:literal, not_when: $not_when:literal)? $(,)?
        }
    ) => {
        #[doc = concat!("`", $code, "`: ", $title)]
        #[doc = ""]
        #[doc = concat!("**What it detects.** ", $detects)]
        #[doc = ""]
        #[doc = concat!("**Why it hurts I/O.** ", $why)]
        #[doc = ""]
        #[doc = concat!("**Evidence.** ", $evidence)]
        #[doc = ""]
        #[doc = concat!("**Thresholds and severity.** ", $thresholds)]
        #[doc = ""]
        #[doc = concat!("**References.** ", $references)]
        $(
            #[doc = ""]
            #[doc = concat!("**Change.** ", $change)]
            #[doc = ""]
            #[doc = concat!("**When the change does not apply.** ", $not_when)]
        )?
        $(#[$attribute])*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $name;

        impl $name {
            /// The rule's documentation.
            pub const DOC: $crate::RuleDoc = $crate::RuleDoc {
                code: $code,
                family: $crate::Family::$family,
                title: $title,
                detects: $detects,
                why: $why,
                evidence: $evidence,
                thresholds: $thresholds,
                references: $references,
                change: concat!("" $(, $change)?),
                not_when: concat!("" $(, $not_when)?),
            };
        }
    };
}

/// The metric an optimisation should target, chosen from the findings.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct MetricChoice {
    /// The dimension whose metric to optimise.
    pub metric: Dimension,
    /// Why, in one line.
    pub reason: String,
    /// The bottleneck dimensions with a finding at medium or above.
    pub dimensions: Vec<Dimension>,
}

/// A bottleneck dimension, and the metric that measures it (the optimisation pipeline's metric
/// selection guide).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum Dimension {
    // In the order of their names, which is how lists of them are sorted.
    /// Bytes per second.
    Bandwidth,
    /// Operations per second (request size and pattern).
    Iops,
    /// Metadata operations per second.
    MetadataOps,
    /// Time on the critical path (the general metric).
    Time,
}

impl Dimension {
    /// `time`, `bandwidth`, `iops` or `metadata_ops`.
    pub fn name(self) -> &'static str {
        match self {
            Dimension::Time => "time",
            Dimension::Bandwidth => "bandwidth",
            Dimension::Iops => "iops",
            Dimension::MetadataOps => "metadata_ops",
        }
    }
}

impl std::fmt::Display for Dimension {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.name())
    }
}

/// Reads or writes: the two directions of paired rules (trace rules and Darshan's paired
/// counters alike).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Reads.
    Read,
    /// Writes.
    Write,
}

impl std::fmt::Display for Direction {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.word())
    }
}

/// The bottleneck dimension of a rule code, for the metric selection (`None` for rules that
/// characterise rather than accuse).
pub fn dimension(code: &str) -> Option<Dimension> {
    Some(match code {
        // Drishti's codes on Darshan counters are P.., S01, M..; the others are the trace rules'.
        "DFA-BW-SATURATION" | "PIPE-REDUNDANT-READ" | "PIPE-REDUNDANT-WRITE" => Dimension::Bandwidth,
        "WIS-SMALL-READ" | "WIS-SMALL-WRITE" | "IOS-GRANULARITY" | "IOS-ACCESS-PATTERN" | "IOS-INTERFACE"
        | "P05" | "P06" | "P07" | "P08" | "P11" | "P13" | "P15" | "P16" | "S01" | "M02" | "M03" => {
            Dimension::Iops
        }
        "WIS-METADATA"
        | "PIPE-METADATA"
        | "IOS-METADATA"
        | "DFA-METADATA-DOMINANCE"
        | "DFA-OPEN-PRESSURE"
        | "DFA-READER-OPEN-TAIL"
        | "PIPE-SMALL-FILES"
        | "P17" => Dimension::MetadataOps,
        "WIS-OP-MIX"
        | "WIS-SIZE-MIX"
        | "PIPE-OP-COUNT"
        | "IOS-HEALTHY"
        | "DFA-COMPUTE-DOMINANCE"
        | "P01"
        | "P02"
        | "P03"
        | "P04"
        | "P09"
        | "P10"
        | "P12"
        | "P14"
        | "M04"
        | "M05" => return None,
        _ => Dimension::Time,
    })
}

/// The optimisation pipeline's metric selection guide: the metric of the one dominant dimension
/// (findings at medium or above), `time` when several dimensions are (the most general), and
/// `time` when none is.
pub fn choose_metric(findings: &[Finding]) -> MetricChoice {
    let mut dimensions: Vec<Dimension> = findings
        .iter()
        .filter(|finding| finding.label >= Label::Medium)
        .filter_map(|finding| dimension(finding.code))
        .collect();
    dimensions.sort_unstable();
    dimensions.dedup();
    let (metric, reason) = match dimensions.as_slice() {
        [] => (Dimension::Time, "no finding at medium or above: time is the most general metric".to_string()),
        [only] => {
            let reason = match *only {
                Dimension::Bandwidth => "throughput is the binding limit (bandwidth saturation)",
                Dimension::Iops => "the operation rate limits throughput (small or non-sequential requests)",
                Dimension::MetadataOps => "metadata is the bottleneck",
                Dimension::Time => "latency is the binding constraint (I/O time on the critical path)",
            };
            (*only, reason.to_string())
        }
        several => (
            Dimension::Time,
            format!(
                "several dimensions are at medium or above ({}): time addresses all of them",
                several.iter().map(|dimension| dimension.name()).collect::<Vec<_>>().join(", ")
            ),
        ),
    };
    MetricChoice { metric, reason, dimensions }
}

/// How often a rule fired over time windows (DFDiagnoser's prevalence and persistence).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Recurrence {
    /// Windows with I/O in them.
    pub windows: usize,
    /// Windows where the rule fired.
    pub seen: usize,
    /// `seen / windows`.
    pub prevalence: f64,
    /// The longest run of consecutive windows where it fired.
    pub persistence: usize,
}

/// Evaluates every rule on consecutive windows of `bins_per_window` time bins of the
/// `time_range` view and counts, per rule code, how often and how persistently it fired.
pub fn recurrence(
    analysis: &ioscout_analysis::Analysis,
    parameters: &Parameters,
    bins_per_window: u64,
) -> std::collections::BTreeMap<&'static str, Recurrence> {
    let mut out: std::collections::BTreeMap<&'static str, Recurrence> = std::collections::BTreeMap::new();
    let Some(view) = analysis.view(ioscout_analysis::ViewType::TimeRange) else { return out };
    let Some(last_bin) = view.rows.iter().map(|row| row.order).max() else { return out };
    let width = bins_per_window.max(1);
    let mut windows = 0;
    let mut runs: std::collections::BTreeMap<&'static str, usize> = std::collections::BTreeMap::new();
    let mut first = 0;
    while first <= last_bin {
        let last = first + width - 1;
        if view.rows.iter().any(|row| (first..=last).contains(&row.order)) {
            windows += 1;
            let context = Context::window(analysis, parameters.clone(), first, last);
            let fired: std::collections::BTreeSet<&'static str> = rules::all()
                .iter()
                .flat_map(|rule| rule.evaluate(&context))
                .filter(|finding| finding.label >= Label::Low)
                .map(|finding| finding.code)
                .collect();
            for rule in rules::all() {
                let code = rule.doc().code;
                let run = runs.entry(code).or_default();
                let entry = out.entry(code).or_default();
                if fired.contains(code) {
                    *run += 1;
                    entry.seen += 1;
                    entry.persistence = entry.persistence.max(*run);
                } else {
                    *run = 0;
                }
            }
        }
        first = last + 1;
    }
    out.retain(|_, entry| entry.seen > 0);
    for entry in out.values_mut() {
        entry.windows = windows;
        entry.prevalence = entry.seen as f64 / windows.max(1) as f64;
    }
    out
}

/// Evaluates every rule and returns the findings, most severe first (then by code).
pub fn diagnose(context: &Context<'_>) -> Vec<Finding> {
    let mut findings: Vec<Finding> = rules::all().iter().flat_map(|rule| rule.evaluate(context)).collect();
    sort(&mut findings);
    findings
}

/// Every rule on a trace: the trace rules on its analysis (layers, overlap, epochs, processes),
/// and the Darshan rule families (Drishti, IOSage, WisIO, redundant traffic) on the Darshan
/// records derived from the same trace (`derived`, from `ioscout-evidence`), exactly as they run
/// on a log. One evidence model: no pattern has a rule for traces and another for logs.
///
/// What a trace knows better than a log is used: `facts` ([`trace_facts`], which the caller
/// keeps for the detector) take the run time from the job time of the analysis, and the I/O on
/// the critical path (which weighs every Darshan finding) from the POSIX time of the busiest
/// process that compute does not hide (the unoverlapped time, when measured).
pub fn diagnose_trace(
    context: &Context<'_>,
    derived: &ioscout_evidence::Derived,
    facts: &darshan::DarshanFacts,
    thresholds: darshan::DrishtiThresholds,
) -> Vec<Finding> {
    let mut findings = diagnose(context);
    findings.extend(darshan::diagnose(&darshan::DarshanContext::new(facts, thresholds)));
    for finding in &mut findings {
        if dimension(finding.code) == Some(Dimension::MetadataOps) {
            name_metadata_calls(finding, &derived.operations);
        }
        state_shape(finding, &derived.shapes);
    }
    sort(&mut findings);
    findings
}

/// The Darshan facts of a trace: its derived records, with the job time and the POSIX time on
/// the critical path from the analysis (what the Darshan rules and the detector read).
pub fn trace_facts(context: &Context<'_>, derived: &ioscout_evidence::Derived) -> darshan::DarshanFacts {
    let mut facts = darshan::DarshanFacts::from_log(&derived.log);
    // DFTracer records POSIX and STDIO calls, not MPI-IO ones: a trace says nothing of MPI-IO.
    facts.not_visible.insert("MPI-IO".to_string());
    facts.run_time = context.job_time_s();
    facts.io_time_by_slowest = match context.layer("posix") {
        Some(layer) => Some(layer.u_time_s.unwrap_or(layer.time_s).min(layer.time_s)),
        // A preset without a POSIX layer: the busiest process's POSIX time, overlap unknown.
        None => context.slot("posix").map(SlotTotals::max_process_time_s),
    };
    facts
}

/// The data classes a small-request finding is about.
fn shape_classes(code: &str) -> &'static [&'static str] {
    match code {
        "P05" | "P15" | "WIS-SMALL-READ" => &["posix_read"],
        "P06" | "P16" | "WIS-SMALL-WRITE" => &["posix_write"],
        "IOS-GRANULARITY" | "PIPE-OP-COUNT" => &["posix_read", "posix_write"],
        "S01" => &["stdio_read", "stdio_write"],
        _ => &[],
    }
}

/// Says, in a small-request finding, whether its calls are op-count-bound or bandwidth-bound
/// and on what evidence.
fn state_shape(finding: &mut Finding, shapes: &[ioscout_evidence::shape::Shape]) {
    let mut said = Vec::new();
    for class in shape_classes(finding.code) {
        let Some(shape) = shapes.iter().find(|shape| shape.class == *class) else { continue };
        let basis = if shape.method == "fit" {
            format!(
                "a fixed {:.1} us per call is {:.0} % of their time (call time fitted to size over {} calls)",
                shape.fixed_cost_s * 1e6,
                shape.fixed_share * 100.0,
                shape.calls
            )
        } else {
            format!(
                "{} calls of about {} B at {:.1} us each (one size: decided by the size)",
                shape.calls,
                shape.mean_bytes.round(),
                shape.fixed_cost_s * 1e6
            )
        };
        let words = match *class {
            "posix_read" => "POSIX reads",
            "posix_write" => "POSIX writes",
            "stdio_read" => "STDIO reads",
            _ => "STDIO writes",
        };
        said.push(format!("{words} are {}: {basis}", shape.verdict.name()));
        finding.evidence.push(Evidence {
            metric: format!("{class}_fixed_cost_share"),
            value: shape.fixed_share,
            unit: "fraction",
        });
    }
    if !said.is_empty() {
        finding.why = format!("{}; {}", finding.why, said.join("; "));
    }
}

/// Names, in a metadata finding, the calls that take the time (most first, until four fifths of
/// the metadata time are named, at most three), as text and evidence.
fn name_metadata_calls(finding: &mut Finding, operations: &[ioscout_evidence::metadata::Operation]) {
    let mut named = Vec::new();
    let mut covered = 0.0;
    let metadata =
        operations.iter().filter(|call| call.family != ioscout_evidence::metadata::Family::Process);
    for call in metadata.take(3) {
        if covered >= 0.8 || call.time_s <= 0.0 {
            break;
        }
        covered += call.share;
        named.push(format!(
            "{} ({} calls, {:.3} s, {:.0} %)",
            call.name,
            call.calls,
            call.time_s,
            call.share * 100.0
        ));
        finding.evidence.push(Evidence {
            metric: format!("metadata_{}_time", call.name),
            value: call.time_s,
            unit: "s",
        });
    }
    if !named.is_empty() {
        finding.why = format!("{}; metadata time is in {}", finding.why, named.join(", "));
    }
}

/// Most severe first, then by code and scope.
pub(crate) fn sort(findings: &mut [Finding]) {
    findings.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.code.cmp(b.code)).then(a.scope.cmp(&b.scope)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_follow_dfanalyzer_thresholds() {
        assert_eq!(Label::of(0.0), Label::None);
        assert_eq!(Label::of(0.01), Label::Low);
        assert_eq!(Label::of(0.3), Label::Medium);
        assert_eq!(Label::of(0.6), Label::High);
        assert_eq!(Label::of(0.85), Label::Critical);
        assert!(clip01(f64::NAN).abs() < f64::EPSILON);
        assert!((clip01(3.0) - 1.0).abs() < f64::EPSILON);
    }

    #[test]
    fn the_metric_follows_the_dominant_dimension() {
        let finding = |code: &'static str, score: f64| Finding {
            code,
            family: Family::Pipeline,
            title: "",
            score,
            label: Label::of(score),
            scope: String::new(),
            evidence: Vec::new(),
            crossed: Vec::new(),
            why: String::new(),
            pattern: None,
            model: None,
        };
        assert_eq!(choose_metric(&[]).metric, Dimension::Time);
        assert_eq!(
            choose_metric(&[finding("PIPE-METADATA", 0.7), finding("WIS-OP-MIX", 0.2)]).metric,
            Dimension::MetadataOps
        );
        assert_eq!(
            choose_metric(&[finding("P05", 0.9), finding("IOS-GRANULARITY", 0.5)]).metric,
            Dimension::Iops
        );
        let mixed = choose_metric(&[finding("P05", 0.9), finding("PIPE-METADATA", 0.7)]);
        assert_eq!((mixed.metric, mixed.dimensions.len()), (Dimension::Time, 2));
        assert_eq!(
            choose_metric(&[finding("P05", 0.1)]).metric,
            Dimension::Time,
            "low findings do not count"
        );
        for rule in rules::all() {
            let _ = dimension(rule.doc().code);
        }
    }

    #[test]
    fn every_rule_has_a_unique_code_and_a_full_doc() {
        let mut codes = std::collections::BTreeSet::new();
        for rule in rules::all() {
            let doc = rule.doc();
            assert!(codes.insert(doc.code), "duplicate code {}", doc.code);
            for (part, text) in [
                ("title", doc.title),
                ("detects", doc.detects),
                ("why", doc.why),
                ("evidence", doc.evidence),
                ("thresholds", doc.thresholds),
                ("references", doc.references),
            ] {
                assert!(text.len() > 10, "{} has no {part}", doc.code);
            }
            assert!(doc.render().contains(doc.code));
        }
    }
}
