#!/usr/bin/env bash
# Times `ioscout index` and indexed queries beside `dftracer_index` and `dftracer_view` on the same
# trace, one run each, cold (no index present), and prints wall seconds, peak RSS, index sizes and
# ratios (the figures in BENCHMARKS.md).
#
#   bench/index.sh [TRACE_DIR] [PEERS_DIR]
#
# Defaults as bench/count.sh. Each tool works on its own fresh copy of the trace.
set -euo pipefail
cd "$(dirname "$0")/.."
trace=${1:-/tmp/ioscout-large}
peers=${2:-$HOME/.cache/ioscout-peers}
shared=../shared
if [ ! -d "$trace" ]; then
  python3 "$shared/bench/make-large-trace.py" "$shared/corpus/dftracer/dlio-cosmoflow-hdf5" "$trace" 32 8
fi
cargo build --release --locked --bin ioscout >/dev/null 2>&1
ioscout=$PWD/target/release/ioscout
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
measure() {  # label, command...: prints "label wall_s peak_MB"
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$scratch/time" "$@" >"$scratch/out.$label" 2>"$scratch/err.$label"
  read -r wall rss <"$scratch/time"
  echo "$label $wall $((rss / 1024))"
}
mkdir -p "$scratch/ioscout" "$scratch/peer"
cp -rL "$trace"/. "$scratch/ioscout/"; rm -rf "$scratch/ioscout/.ioscout" "$scratch/ioscout/.dftindex"
cp -rL "$trace"/. "$scratch/peer/"; rm -rf "$scratch/peer/.ioscout" "$scratch/peer/.dftindex"
trace_bytes=$(du -sb --exclude=.ioscout --exclude=.dftindex "$scratch/ioscout" | cut -f1)
# The pid of rank 7's main process and the hash of host node007, for the selective query.
pid=$("$ioscout" view "$scratch"/ioscout/trace-7-of-*-app.pfw.gz --where 'ph == X' --limit 1 -q | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["pid"])')
hhash=$("$ioscout" view "$scratch"/ioscout/trace-7-of-*-app.pfw.gz --where 'ph == X' --limit 1 -q | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["args"]["hhash"])')
{
  measure ioscout-index "$ioscout" index "$scratch/ioscout"
  measure ioscout-query "$ioscout" query "$scratch/ioscout" --where "host == \"node007\" and pid == $pid"
  measure ioscout-query-no-index "$ioscout" query "$scratch/ioscout" --no-index --where "host == \"node007\" and pid == $pid"
  measure ioscout-group-by "$ioscout" query "$scratch/ioscout" --group-by name,cat --agg count,sum:dur,mean:dur
  if [ -x "$peers/tools/bin/dftracer_index" ]; then
    measure dftracer_index "$peers/tools/bin/dftracer_index" -d "$scratch/peer" --log-level error
    measure dftracer_view-query "$peers/tools/bin/dftracer_view" -d "$scratch/peer" --phase any --log-level error \
      --query "hhash == \"$hhash\" and pid == $pid"
    measure dftracer_view-group-by "$peers/tools/bin/dftracer_view" -d "$scratch/peer" --log-level error \
      --group-by name,cat --agg count,sum:dur,mean:dur
  fi
} | column -t
echo "selective query rows: ioscout $(wc -l <"$scratch/out.ioscout-query"), ioscout --no-index $(wc -l <"$scratch/out.ioscout-query-no-index")$( [ -f "$scratch/out.dftracer_view-query" ] && echo ", dftracer_view $(wc -l <"$scratch/out.dftracer_view-query")")"
cmp -s "$scratch/out.ioscout-query" "$scratch/out.ioscout-query-no-index" && echo "indexed and full-scan rows identical"
echo "group-by rows: ioscout $(($(wc -l <"$scratch/out.ioscout-group-by") - 1))$( [ -f "$scratch/out.dftracer_view-group-by" ] && echo ", dftracer_view $(wc -l <"$scratch/out.dftracer_view-group-by") lines")"
ioscout_index=$(du -sb "$scratch/ioscout/.ioscout" | cut -f1)
echo "trace: $trace_bytes bytes; ioscout index: $ioscout_index bytes ($(awk -v i="$ioscout_index" -v t="$trace_bytes" 'BEGIN {printf "%.2f%%", 100 * i / t}'))$( [ -d "$scratch/peer/.dftindex" ] && du -sb "$scratch/peer/.dftindex" | awk -v t="$trace_bytes" '{printf "; dftracer_index: %d bytes (%.2f%%)", $1, 100 * $1 / t}')"
