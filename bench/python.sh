#!/usr/bin/env bash
# The Python package beside the peers' Python APIs, one run each, same inputs (the figures in
# BENCHMARKS.md): seconds (excluding imports) and peak RSS.
#
#   bench/python.sh [PEERS_DIR] [LARGE_TRACE_DIR]
#
# PEERS_DIR (default ~/.cache/ioscout-peers) is what ../shared/bench/setup-peers.sh made; the
# large trace (default /tmp/ioscout-large) is make-large-trace.py ... 32 8. Builds the release
# wheel, installs it into PEERS_DIR/tools (which has PyDarshan 3.5.0 and dftracer-utils 0.0.14)
# and PEERS_DIR/analyzer (DFAnalyzer 0.0.9).
#   1. DarshanReport(log) + records[m].to_df() for every module, all 109 corpus logs, in one
#      process: ioscout.darshan against PyDarshan; then the corpus' largest DXT log alone.
#   2. Every event of the large trace into pandas: ioscout.query(...).to_pandas() against
#      dftracer-utils' Python reader.
#   3. The analysis of a corpus folder: ioscout.analyze() against DFAnalyzer's Python API.
set -uo pipefail
cd "$(dirname "$0")/.."
peers=${1:-$HOME/.cache/ioscout-peers}
large=${2:-/tmp/ioscout-large}
shared=../shared
(cd crates/ioscout-python && maturin build --locked --release -o ../../target/wheels-release >/dev/null 2>&1) || {
  echo "maturin is needed (pip install maturin)"; exit 1; }
wheel=$(ls -t target/wheels-release/ioscout-*-abi3-*.whl | head -1)
for venv in tools analyzer; do
  "$peers/$venv/bin/pip" install --quiet --force-reinstall --no-deps "$wheel"
  "$peers/$venv/bin/pip" install --quiet pandas pyarrow >/dev/null 2>&1
done
mapfile -t logs < <(find "$shared/corpus/darshan/logs" -name '*.darshan' | sort)
echo "== Darshan logs to DataFrames: ${#logs[@]} logs"
"$peers/tools/bin/python" bench/python_darshan.py pydarshan "${logs[@]}"
"$peers/tools/bin/python" bench/python_darshan.py ioscout "${logs[@]}"
dxt=$shared/corpus/darshan/logs/darshan-logs/darshan_logs/partial_data_dxt/partial_data_dxt.darshan
echo "== the largest DXT log: $(basename "$dxt"), 20 times"
dxts=(); for _ in $(seq 20); do dxts+=("$dxt"); done
"$peers/tools/bin/python" bench/python_darshan.py pydarshan "${dxts[@]}"
"$peers/tools/bin/python" bench/python_darshan.py ioscout "${dxts[@]}"
echo "== every event of $large into pandas"
"$peers/tools/bin/python" bench/python_query.py dftracer-utils "$large"
"$peers/tools/bin/python" bench/python_query.py ioscout "$large"
echo "== analysis through the Python APIs"
for folder in cm1-48ranks-v1 posix-small-files dlio-unet3d-npz-2ranks; do
  USER=${USER:-root} "$peers/analyzer/bin/python" bench/python_analyze.py dfanalyzer "$shared/corpus/dftracer/$folder"
  "$peers/analyzer/bin/python" bench/python_analyze.py ioscout "$shared/corpus/dftracer/$folder"
done
