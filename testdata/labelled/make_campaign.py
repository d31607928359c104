#!/usr/bin/env python3
"""Configuration-labelled DFTracer campaign for the eight IOSage bottleneck labels.

usage: python3 make_campaign.py OUT_DIR [--runs N] [--seed S] [--only SCENARIO[,...]]
                                [--imports-only] [--scratch DIR] [--peers DIR] [--list]

Compiles iobench.c (next to this script) with mpicc into a scratch directory, draws the run
configurations from a fixed seed (the same seed always gives the same plan), and runs each
configuration under mpirun with DFTracer 2.2's LD_PRELOAD library. Every run gets its own folder
OUT_DIR/run-NNNN/ holding one trace-<hash>-preload.pfw.gz per process. OUT_DIR/labels.json maps
each run to its labels, scenario, rank count, parameters and exact command.

The labels come from the configuration (the scenario) only, never from the traces.

  --runs N         run only the first N runs of the plan (after --only), by run number
  --seed S         seed of the plan (default 20261201)
  --only SCENARIO  run only this scenario, or a comma-separated list of them (see --list)
  --imports-only   run only the *_imports scenarios (the runs after the first 348)
  --scratch DIR    where iobench is built and the data files live
                   (default: OUT_DIR/../scratch)
  --peers DIR      DFTracer venv parent (default: ~/.cache/ioscout-peers)
  --list           print the plan (run, scenario, labels, command) and exit

The campaign is resumable: a run whose folder exists and whose entry is already in labels.json
(with the same configuration: scenario, ranks and parameters; the paths in the command may differ,
so a finished campaign folder can be moved) is skipped. A folder without an entry (an interrupted
run) is cleared and run again.

The *_imports scenarios (IMPORT_SCENARIOS) come after the original plan, from their own seeded
generator, so the first 348 runs are the same with or without them. Before each of their runs the
script writes 50-400 small files (0.5-32 KiB) into a scratch folder, untraced; every rank reads
them all before its main work (iobench --imports); the folder is removed after the run.
Standard library only.
"""
import argparse
import glob
import json
import os
import random
import shlex
import shutil
import subprocess
import sys
import time

KIB = 1024
MIB = 1024 * 1024
SMALL_XFERS = [64, 100, 256, 512, 1000, 1024, 3901, 4096, 8192, 16384, 65536]
LARGE_XFERS = [2 * MIB, 4 * MIB, 8 * MIB]
RANKS = [2, 3, 4, 6, 8]
MAX_RUN_BYTES = 480 * MIB        # data moved per phase per run stays under ~512 MiB
# OMPIO for MPI-IO; its collective component (vulcan) is kept on synchronous pwrite/pread, because
# its automatic asynchronous mode goes through glibc's aio threads, which DFTracer does not see.
MPI_ARGS = ["--oversubscribe", "--allow-run-as-root", "--mca", "btl", "self,vader",
            "--mca", "io", "ompio", "--mca", "fcoll_vulcan_async_io", "2"]
DFT_ENV = {"DFTRACER_ENABLE": "1", "DFTRACER_INIT": "PRELOAD", "DFTRACER_INC_METADATA": "1",
           "DFTRACER_DATA_DIR": "all", "DFTRACER_TRACE_COMPRESSION": "1"}
RUN_TIMEOUT = 180


