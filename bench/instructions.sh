#!/usr/bin/env bash
# Instructions executed (valgrind's callgrind) by `ioscout analyze` and `ioscout report` on small
# fixed inputs, for one or more builds side by side: a measure of CPU work that does not move
# with the machine's load, where one run's wall time moves by 5-10 % on a busy two-core host.
# It is not a measure of speed (cache misses, mispredicted branches and waiting are not counted,
# so a change can lower the count and still be slower): a step is kept only when it is also
# faster in time. What it answers is whether a change removed work, and where (run
# `callgrind_annotate --inclusive=yes` on the kept output files for the parts).
#
#   bench/instructions.sh [BINARY...]        (default: a release build of this checkout)
#
# Inputs (each a fresh copy, so no index or first-pass cache is left from another run):
#   cm1        ../shared/corpus/dftracer/cm1-48ranks-v1 (48 files, 0.3 M lines), --preset posix
#   large-16   the files of the first 16 ranks of the 10-million-event trace (48 files, 0.6 M
#              lines; TRACE_DIR, default /tmp/ioscout-large, made as bench/limit.sh makes it)
# Runs: `analyze --json` with no index ("cold", both passes), indexed (the first pass kept beside
# the index, so one pass), and `report` cold on large-16. The callgrind output of each run is
# kept in OUT_DIR (default a new directory under /tmp), named BINARY-INPUT-RUN.
set -euo pipefail
cd "$(dirname "$0")/.."
trace=${TRACE_DIR:-/tmp/ioscout-large}
shared=../shared
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
if [ ! -d "$trace" ]; then
  python3 "$shared/bench/make-large-trace.py" "$shared/corpus/dftracer/dlio-cosmoflow-hdf5" "$trace" 32 8
fi
binaries=("$@")
if [ ${#binaries[@]} -eq 0 ]; then
  cargo build --release --locked --bin ioscout >/dev/null 2>&1
  binaries=(target/release/ioscout)
fi
out=${OUT_DIR:-$(mktemp -d /tmp/ioscout-instructions.XXXXXX)}
mkdir -p "$out"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/large-16"
for rank in $(seq 0 15); do cp "$trace"/trace-"$rank"-of-*.pfw.gz "$scratch/large-16/"; done
cp -r "$shared/corpus/dftracer/cm1-48ranks-v1" "$scratch/cm1"
# Instructions of one run: binary label, input, run name, ioscout arguments (the input last).
count() {
  local label=$1 input=$2 run=$3; shift 3
  local file="$out/$label-$input-$run.callgrind"
  valgrind --tool=callgrind --callgrind-out-file="$file" "$@" >/dev/null 2>"$scratch/log"
  grep -o 'refs: *[0-9,]*' "$scratch/log" | tr -d ', ' | cut -d: -f2
}
fresh() { rm -rf "$scratch/copy"; cp -r "$scratch/$1" "$scratch/copy"; }
rows=("binary input run instructions")
for binary in "${binaries[@]}"; do
  label=$(basename "$binary")
  for input in cm1 large-16; do
    preset=()
    [ "$input" = cm1 ] && preset=(--preset posix)
    fresh "$input"
    rows+=("$label $input analyze-cold $(count "$label" "$input" analyze-cold "$binary" analyze --json "${preset[@]}" "$scratch/copy")")
    "$binary" index "$scratch/copy" >/dev/null 2>&1
    "$binary" analyze --json "${preset[@]}" "$scratch/copy" >/dev/null 2>&1   # keeps the first pass
    rows+=("$label $input analyze-indexed $(count "$label" "$input" analyze-indexed "$binary" analyze --json "${preset[@]}" "$scratch/copy")")
  done
  fresh large-16
  rows+=("$label large-16 report-cold $(count "$label" large-16 report-cold "$binary" report -o "$scratch/page.html" "$scratch/copy")")
done
printf '%s\n' "${rows[@]}" | awk 'NR == 1 { print; next }
  { key = $2 " " $3; if (!(key in first)) first[key] = $4
    printf "%s %s %s %.1fM %+.2f%%\n", $1, $2, $3, $4 / 1e6, 100 * ($4 - first[key]) / first[key] }' | column -t
echo "callgrind outputs: $out"
