//! `ioscout view` and the expression language end to end.

use std::io::Read;
use std::process::{Command, Stdio};

use crate::{ioscout, root, stderr, stdout};

fn lines(arguments: &[&str]) -> Vec<serde_json::Value> {
    let output = ioscout(arguments);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    stdout(&output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|error| panic!("{error}: {line}")))
        .collect()
}

#[test]
fn filters_resolve_hosts_and_files() {
    let found = lines(&[
        "view",
        "testdata/sample",
        "--where",
        r#"name == "read" and host == "node02" and file ~ "img_[0-9]+_of_64[.]npz$" and dur > 20000"#,
    ]);
    // The fixture has six slow reads on node02 (see testdata/make_fixtures.py).
    assert_eq!(found.len(), 6);
    for event in &found {
        assert_eq!(event["name"], "read");
        assert_eq!(event["host"], "node02");
        assert!(
            event["file"]
                .as_str()
                .unwrap_or_default()
                .starts_with("/p/lustre/user/dlio-runs/unet3d/data/train/img_")
        );
        assert!(event["dur"].as_i64().unwrap_or_default() > 20000);
        assert_eq!(event["ph"], "X");
        assert_eq!(event["args"]["ret"], 262_144);
    }
}

#[test]
fn limit_in_and_not_work_together() {
    let found = lines(&[
        "view",
        "testdata/sample",
        "--where",
        r#"cat in ("POSIX") and not name in ("read", "lseek64") and args.ret >= 0"#,
        "--limit",
        "7",
    ]);
    assert_eq!(found.len(), 7);
    for event in &found {
        let name = event["name"].as_str().unwrap_or_default();
        assert!(["open64", "close", "write", "fsync"].contains(&name) || name == "close", "{name}");
    }
}

#[test]
fn metadata_events_and_v1_hashes_are_viewable() {
    let found = lines(&["view", "testdata/generations/v1-hashes.pfw", "--where", "ph == M and name == FH"]);
    assert_eq!(found.len(), 4);
    let value = &found[0]["args"]["value"];
    // Integer hashes above 2^63 come out exactly as written.
    assert!(value.as_u64().is_some_and(|hash| hash > 1 << 63), "{value}");
    let reads = lines(&["view", "testdata/generations/v1-hashes.pfw", "--where", r#"name == "read""#]);
    assert_eq!(reads[0]["host"], "corona171");
    assert_eq!(reads[0]["file"], "/p/gpfs1/user/unet3d/img_0.npz");
}

#[test]
fn legacy_inline_names_are_resolved() {
    let found = lines(&[
        "view",
        "testdata/generations/legacy-2023.pfw",
        "--where",
        "pid == 1338896 and ts < 1698080323777554",
    ]);
    assert_eq!(found.len(), 2);
    assert_eq!(found[0]["host"], "corona237");
    assert_eq!(found[0]["file"], "/p/lustre1/user/data/file_0.bat");
}

#[test]
fn csv_has_a_header_and_quotes_args() {
    let output =
        ioscout(&["view", "testdata/generations/ndjson-2.2.pfw.gz", "--format", "csv", "--limit", "2"]);
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows[0], "name,cat,pid,tid,ts,dur,ph,host,file,args");
    assert_eq!(rows.len(), 3);
    assert!(rows[1].starts_with("HH,dftracer,777,777,,,M,tuolumne3,,\"{"), "{}", rows[1]);
}

#[test]
fn a_bad_expression_is_an_error_with_a_caret() {
    let output = ioscout(&["view", "testdata/sample", "--where", "dur >> 3"]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(message.contains("invalid --where expression at position 5"), "{message}");
    assert!(message.contains('^'), "{message}");
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ioscout"))
        .args(["view", "testdata"])
        .current_dir(root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("{error}"));
    let mut first = [0u8; 64];
    if let Some(out) = child.stdout.as_mut() {
        let _ = out.read(&mut first);
    }
    drop(child.stdout.take());
    let status = child.wait().unwrap_or_else(|error| panic!("{error}"));
    let mut message = String::new();
    if let Some(mut error) = child.stderr.take() {
        let _ = error.read_to_string(&mut message);
    }
    assert_eq!(status.code(), Some(0), "{message}");
    assert!(!message.contains("error"), "{message}");
}

#[test]
fn select_projects_columns_in_order() {
    let found = lines(&[
        "view",
        "testdata/sample",
        "--where",
        r#"name == "write""#,
        "--select",
        "ts,file,args.ret,args.nope",
        "--limit",
        "1",
    ]);
    let keys: Vec<&String> = found[0].as_object().map(|object| object.keys().collect()).unwrap_or_default();
    assert_eq!(keys.len(), 4);
    assert_eq!(found[0]["args.ret"], 4_194_304);
    assert_eq!(found[0]["args.nope"], serde_json::Value::Null);
    assert!(found[0]["file"].as_str().is_some_and(|file| file.ends_with("model.pt")));
    let output =
        ioscout(&["view", "testdata/sample", "--select", "ph,name", "--format", "csv", "--limit", "1"]);
    assert_eq!(stdout(&output), "ph,name\nM,HH\n");
    let bad = ioscout(&["view", "testdata/sample", "--select", "colour"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("unknown --select column"), "{}", stderr(&bad));
}

#[test]
fn parquet_output_reads_back_with_types() {
    use arrow_array::Array;
    let directory = crate::temp_dir("parquet");
    let path = directory.join("writes.parquet");
    let file = std::fs::File::create(&path).unwrap_or_else(|error| panic!("{error}"));
    let status = Command::new(env!("CARGO_BIN_EXE_ioscout"))
        .args(["view", "testdata/sample", "--where", r#"name == "write""#, "--format", "parquet"])
        .current_dir(root())
        .stdout(file)
        .status()
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(status.code(), Some(0));
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
        std::fs::File::open(&path).unwrap_or_else(|error| panic!("{error}")),
    )
    .and_then(parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::build)
    .unwrap_or_else(|error| panic!("{error}"));
    let mut rows = 0;
    for batch in reader {
        let batch = batch.unwrap_or_else(|error| panic!("{error}"));
        rows += batch.num_rows();
        let schema = batch.schema();
        assert_eq!(schema.field(0).name(), "name");
        assert_eq!(schema.field(4).data_type(), &arrow_schema::DataType::Int64);
        let names = batch
            .column(0)
            .as_any()
            .downcast_ref::<arrow_array::StringArray>()
            .map(|names| names.value(0).to_string());
        assert_eq!(names.as_deref(), Some("write"));
        assert!(!batch.column(9).is_null(0), "file resolved");
    }
    assert_eq!(rows, 32);
}
