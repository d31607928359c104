//! The proposal table an agent assembles (`opt_proposal_table`): rows it proposes, each with a
//! citation, checked and ranked the way the optimisation pipeline ranks its own proposals.
//!
//! A row without a citation is rejected. Each accepted row gets its citation's class (paper,
//! docs, web, session), the prior result of a similar change in the knowledge base (token
//! Jaccard similarity of the change descriptions at 0.25 or more, among the entries that apply
//! to this system, workload and software), and a weighted score of 0.5 x potential application
//! impact + 0.5 x potential system impact; rows sort by score, then by citation class.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::kb::{self, Entry};

/// Similarity at which a knowledge-base entry counts as the same lever.
const SIMILAR: f64 = 0.25;

/// One row as the agent proposes it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct ProposedRow {
    /// `L1`, `L2` or `L3`.
    #[serde(default)]
    pub level: String,
    /// The bottleneck it answers.
    #[serde(default)]
    pub bottleneck: String,
    /// The change.
    #[serde(default)]
    pub change: String,
    /// What the agent expects (free text).
    #[serde(default)]
    pub expected_delta: String,
    /// Where the technique is documented.
    #[serde(default)]
    pub citation: String,
    /// `proposed`, `applied`, `skipped`...
    #[serde(default)]
    pub status: Option<String>,
    /// Why it was not applied.
    #[serde(default)]
    pub skip_reason: Option<String>,
    /// Potential application impact in percent (0 when not applicable).
    #[serde(default)]
    pub app_impact_pct: f64,
    /// Potential system impact in percent (0 when not applicable).
    #[serde(default)]
    pub system_impact_pct: f64,
    /// Measured application impact, once applied.
    #[serde(default)]
    pub actual_app_impact_pct: Option<f64>,
    /// Measured system impact, once applied.
    #[serde(default)]
    pub actual_system_impact_pct: Option<f64>,
}

/// An accepted row with what the table adds.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct RankedRow {
    /// Rank, from 1.
    pub rank: usize,
    /// The row.
    #[serde(flatten)]
    pub row: ProposedRow,
    /// The citation's class.
    pub citation_type: kb::CitationType,
    /// 0.5 x app + 0.5 x system potential.
    pub weighted_score: f64,
    /// The prior result of the same lever here: `"win (+12.0%)"`, or `"untried here"`.
    pub prior: String,
}

/// A rejected row and why.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct RejectedRow {
    /// The row.
    pub row: ProposedRow,
    /// Why.
    pub reason: String,
}

/// The table.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct ProposalTable {
    /// Accepted rows, ranked.
    pub accepted: Vec<RankedRow>,
    /// Rejected rows.
    pub rejected: Vec<RejectedRow>,
    /// The table in Markdown, with the footer.
    pub markdown: String,
}

fn tokens(text: &str) -> BTreeSet<String> {
    text.to_ascii_lowercase()
        .split(|character: char| !(character.is_ascii_alphanumeric() || character == '_' || character == '+'))
        .filter(|token| token.len() > 2)
        .map(str::to_string)
        .collect()
}

