//! `ioscout mcp` over stdio, as a client that makes mistakes sees it: garbage before and after
//! `initialize` gets JSON-RPC errors on stdout, misnamed arguments are refused naming the
//! accepted ones, and the session goes on.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::root;

/// Sends `lines` to a fresh `ioscout mcp --root .` and returns every JSON line it answered.
fn session(lines: &[&str]) -> Vec<serde_json::Value> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ioscout"))
        .args(["mcp", "--root", "."])
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("{error}"));
    if let Some(mut stdin) = child.stdin.take() {
        for line in lines {
            let _ = writeln!(stdin, "{line}");
        }
    }
    let output = child.wait_with_output().unwrap_or_else(|error| panic!("{error}"));
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|error| panic!("{error}: {line}")))
        .collect()
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// Garbage on stdin got silence; now a parse error (-32700) or invalid request (-32600), and the
/// session still answers what comes after.
#[test]
fn garbage_on_stdin_gets_json_rpc_errors_and_the_session_goes_on() {
    let replies = session(&[
        "this is not json",
        INITIALIZE,
        INITIALIZED,
        "{\"half\": ",
        "42",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    ]);
    let codes: Vec<i64> = replies.iter().filter_map(|reply| reply["error"]["code"].as_i64()).collect();
    assert_eq!(codes, [-32700, -32700, -32600], "{replies:?}");
    assert!(
        replies.iter().any(|reply| reply["id"] == 1 && reply["result"]["serverInfo"].is_object()),
        "{replies:?}"
    );
    assert!(
        replies.iter().any(|reply| reply["id"] == 2 && reply["result"]["tools"].is_array()),
        "{replies:?}"
    );
}

/// `event_count {"path": "/etc"}` silently counted the whole first root: unknown arguments are
/// refused with invalid params naming the accepted ones.
#[test]
fn misnamed_arguments_are_refused_naming_the_accepted_ones() {
    let call = |id: u32, arguments: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"event_count","arguments":{arguments}}}}}"#
        )
    };
    let wrong = [call(2, r#"{"path":"/etc"}"#), call(3, r#"{"paths":["testdata/sample"]}"#)];
    let right = call(4, r#"{"trace_path":"testdata/sample"}"#);
    let replies = session(&[INITIALIZE, INITIALIZED, &wrong[0], &wrong[1], &right]);
    for id in [2, 3] {
        let Some(reply) = replies.iter().find(|reply| reply["id"] == id) else {
            panic!("no reply {id}: {replies:?}")
        };
        assert_eq!(reply["error"]["code"], -32602, "{reply}");
        let message = reply["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("unknown field") && message.contains("directory"), "{message}");
    }
    let Some(reply) = replies.iter().find(|reply| reply["id"] == 4) else {
        panic!("no reply 4: {replies:?}")
    };
    assert!(
        reply["result"]["structuredContent"]["total"]["complete"].as_u64().is_some_and(|count| count > 0),
        "{reply}"
    );
}
