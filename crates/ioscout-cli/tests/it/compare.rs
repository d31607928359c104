//! `ioscout compare`: two or more runs against a baseline, on the bundled sample trace, the
//! DLIO pair of `testdata/validation` (`read_threads` 1 and 4, and 4 with one epoch: half the
//! data), a sweep generated here, globs, a manifest, labels, sorting, CSV and the HTML page.

use std::fmt::Write as _;
use std::path::Path;

use crate::{ioscout, json, root, stderr, stdout, temp_dir};

const THREADS_1: &str = "testdata/validation/dlio_read_threads_1";
const THREADS_4: &str = "testdata/validation/dlio_read_threads_4";
const ONE_EPOCH: &str = "testdata/validation/dlio_read_threads_4_one_epoch";

/// The run labelled `label` (or, failing that, given as the path `label`) of a comparison's JSON.
fn run<'c>(campaign: &'c serde_json::Value, label: &str) -> &'c serde_json::Value {
    let runs = || campaign["runs"].as_array().into_iter().flatten();
    runs()
        .find(|run| run["label"] == label)
        .or_else(|| runs().find(|run| run["path"] == label))
        .unwrap_or_else(|| panic!("no run {label} in {campaign}"))
}

/// A run's default label: the shortest suffix of its path no other run's path ends with (here,
/// the last component).
fn tail_of(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The layer `name` of one run.
fn layer<'r>(run: &'r serde_json::Value, name: &str) -> &'r serde_json::Value {
    run["layers"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|layer| layer["name"] == name)
        .unwrap_or_else(|| panic!("no layer {name} in {run}"))
}

fn strings(value: &serde_json::Value) -> Vec<String> {
    value.as_array().into_iter().flatten().filter_map(|item| item.as_str().map(str::to_string)).collect()
}

fn labels(campaign: &serde_json::Value) -> Vec<String> {
    campaign["runs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|run| run["label"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn the_same_run_twice_is_the_same_work_and_half_the_data_is_not_credited() {
    let same = json(&["compare", "--json", "testdata/sample", "testdata/sample"], 0);
    assert_eq!(labels(&same), ["sample", "sample (2)"]);
    assert!(strings(&same["doing_less"]).is_empty(), "{same}");
    assert_eq!(run(&same, "sample (2)")["verdict"], "no change (within 5 %)");
    // The second run: rank 0 only (half the data).
    let half = temp_dir("compare-half");
    for entry in std::fs::read_dir(root().join("testdata/sample")).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("trace-0-of-2") {
            let _ = std::fs::copy(entry.path(), half.join(&name));
        }
    }
    let half_path = half.to_string_lossy().into_owned();
    let less = json(&["compare", "--json", "testdata/sample", &half_path, "--labels", "whole,half"], 0);
    assert_eq!(strings(&less["doing_less"]), ["half"]);
    let half_run = run(&less, "half");
    assert!(strings(&half_run["doing_less"]).contains(&"posix".to_string()), "{less}");
    assert_eq!(layer(half_run, "posix")["work"], "less");
    assert!(half_run["verdict"].as_str().is_some_and(|verdict| verdict.starts_with("not credited")));
    assert_eq!(run(&less, "whole")["verdict"], "baseline");
    let _ = std::fs::remove_dir_all(&half);
}

/// Three DLIO runs: more reader threads shorten the fetch wait with the same work; the run with
/// one epoch did less and is marked. Against the one-epoch run as baseline, the others did more
/// (not less), so nothing is marked.
#[test]
fn three_dlio_runs_the_guard_marks_the_one_that_did_less() {
    let campaign = json(&["compare", "--json", THREADS_1, THREADS_4, ONE_EPOCH], 0);
    assert_eq!(campaign["baseline"], tail_of(THREADS_1));
    assert_eq!(labels(&campaign), [THREADS_1, THREADS_4, ONE_EPOCH].map(tail_of));
    assert_eq!(strings(&campaign["doing_less"]), [tail_of(ONE_EPOCH)]);
    let four = run(&campaign, THREADS_4);
    assert!(four["job_speedup"].as_f64().is_some_and(|speedup| speedup > 1.05), "{four}");
    let fetch = layer(four, "fetch_data");
    assert!(fetch["speedup"].as_f64().is_some_and(|speedup| speedup > 1.0), "{fetch}");
    assert_eq!(fetch["count_delta"], 0);
    assert_eq!(fetch["work"], "same");
    let short = run(&campaign, ONE_EPOCH);
    let flagged = strings(&short["doing_less"]);
    assert!(
        flagged.contains(&"reader_posix".to_string()) && flagged.contains(&"fetch_data".to_string()),
        "{short}"
    );
    assert!(layer(short, "fetch_data")["count_delta"].as_i64().is_some_and(|delta| delta < 0));
    // Every run has every layer of the campaign, in the campaign's order.
    let layers = strings(&campaign["layers"]);
    for line in campaign["runs"].as_array().into_iter().flatten() {
        let names: Vec<String> = line["layers"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|layer| layer["name"].as_str().map(str::to_string))
            .collect();
        assert_eq!(names, layers);
        assert!(line["scan"]["complete"].as_bool().is_some(), "{line}");
        assert_eq!(line["kind"], "trace");
    }
    let against_short =
        json(&["compare", "--json", THREADS_1, THREADS_4, ONE_EPOCH, "--baseline", ONE_EPOCH], 0);
    // The baseline named by its path as given.
    assert_eq!(against_short["baseline"], tail_of(ONE_EPOCH));
    assert!(strings(&against_short["doing_less"]).is_empty(), "{against_short}");
    // The text names the runs, the baseline and the run not credited.
    let text = stdout(&ioscout(&["compare", THREADS_1, THREADS_4, ONE_EPOCH]));
    assert!(text.contains(&format!("Runs against {}", tail_of(THREADS_1))), "{text}");
    assert!(text.contains("Layer fetch_data") && text.contains("LESS"), "{text}");
    assert!(text.contains(&format!("Not credited: {}", tail_of(ONE_EPOCH))), "{text}");
}

