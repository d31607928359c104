//! The terminal text of advice (`ioscout advise`): the 12-dimension checklist, the proposals
//! ranked with their change, rollback, bound and citation, and the strategies not proposed with
//! the gate that stopped each. The service computes the advice and hands it here.

use std::fmt::Write as _;

use ioscout_advise::Advice;

use crate::table::Table;

/// The advice as text: the run in one line, the checklist, the ranked proposals with what each
/// changes, how to roll it back, its bound and its citation, the diagnostic bounds, and what was
/// not proposed and why.
pub fn text(advice: &Advice, metric: ioscout_diagnose::Dimension) -> String {
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
        let io_share_pct = measurements.share(measurements.io_time_s) * 100.0;
        if advice.proposals.iter().any(|proposal| proposal.app_impact_pct > io_share_pct + 0.005) {
            let _ = writeln!(
                out,
                "  App Impact above the I/O's {io_share_pct:.1} % of the run: a change that issues fewer calls also saves the caller's own time around each call it removes (its bound below says how much)"
            );
        }
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
