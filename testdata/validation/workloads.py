#!/usr/bin/env python3
"""One small POSIX workload per I/O pattern, for the labelled validation set of `ioscout diagnose`.

Run under DFTracer's LD_PRELOAD by make_validation.sh (no DFTracer API calls here):
    workloads.py PATTERN DATA_DIR

Patterns (each induces one known pattern; `healthy` is the control):
  small_reads       one 32 MiB file read back in 4 KiB reads
  small_writes      one 32 MiB file written in 4 KiB writes
  random_offsets    a 32 MiB file read in 64 KiB reads at random offsets (lseek + read)
  metadata_storm    stat/access/open/close of 2,000 files, 10,000 times, little data
  many_small_files  3,000 files of 8 KiB written and read back whole
  rank0_heavy       4 processes; process 0 writes 64 MiB, the others 1 MiB each
  healthy           one 256 MiB file written and read back in 8 MiB requests, then a second of compute
"""
import os, random, sys, time

pattern, data = sys.argv[1], sys.argv[2]
os.makedirs(data, exist_ok=True)
rng = random.Random(42)
MIB = 1 << 20


def write_file(path, size, chunk):
    buf = b"x" * chunk
    fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
    written = 0
    while written < size:
        written += os.write(fd, buf[: min(chunk, size - written)])
    os.close(fd)


def read_file(path, chunk):
    fd = os.open(path, os.O_RDONLY)
    while os.read(fd, chunk):
        pass
    os.close(fd)


if pattern == "small_reads":
    path = os.path.join(data, "big.bin")
    write_file(path, 32 * MIB, 8 * MIB)
    read_file(path, 4096)
elif pattern == "small_writes":
    write_file(os.path.join(data, "out.bin"), 32 * MIB, 4096)
elif pattern == "random_offsets":
    path = os.path.join(data, "big.bin")
    write_file(path, 32 * MIB, 8 * MIB)
    fd = os.open(path, os.O_RDONLY)
    for _ in range(4000):
        os.lseek(fd, rng.randrange(0, 32 * MIB - 65536), os.SEEK_SET)
        os.read(fd, 65536)
    os.close(fd)
elif pattern == "metadata_storm":
    names = [os.path.join(data, f"m{i:05d}") for i in range(2000)]
    for name in names:
        write_file(name, 16, 16)
    for _ in range(5):
        for name in names:
            os.stat(name)
            os.access(name, os.R_OK)
            os.close(os.open(name, os.O_RDONLY))
elif pattern == "many_small_files":
    for i in range(3000):
        write_file(os.path.join(data, f"s{i:05d}.bin"), 8192, 8192)
    for i in range(3000):
        read_file(os.path.join(data, f"s{i:05d}.bin"), 8192)
elif pattern == "rank0_heavy":
    children = []
    for rank in range(4):
        pid = os.fork()
        if pid == 0:
            size = 64 * MIB if rank == 0 else MIB
            write_file(os.path.join(data, f"rank{rank}.bin"), size, MIB)
            os._exit(0)
        children.append(pid)
    for pid in children:
        os.waitpid(pid, 0)
elif pattern == "healthy":
    path = os.path.join(data, "big.bin")
    write_file(path, 256 * MIB, 8 * MIB)
    read_file(path, 8 * MIB)
    end = time.time() + 1.0
    while time.time() < end:
        sum(range(10000))
else:
    sys.exit(f"unknown pattern {pattern}")
