#!/usr/bin/env bash
# Regenerates the DFTracer evidence traces: each mode of workloads.c run under DFTracer's
# LD_PRELOAD tracer (the `dftracer` package from PyPI, 2.2.0), one folder per workload, then
# expected.py writes each folder's expected.json. See README.md.
#
#   testdata/evidence/make_evidence.sh [PEERS_DIR]
#
# PEERS_DIR (default ~/.cache/ioscout-peers) must hold a venv `tools` with dftracer installed:
#   python3 -m venv PEERS_DIR/tools && PEERS_DIR/tools/bin/pip install dftracer==2.2.0
set -euo pipefail
cd "$(dirname "$0")"
peers=${1:-$HOME/.cache/ioscout-peers}
preload=$(ls "$peers"/tools/lib/python3*/site-packages/dftracer/lib64/libdftracer_preload.so)
build=$(mktemp -d)
scratch=$(mktemp -d)
trap 'rm -rf "$build" "$scratch"' EXIT
gcc -O2 -Wall -o "$build/workloads" workloads.c

trace() { # folder mode: run one mode of the workloads under the tracer, data in $scratch/data
  rm -rf "$1"; mkdir -p "$1"
  LD_PRELOAD=$preload DFTRACER_ENABLE=1 DFTRACER_INIT=PRELOAD DFTRACER_INC_METADATA=1 DFTRACER_DATA_DIR=all \
    DFTRACER_TRACE_COMPRESSION=1 DFTRACER_LOG_FILE="$PWD/$1/trace" \
    "$build/workloads" "$2" "$scratch/data"
  find "$1" -name '*.pfw.gz' -size 0 -delete
  echo "$1: $(ls "$1" | wc -l) trace files, $(du -sb "$1" | cut -f1) bytes"
}

for mode in random_pread strided_pread sequential_read lseek_read_random reverse_read \
  shared_interleaved_writes unlink_stat_storm small_writes; do
  rm -rf "$scratch/data"; mkdir -p "$scratch/data"
  if [ "$mode" = unlink_stat_storm ]; then
    # The files exist before the traced run (made untraced), so that the trace's metadata time is
    # that of stat and unlink, not of inode creation.
    "$build/workloads" unlink_stat_storm_setup "$scratch/data"
  fi
  trace "$mode" "$mode"
done
python3 expected.py
