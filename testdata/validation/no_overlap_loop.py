"""A deep-learning style training loop that loads a batch, computes on it, then loads the next,
in one thread: I/O and compute never overlap (the validation set's "no compute/I-O overlap"
workload). It annotates itself with DFTracer's AI API (the categories DLIO uses: pipeline, epoch,
data loader fetch, data item, compute), so ioscout's dlio preset reads it like a DLIO run, and
DFTracer intercepts the POSIX reads of files under the data directory.

    python no_overlap_loop.py DATA_DIR TRACE_DIR FILES SIZE EPOCHS COMPUTE_SECONDS
"""

import os
import sys
import time

from dftracer.python import ai as dft_ai
from dftracer.python import dftracer


@dft_ai.data.item
def load(path):
    with open(path, "rb") as handle:
        return handle.read()


def batches(paths, batch_size=4):
    for start in range(0, len(paths), batch_size):
        yield [load(path) for path in paths[start:start + batch_size]]


@dft_ai.compute
def compute(batch, seconds):
    time.sleep(seconds)
    return len(batch)


@dft_ai.pipeline.train
def train(paths, epochs, seconds):
    for _ in dft_ai.pipeline.epoch.iter(range(1, epochs + 1), include_iter=False):
        for batch in dft_ai.dataloader.fetch.iter(batches(paths)):
            compute(batch, seconds)


def main():
    data_dir, trace_dir = sys.argv[1], sys.argv[2]
    files, size, epochs, seconds = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
    os.makedirs(data_dir, exist_ok=True)
    os.makedirs(trace_dir, exist_ok=True)
    paths = []
    for index in range(files):
        path = os.path.join(data_dir, f"sample_{index:04d}.bin")
        if not os.path.exists(path):
            with open(path, "wb") as handle:
                handle.write(os.urandom(size))
        paths.append(path)
    tracer = dftracer.initialize_log(
        logfile=os.path.join(trace_dir, "trace-0-of-1.pfw"), data_dir=os.path.abspath(data_dir), process_id=0
    )
    train(paths, epochs, seconds)
    tracer.finalize()


if __name__ == "__main__":
    main()
