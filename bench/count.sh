#!/usr/bin/env bash
# Times `ioscout count` beside `gzip -dc | wc -l` and `dftracer_event_count` on the same trace,
# one run each, and prints wall seconds, peak RSS and the ratios recorded in BENCHMARKS.md.
#
#   bench/count.sh [TRACE_DIR] [PEERS_DIR]
#
# TRACE_DIR defaults to /tmp/ioscout-large (built with ../shared/bench/make-large-trace.py from
# dlio-cosmoflow-hdf5 at 32 nodes x 8 ranks when missing); PEERS_DIR is what
# ../shared/bench/setup-peers.sh made (default ~/.cache/ioscout-peers).
set -euo pipefail
cd "$(dirname "$0")/.."
trace=${1:-/tmp/ioscout-large}
peers=${2:-$HOME/.cache/ioscout-peers}
shared=../shared
if [ ! -d "$trace" ]; then
  python3 "$shared/bench/make-large-trace.py" "$shared/corpus/dftracer/dlio-cosmoflow-hdf5" "$trace" 32 8
fi
cargo build --release --locked --bin ioscout >/dev/null 2>&1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
measure() {  # label, command...: prints "label wall_s peak_MB"
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$scratch/time" "$@" >"$scratch/out.$label" 2>"$scratch/err.$label"
  read -r wall rss <"$scratch/time"
  echo "$label $wall $((rss / 1024))"
}
echo "trace: $trace ($(du -shL "$trace" | cut -f1), $(ls "$trace" | wc -l) files)"
gzip_line=$(measure gzip-dc-wc sh -c "cat $trace/*.gz | gzip -dc | wc -l")
ioscout_line=$(measure ioscout-count target/release/ioscout count "$trace")
peer_line="dftracer_event_count - -"
if [ -x "$peers/tools/bin/dftracer_event_count" ]; then
  cp -r "$trace" "$scratch/copy"   # it writes an index into the folder: give it a fresh copy
  peer_line=$(measure dftracer_event_count "$peers/tools/bin/dftracer_event_count" -d "$scratch/copy" --log-level error)
fi
printf '%s\n%s\n%s\n' "$gzip_line" "$ioscout_line" "$peer_line" | column -t
read -r _ gzip_wall _ <<<"$gzip_line"
read -r _ ioscout_wall ioscout_rss <<<"$ioscout_line"
read -r _ peer_wall _ <<<"$peer_line"
echo "events: $(tail -1 "$scratch/out.ioscout-count" | awk '{print $4, "complete,", $5, "metadata"}'); gzip lines: $(cat "$scratch/out.gzip-dc-wc")"
awk -v a="$ioscout_wall" -v g="$gzip_wall" -v p="$peer_wall" 'BEGIN {
  printf "ioscout / gzip -dc|wc -l = %.2fx\n", a / g
  if (p != "-") printf "dftracer_event_count / ioscout = %.1fx faster\n", p / a
}'
echo "ioscout peak memory: ${ioscout_rss} MB"
