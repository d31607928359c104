//! The server's call path without a client: results equal the service's, refusals are
//! invalid-params errors, the time limit and the result cap hold, and the server keeps serving.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use ioscout_mcp::{Server, ServerOptions};
use serde_json::{Value, json};

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn server(options: &ServerOptions) -> Server {
    let kb = std::env::temp_dir().join(format!("ioscout-mcp-test-{}.jsonl", std::process::id()));
    match Server::new(&ServerOptions { roots: vec![repository()], kb: Some(kb), ..options.clone() }) {
        Ok(server) => server,
        Err(error) => panic!("server: {error}"),
    }
}

fn runtime() -> tokio::runtime::Runtime {
    match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => panic!("runtime: {error}"),
    }
}

/// What in `value` the JSON Schema `schema` does not allow, checked independently of the
/// types it came from: an object key the schema does not name, a required key missing, a
/// value of another type (`$ref` into `root`'s `$defs`, `anyOf`/`oneOf`, `type`, `enum`,
/// `properties`, `required`, `items`). Empty when `value` conforms.
fn nonconforming(value: &Value, schema: &Value, root: &Value, at: &str) -> Vec<String> {
    if let Some(reference) = schema["$ref"].as_str() {
        let name = reference.trim_start_matches("#/$defs/");
        return nonconforming(value, &root["$defs"][name], root, at);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = schema[key].as_array() {
            let fits = branches.iter().any(|branch| nonconforming(value, branch, root, at).is_empty());
            return if fits { Vec::new() } else { vec![format!("{at}: no branch of {key} fits {value}")] };
        }
    }
    let mut problems = Vec::new();
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(number) if number.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let allowed: Vec<&str> = match &schema["type"] {
        Value::String(one) => vec![one.as_str()],
        Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let fits =
        allowed.is_empty() || allowed.contains(&kind) || (kind == "integer" && allowed.contains(&"number"));
    if !fits {
        problems.push(format!("{at}: {kind} where the schema says {allowed:?}"));
    }
    if let Some(choices) = schema["enum"].as_array()
        && !choices.contains(value)
    {
        problems.push(format!("{at}: {value} is not one of {choices:?}"));
    }
    if let (Value::Object(object), Some(properties)) = (value, schema["properties"].as_object()) {
        for (key, inner) in object {
            match properties.get(key) {
                Some(property) => {
                    problems.extend(nonconforming(inner, property, root, &format!("{at}.{key}")));
                }
                None if schema["additionalProperties"].is_object() => {}
                None => problems.push(format!("{at}.{key}: not in the schema")),
            }
        }
        for required in schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str) {
            if !object.contains_key(required) {
                problems.push(format!("{at}.{required}: required, missing"));
            }
        }
    }
    if let (Value::Array(items), Some(item_schema)) = (value, schema.get("items")) {
        for (index, item) in items.iter().enumerate() {
            problems.extend(nonconforming(item, item_schema, root, &format!("{at}[{index}]")));
        }
    }
    problems
}

/// Asserts that `result`, from `tool`, conforms to the output schema `tools/list` publishes.
fn assert_conforms(server: &Server, tool: &str, result: &Value) {
    let schema = server
        .tools()
        .into_iter()
        .find(|listed| listed.name == tool)
        .and_then(|listed| listed.output_schema)
        .map(|schema| Value::Object((*schema).clone()));
    let Some(schema) = schema else { panic!("{tool} publishes no output schema") };
    let problems = nonconforming(result, &schema, &schema, "$");
    assert!(problems.is_empty(), "{tool}: {problems:#?}\n{result}");
}

/// The checker above can fail: a key the schema does not name, a missing required key and a
/// value of the wrong type are each found.
#[test]
fn the_schema_check_finds_what_does_not_conform() {
    let schema = json!({
        "type": "object",
        "properties": {"count": {"type": "integer"}, "name": {"$ref": "#/$defs/Name"}},
        "required": ["count"],
        "$defs": {"Name": {"type": ["string", "null"]}},
    });
    assert!(nonconforming(&json!({"count": 3, "name": null}), &schema, &schema, "$").is_empty());
    for bad in [
        json!({"count": 3, "other": 1}),
        json!({"name": "a"}),
        json!({"count": "3"}),
        json!({"count": 1, "name": 2}),
    ] {
        assert!(!nonconforming(&bad, &schema, &schema, "$").is_empty(), "{bad}");
    }
}

