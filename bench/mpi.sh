#!/usr/bin/env bash
# Strong scaling of ioscout under MPI (cargo feature `mpi`) on the 10-million-event trace: index,
# selective query, scanning group-by, analyze and diagnose at 1, 2 and 4 ranks (each rank's
# threads default to the node's cores shared among its ranks), and at 1, 2 and 4 ranks of one
# thread each; every output is compared with the single-process run's. Median of 3 runs.
#
#   bench/mpi.sh [TRACE_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
trace=${1:-/tmp/ioscout-large}
shared=../shared
if [ ! -d "$trace" ]; then
  python3 "$shared/bench/make-large-trace.py" "$shared/corpus/dftracer/dlio-cosmoflow-hdf5" "$trace" 32 8
fi
cargo build --release --locked -p ioscout-cli --features mpi >/dev/null 2>&1
ioscout=$PWD/target/release/ioscout
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp -rL "$trace"/. "$scratch/"
rm -rf "$scratch/.ioscout" "$scratch/.dftindex"
"$ioscout" index "$scratch" > /dev/null 2>&1
pid=$("$ioscout" view "$scratch"/trace-7-of-*-app.pfw.gz --where 'ph == X' --limit 1 -q | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["pid"])')

# One measurement: median wall seconds of 3 runs; the output of the last run kept in $scratch/out.
median() {
  local times=()
  for _ in 1 2 3; do
    /usr/bin/time -f "%e" -o "$scratch/time" "$@" > "$scratch/out" 2> /dev/null || true
    times+=("$(cat "$scratch/time")")
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n 2p
}
labels=("index (rebuild)" "selective query (index)" "group-by scan (p99)" "analyze" "diagnose")
command_of() {  # index into labels -> the command's arguments in $command
  case $1 in
    0) command=(index --force "$scratch") ;;
    1) command=(query "$scratch" --where "host == \"node007\" and pid == $pid") ;;
    2) command=(query "$scratch" --where 'cat == "POSIX"' --group-by name --agg count,p99:dur) ;;
    3) command=(analyze --json "$scratch") ;;
    4) command=(diagnose --json "$scratch") ;;
  esac
}
launcher() {  # ranks threads command... -> the full command line in $line
  local ranks=$1 threads=$2; shift 2
  local extra=()
  [ "$threads" != default ] && extra=(--threads "$threads")
  if [ "$ranks" = none ]; then line=("$ioscout" "$@" "${extra[@]}"); else
    line=(mpirun --bind-to none --oversubscribe -n "$ranks" "$ioscout" "$@" "${extra[@]}"); fi
}
printf '| step | process | 1 rank | 2 ranks | 4 ranks | 1 rank x 1 thread | 2 ranks x 1 | 4 ranks x 1 |\n|---|---:|---:|---:|---:|---:|---:|---:|\n'
for index in "${!labels[@]}"; do
  command_of "$index"
  row="| ${labels[$index]} |"
  rm -f "$scratch/.ioscout/index.prepass"
  launcher none default "${command[@]}"
  row+=" $(median "${line[@]}") |"
  cp "$scratch/out" "$scratch/reference"
  for setting in "1 default" "2 default" "4 default" "1 1" "2 1" "4 1"; do
    read -r ranks threads <<< "$setting"
    rm -f "$scratch/.ioscout/index.prepass"
    launcher "$ranks" "$threads" "${command[@]}"
    row+=" $(median "${line[@]}")"
    if [ "${labels[$index]}" != "index (rebuild)" ] && ! cmp -s "$scratch/out" "$scratch/reference"; then row+=" (DIFFERS)"; fi
    row+=" |"
  done
  echo "$row"
done
