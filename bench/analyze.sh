#!/usr/bin/env bash
# Times `ioscout analyze` beside DFAnalyzer 0.0.9 on every DFTracer corpus folder and on the large
# trace, one run each, and prints wall seconds and peak RSS (the figures in BENCHMARKS.md).
#
#   bench/analyze.sh [PEERS_DIR] [LARGE_TRACE_DIR...]
#
# PEERS_DIR (default ~/.cache/ioscout-peers) is what ../shared/bench/setup-peers.sh made. LARGE
# trace directories default to /tmp/ioscout-large (built with make-large-trace.py ... 32 8 when
# missing). Each DFAnalyzer run works on a fresh copy (it writes its index into the folder), with
# cluster.n_workers=1 (with 2 workers it drops lines) and a 30-minute limit. ioscout runs cold
# (no index: two passes) and, for the large traces, also indexed (the first pass kept beside the
# index). DFAnalyzer runs on the last large trace only (the others show how ioscout's memory grows);
# SKIP_DFANALYZER_LARGE=1 skips it there too; SKIP_CORPUS=1 skips the corpus folders.
set -uo pipefail
cd "$(dirname "$0")/.."
peers=${1:-$HOME/.cache/ioscout-peers}
shift || true
large=("$@")
[ ${#large[@]} -gt 0 ] || large=(/tmp/ioscout-large)
shared=../shared
cargo build --release --locked --bin ioscout >/dev/null 2>&1
ioscout=$PWD/target/release/ioscout
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export USER=${USER:-root}
measure() {  # label, command...: prints "label wall_s peak_MB"
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$scratch/time" "$@" >"$scratch/out" 2>"$scratch/err"
  local status=$?
  read -r wall rss < <(tail -1 "$scratch/time")
  if [ $status -ne 0 ]; then echo "$label failed($status) $wall $((rss / 1024))"; else echo "$label $wall $((rss / 1024))"; fi
}
dfanalyzer() {  # trace dir, preset
  rm -rf "$scratch/copy" "$scratch/dfa"; cp -rL "$1" "$scratch/copy"; rm -rf "$scratch/copy/.ioscout" "$scratch/copy/.dftindex"
  measure "dfanalyzer" timeout 1800 "$peers/analyzer/bin/dfanalyzer" analyzer=dftracer "analyzer/preset=$2" \
    trace_path="$scratch/copy" cluster.n_workers=1 output=json hydra.run.dir="$scratch/dfa"
}
echo "== corpus folders (label wall_s peak_MB)"
[ -n "${SKIP_CORPUS:-}" ] && echo "(skipped: SKIP_CORPUS)"
for folder in "$shared"/corpus/dftracer/*/; do
  [ -n "${SKIP_CORPUS:-}" ] && break
  name=$(basename "$folder")
  preset=dlio; case $name in posix*|legacy*|cm1*) preset=posix;; golden*|dfanalyzer-example*) preset=dlio-prev;; esac
  echo "-- $name (preset $preset)"
  measure ioscout "$ioscout" analyze --quiet --json --preset "$preset" "$folder"
  [ -x "$peers/analyzer/bin/dfanalyzer" ] && dfanalyzer "$folder" "$preset"
done
for trace in "${large[@]}"; do
  if [ ! -d "$trace" ]; then
    python3 "$shared/bench/make-large-trace.py" "$shared/corpus/dftracer/dlio-cosmoflow-hdf5" "$trace" 32 8
  fi
  echo "== $trace ($(du -sh --exclude=.ioscout --exclude=.dftindex "$trace" | cut -f1))"
  measure "gzip-dc-wc" sh -c "cat $trace/*.gz | gzip -dc | wc -l"
  rm -rf "$scratch/copy"; cp -rL "$trace" "$scratch/copy"; rm -rf "$scratch/copy/.ioscout" "$scratch/copy/.dftindex"
  sync; sleep 5  # let the copy's writeback finish before timing
  measure "ioscout-analyze-cold" "$ioscout" analyze --quiet --json "$scratch/copy"
  cp "$scratch/out" "$scratch/cold.json"
  measure "ioscout-index" "$ioscout" index --quiet "$scratch/copy"
  measure "ioscout-analyze-indexed-first" "$ioscout" analyze --quiet --json "$scratch/copy"
  measure "ioscout-analyze-indexed" "$ioscout" analyze --quiet --json "$scratch/copy"
  cmp -s "$scratch/out" "$scratch/cold.json" && echo "indexed and cold results identical"
  echo "prepass cache bytes $(stat -c %s "$scratch/copy/.ioscout/index.prepass" 2>/dev/null)"
  if [ -x "$peers/analyzer/bin/dfanalyzer" ] && [ -z "${SKIP_DFANALYZER_LARGE:-}" ] && [ "$trace" = "${large[-1]}" ]; then
    dfanalyzer "$trace" dlio
  fi
done
