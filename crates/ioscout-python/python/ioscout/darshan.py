"""Darshan logs in PyDarshan's shape, read by ioscout's own reader (no darshan-util library).

``DarshanReport(path)`` gives what PyDarshan 3.5 users rely on: ``metadata["job"]`` and
``metadata["exe"]``, ``modules``, ``name_records``, ``mounts``, and ``records[module]`` whose
``to_df()`` returns PyDarshan's frames:

- counter modules (POSIX, MPI-IO, STDIO, H5F, H5D, PNETCDF_FILE, PNETCDF_VAR, DFS, DAOS):
  ``{"counters": DataFrame, "fcounters": DataFrame}``, columns ``rank``, ``id``, then the
  counter names;
- LUSTRE: ``{"components": DataFrame}``, one row per layout component, with
  ``LUSTRE_POOL_NAME`` and ``LUSTRE_OST_IDS``;
- DXT_POSIX, DXT_MPIIO: a list of dicts (``id``, ``rank``, ``hostname``, ``write_count``,
  ``read_count``, ``write_segments``, ``read_segments``), the segments as DataFrames of
  ``offset``, ``length``, ``start_time``, ``end_time``.

Differences from PyDarshan 3.5 (``COMPATIBILITY.md``; the test suite checks each):

- modules ioscout has no decoder for (APMPI, APXC, BG/Q, MDHIM) are listed in ``modules`` but
  have no ``records``; heatmaps are ``heatmaps``, a list of per-rank records with the bins as
  int64 arrays, not PyDarshan's Heatmap objects (the bins summed per rank equal their
  ``to_df(ops=[...])``);
- POSIX records of module version 3 and older: darshan-util's up-conversion loses the last two
  floating-point counters (``POSIX_F_VARIANCE_RANK_TIME`` and ``_BYTES`` read as 0); ioscout
  keeps the stored values;
- such records in a log of the other byte order: darshan-util leaves ``POSIX_F_META_TIME``,
  ``POSIX_F_MAX_READ_TIME`` and ``POSIX_F_MAX_WRITE_TIME`` unswapped (tiny denormal numbers);
  ioscout swaps them;
- a command line Darshan cut short (``<TRUNCATED>``, no mount table after it) is ``""`` in
  PyDarshan and the stored text here;
- a module with no records gives empty frames with the module's columns (PyDarshan raises
  ``KeyError``).
"""

from __future__ import annotations

import json
import os
from typing import Iterator, Union

import numpy as np
import pandas as pd
import pyarrow as pa

from . import _native

_INT64_MAX = 2**63 - 1


def _ids_as_pydarshan(frame: pd.DataFrame) -> pd.DataFrame:
    """PyDarshan's ``id`` column is int64 when every id fits, uint64 otherwise."""
    if "id" in frame and len(frame) and int(frame["id"].max()) <= _INT64_MAX:
        frame["id"] = frame["id"].astype("int64")
    elif "id" in frame and not len(frame):
        frame["id"] = frame["id"].astype("int64")
    return frame


class RecordCollection:
    """The records of one module (PyDarshan's ``DarshanRecordCollection``)."""

    def __init__(self, module: str, kind: str, parts, records: int):
        self.module = module
        self.mod = module
        self._kind = kind
        self._parts = parts
        self._records = records

    def __len__(self) -> int:
        return self._records

    def to_df(self, attach="default"):
        """PyDarshan's frames for this module (see the module documentation)."""
        if attach == "default":
            attach = ["id", "rank"]
        attach = attach or []
        if self._kind == "counters":
            return _counter_frames(self._parts, attach)
        if self._kind == "lustre":
            return {"components": _lustre_frame(self._parts, attach)}
        records, segments = self._parts
        return _dxt_records(records, segments)

    def __repr__(self) -> str:
        return f"<ioscout.darshan.RecordCollection {self.module}: {len(self)} records>"


try:  # pandas 3: frames assembled from their blocks, without pandas' per-column checks
    from pandas.api.internals import create_dataframe_from_blocks as _from_blocks
except ImportError:  # older pandas: the same frames through the public constructor
    _from_blocks = None

_COLUMNS: dict = {}


def _columns(names: tuple) -> pd.Index:
    """One column index per list of names, shared by every frame that has them (an index is
    immutable; building it is most of what a small frame costs)."""
    index = _COLUMNS.get(names)
    if index is None:
        index = _COLUMNS[names] = pd.Index(list(names))
    return index


def _frame(blocks: list, rows: int, names: tuple) -> pd.DataFrame:
    """A frame of ``rows`` rows from ``blocks``: pairs of a 2-D array (one row per column,
    writable, owned by this frame or by a disjoint slice of a buffer no other frame shares)
    and the positions of its columns in ``names``."""
    if _from_blocks is not None:
        return _from_blocks(blocks, index=pd.RangeIndex(rows), columns=_columns(names))
    data = {}
    for values, positions in blocks:
        for row, position in zip(values, positions):
            data[names[position]] = row
    return pd.DataFrame({name: data[name] for name in names}, columns=list(names))


