//! The knowledge base of measured results: an append-only JSON-lines file. Each entry is one
//! change measured before and after, with its verdict; a system-scoped entry must carry the
//! paired application metric, and an application regression of more than 2 % makes any entry a
//! regression (the non-degradation guard). Appends take an exclusive lock, write one whole line
//! and sync, so concurrent writers lose nothing and a crash leaves at most a truncated last line,
//! which readers skip and report.

use std::fmt::Write as _;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Verdict thresholds: a win at +5 % or better, a regression at -5 % or worse.
const WIN_PCT: f64 = 5.0;
/// The application may not regress by more than this for a system change to count.
const APP_TOLERANCE_PCT: f64 = 2.0;

/// The layer of the stack a change is made in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum Layer {
    /// The workload: its code, configuration and data layout.
    L1,
    /// The software it uses: I/O libraries, middleware, the framework.
    L2,
    /// The system: file system, kernel, hardware.
    L3,
}

impl Layer {
    /// Every layer, from the workload down.
    pub const ALL: [Layer; 3] = [Layer::L1, Layer::L2, Layer::L3];

    /// `L1`, `L2` or `L3`.
    pub fn name(self) -> &'static str {
        match self {
            Layer::L1 => "L1",
            Layer::L2 => "L2",
            Layer::L3 => "L3",
        }
    }

    /// What the layer is called in a lookup's scope: `workload`, `software` or `system`.
    pub fn scope(self) -> &'static str {
        match self {
            Layer::L1 => "workload",
            Layer::L2 => "software",
            Layer::L3 => "system",
        }
    }
}

impl std::fmt::Display for Layer {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.name())
    }
}

impl std::str::FromStr for Layer {
    type Err = KbError;

    /// `L1`, `L2` or `L3`; anything else is refused, as the knowledge base refuses it.
    fn from_str(text: &str) -> Result<Layer, KbError> {
        Layer::ALL
            .into_iter()
            .find(|layer| layer.name() == text)
            .ok_or_else(|| KbError::Refused(format!("layer {text:?} is not L1, L2 or L3")))
    }
}

/// Whose metric an entry measures: the application's, or the system's (which must be paired
/// with an application metric).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum MetricScope {
    /// The application's metric (a time, a throughput it reports).
    #[default]
    App,
    /// A system metric (aggregate bandwidth, metadata rate).
    System,
}

impl MetricScope {
    /// `app` or `system`.
    pub fn name(self) -> &'static str {
        match self {
            MetricScope::App => "app",
            MetricScope::System => "system",
        }
    }
}

impl std::str::FromStr for MetricScope {
    type Err = KbError;

    /// `app` or `system`; anything else is refused, as the knowledge base refuses it.
    fn from_str(text: &str) -> Result<MetricScope, KbError> {
        [MetricScope::App, MetricScope::System]
            .into_iter()
            .find(|scope| scope.name() == text)
            .ok_or_else(|| KbError::Refused(format!("metric_scope {text:?} is not app or system")))
    }
}

/// What a measured change did, by the five-percent rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Better by five percent or more.
    Win,
    /// Within five percent.
    NoChange,
    /// Worse by five percent or more (or the application regressed: the guard).
    Regression,
    /// Not decidable (the value before was 0 or not a number).
    Unknown,
}

impl Verdict {
    /// `win`, `no_change`, `regression` or `unknown`.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Win => "win",
            Verdict::NoChange => "no_change",
            Verdict::Regression => "regression",
            Verdict::Unknown => "unknown",
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.name())
    }
}

/// What kind of source a citation is, from the most citable to the least (the order the
/// proposal table breaks ties in).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum CitationType {
    /// A paper (a DOI, arXiv, a publisher).
    Paper,
    /// A project's documentation.
    Docs,
    /// Anything else on the web.
    Web,
    /// A measurement of a session (`session:<id>`).
    Session,
}

impl CitationType {
    /// `paper`, `docs`, `web` or `session`.
    pub fn name(self) -> &'static str {
        match self {
            CitationType::Paper => "paper",
            CitationType::Docs => "docs",
            CitationType::Web => "web",
            CitationType::Session => "session",
        }
    }
}

