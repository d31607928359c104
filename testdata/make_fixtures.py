#!/usr/bin/env python3
"""Regenerates every fixture under testdata/ deterministically (fixed seed, gzip mtime 0).

    python3 testdata/make_fixtures.py

Outputs (all small enough to commit):
  sample/                     a DLIO-like UNet3D training run in the DFTracer 2.2 format: 2 ranks, each an
                              app process and 2 reader workers (6 files), multi-member gzip, metadata on
  generations/                one small trace per DFTracer format generation (2023, v1, 2025, 2.2), as DFTracer
                              writes them, plus an uncompressed and a single-member copy
  overlap/                    two ranks, one with a forked reader worker, whose compute/I-O overlap is worked out
                              by hand in overlap_trace() (exact and binned overlap differ)
  bad/                        bad input: a garbage and a truncated line, invalid UTF-8, a truncated gzip member,
                              an empty file, trailing garbage after gzip
  */expected.json             counts computed here with Python's json module, independently of ioscout

The writer formats follow shared/research/dftracer-format.md (section 1). Nothing here is copied from a
real trace: names, paths and timings are synthetic.
"""
import gzip
import hashlib
import json
import os
import random

ROOT = os.path.dirname(os.path.abspath(__file__))


def hex_hash(text):
    digest = hashlib.md5(text.encode()).digest()
    return "".join(f"{digest[i]:02x}" for i in range(0, 16, 2))


def int_hash(text):
    # v1 hashes: unsigned 64-bit, often above 2^63
    return int.from_bytes(hashlib.md5(text.encode()).digest()[:8], "big") | (1 << 63)


def gzip_members(lines, member_lines):
    """Independent gzip members of member_lines lines each, every member ending at a newline."""
    out = b""
    for start in range(0, len(lines), member_lines):
        chunk = "".join(line + "\n" for line in lines[start:start + member_lines]).encode()
        out += gzip.compress(chunk, compresslevel=6, mtime=0)
    return out


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(data if isinstance(data, bytes) else data.encode())


def compact(obj):
    return json.dumps(obj, separators=(",", ":"))


# ---------------------------------------------------------------------------------------------------
# The 2.2 writer


class Process:
    """One traced process writing 2.2 events (integer ph and type, hex hashes, metadata on)."""

    def __init__(self, pid, host, cmd):
        self.pid = pid
        self.host = host
        self.hhash = hex_hash(host)
        self.lines = []
        self.next_id = 1
        self.files = {}
        self.metadata("HH", host, self.hhash)
        self.metadata("thread_name", str(pid), "thread_name")
        self.metadata("CM", "time_metric", "US")
        self.cmd_hash = hex_hash(cmd)
        self.metadata("SH", cmd, self.cmd_hash)

    def metadata(self, kind, name, value):
        self.lines.append(compact({"name": kind, "cat": "dftracer", "type": 1, "pid": self.pid, "tid": self.pid,
                                   "ph": 4, "args": {"hhash": self.hhash, "name": name, "value": value}}))

    def file(self, path):
        if path not in self.files:
            self.files[path] = hex_hash(path)
            self.metadata("FH", path, self.files[path])
        return self.files[path]

    def event(self, name, cat, kind, ts, dur, tid=None, **args):
        record = {"id": self.next_id, "name": name, "cat": cat, "type": kind, "pid": self.pid,
                  "tid": tid or self.pid, "ts": int(ts), "dur": int(dur), "ph": 1,
                  "args": {"hhash": self.hhash, **args}}
        self.next_id += 1
        self.lines.append(compact(record))

    def posix(self, name, ts, dur, path=None, **args):
        if path is not None:
            args["fhash"] = self.file(path)
        self.event(name, "POSIX", 3, ts, dur, **args)


