#!/usr/bin/env bash
# Compares the search strategies on the mock surface (examples/tune/mock.toml), at full size:
# the grid's optimum and evaluations, OFAT's, and random and TPE at OFAT's budget (median over
# 10 seeds). Prints the Markdown table of BENCHMARKS.md.
#   bench/tune-mock.sh [path/to/ioscout]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/ioscout}
spec=examples/tune/mock.toml
python3 - "$bin" "$spec" <<'PY'
import json, statistics, subprocess, sys
binary, spec = sys.argv[1], sys.argv[2]
def tune(strategy, budget=0, seed=0):
    out = subprocess.run([binary, "tune", spec, "--strategy", strategy, "--budget", str(budget), "--seed", str(seed),
                          "--no-subset", "--no-validate", "--no-kb", "--json"], capture_output=True, text=True, check=True).stdout
    report = json.loads(out)
    return report["best"]["score"], report["evaluations"]
grid, grid_n = tune("grid")
ofat, ofat_n = tune("ofat")
print("| strategy | evaluations | best throughput | share of the grid optimum |")
print("|---|---:|---:|---:|")
print(f"| grid (exhaustive) | {grid_n} | {grid:.2f} | 100.0 % |")
print(f"| OFAT-guided greedy | {ofat_n} | {ofat:.2f} | {ofat / grid * 100:.1f} % |")
for strategy in ["random", "tpe"]:
    scores = [tune(strategy, ofat_n, seed)[0] for seed in range(10)]
    median = statistics.median(scores)
    print(f"| {strategy} (budget {ofat_n}, median of 10 seeds; min-max) | {ofat_n} | {median:.2f} ({min(scores):.2f}-{max(scores):.2f}) | {median / grid * 100:.1f} % |")
PY