#[test]
fn event_count_gives_the_service_numbers_and_refusals_are_invalid_params() {
    let server = server(&ServerOptions::default());
    runtime().block_on(async {
        let result = server.call("event_count", json!({"directory": "testdata/sample"})).await;
        let Ok(result) = result else { panic!("event_count refused") };
        assert_eq!(result.is_error, Some(false));
        let value = result.structured_content.unwrap_or(Value::Null);
        let input = ioscout_service::Input::of(vec![repository().join("testdata/sample")]);
        let direct = ioscout_service::count::count(&input).map(|outcome| outcome.value["total"].clone());
        assert_eq!(Some(&value["total"]), direct.as_ref().ok());
        assert_eq!(value["status"], "ok");

        for (tool, arguments) in [
            ("event_count", json!({"directory": "/etc"})),
            ("event_count", json!({"directory": 42})),
            ("analyze", json!({})),
            ("query", json!({"trace_path": "testdata/sample", "where": "cat =="})),
            ("nonexistent", json!({})),
        ] {
            let refused = server.call(tool, arguments.clone()).await;
            let Err(error) = refused else { panic!("{tool} {arguments} accepted") };
            assert_eq!(error.code, rmcp::model::ErrorCode::INVALID_PARAMS, "{tool} {arguments}");
            assert!(!error.message.is_empty());
        }
        let failed = server.call("reader", json!({"file": "testdata/no-such-directory"})).await;
        assert!(failed.is_ok_and(|result| result.is_error == Some(true)));
        let again = server.call("event_count", json!({"directory": "testdata/sample"})).await;
        assert!(again.is_ok_and(|result| result.is_error == Some(false)));
    });
}

