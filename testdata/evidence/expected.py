#!/usr/bin/env python3
"""Darshan-style POSIX counters computed straight from DFTracer traces, as an independent oracle.

    expected.py [FOLDER ...]

With no argument, every folder next to this script that holds a .pfw.gz is processed. For each
folder it reads every .pfw.gz trace, resolves fhash -> path through the "FH" metadata events of the
whole folder (a fork()ed child's trace has no FH events of its own: the hashes it inherited from
its parent were already written by the parent), and writes FOLDER/expected.json:

    {"processes": N,
     "records": [{"path": ..., "pid": P (null for a shared record), "rank": -1 (shared only),
                  "counters": {...}}, ...],   (one per line; a counter left out is 0)
     "metadata_calls": {"<function>": {"calls": n, "time_s": t}, ...}}

Written from Darshan's counter definitions (darshan-posix), standard library only. Definitions:

* record = (pid, path) for data files (paths under system prefixes are skipped);
* POSIX_OPENS: open/open64/openat/openat64/creat/creat64 events;
* POSIX_READS / POSIX_WRITES: read/pread/pread64/readv/preadv... and write/pwrite/pwrite64/
  writev/pwritev... events with ret >= 0; POSIX_BYTES_*: sum of ret;
* file position per record: 0 at open; read/write/readv/writev access it and advance it by ret;
  pread/pwrite/preadv/pwritev access their `offset` and set it to offset + ret; lseek sets it to
  its ret; close leaves it;
* last byte read / written per record: 0 at open and at close; after an access offset + ret - 1;
* SEQ: offset > last byte (strictly); CONSEC: offset == last byte + 1 (checked before updating);
* POSIX_MAX_BYTE_*: max(0, offset + ret - 1 over accesses);
* POSIX_RW_SWITCHES: a read after a write or a write after a read (open/close do not reset it);
* POSIX_SEEKS: lseek/lseek64 with ret >= 0; POSIX_STATS: stat-family events on the path;
* size bins with inclusive upper bounds; POSIX_ACCESS1..4: the four most common non-zero access
  sizes (reads and writes together), by count descending, then size descending;
* shared: a path opened by every process of the folder, when there are several processes; it gets
  one record with pid null and rank -1 (sums of counts, maxima of MAX_BYTE_*, access sizes merged)
  instead of its per-process records, as Darshan's shared-file reduction does;
* metadata_calls: every POSIX/STDIO event that is not a read or a write (any path, or none, e.g.
  fork/waitpid), counted and its `dur` summed, in seconds (the trace's CM time_metric unit).
"""
import gzip
import json
import os
import sys

SYSTEM_PREFIXES = ("/usr/", "/etc/", "/proc/", "/dev/", "/sys/", "/lib/", "/opt/", "/var/",
                   "/bin/", "/sbin/", "/boot/")
OPENS = {"open", "open64", "openat", "openat64", "creat", "creat64"}
READS_AT_POS = {"read", "readv"}
READS_AT_OFFSET = {"pread", "pread64", "preadv", "preadv64", "preadv2"}
WRITES_AT_POS = {"write", "writev"}
WRITES_AT_OFFSET = {"pwrite", "pwrite64", "pwritev", "pwritev64", "pwritev2"}
SEEKS = {"lseek", "lseek64"}
CLOSES = {"close"}
STATS = {"stat", "stat64", "lstat", "lstat64", "fstat", "fstat64", "fstatat", "fstatat64",
         "newfstatat", "statx", "__xstat", "__xstat64", "__lxstat", "__lxstat64", "__fxstat",
         "__fxstat64", "__fxstatat", "__fxstatat64"}
STDIO_DATA = {"fread", "fwrite", "fgets", "fputs", "fgetc", "fputc", "fprintf", "fscanf",
              "getc", "putc"}
DATA_CALLS = READS_AT_POS | READS_AT_OFFSET | WRITES_AT_POS | WRITES_AT_OFFSET | STDIO_DATA
BINS = [("0_100", 100), ("100_1K", 1024), ("1K_10K", 10240), ("10K_100K", 102400),
        ("100K_1M", 1048576), ("1M_4M", 4194304), ("4M_10M", 10485760),
        ("10M_100M", 104857600), ("100M_1G", 1073741824), ("1G_PLUS", None)]
