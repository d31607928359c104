#!/usr/bin/env python3
"""The MCP tools' results from two builds, compared: what `tests/same-output.sh` does for the
command line, for the tools whose JSON the command line does not print (the knowledge base, the
proposal table, the run-directory tools, the session tools) and for a sample of the others.

Usage: tests/same-output-mcp.py OLD_BINARY NEW_BINARY

Each build serves `ioscout mcp` over stdio on a copy of the fixtures of its own (the tools write
a knowledge base and move files), gets the same calls in the same order, and the structured
results are compared after the copy's path and the times are normalised. Prints one line per
difference and the count; exits 1 when any differ.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

ENTRY = {
    "before": 10,
    "after": 8,
    "change": "larger transfers",
    "citation": "session:same-output",
    "metric": "io_time_s",
    "scope": "software",
    "bottleneck": "small reads",
    "workload": "unet3d",
    "system": "lustre",
}
REGRESSION = {
    "before": 10,
    "after": 12,
    "change": "more threads",
    "citation": "session:same-output",
    "metric": "io_time_s",
    "scope": "system",
    "metric_scope": "app",
    "system": "lustre",
}


def calls():
    """The calls made to each build, in order: (tool, arguments)."""
    log = "testdata/darshan/mpi-io-test-x86_64-3.1.3.darshan"
    return [
        ("event_count", {"directory": "testdata/sample"}),
        ("event_count", {"directory": log}),
        ("reader", {"file": "testdata/sample"}),
        ("analyze", {"trace_path": "testdata/sample"}),
        ("diagnose", {"trace_path": "testdata/sample"}),
        ("diagnose", {"trace_path": log}),
        ("advise", {"trace_path": "testdata/sample"}),
        ("advise", {"trace_path": log}),
        ("darshan_summary", {"log": log}),
        ("explain_rule", {"code": "P05"}),
        ("explain_rule", {"code": "access_pattern"}),
        ("explain_rule", {"code": ""}),
        ("query", {"trace_path": "testdata/sample", "limit": 20}),
        ("comparator", {"baseline": "testdata/validation/dlio_read_threads_1", "variant": "testdata/validation/dlio_read_threads_4"}),
        ("opt_kb_record", ENTRY),
        ("opt_kb_record", REGRESSION),
        ("opt_kb_lookup", {}),
        ("opt_kb_lookup", {"workload": "unet3d", "scope": "software"}),
        ("opt_kb_render", {}),
        ("opt_kb_render", {"skill_dir": "run/skills"}),
        ("opt_proposal_table", {"proposals_json": [
            {"level": "L2", "bottleneck": "small reads", "change": "larger transfers", "expected_delta": "-20% io time", "citation": "session:same-output", "app_impact_pct": 12},
            {"level": "L1", "bottleneck": "small reads", "change": "fewer epochs", "citation": "", "app_impact_pct": 0.5},
        ], "workload": "unet3d"}),
        ("session_validate_structure", {"run_id": "run"}),
        ("session_reorganize_structure", {"run_id": "run", "dry_run": True}),
        ("session_reorganize_structure", {"run_id": "run", "dry_run": False}),
        ("session_validate_structure", {"run_id": "run"}),
        ("session_analyze_traces", {"run_id": "run"}),
        ("session_analyze_traces", {"run_id": "run", "query_type": "timeline_overlap"}),
        ("session_search_optimization_context", {"run_id": "run", "workload": "unet3d"}),
        ("rag_search", {"query": "collective buffering", "top_k": 3}),
        ("index", {"trace_path": "run/baseline/traces"}),
    ]


def workspace(base):
    """A copy of what the calls read, under `base`."""
    for folder in ["testdata/sample", "testdata/darshan", "testdata/validation/dlio_read_threads_1", "testdata/validation/dlio_read_threads_4"]:
        shutil.copytree(os.path.join(REPOSITORY, folder), os.path.join(base, folder))
    traces = os.path.join(base, "run", "baseline", "traces")
    shutil.copytree(os.path.join(REPOSITORY, "testdata/sample"), traces)
    os.makedirs(os.path.join(base, "run", "opt1"))
    with open(os.path.join(base, "run", "optimization_context.json"), "w") as stray:
        stray.write("{}\n")


def serve(binary, base):
    """The results of every call from `binary` serving `base`."""
    process = subprocess.Popen(
        [binary, "mcp", "--root", base, "--kb", os.path.join(base, "kb.jsonl")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=base,
    )

    def send(message):
        process.stdin.write(json.dumps(message) + "\n")
        process.stdin.flush()

    def receive(wanted):
        while True:
            line = process.stdout.readline()
            if not line:
                raise SystemExit(f"{binary}: the server stopped")
            message = json.loads(line)
            if message.get("id") == wanted:
                return message

    send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "same-output", "version": "1"}}})
    receive(0)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    results = []
    for number, (tool, arguments) in enumerate(calls(), start=1):
        send({"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": {"name": tool, "arguments": arguments}})
        message = receive(number)
        result = message.get("result", {})
        results.append(result.get("structuredContent", message.get("error")))
    process.stdin.close()
    process.wait(timeout=60)
    return results


def normalised(value, base):
    text = json.dumps(value, indent=1, sort_keys=False)
    text = text.replace(base, "BASE")
    text = re.sub(r'"(seconds|ts|waited_s)": [0-9.e+-]+', r'"\1": T', text)
    text = re.sub(r"\| 1[0-9]{9} \|", "| T |", text)
    return text


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    old, new = (os.path.abspath(binary) for binary in sys.argv[1:])
    outputs = []
    for binary in (old, new):
        with tempfile.TemporaryDirectory(prefix="same-output-mcp-") as base:
            base = os.path.realpath(base)
            workspace(base)
            outputs.append([normalised(result, base) for result in serve(binary, base)])
    differ = 0
    for (tool, arguments), before, after in zip(calls(), *outputs):
        if before != after:
            differ += 1
            print(f"DIFFERS: {tool} {json.dumps(arguments)}")
            lines = [(a, b) for a, b in zip(before.splitlines(), after.splitlines()) if a != b]
            for a, b in lines[:4]:
                print(f"  < {a}\n  > {b}")
    print(f"same-output-mcp: {len(calls())} results compared, {differ} differ")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
