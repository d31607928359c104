//! Input discovery: files, directories (recursively) and glob patterns to a sorted list of trace
//! files.
//!
//! # Overview
//!
//! [`discover`] expands what the user typed into [`TraceFile`]s. Directories contribute every
//! `*.pfw` and `*.pfw.gz` below them (DLIO's hidden `.trace*.pfw*` files included); a path that does
//! not exist but holds `*`, `?` or `[` is a glob. Compression is decided from the file's first bytes,
//! not its name. Paths that cannot be used come back as [`InputProblem`]s so the caller can report
//! them and read the rest.
//!
//! [`InputKind::of`] is the one place that decides what a file is from its first bytes (a
//! Darshan log, gzip, JSON lines, other binary): [`describe`] refuses a Darshan log or a binary
//! file as a trace, so no command ever decodes a log as lines, and the service routes logs by the
//! same decision.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// How a trace file is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    /// Plain text (`.pfw`).
    None,
    /// gzip, one member or many (`.pfw.gz`).
    Gzip,
}

/// Darshan's magic number (`DARSHAN_MAGIC_NR`), in bytes 8 to 16 of every Darshan 3.x log in the
/// byte order of the machine that wrote it (the Darshan reader's own constant; a test holds
/// them equal).
pub const DARSHAN_MAGIC: u64 = 6_567_223;

/// What a file is, decided from its first bytes, never its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// A Darshan 3.x log: its version string (`3.` padded with NULs to 8 bytes) and then
    /// Darshan's magic number in either byte order.
    DarshanLog,
    /// gzip (`1f 8b`): a compressed trace.
    Gzip,
    /// Text, as JSON lines are: no NUL byte in the head. Empty files are text.
    Text,
    /// Binary content that is neither: a NUL byte in the head.
    Binary,
}

impl InputKind {
    /// How many leading bytes [`InputKind::of`] looks at.
    pub const HEAD: usize = 16;

    /// The kind of a file that starts with `head` (its first [`InputKind::HEAD`] bytes, or all
    /// of it when shorter).
    pub fn of(head: &[u8]) -> Self {
        let magic = head.get(8..16).and_then(|bytes| <[u8; 8]>::try_from(bytes).ok());
        if head.starts_with(b"3.")
            && magic.is_some_and(|magic| {
                u64::from_le_bytes(magic) == DARSHAN_MAGIC || u64::from_be_bytes(magic) == DARSHAN_MAGIC
            })
        {
            return Self::DarshanLog;
        }
        if head.starts_with(&[0x1f, 0x8b]) {
            Self::Gzip
        } else if head.contains(&0) {
            Self::Binary
        } else {
            Self::Text
        }
    }

    /// The kind of the file at `path`, from its first bytes.
    pub fn of_file(path: &Path) -> std::io::Result<Self> {
        let mut file = File::open(path)?;
        Ok(Self::of(&read_head(&mut file)?))
    }
}

/// Up to [`InputKind::HEAD`] leading bytes of `file`.
fn read_head(file: &mut File) -> std::io::Result<Vec<u8>> {
    let mut head = [0u8; InputKind::HEAD];
    let mut read = 0;
    while read < head.len() {
        match file.read(&mut head[read..])? {
            0 => break,
            count => read += count,
        }
    }
    Ok(head[..read].to_vec())
}

/// One trace file to read.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TraceFile {
    /// The path as found.
    pub path: PathBuf,
    /// Size on disk in bytes.
    pub size: u64,
    /// How it is stored.
    pub compression: Compression,
}

/// What trace files a set of inputs holds on disk: each file's path, size and modification
/// time, as [`discover`] finds them. Two snapshots differ when a file was added, grew or was
/// touched: how `analyze --follow` and the MCP session tool tell a trace still being written.
pub type Snapshot = Vec<(PathBuf, u64, Option<std::time::SystemTime>)>;

/// The [`Snapshot`] of `inputs` now.
pub fn snapshot<P: AsRef<Path>>(inputs: &[P]) -> Snapshot {
    let (files, _) = discover(inputs);
    files
        .into_iter()
        .map(|file| {
            let modified = std::fs::metadata(&file.path).and_then(|metadata| metadata.modified()).ok();
            (file.path, file.size, modified)
        })
        .collect()
}

/// What [`wait_for_change`] saw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Waited {
    /// A file was added, grew or was touched: the [`Snapshot`] that differs.
    Changed(Snapshot),
    /// Nothing changed for the settle time, and settling was allowed.
    Settled,
    /// The deadline passed first.
    TimedOut,
}