TIME_UNITS = {"US": 1e-6, "NS": 1e-9, "MS": 1e-3, "S": 1.0}
SUM_COUNTERS = ["POSIX_OPENS", "POSIX_READS", "POSIX_WRITES", "POSIX_SEEKS", "POSIX_STATS",
                "POSIX_BYTES_READ", "POSIX_BYTES_WRITTEN", "POSIX_SEQ_READS", "POSIX_SEQ_WRITES",
                "POSIX_CONSEC_READS", "POSIX_CONSEC_WRITES", "POSIX_RW_SWITCHES"] + \
    ["POSIX_SIZE_READ_" + b for b, _ in BINS] + ["POSIX_SIZE_WRITE_" + b for b, _ in BINS]
MAX_COUNTERS = ["POSIX_MAX_BYTE_READ", "POSIX_MAX_BYTE_WRITTEN"]


def events(path):
    with gzip.open(path, "rt") as f:
        for line in f:
            line = line.strip().rstrip(",")
            if not line or line in ("[", "]"):
                continue
            yield json.loads(line)


def size_bin(n):
    for name, bound in BINS:
        if bound is None or n <= bound:
            return name
    raise AssertionError


class Record:
    def __init__(self):
        self.c = {k: 0 for k in SUM_COUNTERS + MAX_COUNTERS}
        self.sizes = {}
        self.pos = 0
        self.last_read = 0
        self.last_write = 0
        self.last_io = None  # "r" or "w"

    def access(self, kind, offset, ret):
        c = self.c
        last = self.last_read if kind == "r" else self.last_write
        word = "READ" if kind == "r" else "WRITE"
        plural = "READS" if kind == "r" else "WRITES"
        c["POSIX_" + plural] += 1
        c["POSIX_BYTES_" + ("READ" if kind == "r" else "WRITTEN")] += ret
        if offset > last:
            c["POSIX_SEQ_" + plural] += 1
        if offset == last + 1:
            c["POSIX_CONSEC_" + plural] += 1
        end = offset + ret - 1
        if kind == "r":
            self.last_read = end
        else:
            self.last_write = end
        key = "POSIX_MAX_BYTE_" + ("READ" if kind == "r" else "WRITTEN")
        c[key] = max(c[key], end)
        c["POSIX_SIZE_%s_%s" % (word, size_bin(ret))] += 1
        if ret > 0:
            self.sizes[ret] = self.sizes.get(ret, 0) + 1
        if self.last_io is not None and self.last_io != kind:
            c["POSIX_RW_SWITCHES"] += 1
        self.last_io = kind

    def counters(self):
        out = dict(self.c)
        top = sorted(self.sizes.items(), key=lambda kv: (-kv[1], -kv[0]))[:4]
        for i in range(4):
            size, count = top[i] if i < len(top) else (0, 0)
            out["POSIX_ACCESS%d_ACCESS" % (i + 1)] = size
            out["POSIX_ACCESS%d_COUNT" % (i + 1)] = count
        return out