#[test]
fn a_call_over_its_time_limit_is_a_tool_error_and_the_server_goes_on() {
    let server = server(&ServerOptions { time_limit: Duration::from_nanos(1), ..ServerOptions::default() });
    runtime().block_on(async {
        let result = server.call("analyze", json!({"trace_path": "testdata/sample"})).await;
        let Ok(result) = result else { panic!("refused") };
        assert_eq!(result.is_error, Some(true));
        let message = result.structured_content.unwrap_or(Value::Null)["message"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(message.contains("time limit"), "{message}");
    });
}

#[test]
fn a_result_over_the_cap_is_trimmed_with_a_note() {
    let server = server(&ServerOptions { max_result_bytes: 4096, ..ServerOptions::default() });
    runtime().block_on(async {
        let result = server.call("query", json!({"trace_path": "testdata/sample", "limit": 500})).await;
        let Ok(result) = result else { panic!("refused") };
        let value = result.structured_content.unwrap_or(Value::Null);
        assert_eq!(value["truncated"], true);
        assert!(value["truncation_note"].as_str().is_some_and(|note| note.contains("cap")));
        assert!(serde_json::to_string(&value).map_or(usize::MAX, |text| text.len()) < 4096 + 400);
        let rows = value["rows"].as_array().map_or(0, Vec::len);
        assert!(rows > 0 && rows < 500, "{rows}");
    });
}

/// Every tool result over traces carries the scan report (`scan`): a truncated trace among good
/// ones is listed with its problem, and `complete` is false.
#[test]
fn tool_results_carry_the_scan_report() {
    let server = server(&ServerOptions::default());
    runtime().block_on(async {
        for (tool, arguments) in [
            ("analyze", json!({"trace_path": "testdata/bad"})),
            ("diagnose", json!({"trace_path": "testdata/bad"})),
            ("event_count", json!({"directory": "testdata/bad"})),
        ] {
            let result = server.call(tool, arguments.clone()).await;
            let Ok(result) = result else { panic!("{tool} refused") };
            let value = result.structured_content.unwrap_or(Value::Null);
            assert_eq!(value["scan"]["complete"], false, "{tool}: {value}");
            let problems = value["scan"]["problems"].as_array().cloned().unwrap_or_default();
            assert!(
                problems.iter().any(|problem| problem["path"]
                    .as_str()
                    .is_some_and(|path| path.ends_with("truncated.pfw.gz"))),
                "{tool}: {value}"
            );
        }
    });
}

/// The tools that publish an output schema return results that conform to it, called on a
/// copy of the fixtures (the tools write an index, a knowledge base and move files); every tool
/// that publishes one is called here.
#[test]
fn typed_tools_return_what_their_output_schemas_say() {
    let base = repository().join("target").join(format!("mcp-typed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let copy = |from: &str, to: &std::path::Path| {
        std::fs::create_dir_all(to).unwrap_or_else(|error| panic!("{error}"));
        for entry in std::fs::read_dir(repository().join(from)).into_iter().flatten().flatten() {
            let _ = std::fs::copy(entry.path(), to.join(entry.file_name()));
        }
    };
    copy("testdata/sample", &base.join("sample"));
    copy("testdata/sample", &base.join("run/baseline/traces"));
    copy("testdata/darshan", &base.join("darshan"));
    std::fs::create_dir_all(base.join("run/opt1")).unwrap_or_else(|error| panic!("{error}"));
    std::fs::write(base.join("run/optimization_context.json"), "{}\n")
        .unwrap_or_else(|error| panic!("{error}"));
    // The mock specs, beside the copies (the optimize spec's traces are `../../testdata/...`,
    // which from here is the repository's).
    for (from, to) in
        [("examples/tune/mock.toml", "tune.toml"), ("examples/optimize/mock.toml", "optimize.toml")]
    {
        std::fs::copy(repository().join(from), base.join(to))
            .unwrap_or_else(|error| panic!("{from}: {error}"));
    }
    let at = |relative: &str| base.join(relative).to_string_lossy().into_owned();
    let entry = json!({"before": 10, "after": 8, "change": "larger transfers", "citation": "session:test",
        "metric": "io_time_s", "scope": "software", "bottleneck": "small reads", "workload": "unet3d", "system": "lustre"});
    let calls = [
        ("index", json!({"trace_path": at("sample")})),
        ("index", json!({"trace_path": at("sample")})),
        ("advise", json!({"trace_path": at("sample")})),
        ("advise", json!({"trace_path": at("darshan/mpi-io-test-x86_64-3.1.3.darshan")})),
        ("opt_kb_record", entry),
        ("opt_kb_lookup", json!({"workload": "unet3d"})),
        ("opt_kb_render", json!({"skill_dir": at("run/skills")})),
        (
            "opt_proposal_table",
            json!({"proposals_json": [{"level": "L2", "change": "larger transfers", "app_impact_pct": 12}]}),
        ),
        ("session_validate_structure", json!({"run_id": at("run")})),
        ("session_reorganize_structure", json!({"run_id": at("run"), "dry_run": false})),
        ("session_analyze_traces", json!({"run_id": at("run")})),
        ("session_search_optimization_context", json!({"run_id": at("run"), "workload": "unet3d"})),
        ("rag_search", json!({"query": "collective buffering", "top_k": 3})),
        ("event_count", json!({"trace_path": at("sample")})),
        ("event_count", json!({"trace_path": at("darshan/mpi-io-test-x86_64-3.1.3.darshan")})),
        ("reader", json!({"trace_path": at("sample")})),
        ("reader", json!({"trace_path": at("darshan/mpi-io-test-x86_64-3.1.3.darshan")})),
        ("reader", json!({"trace_path": at("darshan")})),
        ("analyze", json!({"trace_path": at("sample")})),
        ("analyze", json!({"trace_path": at("sample"), "dfanalyzer_compat": true})),
        ("analyze", json!({"trace_path": at("darshan/mpi-io-test-x86_64-3.1.3.darshan")})),
        ("diagnose", json!({"trace_path": at("sample")})),
        ("diagnose", json!({"trace_path": at("darshan/mpi-io-test-x86_64-3.1.3.darshan")})),
        ("diagnose", json!({"trace_path": at("darshan")})),
        ("explain_rule", json!({"code": "P05"})),
        ("explain_rule", json!({"code": "access_pattern"})),
        ("explain_rule", json!({})),
        ("darshan_summary", json!({"trace_path": at("darshan/mpi-io-test-x86_64-3.1.3.darshan")})),
        ("darshan_summary", json!({"trace_path": at("sample")})),
        ("darshan_summary", json!({"log": at("darshan"), "group_by": "exe"})),
        ("tune", json!({"spec": at("tune.toml"), "strategy": "grid", "budget": 4})),
        ("optimize", json!({"spec": at("optimize.toml")})),
        ("query", json!({"trace_path": at("sample"), "limit": 5})),
        ("query", json!({"trace_path": at("sample"), "group_by": "name", "agg": "count"})),
        ("query", json!({"trace_path": at("darshan/mpi-io-test-x86_64-3.1.3.darshan"), "limit": 5})),
        ("report", json!({"trace_path": at("sample"), "output": at("report.html")})),
        (
            "report",
            json!({"trace_path": at("darshan/mpi-io-test-x86_64-3.1.3.darshan"), "output": at("log.html")}),
        ),
        ("export", json!({"trace_path": at("sample"), "format": "parquet", "output": at("events.parquet")})),
        (
            "export",
            json!({"trace_path": at("darshan/mpi-io-test-x86_64-3.1.3.darshan"), "format": "chrome-json", "output": at("segments.json")}),
        ),
        (
            "comparator",
            json!({"baseline": "testdata/validation/dlio_read_threads_1", "variant": "testdata/validation/dlio_read_threads_4"}),
        ),
        (
            "comparator",
            json!({"baseline": at("darshan/mpi-io-test-x86_64-3.1.3.darshan"), "variant": at("darshan/mpi-io-test-x86_64-3.5.0.darshan")}),
        ),
    ];
    let server = server(&ServerOptions::default());
    runtime().block_on(async {
        for (tool, arguments) in &calls {
            let result = server.call(tool, arguments.clone()).await;
            let Ok(result) = result else { panic!("{tool} {arguments} refused") };
            let value = result.structured_content.unwrap_or(Value::Null);
            assert_eq!(result.is_error, Some(false), "{tool} {arguments}: {value}");
            assert_conforms(&server, tool, &value);
        }
    });
    for tool in server.tools().iter().filter(|tool| tool.output_schema.is_some()) {
        assert!(calls.iter().any(|(called, _)| *called == tool.name), "{} is not called here", tool.name);
    }
    let _ = std::fs::remove_dir_all(&base);
}

/// `session_analyze_traces` with `follow`: the first call reads the trace whole, a later one only
/// what was appended since; it says what changed, keeps the trace's index current, and gives
/// what a call without `follow` gives.
#[test]
fn session_analyze_traces_follows_a_run_as_it_is_written() {
    let run = repository().join("target").join(format!("mcp-follow-{}", std::process::id()));
    let traces = run.join("baseline/traces");
    let _ = std::fs::remove_dir_all(&run);
    std::fs::create_dir_all(&traces).unwrap_or_else(|error| panic!("{error}"));
    let trace = traces.join("trace-0.pfw");
    let events = |first: u64, count: u64| -> String {
        let mut text = String::new();
        for index in first..first + count {
            let _ = writeln!(
                text,
                "{{\"id\":{index},\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":7,\"tid\":7,\"ts\":{},\"dur\":50,\"ph\":\"X\",\"args\":{{\"ret\":4096,\"fname\":\"/data/a\"}}}}",
                1_000_000 + index * 100
            );
        }
        text
    };
    std::fs::write(&trace, events(0, 40)).unwrap_or_else(|error| panic!("{error}"));
    let input = ioscout_service::Input::of(vec![traces.clone()]);
    let indexed = ioscout_service::index::index(&input, &ioscout_service::index::IndexRequest::default());
    assert!(indexed.is_ok_and(|outcome| outcome.value["directories"][0]["indexed_files"] == 1));
    let server = server(&ServerOptions::default());
    let run_id = run.to_string_lossy().into_owned();
    runtime().block_on(async {
        let first = server.call("session_analyze_traces", json!({"run_id": run_id, "follow": true})).await;
        let Ok(first) = first else { panic!("refused") };
        let first = first.structured_content.unwrap_or(Value::Null);
        assert_conforms(&server, "session_analyze_traces", &first);
        let look = &first["traces"][0]["follow"];
        assert_eq!(look["look"], 1, "{first}");
        assert_eq!(look["files_read_whole"], 1, "{first}");
        assert_eq!(first["traces"][0]["events"], 40, "{first}");

        let appended = events(40, 25);
        let mut file =
            std::fs::OpenOptions::new().append(true).open(&trace).unwrap_or_else(|error| panic!("{error}"));
        std::io::Write::write_all(&mut file, appended.as_bytes()).unwrap_or_else(|error| panic!("{error}"));
        drop(file);
        let second = server.call("session_analyze_traces", json!({"run_id": run_id, "follow": true})).await;
        let Ok(second) = second else { panic!("refused") };
        let second = second.structured_content.unwrap_or(Value::Null);
        assert_conforms(&server, "session_analyze_traces", &second);
        let look = &second["traces"][0]["follow"];
        assert_eq!(look["look"], 2, "{second}");
        assert_eq!(look["files_extended"], 1, "{second}");
        assert_eq!(look["files_read_whole"], 0, "{second}");
        assert_eq!(look["events_added"], 25, "{second}");
        assert_eq!(look["bytes_read"], appended.len(), "{second}");
        assert_eq!(look["index"], json!(["index: 1 file extended, 0 indexed whole"]), "{second}");

        let cold = server.call("session_analyze_traces", json!({"run_id": run_id})).await;
        let Ok(cold) = cold else { panic!("refused") };
        let cold = cold.structured_content.unwrap_or(Value::Null);
        assert_conforms(&server, "session_analyze_traces", &cold);
        assert!(cold["traces"][0].get("follow").is_none(), "{cold}");
        assert_eq!(cold["traces"][0]["events"], 65, "{cold}");
        assert_eq!(cold["traces"][0]["layers"], second["traces"][0]["layers"], "{cold}");
        assert_eq!(cold["traces"][0]["job_time_s"], second["traces"][0]["job_time_s"], "{cold}");
    });
    let _ = std::fs::remove_dir_all(&run);
}

/// A Darshan log through the tools that read events and write reports: `event_count` counts
/// its DXT segments, `query` returns them as events, `export` writes them, `report` writes
/// its job summary (of one file with `file`); a log without DXT is refused as invalid params.
#[test]
fn the_event_tools_read_a_logs_dxt_segments() {
    let server = server(&ServerOptions::default());
    let log = "testdata/darshan/mpi-io-test-x86_64-3.1.3.darshan";
    let scratch = repository().join("target/mcp-darshan");
    let _ = std::fs::create_dir_all(&scratch);
    runtime().block_on(async {
        let structured = |result: Result<rmcp::model::CallToolResult, rmcp::ErrorData>| match result {
            Ok(result) if result.is_error == Some(false) => result.structured_content.unwrap_or(Value::Null),
            other => panic!("{other:?}"),
        };
        let count = structured(server.call("event_count", json!({"directory": log})).await);
        assert_eq!(count["total"]["reads"], 8, "{count}");
        assert_eq!(count["total"]["writes"], 8, "{count}");
        let rows = structured(
            server.call("query", json!({"trace_path": log, "where": "module == POSIX and op == write and rank == 2"})).await,
        );
        assert_eq!(rows["count"], 1, "{rows}");
        assert_eq!(rows["rows"][0]["args"]["offset"], 33_554_432, "{rows}");
        let exported = structured(
            server
                .call("export", json!({"trace_path": log, "format": "chrome-json", "output": "target/mcp-darshan/dxt.json"}))
                .await,
        );
        assert_eq!(exported["status"], "ok");
        let chrome: Value = serde_json::from_str(&std::fs::read_to_string(scratch.join("dxt.json")).unwrap_or_default())
            .unwrap_or(Value::Null);
        assert_eq!(chrome["traceEvents"].as_array().map(Vec::len), Some(16));
        let page = structured(
            server
                .call(
                    "report",
                    json!({"trace_path": log, "output": "target/mcp-darshan/page.html", "file": "/tmp/test/mpi-io-test.tmp.dat"}),
                )
                .await,
        );
        assert_eq!(page["status"], "ok");
        let html = std::fs::read_to_string(scratch.join("page.html")).unwrap_or_default();
        assert!(html.contains("Darshan job summary") && html.contains("One file:"));
        let refused = server.call("query", json!({"trace_path": "testdata/darshan/mpi-io-test-x86_64-3.5.0.darshan"})).await;
        let Err(error) = refused else { panic!("a log without DXT was queried") };
        assert_eq!(error.code, rmcp::model::ErrorCode::INVALID_PARAMS);
        assert!(error.message.contains("no DXT module"), "{}", error.message);
    });
    let _ = std::fs::remove_dir_all(&scratch);
}
