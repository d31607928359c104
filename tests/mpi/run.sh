#!/usr/bin/env bash
# MPI end to end: every output of `ioscout index|query|analyze|diagnose` run by 2 and 4 ranks
# under mpirun equals the single-process run's, byte for byte; the same binary without a
# launcher runs as one process; a rank that cannot read its file ends the job with an error
# naming the rank and the file (no hang).
#
# Usage: tests/mpi/run.sh BIN   (BIN built with `--features mpi`)
set -euo pipefail
bin="$(realpath "$1")"
here="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpi() { local ranks="$1"; shift; timeout 300 mpirun --oversubscribe --bind-to none -n "$ranks" "$bin" "$@"; }
checks=0
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Outputs of one command: stdout and exit code.
run_single() { local out="$1"; shift; set +e; "$bin" "$@" > "$out" 2> "$out.err"; echo $? > "$out.code"; set -e; }
run_mpi() { local ranks="$1" out="$2"; shift 2; set +e; mpi "$ranks" "$@" > "$out" 2> "$out.err"; echo $? > "$out.code"; set -e; }

compare() {
  local name="$1"; shift
  run_single "$work/single" "$@"
  for ranks in 2 4; do
    run_mpi "$ranks" "$work/mpi" "$@"
    checks=$((checks + 1))
    if ! cmp -s "$work/single" "$work/mpi" || ! cmp -s "$work/single.code" "$work/mpi.code"; then
      fail "$name on $ranks ranks differs from one process: ioscout $*"
      diff <(head -c 2000 "$work/single") <(head -c 2000 "$work/mpi") | head -20 || true
      head -5 "$work/mpi.err"
    fi
  done
}

# The index output without its timings and paths, for comparing builds of two copies.
index_fields() {
  python3 -c 'import json,sys
for entry in json.load(sys.stdin)["directories"]:
    print(entry["indexed_files"], entry["unchanged_files"], entry["removed_files"], entry["chunks"], entry["index_bytes"], entry["trace_bytes"], entry["problem_count"])'
}

datasets=("$here/testdata/sample" "$here/testdata/generations" "$here/testdata/validation/small_reads" "$here/testdata/overlap")
corpus="$here/../shared/corpus/dftracer"
if [ -d "$corpus" ]; then
  for folder in dlio-unet3d-v1 golden-dlio-unet3d-v1 dlio-cosmoflow-hdf5; do
    [ -d "$corpus/$folder" ] && datasets+=("$corpus/$folder")
  done
else
  echo "corpus folders skipped: $corpus is absent"
fi

for source in "${datasets[@]}"; do
  name="$(basename "$source")"
  [ -d "$source" ] || { fail "missing dataset $source"; continue; }
  echo "== $name"
  copy="$work/data/$name"
  mkdir -p "$copy"
  find "$source" -maxdepth 1 -type f \( -name '*.pfw' -o -name '*.pfw.gz' \) -exec cp {} "$copy/" \;
  for view in "" "--view file_name,proc_name,epoch"; do
    # shellcheck disable=SC2086
    compare "analyze --json $view" analyze --json $view "$copy"
  done
  compare "analyze (tables)" analyze "$copy"
  compare "analyze --compat" analyze --json --compat dfanalyzer "$copy"
  compare "diagnose --json" diagnose --json "$copy"
  compare "diagnose (text)" diagnose "$copy"
  compare "query (no index)" query "$copy" --where 'cat == "POSIX" or dur > 1000'
  compare "query group-by (no index)" query "$copy" --group-by name,cat --agg count,sum:dur,p99:dur,sum:size

  # The index: built by 4 ranks on one copy and by one process on another, the same records.
  single_copy="$work/data/$name-single"
  cp -r "$copy" "$single_copy"
  "$bin" index --json "$single_copy" | index_fields > "$work/index.single"
  mpi 4 index --json "$copy" | index_fields > "$work/index.mpi"
  checks=$((checks + 1))
  cmp -s "$work/index.single" "$work/index.mpi" || fail "$name: index by 4 ranks differs: $(cat "$work/index.mpi") vs $(cat "$work/index.single")"
  ls "$copy/.ioscout" | grep -q 'part-' && fail "$name: partial indexes left behind"
  compare "query rows (index)" query "$copy" --where 'cat == "POSIX" and size > 0'
  compare "query csv limit (index)" query "$copy" --format csv --limit 5
  compare "query group-by (index)" query "$copy" --group-by name,cat
  compare "query group-by scan (index)" query "$copy" --where 'dur > 10' --group-by cat --agg count,mean:dur
  compare "analyze (index)" analyze --json "$copy"
  "$bin" query "$copy" --format parquet --where 'cat == "POSIX"' > "$work/one.parquet"
  mpi 3 query "$copy" --format parquet --where 'cat == "POSIX"' > "$work/three.parquet"
  checks=$((checks + 1))
  cmp -s "$work/one.parquet" "$work/three.parquet" || fail "$name: Parquet by 3 ranks differs"
done

echo "== without a launcher the mpi build runs as one process"
checks=$((checks + 1))
"$bin" count --json "$here/testdata/sample" > /dev/null || fail "the mpi build without mpirun"

echo "== a rank that cannot read its file"
# Rank 0 discovers the relative path in its working directory; rank 1 runs elsewhere, where the
# files do not exist, as a node whose file system lacks the trace would.
mkdir -p "$work/present/traces" "$work/absent"
cp "$here"/testdata/sample/*.pfw.gz "$work/present/traces/"
for command in "analyze traces" "query traces --where dur>0" "index traces" "diagnose traces"; do
  checks=$((checks + 1))
  set +e
  # shellcheck disable=SC2086
  timeout 120 mpirun --bind-to none -n 1 --wdir "$work/present" "$bin" $command : -n 1 --wdir "$work/absent" "$bin" $command > "$work/failure.out" 2> "$work/failure.err"
  code=$?
  set -e
  if [ "$code" = 124 ]; then
    fail "$command: the job hung"
  elif [ "$code" = 0 ]; then
    fail "$command: the job succeeded although rank 1 cannot read its files"
  elif ! grep -q "rank 1 of 2: cannot read traces/" "$work/failure.err"; then
    fail "$command: the error does not name the rank and the file: $(head -3 "$work/failure.err")"
  fi
done
grep -m1 "rank 1 of 2" "$work/failure.err" || true

echo "$checks MPI checks, $failures failed"
[ "$failures" = 0 ]
