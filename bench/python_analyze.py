"""Times the analysis of a trace folder through a Python API: ``ioscout.analyze(folder)`` or
DFAnalyzer 0.0.9's ``init_with_hydra([...]).analyze_trace()`` (one Dask worker: with two it
drops lines; on a fresh copy of the folder, since it writes its index there). Prints one JSON
line: tool, folder, seconds for the analysis (the import, and for DFAnalyzer the Dask cluster's
start-up, excluded and given apart) and peak RSS in MB (the largest of the process and its
children).

    python python_analyze.py ioscout|dfanalyzer FOLDER [PRESET]
"""

import json
import os
import resource
import shutil
import sys
import tempfile
import time


def main() -> None:
    tool, folder = sys.argv[1], sys.argv[2]
    preset = sys.argv[3] if len(sys.argv) > 3 else ("posix" if "cm1" in folder or "posix" in folder else "dlio")
    setup = 0.0
    if tool == "ioscout":
        import ioscout

        started = time.perf_counter()
        analysis = ioscout.analyze(folder, preset=preset)
        events = analysis.raw_stats["total_event_count"]
    else:
        from dftracer.analyzer import init_with_hydra

        scratch = tempfile.mkdtemp()
        copy = os.path.join(scratch, "trace")
        shutil.copytree(folder, copy, ignore=shutil.ignore_patterns(".ioscout", ".dftindex"))
        begun = time.perf_counter()
        instance = init_with_hydra(
            [
                "analyzer=dftracer",
                f"analyzer/preset={preset}",
                f"trace_path={copy}",
                "cluster.n_workers=1",
                f"hydra.run.dir={scratch}/out",
            ]
        )
        setup = time.perf_counter() - begun
        started = time.perf_counter()
        result = instance.analyze_trace()
        events = None
        instance.shutdown()
        shutil.rmtree(scratch, ignore_errors=True)
    elapsed = time.perf_counter() - started
    # The largest of this process and its children (DFAnalyzer's Dask worker, waited for at
    # shutdown).
    peak = max(resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)) / 1024
    print(
        json.dumps(
            {
                "tool": tool,
                "folder": os.path.basename(folder.rstrip("/")),
                "events": events,
                "seconds": round(elapsed, 3),
                "setup_seconds": round(setup, 3),
                "peak_mb": round(peak, 1),
            }
        )
    )


# Dask starts its worker processes by spawning this script again: the work runs only in the
# first process.
if __name__ == "__main__":
    main()