/// How [`wait_for_change`] watches.
#[derive(Clone, Copy, Debug)]
pub struct Watch {
    /// How long nothing must change before the inputs count as settled.
    pub settle: std::time::Duration,
    /// How often the inputs are looked at.
    pub poll: std::time::Duration,
    /// Whether they may settle at all (`analyze --follow` does not let a file ending in an
    /// unfinished gzip member settle: its writer is still at work).
    pub may_settle: bool,
    /// When to give up, if ever.
    pub deadline: Option<std::time::Instant>,
}

/// Watches `inputs` from the [`Snapshot`] `before`: the snapshot that differs as soon as one
/// does, [`Waited::Settled`] once nothing has changed for `watch.settle` since the call (when
/// allowed), [`Waited::TimedOut`] at the deadline. The one settle loop: `analyze --follow` waits
/// with it between looks, and the MCP session tool's `wait_to_settle_s` calls it until settled.
pub fn wait_for_change<P: AsRef<Path>>(inputs: &[P], before: &Snapshot, watch: Watch) -> Waited {
    let since = std::time::Instant::now();
    loop {
        let now = snapshot(inputs);
        if &now != before {
            return Waited::Changed(now);
        }
        if watch.may_settle && since.elapsed() >= watch.settle {
            return Waited::Settled;
        }
        if watch.deadline.is_some_and(|deadline| std::time::Instant::now() >= deadline) {
            return Waited::TimedOut;
        }
        std::thread::sleep(watch.poll);
    }
}

/// A path that could not be used.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct InputProblem {
    /// The path or pattern as given.
    pub path: PathBuf,
    /// What went wrong.
    pub detail: String,
}

/// Whether a file name looks like a DFTracer trace.
pub fn is_trace_name(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|name| name.to_str()) else { return false };
    let name = name.to_ascii_lowercase();
    [".pfw", ".pfw.gz"].iter().any(|suffix| name.ends_with(suffix))
}

/// Expands `inputs` into trace files, in a stable order, without duplicates (the same file
/// reached twice, through a link or a second path, is read once: [`duplicates`] names them).
pub fn discover<P: AsRef<Path>>(inputs: &[P]) -> (Vec<TraceFile>, Vec<InputProblem>) {
    let (paths, mut problems) = expand(inputs);
    let paths = distinct(paths, |_, _| {});
    let described = map_ordered(&paths, |path| describe(path));
    let mut files = Vec::new();
    for (path, described) in paths.into_iter().zip(described) {
        match described {
            Ok(file) => files.push(file),
            Err(error) => problems.push(InputProblem { path, detail: error.to_string() }),
        }
    }
    (files, problems)
}

/// The most threads [`map_ordered`] uses.
const MAP_THREADS: usize = 8;

/// `work` applied to every item, the results in the items' order, on up to [`MAP_THREADS`]
/// threads (the caller's among them; at most one per eight items). For the per-file work before
/// a scan (opening each file, reading its head, fingerprinting it), which on a trace of
/// thousands of per-process files would otherwise keep one core busy while the others wait.
pub fn map_ordered<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    // Asked once: each answer reads the cgroup's CPU limits, and a run maps several lists.
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let cores =
        *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get));
    let threads = cores.min(MAP_THREADS).min(items.len().div_ceil(8));
    if threads <= 1 {
        return items.iter().map(&work).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    // Each thread takes the next item not taken yet, and keeps its results with their places.
    let take = || {
        let mut done = Vec::new();
        loop {
            let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(item) = items.get(index) else { break };
            done.push((index, work(item)));
        }
        done
    };
    let mut placed: Vec<(usize, R)> = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(take)).collect();
        let mut placed = take();
        for helper in helpers {
            match helper.join() {
                Ok(done) => placed.extend(done),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        placed
    });
    placed.sort_unstable_by_key(|(index, _)| *index);
    placed.into_iter().map(|(_, result)| result).collect()
}

/// The paths [`discover`] reads once because they are the same file as one found before (a
/// symbolic or hard link, or the same file given twice), each with the path read in its place.
/// Nothing is opened: the inputs are expanded and their paths resolved.
pub fn duplicates<P: AsRef<Path>>(inputs: &[P]) -> Vec<(PathBuf, PathBuf)> {
    let mut duplicates = Vec::new();
    let _ = distinct(expand(inputs).0, |duplicate, first| duplicates.push((duplicate, first.to_path_buf())));
    duplicates
}

