//! What ioscout's tests share (a dev-dependency only, below every stage).
//!
//! A test that needs the shared corpus beside the checkout returns early when it is absent, and
//! cargo's summary then counts it as passed. [`skip`] says so where it cannot be missed: one
//! `SKIPPED` line per test on the terminal (written to the process's stderr directly, which the
//! test harness does not capture, unlike `eprintln!`), and a line in `target/skipped-tests.txt`,
//! which `.ci/run` counts after the tests.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Where skipped tests are listed: `target/skipped-tests.txt` of the workspace.
pub fn skipped_list() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/skipped-tests.txt")
}

/// Says that the calling test skipped, and why; the test then returns. The test's name comes
/// from its thread, which the harness names after it.
pub fn skip(reason: &str) {
    skip_listed_in(&skipped_list(), reason);
}

/// [`skip`], listing the test in `list`.
fn skip_listed_in(list: &Path, reason: &str) {
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    let line = format!("SKIPPED {test}: {reason}\n");
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
    if let Ok(mut list) = std::fs::OpenOptions::new().create(true).append(true).open(list) {
        let _ = list.write_all(line.as_bytes());
    }
}

/// The shared corpus directory `relative` (`dftracer`, `darshan/logs`, ...) beside the checkout,
/// or `None` after saying the test skipped.
pub fn corpus(relative: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus").join(relative);
    if path.exists() {
        Some(path)
    } else {
        skip(&format!("{} is absent (the shared corpus is not beside this checkout)", path.display()));
        None
    }
}

/// The files under `root` (searched recursively) whose names end in `.{extension}`, sorted.
pub fn files_under(root: &Path, extension: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|found| found == extension) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// A seeded xorshift generator: damage and inputs that repeat from run to run.
pub struct Random(pub u64);

impl Random {
    /// The next value.
    pub fn next_value(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A value below `bound` (0 when `bound` is 0).
    pub fn below(&mut self, bound: usize) -> usize {
        (self.next_value() % bound.max(1) as u64) as usize
    }

    /// Damage `round` (of three kinds in turn) to a copy of `original`, all past `start`: cut
    /// short, one to four bits flipped, or an 8-byte field overwritten.
    pub fn damaged_copy(&mut self, original: &[u8], start: usize, round: usize) -> Vec<u8> {
        let mut data = original.to_vec();
        let span = data.len().saturating_sub(start).max(1);
        match round % 3 {
            0 => data.truncate(start + self.below(span)),
            1 => {
                for _ in 0..=self.below(4) {
                    let at = start + self.below(span);
                    if let Some(byte) = data.get_mut(at) {
                        *byte ^= 1 << self.below(8);
                    }
                }
            }
            _ => {
                let at = start + self.below(span.saturating_sub(8));
                let value = self.next_value();
                if let Some(field) = data.get_mut(at..at + 8) {
                    field.copy_from_slice(&value.to_le_bytes());
                }
            }
        }
        data
    }
}

#[cfg(test)]
mod tests {
    /// A skip names the test (its thread) and the reason in the list `.ci/run` counts.
    #[test]
    fn a_skip_is_listed_with_the_test_and_its_reason() {
        let list = std::env::temp_dir().join(format!("ioscout-skipped-{}.txt", std::process::id()));
        let _ = std::fs::remove_file(&list);
        let writer = list.clone();
        let thread = std::thread::Builder::new()
            .name("corpus::every_log_reads".into())
            .spawn(move || super::skip_listed_in(&writer, "the corpus is absent"));
        let joined = thread.map(std::thread::JoinHandle::join);
        assert!(matches!(joined, Ok(Ok(()))));
        let text = std::fs::read_to_string(&list).unwrap_or_default();
        assert_eq!(text, "SKIPPED corpus::every_log_reads: the corpus is absent\n");
        let _ = std::fs::remove_file(&list);
    }
}