def _empty() -> pd.DataFrame:
    """``pd.DataFrame()``: no rows, no columns (PyDarshan's frame for a record without segments)."""
    if _from_blocks is not None:
        return _from_blocks([], index=pd.RangeIndex(0), columns=pd.RangeIndex(0))
    return pd.DataFrame()


def _counter_frames(block: dict, attach) -> dict:
    """PyDarshan's ``{"counters", "fcounters"}`` frames from a module's counter blocks: one 2-D
    array per kind (numpy reads the bytes, copied once), then ``rank`` and ``id`` in front."""
    rows = block["rows"]
    ranks = np.frombuffer(block["ranks"], dtype=np.int64)
    ids = np.frombuffer(block["ids"], dtype=np.uint64)
    if rows and int(ids.max()) <= _INT64_MAX or not rows:
        ids = ids.astype(np.int64, copy=False)
    front = [(name, values) for name, values in (("rank", ranks), ("id", ids)) if name in attach]
    frames = {}
    for kind, names, dtype in (("counters", block["names"], np.int64), ("fcounters", block["float_names"], np.float64)):
        values = np.frombuffer(block[kind], dtype=dtype).reshape(rows, len(names))
        blocks = [(np.array(column, copy=True).reshape(1, rows), np.array([position])) for position, (_, column) in enumerate(front)]
        blocks.append((values.T.copy(), np.arange(len(front), len(front) + len(names))))
        frames[kind] = _frame(blocks, rows, tuple(name for name, _ in front) + tuple(names))
    return frames


def _lustre_frame(batch: pa.RecordBatch, attach) -> pd.DataFrame:
    """PyDarshan's LUSTRE components from the reader's batch: ``rank``, ``id``, the
    ``LUSTRE_COMP_*`` counters, the pool name, and the OST ids as one int64 array per row."""
    if _from_blocks is None:
        frame = batch.to_pandas()
        frame["LUSTRE_OST_IDS"] = [np.asarray(ids, dtype=np.int64) for ids in frame["LUSTRE_OST_IDS"]]
        frame = _ids_as_pydarshan(frame)
        return frame.drop(columns=[column for column in ("rank", "id") if column not in attach])
    rows = batch.num_rows
    names = [name for name in batch.schema.names if name not in ("rank", "id") or name in attach]
    counters = [name for name in names if name.startswith("LUSTRE_COMP_") or name == "rank"]
    blocks = [
        (
            np.vstack([batch.column(name).to_numpy() for name in counters]).astype(np.int64, copy=False).reshape(len(counters), rows),
            np.array([names.index(name) for name in counters]),
        )
    ]
    if "id" in names:
        ids = batch.column("id").to_numpy()
        if not rows or int(ids.max()) <= _INT64_MAX:
            ids = ids.astype(np.int64)
        blocks.append((np.array(ids, copy=True).reshape(1, rows), np.array([names.index("id")])))
    pools = pd.array(batch.column("LUSTRE_POOL_NAME").to_pylist(), dtype="str")
    blocks.append((pools, np.array([names.index("LUSTRE_POOL_NAME")])))
    osts = batch.column("LUSTRE_OST_IDS")
    values = osts.values.to_numpy(zero_copy_only=False).astype(np.int64)
    bounds = osts.offsets.to_numpy()
    ost_ids = np.empty((1, rows), dtype=object)
    for row in range(rows):
        ost_ids[0, row] = values[bounds[row] : bounds[row + 1]]
    blocks.append((ost_ids, np.array([names.index("LUSTRE_OST_IDS")])))
    return _frame(blocks, rows, tuple(names))


_SEGMENT_COLUMNS = ("offset", "length", "start_time", "end_time")


def _dxt_records(records: list, segments: pa.RecordBatch) -> list:
    """PyDarshan's DXT records: each record's writes and reads as DataFrames of offset, length,
    start and end time (an empty frame without columns when there are none). The segments come
    record by record, writes before reads; each record carries its row bounds. The integers and
    the times are copied once into two 2-D arrays; each frame views its own rows of them."""
    integers = np.vstack([segments.column(name).to_numpy() for name in _SEGMENT_COLUMNS[:2]]).astype(np.int64, copy=False)
    times = np.vstack([segments.column(name).to_numpy() for name in _SEGMENT_COLUMNS[2:]]).astype(np.float64, copy=False)
    integer_positions, time_positions = np.array([0, 1]), np.array([2, 3])

    def frame(start: int, end: int) -> pd.DataFrame:
        if end <= start:
            return _empty()
        return _frame(
            [(integers[:, start:end], integer_positions), (times[:, start:end], time_positions)],
            end - start,
            _SEGMENT_COLUMNS,
        )

    out = []
    for record, (first, middle, last) in records:
        entry = dict(record)
        entry["write_segments"] = frame(first, middle)
        entry["read_segments"] = frame(middle, last)
        out.append(entry)
    return out