impl std::fmt::Display for CitationType {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.name())
    }
}

/// What `record` reads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct EntryInput {
    /// System (machine) name.
    pub system: String,
    /// Workload name.
    pub workload: String,
    /// Software (comma-separated: `hdf5,mpich`).
    #[serde(default)]
    pub software: String,
    /// `L1` (workload), `L2` (software) or `L3` (system).
    pub layer: Layer,
    /// `app` or `system`.
    #[serde(default)]
    pub metric_scope: MetricScope,
    /// Metric name.
    pub metric: String,
    /// Value before the change.
    pub before: f64,
    /// Value after.
    pub after: f64,
    /// Whether larger is better.
    pub higher_is_better: bool,
    /// Paired application metric (required for `system` scope).
    #[serde(default)]
    pub app_metric: Option<String>,
    /// Its value before.
    #[serde(default)]
    pub app_before: Option<f64>,
    /// Its value after.
    #[serde(default)]
    pub app_after: Option<f64>,
    /// Whether larger is better for it.
    #[serde(default)]
    pub app_higher_is_better: Option<bool>,
    /// The change made.
    pub change: String,
    /// Citation (paper, documentation, or `session:<id>`).
    #[serde(default)]
    pub citation: String,
    /// Caveats.
    #[serde(default)]
    pub caveats: String,
    /// The catalog strategy it applied, when one.
    #[serde(default)]
    pub strategy: Option<String>,
    /// The bottleneck the change addressed (a rule code or a free description).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub bottleneck: String,
    /// The run (session) it was measured in.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub run_id: String,
}

impl EntryInput {
    /// A change made in `layer` that took `metric` from `before` to `after` (smaller is better),
    /// with every other field empty: the base the callers fill in.
    pub fn measured(layer: Layer, metric: String, before: f64, after: f64, change: String) -> EntryInput {
        EntryInput {
            system: String::new(),
            workload: String::new(),
            software: String::new(),
            layer,
            metric_scope: MetricScope::App,
            metric,
            before,
            after,
            higher_is_better: false,
            app_metric: None,
            app_before: None,
            app_after: None,
            app_higher_is_better: None,
            change,
            citation: String::new(),
            caveats: String::new(),
            strategy: None,
            bottleneck: String::new(),
            run_id: String::new(),
        }
    }
}

/// A stored entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Entry {
    /// Seconds since the epoch when recorded.
    pub ts: u64,
    /// The input.
    #[serde(flatten)]
    pub input: EntryInput,
    /// Improvement in percent (positive is better); `None` when `before` is 0.
    pub delta_pct: Option<f64>,
    /// What the change did.
    pub verdict: Verdict,
    /// Improvement of the paired application metric.
    pub app_delta_pct: Option<f64>,
    /// Its verdict.
    pub app_verdict: Option<Verdict>,
    /// The non-degradation guard turned the verdict into a regression.
    pub guard_triggered: bool,
    /// What kind of source the citation is.
    pub citation_type: CitationType,
}

