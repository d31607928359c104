"""The package's functions: each calls the native module with the service's request (the
names the MCP tools take) and wraps what comes back.

Every function that reads traces takes ``strict`` (bad input is an error instead of counted
and skipped), ``threads`` (0: all cores) and ``progress`` (``None``; ``True`` for a tqdm bar;
or a callable ``progress(done_bytes, total_bytes)``).
"""

from __future__ import annotations

import json
import os
import warnings
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence, Union

import pyarrow as pa

from . import _native
from ._results import Advice, Analysis, Diagnosis

PathsLike = Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]]]
Progress = Union[None, bool, Callable[[int, int], Any]]


class InputWarning(UserWarning):
    """Input that was counted and skipped (a bad line, an unreadable file); ``strict=True``
    makes it an error."""


def _paths(paths: PathsLike) -> list[str]:
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    return [os.fspath(path) for path in paths]


class _Bar:
    """A tqdm bar over stored bytes, made on the first call."""

    def __init__(self) -> None:
        self.bar = None

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, unit="B", unit_scale=True, desc="ioscout")
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _progress(progress: Progress):
    if progress is True:
        try:
            import tqdm  # noqa: F401
        except ImportError:
            warnings.warn("progress=True needs tqdm (pip install tqdm); no bar is drawn", stacklevel=3)
            return None
        return _Bar()
    if progress is False or progress is None:
        return None
    if not callable(progress):
        raise _native.RequestError("progress must be None, True or a callable (done, total)")
    return progress


def _call(function, *arguments, progress: Progress = None, **keywords):
    callback = _progress(progress)
    try:
        return function(*arguments, progress=callback, **keywords)
    finally:
        if isinstance(callback, _Bar):
            callback.close()


def _warn(messages: Iterable[str]) -> None:
    messages = list(messages)
    if messages:
        shown = "\n  ".join(messages[:10])
        more = f"\n  ... and {len(messages) - 10} more" if len(messages) > 10 else ""
        warnings.warn(f"ioscout: {shown}{more}", InputWarning, stacklevel=3)


def _request(**fields: Any) -> str:
    return json.dumps({name: value for name, value in fields.items() if value is not None})


def _listed(value: Union[None, str, Sequence[str]]) -> Optional[str]:
    if value is None or isinstance(value, str):
        return value
    return ",".join(value)


def count(paths: PathsLike, *, strict: bool = False, threads: int = 0, progress: Progress = None) -> dict:
    """Events by phase and what could not be read: ``ioscout count --json`` as a dict."""
    text, messages = _call(_native.count, _paths(paths), strict, threads, progress=progress)
    _warn(messages)
    return json.loads(text)


def info(paths: PathsLike, *, strict: bool = False, threads: int = 0, progress: Progress = None) -> dict:
    """Each trace file's format, compression, events, time span and processes (or a Darshan
    log's summary): ``ioscout info --json`` as a dict."""
    text, messages = _call(_native.info, _paths(paths), strict, threads, progress=progress)
    _warn(messages)
    return json.loads(text)


def analyze(
    paths: PathsLike,
    preset: str = "auto",
    views: Optional[Sequence[str]] = None,
    overlap: Optional[str] = None,
    time_granularity: float = 1.0,
    *,
    dfanalyzer_compat: bool = False,
    strict: bool = False,
    threads: int = 0,
    progress: Progress = None,
) -> Analysis:
    """DFAnalyzer's layer breakdown of a run, with exact overlap.

    ``preset``: auto, posix, dlio, dlio-prev, generic. ``views``: time_range (the default),
    proc_name, file_name, host_name, file_dir, file_pattern, epoch, step; the first gives the
    summary. ``overlap``: exact (the default) or binned (the default under
    ``dfanalyzer_compat``). ``time_granularity``: the width of time bins in seconds.
    """
    request = _request(
        preset=preset,
        views=list(views) if views is not None else None,
        overlap=overlap,
        time_granularity=time_granularity,
        dfanalyzer_compat=dfanalyzer_compat,
    )
    text, messages, tables = _call(_native.analyze, _paths(paths), request, strict, threads, progress=progress)
    _warn(messages)
    return Analysis(text, {name: pa.record_batch(batch) for name, batch in tables}, messages)


