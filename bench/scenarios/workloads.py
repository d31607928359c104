#!/usr/bin/env python3
"""The scenario suite's workloads: each has one known I/O bottleneck (`baseline`) and the change
that removes it (`fix`), written as a user would write them, in plain POSIX calls (no DFTracer API
calls: they are traced by DFTracer's LD_PRELOAD library, as a user's job would be).

    workloads.py SCENARIO prepare|baseline|fix|VARIANT DATA_DIR [SCALE]

`prepare` makes the scenario's input data (run untraced, before the job: input generation is not
the job); `baseline` and `fix` are the job; a few scenarios have another variant, a proposal
that does not fit their access (`random_reads buffered`, `sync_storm coalesced`).

SCALE (default 1.0) multiplies the number of calls: the committed traces are made at a small
scale, the timings at 1.0. `scenarios.json` names each scenario's bottleneck and the strategy of
ioscout's catalog its fix implements; `run.sh` traces, advises and times them.
"""
import os
import random
import sys
import threading
import time

MIB = 1 << 20


def scaled(count, scale):
    return max(1, int(count * scale))


def durable(file):
    """Flushes a prepared input to the disk: the job's POSIX_FADV_DONTNEED then evicts it, so
    every run (traced or timed) reads it cold (dirty pages would stay cached)."""
    file.flush()
    os.fsync(file.fileno())


def compute(seconds):
    """Work that is not I/O: a busy loop of `seconds`."""
    end = time.perf_counter() + seconds
    total = 0
    while time.perf_counter() < end:
        total += sum(range(200))
    return total