/// A knowledge-base problem.
#[derive(Debug, thiserror::Error)]
pub enum KbError {
    /// The entry is refused.
    #[error("refused: {0}")]
    Refused(String),
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The knowledge base.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// Improvement in percent, positive when better.
pub fn delta_pct(before: f64, after: f64, higher_is_better: bool) -> Option<f64> {
    if before == 0.0 || !before.is_finite() || !after.is_finite() {
        return None;
    }
    let change = (after - before) / before.abs() * 100.0;
    Some(if higher_is_better { change } else { -change })
}

fn verdict_of(delta: Option<f64>) -> Verdict {
    match delta {
        None => Verdict::Unknown,
        Some(delta) if delta >= WIN_PCT => Verdict::Win,
        Some(delta) if delta <= -WIN_PCT => Verdict::Regression,
        Some(_) => Verdict::NoChange,
    }
}

/// The class of a citation.
pub fn citation_type(citation: &str) -> CitationType {
    let lower = citation.to_ascii_lowercase();
    if lower.starts_with("session:") {
        CitationType::Session
    } else if ["arxiv", "doi.org", "10.", "acm.org", "ieee", "usenix", "osti.gov", "escholarship"]
        .iter()
        .any(|mark| lower.contains(mark))
    {
        CitationType::Paper
    } else if [
        "docs.",
        "readthedocs",
        "hdfgroup.org",
        "mpich.org",
        "lustre.org",
        "wiki.",
        "kernel.org",
        "pytorch.org",
    ]
    .iter()
    .any(|mark| lower.contains(mark))
    {
        CitationType::Docs
    } else {
        CitationType::Web
    }
}

/// Computes an entry's verdict, refusing what the rules refuse.
pub fn evaluate(input: EntryInput, ts: u64) -> Result<Entry, KbError> {
    let delta = delta_pct(input.before, input.after, input.higher_is_better);
    let mut verdict = verdict_of(delta);
    let (mut app_delta, mut app_verdict, mut guard) = (None, None, false);
    let paired = (input.app_metric.as_ref(), input.app_before, input.app_after, input.app_higher_is_better);
    if input.metric_scope == MetricScope::System {
        let (Some(_), Some(before), Some(after), Some(higher)) = paired else {
            return Err(KbError::Refused(
                "a system-scoped entry needs its paired application metric (app_metric, app_before, app_after, app_higher_is_better)".into(),
            ));
        };
        app_delta = delta_pct(before, after, higher);
    } else if let (Some(_), Some(before), Some(after), Some(higher)) = paired {
        app_delta = delta_pct(before, after, higher);
    }
    if let Some(delta) = app_delta {
        let app = if delta <= -APP_TOLERANCE_PCT { Verdict::Regression } else { verdict_of(Some(delta)) };
        app_verdict = Some(app);
        if app == Verdict::Regression {
            guard = verdict != Verdict::Regression;
            verdict = Verdict::Regression;
        }
    }
    let citation_type = citation_type(&input.citation);
    Ok(Entry {
        ts,
        input,
        delta_pct: delta,
        verdict,
        app_delta_pct: app_delta,
        app_verdict,
        guard_triggered: guard,
        citation_type,
    })
}

/// Appends `entry` as one line, under an exclusive lock, and syncs it.
pub fn append(path: &Path, entry: &Entry) -> Result<(), KbError> {
    let io = |source| KbError::Io { path: path.to_path_buf(), source };
    let mut line = serde_json::to_string(entry).map_err(|error| io(std::io::Error::other(error)))?;
    line.push('\n');
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(path).map_err(io)?;
    file.lock().map_err(io)?;
    // A previous writer that crashed mid-line left no newline: start on a fresh line.
    let length = file.metadata().map_err(io)?.len();
    if length > 0 {
        let mut last = [0_u8; 1];
        let reader = std::fs::File::open(path).map_err(io)?;
        if std::os::unix::fs::FileExt::read_at(&reader, &mut last, length - 1).map_err(io)? == 1
            && last[0] != b'\n'
        {
            line.insert(0, '\n');
        }
    }
    file.write_all(line.as_bytes()).map_err(io)?;
    file.sync_all().map_err(io)?;
    file.unlock().map_err(io)?;
    Ok(())
}

/// Lines that could not be read: 1-based line number and why.
pub type Skipped = Vec<(usize, String)>;

/// The entries of a knowledge base, and the lines that could not be read (1-based line numbers
/// with the reason): a truncated last line after a crash, or a corrupt one.
pub fn read(path: &Path) -> Result<(Vec<Entry>, Skipped), KbError> {
    let io = |source| KbError::Io { path: path.to_path_buf(), source };
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), Vec::new())),
        Err(error) => return Err(io(error)),
    };
    let mut entries = Vec::new();
    let mut skipped = Vec::new();
    for (index, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(io)?;
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Entry>(&line) {
            Ok(entry) => entries.push(entry),
            Err(error) => skipped.push((index + 1, error.to_string())),
        }
    }
    Ok((entries, skipped))
}

