//! The shared corpus: `count` and `info` against each folder's independent `expected.json`
//! (computed with Python's json). Skips, saying so, when the corpus is absent.

use crate::{corpus, json, read_json};

fn folders() -> Vec<std::path::PathBuf> {
    let Some(root) = corpus() else { return Vec::new() };
    let mut folders: Vec<_> = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.join("expected.json").is_file())
        .collect();
    folders.sort();
    folders
}

#[test]
fn count_totals_equal_expected_for_every_folder() {
    for folder in folders() {
        let expected = read_json(&folder.join("expected.json"));
        let path = folder.to_string_lossy().into_owned();
        let found = json(&["count", "--json", &path], 0);
        for phase in ["complete", "metadata"] {
            let want = expected["events"][phase].as_u64().unwrap_or(0);
            assert_eq!(found["total"][phase].as_u64(), Some(want), "{path}: {phase}");
        }
        assert_eq!(found["total"]["invalid"], 0, "{path}");
        for file in found["files"].as_array().into_iter().flatten() {
            let name = file["path"].as_str().unwrap_or_default().rsplit('/').next().unwrap_or_default();
            for phase in ["complete", "metadata"] {
                let want = expected["per_file"][name][phase].as_u64().unwrap_or(0);
                assert_eq!(file[phase].as_u64(), Some(want), "{path}/{name}: {phase}");
            }
        }
    }
}

#[test]
fn info_equals_expected_for_every_folder() {
    for folder in folders() {
        let expected = read_json(&folder.join("expected.json"));
        let path = folder.to_string_lossy().into_owned();
        let found = json(&["info", "--json", &path], 0);
        let total = &found["total"];
        assert_eq!(total["categories"], expected["categories"], "{path}");
        assert_eq!(total["processes"], expected["processes"], "{path}");
        assert_eq!(total["files_named"], expected["files_named_by_FH"], "{path}");
        assert_eq!(
            total["hosts"].as_array().map(Vec::len),
            expected["hosts_named"].as_u64().map(|count| count as usize),
            "{path}"
        );
        assert_eq!(total["first_ts"], expected["first_ts"], "{path}");
        assert_eq!(total["last_end_ts"], expected["last_end_ts"], "{path}");
        let span = total["span_seconds"].as_f64().unwrap_or(-1.0);
        let want = expected["span_seconds"].as_f64().unwrap_or(0.0);
        assert!((span - want).abs() < 1e-6, "{path}: span {span} vs {want}");
    }
}
