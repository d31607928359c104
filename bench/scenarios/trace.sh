#!/usr/bin/env bash
# Traces one scenario of workloads.py with DFTracer 2.2's LD_PRELOAD library, as a user's job is
# traced (no DFTracer API calls in the workload), into OUT (one .pfw.gz per process).
#
#   bench/scenarios/trace.sh SCENARIO baseline|fix OUT [SCALE] [PEERS_DIR]
#
# PEERS_DIR (default ~/.cache/ioscout-peers) holds the venv `tools` with dftracer==2.2.0
# (../shared/bench/setup-peers.sh makes it; `pip install dftracer==2.2.0` is enough here).
set -euo pipefail
scenario=$1 variant=$2 out=$3 scale=${4:-1} peers=${5:-$HOME/.cache/ioscout-peers}
here=$(cd "$(dirname "$0")" && pwd)
preload=$(ls "$peers"/tools/lib/python3*/site-packages/dftracer/lib64/libdftracer_preload.so)
# The interpreter itself, not a shim script: a shim would be traced too.
python=$(python3 -c 'import sys; print(sys.executable)')
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
rm -rf "$out"; mkdir -p "$out"
# The input data first, untraced (input generation is not the job).
"$python" "$here/workloads.py" "$scenario" prepare "$data/work" "$scale"
LD_PRELOAD=$preload DFTRACER_ENABLE=1 DFTRACER_INIT=PRELOAD DFTRACER_INC_METADATA=1 DFTRACER_DATA_DIR=all \
  DFTRACER_TRACE_COMPRESSION=1 DFTRACER_LOG_FILE="$(cd "$out" && pwd)/trace" \
  "$python" "$here/workloads.py" "$scenario" "$variant" "$data/work" "$scale"
find "$out" -name '*.pfw.gz' -size 0 -delete