/// An entry with its relevance to a lookup.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Match {
    /// Relevance (higher first).
    pub relevance: i64,
    /// The entry.
    pub entry: Entry,
}

/// The entries that apply to `system`, `workload` and `software` (comma-separated), most relevant
/// first: system findings (L3) only on their system, workload findings (L1) only with their
/// workload, software findings (L2) travel to any run using that software (or to any run when no
/// software is given).
pub fn lookup(
    entries: &[Entry],
    system: Option<&str>,
    workload: Option<&str>,
    software: Option<&str>,
) -> Vec<Match> {
    let wanted: Vec<String> = software
        .map(|list| {
            list.split(',')
                .map(|item| item.trim().to_ascii_lowercase())
                .filter(|item| !item.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let mut matches: Vec<Match> = entries
        .iter()
        .filter_map(|entry| {
            let input = &entry.input;
            let same_system = system.is_some_and(|system| system == input.system);
            let same_workload = workload.is_some_and(|workload| workload == input.workload);
            let mut relevance = match input.layer {
                Layer::L3 => {
                    if !same_system {
                        return None;
                    }
                    100
                }
                Layer::L1 => {
                    if !same_workload {
                        return None;
                    }
                    100
                }
                Layer::L2 => {
                    let theirs: Vec<String> =
                        input.software.split(',').map(|item| item.trim().to_ascii_lowercase()).collect();
                    if wanted.is_empty() {
                        40
                    } else if theirs.iter().any(|item| wanted.contains(item)) {
                        80
                    } else {
                        return None;
                    }
                }
            };
            relevance += 10 * i64::from(same_system)
                + 10 * i64::from(same_workload)
                + 5 * i64::from(entry.verdict == Verdict::Win);
            Some(Match { relevance, entry: entry.clone() })
        })
        .collect();
    matches.sort_by(|a, b| {
        b.relevance
            .cmp(&a.relevance)
            .then(b.entry.delta_pct.unwrap_or(f64::MIN).total_cmp(&a.entry.delta_pct.unwrap_or(f64::MIN)))
    });
    matches
}

/// The entries as a Markdown table.
pub fn render(entries: &[Entry]) -> String {
    let mut out = String::from(
        "| when | system | workload | layer | change | metric | before | after | delta | verdict | citation |\n|---|---|---|---|---|---|---:|---:|---:|---|---|\n",
    );
    for entry in entries {
        let input = &entry.input;
        let delta = entry.delta_pct.map_or_else(|| "-".to_string(), |delta| format!("{delta:+.1} %"));
        let verdict = if entry.guard_triggered {
            format!("{} (guard)", entry.verdict)
        } else {
            entry.verdict.name().to_string()
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {delta} | {verdict} | {} |",
            entry.ts,
            input.system,
            input.workload,
            input.layer,
            input.change.replace('|', "\\|"),
            input.metric,
            input.before,
            input.after,
            input.citation.replace('|', "\\|"),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> EntryInput {
        EntryInput {
            system: "tuolumne".into(),
            workload: "unet3d".into(),
            software: "pytorch".into(),
            citation: "https://pytorch.org/docs/stable/data.html".into(),
            ..EntryInput::measured(Layer::L2, "epoch_time_s".into(), 100.0, 80.0, "num_workers 2 -> 8".into())
        }
    }

    #[test]
    fn verdicts_follow_the_five_percent_rule() {
        assert_eq!(evaluate(input(), 0).map(|entry| entry.verdict).ok(), Some(Verdict::Win));
        let same = EntryInput { after: 98.0, ..input() };
        assert_eq!(evaluate(same, 0).map(|entry| entry.verdict).ok(), Some(Verdict::NoChange));
        let worse = EntryInput { after: 110.0, ..input() };
        assert_eq!(evaluate(worse, 0).map(|entry| entry.verdict).ok(), Some(Verdict::Regression));
        let zero = EntryInput { before: 0.0, ..input() };
        assert_eq!(evaluate(zero, 0).map(|entry| entry.verdict).ok(), Some(Verdict::Unknown));
    }

    #[test]
    fn an_unpaired_system_entry_is_refused() {
        let system = EntryInput { metric_scope: MetricScope::System, layer: Layer::L3, ..input() };
        assert!(matches!(evaluate(system, 0), Err(KbError::Refused(_))));
    }

    #[test]
    fn the_guard_turns_a_system_win_with_an_app_regression_into_a_regression() {
        let system = EntryInput {
            metric_scope: MetricScope::System,
            layer: Layer::L3,
            metric: "aggregate_bw".into(),
            before: 100.0,
            after: 150.0,
            higher_is_better: true,
            app_metric: Some("epoch_time_s".into()),
            app_before: Some(100.0),
            app_after: Some(103.0),
            app_higher_is_better: Some(false),
            ..input()
        };
        let entry = evaluate(system, 0).unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(entry.verdict, Verdict::Regression);
        assert!(entry.guard_triggered);
        assert_eq!(entry.app_verdict, Some(Verdict::Regression));
    }

    #[test]
    fn lookup_keeps_system_findings_on_their_system_and_lets_software_travel() {
        let l3 =
            evaluate(EntryInput { layer: Layer::L3, ..input() }, 0).unwrap_or_else(|error| panic!("{error}"));
        let l2 = evaluate(input(), 0).unwrap_or_else(|error| panic!("{error}"));
        let l1 =
            evaluate(EntryInput { layer: Layer::L1, ..input() }, 0).unwrap_or_else(|error| panic!("{error}"));
        let entries = [l3, l2, l1];
        let elsewhere = lookup(&entries, Some("frontier"), Some("resnet"), Some("pytorch"));
        assert_eq!(elsewhere.len(), 1);
        assert_eq!(elsewhere[0].entry.input.layer, Layer::L2);
        assert_eq!(lookup(&entries, Some("tuolumne"), Some("unet3d"), None).len(), 3);
        assert!(lookup(&entries, Some("frontier"), Some("resnet"), Some("tensorflow")).is_empty());
    }

    /// An entry written by hand with a layer, scope or verdict the knowledge base does not
    /// know is not read as some other layer: it is skipped and reported with its line.
    #[test]
    fn an_entry_of_an_unknown_layer_is_skipped_with_its_line() {
        let path = std::env::temp_dir().join(format!("ioscout-kb-layer-{}.jsonl", std::process::id()));
        let entry = evaluate(input(), 7).unwrap_or_else(|error| panic!("{error}"));
        let good = serde_json::to_string(&entry).unwrap_or_default();
        let bad_layer = good.replace("\"layer\":\"L2\"", "\"layer\":\"L7\"");
        let bad_verdict = good.replace("\"verdict\":\"win\"", "\"verdict\":\"great\"");
        assert_ne!(bad_layer, good);
        assert_ne!(bad_verdict, good);
        let _ = std::fs::write(&path, format!("{good}\n{bad_layer}\n{bad_verdict}\n"));
        let (entries, skipped) = read(&path).unwrap_or_else(|error| panic!("{error}"));
        let _ = std::fs::remove_file(&path);
        assert_eq!(entries, [entry]);
        assert_eq!(skipped.iter().map(|(line, _)| *line).collect::<Vec<_>>(), [2, 3]);
        assert!(skipped[0].1.contains("L7"), "{skipped:?}");
        assert_eq!("L3".parse::<Layer>().ok(), Some(Layer::L3));
        assert!(matches!("L4".parse::<Layer>(), Err(KbError::Refused(_))));
        assert!(matches!("both".parse::<MetricScope>(), Err(KbError::Refused(_))));
    }

    #[test]
    fn citations_are_classed() {
        assert_eq!(citation_type("https://doi.org/10.1145/3721145.3730395"), CitationType::Paper);
        assert_eq!(
            citation_type("https://wiki.lustre.org/Lustre_Striping_Best_Practices"),
            CitationType::Docs
        );
        assert_eq!(citation_type("session:run-42"), CitationType::Session);
        assert_eq!(citation_type("https://example.com/blog"), CitationType::Web);
    }
}