def _heatmaps(columns: dict, names: dict) -> list:
    """The heatmap records as dicts, from the reader's columns of bytes: ``id``, ``name``,
    ``rank``, ``bin_width_seconds``, and ``write_bins`` and ``read_bins`` as int64 arrays (each a
    view of its own run of one array per kind)."""
    ids = np.frombuffer(columns["ids"], dtype=np.uint64)
    ranks = np.frombuffer(columns["ranks"], dtype=np.int64)
    widths = np.frombuffer(columns["bin_widths"], dtype=np.float64)
    bins = {kind: np.frombuffer(columns[kind], dtype=np.int64).copy() for kind in ("write_bins", "read_bins")}
    ends = {kind: np.frombuffer(columns[kind.replace("bins", "ends")], dtype=np.int64) for kind in bins}
    records = []
    starts = {kind: 0 for kind in bins}
    for index, (identifier, rank, width) in enumerate(zip(ids.tolist(), ranks.tolist(), widths.tolist())):
        record = {"id": identifier, "name": names.get(identifier), "rank": rank, "bin_width_seconds": width}
        for kind, values in bins.items():
            end = int(ends[kind][index])
            record[kind] = values[starts[kind] : end]
            starts[kind] = end
        records.append(record)
    return records


class DarshanReport:
    """A Darshan log, read whole on construction (PyDarshan's ``read_all=True``); or, given
    DFTracer traces (a ``.pfw``/``.pfw.gz`` file or a folder of them), the POSIX and STDIO
    records ioscout derives from the traced calls, in the same shape (``derivation`` then says
    how they were derived and what the scan could not read; ``None`` for a real log).

    ``partial=True`` reads past damaged regions; ``problems`` then says what was not read,
    and ``unread_modules`` / ``damaged_modules`` name the modules affected. For traces, bad
    lines are an error unless ``partial=True`` (then they are counted in ``derivation``).
    """

    def __init__(
        self,
        filename: Union[str, "os.PathLike[str]"],
        *,
        partial: bool = False,
        threads: int = 0,
        progress=None,
    ):
        from ._api import _call

        self.filename = os.fspath(filename)
        parts = _call(_native.read_darshan, self.filename, partial, threads, progress=progress)
        self.derivation = json.loads(parts["derivation"]) if parts["derivation"] is not None else None
        self.metadata = {"job": parts["job"], "exe": parts["exe"]}
        self.mounts = parts["mounts"]
        self.modules = parts["modules"]
        self.name_records = parts["name_records"]
        self._heatmap_columns = parts["heatmaps"]
        self._heatmaps = None
        self.problems = parts["problems"]
        self.unread_modules = parts["unread_modules"]
        self.damaged_modules = parts["damaged_modules"]
        self.undecoded_modules = parts["undecoded_modules"]
        #: "swapped" when the log was written on a machine of the other byte order.
        self.byte_order = parts["byte_order"]
        self.records: dict[str, RecordCollection] = {}
        def count(module):
            return self.modules.get(module, {}).get("num_records", 0)

        for module, block in parts["counters"].items():
            self.records[module] = RecordCollection(module, "counters", block, count(module))
        if parts["lustre"] is not None:
            self.records["LUSTRE"] = RecordCollection(
                "LUSTRE", "lustre", pa.record_batch(parts["lustre"]), count("LUSTRE")
            )
        for module, (records, segments) in parts["dxt"].items():
            self.records[module] = RecordCollection(module, "dxt", (records, pa.record_batch(segments)), len(records))

    @property
    def heatmaps(self) -> list:
        """One dict per heatmap record: ``id``, ``name``, ``rank``, ``bin_width_seconds``, and
        ``write_bins`` and ``read_bins`` as int64 arrays of bytes per bin (made when first
        asked for)."""
        if self._heatmaps is None:
            self._heatmaps = _heatmaps(self._heatmap_columns, self.name_records)
        return self._heatmaps

    def __iter__(self) -> Iterator[str]:
        return iter(self.records)

    def __repr__(self) -> str:
        job = self.metadata["job"]
        return (
            f"<ioscout.darshan.DarshanReport {os.path.basename(self.filename)}: {job['nprocs']} processes, "
            f"modules {list(self.modules)}>"
        )


def summarize(
    logs,
    *,
    group_by: str = "exe",
    top: int = 10,
    by: str = "io-time",
    partial: bool = False,
) -> dict:
    """Many Darshan logs at once (a list of logs and directories searched for ``*.darshan``),
    read in parallel, each reduced to its totals as it is read: per group (``exe``, ``user``,
    ``nprocs`` or ``jobid``) the logs, processes, run time, bytes, I/O and metadata time (POSIX
    and STDIO records, summed over processes); then the ``top`` jobs and files by ``by``
    (``io-time``, ``bytes`` or ``meta-time``). Logs that cannot be read are listed under
    ``unreadable`` (and an ``InputWarning``). ``ioscout darshan summary --group-by ... --json``
    as a dict; ``pandas.DataFrame(result["groups"])`` makes a table of it."""
    from ._api import _warn

    paths = [os.fspath(logs)] if isinstance(logs, (str, os.PathLike)) else [os.fspath(log) for log in logs]
    request = json.dumps({"logs": paths, "group_by": group_by, "top": top, "by": by, "partial": partial})
    text, messages = _native.darshan_summary(request)
    _warn(messages)
    return json.loads(text)
