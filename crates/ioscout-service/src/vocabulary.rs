//! The typed vocabulary every front end shares: the names a user, an agent or a script gives
//! for presets, overlap modes, rule families, severities, bottleneck dimensions, directions, the
//! detector's mode, output formats and what compared runs are sorted by. Each is one enum, defined in the stage it belongs to, that
//! parses from the command line (clap's `ValueEnum`), from JSON (serde) and describes itself in the
//! MCP tools' JSON Schemas (schemars), so the CLI, the MCP server and the Python package accept
//! and print the same words.

pub use ioscout_advise::compare::SortMetric;
pub use ioscout_analysis::{OverlapMode, PresetName};
pub use ioscout_darshan::totals::{GroupBy, RankBy};
pub use ioscout_diagnose::detector::Detector;
pub use ioscout_diagnose::{Dimension, Direction, Family, Label as Severity};
pub use ioscout_render::rows::Format as ViewFormat;