def diagnose(
    paths: PathsLike,
    *,
    preset: str = "auto",
    rules: Union[None, str, Sequence[str]] = None,
    min_severity: Optional[str] = None,
    fail_on: Optional[str] = None,
    bandwidth_ceiling: Optional[float] = None,
    window_bins: Optional[int] = None,
    drishti_config: Optional[str] = None,
    detector: Optional[str] = None,
    model: Optional[str] = None,
    strict: bool = False,
    threads: int = 0,
    progress: Progress = None,
) -> Diagnosis:
    """Findings on traces or Darshan logs: what costs the time, scored, with the evidence.

    ``rules``: families (wisio, dfanalyzer, drishti, iosage, pipeline, detector; all by
    default). ``min_severity``: none, low (default), medium, high, critical. ``detector``:
    model, rules or both (default both).
    """
    request = _request(
        preset=preset,
        rules=[rules] if isinstance(rules, str) else (list(rules) if rules is not None else None),
        min_severity=min_severity,
        fail_on=fail_on,
        bandwidth_ceiling=bandwidth_ceiling,
        window_bins=window_bins,
        drishti_config=os.fspath(drishti_config) if drishti_config is not None else None,
        detector=detector,
        model=os.fspath(model) if model is not None else None,
    )
    text, messages = _call(_native.diagnose, _paths(paths), request, strict, threads, progress=progress)
    _warn(messages)
    return Diagnosis(text, messages)


def advise(
    paths: PathsLike,
    *,
    preset: str = "auto",
    fs_type: Optional[str] = None,
    run_dir: Optional[str] = None,
    system: Optional[str] = None,
    workload: Optional[str] = None,
    detector: Optional[str] = None,
    model: Optional[str] = None,
    strict: bool = False,
    threads: int = 0,
    progress: Progress = None,
) -> Advice:
    """The 12-dimension checklist and the ranked, cited proposals for one run."""
    request = _request(
        preset=preset,
        fs_type=fs_type,
        run_dir=os.fspath(run_dir) if run_dir is not None else None,
        system=system,
        workload=workload,
        detector=detector,
        model=os.fspath(model) if model is not None else None,
    )
    text, messages = _call(_native.advise, _paths(paths), request, strict, threads, progress=progress)
    _warn(messages)
    return Advice(text, messages)


def compare(
    *runs: Union[str, "os.PathLike[str]"],
    labels: Optional[Sequence[str]] = None,
    baseline: Optional[str] = None,
    sort: str = "input",
    sort_layer: Optional[str] = None,
    reverse: bool = False,
    preset: str = "auto",
    html: Union[None, str, "os.PathLike[str]"] = None,
) -> dict:
    """Two or more runs (trace directories or Darshan logs, all of one kind) against a baseline
    (the first run, or the one labelled ``baseline``), layer by layer: time, operations, bytes,
    bandwidth, overlap, the change and the speedup, and the doing-less guard per run. ``sort``
    is ``input``, ``job-time``, ``speedup``, ``time``, ``operations``, ``bytes`` or
    ``bandwidth`` (the last four of ``sort_layer``), best first. ``html`` also writes the page of
    small multiples. ``ioscout compare --json`` as a dict."""
    if labels is not None and len(labels) != len(runs):
        raise _native.RequestError(f"labels gives {len(labels)} labels for {len(runs)} runs")
    specs = [
        {"path": os.fspath(path), **({"label": labels[index]} if labels is not None else {})}
        for index, path in enumerate(runs)
    ]
    request = _request(
        runs=specs, baseline=baseline, sort=sort, sort_layer=sort_layer, reverse=reverse, preset=preset
    )
    text, messages = _native.compare(request, os.fspath(html) if html is not None else None)
    _warn(messages)
    return json.loads(text)


def report(
    paths: PathsLike,
    out_html: Union[str, "os.PathLike[str]"],
    *,
    preset: str = "auto",
    max_processes: int = 32,
    strict: bool = False,
    threads: int = 0,
    progress: Progress = None,
) -> dict:
    """Writes the offline HTML report of a run to ``out_html``; returns what it holds."""
    request = _request(preset=preset, max_processes=max_processes)
    text, messages = _call(
        _native.report, _paths(paths), os.fspath(out_html), request, strict, threads, progress=progress
    )
    _warn(messages)
    return json.loads(text)


