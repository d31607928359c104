//! The trace rules' tables: one row per (rule, fixture), positive and negative, whose findings
//! are pinned by insta snapshots in `snapshots/`, as printed ([`printed`]) and as JSON
//! ([`json`]).
//!
//! One table per family (`dfanalyzer`, `pipeline`). A row's snapshots are named
//! `<family>__<code>__<case>` (and `@json`); `INSTA_UPDATE=always cargo test -p
//! ioscout-diagnose` rewrites them, and a missing or different snapshot fails under `CI=true`.
//! [`printed`], [`json`], [`check_rows`] and [`check_all`] are shared with the Darshan rules' tables.

use std::collections::BTreeSet;
use std::fmt::Write;

use crate::rules::testing::{analysis, event, header, posix};
use crate::rules::{
    BandwidthSaturation, CheckpointShare, ComputeDominance, FetchOutlier, FetchPressure, FetchRankImbalance,
    IoContention, IoShare, LowOverlap, MetadataDominance, MetadataShare, OpCountBound, OpenPressure,
    RankImbalance, ReadContention, ReadPressure, ReaderOpenTail, SmallFiles,
};
use crate::{Context, Family, Finding, Parameters, Rule};

/// The findings as printed: per finding its code, severity label, score (2 decimals), scope and
/// why, then each evidence item as `metric = value unit`; `(no findings)` when there is none.
pub(crate) fn printed(findings: &[Finding]) -> String {
    if findings.is_empty() {
        return "(no findings)\n".to_string();
    }
    let mut text = String::new();
    for finding in findings {
        let _ = writeln!(
            text,
            "{} {} {:.2} {}",
            finding.code,
            finding.label.name(),
            finding.score,
            finding.scope
        );
        let _ = writeln!(text, "  why: {}", finding.why);
        for evidence in &finding.evidence {
            let _ = writeln!(text, "  {} = {} {}", evidence.metric, number(evidence.value), evidence.unit);
        }
    }
    text
}

/// A value as printed: whole numbers without decimals, others with four decimals or four
/// significant digits, whichever shows more.
fn number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        return format!("{value:.0}");
    }
    let magnitude = value.abs().log10().floor();
    let decimals = if magnitude < -1.0 { (3.0 - magnitude).min(12.0) as usize } else { 4 };
    format!("{value:.decimals$}")
}

/// The findings as pretty JSON, every float rounded to 9 significant digits so that a change
/// in the last bits of a computation (the order of a sum) does not change the snapshot.
pub(crate) fn json(findings: &[Finding]) -> String {
    let mut value = serde_json::to_value(findings).unwrap_or_else(|error| panic!("{error}"));
    round_floats(&mut value);
    serde_json::to_string_pretty(&value).unwrap_or_else(|error| panic!("{error}"))
}

/// Rounds every float in `value` to 9 significant digits.
fn round_floats(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Number(number) if number.is_f64() => {
            let rounded = number.as_f64().and_then(|float| format!("{float:.8e}").parse::<f64>().ok());
            if let Some(rounded) = rounded.and_then(serde_json::Number::from_f64) {
                *number = rounded;
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(round_floats),
        serde_json::Value::Object(fields) => fields.values_mut().for_each(round_floats),
        _ => {}
    }
}

/// Runs `check` on every row of a table whose rows are named by `name` (names must be unique),
/// and fails after the last row, naming those that failed: one run reports every changed
/// snapshot (and writes its `.snap.new`), not only the first.
pub(crate) fn check_rows<R>(rows: &[R], name: impl Fn(&R) -> String, check: impl Fn(&R)) {
    let mut names = BTreeSet::new();
    for row in rows {
        assert!(names.insert(name(row)), "two rows are named {}", name(row));
    }
    let failed: Vec<String> = rows.iter().filter(|row| fails(|| check(row))).map(&name).collect();
    assert!(failed.is_empty(), "{} of {} rows failed: {}", failed.len(), rows.len(), failed.join(", "));
}

/// Runs every check (each snapshot assertion of a row), then fails if any failed.
pub(crate) fn check_all(checks: &[&dyn Fn()]) {
    let failed = checks.iter().filter(|check| fails(check)).count();
    assert!(failed == 0, "{failed} of {} snapshots differ", checks.len());
}

/// Whether `check` panics.
fn fails(check: impl Fn()) -> bool {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(check)).is_err()
}

