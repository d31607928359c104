"""ioscout: why HPC and deep-learning jobs wait on I/O, and what to change.

The same analysis, findings and advice as the ``ioscout`` command line, over DFTracer traces
(``.pfw``, ``.pfw.gz``) and Darshan logs, as pandas DataFrames and Arrow tables::

    import ioscout
    analysis = ioscout.analyze("traces/")
    analysis.summary                      # the layer breakdown, one row per layer
    ioscout.diagnose("traces/").findings  # what costs the time, with evidence
    ioscout.query("traces/", where='cat == "POSIX"', select=["name", "dur"]).to_pandas()
    ioscout.darshan.DarshanReport("job.darshan").records["POSIX"].to_df()["counters"]

Long calls release the interpreter (other threads run), stop on Ctrl-C with
``KeyboardInterrupt`` and take a progress callback (``progress=True`` draws a tqdm bar when
tqdm is installed). Every error is an ``ioscout.Error``.
"""

from ._native import (
    DarshanError,
    Error,
    QueryError,
    RequestError,
    TraceError,
    TraceIndexError,
    __version__,
)
from ._api import (
    InputWarning,
    ScanBatches,
    advise,
    analyze,
    compare,
    count,
    diagnose,
    explain,
    index,
    info,
    query,
    report,
    rules,
    scan_batches,
)
from ._results import Advice, Analysis, Diagnosis, Finding
from . import darshan

__all__ = [
    "Advice",
    "Analysis",
    "DarshanError",
    "Diagnosis",
    "Error",
    "Finding",
    "InputWarning",
    "QueryError",
    "RequestError",
    "ScanBatches",
    "TraceError",
    "TraceIndexError",
    "__version__",
    "advise",
    "analyze",
    "compare",
    "count",
    "darshan",
    "diagnose",
    "explain",
    "index",
    "info",
    "query",
    "report",
    "rules",
    "scan_batches",
]
