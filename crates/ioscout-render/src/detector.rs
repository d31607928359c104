//! The learned detector as users read it: the line of a diagnosis on the patterns detected,
//! each run's feature vector (`ioscout detect features`), the documented feature table
//! (`--list`), and a pattern's card (`ioscout explain PATTERN`) with the strategies that answer
//! it. The service runs the detector and hands its results here.

use std::fmt::Write as _;

use ioscout_advise::catalog::Strategy;
use ioscout_detect::{Card, FEATURES, Features, Pattern};
use ioscout_diagnose::detector::Detection;

use crate::table::Table;

/// One line per run: the patterns the learned detector detects, with their probabilities.
pub fn detection_text(detection: Option<&Detection>) -> String {
    let Some(detection) = detection else { return String::new() };
    let detected: Vec<String> = detection
        .detected()
        .map(|decision| format!("{} {:.2}", decision.pattern, decision.probability))
        .collect();
    if detected.is_empty() {
        let healthy = detection.decision(Pattern::Healthy).map_or(0.0, |decision| decision.probability);
        format!("Patterns (model): none detected (healthy {healthy:.2})\n")
    } else {
        format!("Patterns (model): {}\n", detected.join(", "))
    }
}

/// One run's feature vector: its path, source and processes, then a line per feature.
pub fn features_text(path: &str, source: &str, nprocs: i64, features: &Features) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "{path} ({source}, {nprocs} processes)");
    let width = FEATURES.iter().map(|feature| feature.name.len()).max().unwrap_or(0);
    for (name, value) in features.named() {
        let _ = writeln!(text, "  {name:width$}  {value:.6}");
    }
    text
}

/// The documented feature table: each feature's name and definition.
pub fn feature_list_text() -> String {
    let mut table = Table::new(
        &format!("Detector features ({})", FEATURES.len()),
        &["Feature", "Definition"],
        &[false; 2],
    );
    for feature in FEATURES {
        table.row(vec![feature.name.to_string(), feature.doc.to_string()]);
    }
    table.render()
}

/// A pattern's card, then the catalog's strategies that answer its rule.
pub fn card_text(card: &Card, strategies: &[&Strategy]) -> String {
    let mut text = card.render();
    if !strategies.is_empty() {
        let _ = writeln!(text, "  Strategies that answer it (`ioscout advise`):");
        for strategy in strategies {
            let _ = writeln!(text, "    {}: {}", strategy.id, strategy.name);
        }
    }
    text
}
