"""Times reading Darshan logs into DataFrames: `ioscout.darshan.DarshanReport(log)` or
PyDarshan's `darshan.DarshanReport(log)`, then `records[m].to_df()` for every module, over the
logs given. Prints one JSON line: tool, logs, frames built, seconds (excluding the import) and
peak RSS in MB (the process's, import included).

    python python_darshan.py ioscout|pydarshan LOG...
"""

import json
import resource
import sys
import time

tool, logs = sys.argv[1], sys.argv[2:]
if tool == "ioscout":
    import ioscout.darshan as module

    def open_log(path):
        return module.DarshanReport(path)

else:
    import darshan as module

    def open_log(path):
        return module.DarshanReport(path, read_all=True)


UNDECODED = {"APMPI", "APXC", "BG/Q", "MDHIM"}
started = time.perf_counter()
frames = 0
for path in logs:
    report = open_log(path)
    for name in list(report.records):
        if name in UNDECODED:
            continue
        result = report.records[name].to_df()
        frames += len(result) if isinstance(result, (dict, list)) else 1
elapsed = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"tool": tool, "logs": len(logs), "frames": frames, "seconds": round(elapsed, 3), "peak_mb": round(peak, 1)}))
