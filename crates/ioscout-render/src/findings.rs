//! The terminal text of a diagnosis (`ioscout diagnose`): the findings as one table grouped by
//! the bottleneck they point at, and the rule findings the learned detector did not confirm folded
//! into one line. The service diagnoses and hands the findings here.

use std::collections::BTreeMap;

use ioscout_diagnose::{Dimension, Finding, Recurrence, RuleDoc};

use crate::table::Table;
use crate::text::why_of;

/// The root cause a finding points at, for grouping: its bottleneck dimension.
fn cause(finding: &Finding) -> &'static str {
    match ioscout_diagnose::dimension(finding.code) {
        Some(Dimension::MetadataOps) => "metadata",
        Some(Dimension::Iops) => "request size and pattern",
        Some(Dimension::Bandwidth) => "bandwidth",
        Some(Dimension::Time) => "time on the critical path",
        None => "context",
    }
}

/// The findings as a table grouped by root cause: groups in the order of their most severe
/// finding, findings by score within a group. Unless `all`, the rule findings the learned
/// detector does not confirm are folded into one line after the table.
pub fn text(
    findings: &[Finding],
    label: &str,
    recurrences: Option<&BTreeMap<&'static str, Recurrence>>,
    all: bool,
) -> String {
    let unconfirmed = |finding: &&Finding| finding.model.is_some_and(|check| !check.confirmed);
    let folded: Vec<&Finding> = if all { Vec::new() } else { findings.iter().filter(unconfirmed).collect() };
    let shown: Vec<Finding> =
        findings.iter().filter(|finding| all || !unconfirmed(finding)).cloned().collect();
    let folded_line = if folded.is_empty() {
        String::new()
    } else {
        let codes: Vec<&str> = folded.iter().map(|finding| finding.code).collect();
        format!(
            "{} not confirmed by the learned detector ({}): `--all` shows them.\n",
            crate::text::count_of(folded.len() as u64, "rule finding", "rule findings"),
            codes.join(", ")
        )
    };
    let findings = shown.as_slice();
    if findings.is_empty() {
        return format!("No findings ({label}).\n{folded_line}");
    }
    let mut groups: Vec<(&'static str, Vec<&Finding>)> = Vec::new();
    for finding in findings {
        let key = cause(finding);
        match groups.iter_mut().find(|(cause, _)| *cause == key) {
            Some((_, members)) => members.push(finding),
            None => groups.push((key, vec![finding])),
        }
    }
    let title = format!("Findings ({}, {label}), grouped by root cause", findings.len());
    let mut table = if recurrences.is_some() {
        Table::new(
            &title,
            &["Cause", "Severity", "Score", "Code", "Windows", "Scope", "Why"],
            &[false, false, true, false, true, false, false],
        )
    } else {
        Table::new(
            &title,
            &["Cause", "Severity", "Score", "Code", "Scope", "Why"],
            &[false, false, true, false, false, false],
        )
    };
    for (cause, members) in &groups {
        for (index, finding) in members.iter().enumerate() {
            let mut row = vec![
                if index == 0 { (*cause).to_string() } else { String::new() },
                finding.label.name().to_string(),
                format!("{:.2}", finding.score),
                finding.code.to_string(),
            ];
            if let Some(recurrences) = recurrences {
                row.push(recurrences.get(finding.code).map_or_else(
                    || "-".to_string(),
                    |recurrence| {
                        format!("{}/{} run {}", recurrence.seen, recurrence.windows, recurrence.persistence)
                    },
                ));
            }
            row.push(finding.scope.clone());
            row.push(why_of(finding));
            table.row(row);
        }
    }
    let mut out = table.render();
    if recurrences.is_some() {
        out.push_str(
            "\nWindows: in how many time windows the rule fired on its own, and its longest run of consecutive windows.",
        );
    }
    out.push_str("\n`ioscout explain CODE` gives the rule's full documentation.\n");
    out.push_str(&folded_line);
    out
}

/// The rule list (`ioscout rules`): each rule's code, family, the input it reads and its title.
pub fn rules_text(docs: &[(&'static str, &'static RuleDoc)]) -> String {
    let mut table =
        Table::new(&format!("Rules ({})", docs.len()), &["Code", "Family", "Input", "Title"], &[false; 4]);
    for (input, doc) in docs {
        table.row(vec![
            doc.code.to_string(),
            doc.family.name().to_string(),
            (*input).to_string(),
            doc.title.to_string(),
        ]);
    }
    table.render()
}
