//! The terminal text of `ioscout optimize`: the proposals ranked by what was measured (advised
//! rank, predicted and measured App Impact, the median speedup with its interval, the verdict),
//! what the predicted impact is a share of and what tracing added, the variants of strategies the
//! advice did not propose, failures, the wins the advice missed, and where the knowledge base and
//! the artifacts went. The service runs the loop ([`ioscout_tune::optimize`] measures) and hands
//! its report here.

use std::fmt::Write as _;

use ioscout_tune::optimize::{Measured, OptimizeReport};

use crate::table::Table;
use crate::text::display_path;

/// What the predicted App Impact is a share of, and what tracing added.
fn time_base(result: &OptimizeReport) -> String {
    let job = result.advice.measurements.job_time_s;
    match &result.tracer {
        Some(tracer) => format!(
            "Predicted: a share of the traced job ({job:.3} s); tracing added {:+.0} % (traced run {:.3} s, untraced median {:.3} s; {:.1} us per event over {} events of the busiest process)",
            tracer.added_pct,
            tracer.traced_wall_s,
            tracer.untraced_wall_s,
            tracer.per_event_s * 1e6,
            tracer.events
        ),
        None => format!(
            "Predicted: a share of the traced job ({job:.3} s, from the spec's traces; --preload traces the baseline here and says what tracing added)"
        ),
    }
}

/// The report as text.
pub fn text(result: &OptimizeReport) -> String {
    let mut out = format!(
        "Evidence: {} · {} pairs per variant, baseline and variant alternated · noise margin {:.0} %\n\n",
        display_path(&result.evidence),
        result.pairs,
        result.noise_margin * 100.0
    );
    let mut table = Table::new(
        "Proposals, ranked by what was measured",
        &["#", "Advised", "Strategy", "Predicted", "Measured", "Speedup (interval)", "Verdict"],
        &[true, true, false, true, true, false, false],
    );
    for ranked in &result.ranked {
        table.row(vec![
            ranked.rank.to_string(),
            ranked.advised_rank.to_string(),
            ranked.id.clone(),
            format!("{:.1} %", ranked.predicted_impact_pct),
            ranked.measured_impact_pct.map_or_else(|| "-".to_string(), |impact| format!("{impact:.1} %")),
            match (ranked.speedup, ranked.interval) {
                (Some(speedup), Some((low, high, _))) => format!("{speedup:.2}x ({low:.2}-{high:.2})"),
                (Some(speedup), None) => format!("{speedup:.2}x"),
                _ => "-".to_string(),
            },
            ranked.verdict.to_string(),
        ]);
    }
    if result.ranked.is_empty() {
        out.push_str("No proposals: the advice found nothing to change, so nothing was measured.\n");
    } else {
        out.push_str(&table.render());
        let _ = writeln!(out, "{}", time_base(result));
    }
    let others: Vec<&Measured> = result.measured.iter().filter(|found| found.proposal.is_none()).collect();
    if !others.is_empty() {
        out.push_str("\nVariants of strategies the advice did not propose\n");
        for found in others {
            let _ = writeln!(
                out,
                "  {} ({}): {}{}",
                found.variant,
                found.implements.join(", "),
                found
                    .measurement
                    .median
                    .map_or_else(|| "not measured".to_string(), |median| format!("{median:.2}x, ")),
                found.measurement.verdict.name()
            );
        }
    }
    for found in result.measured.iter().filter(|found| !found.measurement.failures.is_empty()) {
        let _ = writeln!(out, "  {}: {}", found.variant, found.measurement.failures.join("; "));
    }
    if !result.missed_wins.is_empty() {
        let _ = writeln!(out, "\nMissed by the advice (measured wins): {}", result.missed_wins.join(", "));
    }
    if let Some(kb) = &result.kb {
        let _ = writeln!(out, "\nKnowledge base: {}", display_path(kb));
    }
    if let Some(artifacts) = &result.artifacts {
        let _ = writeln!(out, "Artifacts: {}", display_path(artifacts));
    }
    out
}