def analyse(folder):
    traces = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".pfw.gz"))
    if not traces:
        raise SystemExit("%s: no .pfw.gz trace" % folder)
    fh = {}
    unit = {}  # pid -> seconds per tick
    calls = []  # (pid, ts, id, name, args, dur)
    pids = set()
    for t in traces:
        for e in events(t):
            name, args = e.get("name"), e.get("args") or {}
            if "pid" in e:
                pids.add(e["pid"])
            if e.get("cat") == "dftracer":
                if name == "FH":
                    fh[args["value"]] = args["name"]
                elif name == "CM" and args.get("name") == "time_metric":
                    unit[e["pid"]] = TIME_UNITS[args["value"]]
                continue
            if e.get("cat") in ("POSIX", "STDIO"):
                calls.append((e["pid"], e.get("ts", 0), e.get("id", 0), name, args,
                              e.get("dur", 0), e["cat"]))
    calls.sort(key=lambda c: (c[0], c[1], c[2]))

    metadata = {}
    records = {}  # (pid, path) -> Record
    openers = {}  # path -> set of pids
    unresolved = 0
    for pid, _ts, _id, name, args, dur, cat in calls:
        if name not in DATA_CALLS:
            m = metadata.setdefault(name, {"calls": 0, "time_s": 0.0})
            m["calls"] += 1
            m["time_s"] += dur * unit.get(pid, 1e-6)
        if cat != "POSIX" or "fhash" not in args:
            continue
        path = fh.get(args["fhash"])
        if path is None:
            unresolved += 1
            continue
        if path.startswith(SYSTEM_PREFIXES):
            continue
        ret = args.get("ret")
        if name in OPENS:
            r = records.setdefault((pid, path), Record())
            r.c["POSIX_OPENS"] += 1
            r.pos = r.last_read = r.last_write = 0
            openers.setdefault(path, set()).add(pid)
        elif name in STATS:
            records.setdefault((pid, path), Record()).c["POSIX_STATS"] += 1
        elif name in CLOSES:
            r = records.get((pid, path))
            if r is not None:
                r.last_read = r.last_write = 0
        elif name in SEEKS:
            if ret is not None and ret >= 0:
                r = records.setdefault((pid, path), Record())
                r.c["POSIX_SEEKS"] += 1
                r.pos = ret
        elif name in READS_AT_POS | READS_AT_OFFSET | WRITES_AT_POS | WRITES_AT_OFFSET:
            if ret is None or ret < 0:
                continue
            r = records.setdefault((pid, path), Record())
            kind = "r" if name in READS_AT_POS | READS_AT_OFFSET else "w"
            offset = args["offset"] if name in READS_AT_OFFSET | WRITES_AT_OFFSET else r.pos
            r.access(kind, offset, ret)
            r.pos = offset + ret

    shared = set()
    if len(pids) > 1:
        shared = {p for p, who in openers.items() if who >= pids}
    out = []
    for path in sorted(shared):
        parts = [r for (pid, p), r in records.items() if p == path]
        merged = Record()
        for r in parts:
            for k in SUM_COUNTERS:
                merged.c[k] += r.c[k]
            for k in MAX_COUNTERS:
                merged.c[k] = max(merged.c[k], r.c[k])
            for size, n in r.sizes.items():
                merged.sizes[size] = merged.sizes.get(size, 0) + n
        out.append({"path": path, "pid": None, "rank": -1, "counters": merged.counters()})
    for (pid, path), r in sorted(records.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        if path not in shared:
            out.append({"path": path, "pid": pid, "counters": r.counters()})
    for m in metadata.values():
        m["time_s"] = round(m["time_s"], 6)
    result = {"processes": len(pids), "records": out,
              "metadata_calls": dict(sorted(metadata.items()))}
    if unresolved:
        result["unresolved_fhash_events"] = unresolved
    write_json(os.path.join(folder, "expected.json"), result)
    return result


def write_json(path, result):
    """One record per line, counters that are 0 left out (a counter not listed is 0)."""
    with open(path, "w") as f:
        f.write('{"processes": %d,\n "records": [\n' % result["processes"])
        lines = []
        for r in result["records"]:
            r = dict(r, counters={k: v for k, v in r["counters"].items() if v != 0})
            lines.append("  " + json.dumps(r))
        f.write(",\n".join(lines))
        f.write('\n ],\n "metadata_calls": {\n')
        f.write(",\n".join("  %s: %s" % (json.dumps(k), json.dumps(v))
                            for k, v in result["metadata_calls"].items()))
        f.write("\n }")
        if "unresolved_fhash_events" in result:
            f.write(',\n "unresolved_fhash_events": %d' % result["unresolved_fhash_events"])
        f.write("\n}\n")


def main(argv):
    folders = argv[1:]
    if not folders:
        here = os.path.dirname(os.path.abspath(__file__))
        folders = sorted(os.path.join(here, d) for d in os.listdir(here)
                         if os.path.isdir(os.path.join(here, d))
                         and any(f.endswith(".pfw.gz") for f in os.listdir(os.path.join(here, d))))
    for folder in folders:
        r = analyse(folder)
        print("%s: %d processes, %d records" % (os.path.basename(os.path.normpath(folder)),
                                                 r["processes"], len(r["records"])))


if __name__ == "__main__":
    main(sys.argv)
