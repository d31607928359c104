//! The learned detector joined with the rules (`ioscout diagnose --detector model|rules|both`).
//!
//! # Where this sits
//!
//! The rules ([`crate::darshan::diagnose`], [`crate::diagnose_trace`]) give findings with
//! severity, evidence and a why; [`ioscout_detect::Model`] decides, from the same run's counters,
//! which of IOSage's patterns the run has. [`join`] puts the two together:
//!
//! - `rules`: the findings as the rules give them (each still names its [`Pattern`]).
//! - `model`: one finding per pattern the model detects, with the features that drove it.
//! - `both` (the default): a rule finding whose pattern the model detects is confirmed; one
//!   whose pattern it rejects is kept but shown as not confirmed, its score held below medium
//!   (so a healthy run is not told to change); a pattern the model detects that no rule explains
//!   is reported with the model's evidence. Findings about something other than a pattern
//!   (compute dominance, overlap, read/write mix) pass unchanged.
//!
//! [`pattern_of`] maps every rule code to the pattern it speaks for, as IOSage maps Drishti's
//! and TraceBench's codes (`shared/research/diagnosis.md` §2, §3.1).

use std::fmt;
use std::str::FromStr;

use ioscout_detect::{Counters, Decision, Features, Model, Pattern};

use crate::darshan::DarshanFacts;
use crate::{Family, Finding, RuleDoc, clip01};

/// Which decides the patterns of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum Detector {
    /// The learned model alone.
    Model,
    /// The rules alone, as before the model.
    Rules,
    /// The model decides, the rules explain.
    #[default]
    Both,
}

impl Detector {
    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Detector::Model => "model",
            Detector::Rules => "rules",
            Detector::Both => "both",
        }
    }

    /// Whether the model is read.
    pub fn uses_model(self) -> bool {
        self != Detector::Rules
    }
}

impl fmt::Display for Detector {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.name())
    }
}

impl FromStr for Detector {
    type Err = String;

    fn from_str(text: &str) -> Result<Detector, String> {
        match text {
            "model" => Ok(Detector::Model),
            "rules" => Ok(Detector::Rules),
            "both" => Ok(Detector::Both),
            other => Err(format!("unknown detector {other:?} (model, rules or both)")),
        }
    }
}

/// What the model said about a finding's pattern.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct ModelCheck {
    /// The model's probability for the pattern.
    pub probability: f64,
    /// Whether the model detects the pattern.
    pub confirmed: bool,
}

/// The pattern a rule code speaks for; `None` for codes about something else.
pub fn pattern_of(code: &str) -> Option<Pattern> {
    Some(match code {
        "IOS-GRANULARITY"
        | "P05"
        | "P06"
        | "P07"
        | "P08"
        | "P15"
        | "P16"
        | "WIS-SMALL-READ"
        | "WIS-SMALL-WRITE"
        | "PIPE-OP-COUNT"
        | "DET-ACCESS-GRANULARITY" => Pattern::AccessGranularity,
        "IOS-METADATA"
        | "P17"
        | "WIS-METADATA"
        | "PIPE-METADATA"
        | "PIPE-SMALL-FILES"
        | "DFA-METADATA-DOMINANCE"
        | "DFA-OPEN-PRESSURE"
        | "DET-METADATA-INTENSITY" => Pattern::MetadataIntensity,
        "IOS-PARALLELISM"
        | "P18"
        | "P19"
        | "P21"
        | "P22"
        | "D01"
        | "D02"
        | "PIPE-RANK-IMBALANCE"
        | "DFA-FETCH-RANK-IMBALANCE"
        | "DET-PARALLELISM-EFFICIENCY" => Pattern::ParallelismEfficiency,
        "IOS-ACCESS-PATTERN"
        | "P09"
        | "P10"
        | "P11"
        | "P13"
        | "PIPE-REDUNDANT-READ"
        | "DET-ACCESS-PATTERN" => Pattern::AccessPattern,
        "IOS-INTERFACE" | "S01" | "M01" | "M02" | "M03" | "DET-INTERFACE-CHOICE" => Pattern::InterfaceChoice,
        "IOS-FILE-STRATEGY" | "DET-FILE-STRATEGY" => Pattern::FileStrategy,
        "IOS-THROUGHPUT" | "PIPE-CHECKPOINT" | "DET-THROUGHPUT-UTILIZATION" => Pattern::ThroughputUtilization,
        "IOS-HEALTHY" => Pattern::Healthy,
        _ => return None,
    })
}

