//! `ioscout mcp`: the MCP server (`ioscout_mcp`) on stdio or streamable HTTP.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use crate::cli::McpArguments;

pub(crate) fn run(arguments: &McpArguments) -> anyhow::Result<ExitCode> {
    let options = ioscout_mcp::ServerOptions {
        roots: arguments.roots.clone(),
        kb: arguments.kb.clone(),
        max_result_bytes: arguments.max_result_bytes,
        time_limit: Duration::from_secs(arguments.time_limit.max(1)),
    };
    match arguments.http {
        Some(address) => ioscout_mcp::serve_http(&options, address, |bound| {
            // Tells scripts and users where to connect (stdout stays free on stdio only).
            let mut stderr = std::io::stderr().lock();
            let _ = writeln!(stderr, "ioscout: MCP server on http://{bound}/mcp");
        })?,
        None => ioscout_mcp::serve_stdio(&options)?,
    }
    Ok(ExitCode::SUCCESS)
}