def make_sample(rng):
    """DLIO UNet3D-like training: reader workers read 1 MiB .npz samples in 256 KiB reads while the main
    process waits on fetch.iter and computes; rank 0 writes a checkpoint after each epoch."""
    base = 1_795_000_000_000_000
    data_dir = "/p/lustre/user/dlio-runs/unet3d/data/train"
    ckpt_dir = "/p/lustre/user/dlio-runs/unet3d/checkpoints"
    cmd = "/opt/dlio/venv/bin/python3;/opt/dlio/venv/bin/dlio_benchmark;workload=unet3d_a100"
    files = {}
    epochs, steps, batch, workers = 2, 12, 4, 2
    sample_bytes, read_bytes = 1 << 20, 1 << 18
    for rank in range(2):
        host = f"node{rank + 1:02d}"
        app = Process(9000 + rank * 100, host, cmd)
        app.event("start", "dftracer", 1, base, 0, ppid=8999, cmd_hash=app.cmd_hash, version="2.2.0")
        app.metadata("PR", "rank", rank)
        app.event("DLIOBenchmark.initialize", "dlio_benchmark", 6, base + 1_000, 120_000)
        forks = [Process(9000 + rank * 100 + 10 + w, host, cmd) for w in range(workers)]
        clock = base + 150_000
        for epoch in range(1, epochs + 1):
            epoch_start = clock
            for step in range(1, steps + 1):
                wait_start = clock
                # each worker reads half the batch, in parallel with the others
                worker_end = clock
                for w, fork in enumerate(forks):
                    t = clock + rng.randint(50, 400)
                    for item in range(batch // workers):
                        index = ((epoch * steps + step) * batch + w * 2 + item + rank * 977) % 64
                        path = f"{data_dir}/img_{index:02d}_of_64.npz"
                        item_start = t
                        fork.event("NPZReader.read_index", "reader", 6, t, 0, epoch=epoch, step=step, image_idx=index)
                        open_dur = rng.randint(400, 2500)
                        fork.posix("open64", t, open_dur, path, flags=0, mode=438)
                        t += open_dur + 5
                        for offset in range(0, sample_bytes, read_bytes):
                            dur = rng.randint(900, 4000) if rng.random() > 0.05 else rng.randint(20_000, 60_000)
                            fork.posix("read", t, dur, path, ret=read_bytes, count=read_bytes)
                            t += dur + 3
                        fork.posix("lseek64", t, 2, path, ret=0, whence=0, offset=0)
                        t += 4
                        fork.posix("close", t, rng.randint(5, 30), path, ret=0)
                        t += 40
                        fork.event("NPZReader.get_sample", "reader", 6, t, 15, epoch=epoch, step=step,
                                   image_size=float(sample_bytes), image_idx=index)
                        fork.event("preprocess", "data", 6, t + 20, rng.randint(200, 900), step=step)
                        t += 1_000
                        fork.event("item", "data", 6, item_start, t - item_start, step=step)
                    worker_end = max(worker_end, t)
                clock = worker_end + rng.randint(100, 500)
                app.event("fetch.iter", "dataloader", 6, wait_start, clock - wait_start, step=step, count=step)
                compute = rng.randint(25_000, 35_000)
                app.event("compute", "compute", 6, clock + 20, compute, step=step)
                app.event("fetch.block", "dataloader", 6, clock, compute + 60, step=step, count=step)
                clock += compute + 80
            if rank == 0:
                path = f"{ckpt_dir}/epoch_{epoch}-step_{steps}/model.pt"
                start = clock
                app.posix("open64", clock, 800, path, flags=577, mode=438)
                clock += 810
                for _ in range(16):
                    dur = rng.randint(6_000, 9_000)
                    app.posix("write", clock, dur, path, ret=4 << 20, count=4 << 20)
                    clock += dur + 5
                app.posix("fsync", clock, 25_000, path, ret=0)
                clock += 25_010
                app.posix("close", clock, 40, path, ret=0)
                clock += 50
                app.event("PyTorchCheckpointing.save_state", "checkpoint", 6, start, clock - start, epoch=epoch)
            app.event("epoch.block", "pipeline", 6, epoch_start, clock - epoch_start, epoch=epoch, count=epoch)
        app.event("end", "dftracer", 1, clock + 100, 0, num_events=app.next_id)
        suffix = hex_hash(f"rank{rank}")
        files[f"trace-{rank}-of-2-{suffix}-app.pfw.gz"] = app.lines
        for w, fork in enumerate(forks):
            files[f"trace-{rank}-of-2-{hex_hash(f'rank{rank}-worker{w}')}-fork.pfw.gz"] = fork.lines
    out = {}
    for name, lines in files.items():
        out[name] = gzip_members(lines, 150)
    return out, files


# ---------------------------------------------------------------------------------------------------
# One trace per generation


def legacy_2023():
    lines = ["["]
    host = "corona237"
    for i in range(40):
        name = ["open", "write", "read", "close", "__lxstat"][i % 5]
        args = {"hostname": host, "fname": f"/p/lustre1/user/data/file_{i // 5}.bat"}
        if name in ("write", "read"):
            args["ret"] = "3276800" if i % 2 else 3276800  # mixed types, as 2023 traces have
            args["count"] = "3276800"
        lines.append(" " + compact({"id": str(i), "name": name, "cat": "POSIX", "pid": "1338896", "tid": "2677792",
                                    "ts": str(1698080323775554 + i * 1000), "dur": str(100 + i), "ph": "X",
                                    "args": args}))
    return "\n".join(lines) + "\n"


def v1_hashes():
    host, pid = "corona171", 1028567
    hh = int_hash(host)
    lines = ["["]
    records = [{"id": 1, "name": "HH", "cat": "dftracer", "pid": pid, "tid": pid, "ph": "M",
                "args": {"hhash": hh, "name": host, "value": hh}}]
    for i in range(4):
        path = f"/p/gpfs1/user/unet3d/img_{i}.npz"
        fh = int_hash(path)
        records.append({"id": len(records) + 1, "name": "FH", "cat": "dftracer", "pid": pid, "tid": pid, "ph": "M",
                        "args": {"hhash": hh, "name": path, "value": fh}})
        for name in ("open64", "read", "read", "close"):
            args = {"hhash": hh, "fhash": fh, "p_idx": 1, "level": 2}
            if name == "read":
                args.update(ret=131072, count=131072)
            records.append({"id": len(records) + 1, "name": name, "cat": "POSIX", "pid": pid, "tid": pid,
                            "ts": 1744611912976874 + len(records) * 50, "dur": 20 + i, "ph": "X", "args": args})
    records.append({"id": len(records) + 1, "name": "HDF5Reader.read_index", "cat": "reader", "pid": pid, "tid": pid,
                    "ts": 1744611912976800, "dur": 5000, "ph": "X", "args": {"hhash": hh, "epoch": "1", "level": 1}})
    lines += [compact(record) for record in records]
    # v1 finalize: "[" line, events, and a closing "]" without a trailing newline
    return "\n".join(lines) + "\n]"


def hex_2025():
    host, pid = "lassen12", 4242
    hh = hex_hash(host)
    lines = ["["]
    lines.append(compact({"id": 1, "name": "HH", "cat": "dftracer", "pid": pid, "tid": pid, "ph": "M",
                          "args": {"hhash": hh, "name": host, "value": hh}}))
    path = "/p/vast1/user/ckpt/model.pt"
    fh = hex_hash(path)
    lines.append(compact({"id": 2, "name": "FH", "cat": "dftracer", "pid": pid, "tid": pid, "ph": "M",
                          "args": {"hhash": hh, "name": path, "value": fh}}))
    for i in range(30):
        lines.append(compact({"id": 3 + i, "name": "write", "cat": "POSIX", "pid": pid, "tid": pid + 1,
                              "ts": 1750000000000000 + i * 700, "dur": 300 + i, "ph": "X",
                              "args": {"hhash": hh, "fhash": fh, "ret": 1048576, "count": "1", "level": 1}}))
    # aggregated events written as "C" with dft_cnt, and a telemetry counter
    lines.append(compact({"name": "openat", "cat": "POSIX", "ts": 1750000000000000, "ph": "C", "pid": pid, "tid": pid,
                          "args": {"hhash": hh, "dft_cnt": 2, "dur_min": 379, "dur_max": 444, "dur_sum": 823}}))
    lines.append(compact({"name": "cpu", "cat": "sys", "ts": 1750000000001000, "ph": "C", "pid": pid, "tid": 0,
                          "args": {"hhash": hh, "user_pct": 12.5, "iowait_pct": 0.8}}))
    lines.append(compact({"id": 40, "name": "ai_root", "cat": "ai_root", "pid": pid, "tid": pid,
                          "ts": 1749999999999000, "dur": 30000, "ph": "X",
                          "args": {"hhash": hh, "version": "v1.0.15-56-gd5871bd", "note": "caf\u00e9 \"quoted\""}}))
    # no closing "]": the 2025 writer leaves it off
    return lines


def ndjson_2_2():
    host, pid = "tuolumne3", 777
    hh = hex_hash(host)
    process = Process(pid, host, "/usr/bin/python3;train.py")
    for i in range(25):
        process.posix("pread64", 1795964520494600 + i * 40, 3 + i % 4, f"/l/ssd/data/shard_{i % 3}.tfrecord",
                      ret=65536, count=65536, offset=i * 65536)
    # events without args (DFTRACER_INC_METADATA unset is the 2.2 default)
    for i in range(5):
        process.lines.append(compact({"id": process.next_id + i, "name": "read", "cat": "POSIX", "type": 3, "pid": pid,
                                      "tid": pid, "ts": 1795964520500000 + i, "dur": 2, "ph": 1}))
    process.lines.append(compact({"name": "openat", "cat": "POSIX", "type": 3, "ts": 1795964520000000, "ph": 3,
                                  "pid": pid, "tid": pid, "args": {"hhash": hh, "dft_cnt": 2, "dur_min": 379,
                                                                   "dur_max": 444, "dur_sum": 1232}}))
    process.lines.append(compact({"name": "memory", "cat": "sys", "type": 7, "ts": 1795964520000500, "ph": 2,
                                  "pid": pid, "tid": 0, "args": {"hhash": hh, "MemFree": 1024, "Cached": 2048}}))
    return process.lines


def overlap_trace():
    """Two ranks on one host. Rank 100 computes in [1000,2000) and [3000,4000) (µs after T0) while
    its forked worker 200 (``ppid`` 100 on its ``start`` event) reads in [1500,2500), [3200,3600) and
    [4500,4700): 500 + 0 + 200 µs of the reads are not hidden by compute. Rank 300 has no worker:
    it computes in [1000,2000) and then reads in [2000,2500), so nothing is hidden. Every event falls
    in the first 1-s bin, where DFAnalyzer's approximation (bottleneck POSIX time 1600 µs minus
    bottleneck compute time 2000 µs) reports the I/O as wholly hidden."""
    host = "node1"
    hh = hex_hash(host)
    t0 = 1795964600000000
    lines = [compact({"id": 1, "name": "HH", "cat": "dftracer", "pid": 100, "tid": 100, "ph": 4,
                      "args": {"hhash": hh, "name": host, "value": hh}})]
    path = "/p/lustre/run/data/train/sample_0.npz"
    fh = hex_hash(path)
    lines.append(compact({"id": 2, "name": "FH", "cat": "dftracer", "pid": 200, "tid": 200, "ph": 4,
                          "args": {"hhash": hh, "name": path, "value": fh}}))

    def event(pid, name, cat, start, dur, **args):
        record = {"id": len(lines) + 1, "name": name, "cat": cat, "type": 1, "pid": pid, "tid": pid,
                  "ts": t0 + start, "dur": dur, "ph": 1, "args": {"hhash": hh, **args}}
        lines.append(compact(record))

    event(100, "start", "dftracer", 0, 0, ppid=1)
    event(200, "start", "dftracer", 10, 0, ppid=100)
    event(300, "start", "dftracer", 20, 0, ppid=1)
    for start in (1000, 3000):
        event(100, "TorchFramework.compute", "compute", start, 1000)
    for start, dur in ((1500, 1000), (3200, 400), (4500, 200)):
        event(200, "pread64", "POSIX", start, dur, fhash=fh, ret=131072)
    event(300, "TorchFramework.compute", "compute", 1000, 1000)
    event(300, "pread64", "POSIX", 2000, 500, fhash=fh, ret=131072)
    return lines


# ---------------------------------------------------------------------------------------------------
# Independent expected counts


def phase_of(record):
    ph = record.get("ph")
    if ph in ("X", 1):
        return "complete"
    if ph in ("M", 4):
        return "metadata"
    if ph == "C":
        return "aggregated" if "dft_cnt" in (record.get("args") or {}) else "counter"
    if ph == 2:
        return "counter"
    if ph in ("A", 3):
        return "aggregated"
    return "other"


def count_text(text):
    counts = {"complete": 0, "metadata": 0, "counter": 0, "aggregated": 0, "other": 0, "invalid": 0}
    categories, pids, fh, hosts = {}, set(), set(), set()
    first, last = None, None
    for raw in text.split("\n"):
        line = raw.strip().lstrip("[").strip().rstrip(",").strip()
        if line in ("", "[", "]"):
            continue
        try:
            record = json.loads(line)
        except ValueError:
            counts["invalid"] += 1
            continue
        phase = phase_of(record)
        counts[phase] += 1
        args = record.get("args") or {}
        if phase == "complete":
            categories[record["cat"]] = categories.get(record["cat"], 0) + 1
            pids.add(int(record["pid"]))
            ts, dur = int(record["ts"]), int(record.get("dur", 0))
            first = ts if first is None else min(first, ts)
            last = ts + dur if last is None else max(last, ts + dur)
            if "hostname" in args:
                hosts.add(args["hostname"])
        if phase == "metadata" and record["name"] == "FH":
            fh.add(str(args["value"]))
        if phase == "metadata" and record["name"] == "HH":
            hosts.add(args["name"])
    return counts, {"categories": categories, "pids": pids, "fh": fh, "hosts": hosts, "first": first, "last": last}


def expected_for(folder, texts):
    per_file, total = {}, None
    categories, pids, fh, hosts = {}, set(), set(), set()
    first = last = None
    for name, text in sorted(texts.items()):
        counts, info = count_text(text)
        per_file[name] = counts
        total = dict(counts) if total is None else {key: total[key] + counts[key] for key in counts}
        for key, value in info["categories"].items():
            categories[key] = categories.get(key, 0) + value
        pids |= info["pids"]
        fh |= info["fh"]
        hosts |= info["hosts"]
        if info["first"] is not None:
            first = info["first"] if first is None else min(first, info["first"])
            last = info["last"] if last is None else max(last, info["last"])
    expected = {"total": total, "per_file": per_file, "categories": categories, "processes": len(pids),
                "files_named": len(fh), "hosts": sorted(hosts), "first_ts": first, "last_end_ts": last}
    write(os.path.join(ROOT, folder, "expected.json"), json.dumps(expected, indent=1, sort_keys=True) + "\n")


def main():
    rng = random.Random(20261129)
    sample, sample_lines = make_sample(rng)
    for name, data in sample.items():
        write(os.path.join(ROOT, "sample", name), data)
    expected_for("sample", {name: "\n".join(lines) for name, lines in sample_lines.items()})

    generations = {}
    text = legacy_2023()
    write(os.path.join(ROOT, "generations", "legacy-2023.pfw"), text)
    generations["legacy-2023.pfw"] = text
    text = v1_hashes()
    write(os.path.join(ROOT, "generations", "v1-hashes.pfw"), text)
    generations["v1-hashes.pfw"] = text
    write(os.path.join(ROOT, "generations", "v1-hashes-single-member.pfw.gz"),
          gzip.compress(text.encode(), compresslevel=6, mtime=0))
    generations["v1-hashes-single-member.pfw.gz"] = text
    lines = hex_2025()
    write(os.path.join(ROOT, "generations", "hex-2025.pfw.gz"), gzip_members(lines, 8))
    generations["hex-2025.pfw.gz"] = "\n".join(lines)
    lines = ndjson_2_2()
    write(os.path.join(ROOT, "generations", "ndjson-2.2.pfw.gz"), gzip_members(lines, 6))
    generations["ndjson-2.2.pfw.gz"] = "\n".join(lines)
    write(os.path.join(ROOT, "generations", "ndjson-2.2.pfw"), "\n".join(lines) + "\n")
    generations["ndjson-2.2.pfw"] = "\n".join(lines)
    expected_for("generations", generations)

    write(os.path.join(ROOT, "overlap", "trace-overlap.pfw"), "\n".join(overlap_trace()) + "\n")

    # Bad input. Their expected counts are asserted in the tests, next to the reasons.
    good = ndjson_2_2()
    write(os.path.join(ROOT, "bad", "garbage-line.pfw"),
          "\n".join(good[:10] + ["this is not json", good[10][: len(good[10]) // 2]] + good[10:]) + "\n")
    write(os.path.join(ROOT, "bad", "invalid-utf8.pfw"),
          "\n".join(good[:5]).encode() + b"\n" + good[5].encode().replace(b"POSIX", b"PO\xff\xfeIX") + b"\n"
          + "\n".join(good[6:]).encode() + b"\n")
    members = gzip_members(good, 10)
    write(os.path.join(ROOT, "bad", "truncated.pfw.gz"), members[: len(members) - 40])
    write(os.path.join(ROOT, "bad", "empty.pfw"), b"")
    write(os.path.join(ROOT, "bad", "trailing-garbage.pfw.gz"), members + b"not gzip at all")


if __name__ == "__main__":
    main()
