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
  have no ``records``; heatmaps are ``heatmaps``, a list of per-rank records, not PyDarshan's
  Heatmap objects;
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
            frame = self._parts.to_pandas()
            frame["LUSTRE_OST_IDS"] = [np.asarray(ids, dtype=np.int64) for ids in frame["LUSTRE_OST_IDS"]]
            frame = _ids_as_pydarshan(frame)
            frame = frame.drop(columns=[column for column in ("rank", "id") if column not in attach])
            return {"components": frame}
        records, segments = self._parts
        return _dxt_records(records, segments)

    def __repr__(self) -> str:
        return f"<ioscout.darshan.RecordCollection {self.module}: {len(self)} records>"


def _counter_frames(block: dict, attach) -> dict:
    """PyDarshan's ``{"counters", "fcounters"}`` frames from a module's counter blocks: one 2-D
    array per kind (numpy reads the bytes in place), then ``rank`` and ``id`` in front."""
    rows = block["rows"]
    ranks = np.frombuffer(block["ranks"], dtype=np.int64)
    ids = np.frombuffer(block["ids"], dtype=np.uint64)
    if rows and int(ids.max()) <= _INT64_MAX or not rows:
        ids = ids.astype(np.int64)
    frames = {}
    for kind, names, dtype in (("counters", block["names"], np.int64), ("fcounters", block["float_names"], np.float64)):
        values = np.frombuffer(block[kind], dtype=dtype).reshape(rows, len(names))
        frame = pd.DataFrame(values, columns=list(names), copy=True)
        if "id" in attach:
            frame.insert(0, "id", ids.copy())
        if "rank" in attach:
            frame.insert(0, "rank", ranks.copy())
        frames[kind] = frame
    return frames


def _dxt_records(records: list, segments: pa.RecordBatch) -> list:
    """PyDarshan's DXT records: each record's writes and reads as DataFrames of offset, length,
    start and end time (an empty frame without columns when there are none). The segments come
    record by record, writes before reads; each record carries its row bounds."""
    columns = {name: segments.column(name).to_numpy() for name in ("offset", "length", "start_time", "end_time")}

    def frame(start: int, end: int) -> pd.DataFrame:
        if end <= start:
            return pd.DataFrame()
        return pd.DataFrame({name: values[start:end] for name, values in columns.items()})

    out = []
    for record, (first, middle, last) in records:
        entry = dict(record)
        entry["write_segments"] = frame(first, middle)
        entry["read_segments"] = frame(middle, last)
        out.append(entry)
    return out


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
        self.heatmaps = parts["heatmaps"]
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

    def __iter__(self) -> Iterator[str]:
        return iter(self.records)

    def __repr__(self) -> str:
        job = self.metadata["job"]
        return (
            f"<ioscout.darshan.DarshanReport {os.path.basename(self.filename)}: {job['nprocs']} processes, "
            f"modules {list(self.modules)}>"
        )
