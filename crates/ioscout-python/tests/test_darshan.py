"""``ioscout.darshan.DarshanReport`` against PyDarshan 3.5.0 (the ``darshan`` package, pinned in
requirements.txt) on every corpus log and module: the job, modules, name records and every
``records[m].to_df()`` frame equal, dtypes included, except the differences the module
documents (modules without a decoder: APMPI, APXC, BG/Q); heatmaps as PyDarshan's ``to_df`` per rank."""

import numpy as np
import pandas as pd
import pytest

import ioscout
from conftest import CORPUS, TESTDATA, cli_json

darshan = pytest.importorskip("darshan")

UNDECODED = {"APMPI", "APXC", "BG/Q", "MDHIM"}


def corpus_logs():
    """Every corpus log, or none when the corpus is absent (the test then skips, saying so)."""
    root = CORPUS / "darshan" / "logs"
    return sorted(str(path) for path in root.rglob("*.darshan")) if root.exists() else []


def frames_equal(ours: pd.DataFrame, theirs: pd.DataFrame, what: str) -> None:
    if theirs.shape == (0, 0):
        assert ours.shape == (0, 0), what
        return
    if "LUSTRE_OST_IDS" in theirs:
        assert [list(ids) for ids in ours["LUSTRE_OST_IDS"]] == [list(ids) for ids in theirs["LUSTRE_OST_IDS"]], what
        ours = ours.drop(columns="LUSTRE_OST_IDS")
        theirs = theirs.drop(columns="LUSTRE_OST_IDS")
    pd.testing.assert_frame_equal(ours, theirs, check_exact=True, obj=what)


def byteswapped(values) -> list:
    return [float(value) for value in np.asarray(values, dtype="<f8").byteswap()]


def known_differences(ours, theirs, module: str, kind: str, mine: pd.DataFrame, frame: pd.DataFrame):
    """The documented differences (darshan.py's module documentation), each checked, then the
    columns dropped from both frames so the rest compares exactly."""
    if module != "POSIX" or kind != "fcounters" or theirs.modules["POSIX"]["ver"] > 3:
        return mine, frame
    dropped = ["POSIX_F_VARIANCE_RANK_TIME", "POSIX_F_VARIANCE_RANK_BYTES"]
    for column in dropped:
        lost = (frame[column] == 0) | (frame[column] == mine[column])
        assert lost.all(), f"{column}: darshan-util reads 0 or the stored value"
    if ours.byte_order == "swapped":
        for column in ("POSIX_F_META_TIME", "POSIX_F_MAX_READ_TIME", "POSIX_F_MAX_WRITE_TIME"):
            assert byteswapped(mine[column]) == [float(value) for value in frame[column]], column
            dropped.append(column)
    return mine.drop(columns=dropped), frame.drop(columns=dropped)


def heatmaps_equal(ours, theirs, path: str) -> None:
    """PyDarshan's heatmaps are objects per module whose ``to_df(ops=[op])`` has one row per rank
    and one column per bin; ioscout's are records per rank with the bins as int64 arrays. Each
    module's bins, summed per rank, equal PyDarshan's frame."""
    assert {entry["name"] for entry in ours.heatmaps} == {f"heatmap:{module}" for module in theirs.heatmaps}, path
    for module, heatmap in theirs.heatmaps.items():
        for operation in ("read", "write"):
            expected = heatmap.to_df(ops=[operation])
            rows = {}
            for entry in ours.heatmaps:
                if entry["name"] == f"heatmap:{module}":
                    bins = entry[f"{operation}_bins"]
                    assert bins.dtype == np.int64, path
                    rows[entry["rank"]] = rows.get(entry["rank"], 0) + bins
            assert sorted(rows) == list(expected.index), f"{path} {module} {operation} ranks"
            for rank, bins in rows.items():
                assert list(bins) == list(expected.loc[rank]), f"{path} {module} {operation} rank {rank}"


