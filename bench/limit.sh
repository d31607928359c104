#!/usr/bin/env bash
# The "share of the limit" table of BENCHMARKS.md: on one trace, one run each, the wall time and
# peak memory of inflating only (the reader's inflater, all cores; zlib-rs streaming and the
# libdeflate one-shot path; rapidgzip beside them), `ioscout count`, `ioscout analyze` cold (no
# index, no first-pass cache), `ioscout analyze` indexed, `ioscout query` with a full scan, and
# the peers (`gzip -dc | wc -l`, `dftracer_event_count`, DFAnalyzer 0.0.9), each as a ratio to
# the fastest inflate and to `gzip -dc | wc -l`. The `-no-evidence` rows are the same analyses
# with `--compat dfanalyzer`, which derives no Darshan records (as DFAnalyzer does not): the
# difference is what the evidence costs.
#
#   bench/limit.sh [TRACE_DIR] [PEERS_DIR] [BINARY]
#
# TRACE_DIR defaults to /tmp/ioscout-large (built with ../shared/bench/make-large-trace.py from
# dlio-cosmoflow-hdf5 at 32 nodes x 8 ranks when missing); PEERS_DIR is what
# ../shared/bench/setup-peers.sh made (default ~/.cache/ioscout-peers); BINARY defaults to a
# release build of this checkout. Set SKIP_DFANALYZER=1 to leave out DFAnalyzer (about 70 s).
set -euo pipefail
cd "$(dirname "$0")/.."
trace=${1:-/tmp/ioscout-large}
peers=${2:-$HOME/.cache/ioscout-peers}
binary=${3:-}
shared=../shared
if [ ! -d "$trace" ]; then
  python3 "$shared/bench/make-large-trace.py" "$shared/corpus/dftracer/dlio-cosmoflow-hdf5" "$trace" 32 8
fi
cargo build --release --locked -p ioscout-read --example inflate_only >/dev/null 2>&1
if [ -z "$binary" ]; then
  cargo build --release --locked --bin ioscout >/dev/null 2>&1
  binary=target/release/ioscout
fi
inflate=target/release/examples/inflate_only
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# Every ioscout run gets a fresh copy, so no index or first-pass cache is left from another.
fresh() { rm -rf "$scratch/copy"; cp -r "$trace" "$scratch/copy"; rm -rf "$scratch/copy/.ioscout"; }
measure() {  # label, command...: prints "label wall_s peak_MB"
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$scratch/time" "$@" >"$scratch/out.$label" 2>"$scratch/err.$label"
  read -r wall rss <"$scratch/time"
  echo "$label $wall $((rss / 1024))"
}
echo "trace: $trace ($(du -shL "$trace" | cut -f1), $(ls "$trace" | wc -l) files); binary: $binary"
cat "$trace"/*.gz > /dev/null   # into the page cache
rows=()
rows+=("$(measure inflate-zlib-rs-streaming "$inflate" "$trace" --stream)")
rows+=("$(measure inflate-libdeflate-one-shot "$inflate" "$trace")")
if [ -x "$peers/tools/bin/rapidgzip" ]; then
  rows+=("$(measure rapidgzip-P2 sh -c "cat $trace/*.gz | $peers/tools/bin/rapidgzip -d -c -P 2 | wc -c")")
fi
rows+=("$(measure gzip-dc-wc sh -c "cat $trace/*.gz | gzip -dc | wc -l")")
fresh
rows+=("$(measure count "$binary" count "$scratch/copy")")
fresh
rows+=("$(measure analyze-cold "$binary" analyze --json "$scratch/copy")")
fresh
rows+=("$(measure analyze-cold-no-evidence "$binary" analyze --json --compat dfanalyzer "$scratch/copy")")
"$binary" index "$scratch/copy" >/dev/null 2>&1
"$binary" analyze --json "$scratch/copy" >/dev/null 2>&1   # keeps the first pass beside the index
rows+=("$(measure analyze-indexed "$binary" analyze --json "$scratch/copy")")
rows+=("$(measure analyze-indexed-no-evidence "$binary" analyze --json --compat dfanalyzer "$scratch/copy")")
fresh
rows+=("$(measure query-full-scan "$binary" query --no-index --where 'pid == -1' "$scratch/copy")")
if [ -x "$peers/tools/bin/dftracer_event_count" ]; then
  fresh
  rows+=("$(measure dftracer_event_count "$peers/tools/bin/dftracer_event_count" -d "$scratch/copy" --log-level error)")
fi
if [ -z "${SKIP_DFANALYZER:-}" ] && [ -x "$peers/analyzer/bin/dfanalyzer" ]; then
  fresh
  rows+=("$(measure dfanalyzer env USER="${USER:-root}" "$peers/analyzer/bin/dfanalyzer" analyzer=dftracer \
    analyzer/preset=dlio trace_path="$scratch/copy" cluster.n_workers=1 output=json hydra.run.dir="$scratch/dfa")")
fi
fastest=$(printf '%s\n' "${rows[@]}" | awk '$1 ~ /^inflate|^rapidgzip/ {print $2}' | sort -g | head -1)
gzip_wall=$(printf '%s\n' "${rows[@]}" | awk '$1 == "gzip-dc-wc" {print $2}')
{
  echo "what wall_s peak_MB x_inflate x_gzip_dc_wc"
  for row in "${rows[@]}"; do
    read -r label wall rss <<<"$row"
    awk -v l="$label" -v w="$wall" -v r="$rss" -v f="$fastest" -v g="$gzip_wall" \
      'BEGIN { printf "%s %.2f %d %.2f %.2f\n", l, w, r, w / f, w / g }'
  done
} | column -t
echo "inflate outputs:"; cat "$scratch"/out.inflate-*
echo "analyze cold and indexed give the same JSON: $(cmp -s <(grep -v '"path"' "$scratch/out.analyze-cold") <(grep -v '"path"' "$scratch/out.analyze-indexed") && echo yes || echo NO)"