/// One run of a sweep: `reads` POSIX reads of 1 MiB, each `duration_us` long, back to back.
fn sweep_run(folder: &Path, name: &str, reads: u64, duration_us: u64) {
    let directory = folder.join(name);
    std::fs::create_dir_all(&directory).unwrap_or_else(|error| panic!("{error}"));
    let mut text = String::new();
    for index in 0..reads {
        let _ = writeln!(
            text,
            "{{\"id\":{index},\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":{},\"dur\":{duration_us},\"ph\":1,\"args\":{{\"ret\":1048576,\"count\":1048576,\"fname\":\"/data/file\"}}}}",
            1_000_000 + index * (duration_us + 10)
        );
    }
    std::fs::write(directory.join("trace-0.pfw"), text).unwrap_or_else(|error| panic!("{error}"));
}

/// A generated sweep of five runs through a glob: sorted by job time, by the layer's bandwidth,
/// reversed; the run that read half as much is marked; CSV has a row per run and layer; the
/// HTML page has the small multiples.
#[test]
fn a_generated_sweep_sorts_marks_and_renders() {
    let folder = temp_dir("compare-sweep");
    sweep_run(&folder, "threads_1", 200, 4000);
    sweep_run(&folder, "threads_2", 200, 2000);
    sweep_run(&folder, "threads_4", 200, 1000);
    sweep_run(&folder, "threads_8", 200, 800);
    sweep_run(&folder, "threads_8_half", 100, 800);
    let pattern = format!("{}/threads_*", folder.display());
    let campaign = json(&["compare", "--json", &pattern], 0);
    // Runs are labelled by the shortest path suffix that tells them apart: their folder's name.
    let label = |name: &str| name.to_string();
    assert_eq!(
        labels(&campaign),
        ["threads_1", "threads_2", "threads_4", "threads_8", "threads_8_half"].map(label)
    );
    assert_eq!(strings(&campaign["doing_less"]), [label("threads_8_half")]);
    let posix = layer(run(&campaign, &label("threads_4")), "posix");
    assert_eq!(posix["count"], 200);
    assert_eq!(posix["bytes"], 200 * 1_048_576_u64);
    assert!(posix["speedup"].as_f64().is_some_and(|speedup| (speedup - 4.0).abs() < 0.01), "{posix}");
    let by_time = json(&["compare", "--json", &pattern, "--sort", "job-time"], 0);
    assert_eq!(
        labels(&by_time),
        ["threads_8_half", "threads_8", "threads_4", "threads_2", "threads_1"].map(label)
    );
    let by_bandwidth =
        json(&["compare", "--json", &pattern, "--sort", "bandwidth", "--sort-layer", "posix"], 0);
    assert_eq!(by_bandwidth["sort_layer"], "posix");
    assert_eq!(labels(&by_bandwidth)[4], label("threads_1"));
    let reversed = json(&["compare", "--json", &pattern, "--sort", "job-time", "--reverse"], 0);
    assert_eq!(labels(&reversed)[0], label("threads_1"));
    // CSV: a header and one row per run and layer.
    let csv = stdout(&ioscout(&["compare", "--csv", &pattern]));
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[0].starts_with("run,path,kind,baseline,job_time_s"), "{csv}");
    let layer_count = strings(&campaign["layers"]).len();
    assert_eq!(lines.len(), 1 + 5 * layer_count, "{csv}");
    assert!(
        lines.iter().any(|line| line.contains("threads_8_half")
            && line.contains(",posix,")
            && line.contains(",less,true,")),
        "{csv}"
    );
    // HTML: the job time and four small charts per layer with operations, the LESS run marked.
    let page = folder.join("sweep.html");
    let page_path = page.to_string_lossy().into_owned();
    assert!(ioscout(&["compare", &pattern, "--html", &page_path]).status.success());
    let html = std::fs::read_to_string(&page).unwrap_or_default();
    for id in ["job-time", "posix-time", "posix-operations", "posix-bytes", "posix-bandwidth"] {
        assert!(html.contains(&format!("id=\"{id}\"")), "{id}");
    }
    assert!(html.contains("LESS") && !html.contains("<script src"));
    let _ = std::fs::remove_dir_all(&folder);
}