def compare(path: str) -> None:
    theirs = darshan.DarshanReport(path, read_all=True)
    ours = ioscout.darshan.DarshanReport(path)
    assert ours.metadata["job"] == theirs.metadata["job"], path
    if ours.metadata["exe"].endswith("<TRUNCATED>") and not theirs.mounts:
        assert theirs.metadata["exe"] == "", "PyDarshan drops a command line cut short"
    else:
        assert ours.metadata["exe"] == theirs.metadata["exe"], path
    assert ours.mounts == theirs.mounts, path
    assert ours.name_records == theirs.name_records, path
    heatmaps_equal(ours, theirs, path)
    assert set(ours.modules) == set(theirs.modules), path
    for module, entry in theirs.modules.items():
        mine = dict(ours.modules[module])
        if module in UNDECODED:
            mine.pop("num_records", None)
            entry = {key: value for key, value in entry.items() if key != "num_records"}
        assert mine == entry, f"{path} {module}"
    expected = set(theirs.records) - UNDECODED
    assert set(ours.records) == expected, path
    for module in expected:
        frames = theirs.records[module].to_df()
        mine = ours.records[module].to_df()
        if isinstance(frames, dict):
            assert set(mine) == set(frames), f"{path} {module}"
            for kind, frame in frames.items():
                left, right = known_differences(ours, theirs, module, kind, mine[kind], frame)
                frames_equal(left, right, f"{path} {module} {kind}")
        else:
            assert len(mine) == len(frames), f"{path} {module}"
            for index, (record, expected_record) in enumerate(zip(mine, frames)):
                for key in ("id", "rank", "hostname", "write_count", "read_count"):
                    assert record[key] == expected_record[key], f"{path} {module} record {index} {key}"
                for key in ("write_segments", "read_segments"):
                    frames_equal(record[key], expected_record[key], f"{path} {module} record {index} {key}")


def test_the_bundled_log_matches_pydarshan():
    compare(str(TESTDATA / "darshan" / "mpi-io-test-x86_64-3.5.0.darshan"))


@pytest.mark.parametrize("path", corpus_logs() or [None])
def test_every_corpus_log_matches_pydarshan(path):
    if path is None:
        pytest.skip(f"the Darshan corpus is not at {CORPUS / 'darshan' / 'logs'}")
    compare(path)


def test_a_damaged_log_is_a_darshan_error_naming_the_file(tmp_path):
    source = (TESTDATA / "darshan" / "mpi-io-test-x86_64-3.5.0.darshan").read_bytes()
    cut = tmp_path / "cut.darshan"
    cut.write_bytes(source[: len(source) - 200])
    with pytest.raises(ioscout.DarshanError) as raised:
        ioscout.darshan.DarshanReport(cut)
    assert raised.value.path == str(cut)
    assert isinstance(raised.value, ioscout.Error)
    partial = ioscout.darshan.DarshanReport(cut, partial=True)
    assert partial.problems


def test_a_missing_log_is_a_darshan_error(tmp_path):
    with pytest.raises(ioscout.DarshanError) as raised:
        ioscout.darshan.DarshanReport(tmp_path / "absent.darshan")
    assert raised.value.path == str(tmp_path / "absent.darshan")


def test_len_counts_records_and_an_empty_frame_keeps_its_columns():
    report = ioscout.darshan.DarshanReport(TESTDATA / "darshan" / "mpi-io-test-x86_64-3.5.0.darshan")
    for module, collection in report.records.items():
        assert len(collection) == report.modules[module]["num_records"], module


def test_not_a_log_is_an_error_not_a_crash(tmp_path):
    junk = tmp_path / "junk.darshan"
    junk.write_bytes(b"\x00" * 100)
    with pytest.raises(ioscout.DarshanError):
        ioscout.darshan.DarshanReport(junk)


def dumped(*arguments):
    """The records `ioscout darshan dump` prints, as {(module, rank, id): {counter: value}}."""
    import subprocess

    from conftest import binary

    text = subprocess.run([binary(), "darshan", "dump", *arguments], capture_output=True, text=True, check=True).stdout
    records = {}
    for line in text.splitlines():
        fields = line.split("\t")
        if len(fields) < 5 or line.startswith("#"):
            continue
        module, rank, record, name, value = fields[:5]
        records.setdefault((module, int(rank), int(record)), {})[name] = float(value)
    return records


