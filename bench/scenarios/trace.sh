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
# A scenario's launcher (scenarios.json `launch`, e.g. mpirun) and its environment
# (`environment`, e.g. the MPI-IO component): the ranks inherit the tracer's variables.
read -r -a launch < <("$python" -c 'import json, sys; entry = json.load(open(sys.argv[1]))["scenarios"][sys.argv[2]]; print(" ".join(entry.get("launch", [])))' "$here/scenarios.json" "$scenario")
while IFS= read -r assignment; do
  [ -n "$assignment" ] && export "${assignment?}"
done < <("$python" -c 'import json, sys; entry = json.load(open(sys.argv[1]))["scenarios"][sys.argv[2]]; print("\n".join(f"{k}={v}" for k, v in entry.get("environment", {}).items()))' "$here/scenarios.json" "$scenario")
tracer=(LD_PRELOAD="$preload" DFTRACER_ENABLE=1 DFTRACER_INIT=PRELOAD DFTRACER_INC_METADATA=1 DFTRACER_DATA_DIR=all
  DFTRACER_TRACE_COMPRESSION=1 DFTRACER_LOG_FILE="$(cd "$out" && pwd)/trace")
if [ "${#launch[@]}" -gt 0 ] && [ "$(basename "${launch[0]}")" = mpirun ]; then
  # The ranks are traced, not mpirun itself (as `mpirun -x LD_PRELOAD=...` does for a user).
  exports=()
  for assignment in "${tracer[@]}"; do exports+=(-x "$assignment"); done
  "${launch[@]}" "${exports[@]}" "$python" "$here/workloads.py" "$scenario" "$variant" "$data/work" "$scale"
else
  env "${tracer[@]}" "${launch[@]}" "$python" "$here/workloads.py" "$scenario" "$variant" "$data/work" "$scale"
fi
find "$out" -name '*.pfw.gz' -size 0 -delete
