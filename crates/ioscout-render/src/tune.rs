//! The terminal text of `ioscout tune`: what was searched, the subset, the best configuration
//! against the baseline, the validation at full size, the diagnostic bounds, and every
//! evaluation. The tune crate searches and hands its report here.

use std::fmt::Write as _;

use ioscout_tune::Report;
use ioscout_tune::spec::render;

/// The report as text: the best configuration, the subset, the validation, every evaluation.
pub fn text(report: &Report) -> String {
    let mut out = format!(
        "Tuning {} with {} ({}): {} search evaluations ({} in all) of a {}-configuration grid\n",
        report.name,
        report.strategy,
        report.objective,
        report.evaluations,
        report.total_evaluations,
        report.grid_size
    );
    if let Some(subset) = &report.subset {
        let _ = writeln!(
            out,
            "Subset: size {} of {} (fidelity {})",
            subset.size,
            subset.full,
            subset.fidelity.map_or_else(|| "-".into(), |value| format!("{value:.3}"))
        );
    }
    match (&report.best, report.baseline_score) {
        (Some(best), baseline) => {
            let params: Vec<String> =
                best.params.iter().map(|(name, value)| format!("{name}={}", render(value))).collect();
            let _ = writeln!(
                out,
                "Best: {} -> {:.4} (baseline {})",
                params.join(" "),
                best.score,
                baseline.map_or_else(|| "failed".into(), |value| format!("{value:.4}"))
            );
        }
        (None, _) => out.push_str("Best: none (every evaluation failed)\n"),
    }
    if let Some(validation) = &report.validation {
        let number = |value: Option<f64>, suffix: &str| {
            value.map_or_else(|| "-".into(), |value| format!("{value:.3}{suffix}"))
        };
        let _ = writeln!(
            out,
            "Validation at full size: baseline {} best {}, speedup {} (subset {}), tuning fidelity {}",
            number(validation.baseline, ""),
            number(validation.best, ""),
            number(validation.speedup_full, "x"),
            number(validation.speedup_subset, "x"),
            number(validation.tuning_fidelity, "")
        );
    }
    for bound in &report.diagnostic_bounds {
        let _ = writeln!(
            out,
            "Diagnostic bound (changes what the application does; not recommended): {}={} -> {:.4} ({:+.1} % against its default)",
            bound.parameter,
            render(&bound.value),
            bound.score,
            bound.gain_pct
        );
    }
    out.push_str("\n  #  phase       size  status     objective  seconds  parameters\n");
    for record in &report.history {
        let params: Vec<String> =
            record.params.iter().map(|(name, value)| format!("{name}={}", render(value))).collect();
        let _ = writeln!(
            out,
            "{:>3}  {:<10} {:>5}  {:<9} {:>10} {:>8.1}  {}{}",
            record.index,
            record.phase,
            record.size.map_or_else(|| "-".into(), |size| size.to_string()),
            format!("{:?}", record.evaluation.status).to_lowercase(),
            record.score.map_or_else(|| "-".into(), |score| format!("{score:.4}")),
            record.evaluation.seconds,
            params.join(" "),
            if record.evaluation.message.is_empty() {
                String::new()
            } else {
                format!("  ({})", record.evaluation.message)
            }
        );
    }
    out
}