#[test]
fn a_manifest_labels_the_runs_and_names_the_baseline() {
    let folder = temp_dir("compare-manifest");
    let manifest = folder.join("campaign.toml");
    let base = root().join(THREADS_1);
    std::fs::write(
        &manifest,
        format!(
            "baseline = \"four\"\n[[run]]\nlabel = \"one\"\npath = \"{}\"\n[[run]]\nlabel = \"four\"\npath = \"{}\"\n",
            base.display(),
            root().join(THREADS_4).display()
        ),
    )
    .unwrap_or_else(|error| panic!("{error}"));
    let manifest_path = manifest.to_string_lossy().into_owned();
    let campaign =
        json(&["compare", "--json", "--manifest", &manifest_path, ONE_EPOCH, "--labels", "short"], 0);
    assert_eq!(labels(&campaign), ["one", "four", "short"]);
    assert_eq!(campaign["baseline"], "four");
    assert!(run(&campaign, "four")["baseline"].as_bool().unwrap_or(false));
    // A relative path in a manifest is taken from the manifest's folder.
    std::fs::create_dir_all(folder.join("runs")).unwrap_or_else(|error| panic!("{error}"));
    for (name, source) in [("a", THREADS_1), ("b", THREADS_4)] {
        let target = folder.join("runs").join(name);
        std::fs::create_dir_all(&target).unwrap_or_else(|error| panic!("{error}"));
        for entry in std::fs::read_dir(root().join(source)).into_iter().flatten().flatten() {
            let _ = std::fs::copy(entry.path(), target.join(entry.file_name()));
        }
    }
    std::fs::write(&manifest, "[[run]]\npath = \"runs/a\"\n[[run]]\npath = \"runs/b\"\nlabel = \"b\"\n")
        .unwrap_or_else(|error| panic!("{error}"));
    let relative = json(&["compare", "--json", "--manifest", &manifest_path], 0);
    assert_eq!(labels(&relative)[1], "b");
    assert!(run(&relative, "b")["job_speedup"].as_f64().is_some());
    // A manifest that is not one, a baseline no run has, a sort layer no run has: errors.
    std::fs::write(&manifest, "[[runs]]\npath = 1\n").unwrap_or_else(|error| panic!("{error}"));
    let bad = ioscout(&["compare", "--manifest", &manifest_path]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("not a manifest of runs"), "{}", stderr(&bad));
    let _ = std::fs::remove_dir_all(&folder);
    let unknown = ioscout(&["compare", THREADS_1, THREADS_4, "--baseline", "nope"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(stderr(&unknown).contains("no run is labelled \"nope\""), "{}", stderr(&unknown));
    let no_layer = ioscout(&["compare", THREADS_1, THREADS_4, "--sort", "time", "--sort-layer", "nope"]);
    assert_eq!(no_layer.status.code(), Some(2));
    assert!(stderr(&no_layer).contains("no run has a layer \"nope\""), "{}", stderr(&no_layer));
    let one = ioscout(&["compare", THREADS_1]);
    assert_eq!(one.status.code(), Some(2));
    assert!(stderr(&one).contains("two or more runs"), "{}", stderr(&one));
    let nothing = ioscout(&["compare", "testdata/validation/nothing_*", THREADS_1]);
    assert_eq!(nothing.status.code(), Some(2));
    assert!(stderr(&nothing).contains("no run matches this pattern"), "{}", stderr(&nothing));
}

/// `compare TRACE_DIR LOG.darshan` mixed trace layers and Darshan modules and called POSIX going
/// from 0 to 320 operations "same"; an empty file or a trace of garbage compared with exit 0.
/// Different kinds are refused (exit 2, with the reason), an input with nothing readable is an
/// error, and a layer on one side only is "new" or "gone".
#[test]
fn compare_refuses_nonsense_and_names_new_and_gone_layers() {
    let darshan = "testdata/darshan/mpi-io-test-x86_64-3.5.0.darshan";
    let mixed = ioscout(&["compare", "testdata/sample", darshan]);
    assert_eq!(mixed.status.code(), Some(2));
    assert!(stderr(&mixed).contains("do not line up"), "{}", stderr(&mixed));
    let directory = temp_dir("compare-nonsense");
    let empty = directory.join("empty.pfw");
    std::fs::write(&empty, b"").unwrap_or_else(|error| panic!("{error}"));
    let garbage = directory.join("garbage.pfw");
    std::fs::write(&garbage, b"not a trace\n{broken\n").unwrap_or_else(|error| panic!("{error}"));
    for side in [&empty, &garbage] {
        let side = side.to_string_lossy().into_owned();
        for pair in [["testdata/sample", side.as_str()], [side.as_str(), "testdata/sample"]] {
            let output = ioscout(&["compare", pair[0], pair[1]]);
            assert_eq!(output.status.code(), Some(2), "{pair:?}");
            // The one rule for empty input: traces without an event cannot be analysed.
            assert!(stderr(&output).contains("no events in"), "{pair:?}: {}", stderr(&output));
        }
    }
    // Only the POSIX events of the sample on one side: the other layers are gone, then new.
    let posix_only = directory.join("posix");
    std::fs::create_dir_all(&posix_only).unwrap_or_else(|error| panic!("{error}"));
    let rows = ioscout(&["view", "testdata/sample", "--where", "cat == \"POSIX\" or ph == M"]);
    std::fs::write(posix_only.join("posix.pfw"), &rows.stdout).unwrap_or_else(|error| panic!("{error}"));
    let posix = posix_only.to_string_lossy().into_owned();
    for (before, after, expected) in
        [("testdata/sample", posix.as_str(), "gone"), (posix.as_str(), "testdata/sample", "new")]
    {
        let compared = json(&["compare", "--json", before, after, "--labels", "before,after"], 0);
        let baseline = run(&compared, "before");
        let other = run(&compared, "after");
        let works: Vec<String> = strings(&compared["layers"])
            .iter()
            .filter(|name| {
                let (left, right) = (&layer(baseline, name)["count"], &layer(other, name)["count"]);
                left != right && (left == 0 || right == 0)
            })
            .map(|name| layer(other, name)["work"].as_str().unwrap_or_default().to_string())
            .collect();
        assert!(!works.is_empty(), "{compared}");
        assert!(works.iter().all(|work| work == expected), "{expected}: {works:?}");
    }
    let _ = std::fs::remove_dir_all(&directory);
}

/// Two Darshan logs compare by module.
#[test]
fn two_darshan_logs_compare_by_module() {
    let log = "testdata/darshan/mpi-io-test-x86_64-3.5.0.darshan";
    let older = "testdata/darshan/mpi-io-test-x86_64-3.1.3.darshan";
    let campaign = json(&["compare", "--json", log, older], 0);
    assert!(strings(&campaign["layers"]).contains(&"POSIX".to_string()), "{campaign}");
    assert_eq!(run(&campaign, older)["kind"], "darshan");
    assert!(run(&campaign, older).get("scan").is_none());
}

/// Runs given one label are replicates: medians, the range of run ratios and a verdict, with the
/// tracer's overhead noted for traces; without a repeated label there is no `replicates` key.
#[test]
fn runs_given_one_label_are_replicates() {
    let tiny = "testdata/scenarios/tiny_writes";
    let control = "testdata/scenarios/compute_bound";
    let arguments = [
        "compare",
        "--json",
        "--labels",
        "base,base,base,other,other,other",
        tiny,
        tiny,
        tiny,
        control,
        control,
        control,
    ];
    let value = crate::json(&arguments, 0);
    let replicates = value["replicates"].as_array().cloned().unwrap_or_default();
    assert_eq!(replicates.len(), 2, "{value}");
    assert_eq!(replicates[0]["verdict"], "baseline");
    assert_eq!(replicates[1]["job_times_s"].as_array().map(Vec::len), Some(3));
    assert!(
        replicates[1]["verdict"].as_str().is_some_and(|verdict| verdict.starts_with("slower")),
        "{}",
        replicates[1]
    );
    let text = crate::stdout(&crate::ioscout(
        &arguments[..1].iter().chain(&arguments[2..]).copied().collect::<Vec<_>>(),
    ));
    assert!(text.contains("Replicates") && text.contains("tracer's cost per call"), "{text}");
    let single = crate::json(&["compare", "--json", tiny, control], 0);
    assert!(single.get("replicates").is_none(), "{single}");
}
