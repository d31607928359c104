"""Times reading every event of a trace into a pandas DataFrame: ``ioscout.query(trace)`` (a
full scan, all columns, through Arrow) or dftracer-utils' Python reader (``TraceViewer(files).collect().to_pandas()``). Prints one JSON line:
tool, rows, columns, seconds (excluding the import) and peak RSS in MB.

    python python_query.py ioscout|dftracer-utils TRACE_DIR
"""

import glob
import json
import os
import resource
import sys
import time

tool, trace = sys.argv[1], sys.argv[2]
started = time.perf_counter()
if tool == "ioscout":
    import ioscout

    started = time.perf_counter()
    frame = ioscout.query(trace, no_index=True).to_pandas()
else:
    # dftracer-utils 0.0.14 has no TraceReader; its Python reader is TraceViewer, a lazy
    # frame over trace files whose collect() reads every event.
    from dftracer.utils import TraceViewer

    started = time.perf_counter()
    frame = TraceViewer(sorted(glob.glob(os.path.join(trace, "*.pfw.gz")))).collect().to_pandas()
elapsed = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"tool": tool, "rows": len(frame), "columns": len(frame.columns), "seconds": round(elapsed, 3), "peak_mb": round(peak, 1)}))
