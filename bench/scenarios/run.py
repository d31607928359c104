#!/usr/bin/env python3
"""Runs the scenario suite through `ioscout optimize` and prints IOSage's Table III measure per
scenario: the bottleneck named (the first finding at medium or above), the first proposal of
`advise` alone, the rank `advise` gave the measured fix, the measured speedup of the fix with its
interval, the predicted and the measured App Impact, and the proposals that measured slower
(harmful, caught: never reported as wins). Then the totals the acceptance counts.

    bench/scenarios/run.py [--bin target/release/ioscout] [--pairs N] [--only a,b] [--json OUT]
                           [--preload libdftracer_preload.so]

Timings are untraced wall times on this machine, baseline and variant alternated; the evidence
is the committed trace of each baseline (testdata/scenarios), or with --preload one traced run
of the baseline at the timed scale on this machine (optimize then reports what tracing added).
The predicted App Impact is a share of the traced job; the measured one is the share of the
baseline's wall time the fix removed (1 - 1/speedup). The specs start `python3`: the suite runs
them with this interpreter's directory first on PATH, so that the timed runs start the
interpreter the traces were made with (trace.sh), not a launcher shim in front of it (pyenv's
costs 0.06 s per start here, as much as the whole fix of a short scenario).
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent.parent


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=str(REPO / "target" / "release" / "ioscout"))
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--only", default="")
    parser.add_argument("--json", default="")
    parser.add_argument("--preload", default="",
                        help="DFTracer's libdftracer_preload.so: trace each baseline here instead of the committed traces")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 unless every fix is ranked first by advise and measured as a win, and no control wins")
    arguments = parser.parse_args()
    suite = json.loads((HERE / "scenarios.json").read_text())["scenarios"]
    names = [name for name in suite if not arguments.only or name in arguments.only.split(",")]
    rows, results = [], {}
    started = time.time()
    environment = dict(os.environ, PATH=os.pathsep.join([str(pathlib.Path(sys.executable).parent), os.environ.get("PATH", "")]))
    for name in names:
        expected = suite[name]["fix"]
        spec = HERE / "specs" / f"{name}.toml"
        if spec.exists():
            command = [arguments.bin, "optimize", str(spec), "--no-kb", "--json", "--pairs", str(arguments.pairs)]
            if arguments.preload:
                command += ["--preload", arguments.preload]
            run = subprocess.run(command, capture_output=True, text=True, env=environment)
        else:
            # A trace-only scenario: advice alone, nothing timed.
            run = subprocess.run([arguments.bin, "advise", "--json", str(REPO / "testdata" / "scenarios" / name)],
                                 capture_output=True, text=True)
        if run.returncode not in (0, 1):
            sys.exit(f"{name}: ioscout failed ({run.returncode}): {run.stderr[-500:]}")
        report = json.loads(run.stdout)
        if not spec.exists():
            report = {"advice": report, "measured": [], "ranked": []}
        results[name] = report
        advice = report["advice"]
        raised = [finding for finding in advice["findings"] if finding[2] in ("medium", "high", "critical")]
        named = raised[0][0] if raised else "-"
        # Advise alone: the order before anything was measured (the report's advice is after).
        proposals = ([ranked["id"] for ranked in sorted(report["ranked"], key=lambda ranked: ranked["advised_rank"])]
                     or [proposal["id"] for proposal in advice["proposals"]])
        first = proposals[0] if proposals else "-"
        rank = proposals.index(expected) + 1 if expected in proposals else None
        fix = next((found for found in report["measured"] if expected in found["implements"]), None)
        measured = fix["measurement"] if fix else None
        predicted = next((proposal["app_impact_pct"] for proposal in advice["proposals"] if proposal["id"] == expected), None)
        harmful = [found["variant"] for found in report["measured"] if found["measurement"]["verdict"] == "regression"]
        after = [ranked["id"] for ranked in report["ranked"]]
        rows.append({
            "scenario": name, "named": named, "first": first, "fix": expected or "-",
            "advise_rank": rank, "optimize_first": after[0] if after else "-",
            "speedup": measured and measured["median"], "interval": measured and measured["interval"],
            "verdict": measured and measured["verdict"], "predicted": predicted,
            "measured_impact": measured and measured["measured_impact_pct"], "harmful": harmful,
            "wins": [ranked["id"] for ranked in report["ranked"] if ranked["verdict"] == "win"],
        })
    print("| scenario | bottleneck named | first proposal (advise) | fix | rank of the fix (advise) | first after optimize | fix speedup (interval) | App Impact predicted / measured | harmful caught |")
    print("|---|---|---|---|---:|---|---|---|---|")
    for row in rows:
        interval = row["interval"]
        speedup = "-" if row["speedup"] is None else f"{row['speedup']:.2f}x" + (f" ({interval[0]:.2f}-{interval[1]:.2f})" if interval else "") + f" {row['verdict']}"
        measured_impact = "-" if row["measured_impact"] is None else f"{row['measured_impact']:.1f} %"
        impact = "-" if row["predicted"] is None else f"{row['predicted']:.1f} % / {measured_impact}"
        rank = "-" if row["fix"] == "-" else (f"#{row['advise_rank']}" if row["advise_rank"] else "never")
        print(f"| {row['scenario']} | {row['named']} | {row['first']} | {row['fix']} | {rank} | {row['optimize_first']} | {speedup} | {impact} | {', '.join(row['harmful']) or '-'} |")
    bottlenecks = [row for row in rows if row["fix"] != "-"]
    first_advise = sum(1 for row in bottlenecks if row["advise_rank"] == 1)
    first_optimize = sum(1 for row in bottlenecks if row["optimize_first"] == row["fix"] and row["verdict"] == "win")
    within = sum(1 for row in bottlenecks if row["verdict"] == "win" and row["predicted"] and row["measured_impact"]
                 and 0.5 <= row["predicted"] / row["measured_impact"] <= 2.0)
    wins = sum(1 for row in bottlenecks if row["verdict"] == "win")
    controls = [row for row in rows if row["fix"] == "-"]
    print()
    print(f"fix ranked first by advise alone: {first_advise} of {len(bottlenecks)}; first after optimize (and a measured win): {first_optimize} of {len(bottlenecks)}")
    print(f"fix measured as a win: {wins} of {len(bottlenecks)}; predicted App Impact within 2x of the measured one: {within} of {wins}")
    print(f"controls with no win: {sum(1 for row in controls if not row['wins'])} of {len(controls)}; harmful variants never reported as wins: "
          f"{all(not set(row['harmful']) & set(row['wins']) for row in rows)}")
    print(f"suite wall time: {time.time() - started:.0f} s ({arguments.pairs} pairs per variant)")
    if arguments.json:
        pathlib.Path(arguments.json).write_text(json.dumps({"rows": rows}, indent=1))
    if arguments.check:
        failed = [row["scenario"] for row in bottlenecks
                  if row["advise_rank"] != 1 or (row["verdict"] != "win" and not suite[row["scenario"]].get("trace_only"))]
        failed += [row["scenario"] for row in controls if row["wins"]]
        if failed:
            sys.exit(f"scenarios not right: {', '.join(failed)}")


if __name__ == "__main__":
    main()