/// The paths `inputs` name (directories walked, globs expanded), and those that name nothing.
fn expand<P: AsRef<Path>>(inputs: &[P]) -> (Vec<PathBuf>, Vec<InputProblem>) {
    let mut paths = Vec::new();
    let mut problems = Vec::new();
    for input in inputs {
        let input = input.as_ref();
        if input.is_dir() {
            let before = paths.len();
            walk_directory(input, &mut paths, &mut problems);
            if paths.len() == before {
                problems.push(InputProblem {
                    path: input.to_path_buf(),
                    detail: "directory holds no *.pfw or *.pfw.gz file".into(),
                });
            }
        } else if input.exists() {
            paths.push(input.to_path_buf());
        } else if input.to_string_lossy().contains(['*', '?', '[']) {
            expand_glob(input, &mut paths, &mut problems);
        } else {
            problems
                .push(InputProblem { path: input.to_path_buf(), detail: "no such file or directory".into() });
        }
    }
    (paths, problems)
}

/// `paths` without a second path to the same file (resolved through links), in order; each one
/// left out is told to `duplicate` with the path kept in its place.
fn distinct(paths: Vec<PathBuf>, mut duplicate: impl FnMut(PathBuf, &Path)) -> Vec<PathBuf> {
    let mut seen: std::collections::HashMap<PathBuf, PathBuf> = std::collections::HashMap::new();
    let mut kept = Vec::new();
    let keys = map_ordered(&paths, |path| std::fs::canonicalize(path).unwrap_or_else(|_| path.clone()));
    for (path, key) in paths.into_iter().zip(keys) {
        match seen.get(&key) {
            Some(first) if *first != path => duplicate(path, first),
            Some(_) => {}
            None => {
                seen.insert(key, path.clone());
                kept.push(path);
            }
        }
    }
    kept
}

fn walk_directory(directory: &Path, paths: &mut Vec<PathBuf>, problems: &mut Vec<InputProblem>) {
    let mut found = Vec::new();
    for entry in walkdir::WalkDir::new(directory).follow_links(true) {
        match entry {
            Ok(entry) if entry.file_type().is_file() && is_trace_name(entry.path()) => {
                found.push(entry.into_path());
            }
            Ok(_) => {}
            Err(error) => problems.push(InputProblem {
                path: error.path().unwrap_or(directory).to_path_buf(),
                detail: error.to_string(),
            }),
        }
    }
    found.sort();
    paths.extend(found);
}

fn expand_glob(pattern: &Path, paths: &mut Vec<PathBuf>, problems: &mut Vec<InputProblem>) {
    let text = pattern.to_string_lossy();
    let entries = match glob::glob(&text) {
        Ok(entries) => entries,
        Err(error) => {
            problems.push(InputProblem {
                path: pattern.to_path_buf(),
                detail: format!("bad glob pattern: {error}"),
            });
            return;
        }
    };
    let mut matched = 0;
    for entry in entries {
        match entry {
            Ok(path) if path.is_dir() => {
                matched += 1;
                walk_directory(&path, paths, problems);
            }
            Ok(path) => {
                matched += 1;
                paths.push(path);
            }
            Err(error) => {
                problems.push(InputProblem { path: error.path().to_path_buf(), detail: error.to_string() });
            }
        }
    }
    if matched == 0 {
        problems.push(InputProblem { path: pattern.to_path_buf(), detail: "glob matched no file".into() });
    }
}

/// Size and compression of one file; a Darshan log or a binary file is refused here (one
/// problem, never thousands of "invalid UTF-8" lines of binary junk).
pub fn describe(path: &Path) -> std::io::Result<TraceFile> {
    let mut file = File::open(path)?;
    let size = file.metadata()?.len();
    let head = read_head(&mut file)?;
    let refuse = |detail: String| Err(std::io::Error::new(std::io::ErrorKind::InvalidData, detail));
    let kind = InputKind::of(&head);
    // The content decides, except that a file whose name promises gzip and whose bytes are not
    // gzip is one problem, never thousands of "invalid UTF-8" lines of binary junk.
    let named_gzip =
        path.file_name().is_some_and(|name| name.to_string_lossy().to_ascii_lowercase().ends_with(".gz"));
    let compression = match kind {
        InputKind::DarshanLog => return refuse("a Darshan log, not a DFTracer trace".into()),
        InputKind::Gzip => Compression::Gzip,
        InputKind::Text | InputKind::Binary if named_gzip && size > 0 => {
            return refuse(format!(
                "not gzip: the name ends in .gz but the file starts with bytes {}, not gzip's 1f 8b",
                hex(&head[..head.len().min(2)])
            ));
        }
        InputKind::Binary => {
            return refuse(format!(
                "binary content, not a DFTracer trace (JSON lines or gzip): it starts with bytes {}",
                hex(&head[..head.len().min(8)])
            ));
        }
        InputKind::Text => Compression::None,
    };
    Ok(TraceFile { path: path.to_path_buf(), size, compression })
}

