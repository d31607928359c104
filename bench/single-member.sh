#!/usr/bin/env bash
# Times `ioscout index` and an indexed query on ONE single-member gzip trace file (the layout of
# DFTracer v1 and 2023 traces, or of `gzip` run on a finished trace), beside `dftracer_index` and
# `dftracer_view`, one run each, cold, and prints wall seconds, peak RSS, index sizes and the
# rows compared (the figures in BENCHMARKS.md, "Single-member gzip files").
#
#   bench/single-member.sh [LARGE_TRACE_DIR] [PEERS_DIR] [BYTES]
#
# The file is the first BYTES (default 1e9) of the decompressed large trace of bench/index.sh,
# compressed by `gzip -6` into one member.
set -euo pipefail
cd "$(dirname "$0")/.."
large=${1:-/tmp/ioscout-large}
peers=${2:-$HOME/.cache/ioscout-peers}
bytes=${3:-1000000000}
shared=../shared
if [ ! -d "$large" ]; then
  python3 "$shared/bench/make-large-trace.py" "$shared/corpus/dftracer/dlio-cosmoflow-hdf5" "$large" 32 8
fi
cargo build --release --locked --bin ioscout >/dev/null 2>&1
ioscout=$PWD/target/release/ioscout
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/one"
# Whole lines only, so every tool sees the same events.
(set +o pipefail; zcat "$large"/*.pfw.gz | head -c "$bytes" | sed '$d' | gzip -6 >"$scratch/one/trace-0-of-1-single.pfw.gz")
cp -r "$scratch/one" "$scratch/peer"
measure() {  # label, command...: prints "label wall_s peak_MB"
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$scratch/time" "$@" >"$scratch/out.$label" 2>"$scratch/err.$label"
  read -r wall rss <"$scratch/time"
  echo "$label $wall $((rss / 1024))"
}
pid=$("$ioscout" query "$scratch/one" --no-index --group-by pid --agg count -q | awk 'NR == 2 {print $1}')
{
  measure gzip-dc-wc "sh" -c "gzip -dc $scratch/one/*.gz | wc -l"
  measure ioscout-index "$ioscout" index "$scratch/one"
  measure ioscout-query "$ioscout" query "$scratch/one" --where "pid == $pid"
  measure ioscout-query-no-index "$ioscout" query "$scratch/one" --no-index --where "pid == $pid"
  measure ioscout-group-by "$ioscout" query "$scratch/one" --group-by name,cat --agg count,sum:dur,mean:dur
  if [ -x "$peers/tools/bin/dftracer_index" ]; then
    measure dftracer_index "$peers/tools/bin/dftracer_index" -d "$scratch/peer" --log-level error
    measure dftracer_view-query "$peers/tools/bin/dftracer_view" -d "$scratch/peer" --phase any --log-level error \
      --query "pid == $pid"
    measure dftracer_view-group-by "$peers/tools/bin/dftracer_view" -d "$scratch/peer" --log-level error \
      --group-by name,cat --agg count,sum:dur,mean:dur
  fi
} | column -t
grep -h "reading" "$scratch/err.ioscout-query" || true
echo "query rows (pid $pid): ioscout $(wc -l <"$scratch/out.ioscout-query"), --no-index $(wc -l <"$scratch/out.ioscout-query-no-index")$( [ -f "$scratch/out.dftracer_view-query" ] && echo ", dftracer_view $(wc -l <"$scratch/out.dftracer_view-query")")"
cmp -s "$scratch/out.ioscout-query" "$scratch/out.ioscout-query-no-index" && echo "indexed and full-scan rows identical"
trace_bytes=$(stat -c %s "$scratch/one/trace-0-of-1-single.pfw.gz")
ioscout_index=$(du -sb "$scratch/one/.ioscout" | cut -f1)
echo "trace: $trace_bytes bytes; ioscout index: $ioscout_index bytes ($(awk -v i="$ioscout_index" -v t="$trace_bytes" 'BEGIN {printf "%.2f%%", 100 * i / t}'))$( [ -d "$scratch/peer/.dftindex" ] && du -sb "$scratch/peer/.dftindex" | awk -v t="$trace_bytes" '{printf "; dftracer_index: %d bytes (%.2f%%)", $1, 100 * $1 / t}')"