/// The IOSage rule of a pattern (the rule whose answers the detector's finding shares).
pub fn rule_code(pattern: Pattern) -> Option<&'static str> {
    Some(match pattern {
        Pattern::AccessGranularity => "IOS-GRANULARITY",
        Pattern::MetadataIntensity => "IOS-METADATA",
        Pattern::ParallelismEfficiency => "IOS-PARALLELISM",
        Pattern::AccessPattern => "IOS-ACCESS-PATTERN",
        Pattern::InterfaceChoice => "IOS-INTERFACE",
        Pattern::FileStrategy => "IOS-FILE-STRATEGY",
        Pattern::ThroughputUtilization => "IOS-THROUGHPUT",
        Pattern::Healthy => return None,
    })
}

/// The counters of a run as the features read them.
pub fn counters(facts: &DarshanFacts) -> Counters<'_> {
    Counters {
        nprocs: facts.nprocs,
        run_time: facts.run_time,
        posix: &facts.posix,
        mpiio: &facts.mpiio,
        stdio: &facts.stdio,
    }
}

/// The model's view of one run.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Detection {
    /// Where the model came from.
    pub model: String,
    /// The run's features.
    pub features: Features,
    /// The decision on every pattern the model knows.
    pub decisions: Vec<Decision>,
}

impl Detection {
    /// The model's decisions on the run of `facts`.
    pub fn of(model: &Model, facts: &DarshanFacts) -> Detection {
        let features = Features::of(&counters(facts));
        let decisions = model.decide(&features);
        Detection { model: model.source.clone(), features, decisions }
    }

    /// The decision on `pattern`, if the model knows it.
    pub fn decision(&self, pattern: Pattern) -> Option<&Decision> {
        self.decisions.iter().find(|decision| decision.pattern == pattern)
    }

    /// The patterns detected (`healthy` left out).
    pub fn detected(&self) -> impl Iterator<Item = &Decision> {
        self.decisions.iter().filter(|decision| decision.present && decision.pattern != Pattern::Healthy)
    }
}

macro_rules! model_doc {
    ($code:literal, $pattern:literal, $title:literal) => {
        RuleDoc {
            code: $code,
            family: Family::Detector,
            title: $title,
            detects: concat!("The learned detector gives the run's counters a probability for IOSage's ", $pattern, " at or above the model's threshold (0.5 unless the model file says otherwise)."),
            why: concat!("The pattern card says why it hurts and what to change: `ioscout explain ", $pattern, "`."),
            evidence: "The model's probability, and the features (normalised Darshan counters) that moved the decision most, with their values and contributions to the log-odds.",
            thresholds: "Reported when the probability reaches the threshold; score = 0.7 x probability x (0.25 + 0.75 x clip01(I/O share / 0.2)), the I/O share on the critical path as the Darshan rules weigh it.",
            references: "IOSage (seed 003): one gradient-boosted classifier per pattern trained on configuration-labelled runs; ioscout's model file and training script (crates/ioscout-detect).",
            change: "",
            not_when: "",
        }
    };
}

/// The documentation of the detector's own findings, one per pattern.
pub static MODEL_DOCS: [RuleDoc; 7] = [
    model_doc!(
        "DET-ACCESS-GRANULARITY",
        "access_granularity",
        "Access granularity, detected by the model: many small reads or writes"
    ),
    model_doc!(
        "DET-METADATA-INTENSITY",
        "metadata_intensity",
        "Metadata intensity, detected by the model: metadata calls take the I/O time"
    ),
    model_doc!(
        "DET-PARALLELISM-EFFICIENCY",
        "parallelism_efficiency",
        "Parallelism efficiency, detected by the model: I/O unequal across ranks"
    ),
    model_doc!(
        "DET-ACCESS-PATTERN",
        "access_pattern",
        "Access pattern, detected by the model: non-sequential offsets"
    ),
    model_doc!(
        "DET-INTERFACE-CHOICE",
        "interface_choice",
        "Interface choice, detected by the model: shared-file I/O without collective MPI-IO"
    ),
    model_doc!(
        "DET-FILE-STRATEGY",
        "file_strategy",
        "File strategy, detected by the model: data spread over many files"
    ),
    model_doc!(
        "DET-THROUGHPUT-UTILIZATION",
        "throughput_utilization",
        "Throughput utilisation, detected by the model: a sync after every write"
    ),
];