/// `bytes` as lowercase hex pairs separated by spaces.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn darshan_head(big_endian: bool) -> Vec<u8> {
        let mut head = b"3.41\0\0\0\0".to_vec();
        head.extend(if big_endian { DARSHAN_MAGIC.to_be_bytes() } else { DARSHAN_MAGIC.to_le_bytes() });
        head
    }

    /// The results come back in the items' order, each item done once, whether the work is
    /// shared among threads (many items) or done on the caller's (few).
    #[test]
    fn map_ordered_keeps_the_order_and_does_each_item_once() {
        let calls = std::sync::atomic::AtomicUsize::new(0);
        for count in [0usize, 1, 7, 8, 9, 1000] {
            calls.store(0, std::sync::atomic::Ordering::Relaxed);
            let items: Vec<u64> = (0..count as u64).map(|item| item * 7919 % 1009).collect();
            let mapped = map_ordered(&items, |item| {
                calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                // Uneven work, so that threads finish out of order.
                (0..*item % 97).fold(*item, |sum, step| sum.wrapping_mul(31).wrapping_add(step))
            });
            let expected: Vec<u64> = items
                .iter()
                .map(|item| (0..*item % 97).fold(*item, |sum, step| sum.wrapping_mul(31).wrapping_add(step)))
                .collect();
            assert_eq!(mapped, expected, "{count} items");
            assert_eq!(calls.load(std::sync::atomic::Ordering::Relaxed), count);
        }
    }

    #[test]
    fn kind_is_decided_by_content() {
        assert_eq!(InputKind::of(&darshan_head(false)), InputKind::DarshanLog);
        assert_eq!(InputKind::of(&darshan_head(true)), InputKind::DarshanLog);
        assert_eq!(InputKind::of(&[0x1f, 0x8b, 8, 0]), InputKind::Gzip);
        assert_eq!(InputKind::of(b"[\n{\"id\":0,\"name\""), InputKind::Text);
        assert_eq!(InputKind::of(b""), InputKind::Text);
        assert_eq!(InputKind::of(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"), InputKind::Binary);
        // A version string without the magic number is not a log.
        let mut wrong_magic = darshan_head(false);
        wrong_magic[8] ^= 1;
        assert_eq!(InputKind::of(&wrong_magic), InputKind::Binary);
    }

    #[test]
    fn links_to_one_file_are_read_once_and_named() {
        let directory = std::env::temp_dir().join(format!("ioscout-links-{}", std::process::id()));
        std::fs::create_dir_all(&directory).unwrap_or_else(|error| panic!("{error}"));
        let trace = directory.join("a.pfw");
        std::fs::write(&trace, b"[\n").unwrap_or_else(|error| panic!("{error}"));
        let link = directory.join("b.pfw");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&trace, &link).unwrap_or_else(|error| panic!("{error}"));
        let (files, problems) = discover(&[&directory]);
        assert_eq!((files.len(), problems.len()), (1, 0));
        assert_eq!(duplicates(&[&directory]), vec![(link.clone(), trace.clone())]);
        std::fs::remove_dir_all(&directory).unwrap_or_else(|error| panic!("{error}"));
    }

    #[test]
    fn describe_refuses_a_darshan_log_named_as_a_trace() {
        let directory = std::env::temp_dir().join(format!("ioscout-input-kind-{}", std::process::id()));
        std::fs::create_dir_all(&directory).unwrap_or_else(|error| panic!("{error}"));
        let log = directory.join("job.pfw");
        let mut bytes = darshan_head(false);
        bytes.extend([0x78, 0x9c, 1, 2, 3]);
        std::fs::write(&log, &bytes).unwrap_or_else(|error| panic!("{error}"));
        let error = describe(&log).err().map(|error| error.to_string()).unwrap_or_default();
        assert!(error.starts_with("a Darshan log, not a DFTracer trace"), "{error}");
        let (files, problems) = discover(&[&log]);
        assert!(files.is_empty());
        assert_eq!(problems.len(), 1);
        let binary = directory.join("image.pfw");
        std::fs::write(&binary, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap_or_else(|error| panic!("{error}"));
        let error = describe(&binary).err().map(|error| error.to_string()).unwrap_or_default();
        assert!(error.contains("binary content") && error.contains("89 50 4e 47"), "{error}");
        std::fs::remove_dir_all(&directory).unwrap_or_else(|error| panic!("{error}"));
    }
}
