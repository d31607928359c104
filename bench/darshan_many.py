"""The PyDarshan side of `ioscout darshan summary --group-by exe` over many logs: each log read
with PyDarshan 3.5 (`DarshanReport(log, read_all=True)`), its POSIX and STDIO counters summed
(bytes read and written; read, write and metadata time), grouped by the program (the file name
of the command line's first word), and the top 10 jobs by I/O time. Prints one JSON line:
logs, logs read, groups, seconds (excluding the import), peak RSS in MB.

    python darshan_many.py LOG...
"""

import json
import resource
import sys
import time

import darshan

logs = sys.argv[1:]
started = time.perf_counter()
groups, jobs, read = {}, [], 0
for path in logs:
    try:
        report = darshan.DarshanReport(path, read_all=True)
    except Exception:  # a log PyDarshan cannot read is left out, as ioscout counts it
        continue
    read += 1
    totals = [0, 0, 0.0, 0.0, 0.0]
    for module in ("POSIX", "STDIO"):
        if module not in report.records:
            continue
        frames = report.records[module].to_df()
        counters, fcounters = frames["counters"], frames["fcounters"]
        totals[0] += int(counters[f"{module}_BYTES_READ"].clip(lower=0).sum())
        totals[1] += int(counters[f"{module}_BYTES_WRITTEN"].clip(lower=0).sum())
        for index, name in ((2, "F_READ_TIME"), (3, "F_WRITE_TIME"), (4, "F_META_TIME")):
            totals[index] += float(fcounters[f"{module}_{name}"].clip(lower=0).sum())
    exe = report.metadata["exe"].split()
    program = exe[0].rsplit("/", 1)[-1] if exe else ""
    group = groups.setdefault(program, [0, 0, 0, 0.0, 0.0, 0.0])
    group[0] += 1
    for index in range(5):
        group[index + 1] += totals[index]
    jobs.append((sum(totals[2:]), path))
jobs.sort(reverse=True)
top = jobs[:10]
elapsed = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"tool": "pydarshan", "logs": len(logs), "logs_read": read, "groups": len(groups), "seconds": round(elapsed, 3), "peak_mb": round(peak, 1)}))
