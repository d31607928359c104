#!/usr/bin/env bash
# Makes the DLIO comparison traces of the validation set: the same resnet50 (TFRecord, TensorFlow
# reader) training twice, differing only in reader.read_threads (1 and 4), and a third run with
# read_threads=4 and one epoch instead of two (half the data read). DLIO is argonne-lcf/dlio_benchmark
# e1919d7 from source, in a venv with tensorflow-cpu 2.21, mpi4py, hydra-core, h5py, pandas, psutil,
# Pillow, PyYAML, dftracer 2.2.0 and pydftracer (`pip install --no-deps <dlio checkout>` after them).
#
#   testdata/validation/make_dlio_pair.sh DLIO_VENV WORK_DIR
#
# The dataset is 128 files of 8 samples (DLIO e1919d7 trims the file count to a multiple of
# samples-per-file x batch size, so 128 with batch 16), generated once; computation_time 0.002 s
# makes the reader the bottleneck on a 2-core machine.
set -euo pipefail
venv=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
run() {  # name generate train read_threads epochs
  rm -rf "${work:?}/$1"
  DFTRACER_ENABLE=1 DFTRACER_INC_METADATA=1 DFTRACER_TRACE_COMPRESSION=1 "$venv/bin/dlio_benchmark" workload=resnet50_tf \
    ++workload.workflow.generate_data="$2" ++workload.workflow.train="$3" \
    ++workload.dataset.num_files_train=128 ++workload.dataset.num_samples_per_file=8 ++workload.dataset.record_length_bytes=114660 \
    ++workload.reader.batch_size=16 ++workload.reader.read_threads="$4" ++workload.reader.computation_threads=1 \
    ++workload.train.epochs="$5" ++workload.train.computation_time=0.002 \
    ++workload.dataset.data_folder="$work/data" ++workload.output.folder="$work/$1/out" hydra.run.dir="$work/$1/hydra" > "$work/$1.log" 2>&1
}
run generate True False 1 2
run dlio_read_threads_1 False True 1 2
run dlio_read_threads_4 False True 4 2
run dlio_read_threads_4_one_epoch False True 4 1
for name in dlio_read_threads_1 dlio_read_threads_4 dlio_read_threads_4_one_epoch; do
  rm -rf "${here:?}/$name" && mkdir -p "$here/$name" && cp "$work/$name"/out/*.pfw.gz "$here/$name/"
  grep -o 'Throughput (samples/second): [0-9.]*' "$work/$name.log" | tail -1
done
