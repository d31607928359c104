"""Errors: every one is an ``ioscout.Error`` of the right kind, naming the file and position
where known; bad input never crashes the interpreter; skipped input is a warning."""

import warnings

import pytest

import ioscout
from conftest import TESTDATA

SAMPLE = str(TESTDATA / "sample")


def test_an_unknown_preset_is_a_request_error():
    with pytest.raises(ioscout.RequestError) as raised:
        ioscout.analyze(SAMPLE, preset="nonsense")
    assert isinstance(raised.value, ioscout.Error)
    assert "nonsense" in str(raised.value)


def test_an_unknown_view_is_a_request_error_naming_the_known_ones():
    with pytest.raises(ioscout.RequestError, match="time_range"):
        ioscout.analyze(SAMPLE, views=["no_such_view"])


def test_a_bad_where_is_a_query_error():
    with pytest.raises(ioscout.QueryError):
        ioscout.query(SAMPLE, where="cat === ")


def test_an_unknown_column_is_a_request_error():
    with pytest.raises(ioscout.RequestError, match="columns"):
        ioscout.query(SAMPLE, select=["nope"])


def test_a_missing_path_is_a_trace_error_naming_it(tmp_path):
    missing = tmp_path / "absent"
    with pytest.raises(ioscout.TraceError) as raised:
        ioscout.count(missing)
    assert str(missing) in str(raised.value)


def test_bad_lines_are_warnings_by_default_and_errors_when_strict():
    bad = str(TESTDATA / "bad" / "garbage-line.pfw")
    with pytest.warns(ioscout.InputWarning, match="garbage-line.pfw"):
        counted = ioscout.count(bad)
    assert counted["problem_count"] > 0
    assert counted["scan"]["complete"] is False
    with pytest.raises(ioscout.TraceError) as raised:
        ioscout.count(bad, strict=True)
    assert raised.value.path.endswith("garbage-line.pfw")
    assert raised.value.line is not None and raised.value.offset is not None


@pytest.mark.parametrize("name", ["empty.pfw", "invalid-utf8.pfw", "trailing-garbage.pfw.gz", "truncated.pfw.gz"])
def test_every_bad_fixture_gives_a_result_that_says_so_or_an_ioscout_error(name):
    path = str(TESTDATA / "bad" / name)
    for call in (ioscout.count, ioscout.info, ioscout.analyze, ioscout.diagnose, ioscout.query):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = call(path)
            except ioscout.Error as error:
                assert str(error), name
                continue
        scan = _scan_of(result)
        assert scan is not None, (name, call.__name__)
        if scan["problem_count"]:
            assert any(issubclass(item.category, ioscout.InputWarning) for item in caught), (name, call.__name__)


def _scan_of(result):
    import json

    if isinstance(result, dict):
        return result.get("scan")
    if hasattr(result, "schema"):
        return json.loads(result.schema.metadata[b"ioscout.scan"])
    return result.scan


def test_a_named_input_that_cannot_be_read_is_an_error_beside_good_ones(tmp_path):
    missing = tmp_path / "typo.pfw"
    with pytest.raises(ioscout.TraceError) as raised:
        ioscout.count([SAMPLE, missing])
    assert raised.value.path == str(missing)


def test_a_bad_model_file_is_a_request_error(tmp_path):
    model = tmp_path / "model.json"
    model.write_text("{}")
    with pytest.raises(ioscout.RequestError):
        ioscout.diagnose(SAMPLE, model=model)


def test_a_report_that_cannot_be_written_is_an_error_naming_the_file(tmp_path):
    out = tmp_path / "no-such-folder" / "report.html"
    with pytest.raises(ioscout.Error) as raised:
        ioscout.report(SAMPLE, out)
    assert raised.value.path == str(out)
    assert not isinstance(raised.value, ioscout.TraceError)


def test_a_progress_callback_sees_every_byte():
    seen = []
    ioscout.analyze(SAMPLE, progress=lambda done, total: seen.append((done, total)))
    assert seen, "the callback was called"
    assert all(done <= total for done, total in seen)
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    assert seen[-1][0] == seen[-1][1] > 0


def test_an_exception_in_the_callback_stops_the_call():
    def fail(done, total):
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        ioscout.analyze(SAMPLE, progress=fail)