def as_dumped(report):
    records = {}
    for module, collection in report.records.items():
        frames = collection.to_df()
        if not isinstance(frames, dict) or "counters" not in frames:
            continue
        for kind in ("counters", "fcounters"):
            for row in frames[kind].to_dict("records"):
                key = ("MPI-IO" if module == "MPI-IO" else module, int(row.pop("rank")), int(row.pop("id")))
                records.setdefault(key, {}).update({name: float(value) for name, value in row.items()})
    return records


def test_a_trace_opens_as_the_records_derived_from_it():
    trace = str(TESTDATA / "sample")
    report = ioscout.darshan.DarshanReport(trace)
    assert report.derivation["source"] == "dftracer_trace"
    assert report.derivation["scan"]["complete"] is True
    assert set(report.records) >= {"POSIX"}
    ours = as_dumped(report)
    expected = dumped(trace)
    assert set(ours) == set(expected)
    for key, counters in expected.items():
        for name, value in counters.items():
            assert ours[key][name] == pytest.approx(value, abs=5e-7, rel=1e-6), (key, name)


def test_a_real_log_has_no_derivation():
    assert ioscout.darshan.DarshanReport(TESTDATA / "darshan" / "mpi-io-test-x86_64-3.5.0.darshan").derivation is None


def every_frame(report):
    """Every frame of a report, named: counters and fcounters, LUSTRE components, DXT segments."""
    for module, collection in report.records.items():
        frames = collection.to_df()
        if isinstance(frames, dict):
            for kind, frame in frames.items():
                yield f"{module} {kind}", frame
        else:
            for index, record in enumerate(frames):
                for key in ("write_segments", "read_segments"):
                    yield f"{module} record {index} {key}", record[key]


@pytest.mark.parametrize("log", ["mpi-io-test-x86_64-3.5.0", "mpi-io-test-x86_64-3.1.3"])
def test_frames_without_pandas_block_assembly_are_the_same(log, monkeypatch):
    """pandas older than 3.0 has no ``create_dataframe_from_blocks``; the frames then come from
    the public constructor and must be the same frames."""
    path = TESTDATA / "darshan" / f"{log}.darshan"
    fast = dict(every_frame(ioscout.darshan.DarshanReport(path)))
    monkeypatch.setattr(ioscout.darshan, "_from_blocks", None)
    slow = dict(every_frame(ioscout.darshan.DarshanReport(path)))
    assert fast.keys() == slow.keys() and len(fast) > 2
    for name, frame in fast.items():
        pd.testing.assert_frame_equal(frame, slow[name], check_exact=True, obj=name)


def test_segment_frames_are_writable_and_independent():
    """The DXT frames of one module view rows of one shared array; writing to one record's frame
    changes that frame only, and a second to_df() gives the values as read."""
    collection = ioscout.darshan.DarshanReport(TESTDATA / "darshan" / "mpi-io-test-x86_64-3.1.3.darshan").records["DXT_POSIX"]
    records = collection.to_df()
    frames = [record[key] for record in records for key in ("write_segments", "read_segments") if len(record[key])]
    assert len(frames) >= 2
    before = [frame.copy() for frame in frames]
    frames[0].loc[:, "offset"] = -1
    frames[0].loc[:, "start_time"] = -1.0
    assert (frames[0]["offset"] == -1).all() and (frames[0]["start_time"] == -1.0).all()
    for frame, kept in zip(frames[1:], before[1:]):
        pd.testing.assert_frame_equal(frame, kept)
    again = collection.to_df()
    first = next(record[key] for record in again for key in ("write_segments", "read_segments") if len(record[key]))
    pd.testing.assert_frame_equal(first, before[0])


def test_a_summary_over_logs_equals_the_cli():
    folder = str(TESTDATA / "darshan")
    ours = ioscout.darshan.summarize([folder], group_by="nprocs", top=3, by="bytes")
    assert ours == cli_json("darshan", "summary", "--group-by", "nprocs", "--top", "3", "--by", "bytes", folder)
    assert ours["logs_read"] == 3 and len(ours["top_jobs"]) == 3
    assert sum(group["logs"] for group in pd.DataFrame(ours["groups"]).to_dict("records")) == 3
    with pytest.raises(ioscout.RequestError):
        ioscout.darshan.summarize([folder], group_by="host")