/// One row: `rule` on the analysis of `lines` with `preset` and `parameters`.
struct Row {
    case: &'static str,
    rule: &'static dyn Rule,
    preset: &'static str,
    lines: Vec<String>,
    parameters: Parameters,
}

impl Row {
    /// A row with default parameters.
    fn new(rule: &'static dyn Rule, case: &'static str, preset: &'static str, lines: Vec<String>) -> Row {
        Row { case, rule, preset, lines, parameters: Parameters::default() }
    }

    /// The same row with a bandwidth ceiling.
    fn with_ceiling(mut self, bytes_per_second: f64) -> Row {
        self.parameters.bandwidth_ceiling_bps = Some(bytes_per_second);
        self
    }

    /// The snapshot name: `<family>__<code>__<case>`.
    fn name(&self, family: &str) -> String {
        format!("{family}__{}__{}", self.rule.doc().code.to_ascii_lowercase(), self.case)
    }
}

/// Evaluates every row and pins its findings, then checks that every rule of `family` has a
/// row where it fires and one where it stays quiet.
fn check_table(family: Family, rows: &[Row]) {
    let results: Vec<(String, Vec<Finding>)> = rows
        .iter()
        .map(|row| {
            let name = row.name(family.name());
            let analysis = analysis(&name, row.preset, &row.lines);
            (name, row.rule.evaluate(&Context::new(&analysis, row.parameters.clone())))
        })
        .collect();
    let rows: Vec<(&Row, &(String, Vec<Finding>))> = rows.iter().zip(&results).collect();
    check_rows(
        &rows,
        |(_, (name, _))| name.clone(),
        |(row, (name, findings))| {
            let doc = row.rule.doc();
            let parameters = match row.parameters.bandwidth_ceiling_bps {
                Some(ceiling) => format!(", bandwidth ceiling {ceiling} B/s"),
                None => String::new(),
            };
            let description = format!(
                "{}: {}\nfixture: {} ({} preset{parameters})",
                doc.code, doc.title, row.case, row.preset
            );
            assert_findings(name, &description, findings);
        },
    );
    for rule in crate::rules::all().iter().filter(|rule| rule.doc().family == family) {
        let code = rule.doc().code;
        let of_rule = || rows.iter().copied().filter(move |(row, _)| row.rule.doc().code == code);
        assert!(of_rule().any(|(_, (_, findings))| !findings.is_empty()), "no row where {code} fires");
        assert!(of_rule().any(|(_, (_, findings))| findings.is_empty()), "no row where {code} stays quiet");
    }
}

/// Pins `findings` as printed and as JSON under `name`.
fn assert_findings(name: &str, description: &str, findings: &[Finding]) {
    let mut printed_settings = insta::Settings::clone_current();
    printed_settings.set_prepend_module_to_snapshot(false);
    printed_settings.set_omit_expression(true);
    printed_settings.set_description(description);
    let mut json_settings = printed_settings.clone();
    json_settings.set_snapshot_suffix("json");
    let printed_check = || printed_settings.bind(|| insta::assert_snapshot!(name, printed(findings)));
    let json_check = || json_settings.bind(|| insta::assert_snapshot!(name, json(findings)));
    check_all(&[&printed_check, &json_check]);
}

/// 20 reads of 8 MiB in 50 ms each (160 MiB/s).
fn steady_large_reads() -> Vec<String> {
    let mut lines = header();
    for index in 0..20 {
        lines.push(posix(7, "read", 1_000_000 + index * 100_000, 50_000, 8 << 20));
    }
    lines
}

