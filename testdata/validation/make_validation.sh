#!/usr/bin/env bash
# Regenerates the labelled validation traces: each workload of workloads.py under DFTracer 2.2's
# LD_PRELOAD tracer, one folder per pattern. Needs the peers of ../shared/bench/setup-peers.sh.
#
#   testdata/validation/make_validation.sh [PEERS_DIR]
#
# The expected findings per folder are in labels.json (written by hand, next to this script).
set -euo pipefail
cd "$(dirname "$0")"
peers=${1:-$HOME/.cache/ioscout-peers}
preload=$(ls "$peers"/tools/lib/python3*/site-packages/dftracer/lib64/libdftracer_preload.so)
# The interpreter itself, not a shim script: a shim would be traced too.
python=$(python3 -c 'import sys; print(sys.executable)')
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for pattern in small_reads small_writes random_offsets metadata_storm many_small_files rank0_heavy healthy; do
  rm -rf "$pattern" "$scratch/data"; mkdir -p "$pattern"
  LD_PRELOAD=$preload DFTRACER_ENABLE=1 DFTRACER_INIT=PRELOAD DFTRACER_INC_METADATA=1 DFTRACER_DATA_DIR=all \
    DFTRACER_TRACE_COMPRESSION=1 DFTRACER_LOG_FILE="$PWD/$pattern/trace" \
    "$python" workloads.py "$pattern" "$scratch/data"
  find "$pattern" -name '*.pfw.gz' -size 0 -delete
  echo "$pattern: $(ls "$pattern" | wc -l) files, $(du -sh "$pattern" | cut -f1)"
done
# No compute/I-O overlap: a training loop that loads, then computes, in one thread, annotated with
# DFTracer's AI API (DLIO's categories) so the dlio preset reads it; DFTracer's Python API traces
# its POSIX reads (no LD_PRELOAD).
rm -rf no_overlap "$scratch/data"; mkdir -p no_overlap
DFTRACER_ENABLE=1 DFTRACER_INC_METADATA=1 DFTRACER_TRACE_COMPRESSION=1 \
  "$peers/tools/bin/python" no_overlap_loop.py "$scratch/data" "$PWD/no_overlap" 64 1048576 2 0.01
find no_overlap -name 'dft.log' -delete
echo "no_overlap: $(ls no_overlap | wc -l) files, $(du -sh no_overlap | cut -f1)"