def _query_request(where, select, limit, group_by, agg, no_index) -> str:
    return _request(
        where=where,
        select=_listed(select),
        limit=limit,
        group_by=_listed(group_by),
        agg=_listed(agg),
        no_index=no_index or None,
    )


def query(
    paths: PathsLike,
    where: Optional[str] = None,
    select: Union[None, str, Sequence[str]] = None,
    limit: Optional[int] = None,
    group_by: Union[None, str, Sequence[str]] = None,
    agg: Union[None, str, Sequence[str]] = None,
    *,
    no_index: bool = False,
    strict: bool = False,
    threads: int = 0,
    progress: Progress = None,
) -> pa.Table:
    """The matching events as a ``pyarrow.Table`` (through the Arrow C data interface, no row
    becomes a Python object), read only from the chunks the sidecar index cannot rule out.

    ``where``: e.g. ``'cat == "POSIX" and dur > 1000'``. ``select``: columns (name, cat, pid,
    tid, ts, dur, ph, type, host, file, args, args.<key>). With ``group_by`` (name, cat, pid,
    tid, ph, host, file, args.<key>) and ``agg`` (count, sum:dur, mean:dur, min:F, max:F,
    pNN:F) the table holds one row per group. The schema's metadata carries the planning
    notes (``ioscout.notes``) and what was read (``ioscout.scan``).
    """
    request = _query_request(where, select, limit, group_by, agg, no_index)
    stream, groups, notes, messages, scan = _call(
        _native.query, _paths(paths), request, strict, threads, progress=progress
    )
    _warn(messages)
    if stream is not None:
        table = pa.table(stream)
    else:
        groups = json.loads(groups)
        columns, rows = groups["columns"], groups["rows"]
        if rows:
            table = pa.Table.from_pylist(rows).select(columns)
        else:
            table = pa.table({column: pa.array([], type=pa.null()) for column in columns})
    metadata = {b"ioscout.notes": json.dumps(notes).encode(), b"ioscout.scan": scan.encode()}
    return table.replace_schema_metadata(metadata)


class ScanBatches:
    """The matching events as ``pyarrow.RecordBatch``es, yielded while the scan runs (see
    ``scan_batches``). After the loop, ``scan`` says what was read and what could not be (a
    dict) and ``notes`` how the scan was planned; skipped input is warned about as the loop
    ends. ``close()`` (or leaving a ``with`` block) stops the scan and waits for it."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def __iter__(self) -> Iterator[pa.RecordBatch]:
        try:
            for batch in self._stream:
                yield pa.record_batch(batch)
        finally:
            self._stream.close()
        _warn(self._stream.warnings)

    def close(self) -> None:
        self._stream.close()

    def __enter__(self) -> "ScanBatches":
        return self

    def __exit__(self, *exception) -> None:
        self.close()

    @property
    def scan(self) -> Optional[dict]:
        text = self._stream.scan
        return json.loads(text) if text is not None else None

    @property
    def notes(self) -> list:
        return list(self._stream.notes)


def scan_batches(
    paths: PathsLike,
    where: Optional[str] = None,
    select: Union[None, str, Sequence[str]] = None,
    limit: Optional[int] = None,
    *,
    no_index: bool = False,
    strict: bool = False,
    threads: int = 0,
) -> ScanBatches:
    """The matching events as ``pyarrow.RecordBatch``es, yielded while the scan runs, one per
    unit of the trace: memory stays bounded whatever the trace's size (the scan waits while
    two batches are unread). Leaving the loop early stops the scan. Iterate the result; its
    ``scan`` then says what was read."""
    request = _query_request(where, select, limit, None, None, no_index)
    return ScanBatches(_native.scan_batches(_paths(paths), request, strict, threads))


def index(paths: PathsLike, *, force: bool = False, strict: bool = False, threads: int = 0, progress: Progress = None) -> dict:
    """Builds or updates the sidecar index of every trace directory (later queries and
    analyses read only what they need): ``ioscout index --json`` as a dict. A directory whose
    index cannot be built raises ``TraceIndexError``."""
    text, messages = _call(_native.index, _paths(paths), force, strict, threads, progress=progress)
    _warn(messages)
    return json.loads(text)


def rules() -> list:
    """Every diagnosis rule: code, family, severity, the pattern it detects."""
    return json.loads(_native.rules())


def explain(code: str) -> str:
    """A rule's documentation, or a pattern's card, as text."""
    return _native.explain(code)