/// A training loop of 20 steps on one process: `fetch` µs fetching, then `compute` µs computing.
fn training_loop(fetch: i64, compute: i64) -> Vec<String> {
    let mut lines = Vec::new();
    let mut ts = 1_000_000;
    for _ in 0..20 {
        lines.push(event(7, "fetch.iter", "dataloader", ts, fetch, ""));
        ts += fetch;
        lines.push(event(7, "TorchFramework.compute", "compute", ts, compute, ""));
        ts += compute;
    }
    lines
}

/// Four processes of 10 steps (5 ms fetch, 10 ms compute), the fourth fetching `slow_fetch` µs.
fn one_slow_fetcher(slow_fetch: i64) -> Vec<String> {
    let mut lines = Vec::new();
    for pid in 1..=4 {
        let fetch = if pid == 4 { slow_fetch } else { 5_000 };
        let mut ts = 1_000_000;
        for _ in 0..10 {
            lines.push(event(pid, "fetch.iter", "dataloader", ts, fetch, ""));
            ts += fetch;
            lines.push(event(pid, "TorchFramework.compute", "compute", ts, 10_000, ""));
            ts += 10_000;
        }
    }
    lines
}

/// Two ranks of 10 fetches each: rank 7 of 10 ms, rank 8 of `slow` µs.
fn two_fetching_ranks(slow: i64) -> Vec<String> {
    let mut lines = Vec::new();
    for (pid, fetch) in [(7, 10_000), (8, slow)] {
        for index in 0..10 {
            lines.push(event(pid, "fetch.iter", "dataloader", 1_000_000 + index * 100_000, fetch, ""));
        }
    }
    lines
}

/// A compute-bound loop (0.5 ms fetch, 20 ms compute) whose 1 MiB reads are spread over
/// `workers` worker processes.
fn reads_in_workers(workers: i64) -> Vec<String> {
    let mut lines = header();
    let mut ts = 1_000_000;
    for step in 0..20 {
        lines.push(event(7, "fetch.iter", "dataloader", ts, 500, ""));
        lines.push(posix(8 + step % workers, "pread64", ts + 1, 400, 1 << 20));
        ts += 500;
        lines.push(event(7, "TorchFramework.compute", "compute", ts, 20_000, ""));
        ts += 20_000;
    }
    lines
}

/// 50 opens of `open` µs, each followed by a 1 MiB read of 100 µs.
fn opens_and_reads(open: i64) -> Vec<String> {
    let mut lines = header();
    for index in 0..50 {
        lines.push(posix(7, "open64", 1_000_000 + index * 10_000, open, 0));
        lines.push(posix(7, "read", 1_005_000 + index * 10_000, 100, 1 << 20));
    }
    lines
}

/// A loop of 20 steps: a worker call `name` of `call` µs (returning `bytes`) inside the fetch,
/// then `compute` µs of compute.
fn worker_loop(name: &str, call: i64, bytes: i64, compute: i64) -> Vec<String> {
    let mut lines = header();
    let mut ts = 1_000_000;
    for _ in 0..20 {
        lines.push(event(7, "fetch.iter", "dataloader", ts, call + 10, ""));
        lines.push(posix(8, name, ts + 1, call, bytes));
        ts += call + 10;
        lines.push(event(7, "TorchFramework.compute", "compute", ts, compute, ""));
        ts += compute;
    }
    lines
}

/// 200 reads of 1 MiB spread over `processes` readers, the first of 2 µs and the others of
/// `slow` µs.
fn reads_after_a_fast_one(slow: i64, processes: i64) -> Vec<String> {
    let mut lines = header();
    for index in 0..200 {
        let dur = if index == 0 { 2 } else { slow };
        lines.push(posix(7 + index % processes, "read", 1_000_000 + index * 1000, dur, 1 << 20));
    }
    lines
}

/// Four readers of 10 (open, 1 MiB read) pairs, the fourth opening in `slow_open` µs.
fn one_slow_opener(slow_open: i64) -> Vec<String> {
    let mut lines = header();
    for pid in 1..=4 {
        let open = if pid == 4 { slow_open } else { 1_000 };
        let mut ts = 1_000_000;
        for _ in 0..10 {
            lines.push(posix(pid, "open64", ts, open, 0));
            ts += open;
            lines.push(posix(pid, "read", ts, 1_000, 1 << 20));
            ts += 1_000;
        }
    }
    lines
}

