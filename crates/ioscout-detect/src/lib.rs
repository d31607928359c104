//! ioscout's learned detector: which of IOSage's bottleneck patterns a run has, decided by a
//! classifier trained on labelled runs instead of thresholds set by hand (seed `003_...`).
//!
//! # Flow
//!
//! ```text
//! Darshan log records | records derived from a trace (ioscout-evidence)
//!   -> features::Features::of   normalised counters, one documented table
//!   -> model::Model::decide     one gradient-boosted tree ensemble per pattern, evaluated here
//!   -> Decision per pattern     probability, present or not, the features that drove it
//!   -> ioscout-diagnose         joins the decisions with the rules' findings (--detector)
//! ```
//!
//! [`cards`] holds a card per pattern (what it looks like, the change, when the change does not
//! apply, typical values of its training runs). The training script is
//! `crates/ioscout-detect/train/train.py`; the model that ships is `model/detector-v1.json`.

pub mod cards;
pub mod features;
pub mod model;
pub mod pattern;

pub use cards::Card;
pub use features::{Counters, FEATURES, Features};
pub use model::{Decision, Model, ModelError};
pub use pattern::Pattern;