def tiny_writes(variant, data, scale):
    """500 files of 16 KiB, each written in 64-byte write() calls; fix: one write per file. (With
    4 KiB files, rewriting a file, truncated at open and flushed at close by ext4, took three
    times what its 64 writes took: the bottleneck was the files, not the writes.)"""
    record = b"r" * 64
    for index in range(scaled(500, scale)):
        fd = os.open(os.path.join(data, f"t{index:05d}.dat"), os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
        if variant == "fix":
            os.write(fd, record * 256)
        else:
            for _ in range(256):
                os.write(fd, record)
        os.close(fd)


def random_reads(variant, data, scale):
    """20,000 pread()s of 4 KiB at random offsets of a 64 MiB file; fix: the same reads sorted by
    offset (the same bytes and calls, in file order)."""
    path = os.path.join(data, "table.bin")
    if variant == "prepare":
        with open(path, "wb") as file:
            for _ in range(64):
                file.write(os.urandom(MIB))
            durable(file)
        return
    rng = random.Random(7)
    offsets = [rng.randrange(0, (64 * MIB) // 4096) * 4096 for _ in range(scaled(20000, scale))]
    if variant == "fix":
        offsets.sort()
    os.posix_fadvise(os.open(path, os.O_RDONLY), 0, 0, os.POSIX_FADV_DONTNEED)
    if variant == "buffered":
        # The harmful proposal for this access: large-block read buffering (each seek refills it).
        with open(path, "rb", buffering=4 * MIB) as file:
            for offset in offsets:
                file.seek(offset)
                file.read(4096)
        return
    fd = os.open(path, os.O_RDONLY)
    total = 0
    for offset in offsets:
        total += len(os.pread(fd, 4096, offset))
    os.close(fd)


def small_sequential_reads(variant, data, scale):
    """An 8 MiB file read front to back in 512-byte pread(2) calls (a record parser) on a file
    that does not cache them: opened with O_DIRECT, as a parallel file system's client that sends
    each small read to the server (the page cache would hide the cost here); fix: the file read
    in 4 MiB blocks and the records served from memory (the same bytes, in order).

    pread is called through ctypes as a C program calls it: Python's os.preadv is not seen by
    DFTracer's preload library, and O_DIRECT needs a buffer aligned to the block (an mmap)."""
    import ctypes
    import mmap

    path = os.path.join(data, "records.bin")
    size = scaled(8, scale) * MIB
    if variant == "prepare":
        with open(path, "wb") as file:
            for _ in range(size // MIB):
                file.write(os.urandom(MIB))
        return
    libc = ctypes.CDLL(None, use_errno=True)
    libc.pread.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_long]
    libc.pread.restype = ctypes.c_ssize_t
    block = 4 * MIB if variant == "fix" else 512
    buffer = mmap.mmap(-1, max(block, mmap.PAGESIZE))
    address = ctypes.addressof(ctypes.c_char.from_buffer(buffer))
    view = memoryview(buffer)
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    records, offset = 0, 0
    while True:
        got = libc.pread(fd, address, block, offset)
        if got < 0:
            sys.exit(f"pread at {offset}: {os.strerror(ctypes.get_errno())}")
        if got == 0:
            break
        offset += got
        # Each 512-byte record, served from the block in memory (the fix) or as read.
        for start in range(0, got, 512):
            records += len(view[start:start + 512]) > 0
    os.close(fd)
    del view
    buffer.close()


def metadata_storm(variant, data, scale):
    """stat() then open()/read()/close() of 2,000 small files, 30 passes; fix: stat results and
    open handles cached after the first pass."""
    names = [os.path.join(data, f"m{index:05d}") for index in range(scaled(2000, scale))]
    if variant == "prepare":
        for name in names:
            with open(name, "wb") as file:
                file.write(b"m" * 64)
        return
    passes = max(2, scaled(30, scale))
    if variant == "fix":
        sizes = {name: os.stat(name).st_size for name in names}
        handles = {name: os.open(name, os.O_RDONLY) for name in names}
        for _ in range(passes):
            for name in names:
                os.pread(handles[name], sizes[name], 0)
        for fd in handles.values():
            os.close(fd)
    else:
        for _ in range(passes):
            for name in names:
                size = os.stat(name).st_size
                fd = os.open(name, os.O_RDONLY)
                os.pread(fd, size, 0)
                os.close(fd)


def serial_read_compute(variant, data, scale):
    """A loop that reads a 4 MiB sample, then computes on it for 10 ms, one after the other;
    fix: a reader thread reads the next sample while the current one is computed on."""
    path = os.path.join(data, "samples.bin")
    count = scaled(100, scale)
    if variant == "prepare":
        with open(path, "wb") as file:
            for _ in range(count):
                file.write(os.urandom(4 * MIB))
            durable(file)
        return
    os.posix_fadvise(os.open(path, os.O_RDONLY), 0, 0, os.POSIX_FADV_DONTNEED)
    fd = os.open(path, os.O_RDONLY)
    if variant == "fix":
        slots = [None] * count

        def reader():
            for index in range(count):
                slots[index] = os.pread(fd, 4 * MIB, index * 4 * MIB)
                ready[index].set()

        ready = [threading.Event() for _ in range(count)]
        thread = threading.Thread(target=reader)
        thread.start()
        for index in range(count):
            ready[index].wait()
            slots[index] = None
            compute(0.01)
        thread.join()
    else:
        for index in range(count):
            os.pread(fd, 4 * MIB, index * 4 * MIB)
            compute(0.01)
    os.close(fd)


def sync_storm(variant, data, scale):
    """A log of 2,000 records of 4 KiB, each followed by fsync(); fix: one fsync at the end (the
    records are durable at the end, not one by one)."""
    fd = os.open(os.path.join(data, "journal.log"), os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
    record = b"j" * 4096
    if variant == "coalesced":
        # Coalescing the writes (the generic small-write advice), each buffer still synced.
        for _ in range(scaled(2000, scale) // 16):
            os.write(fd, record * 16)
            os.fsync(fd)
    for _ in range(scaled(2000, scale) if variant != "coalesced" else 0):
        os.write(fd, record)
        if variant != "fix":
            os.fsync(fd)
    os.fsync(fd)
    os.close(fd)


def many_small_files(variant, data, scale):
    """4 processes, each writes 1,000 files of 8 KiB whole and reads them back; fix: each process
    writes one shard holding its files (an index of offsets) and reads it back."""
    per_rank = scaled(1000, scale)
    payload = b"s" * 8192
    children = []
    for rank in range(4):
        pid = os.fork()
        if pid == 0:
            if variant == "fix":
                shard = os.path.join(data, f"shard{rank}.bin")
                fd = os.open(shard, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
                os.write(fd, payload * per_rank)
                os.close(fd)
                fd = os.open(shard, os.O_RDONLY)
                for index in range(per_rank):
                    os.pread(fd, 8192, index * 8192)
                os.close(fd)
            else:
                names = [os.path.join(data, f"r{rank}-{index:05d}.bin") for index in range(per_rank)]
                for name in names:
                    fd = os.open(name, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
                    os.write(fd, payload)
                    os.close(fd)
                for name in names:
                    fd = os.open(name, os.O_RDONLY)
                    os.read(fd, 8192)
                    os.close(fd)
            os._exit(0)
        children.append(pid)
    for pid in children:
        os.waitpid(pid, 0)


def checkpoint_blocking(variant, data, scale):
    """A training loop of 20 ms steps that writes a 64 MiB checkpoint (fsync'd) every 10 steps and
    waits for it; fix: the checkpoint is written by a background thread while training goes on."""
    state = os.urandom(8 * MIB)
    steps = scaled(60, scale)
    pending = []

    def save(step):
        path = os.path.join(data, f"ckpt{step:04d}.pt")
        fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
        for _ in range(8):
            os.write(fd, state)
        os.fsync(fd)
        os.close(fd)

    for step in range(1, steps + 1):
        compute(0.02)
        if step % 10 == 0:
            if variant == "fix":
                for thread in pending:
                    thread.join()
                thread = threading.Thread(target=save, args=(step,))
                thread.start()
                pending = [thread]
            else:
                save(step)
    for thread in pending:
        thread.join()


def hdf5_chunk_cache(variant, data, scale):
    """A chunked, compressed HDF5 dataset (chunks of 128 rows of 16 KiB: 2 MiB) read one row at a
    time with HDF5's default chunk cache (1 MiB, smaller than a chunk: every row reads and
    inflates its whole chunk again); fix: a chunk cache that holds a chunk
    (h5py.File(..., rdcc_nbytes=64 MiB))."""
    import h5py
    import numpy

    path = os.path.join(data, "field.h5")
    rows = max(128, scaled(256, scale) // 128 * 128)
    if variant == "prepare":
        with h5py.File(path, "w") as file:
            dataset = file.create_dataset(
                "field", (rows, 4096), dtype="f4", chunks=(128, 4096), compression="gzip", compression_opts=1
            )
            for start in range(0, rows, 128):
                dataset[start:start + 128] = numpy.random.default_rng(start).random((128, 4096), dtype="f4")
        return
    cache = 64 * MIB if variant == "fix" else 1 * MIB
    total = 0.0
    with h5py.File(path, "r", rdcc_nbytes=cache) as file:
        dataset = file["field"]
        for row in range(rows):
            total += float(dataset[row].sum())


def mpiio_interleaved(variant, data, scale):
    """Every rank (run under mpirun, ROMIO as MPI-IO: `OMPI_MCA_io=romio321`) writes 256-byte
    records interleaved with the other ranks' into one shared file, through a strided file view,
    two records per independent MPI_File_write: each call is noncontiguous, so ROMIO's data
    sieving reads the extent, modifies it and writes it back under a file lock; fix: the same
    view and bytes in one collective MPI_File_write_all (two-phase I/O: no locks, large writes)."""
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    records, record = scaled(80000, scale), 256
    per_call = 2
    records -= records % per_call
    data_of_rank = bytes([65 + rank % 26]) * record
    path = os.path.join(data, "shared.dat")
    if rank == 0 and os.path.exists(path):
        os.remove(path)
    comm.Barrier()
    handle = MPI.File.Open(comm, path, MPI.MODE_CREATE | MPI.MODE_WRONLY)
    # One record's slot in every `size` slots, tiled over the file.
    slot = MPI.BYTE.Create_contiguous(record)
    filetype = slot.Create_resized(0, record * size).Commit()
    slot.Free()
    handle.Set_view(rank * record, MPI.BYTE, filetype)
    if variant == "fix":
        handle.Write_all(data_of_rank * records)
    else:
        block = data_of_rank * per_call
        for _ in range(records // per_call):
            handle.Write(block)
    filetype.Free()
    handle.Close()


def compute_bound(variant, data, scale):
    """The control: 2 s of computation and one 8 MiB result written in 1 MiB writes. No I/O
    bottleneck: nothing to fix."""
    compute(2.0 * min(1.0, max(scale, 0.25)))
    fd = os.open(os.path.join(data, "result.bin"), os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
    block = b"c" * MIB
    for _ in range(8):
        os.write(fd, block)
    os.close(fd)


SCENARIOS = {
    "tiny_writes": tiny_writes,
    "random_reads": random_reads,
    "small_sequential_reads": small_sequential_reads,
    "mpiio_interleaved": mpiio_interleaved,
    "metadata_storm": metadata_storm,
    "serial_read_compute": serial_read_compute,
    "sync_storm": sync_storm,
    "many_small_files": many_small_files,
    "checkpoint_blocking": checkpoint_blocking,
    "hdf5_chunk_cache": hdf5_chunk_cache,
    "compute_bound": compute_bound,
}

# The scenarios whose input data `prepare` makes.
PREPARED = {"random_reads", "small_sequential_reads", "metadata_storm", "serial_read_compute", "hdf5_chunk_cache"}


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in SCENARIOS:
        sys.exit(__doc__ + "\nscenarios: " + ", ".join(SCENARIOS))
    scenario, variant, data = sys.argv[1], sys.argv[2], sys.argv[3]
    scale = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0
    os.makedirs(data, exist_ok=True)
    if variant == "prepare" and scenario not in PREPARED:
        return
    SCENARIOS[scenario](variant, data, scale)


if __name__ == "__main__":
    main()