/// A one-second job with a checkpoint of `checkpoint` µs.
fn one_checkpoint(checkpoint: i64) -> Vec<String> {
    vec![
        event(7, "ai_root", "ai_root", 1_000_000, 1_000_000, ""),
        event(7, "TorchCheckpointing.save_checkpoint", "checkpoint", 1_100_000, checkpoint, ""),
    ]
}

/// A one-second job with 10 reads of 1 MiB of `read` µs each.
fn reads_in_a_second(read: i64) -> Vec<String> {
    let mut lines = header();
    lines.push(event(7, "main", "app", 1_000_000, 1_000_000, ""));
    for index in 0..10 {
        lines.push(posix(7, "read", 1_000_000 + index * 100_000, read, 1 << 20));
    }
    lines
}

/// A rank (pid 7) computing, and its forked worker (pid 8) loading items either between the
/// compute steps or during them (`behind_compute`).
fn worker_loading(behind_compute: bool) -> Vec<String> {
    let mut lines = vec![
        event(7, "start", "dftracer", 1_000_000, 0, r#""ppid":1"#),
        event(8, "start", "dftracer", 1_000_000, 0, r#""ppid":7"#),
    ];
    let mut ts = 1_000_000;
    for _ in 0..20 {
        lines.push(event(7, "TorchFramework.compute", "compute", ts, 20_000, ""));
        let load = if behind_compute { ts + 2_000 } else { ts + 20_000 };
        lines.push(event(8, "TorchDataset.__getitem__", "data", load, 15_000, ""));
        ts += 40_000;
    }
    lines
}

/// A one-second job with 100 stats of `stat` µs each.
fn stats_in_a_second(stat: i64) -> Vec<String> {
    let mut lines = header();
    lines.push(event(7, "main", "app", 1_000_000, 1_000_000, ""));
    for index in 0..100 {
        lines.push(posix(7, "__xstat64", 1_000_000 + index * 5000, stat, 0));
    }
    lines
}

/// A 100-second job with `calls` writes of 100 B and 1 µs.
fn tiny_writes(calls: i64) -> Vec<String> {
    let mut lines = header();
    lines.push(event(7, "main", "app", 1_000_000, 100_000_000, ""));
    for index in 0..calls {
        lines.push(posix(7, "write", 1_000_000 + index * 5, 1, 100));
    }
    lines
}

/// Four ranks of 10 writes of 1 MiB, rank 1's of `rank_zero` µs and the others' of 10 ms.
fn first_rank_writes(rank_zero: i64) -> Vec<String> {
    let mut lines = header();
    for pid in 1..=4 {
        let dur = if pid == 1 { rank_zero } else { 10_000 };
        for index in 0..10 {
            lines.push(posix(pid, "write", 1_000_000 + index * 100_000, dur, 1 << 20));
        }
    }
    lines
}

/// `files` files, each opened (40 µs) and read once (16 KiB, 10 µs).
fn small_files(files: i64) -> Vec<String> {
    let mut lines = Vec::new();
    for index in 0..files {
        let ts = 1_000_000 + index * 100;
        let args = format!(r#""fhash":"file{index}","ret":16384"#);
        lines.push(event(7, "open64", "POSIX", ts, 40, &format!(r#""fhash":"file{index}""#)));
        lines.push(event(7, "read", "POSIX", ts + 50, 10, &args));
    }
    lines
}

/// DFAnalyzer's fact rules.
fn dfanalyzer() -> Vec<Row> {
    vec![
        Row::new(&BandwidthSaturation, "at_the_ceiling", "posix", steady_large_reads()).with_ceiling(171e6),
        Row::new(&BandwidthSaturation, "below_a_higher_ceiling", "posix", steady_large_reads())
            .with_ceiling(2e9),
        Row::new(&BandwidthSaturation, "without_a_ceiling", "posix", steady_large_reads()),
        Row::new(&ComputeDominance, "compute_dominates", "dlio", training_loop(500, 30_000)),
        Row::new(&ComputeDominance, "waits_on_data", "dlio", training_loop(30_000, 10_000)),
        Row::new(&FetchOutlier, "one_straggler", "dlio", one_slow_fetcher(40_000)),
        Row::new(&FetchOutlier, "alike", "dlio", one_slow_fetcher(5_500)),
        Row::new(&FetchPressure, "waits_on_data", "dlio", training_loop(30_000, 10_000)),
        Row::new(&FetchPressure, "compute_dominates", "dlio", training_loop(1_000, 30_000)),
        Row::new(&FetchRankImbalance, "one_straggler", "dlio", two_fetching_ranks(40_000)),
        Row::new(&FetchRankImbalance, "balanced", "dlio", two_fetching_ranks(11_000)),
        Row::new(&IoContention, "four_workers", "dlio", reads_in_workers(4)),
        Row::new(&IoContention, "two_workers", "dlio", reads_in_workers(2)),
        Row::new(&MetadataDominance, "mostly_opens", "dlio", opens_and_reads(900)),
        Row::new(&MetadataDominance, "mostly_reads", "dlio", opens_and_reads(20)),
        Row::new(&OpenPressure, "opens_outweigh_compute", "dlio", worker_loop("open64", 30_000, 0, 10_000)),
        Row::new(&OpenPressure, "compute_outweighs_opens", "dlio", worker_loop("open64", 1_000, 0, 30_000)),
        Row::new(&ReadContention, "contended", "posix", reads_after_a_fast_one(200, 2)),
        Row::new(&ReadContention, "steady", "posix", reads_after_a_fast_one(3, 2)),
        Row::new(&ReadContention, "one_process", "posix", reads_after_a_fast_one(200, 1)),
        Row::new(
            &ReadPressure,
            "reads_outweigh_compute",
            "dlio",
            worker_loop("pread64", 50_000, 1 << 16, 10_000),
        ),
        Row::new(
            &ReadPressure,
            "compute_outweighs_reads",
            "dlio",
            worker_loop("pread64", 1_000, 1 << 16, 30_000),
        ),
        Row::new(&ReadPressure, "opens_are_the_cost", "dlio", worker_loop("open64", 50_000, 1 << 16, 10_000)),
        Row::new(&ReaderOpenTail, "one_slow_opener", "dlio", one_slow_opener(5_000)),
        Row::new(&ReaderOpenTail, "alike", "dlio", one_slow_opener(1_100)),
    ]
}

/// The optimisation pipeline's checks.
fn pipeline() -> Vec<Row> {
    vec![
        Row::new(&CheckpointShare, "costly", "dlio", one_checkpoint(400_000)),
        Row::new(&CheckpointShare, "cheap", "dlio", one_checkpoint(10_000)),
        Row::new(&IoShare, "io_dominates", "posix", reads_in_a_second(60_000)),
        Row::new(&IoShare, "io_is_small", "posix", reads_in_a_second(1_000)),
        Row::new(&LowOverlap, "alternates_with_compute", "dlio", worker_loading(false)),
        Row::new(&LowOverlap, "behind_compute", "dlio", worker_loading(true)),
        Row::new(&MetadataShare, "costly", "posix", stats_in_a_second(2000)),
        Row::new(&MetadataShare, "cheap", "posix", stats_in_a_second(20)),
        Row::new(&OpCountBound, "many_tiny_calls", "posix", tiny_writes(12_000)),
        Row::new(&OpCountBound, "few_calls", "posix", tiny_writes(100)),
        Row::new(&RankImbalance, "rank_zero_heavy", "posix", first_rank_writes(80_000)),
        Row::new(&RankImbalance, "balanced", "posix", first_rank_writes(11_000)),
        Row::new(&SmallFiles, "storm", "posix", small_files(1200)),
        Row::new(&SmallFiles, "few_files", "posix", small_files(50)),
    ]
}

#[test]
fn dfanalyzer_rules() {
    check_table(Family::DfanalyzerFacts, &dfanalyzer());
}

#[test]
fn pipeline_rules() {
    check_table(Family::Pipeline, &pipeline());
}
