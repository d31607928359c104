//! The server's call path without a client: results equal the service's, refusals are
//! invalid-params errors, the time limit and the result cap hold, and the server keeps serving.

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