def size_arg(n):
    """iobench size argument: k/m suffix when exact, bytes otherwise."""
    if n % MIB == 0:
        return "%dm" % (n // MIB)
    if n % KIB == 0:
        return "%dk" % (n // KIB)
    return str(n)


# ------------------------------------------------------------------ scenarios
#
# Each generator draws one configuration from rng and returns the iobench parameters (a dict; the
# keys are iobench options without the leading dashes) plus the rank count. A generator may
# return None to ask for a new draw (constraint not met). SCENARIOS gives, per scenario, the
# labels, the number of runs and the generator.

def g_small_fpp(rng, segmented=False):
    np_ = rng.choice(RANKS)
    xfer = rng.choice(SMALL_XFERS)
    count = rng.randrange(1000, 8001, 100)
    if count * xfer * np_ > MAX_RUN_BYTES or count * xfer > 64 * MIB:
        return None
    p = dict(mode="fpp", xfer=xfer, count=count, worder="seq", rorder="seq",
             phases=rng.choice(["w", "wr", "r"]), call=rng.choice(["pwrite", "write"]),
             fsync_end=rng.choice([0, 1]))
    if segmented:
        p["segments"] = rng.choice([2, 4, 5, 8])
        # a hole between segments makes the offsets strided but still increasing
        p["gap"] = rng.choice([0, 0, xfer, 4 * KIB, 64 * KIB, MIB])
    return np_, p


def g_small_random(rng):
    np_ = rng.choice(RANKS)
    xfer = rng.choice([x for x in SMALL_XFERS if x <= 16384])
    count = rng.randrange(1000, 4001, 100)
    phases = rng.choice(["w", "wr", "wr", "r"])
    worder = "seq" if phases == "r" else rng.choice(["shuffle", "shuffle", "backward"])
    rorder = rng.choice(["shuffle", "shuffle", "backward"])
    return np_, dict(mode="fpp", xfer=xfer, count=count, worder=worder, rorder=rorder,
                     phases=phases, call=rng.choice(["pwrite", "write"]))


def g_tiny_files(rng):
    np_ = rng.choice(RANKS)
    fsize = rng.choice([1024, 1000, 2048, 3000, 3901, 4096])
    nfiles = rng.randrange(100, 301, 10)
    if nfiles * np_ > 2000:
        return None
    xfer = rng.choice([fsize, fsize, (fsize + 1) // 2, 512])   # pieces stay >= 64 B
    return np_, dict(mode="tiny", nfiles=nfiles, fsize=fsize, xfer=xfer,
                     phases=rng.choice(["wr", "wr", "w"]), dirs=rng.choice(["shared", "rank"]),
                     call=rng.choice(["pwrite", "write"]))


def g_small_sync(rng):
    np_ = rng.choice(RANKS)
    xfer = rng.choice([x for x in SMALL_XFERS if x <= 16384])
    count = rng.randrange(1000, 2001, 100)
    if count * np_ > 6000:               # a sync per write is slow: keep the run short
        return None
    return np_, dict(mode="fpp", xfer=xfer, count=count, worder="seq", rorder="seq",
                     phases=rng.choice(["w", "wr"]), sync=rng.choice(["fsync", "fdatasync"]),
                     call=rng.choice(["pwrite", "write"]))


def g_large_random(rng):
    np_ = rng.choice(RANKS)
    xfer = rng.choice(LARGE_XFERS)
    count = rng.randrange(8, 33)
    if count * xfer > 64 * MIB or count * xfer * np_ > MAX_RUN_BYTES:
        return None
    phases = rng.choice(["w", "wr"])
    worder = rng.choice(["shuffle", "shuffle", "backward"])
    return np_, dict(mode="fpp", xfer=xfer, count=count, worder=worder,
                     rorder=rng.choice(["shuffle", "backward", worder]), phases=phases,
                     call=rng.choice(["pwrite", "write"]))


def g_shuffled_read(rng):
    np_ = rng.choice(RANKS)
    xfer = rng.choice([4 * MIB, 8 * MIB])
    rxfer = rng.choice([2 * MIB, 4 * MIB])
    count = rng.randrange(4, 17)
    if count * xfer > 64 * MIB or count * xfer * np_ > MAX_RUN_BYTES:
        return None
    return np_, dict(mode="fpp", xfer=xfer, rxfer=rxfer, count=count, worder="seq",
                     rorder=rng.choice(["shuffle", "shuffle", "backward"]),
                     phases=rng.choice(["wr", "r"]), call=rng.choice(["pwrite", "write"]))


def g_meta_empty(rng):
    np_ = rng.choice(RANKS)
    nfiles = rng.choice([250, 400, 500, 750, 1000, 1500, 2000, 3000, 4000, 5000])
    if nfiles * np_ > 10000:
        return None
    phases = rng.choice(["w", "w", "wr"])
    p = dict(mode="meta", nfiles=nfiles, dirs=rng.choice(["shared", "rank"]), phases=phases)
    if phases == "wr":
        p["passes"] = rng.choice([1, 2])
        if nfiles * np_ * p["passes"] > 8000:
            return None
    return np_, p


def g_meta_storm(rng):
    np_ = rng.choice(RANKS)
    nfiles = rng.choice([250, 300, 500, 750, 1000, 1500])
    passes = rng.randrange(2, 9)
    if nfiles * np_ * passes > 24000:
        return None
    return np_, dict(mode="meta", nfiles=nfiles, dirs=rng.choice(["shared", "rank"]),
                     phases="r", passes=passes)


def g_skew(rng, skew):
    np_ = rng.choice(RANKS)
    xfer = rng.choice([2 * MIB, 4 * MIB])
    p = dict(mode="fpp", xfer=xfer, skew=skew, worder="seq", rorder="seq",
             phases=rng.choice(["w", "wr"]), call=rng.choice(["pwrite", "write"]),
             fsync_end=rng.choice([0, 1]), heavy=0)
    if skew == "heavy":            # rank 0 moves 2-20x what every other rank moves
        p["count"] = rng.randrange(2, 5) * (4 * MIB // xfer if xfer < 4 * MIB else 1)
        p["factor"] = rng.choice([2, 3, 4, 5, 8, 10, 12, 16, 20])
        total = p["count"] * xfer * (np_ - 1 + p["factor"])
    elif skew == "only":           # only rank 0 does I/O
        p["count"] = rng.randrange(32, 129, 8) * MIB // xfer
        total = p["count"] * xfer
    elif skew == "linear":         # rank r moves (r + 1) x base
        p["count"] = rng.randrange(1, 4) * (4 * MIB // xfer if xfer < 4 * MIB else 1)
        total = p["count"] * xfer * np_ * (np_ + 1) // 2
    else:                          # readheavy: balanced writes, one rank reads factor x more
        p["factor"] = rng.choice([8, 10, 10, 12])
        p["count"] = p["factor"] * rng.randrange(1, 4)
        p["phases"] = "wr"
        p["heavy"] = rng.randrange(np_)
        total = p["count"] * xfer * np_
    if total > MAX_RUN_BYTES or (skew == "heavy" and p["count"] * xfer * p["factor"] > 256 * MIB):
        return None
    return np_, p


def g_shared(rng, io):
    np_ = rng.choice(RANKS)
    xfer = rng.choice(LARGE_XFERS)
    segments = rng.choice([4, 6, 8, 12, 16])
    if np_ * segments * xfer > MAX_RUN_BYTES:
        return None
    p = dict(mode="shared", io=io, xfer=xfer, segments=segments,
             layout=rng.choice(["interleaved", "interleaved", "contiguous"]),
             phases=rng.choice(["w", "wr", "wr", "r"]), fsync_end=rng.choice([0, 1]))
    if io == "posix":
        p["call"] = rng.choice(["pwrite", "write"])
    return np_, p


def g_multi(rng):
    np_ = rng.choice(RANKS)
    per_rank = rng.randrange(16, 65)
    total = per_rank * np_
    fsize = rng.choice([2 * MIB, 4 * MIB, 6 * MIB, 8 * MIB])
    if not 100 <= total <= 300 or total * fsize > MAX_RUN_BYTES:
        return None
    return np_, dict(mode="multi", nfiles=per_rank, fsize=fsize,
                     xfer=rng.choice([2 * MIB, fsize]), phases=rng.choice(["w", "wr", "wr", "r"]),
                     dirs=rng.choice(["shared", "rank"]), call=rng.choice(["pwrite", "write"]))


def g_large_sync(rng):
    np_ = rng.choice(RANKS)
    xfer = rng.choice(LARGE_XFERS)
    count = rng.randrange(4, 17)
    if count * np_ > 64 or count * xfer * np_ > 256 * MIB:
        return None
    return np_, dict(mode="fpp", xfer=xfer, count=count, worder="seq", rorder="seq",
                     phases=rng.choice(["w", "wr"]), sync=rng.choice(["fsync", "fdatasync"]),
                     call=rng.choice(["pwrite", "write"]))


def g_large_seq(rng, readonly=False):
    np_ = rng.choice(RANKS)
    xfer = rng.choice(LARGE_XFERS)
    per_rank = rng.choice([16, 24, 32, 48, 64, 96, 128]) * MIB
    if per_rank < xfer or per_rank * np_ > MAX_RUN_BYTES:
        return None
    return np_, dict(mode="fpp", xfer=xfer, count=per_rank // xfer, worder="seq", rorder="seq",
                     phases="r" if readonly else rng.choice(["w", "wr", "wr"]),
                     call=rng.choice(["pwrite", "write"]), fsync_end=rng.choice([0, 0, 1]))


AG, AP, MI, PE = "access_granularity", "access_pattern", "metadata_intensity", "parallelism_efficiency"
IC, FS, TU, OK = "interface_choice", "file_strategy", "throughput_utilization", "healthy"

# name: (labels, runs, generator)
SCENARIOS = {
    "small_fpp": ([AG], 24, g_small_fpp),
    "small_fpp_segments": ([AG], 12, lambda r: g_small_fpp(r, segmented=True)),
    "small_random_fpp": ([AG, AP], 16, g_small_random),
    "many_tiny_files": ([AG, MI], 14, g_tiny_files),
    "small_sync_per_write": ([AG, TU], 14, g_small_sync),
    "large_random_fpp": ([AP], 20, g_large_random),
    "shuffled_read": ([AP], 12, g_shuffled_read),
    "meta_empty_files": ([MI], 26, g_meta_empty),
    "meta_stat_open_storm": ([MI], 12, g_meta_storm),
    "rank0_heavy": ([PE], 16, lambda r: g_skew(r, "heavy")),
    "rank0_only": ([PE], 9, lambda r: g_skew(r, "only")),
    "linear_skew": ([PE], 9, lambda r: g_skew(r, "linear")),
    "one_rank_reads_more": ([PE], 8, lambda r: g_skew(r, "readheavy")),
    "shared_posix": ([IC], 20, lambda r: g_shared(r, "posix")),
    "shared_mpiio_independent": ([IC], 20, lambda r: g_shared(r, "indep")),
    "many_data_files": ([FS], 40, g_multi),
    "large_sync_per_write": ([TU], 26, g_large_sync),
    "large_seq_fpp": ([OK], 26, g_large_seq),
    "large_seq_fpp_readonly": ([OK], 8, lambda r: g_large_seq(r, readonly=True)),
    "shared_mpiio_collective": ([OK], 16, lambda r: g_shared(r, "coll")),
}

# Start-up reads: the same main work as a base scenario, plus 50-400 small files (0.5-32 KiB each,
# log-uniform, drawn per file) that every rank reads before its main work, the way an interpreter
# imports its modules. They are many requests but few bytes and little time, so the label is the
# base scenario's: they must not turn a run into access_granularity.
IMPORT_FILES = (50, 400)
IMPORT_SIZES = (512, 32 * KIB)
IMPORT_PIECE_SHARE = 0.2          # share of the files read in 4 KiB pieces (".cfg"), not whole
# All ranks' start-up bytes stay at most this share of the main phase's bytes (runs with bulk data;
# the import count is redrawn until it fits). In the traces an import file costs ~6 us per rank,
# ~5x a page-cached bulk read per byte, so this keeps the start-up reads' share of the I/O time
# small. Metadata-only runs have no bulk bytes; there an empty file costs ~1-8 ms (create, close,
# unlink) against ~6 us per import file, so they need no cap.
IMPORT_MAX_BYTE_SHARE = 0.02


def main_bytes(nprocs, p):
    """Bytes moved by the traced main phase (all ranks); 0 for metadata-only runs."""
    phases = ("w" in p["phases"]) + ("r" in p["phases"])
    if p["mode"] == "fpp":
        skew, c = p.get("skew", "none"), p["count"]
        heavy = p.get("heavy", 0) if p.get("heavy", 0) < nprocs else 0
        per_rank = [int(c * p["factor"]) if skew == "heavy" and r == heavy
                    else 0 if skew == "only" and r != heavy
                    else c * (r + 1) if skew == "linear" else c for r in range(nprocs)]
        return sum(per_rank) * p["xfer"] * phases
    if p["mode"] == "shared":
        return nprocs * p["segments"] * p["xfer"] * phases
    if p["mode"] in ("multi", "tiny"):
        return nprocs * p["nfiles"] * p["fsize"] * phases
    return 0


def with_imports(base):
    """Generator: base scenario's draw plus the start-up files (count and seed of their sizes),
    redrawn until they fit under IMPORT_MAX_BYTE_SHARE (None if 50 draws do not fit)."""
    def gen(rng):
        drawn = base(rng)
        if drawn is None:
            return None
        np_, p = drawn
        bulk = main_bytes(np_, p)
        for _ in range(50):
            n = rng.randrange(IMPORT_FILES[0], IMPORT_FILES[1] + 1)
            seed = rng.randrange(1, 100000)
            imp = np_ * sum(size for _, size in import_files(n, seed))
            if bulk == 0 or imp <= IMPORT_MAX_BYTE_SHARE * bulk:
                p["imports"] = n
                p["_import_seed"] = seed     # not an iobench option: moved out of params
                return np_, p
        return None
    return gen


def import_files(n, seed):
    """[(name, size)] of one run's start-up files, from its import seed. ".py" files are read
    whole by iobench, ".cfg" files in 4 KiB pieces; the names sort in index order."""
    rng = random.Random(seed)
    lo, hi = IMPORT_SIZES
    files = []
    for i in range(n):
        size = min(hi, max(lo, int(round(lo * (hi / lo) ** rng.random()))))
        ext = ".cfg" if rng.random() < IMPORT_PIECE_SHARE else ".py"
        files.append(("m%04d%s" % (i, ext), size))
    return files


# name: (labels, runs, generator); numbered after all of SCENARIOS
IMPORT_SCENARIOS = {
    "large_seq_fpp_imports": ([OK], 14, with_imports(g_large_seq)),
    "shared_mpiio_collective_imports": ([OK], 6, with_imports(lambda r: g_shared(r, "coll"))),
    "large_seq_fpp_readonly_imports": ([OK], 4,
                                       with_imports(lambda r: g_large_seq(r, readonly=True))),
    "rank0_heavy_imports": ([PE], 6, with_imports(lambda r: g_skew(r, "heavy"))),
    "large_sync_per_write_imports": ([TU], 6, with_imports(g_large_sync)),
    "large_random_fpp_imports": ([AP], 6, with_imports(g_large_random)),
    "many_data_files_imports": ([FS], 6, with_imports(g_multi)),
    "shared_posix_imports": ([IC], 6, with_imports(lambda r: g_shared(r, "posix"))),
    "meta_empty_files_imports": ([MI], 4, with_imports(g_meta_empty)),
}
ALL_SCENARIOS = dict(SCENARIOS, **IMPORT_SCENARIOS)


def draw_runs(rng, scenarios, seen):
    """Draw every run of these scenarios from rng (unshuffled)."""
    plan = []
    for name, (labels, runs, gen) in scenarios.items():
        made = 0
        for _ in range(20000):
            if made == runs:
                break
            drawn = gen(rng)
            if drawn is None:
                continue
            nprocs, params = drawn
            extra = {k[1:]: params.pop(k) for k in list(params) if k.startswith("_")}
            if params["phases"] == "r" and "fsync_end" in params:
                params["fsync_end"] = 0      # no write phase is traced, so no final fsync
            key = json.dumps([name, nprocs, params], sort_keys=True)
            if key in seen:          # no two runs share a configuration
                continue
            seen.add(key)
            params["seed"] = rng.randrange(1, 100000)
            plan.append(dict(scenario=name, labels=sorted(labels), nprocs=nprocs, params=params,
                             **extra))
            made += 1
        if made < runs:
            sys.exit("scenario %s: only %d of %d distinct configurations" % (name, made, runs))
    return plan


def make_plan(seed):
    """All run configurations, numbered in a shuffled order (deterministic for a seed). The
    original scenarios come first (run-0001..run-0348 for any seed); the import scenarios follow,
    drawn and shuffled by their own generator, so adding them changed none of the first runs."""
    rng = random.Random(seed)
    seen = set()
    plan = draw_runs(rng, SCENARIOS, seen)
    rng.shuffle(plan)
    rng_imp = random.Random("imports/%d" % seed)
    extra = draw_runs(rng_imp, IMPORT_SCENARIOS, seen)
    rng_imp.shuffle(extra)
    plan += extra
    for i, run in enumerate(plan, 1):
        run["run"] = "run-%04d" % i
    return plan


def recorded_params(run):
    """Parameters as labels.json records them (without the measured wall time)."""
    p = dict(run["params"], mpi_io_component="ompio")
    if run.get("import_seed"):
        files = import_files(p["imports"], run["import_seed"])
        sizes = [size for _, size in files]
        bulk = main_bytes(run["nprocs"], run["params"])
        p.update(import_seed=run["import_seed"], import_bytes_total=sum(sizes),
                 import_bytes_min=min(sizes), import_bytes_max=max(sizes),
                 import_files_in_pieces=sum(1 for name, _ in files if not name.endswith(".py")),
                 import_byte_share=round(run["nprocs"] * sum(sizes)
                                         / (run["nprocs"] * sum(sizes) + bulk), 4))
    return p


def already_done(entry, run, cmd):
    """True when a labels.json entry records this run's configuration."""
    if entry.get("command") == shlex.join(cmd):
        return True
    p = {k: v for k, v in entry.get("params", {}).items() if k != "wall_seconds"}
    return (entry.get("scenario") == run["scenario"] and entry.get("nprocs") == run["nprocs"]
            and entry.get("labels") == run["labels"] and p == recorded_params(run))


# ------------------------------------------------------------------ running

def iobench_args(binary, data_dir, params, **override):
    p = dict(params, **override)
    args = [binary, "--dir", data_dir]
    for k, v in p.items():
        if k in ("xfer", "rxfer", "fsize", "gap"):
            v = size_arg(v)
        args += ["--" + k.replace("_", "-"), str(v)]
    return args


def commands(run, binary, preload, out_dir, scratch):
    """(prewrite command or None, traced command) of one run."""
    data_dir = os.path.join(scratch, "data", run["run"])
    trace = os.path.join(out_dir, run["run"], "trace")
    np_ = ["-np", str(run["nprocs"])]
    env = ["-x", "LD_PRELOAD=" + preload]
    for k, v in DFT_ENV.items():
        env += ["-x", "%s=%s" % (k, v)]
    env += ["-x", "DFTRACER_LOG_FILE=" + trace]
    args = iobench_args(binary, data_dir, run["params"])
    if run["params"].get("imports"):
        args += ["--import-dir", import_dir(run, scratch)]
    traced = ["mpirun"] + MPI_ARGS + env + np_ + args
    prewrite = None
    if run["params"]["phases"] == "r":
        # read-only run: the same configuration writes the files first, without the tracer
        pre = dict(run["params"], phases="w", keep=1, worder="seq", sync="none", fsync_end=0)
        pre.pop("imports", None)         # the start-up reads belong to the traced run only
        if pre["mode"] == "fpp":
            pre.pop("rxfer", None)
        if pre["mode"] == "meta":
            pre.pop("passes", None)
        prewrite = ["mpirun"] + MPI_ARGS + np_ + iobench_args(binary, data_dir, pre)
    return prewrite, traced, data_dir


def import_dir(run, scratch):
    return os.path.join(scratch, "imports", run["run"])


def write_imports(run, scratch):
    """Create the run's start-up files (plain Python writes, not traced)."""
    d = import_dir(run, scratch)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for i, (name, size) in enumerate(import_files(run["params"]["imports"], run["import_seed"])):
        line = b"# %s: start-up file %d of %s\n" % (name.encode(), i, run["run"].encode())
        body = (line + b"x = %d\n" % i) * (size // len(line) + 1)
        with open(os.path.join(d, name), "wb") as f:
            f.write(body[:size])


def run_once(cmd, log):
    t0 = time.time()
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=RUN_TIMEOUT)
        rc, out = r.returncode, r.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        rc, out = -9, (e.stdout or b"").decode(errors="replace") + "\nTIMEOUT"
    log.write("$ %s\n%s\n" % (shlex.join(cmd), out))
    return rc, time.time() - t0, out


def find_preload(peers):
    hits = sorted(glob.glob(os.path.join(peers, "tools/lib/python3*/site-packages/dftracer/lib64/"
                                         "libdftracer_preload.so")))
    if not hits:
        sys.exit("no libdftracer_preload.so under %s/tools" % peers)
    return hits[0]


def save_labels(path, labels):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(dict(sorted(labels.items())), f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(
        usage="%(prog)s OUT_DIR [--runs N] [--seed S] [--only SCENARIO[,...]] [--imports-only] "
              "[--scratch DIR] [--peers DIR] [--list]")
    ap.add_argument("out_dir")
    ap.add_argument("--runs", type=int)
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--only")
    ap.add_argument("--imports-only", action="store_true")
    ap.add_argument("--scratch")
    ap.add_argument("--peers", default=os.path.expanduser("~/.cache/ioscout-peers"))
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()

    out_dir = os.path.abspath(a.out_dir)
    scratch = os.path.abspath(a.scratch or os.path.join(out_dir, "..", "scratch"))
    plan = make_plan(a.seed)
    if a.only:
        only = a.only.split(",")
        for name in only:
            if name not in ALL_SCENARIOS:
                sys.exit("unknown scenario %s; one of: %s" % (name, ", ".join(ALL_SCENARIOS)))
        plan = [r for r in plan if r["scenario"] in only]
    if a.imports_only:
        plan = [r for r in plan if r["scenario"] in IMPORT_SCENARIOS]
    if a.runs is not None:
        plan = plan[: a.runs]
    binary = os.path.join(scratch, "bin", "iobench")
    preload = find_preload(a.peers)
    if a.list:
        for run in plan:
            pre, cmd, _ = commands(run, binary, preload, out_dir, scratch)
            print(run["run"], run["scenario"], ",".join(run["labels"]), shlex.join(cmd))
        return

    os.makedirs(out_dir, exist_ok=True)
    os.makedirs(os.path.join(scratch, "bin"), exist_ok=True)
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "iobench.c")
    subprocess.run(["mpicc", "-O2", "-Wall", "-o", binary, src], check=True)

    labels_path = os.path.join(out_dir, "labels.json")
    labels = json.load(open(labels_path)) if os.path.exists(labels_path) else {}
    failures = []
    started = time.time()
    done = 0
    log = open(os.path.join(scratch, "campaign.log"), "a")
    for i, run in enumerate(plan, 1):
        name = run["run"]
        run_dir = os.path.join(out_dir, name)
        prewrite, cmd, data_dir = commands(run, binary, preload, out_dir, scratch)
        if name in labels and os.path.isdir(run_dir) and already_done(labels[name], run, cmd):
            continue                                      # done already (same configuration)
        labels.pop(name, None)
        shutil.rmtree(run_dir, ignore_errors=True)
        os.makedirs(run_dir)
        ok, wall = False, 0.0
        for attempt in range(2):
            shutil.rmtree(data_dir, ignore_errors=True)
            for f in glob.glob(os.path.join(run_dir, "*")):
                os.remove(f)
            os.makedirs(os.path.dirname(data_dir), exist_ok=True)
            if run.get("import_seed"):
                write_imports(run, scratch)
            if prewrite:
                rc, _, out = run_once(prewrite, log)
                if rc != 0:
                    print("  %s prewrite failed (rc %d): %s" % (name, rc, out.strip()[-300:]))
                    continue
            rc, wall, out = run_once(cmd, log)
            if rc == 0:
                ok = True
                break
            print("  %s attempt %d failed (rc %d): %s" % (name, attempt + 1, rc, out.strip()[-300:]))
        shutil.rmtree(data_dir, ignore_errors=True)       # never keep the data files
        if run.get("import_seed"):
            shutil.rmtree(import_dir(run, scratch), ignore_errors=True)
        for f in glob.glob(os.path.join(run_dir, "*.pfw.gz")):
            if os.path.getsize(f) == 0:
                os.remove(f)
        traces = sorted(glob.glob(os.path.join(run_dir, "*.pfw.gz")))
        size = sum(os.path.getsize(f) for f in traces)
        if not ok:
            failures.append(name)
            print("[%d/%d] %s %-26s FAILED" % (i, len(plan), name, run["scenario"]))
            continue
        entry = dict(labels=run["labels"], scenario=run["scenario"], nprocs=run["nprocs"],
                     params=dict(recorded_params(run), wall_seconds=round(wall, 2)),
                     command=shlex.join(cmd), trace_files=len(traces), trace_bytes=size)
        if prewrite:
            entry["uninstrumented_prewrite_command"] = shlex.join(prewrite)
        if run.get("import_seed"):
            entry["uninstrumented_import_setup"] = (
                "%d files (%d bytes) written by make_campaign.py into %s before the run "
                "(import_files(%d, %d)), removed after it"
                % (run["params"]["imports"], entry["params"]["import_bytes_total"],
                   import_dir(run, scratch), run["params"]["imports"], run["import_seed"]))
        labels[name] = entry
        save_labels(labels_path, labels)
        done += 1
        print("[%d/%d] %s %-26s np=%d %5.1fs %d traces %6.0f KB  (%s)"
              % (i, len(plan), name, run["scenario"], run["nprocs"], wall, len(traces),
                 size / 1000, ",".join(run["labels"])), flush=True)
    print("done: %d new runs, %d in labels.json, %d failed %s, %.0f s"
          % (done, len(labels), len(failures), " ".join(failures), time.time() - started))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