/// Jaccard similarity of the token sets of two descriptions.
pub fn similarity(left: &str, right: &str) -> f64 {
    let (left, right) = (tokens(left), tokens(right));
    let union = left.union(&right).count();
    if union == 0 {
        return 0.0;
    }
    left.intersection(&right).count() as f64 / union as f64
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

fn percent(value: Option<f64>) -> String {
    value.map_or_else(|| "-".to_string(), |value| format!("{value:.1} %"))
}

/// Checks and ranks `rows` against the knowledge-base `entries` that apply to this system,
/// workload and software.
pub fn build(
    rows: Vec<ProposedRow>,
    entries: &[Entry],
    system: Option<&str>,
    workload: Option<&str>,
    software: Option<&str>,
) -> ProposalTable {
    let relevant = kb::lookup(entries, system, workload, software);
    let mut accepted = Vec::new();
    let mut rejected = Vec::new();
    for row in rows {
        if row.citation.trim().is_empty() {
            rejected.push(RejectedRow { row, reason: "no citation: every proposal needs one".into() });
            continue;
        }
        if row.change.trim().is_empty() {
            rejected.push(RejectedRow { row, reason: "no change described".into() });
            continue;
        }
        if !row.app_impact_pct.is_finite() || !row.system_impact_pct.is_finite() {
            rejected.push(RejectedRow { row, reason: "impact is not a number".into() });
            continue;
        }
        let prior = relevant
            .iter()
            .map(|found| (similarity(&row.change, &found.entry.input.change), &found.entry))
            .filter(|(score, _)| *score >= SIMILAR)
            .max_by(|left, right| left.0.total_cmp(&right.0))
            .map_or_else(
                || "untried here".to_string(),
                |(_, entry)| match entry.delta_pct {
                    Some(delta) => format!("{} ({delta:+.1}%)", entry.verdict),
                    None => entry.verdict.name().to_string(),
                },
            );
        let weighted_score = 0.5 * row.app_impact_pct + 0.5 * row.system_impact_pct;
        accepted.push(RankedRow {
            rank: 0,
            citation_type: kb::citation_type(&row.citation),
            weighted_score,
            prior,
            row,
        });
    }
    accepted.sort_by(|left, right| {
        right
            .weighted_score
            .total_cmp(&left.weighted_score)
            .then(left.citation_type.cmp(&right.citation_type))
            .then(left.row.level.cmp(&right.row.level))
    });
    for (index, row) in accepted.iter_mut().enumerate() {
        row.rank = index + 1;
    }
    let mut markdown = String::from(
        "| # | Strategy | Description | Potential App Impact | Potential System Impact | Actual App Impact | Actual System Impact | Weighted Score | Citation | Type | Prior result here | Status | Why not applied |\n|---:|---|---|---:|---:|---:|---:|---:|---|---|---|---|---|\n",
    );
    for ranked in &accepted {
        let row = &ranked.row;
        let _ = writeln!(
            markdown,
            "| {} | {} {} | {} | {:.1} % | {:.1} % | {} | {} | {:.2} | {} | {} | {} | {} | {} |",
            ranked.rank,
            cell(&row.level),
            cell(&row.bottleneck),
            cell(&row.change),
            row.app_impact_pct,
            row.system_impact_pct,
            percent(row.actual_app_impact_pct),
            percent(row.actual_system_impact_pct),
            ranked.weighted_score,
            cell(&row.citation),
            ranked.citation_type,
            ranked.prior,
            cell(row.status.as_deref().unwrap_or("proposed")),
            cell(row.skip_reason.as_deref().unwrap_or("")),
        );
    }
    for rejection in &rejected {
        let _ = writeln!(markdown, "\nRejected: {} ({})", cell(&rejection.row.change), rejection.reason);
    }
    markdown.push_str(
        "\nApply one row at a time, measure it, record it in the knowledge base (`opt_kb_record`), and keep every candidate in this table with its status.\n",
    );
    ProposalTable { accepted, rejected, markdown }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(change: &str, app: f64, system: f64, citation: &str) -> ProposedRow {
        ProposedRow {
            level: "L2".into(),
            change: change.into(),
            citation: citation.into(),
            app_impact_pct: app,
            system_impact_pct: system,
            ..ProposedRow::default()
        }
    }

    #[test]
    fn uncited_rows_are_rejected_and_the_rest_ranked_by_weighted_score() {
        let table = build(
            vec![
                row("raise read_threads to 8", 10.0, 0.0, "https://docs.example/read_threads"),
                row("stripe the dataset over 8 OSTs", 20.0, 40.0, "doi.org/10.1145/x"),
                row("cache the dataset in memory", 50.0, 50.0, ""),
            ],
            &[],
            None,
            None,
            None,
        );
        assert_eq!(table.rejected.len(), 1);
        assert_eq!(table.accepted[0].row.change, "stripe the dataset over 8 OSTs");
        assert!((table.accepted[0].weighted_score - 30.0).abs() < 1e-9);
        assert_eq!(table.accepted[0].citation_type, kb::CitationType::Paper);
        assert_eq!(table.accepted[1].rank, 2);
        assert!(table.markdown.contains("untried here"));
    }

    #[test]
    fn a_similar_change_in_the_knowledge_base_is_its_prior() {
        let input = kb::EntryInput {
            system: "here".into(),
            workload: "unet3d".into(),
            software: "pytorch".into(),
            citation: "https://docs.example".into(),
            ..kb::EntryInput::measured(
                kb::Layer::L2,
                "epoch_time_s".into(),
                100.0,
                80.0,
                "raise read_threads from 1 to 8".into(),
            )
        };
        let entry = kb::evaluate(input, 0).ok();
        let entries: Vec<Entry> = entry.into_iter().collect();
        let table = build(
            vec![row("raise read_threads to 8", 10.0, 0.0, "https://docs.example")],
            &entries,
            Some("here"),
            Some("unet3d"),
            Some("pytorch"),
        );
        assert_eq!(table.accepted[0].prior, "win (+20.0%)");
        assert!(similarity("raise read_threads to 8", "lower the stripe count") < SIMILAR);
    }
}