/// The documentation of the detector's finding for `pattern` (`None` for `healthy`).
pub fn model_doc(pattern: Pattern) -> Option<&'static RuleDoc> {
    MODEL_DOCS.iter().find(|doc| pattern_of(doc.code) == Some(pattern))
}

/// The highest score a finding the model does not confirm keeps (just under medium).
pub const NOT_CONFIRMED_CEILING: f64 = 0.29;

/// The findings of a run under `detector`, given the rules' `findings`, the model's
/// `detection` (`None` when the model was not asked) and the run's I/O share on its critical
/// path (0..=1). Most severe first.
pub fn join(
    findings: Vec<Finding>,
    detection: Option<&Detection>,
    detector: Detector,
    io_share: f64,
) -> Vec<Finding> {
    let Some(detection) = detection.filter(|_| detector.uses_model()) else { return findings };
    let mut joined: Vec<Finding> = Vec::new();
    if detector == Detector::Both {
        for mut finding in findings {
            let Some(pattern) = finding.pattern else {
                joined.push(finding);
                continue;
            };
            let Some(decision) = detection.decision(pattern) else {
                joined.push(finding);
                continue;
            };
            finding.model =
                Some(ModelCheck { probability: decision.probability, confirmed: decision.present });
            if !decision.present {
                finding.score = finding.score.min(NOT_CONFIRMED_CEILING);
                finding.label = crate::Label::of(finding.score);
            }
            joined.push(finding);
        }
    }
    for decision in detection.detected() {
        let explained = joined.iter().any(|finding| {
            finding.pattern == Some(decision.pattern) && finding.model.is_some_and(|check| check.confirmed)
        });
        if explained {
            continue;
        }
        let Some(doc) = model_doc(decision.pattern) else { continue };
        joined.push(model_finding(doc, decision, io_share));
    }
    crate::sort(&mut joined);
    joined
}

/// The detector's finding for a detected pattern.
fn model_finding(doc: &RuleDoc, decision: &Decision, io_share: f64) -> Finding {
    let score = 0.7 * decision.probability * (0.25 + 0.75 * clip01(io_share / 0.2));
    let drivers: Vec<String> = decision
        .contributions
        .iter()
        .filter(|contribution| contribution.contribution > 0.0)
        .take(3)
        .map(|contribution| format!("{} = {:.3}", contribution.feature, contribution.value))
        .collect();
    let why = format!(
        "the model gives {} a probability of {:.2}{}",
        decision.pattern,
        decision.probability,
        if drivers.is_empty() { String::new() } else { format!(", chiefly on {}", drivers.join(", ")) }
    );
    let mut finding =
        Finding::new(doc, score, "run", why).with("probability", decision.probability, "fraction");
    for contribution in &decision.contributions {
        finding = finding.with(&format!("feature.{}", contribution.feature), contribution.value, "feature");
    }
    finding.model = Some(ModelCheck { probability: decision.probability, confirmed: true });
    finding.with("io_share", io_share, "fraction")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_model_finding_names_its_pattern_and_every_pattern_but_healthy_has_one() {
        for pattern in Pattern::ALL {
            let doc = model_doc(pattern);
            assert_eq!(doc.is_none(), pattern == Pattern::Healthy, "{pattern}");
            if let Some(doc) = doc {
                assert_eq!(pattern_of(doc.code), Some(pattern));
            }
            if let Some(code) = rule_code(pattern) {
                assert_eq!(pattern_of(code), Some(pattern));
            }
        }
    }

    #[test]
    fn every_iosage_rule_speaks_for_its_pattern() {
        for rule in crate::darshan::rules::all() {
            let code = rule.doc().code;
            if code.starts_with("IOS-") {
                assert!(pattern_of(code).is_some(), "{code}");
            }
        }
    }
}
