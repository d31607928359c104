//! ARCHITECTURE.md held to the workspace: its dependency table against `cargo metadata` (each
//! crate's ioscout dependencies, and every one of them listed above the crate that uses it, so
//! "dependencies point downward only" is checked, not claimed), and each crate's file list against
//! the files under its `src/` with the first sentence of each module's own doc comment.
//!
//! The file lists are generated: `IOSCOUT_BLESS=1 cargo test -p ioscout-testkit --test
//! architecture` writes them into ARCHITECTURE.md; without it, a difference fails and prints the
//! expected block.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The comment that opens the dependency table.
const TABLE_MARKER: &str = "<!-- dependencies:";
/// The comment that opens a crate's file list; the crate's name follows it.
const FILES_MARKER: &str = "<!-- files of ";
/// The comment that closes a crate's file list.
const FILES_END: &str = "<!-- end of files -->";
/// A directory with more files than this is listed in one line: its `mod.rs`'s sentence and the
/// names of the others (the rule directories, one rule per file).
const COLLAPSE_ABOVE: usize = 12;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn architecture() -> String {
    fs::read_to_string(workspace_root().join("ARCHITECTURE.md"))
        .unwrap_or_else(|error| panic!("ARCHITECTURE.md: {error}"))
}

/// The table's rows in order: crate name and the ioscout crates it says the crate uses.
fn table(text: &str) -> Vec<(String, BTreeSet<String>)> {
    let start =
        text.find(TABLE_MARKER).unwrap_or_else(|| panic!("ARCHITECTURE.md has no `{TABLE_MARKER}` table"));
    let mut rows = Vec::new();
    for line in text[start..].lines().skip(1) {
        let line = line.trim();
        if line.is_empty() {
            break;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        if cells.len() != 2 || cells[0] == "crate" || cells[0].starts_with("---") {
            continue;
        }
        let name = cells[0].trim_matches('`').to_string();
        let uses = cells[1]
            .split(',')
            .map(|used| used.trim().trim_matches('`'))
            .filter(|used| !used.is_empty())
            .map(|used| format!("ioscout-{used}"))
            .collect();
        rows.push((name, uses));
    }
    rows
}

/// Each workspace member's ioscout dependencies of kind normal (dev-dependencies are the tests').
fn metadata() -> BTreeMap<String, BTreeSet<String>> {
    let value = cargo_metadata();
    let mut crates = BTreeMap::new();
    for package in value["packages"].as_array().into_iter().flatten() {
        let name = package["name"].as_str().unwrap_or_default().to_string();
        let uses = package["dependencies"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|dependency| dependency["kind"].is_null())
            .filter_map(|dependency| dependency["name"].as_str())
            .filter(|dependency| dependency.starts_with("ioscout-"))
            .map(str::to_string)
            .collect();
        crates.insert(name, uses);
    }
    crates
}

/// `cargo metadata` of the workspace, without its dependencies' packages.
fn cargo_metadata() -> serde_json::Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .current_dir(workspace_root())
        .output()
        .unwrap_or_else(|error| panic!("cargo metadata: {error}"));
    assert!(output.status.success(), "cargo metadata failed: {}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| panic!("cargo metadata's JSON: {error}"))
}

/// The crates that may depend on clap and schemars unconditionally: the front ends and the
/// service, whose requests are the MCP tools' parameters.
const FRONT_ENDS: [&str; 4] = ["ioscout-cli", "ioscout-mcp", "ioscout-python", "ioscout-service"];

#[test]
fn the_stages_take_clap_and_schemars_only_behind_features() {
    let value = cargo_metadata();
    for package in value["packages"].as_array().into_iter().flatten() {
        let name = package["name"].as_str().unwrap_or_default();
        if FRONT_ENDS.contains(&name) {
            continue;
        }
        for dependency in package["dependencies"].as_array().into_iter().flatten() {
            let used = dependency["name"].as_str().unwrap_or_default();
            if dependency["kind"].is_null() && ["clap", "schemars"].contains(&used) {
                assert_eq!(
                    dependency["optional"], true,
                    "{name} depends on {used} unconditionally: a library user of the stage would compile it; make it an optional feature the front ends turn on"
                );
            }
        }
    }
}

#[test]
fn the_dependency_table_is_the_workspace_and_points_downward() {
    let rows = table(&architecture());
    let workspace = metadata();
    let listed: BTreeMap<String, BTreeSet<String>> = rows.iter().cloned().collect();
    assert_eq!(
        listed.keys().collect::<Vec<_>>(),
        workspace.keys().collect::<Vec<_>>(),
        "ARCHITECTURE.md's dependency table lists other crates than the workspace's members"
    );
    for (name, uses) in &workspace {
        assert_eq!(
            &listed[name], uses,
            "ARCHITECTURE.md says {name} uses {:?}; its Cargo.toml says {uses:?}",
            listed[name]
        );
    }
    for (position, (name, uses)) in rows.iter().enumerate() {
        let above: BTreeSet<&String> = rows[..position].iter().map(|(above, _)| above).collect();
        for used in uses {
            assert!(
                above.contains(used),
                "{name} uses {used}, which the table lists below it: dependencies must point downward"
            );
        }
    }
}

/// The first sentence of a module's doc comment, on one line, its intra-doc links as plain code.
fn first_sentence(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let mut paragraph = String::new();
    for line in text.lines() {
        let Some(doc) = line.strip_prefix("//!") else {
            break;
        };
        let doc = doc.trim();
        if doc.is_empty() {
            if paragraph.is_empty() {
                continue;
            }
            break;
        }
        if !paragraph.is_empty() {
            paragraph.push(' ');
        }
        paragraph.push_str(&doc.replace("[`", "`").replace("`]", "`"));
    }
    assert!(!paragraph.is_empty(), "{} opens without a doc comment saying what it is", path.display());
    let mut in_code = false;
    let bytes = paragraph.as_bytes();
    for (index, &byte) in bytes.iter().enumerate() {
        match byte {
            b'`' => in_code = !in_code,
            b'.' if !in_code && bytes.get(index + 1).is_none_or(|next| *next == b' ') => {
                return paragraph[..=index].to_string();
            }
            _ => {}
        }
    }
    paragraph
}

/// The `.rs` files under `directory`, as paths relative to `root`, sorted.
fn sources(root: &Path, directory: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![directory.to_path_buf()];
    while let Some(current) = pending.pop() {
        let entries = fs::read_dir(&current).unwrap_or_else(|error| panic!("{}: {error}", current.display()));
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|extension| extension == "rs") {
                let relative = path.strip_prefix(root).unwrap_or(&path);
                found.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    found.sort();
    found
}

/// The file list of one crate as ARCHITECTURE.md should hold it.
fn file_list(crate_directory: &Path) -> String {
    let source = crate_directory.join("src");
    let files = sources(&source, &source);
    let mut by_directory: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in &files {
        let directory = file.rsplit_once('/').map_or("", |(directory, _)| directory);
        by_directory.entry(directory.to_string()).or_default().push(file.clone());
    }
    let mut lines = Vec::new();
    let mut collapsed: BTreeSet<String> = BTreeSet::new();
    for file in &files {
        let directory = file.rsplit_once('/').map_or("", |(directory, _)| directory);
        if collapsed.contains(directory) {
            continue;
        }
        let siblings = &by_directory[directory];
        if !directory.is_empty() && siblings.len() > COLLAPSE_ABOVE {
            collapsed.insert(directory.to_string());
            let module = format!("{directory}/mod.rs");
            let what = if siblings.contains(&module) {
                first_sentence(&source.join(&module))
            } else {
                String::new()
            };
            let names: Vec<String> = siblings
                .iter()
                .filter(|sibling| **sibling != module)
                .map(|sibling| format!("`{}`", sibling.rsplit_once('/').map_or("", |(_, name)| name)))
                .collect();
            lines.push(format!("- `{directory}/` ({} files): {what} {}", siblings.len(), names.join(", ")));
            continue;
        }
        lines.push(format!("- `{file}`: {}", first_sentence(&source.join(file))));
    }
    lines.join("\n")
}

#[test]
fn each_crate_lists_its_files_with_what_they_are() {
    let root = workspace_root();
    let path = root.join("ARCHITECTURE.md");
    let text = architecture();
    let bless = std::env::var_os("IOSCOUT_BLESS").is_some();
    let mut rewritten = String::new();
    let mut rest = text.as_str();
    let mut seen = BTreeSet::new();
    let mut differ = Vec::new();
    while let Some(start) = rest.find(FILES_MARKER) {
        let header_end = rest[start..].find('\n').map_or(rest.len(), |end| start + end + 1);
        let name = rest[start + FILES_MARKER.len()..header_end]
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .trim_end_matches(':')
            .to_string();
        let Some(length) = rest[header_end..].find(FILES_END) else {
            panic!("the file list of {name} has no `{FILES_END}`");
        };
        let end = header_end + length;
        let expected = format!("{}\n", file_list(&root.join("crates").join(&name)));
        if rest[header_end..end] != expected {
            differ.push(format!("{name}:\n{expected}"));
        }
        rewritten.push_str(&rest[..header_end]);
        rewritten.push_str(&expected);
        seen.insert(name);
        rest = &rest[end..];
    }
    rewritten.push_str(rest);
    let members: BTreeSet<String> = metadata().into_keys().collect();
    assert_eq!(
        seen, members,
        "ARCHITECTURE.md has a file list (`{FILES_MARKER}NAME -->`) for other crates than the workspace's members"
    );
    if bless {
        fs::write(&path, rewritten).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        return;
    }
    assert!(
        differ.is_empty(),
        "ARCHITECTURE.md's file lists differ from the sources (IOSCOUT_BLESS=1 cargo test -p ioscout-testkit --test architecture writes them):\n{}",
        differ.join("\n")
    );
}
