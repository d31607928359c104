//! Command-line tests: one binary, modules by command. Each test runs the real `ioscout` binary
//! from the repository root on the bundled fixtures (`testdata/`), or on the shared corpus when
//! it is beside the checkout (those tests skip, saying so, when it is not).

#![allow(clippy::print_stderr, reason = "tests say on stderr why they skip")]

mod advise;
mod analyze;
mod bad_input;
mod compare;
mod corpus;
mod count;
mod darshan;
mod darshan_damage;
mod detect;
mod evidence;
mod export;
mod index;
mod info;
mod live;
mod mcp;
mod scenarios;
mod view;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root (where `testdata/` is).
pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The shared DFTracer corpus, if present.
pub(crate) fn corpus() -> Option<PathBuf> {
    let path = root().join("../shared/corpus/dftracer");
    if path.is_dir() {
        Some(path)
    } else {
        ioscout_testkit::skip(&format!(
            "{} is absent (the shared corpus is not beside this checkout)",
            path.display()
        ));
        None
    }
}

/// Runs `ioscout` with `arguments` from the repository root.
pub(crate) fn ioscout(arguments: &[&str]) -> Output {
    ioscout_with(arguments, &[])
}

/// Runs `ioscout` with `arguments` and extra environment variables.
pub(crate) fn ioscout_with(arguments: &[&str], environment: &[(&str, &Path)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ioscout"));
    // Output to a pipe is never fitted to a width unless a test asks for one.
    command.args(arguments).current_dir(root()).env_remove("COLUMNS");
    for (name, value) in environment {
        command.env(name, value);
    }
    command.output().unwrap_or_else(|error| panic!("cannot run ioscout: {error}"))
}

/// Runs `ioscout`, expects exit code `code`, and parses stdout as JSON.
pub(crate) fn json(arguments: &[&str], code: i32) -> serde_json::Value {
    let output = ioscout(arguments);
    assert_eq!(
        output.status.code(),
        Some(code),
        "ioscout {arguments:?}\nstdout: {}\nstderr: {}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("stdout of {arguments:?} is not JSON: {error}"))
}

/// Reads a JSON file.
pub(crate) fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// stdout as text.
pub(crate) fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// stderr as text.
pub(crate) fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A fresh temporary directory for one test.
pub(crate) fn temp_dir(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("ioscout-it-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&path);
    std::fs::create_dir_all(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    path
}

/// Every command's text fits the terminal: at 80 and 100 columns (`COLUMNS`), no line of
/// stdout is wider (`darshan summary --group-by` collapsed its columns and wrapped headings
/// away from their numbers; `query --group-by` printed 106 columns on a 100-column terminal).
#[test]
fn every_command_fits_80_and_100_columns() {
    let log = "testdata/darshan/mpi-io-test-x86_64-3.5.0.darshan";
    let commands: [&[&str]; 14] = [
        &["count", "testdata/sample"],
        &["info", "testdata/sample"],
        &["analyze", "testdata/sample"],
        &["diagnose", "testdata/sample"],
        &["advise", "testdata/sample"],
        &[
            "query",
            "testdata/sample",
            "--group-by",
            "name,cat",
            "--agg",
            "count,sum:dur,mean:dur,p99:dur,sum:size",
        ],
        &["compare", "testdata/sample", "testdata/sample"],
        &["rules"],
        &["explain", "P21"],
        &["info", log],
        &["analyze", log],
        &["diagnose", log],
        &["darshan", "summary", "--group-by", "exe", "testdata/darshan"],
        &["advise", log],
    ];
    for width in ["80", "100"] {
        let limit: usize = width.parse().unwrap_or(80);
        for arguments in commands {
            let output = ioscout_with(arguments, &[("COLUMNS", Path::new(width))]);
            assert!(
                output.status.code().is_some_and(|code| code < 2),
                "{arguments:?}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
            let text = String::from_utf8_lossy(&output.stdout);
            let wide: Vec<&str> = text.lines().filter(|line| line.chars().count() > limit).collect();
            assert!(wide.is_empty(), "{arguments:?} at {width} columns:\n{}", wide.join("\n"));
        }
    }
}
